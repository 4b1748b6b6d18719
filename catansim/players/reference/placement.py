"""Where to build: the worth of a node for a settlement, of a settlement for a city, and
of an edge for a road (``docs/strategies.md``, Placement score of a node).

Sums are written in the order of their terms: the kernel adds the same terms in the
same order, so equal worths stay equal and a tie is a tie in both.
"""

from __future__ import annotations

from ...constants import HARBOR_ANY, PIPS, TERRAIN_RESOURCE
from ...game import Observation
from ...topology import EDGE_NODES
from .table import (
    buildings,
    free_by_distance_rule,
    harbor_at,
    harbors_of,
    land_hexes,
    neighbours,
    network,
    production,
    resources_at,
    roads_at,
    roads_left,
)
from .weights import Weights


def scarcity(obs: Observation, w: Weights) -> list[float]:
    """Each resource's scarcity factor on this board, wood to ore: the mean pips of a
    resource over this resource's pips, kept within 0.5 to 2 and raised to
    ``scarcity_weight``. A resource that is rare on this board counts more."""
    pips = [0] * 5
    for h in range(len(obs.hex_terrain)):
        r = TERRAIN_RESOURCE[obs.hex_terrain[h]]
        if r >= 0:
            pips[r] += PIPS[obs.hex_number[h]]
    mean = sum(pips) / 5.0
    factors = []
    for r in range(5):
        f = mean / pips[r] if pips[r] > 0 else 2.0
        f = min(2.0, max(0.5, f))
        factors.append(f if w.scarcity_weight == 1.0 else f ** w.scarcity_weight)
    return factors


def opponent_roads_at(obs: Observation, seat: int, node: int) -> int:
    """Opponents' roads ending at ``node``: a route of theirs heading there."""
    return sum(1 for e, _ in neighbours(node) if obs.edge_owner[e] >= 0
               and obs.edge_owner[e] != seat)


def node_score(obs: Observation, w: Weights, seat: int, node: int, in_game: bool) -> float:
    """What a settlement on ``node`` is worth to ``seat``:

    production (pips x resource target x scarcity) x ``pips_weight``, plus
    ``diversity_weight`` per distinct resource, plus (once ``seat`` produces anything)
    ``complement_weight`` per resource it does not produce yet, plus ``harbor_weight``
    x a harbor it does not have yet (a 3:1 harbor: 1; a 2:1 harbor: the pips of its
    resource that the seat and this node produce, over 4, so it pays off where the
    resource comes in), plus in the game (not the set-up) ``block_weight`` per
    opponent road at the node.
    """
    factor = scarcity(obs, w)
    produce = 0.0
    for _, r, pips in land_hexes(obs, node):
        produce += pips * w.target[r] * factor[r]
    here = resources_at(obs, node)
    score = w.pips_weight * produce + w.diversity_weight * len(here)
    own = production(obs, seat)
    produced = {r for r in range(5) if own[r] > 0}
    if produced:
        score += w.complement_weight * len(here - produced)
    kind = harbor_at(obs, node)
    if kind >= 0 and w.harbor_weight > 0 and kind not in harbors_of(obs, seat):
        if kind == HARBOR_ANY:
            harbor = 1.0
        else:
            at_node = sum(pips for _, r, pips in land_hexes(obs, node) if r == kind)
            harbor = (own[kind] + at_node) / 4.0
        score += w.harbor_weight * harbor
    if in_game and w.block_weight > 0:
        for _ in range(opponent_roads_at(obs, seat, node)):
            score += w.block_weight
    return score


def city_value(obs: Observation, w: Weights, node: int) -> float:
    """What upgrading the settlement on ``node`` adds: its hexes' pips x resource target
    (a hex under the robber counts half)."""
    value = 0.0
    for h, r, pips in land_hexes(obs, node):
        value += (pips * 0.5 if h == obs.robber else pips) * w.target[r]
    return value


def best_city(obs: Observation, w: Weights, seat: int) -> int:
    """The settlement of ``seat`` whose upgrade adds most, -1 for none (ties: the
    lowest node)."""
    best, best_value = -1, -1.0
    for n in buildings(obs, seat, 1):
        v = city_value(obs, w, n)
        if v > best_value:
            best, best_value = n, v
    return best


def settlement_order(obs: Observation, seat: int, node: int) -> int:
    """Where ``node`` comes when ``seat``'s roads are walked in edge order, each from its
    first end: 2 x edge + end, the least over its roads at the node. The best spot's ties
    go to the spot met first."""
    return min(2 * e + (0 if EDGE_NODES[e][0] == node else 1)
               for e, _ in neighbours(node) if obs.edge_owner[e] == seat)


def best_settlement_spot(obs: Observation, w: Weights, seat: int) -> int:
    """The spot (free by the Distance Rule, at the end of ``seat``'s road) of the best
    ``node_score``, -1 for none; ties go to the spot met first along its roads
    (``settlement_order``)."""
    spots = [n for n in network(obs, seat) if free_by_distance_rule(obs, n)]
    if not spots:
        return -1
    return max(spots, key=lambda n: (node_score(obs, w, seat, n, True),
                                     -settlement_order(obs, seat, n)))


def road_value(obs: Observation, w: Weights, seat: int, near: int, far: int,
               want_spot: bool) -> float:
    """What a road from ``near`` (on ``seat``'s network) to ``far`` is worth.

    - When ``want_spot`` (a settlement piece is left) and ``far`` is open (no building,
      none of the seat's roads): the best settlement spot it opens, ``far`` itself if
      the Distance Rule allows it, else 0.7 x the best spot one empty edge further.
    - ``route_weight`` if ``far`` is open and the road extends an end of its roads
      (``near`` holds its building or at most one of its roads): Longest Route.
    - ``block_weight`` per opponent road at an empty ``far``: taking the spot an
      opponent's route heads for.
    """
    far_empty = obs.node_owner[far] < 0
    far_open = far_empty and roads_at(obs, seat, far) == 0
    value = 0.0
    if want_spot and far_open:
        if free_by_distance_rule(obs, far):
            value = node_score(obs, w, seat, far, True)
        else:
            for e2, m2 in neighbours(far):
                if m2 != near and obs.edge_owner[e2] < 0 and free_by_distance_rule(obs, m2):
                    value = max(value, 0.7 * node_score(obs, w, seat, m2, True))
    extends = obs.node_owner[near] == seat or roads_at(obs, seat, near) <= 1
    if far_open and w.route_weight > 0 and extends:
        value += w.route_weight
    if w.block_weight > 0 and far_empty:
        for _ in range(opponent_roads_at(obs, seat, far)):
            value += w.block_weight
    return value


def road_candidates(obs: Observation, seat: int) -> list[tuple[int, int, int]]:
    """Every road ``seat`` may build, as (edge, near, far): an empty edge at a node of
    its network that is not an opponent's building. Nodes in increasing order, each
    node's edges in the topology's order; an edge between two nodes of its network
    comes once from each end."""
    if roads_left(obs, seat) <= 0:
        return []
    out = []
    for n in network(obs, seat):
        if obs.node_owner[n] >= 0 and obs.node_owner[n] != seat:
            continue  # no road goes on through an opponent's building
        for e, m in neighbours(n):
            if obs.edge_owner[e] < 0:
                out.append((e, n, m))
    return out


def best_road(obs: Observation, w: Weights, seat: int, want_spot: bool) -> tuple[int, float]:
    """The road of most ``road_value`` and its value ((-1, None) when no road may be
    built); ties go to the first in ``road_candidates``' order."""
    best, best_value = -1, None
    for e, near, far in road_candidates(obs, seat):
        v = road_value(obs, w, seat, near, far, want_spot)
        if best_value is None or v > best_value:
            best, best_value = e, v
    return best, best_value
