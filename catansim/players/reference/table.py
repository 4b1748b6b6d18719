"""What a seat reads of the table: pieces, networks, production and harbors.

Every function here reads an ``Observation`` (the board, the pieces, the supply and the
public counts, which every seat sees alike) and names one fact of the game. None reads
a hidden card. Two small helpers every decision uses close the module: ``best_of`` (the
candidates of the highest value, ties and all) and ``one_card``.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...constants import (
    CITIES_PER_PLAYER,
    HARBOR_ANY,
    PIPS,
    ROADS_PER_PLAYER,
    SETTLEMENTS_PER_PLAYER,
    TERRAIN_RESOURCE,
    VICTORY_POINT,
)
from ...game import Observation
from ...topology import EDGE_NODES, HARBOR_NODES, NODE_EDGES, NODE_HEXES, NODE_NEIGHBOURS


def missing(hand: Sequence[int], cost: Sequence[int]) -> int:
    """Cards ``hand`` lacks to pay ``cost`` (both wood to ore)."""
    return sum(max(0, c - h) for h, c in zip(hand, cost, strict=True))


def land_hexes(obs: Observation, node: int) -> list[tuple[int, int, int]]:
    """The producing hexes at ``node`` as (hex, resource, pips), in the topology's order;
    the desert and the sea produce nothing and are left out."""
    out = []
    for h in NODE_HEXES[node]:
        if h < 0:
            continue
        r = TERRAIN_RESOURCE[obs.hex_terrain[h]]
        if r >= 0:
            out.append((int(h), r, PIPS[obs.hex_number[h]]))
    return out


def resources_at(obs: Observation, node: int) -> set[int]:
    """The distinct resources the hexes at ``node`` produce."""
    return {r for _, r, _ in land_hexes(obs, node)}


def neighbours(node: int) -> list[tuple[int, int]]:
    """(edge, node at its other end) for every edge at ``node``, in the topology's order."""
    return [(int(e), int(m)) for e, m in zip(NODE_EDGES[node], NODE_NEIGHBOURS[node],
                                             strict=True) if e >= 0]


def other_end(edge: int, node: int) -> int:
    """The end of ``edge`` that is not ``node``."""
    a, b = EDGE_NODES[edge]
    return int(b if a == node else a)


def free_by_distance_rule(obs: Observation, node: int) -> bool:
    """No building on ``node`` nor on a node next to it: a settlement may stand there."""
    return obs.node_owner[node] < 0 and all(obs.node_owner[m] < 0 for _, m in neighbours(node))


def roads_at(obs: Observation, seat: int, node: int) -> int:
    """How many of ``seat``'s roads end at ``node`` (0 to 3)."""
    return sum(1 for e, _ in neighbours(node) if obs.edge_owner[e] == seat)


def network(obs: Observation, seat: int) -> list[int]:
    """The nodes ``seat``'s roads and buildings touch, in increasing order."""
    nodes = {int(n) for n in range(len(obs.node_owner)) if obs.node_owner[n] == seat}
    for e, owner in enumerate(obs.edge_owner):
        if owner == seat:
            nodes.update(int(n) for n in EDGE_NODES[e])
    return sorted(nodes)


def settlement_spots(obs: Observation, seat: int) -> list[int]:
    """The nodes where ``seat`` may build a settlement now, pieces aside: free by the
    Distance Rule and at the end of one of its roads."""
    return [n for n in network(obs, seat) if free_by_distance_rule(obs, n)]


def buildings(obs: Observation, seat: int, level: int) -> list[int]:
    """``seat``'s settlements (level 1) or cities (level 2), by node."""
    return [int(n) for n in range(len(obs.node_owner))
            if obs.node_owner[n] == seat and obs.node_level[n] == level]


def settlements_left(obs: Observation, seat: int) -> int:
    """Settlement pieces ``seat`` has not built (a city gives its settlement back)."""
    return SETTLEMENTS_PER_PLAYER - len(buildings(obs, seat, 1))


def cities_left(obs: Observation, seat: int) -> int:
    """City pieces ``seat`` has not built."""
    return CITIES_PER_PLAYER - len(buildings(obs, seat, 2))


def roads_left(obs: Observation, seat: int) -> int:
    """Road pieces ``seat`` has not built."""
    return ROADS_PER_PLAYER - int((obs.edge_owner == seat).sum())


def production(obs: Observation, seat: int) -> list[int]:
    """``seat``'s pips of each resource, wood to ore: the pips of every hex at its
    buildings, a city's twice (the robber does not change it)."""
    pips = [0] * 5
    for n in range(len(obs.node_owner)):
        if obs.node_owner[n] == seat:
            for _, r, p in land_hexes(obs, n):
                pips[r] += int(obs.node_level[n]) * p
    return pips


def hexes_with_buildings(obs: Observation, seat: int) -> set[int]:
    """The hexes (the desert included) at whose corners ``seat`` has a building."""
    return {int(h) for n in range(len(obs.node_owner)) if obs.node_owner[n] == seat
            for h in NODE_HEXES[n] if h >= 0}


def harbor_at(obs: Observation, node: int) -> int:
    """The harbor kind ``node`` may use (0-4 a resource's 2:1, 5 the 3:1), -1 for none."""
    for slot, ends in enumerate(HARBOR_NODES):
        if node in ends:
            return int(obs.harbors[slot])
    return -1


def harbors_of(obs: Observation, seat: int) -> set[int]:
    """The harbor kinds ``seat`` uses: those at the nodes of its buildings."""
    kinds = {harbor_at(obs, n) for n in range(len(obs.node_owner)) if obs.node_owner[n] == seat}
    return kinds - {-1}


def maritime_rate(obs: Observation, seat: int, resource: int) -> int:
    """Cards of ``resource`` that ``seat`` gives the supply for one: 2 at its 2:1 harbor,
    3 at a 3:1 harbor, else 4."""
    kinds = harbors_of(obs, seat)
    return 2 if resource in kinds else 3 if HARBOR_ANY in kinds else 4


def may_play(obs: Observation, card: int) -> bool:
    """The observer may play development card ``card`` now: one a turn, never a victory
    point card, never one bought this turn."""
    if obs.card_played or card == VICTORY_POINT:
        return False
    return obs.development_cards[card] - obs.new_development_cards[card] > 0


def best_of(candidates: Sequence, value) -> list:
    """The candidates of the highest ``value`` (every one of them, in their order): a
    decision's choice, ties and all."""
    values = [value(c) for c in candidates]
    top = max(values)
    return [c for c, v in zip(candidates, values, strict=True) if v == top]


def one_card(resource: int, n: int = 1) -> tuple:
    """``n`` cards of ``resource``, as five counts wood to ore."""
    cards = [0] * 5
    cards[resource] = n
    return tuple(cards)
