"""Where to build: the twin of ``players/reference/placement.py``.

The worth of a node for a settlement (``node_score_nb``), of a settlement for a city
(``city_value_nb``) and of an edge for a road (``road_value_nb``), and the best of each
(``best_settlement_spot_nb``, ``best_city_nb``, ``best_road_nb``); ``scarcity_nb`` as in
the reference. Folded into these: ``opponent_roads_at`` (``add_blocks_nb`` adds the
block term once per opponent road), ``settlement_order`` (the tie key of
``best_settlement_spot_nb``), ``road_candidates`` (the loop of ``best_road_nb``).

Compiled only: ``locate_nb`` prepares the node base scores (memoised in the work
array, ``work_nb``) that ``node_score_nb`` reads; ``add_blocks_by_edge_nb`` and
``best_road_by_edge_nb`` are plain forms of ``add_blocks_nb`` and ``best_road_nb``
that ``tests/test_strategies.py`` checks them against.
"""

import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from ...constants import DESERT, HARBOR_ANY, MAX_PLAYERS, N_EDGES, N_HEXES, N_NODES
from ...topology import T_EDGE_NODES, T_NODE_EDGES, T_NODE_HEXES, T_NODE_NEIGHBOURS
from ..jit import inline_kernel, kernel
from ..layout import (
    S_EDGE_OWNER,
    S_HARBORS,
    S_HEX_NUMBER,
    S_HEX_TERRAIN,
    S_NODE_FREE,
    S_NODE_HARBOR,
    S_NODE_LEVEL,
    S_NODE_OWNER,
    S_NODE_RESOURCES,
    S_NODE_ROADS,
    S_ROADS_LEFT,
    S_ROBBER,
)
from ..rules_nb import (
    BITS5_TABLE,
    distance_ok_nb,
    empty_edges_nb,
    net_nodes_nb,
    pips_nb,
    roads_at_nb,
)
from .table_nb import production_nb
from .weights_nb import (
    P_BLOCK,
    P_COMPLEMENT,
    P_DIVERSITY,
    P_HARBOR,
    P_PIPS,
    P_ROUTE,
    P_SCARCITY,
    P_TARGET,
)
from .work_nb import BASE_KEY, BASE_STRIDE, MEMO_SLOTS, W_BASE, X_BASE, X_PMASK, X_PROD, X_SCAR


@kernel
def scarcity_nb(s, prm, x):
    """Write each resource's scarcity factor into ``x[X_SCAR:X_SCAR+5]``.

    factor_r = clip(mean pips per resource / pips of r on this board, 0.5, 2) raised to
    ``scarcity_weight``: resources that are rare on this board count more.
    """
    for r in range(5):
        x[X_SCAR + r] = 0.0
    total = 0.0
    for h in range(N_HEXES):
        t = s[S_HEX_TERRAIN + h]
        if t != DESERT:  # terrain t produces resource t
            pips = pips_nb(s[S_HEX_NUMBER + h])
            x[X_SCAR + t] += pips
            total += pips
    mean = total / 5.0
    w = prm[P_SCARCITY]
    for r in range(5):
        f = mean / x[X_SCAR + r] if x[X_SCAR + r] > 0 else 2.0
        f = min(2.0, max(0.5, f))
        x[X_SCAR + r] = f**w if w != 1.0 else f


@kernel
def locate_nb(s, topo, prm, p, x):
    """Prepare placement scoring for p in ``x``: p's production, and the base score of
    every node (memoised in the work array ``x`` per parameter values: it depends only
    on the board, the pips, diversity and scarcity weights and the resource targets;
    the scarcity factors are computed only to fill a memo) with its harbor pips."""
    production_nb(s, topo, p, x)
    free = -1
    for i in range(MEMO_SLOTS):
        m = W_BASE + BASE_STRIDE * i
        if x[m] == 0.0:
            if free < 0:
                free = i
            continue
        same = x[m + 1] == prm[P_PIPS] and x[m + 2] == prm[P_DIVERSITY]
        same = same and x[m + 3] == prm[P_SCARCITY]
        for r in range(5):
            same = same and x[m + 4 + r] == prm[P_TARGET + r]
        if same:
            x[X_BASE] = m + 1 + BASE_KEY
            return
    m = W_BASE + BASE_STRIDE * (free if free >= 0 else 0)
    scarcity_nb(s, prm, x)
    x[m] = 1.0
    x[m + 1] = prm[P_PIPS]
    x[m + 2] = prm[P_DIVERSITY]
    x[m + 3] = prm[P_SCARCITY]
    for r in range(5):
        x[m + 4 + r] = prm[P_TARGET + r]
    base = m + 1 + BASE_KEY
    for n in range(N_NODES):
        kind = s[S_NODE_HARBOR + n]
        prod = 0.0
        harbor_pips = 0  # a producing terrain t equals kind only at a 2:1 harbor of t
        for k in range(3):
            h = topo[T_NODE_HEXES + 3 * n + k]
            if h < 0:
                continue
            t = s[S_HEX_TERRAIN + h]
            if t == DESERT:
                continue
            pips = pips_nb(s[S_HEX_NUMBER + h])
            prod += pips * prm[P_TARGET + t] * x[X_SCAR + t]
            harbor_pips += pips if t == kind else 0
        distinct = BITS5_TABLE[s[S_NODE_RESOURCES + n]]
        x[base + n] = prm[P_PIPS] * prod + prm[P_DIVERSITY] * distinct
        x[base + N_NODES + n] = harbor_pips
    x[X_BASE] = base


@kernel
def add_blocks_by_edge_nb(s, topo, p, n, v, block):
    """v plus ``block`` once per opponent road at node n, one addition per edge in edge
    order: the plain form of ``add_blocks_nb`` (tests/test_strategies.py)."""
    for k in range(3):
        e = topo[T_NODE_EDGES + 3 * n + k]
        if e >= 0 and s[S_EDGE_OWNER + e] >= 0 and s[S_EDGE_OWNER + e] != p:
            v += block
    return v


@inline_kernel
def add_blocks_nb(s, topo, p, n, v, block):
    # ``add_blocks_by_edge_nb`` from the road counts: the opponent roads at n are all
    # roads there less p's (``node_roads``, five reads, no edge to look up), and
    # ``block`` is added once per opponent road by three products with 0 or 1 (adding
    # 0.0 changes nothing, so the sums are the same), not a branch on the board.
    k = -s[S_NODE_ROADS + N_NODES * p + n]
    for q in range(MAX_PLAYERS):
        k += s[S_NODE_ROADS + N_NODES * q + n]
    v += block * (k >= 1)
    v += block * (k >= 2)
    v += block * (k >= 3)
    return v


@inline_kernel
def node_score_nb(s, topo, prm, p, n, x, in_game):
    """Placement value of node ``n`` for player p (see docs/strategies.md); ``x`` must
    have been prepared by ``locate_nb`` for p.

    score = pips_weight * sum_h pips_h * target_r * scarcity_r
          + diversity_weight * distinct resources at n
          + complement_weight * resources at n that p does not produce yet
          + harbor_weight * harbor value
          + block_weight * opponents' roads touching n (in game only)
    """
    # No loop over the node's hexes (their harbor pips are memoised); a term not
    # taken adds 0.0. LLVM still branches on the harbor kind (a choice between two
    # floats); multiplying the terms by their conditions is not faster.
    base = int(x[X_BASE])
    score = x[base + n]
    produced = int(x[X_PMASK])
    complement = prm[P_COMPLEMENT] * BITS5_TABLE[s[S_NODE_RESOURCES + n] & ~produced & 31]
    score += complement if produced != 0 else 0.0
    kind = s[S_NODE_HARBOR + n]
    kc = max(kind, 0)  # kind -1 (no harbor) reads kind 0's fields, then adds nothing
    harbor_w = prm[P_HARBOR]
    # A 2:1 harbor is worth what the player and this node produce of its resource, in
    # quarters (sums of small integers over 4: exact in any order).
    hv = (x[X_PROD + kc] + x[base + N_NODES + n]) / 4.0
    hv = 1.0 if kind == HARBOR_ANY else hv
    use = (kind >= 0) & (harbor_w > 0) & (s[S_HARBORS + 6 * p + kc] == 0)
    score += harbor_w * hv if use else 0.0
    if in_game and prm[P_BLOCK] > 0:
        score = add_blocks_nb(s, topo, p, n, score, prm[P_BLOCK])
    return score


@kernel
def city_value_nb(s, topo, prm, n):
    """What upgrading node ``n`` adds: its pips weighted by the resource targets."""
    v = 0.0
    for k in range(3):
        h = topo[T_NODE_HEXES + 3 * n + k]
        if h >= 0:
            t = s[S_HEX_TERRAIN + h]
            if t != DESERT:
                pips = pips_nb(s[S_HEX_NUMBER + h])
                if h == s[S_ROBBER]:
                    pips *= 0.5
                v += pips * prm[P_TARGET + t]
    return v


@kernel
def best_city_nb(s, topo, prm, p):
    """p's settlement whose upgrade adds the most, or -1 (ties: the lowest node)."""
    best = -1
    best_v = -1.0
    m = net_nodes_nb(s, p)  # p's buildings are among these, in increasing order
    while m != 0:
        n = trailing_zeros(m)
        m &= m - 1
        if s[S_NODE_OWNER + n] == p and s[S_NODE_LEVEL + n] == 1:
            v = city_value_nb(s, topo, prm, n)
            if v > best_v:
                best_v = v
                best = n
    return best


@kernel
def best_settlement_spot_nb(s, topo, prm, p, x):
    """The best node where p may build a settlement now, or -1.

    The spots are the open nodes of p's network (``net_nodes``: an open node has no
    building, so p has a road there). Ties go to the spot met first when p's roads are
    walked in edge order, each from its first end (key 2 * edge + end, the smallest over
    p's roads at the node), as a scan of all 72 edges in order would break them.
    """
    best = -1
    best_v = -1e18
    best_key = 4 * N_EDGES
    m = net_nodes_nb(s, p)
    while m != 0:
        n = trailing_zeros(m)
        m &= m - 1
        if not distance_ok_nb(s, n):
            continue
        v = node_score_nb(s, topo, prm, p, n, x, True)
        if v < best_v:
            continue
        key = 4 * N_EDGES
        for k in range(3):
            e = topo[T_NODE_EDGES + 3 * n + k]
            if e >= 0 and s[S_EDGE_OWNER + e] == p:
                key = min(key, 2 * e + (0 if topo[T_EDGE_NODES + 2 * e] == n else 1))
        if v > best_v or key < best_key:
            best_v = v
            best = n
            best_key = key
    return best


@inline_kernel
def road_value_nb(s, topo, prm, p, x, near, far, far_free, want_spot):
    # Value of a legal road joining p's network at ``near`` and reaching ``far``, whose
    # empty edges are the bits of ``far_free`` (``node_free``).
    v = 0.0
    far_owner = s[S_NODE_OWNER + far]
    far_open = far_owner < 0 and roads_at_nb(s, p, far) == 0
    if want_spot and far_open:
        if distance_ok_nb(s, far):
            v = node_score_nb(s, topo, prm, p, far, x, True)
        else:
            # The open spots one empty edge further, as bits k of far's neighbours,
            # gathered without a branch per neighbour (measured: those branches
            # mispredict often); then visited in k order. Neighbour -1 (no edge, its
            # bit clear) reads node 0, which its bit ignores.
            spots = 0
            for k in range(3):
                m2 = topo[T_NODE_NEIGHBOURS + 3 * far + k]
                ok = (((far_free >> k) & 1) != 0) & (m2 != near)
                spots |= np.int64(ok & distance_ok_nb(s, max(m2, 0))) << k
            while spots != 0:
                k = trailing_zeros(spots)
                spots &= spots - 1
                m2 = topo[T_NODE_NEIGHBOURS + 3 * far + k]
                v = max(v, 0.7 * node_score_nb(s, topo, prm, p, m2, x, True))
    if far_open and prm[P_ROUTE] > 0:
        if s[S_NODE_OWNER + near] == p or roads_at_nb(s, p, near) <= 1:
            v += prm[P_ROUTE]
    if prm[P_BLOCK] > 0 and far_owner < 0:
        v = add_blocks_nb(s, topo, p, far, v, prm[P_BLOCK])  # the road's edge is empty
    return v


@kernel
def best_road_nb(s, topo, prm, p, x, want_spot):
    """The most useful legal road for p and its value (edge -1 when none is legal).

    An edge is worth the best settlement spot it opens (the node at its far end, or at
    0.7 the nodes one more edge away) when ``want_spot``, plus ``route_weight`` if it
    extends an end of p's roads and ``block_weight`` per opponent road at its far end.
    Only the empty edges at the ends of p's roads and buildings are looked at, read
    from ``node_free``; ``best_road_by_edge_nb`` is the plain form.
    """
    best = -1
    best_v = -1e18
    if s[S_ROADS_LEFT + p] <= 0:
        return best, best_v
    m = net_nodes_nb(s, p)  # the nodes with p's roads or buildings, in increasing order
    while m != 0:
        n = trailing_zeros(m)
        m &= m - 1
        owner = s[S_NODE_OWNER + n]
        if owner >= 0 and owner != p:
            continue  # roads never continue through an opponent's building
        free = np.int64(s[S_NODE_FREE + n])  # n's empty edges, visited in k order
        while free != 0:
            k = trailing_zeros(free)
            free &= free - 1
            far = topo[T_NODE_NEIGHBOURS + 3 * n + k]
            v = road_value_nb(s, topo, prm, p, x, n, far, s[S_NODE_FREE + far], want_spot)
            if v > best_v:
                best_v = v
                best = topo[T_NODE_EDGES + 3 * n + k]
    return best, best_v


@kernel
def best_road_by_edge_nb(s, topo, prm, p, x, want_spot):
    """``best_road_nb`` with each node's empty edges found from the edge owners
    (``empty_edges_nb``) instead of ``node_free``: its plain form (tests/test_strategies.py)."""
    best = -1
    best_v = -1e18
    if s[S_ROADS_LEFT + p] <= 0:
        return best, best_v
    m = net_nodes_nb(s, p)
    while m != 0:
        n = trailing_zeros(m)
        m &= m - 1
        owner = s[S_NODE_OWNER + n]
        if owner >= 0 and owner != p:
            continue
        for k in range(3):
            e = topo[T_NODE_EDGES + 3 * n + k]
            if e < 0 or s[S_EDGE_OWNER + e] >= 0:
                continue
            far = topo[T_NODE_NEIGHBOURS + 3 * n + k]
            v = road_value_nb(s, topo, prm, p, x, n, far, empty_edges_nb(s, topo, far),
                               want_spot)
            if v > best_v:
                best_v = v
                best = e
    return best, best_v
