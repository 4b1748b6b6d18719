"""Board topology: hexes, nodes (intersections), edges and harbor slots.

Built once at import from axial coordinates, as constant numpy tables padded
with -1. Everything is pure Python/numpy; the kernels receive the flat
``TOPO`` array (offsets ``T_*``) as an argument, never as a global.

Coordinates are axial ``(q, r)``, ``s = -q - r``, pointy-top, ``r`` growing
downward (as in the game-log format, ``docs/game-log.md``, and the beginner board). The 19
land hexes are those with ``max(|q|, |r|, |s|) <= 2``, numbered row by row
(top to bottom), left to right::

                 (0,-2) (1,-2) (2,-2)              0   1   2
             (-1,-1) (0,-1) (1,-1) (2,-1)        3   4   5   6
          (-2,0) (-1,0) (0,0) (1,0) (2,0)      7   8   9  10  11
             (-2,1) (-1,1) (0,1) (1,1)           12  13  14  15
                 (-2,2) (-1,2) (0,2)               16  17  18

Nodes (54) are numbered by their position on the page, top to bottom, then
left to right; edges (72) by their midpoints, likewise. Each hex lists its six
corner nodes clockwise from the top corner. ``docs/topology.md`` has a drawing
with every index (``catansim board --indices``).
"""

from __future__ import annotations

import math

import numpy as np

from .constants import N_EDGES, N_HARBORS, N_HEXES, N_NODES
from .errors import CatansimError

SQRT3 = math.sqrt(3.0)
# Axial neighbour directions: E, NE, NW, W, SW, SE.
DIRECTIONS = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))


def hex_distance(q: int, r: int) -> int:
    """Distance of axial hex (q, r) from the centre hex."""
    return max(abs(q), abs(r), abs(q + r))


def hex_to_xy(q: float, r: float) -> tuple[float, float]:
    """Page position of a hex centre (unit circumradius, y grows downward)."""
    return SQRT3 * (q + r / 2.0), 1.5 * r


def _land_hexes() -> list[tuple[int, int]]:
    cells = [(q, r) for r in range(-2, 3) for q in range(-2, 3) if hex_distance(q, r) <= 2]
    return sorted(cells, key=lambda c: (c[1], c[0]))


HEX_COORDS = np.array(_land_hexes(), dtype=np.int64)  # (19, 2) axial (q, r)
_HEX_INDEX = {(int(q), int(r)): i for i, (q, r) in enumerate(HEX_COORDS)}
HEX_XY = np.array([hex_to_xy(q, r) for q, r in HEX_COORDS])  # (19, 2)


def hex_index(q: int, r: int) -> int:
    """Index of land hex (q, r), or -1 for a sea hex."""
    return _HEX_INDEX.get((q, r), -1)


def _corner_xy(q: int, r: int, k: int) -> tuple[float, float]:
    # Corner k of a pointy-top hex, clockwise from the top (k=0).
    cx, cy = hex_to_xy(q, r)
    ang = math.radians(60 * k - 90)
    return cx + math.cos(ang), cy + math.sin(ang)


def _key(x: float, y: float) -> tuple[int, int]:
    return round(y * 1000), round(x * 1000)


def _build_nodes():
    corners: dict[tuple[int, int], tuple[float, float]] = {}
    for q, r in HEX_COORDS:
        for k in range(6):
            x, y = _corner_xy(int(q), int(r), k)
            corners.setdefault(_key(x, y), (x, y))
    order = sorted(corners)  # by (y, x)
    index = {key: i for i, key in enumerate(order)}
    xy = np.array([corners[key] for key in order])
    return index, xy


_NODE_INDEX, NODE_XY = _build_nodes()  # NODE_XY: (54, 2) page position of each node


def _node_of(q: int, r: int, k: int) -> int:
    return _NODE_INDEX[_key(*_corner_xy(q, r, k))]


HEX_NODES = np.array(
    [[_node_of(int(q), int(r), k) for k in range(6)] for q, r in HEX_COORDS], dtype=np.int64
)  # (19, 6) corner nodes, clockwise from the top


def _node_hex_coords() -> np.ndarray:
    # The three hexes (land or sea) whose centres lie at distance 1 from the node.
    out = np.zeros((N_NODES, 3, 2), dtype=np.int64)
    for n, (x, y) in enumerate(NODE_XY):
        found = []
        for q in range(-3, 4):
            for r in range(-3, 4):
                if hex_distance(q, r) > 3:
                    continue
                hx, hy = hex_to_xy(q, r)
                if abs(math.hypot(hx - x, hy - y) - 1.0) < 1e-6:
                    found.append((q, r))
        assert len(found) == 3, (n, found)
        out[n] = sorted(found, key=lambda c: (c[1], c[0]))
    return out


NODE_HEX_COORDS = _node_hex_coords()  # (54, 3, 2) axial coordinates of the 3 hexes at a node
NODE_HEXES = np.array(
    [[hex_index(int(q), int(r)) for q, r in trio] for trio in NODE_HEX_COORDS], dtype=np.int64
)  # (54, 3) land hex index, -1 for sea


def _build_edges():
    pairs = set()
    for nodes in HEX_NODES:
        for k in range(6):
            a, b = int(nodes[k]), int(nodes[(k + 1) % 6])
            pairs.add((min(a, b), max(a, b)))
    def mid(p):
        (x1, y1), (x2, y2) = NODE_XY[p[0]], NODE_XY[p[1]]
        return _key((x1 + x2) / 2, (y1 + y2) / 2)
    return np.array(sorted(pairs, key=mid), dtype=np.int64)


EDGE_NODES = _build_edges()  # (72, 2) end nodes, lower index first
EDGE_XY = NODE_XY[EDGE_NODES].mean(axis=1)  # (72, 2) midpoint of each edge


def _edge_hexes() -> np.ndarray:
    out = np.full((N_EDGES, 2), -1, dtype=np.int64)
    for e, (a, b) in enumerate(EDGE_NODES):
        shared = {tuple(c) for c in NODE_HEX_COORDS[a]} & {tuple(c) for c in NODE_HEX_COORDS[b]}
        assert len(shared) == 2
        out[e] = sorted((hex_index(*c) for c in shared), reverse=True)
    return out


EDGE_HEXES = _edge_hexes()  # (72, 2) the two hexes an edge separates; -1 for sea (land first)


def _node_adjacency():
    neigh = np.full((N_NODES, 3), -1, dtype=np.int64)
    edges = np.full((N_NODES, 3), -1, dtype=np.int64)
    fill = np.zeros(N_NODES, dtype=np.int64)
    for e, (a, b) in enumerate(EDGE_NODES):
        for u, v in ((a, b), (b, a)):
            neigh[u, fill[u]] = v
            edges[u, fill[u]] = e
            fill[u] += 1
    return neigh, edges


# NODE_NEIGHBOURS[n, k] is joined to n by edge NODE_EDGES[n, k]; -1 padded (2 or 3 used).
NODE_NEIGHBOURS, NODE_EDGES = _node_adjacency()


def _edge_neighbours() -> np.ndarray:
    out = np.full((N_EDGES, 4), -1, dtype=np.int64)
    for e, (a, b) in enumerate(EDGE_NODES):
        others = [int(x) for n in (a, b) for x in NODE_EDGES[n] if x >= 0 and x != e]
        out[e, : len(others)] = sorted(others)
    return out


EDGE_NEIGHBOURS = _edge_neighbours()  # (72, 4) edges sharing an end node, -1 padded
COASTAL_EDGES = np.flatnonzero(EDGE_HEXES[:, 1] < 0)  # (30,) edges between land and sea

HEX_NEIGHBOURS = np.array(
    [
        [hex_index(int(q) + dq, int(r) + dr) for dq, dr in DIRECTIONS]
        for q, r in HEX_COORDS
    ],
    dtype=np.int64,
)  # (19, 6) land neighbours in DIRECTIONS order, -1 for sea

# Harbor slots on the frame, clockwise from the top-left, as (land hex, sea hex)
# (positions of the "Starting Set-up for Beginners" map, ``catansim/data/beginner-board.json``).
HARBOR_SLOT_HEXES = (
    ((0, -2), (0, -3)),
    ((1, -2), (2, -3)),
    ((2, -1), (3, -2)),
    ((2, 0), (3, 0)),
    ((1, 1), (1, 2)),
    ((-1, 2), (-1, 3)),
    ((-2, 2), (-3, 3)),
    ((-2, 1), (-3, 1)),
    ((-1, -1), (-2, -1)),
)


def _edge_hex_set(e: int) -> set:
    a, b = EDGE_NODES[e]
    return {tuple(c) for c in NODE_HEX_COORDS[a]} & {tuple(c) for c in NODE_HEX_COORDS[b]}


def _harbor_edges() -> np.ndarray:
    out = np.zeros(N_HARBORS, dtype=np.int64)
    for i, (land, sea) in enumerate(HARBOR_SLOT_HEXES):
        want = {land, sea}
        hits = [e for e in range(N_EDGES) if want <= _edge_hex_set(e)]
        assert len(hits) == 1, (i, hits)
        out[i] = hits[0]
    return out


HARBOR_EDGES = _harbor_edges()  # (9,) coastal edge of each harbor slot
HARBOR_NODES = EDGE_NODES[HARBOR_EDGES]  # (9, 2) the two nodes that use each harbor slot
HARBOR_XY = np.array(
    [hex_to_xy(*sea) for _, sea in HARBOR_SLOT_HEXES]
)  # (9, 2) centre of the sea hex holding each harbor (for drawing)


def _spiral(corner: int) -> np.ndarray:
    """Hex order of the counter-clockwise spiral starting at corner ``corner``.

    Corners are numbered by DIRECTIONS: corner c is the ring-2 hex ``2 * DIRECTIONS[c]``.
    The outer ring runs counter-clockwise (as seen on the page) from that corner,
    then the inner ring from the hex between the corner and the centre, then the centre.
    """
    dq, dr = DIRECTIONS[corner]

    def ccw_ring(radius: int, start: tuple[int, int]) -> list[int]:
        cells = [(int(q), int(r)) for q, r in HEX_COORDS if hex_distance(q, r) == radius]

        def angle(c):  # counter-clockwise on the page: y axis flipped
            x, y = hex_to_xy(*c)
            return math.atan2(-y, x)

        a0 = angle(start)
        cells.sort(key=lambda c: (angle(c) - a0) % (2 * math.pi))
        return [hex_index(*c) for c in cells]

    order = ccw_ring(2, (2 * dq, 2 * dr)) + ccw_ring(1, (dq, dr)) + [hex_index(0, 0)]
    return np.array(order, dtype=np.int64)


SPIRALS = np.stack([_spiral(c) for c in range(6)])  # (6, 19) hex order for each start corner


# --- Flat table for the kernels -------------------------------------------------
# One int32 array holds every table; kernels index it with these offsets. A flat
# integer array is much faster to pass around in Numba than a bundle of arrays.
_TABLES = (
    ("hex_nodes", HEX_NODES),
    ("hex_neighbours", HEX_NEIGHBOURS),
    ("node_hexes", NODE_HEXES),
    ("node_neighbours", NODE_NEIGHBOURS),
    ("node_edges", NODE_EDGES),
    ("edge_nodes", EDGE_NODES),
    ("edge_neighbours", EDGE_NEIGHBOURS),
    ("harbor_nodes", HARBOR_NODES),
    ("spirals", SPIRALS),
)
TOPO_OFFSETS: dict[str, int] = {}
_pos = 0
for _name, _table in _TABLES:
    TOPO_OFFSETS[_name] = _pos
    _pos += _table.size
TOPO_SIZE = _pos

T_HEX_NODES = TOPO_OFFSETS["hex_nodes"]  # [19 * 6]
T_HEX_NEIGHBOURS = TOPO_OFFSETS["hex_neighbours"]  # [19 * 6]
T_NODE_HEXES = TOPO_OFFSETS["node_hexes"]  # [54 * 3]
T_NODE_NEIGHBOURS = TOPO_OFFSETS["node_neighbours"]  # [54 * 3]
T_NODE_EDGES = TOPO_OFFSETS["node_edges"]  # [54 * 3]
T_EDGE_NODES = TOPO_OFFSETS["edge_nodes"]  # [72 * 2]
T_EDGE_NEIGHBOURS = TOPO_OFFSETS["edge_neighbours"]  # [72 * 4]
T_HARBOR_NODES = TOPO_OFFSETS["harbor_nodes"]  # [9 * 2]
T_SPIRALS = TOPO_OFFSETS["spirals"]  # [6 * 19]


def build_topo() -> np.ndarray:
    """Return the flat int32 topology array that every kernel takes as ``topo``."""
    return np.concatenate([t.ravel() for _, t in _TABLES]).astype(np.int32)


TOPO = build_topo()
for _arr in (HEX_COORDS, HEX_XY, HEX_NODES, NODE_XY, NODE_HEX_COORDS, NODE_HEXES, EDGE_NODES,
             EDGE_XY, EDGE_HEXES, NODE_NEIGHBOURS, NODE_EDGES, EDGE_NEIGHBOURS, COASTAL_EDGES,
             HEX_NEIGHBOURS, HARBOR_EDGES, HARBOR_NODES, HARBOR_XY, SPIRALS, TOPO):
    _arr.setflags(write=False)

assert HEX_COORDS.shape[0] == N_HEXES and NODE_XY.shape[0] == N_NODES
assert EDGE_NODES.shape[0] == N_EDGES

# --- lookups by geometry: a node is its three hexes, an edge its two nodes -----------
NODE_BY_HEXES = {frozenset(map(tuple, trio.tolist())): n for n, trio in enumerate(NODE_HEX_COORDS)}
EDGE_BY_NODES = {frozenset(map(int, pair)): e for e, pair in enumerate(EDGE_NODES)}
SLOT_BY_EDGE = {int(e): s for s, e in enumerate(HARBOR_EDGES)}


def node_of_hexes(hexes) -> int:
    """Our node index for three axial hex coordinates ``(q, r)`` meeting at a corner."""
    key = frozenset(tuple(int(c) for c in h) for h in hexes)
    if key not in NODE_BY_HEXES:
        raise CatansimError(f"node: hexes {sorted(key)} do not meet at a corner; allowed: "
                            "three axial (q, r) coordinates of hexes that share a corner")
    return NODE_BY_HEXES[key]


def edge_between_hexes(a, b) -> int:
    """Our edge index for the side shared by hexes ``a`` and ``b`` (axial ``(q, r)``)."""
    want = {tuple(int(c) for c in a), tuple(int(c) for c in b)}
    for e, (u, v) in enumerate(EDGE_NODES):
        shared = {tuple(c) for c in NODE_HEX_COORDS[u].tolist()} & {
            tuple(c) for c in NODE_HEX_COORDS[v].tolist()}
        if shared == want:
            return e
    raise CatansimError(f"edge: hexes {tuple(a)} and {tuple(b)} do not share a side; allowed: "
                        "two axial (q, r) coordinates of side-sharing hexes")
