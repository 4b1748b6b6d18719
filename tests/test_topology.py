"""Topology tables against the board geometry recomputed from axial arithmetic alone."""

from itertools import combinations

import numpy as np

from catansim import topology as T
from catansim.constants import N_EDGES, N_HARBORS, N_HEXES, N_NODES

# Independent geometry: axial neighbours as listed in docs/game-log.md.
STEPS = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1)]


def dist(c):
    q, r = c
    return max(abs(q), abs(r), abs(q + r))


LAND = {(q, r) for q in range(-2, 3) for r in range(-2, 3) if dist((q, r)) <= 2}
ALL = {(q, r) for q in range(-4, 5) for r in range(-4, 5) if dist((q, r)) <= 3}


def adjacent(a, b):
    return (b[0] - a[0], b[1] - a[1]) in STEPS


def oracle_nodes():
    # A node: three mutually adjacent hexes, at least one of them land.
    return {
        frozenset(t)
        for t in combinations(sorted(ALL), 3)
        if adjacent(t[0], t[1]) and adjacent(t[0], t[2]) and adjacent(t[1], t[2])
        and any(c in LAND for c in t)
    }


def oracle_edges(nodes):
    # An edge: two nodes sharing two hexes.
    return {frozenset((a, b)) for a, b in combinations(nodes, 2) if len(a & b) == 2}


def our_nodes():
    return [frozenset(map(tuple, trio.tolist())) for trio in T.NODE_HEX_COORDS]


def test_counts():
    assert len(T.HEX_COORDS) == N_HEXES == 19
    assert len(T.NODE_XY) == N_NODES == 54
    assert len(T.EDGE_NODES) == N_EDGES == 72
    assert {tuple(c) for c in T.HEX_COORDS.tolist()} == LAND


def test_nodes_match_geometry():
    ours = our_nodes()
    assert len(set(ours)) == 54
    assert set(ours) == oracle_nodes()


def test_edges_match_geometry():
    nodes = our_nodes()
    ours = {frozenset((nodes[a], nodes[b])) for a, b in T.EDGE_NODES.tolist()}
    assert len(ours) == 72
    assert ours == oracle_edges(oracle_nodes())


def test_edges_are_hex_pairs():
    # Each edge separates exactly the two hexes its end nodes share.
    nodes = our_nodes()
    sides = set()
    for e, (a, b) in enumerate(T.EDGE_NODES.tolist()):
        shared = nodes[a] & nodes[b]
        assert len(shared) == 2
        x, y = sorted(shared)
        assert adjacent(x, y) and (x in LAND or y in LAND)
        land = sorted((T.hex_index(*c) for c in shared), reverse=True)
        assert T.EDGE_HEXES[e].tolist() == land
        sides.add(frozenset(shared))
    all_sides = {frozenset((a, b)) for a, b in combinations(sorted(ALL), 2)
                 if adjacent(a, b) and (a in LAND or b in LAND)}
    assert sides == all_sides


def test_node_degrees():
    deg = (T.NODE_NEIGHBOURS >= 0).sum(axis=1)
    assert set(deg.tolist()) <= {2, 3}
    assert deg.sum() == 2 * 72
    # Coastal corners touching one land hex have 2 neighbours: 18 of them on this board.
    n_land = (T.NODE_HEXES >= 0).sum(axis=1)
    assert ((deg == 2) == (n_land == 1)).all()
    assert (deg == 2).sum() == 18


def test_node_edges_consistent():
    for n in range(N_NODES):
        for k in range(3):
            m, e = T.NODE_NEIGHBOURS[n, k], T.NODE_EDGES[n, k]
            assert (m < 0) == (e < 0)
            if m >= 0:
                assert sorted(T.EDGE_NODES[e].tolist()) == sorted([n, m])
    for e, (a, b) in enumerate(T.EDGE_NODES.tolist()):
        expect = sorted({int(x) for n in (a, b) for x in T.NODE_EDGES[n] if x >= 0} - {e})
        assert [x for x in T.EDGE_NEIGHBOURS[e].tolist() if x >= 0] == expect


def test_node_edges_are_listed_in_increasing_order():
    # setup_road_nb visits a node's edges as listed and must meet them as a scan of all
    # 72 edges would: increasing, the missing edge (-1) last.
    for n in range(N_NODES):
        row = T.NODE_EDGES[n].tolist()
        present = [e for e in row if e >= 0]
        assert row == present + [-1] * (3 - len(present)), n
        assert present == sorted(present), n


def test_coastal_edges():
    assert len(T.COASTAL_EDGES) == 30
    nodes = our_nodes()
    coastal = {e for e, (a, b) in enumerate(T.EDGE_NODES.tolist())
               if sum(c in LAND for c in nodes[a] & nodes[b]) == 1}
    assert coastal == set(T.COASTAL_EDGES.tolist())


def test_harbor_slots():
    assert len(set(T.HARBOR_EDGES.tolist())) == N_HARBORS
    assert set(T.HARBOR_EDGES.tolist()) <= set(T.COASTAL_EDGES.tolist())
    nodes = our_nodes()
    for s, (land, sea) in enumerate(T.HARBOR_SLOT_HEXES):
        e = T.HARBOR_EDGES[s]
        a, b = T.EDGE_NODES[e]
        assert nodes[a] & nodes[b] == {land, sea}
        assert land in LAND and sea not in LAND and dist(sea) == 3
        assert T.HARBOR_NODES[s].tolist() == [a, b]
        for n in (a, b):  # both ends touch land
            assert any(c in LAND for c in nodes[n])
    # No intersection serves two harbors.
    assert len(set(T.HARBOR_NODES.ravel().tolist())) == 18


def test_hex_nodes_node_hexes_consistent():
    for h in range(N_HEXES):
        assert len(set(T.HEX_NODES[h].tolist())) == 6
        for n in T.HEX_NODES[h]:
            assert h in T.NODE_HEXES[n]
            assert tuple(T.HEX_COORDS[h]) in our_nodes()[n]
    for n in range(N_NODES):
        for h in T.NODE_HEXES[n]:
            if h >= 0:
                assert n in T.HEX_NODES[h]
    # Each land hex has 6 corners: 19 * 6 incidences.
    assert (T.NODE_HEXES >= 0).sum() == 19 * 6


def test_hex_nodes_clockwise_from_top():
    for h in range(N_HEXES):
        xy = T.NODE_XY[T.HEX_NODES[h]] - T.HEX_XY[h]
        assert np.argmin(xy[:, 1]) == 0  # the top corner first (y grows downward)
        ang = np.arctan2(xy[:, 1], xy[:, 0])  # clockwise on the page = increasing angle
        steps = np.diff(np.unwrap(ang))
        assert np.allclose(steps, np.pi / 3)


def test_hex_neighbours():
    dirs = [(1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1)]  # E NE NW W SW SE
    for h, (q, r) in enumerate(T.HEX_COORDS.tolist()):
        for k, (dq, dr) in enumerate(dirs):
            c = (q + dq, r + dr)
            want = T.hex_index(*c) if c in LAND else -1
            assert T.HEX_NEIGHBOURS[h, k] == want


def test_flat_topo_holds_every_table():
    tables = {
        T.T_HEX_NODES: T.HEX_NODES, T.T_HEX_NEIGHBOURS: T.HEX_NEIGHBOURS,
        T.T_NODE_HEXES: T.NODE_HEXES, T.T_NODE_NEIGHBOURS: T.NODE_NEIGHBOURS,
        T.T_NODE_EDGES: T.NODE_EDGES, T.T_EDGE_NODES: T.EDGE_NODES,
        T.T_EDGE_NEIGHBOURS: T.EDGE_NEIGHBOURS, T.T_HARBOR_NODES: T.HARBOR_NODES,
        T.T_SPIRALS: T.SPIRALS,
    }
    assert T.TOPO.dtype == np.int32 and T.TOPO.size == T.TOPO_SIZE
    for off, table in tables.items():
        assert (T.TOPO[off : off + table.size] == table.ravel()).all()


def test_node_order_on_page():
    # Nodes numbered top to bottom, then left to right.
    keys = [(round(y, 6), round(x, 6)) for x, y in T.NODE_XY]
    assert keys == sorted(keys)
