"""Longest Route: ``route_length_nb`` against a brute-force oracle on random road networks.

The oracle enumerates every trail (a walk that uses each road at most once) over a
player's roads and keeps the longest; a trail may start or end at a node with an
opponent's building but never pass through it (FAQ 22-26). It is plain Python,
knows nothing of the engine's stack, and is slow but obviously correct.
"""

from __future__ import annotations

import random

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from catansim import topology as T
from catansim.core import layout as L
from catansim.core.rules_nb import (
    derive_piece_fields_nb,
    put_road_nb,
    route_after_road_nb,
    route_length_nb,
)

EDGE_NODES = [tuple(map(int, pair)) for pair in T.EDGE_NODES]
NODE_ADJ_EDGES = {n: [] for n in range(54)}
for _e, (_a, _b) in enumerate(EDGE_NODES):
    NODE_ADJ_EDGES[_a].append(_e)
    NODE_ADJ_EDGES[_b].append(_e)


def oracle_route(edges_of_p, blocked_nodes) -> int:
    """Longest trail over ``edges_of_p`` not passing through ``blocked_nodes``."""
    mine = set(edges_of_p)
    best = 0

    def walk(node, used, length):
        nonlocal best
        best = max(best, length)
        if length > 0 and node in blocked_nodes:
            return  # may end here, may not pass
        for e in NODE_ADJ_EDGES[node]:
            if e in mine and e not in used:
                a, b = EDGE_NODES[e]
                used.add(e)
                walk(b if a == node else a, used, length + 1)
                used.remove(e)

    for e in mine:
        for start in EDGE_NODES[e]:
            walk(start, set(), 0)
    return best


def make_state(owner_of_edge, owner_of_node):
    s = np.zeros(L.STATE_SIZE, dtype=np.int32)
    s[L.S_N_PLAYERS] = 4
    s[L.S_NODE_OWNER : L.S_NODE_OWNER + 54] = owner_of_node
    s[L.S_NODE_LEVEL : L.S_NODE_LEVEL + 54] = np.where(np.asarray(owner_of_node) >= 0, 1, 0)
    s[L.S_EDGE_OWNER : L.S_EDGE_OWNER + 72] = owner_of_edge
    derive_piece_fields_nb(s, T.TOPO)  # the search reads each player's roads per node
    return s


def random_network(rng: random.Random):
    """1-4 players, each up to 15 roads grown as random walks (plus stray roads), and
    random buildings (any owner, including the road's owner)."""
    n_players = rng.randint(1, 4)
    edge_owner = [-1] * 72
    for p in range(n_players):
        budget = rng.randint(1, 15)
        placed = 0
        node = rng.randrange(54)
        while placed < budget:
            if rng.random() < 0.15:
                node = rng.randrange(54)  # jump: a disconnected piece
            free = [e for e in NODE_ADJ_EDGES[node] if edge_owner[e] < 0]
            if not free:
                node = rng.randrange(54)
                if all(o >= 0 for o in edge_owner):
                    break
                continue
            e = rng.choice(free)
            edge_owner[e] = p
            placed += 1
            a, b = EDGE_NODES[e]
            node = b if a == node else a
    node_owner = [-1] * 54
    for _ in range(rng.randint(0, 10)):
        node_owner[rng.randrange(54)] = rng.randrange(4)
    return n_players, edge_owner, node_owner


def check(edge_owner, node_owner, n_players):
    s = make_state(edge_owner, node_owner)
    for p in range(n_players):
        mine = [e for e in range(72) if edge_owner[e] == p]
        blocked = {n for n in range(54) if node_owner[n] >= 0 and node_owner[n] != p}
        want = oracle_route(mine, blocked)
        got = int(route_length_nb(s, T.TOPO, p))
        assert got == want, (p, mine, sorted(blocked))


def test_oracle_on_known_shapes():
    ring = [e for e, (a, b) in enumerate(EDGE_NODES) if {a, b} <= set(T.HEX_NODES[9].tolist())]
    assert oracle_route(ring, set()) == 6
    assert oracle_route(ring, {int(T.HEX_NODES[9][0])}) == 6  # a ring may start/end there
    assert oracle_route([], set()) == 0


def test_route_length_matches_the_oracle_on_random_networks():
    rng = random.Random(20260601)
    for _ in range(3000):
        n_players, edge_owner, node_owner = random_network(rng)
        check(edge_owner, node_owner, n_players)


def test_route_length_matches_the_oracle_on_dense_single_player_networks():
    """15 roads packed into the centre, where cycles and branches abound."""
    rng = random.Random(7)
    centre = [e for e, (a, b) in enumerate(EDGE_NODES)
              if all(h >= 0 for h in T.NODE_HEXES[a]) and all(h >= 0 for h in T.NODE_HEXES[b])]
    for _ in range(400):
        edge_owner = [-1] * 72
        for e in rng.sample(centre, 15):
            edge_owner[e] = 0
        node_owner = [-1] * 54
        for n in rng.sample(range(54), rng.randint(0, 4)):
            node_owner[n] = rng.choice([0, 1])
        check(edge_owner, node_owner, 1)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(st.integers(0, 71), min_size=1, max_size=15, unique=True),
       st.lists(st.tuples(st.integers(0, 53), st.integers(0, 3)), max_size=8))
def test_route_length_property(edges, buildings):
    edge_owner = [-1] * 72
    for e in edges:
        edge_owner[e] = 0
    node_owner = [-1] * 54
    for n, q in buildings:
        node_owner[n] = q
    check(edge_owner, node_owner, 1)


def test_route_after_each_new_road_matches_the_oracle():
    """The engine updates a route road by road (``route_after_road_nb``: one search from
    the far end when the road enters new land); after every road it must equal the
    brute-force oracle, including roads that close rings, join pieces or end at an
    opponent's building."""
    rng = random.Random(99)
    pendant = 0
    for _ in range(600):
        node_owner = [-1] * 54
        for _ in range(rng.randint(0, 8)):
            node_owner[rng.randrange(54)] = rng.randrange(1, 3)  # opponents of player 0
        s = make_state([-1] * 72, node_owner)
        mine = []
        node = rng.randrange(54)
        for _ in range(rng.randint(1, 15)):
            if rng.random() < 0.1:
                node = rng.randrange(54)
            free = [e for e in NODE_ADJ_EDGES[node] if s[L.S_EDGE_OWNER + e] < 0]
            if not free:
                break
            e = rng.choice(free)
            a, b = EDGE_NODES[e]
            pendant += min(s[L.S_NODE_ROADS + a], s[L.S_NODE_ROADS + b]) == 0
            put_road_nb(s, T.TOPO, 0, e)
            s[L.S_ROUTE_LEN] = route_after_road_nb(s, T.TOPO, 0, e)
            mine.append(e)
            blocked = {n for n in range(54) if node_owner[n] >= 0}
            assert s[L.S_ROUTE_LEN] == oracle_route(mine, blocked), (mine, sorted(blocked))
            node = b if a == node else a
    assert pendant > 1000  # the single-search path ran many times


def test_roads_that_never_meet_match_the_oracle_and_one_shared_node_does_not_shortcut():
    """``route_length_nb`` answers 1 (0 without roads) without a search when no two of the
    player's roads share a node, as after the usual set-up; with one shared node it
    searches, and both agree with the oracle."""
    rng = random.Random(33)
    apart = 0
    for _ in range(1000):
        edge_owner = [-1] * 72
        used = set()
        for e in rng.sample(range(72), rng.randint(0, 6)):
            a, b = EDGE_NODES[e]
            if a not in used and b not in used:  # no shared node with the roads so far
                edge_owner[e] = 0
                used |= {a, b}
        node_owner = [-1] * 54
        for n in rng.sample(range(54), rng.randint(0, 6)):
            node_owner[n] = rng.randrange(4)
        check(edge_owner, node_owner, 1)
        mine = [e for e in range(72) if edge_owner[e] == 0]
        apart += len(mine) >= 2
        if mine:
            b = EDGE_NODES[mine[0]][1]
            joined = [e for e in NODE_ADJ_EDGES[b] if edge_owner[e] < 0]
            edge_owner[joined[0]] = 0  # a road sharing node b: lengths 2 and more
            check(edge_owner, node_owner, 1)
    assert apart > 300
