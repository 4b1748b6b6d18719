"""Rules of the base game as small pure functions over the flat state ``s``.

These only accept NumPy arrays and scalars. ``s`` is the int32 state
(``core.layout``), ``topo`` the flat int32 topology (``catansim.topology``),
``rules`` the int32 rule settings, ``log`` the int32 event buffer. Functions
that check legality start with ``can_``; functions that change the state
apply a move that the caller has already checked and record its event.
"""


import numpy as np
from numba import types
from numba.cpython.unsafe.numbers import trailing_zeros

from ..constants import (
    BONUS_TILE_VP,
    BUILD_CITY,
    BUILD_ROAD,
    BUILD_SETTLEMENT,
    CITIES_PER_PLAYER,
    COSTS,
    DESERT,
    LARGEST_ARMY_MIN,
    LONGEST_ROUTE_MIN,
    MAX_PLAYERS,
    N_EDGES,
    N_HEXES,
    N_NODES,
    PIPS,
    SETTLEMENTS_PER_PLAYER,
    VICTORY_POINT,
)
from ..topology import (
    T_EDGE_NODES,
    T_HARBOR_NODES,
    T_HEX_NODES,
    T_NODE_EDGES,
    T_NODE_HEXES,
    T_NODE_NEIGHBOURS,
)
from .jit import LOG_T, STATE_T, TOPO_T, inline_kernel, kernel, typed_kernel
from .layout import (
    B_HARBOR,
    B_NUMBER,
    B_TERRAIN,
    C_BLOCKED,
    C_DISCARDED,
    C_FIRST_CITY,
    C_FIRST_SETTLEMENT,
    C_FIRST_SHORTAGE,
    C_LEADER_CHANCES,
    C_PRODUCED,
    C_ROBBED,
    C_ROBBED_LEADER,
    C_ROBBER_MOVES,
    C_SHORTAGE_EVENTS,
    C_SOLE_RECIPIENT,
    C_STEALS,
    C_STOLEN,
    C_WITHHELD,
    C_WITHHELD_LEADER,
    EV_BUILD_CITY,
    EV_BUILD_ROAD,
    EV_BUILD_SETTLEMENT,
    EV_DISCARD,
    EV_LARGEST_ARMY,
    EV_LONGEST_ROUTE,
    EV_PRODUCTION,
    EV_ROBBER,
    LOG_A,
    LOG_B,
    LOG_C,
    LOG_CARDS,
    LOG_CODE,
    LOG_GAINS,
    LOG_SEAT,
    LOG_WIDTH,
    LOG_WITHHELD,
    NET_WORD_BITS,
    R_ROBBER,
    R_SHORTAGE,
    ROBBER_FRIENDLY,
    ROBBER_OFF,
    S_ARMY,
    S_BANK,
    S_CITIES_LEFT,
    S_CUR,
    S_DEV_HAND,
    S_EDGE_OWNER,
    S_HAND,
    S_HARBOR_KIND,
    S_HARBORS,
    S_HEX_NUMBER,
    S_HEX_TERRAIN,
    S_KNIGHTS,
    S_LOG_LEN,
    S_LOG_ON,
    S_LOG_OVERFLOW,
    S_LONGEST,
    S_N_PLAYERS,
    S_NET_NODES,
    S_NODE_FREE,
    S_NODE_HARBOR,
    S_NODE_LEVEL,
    S_NODE_OPEN,
    S_NODE_OWNER,
    S_NODE_RESOURCES,
    S_NODE_ROADS,
    S_NUMBER_HEXES,
    S_OPEN_SPOTS,
    S_OWN_HEXES,
    S_PROD_PIPS,
    S_ROADS_LEFT,
    S_ROBBER,
    S_ROUTE_LEN,
    S_ROUTE_MARKS,
    S_ROUTE_STACK,
    S_SETTLEMENTS_LEFT,
    S_TURN,
    SHORTAGE_OFF,
    SHORTAGE_OFFICIAL,
)
from .record_nb import seen_remove_nb, seen_steal_nb

# The game's constant tables as arrays (``constants.COSTS``, ``constants.PIPS``, and the
# number of resources in a 5-bit mask). Numba reads a global tuple at a variable index
# through a range check and Python's wraparound; a global array, frozen into the code as
# a constant, in one load.
COST_TABLE = np.array(COSTS, dtype=np.int64)
PIP_TABLE = np.array(PIPS, dtype=np.int64)
BITS5_TABLE = np.array([bin(i).count("1") for i in range(32)], dtype=np.int64)
# The most cards of each resource one build costs (a player holding that many lacks none).
MOST_COST_TABLE = COST_TABLE.reshape(-1, 5).max(axis=0)

# --- event log ---------------------------------------------------------------------


@typed_kernel("int64(int32[::1], int32[:, ::1], int64, int64, int64, int64, int64)")
def log_event_nb(s, log, kind, p, a, b, c):
    """Append an event row; return its index, or -1 when not logging (or full)."""
    if s[S_LOG_ON] == 0:
        return -1
    i = s[S_LOG_LEN]
    if i >= log.shape[0]:
        s[S_LOG_OVERFLOW] = 1
        return -1
    for k in range(LOG_WIDTH):
        log[i, k] = 0
    log[i, LOG_CODE] = kind
    log[i, LOG_SEAT] = p
    log[i, LOG_A] = a
    log[i, LOG_B] = b
    log[i, LOG_C] = c
    s[S_LOG_LEN] = i + 1
    return i


# --- board -------------------------------------------------------------------------


@kernel
def load_board_nb(s, topo, board):
    """Copy a board vector into the state and derive the lookup fields; the robber
    starts on the desert."""
    for h in range(N_HEXES):
        s[S_HEX_TERRAIN + h] = board[B_TERRAIN + h]
        s[S_HEX_NUMBER + h] = board[B_NUMBER + h]
    s[S_ROBBER] = desert_hex_nb(s)
    for i in range(26):
        s[S_NUMBER_HEXES + i] = -1
    for h in range(N_HEXES):
        num = board[B_NUMBER + h]
        if num > 0:
            if s[S_NUMBER_HEXES + 2 * num] < 0:
                s[S_NUMBER_HEXES + 2 * num] = h
            else:
                s[S_NUMBER_HEXES + 2 * num + 1] = h
    for n in range(N_NODES):
        s[S_NODE_HARBOR + n] = -1
    for i in range(9):
        kind = board[B_HARBOR + i]
        s[S_HARBOR_KIND + i] = kind
        s[S_NODE_HARBOR + topo[T_HARBOR_NODES + 2 * i]] = kind
        s[S_NODE_HARBOR + topo[T_HARBOR_NODES + 2 * i + 1]] = kind
    for n in range(N_NODES):
        seen = 0
        for k in range(3):
            h = topo[T_NODE_HEXES + 3 * n + k]
            if h >= 0 and s[S_HEX_TERRAIN + h] != DESERT:  # terrain t produces resource t
                seen |= 1 << s[S_HEX_TERRAIN + h]
        s[S_NODE_RESOURCES + n] = seen


@inline_kernel
def pips_nb(number):
    """Pips of a number disc: the ways two dice roll it (``constants.PIPS``; 0 for none)."""
    return PIP_TABLE[number]


@kernel
def node_pips_nb(s, topo, n):
    """Sum of pips of the land hexes at node ``n``."""
    total = 0
    for k in range(3):
        h = topo[T_NODE_HEXES + 3 * n + k]
        if h >= 0:
            total += pips_nb(s[S_HEX_NUMBER + h])
    return total


# --- victory points ----------------------------------------------------------------


@inline_kernel
def visible_vp_nb(s, p):
    """Victory points everyone can see: buildings and bonus tiles."""
    v = (SETTLEMENTS_PER_PLAYER - s[S_SETTLEMENTS_LEFT + p]) + 2 * (
        CITIES_PER_PLAYER - s[S_CITIES_LEFT + p]
    )
    if s[S_LONGEST] == p:
        v += BONUS_TILE_VP
    if s[S_ARMY] == p:
        v += BONUS_TILE_VP
    return v


@kernel
def sole_leader_nb(s):
    """The seat with strictly the most visible VP, -1 if the lead is shared."""
    best = -1
    top = -1
    for q in range(np.int64(s[S_N_PLAYERS])):
        v = visible_vp_nb(s, q)
        if v > top:
            top = v
            best = q
        elif v == top:
            best = -1
    return best


@inline_kernel
def vp_nb(s, p):
    """All victory points, hidden victory point cards included."""
    return visible_vp_nb(s, p) + s[S_DEV_HAND + 5 * p + VICTORY_POINT]


# --- hands -------------------------------------------------------------------------


@kernel
def hand_size_nb(s, p):
    t = 0
    for r in range(5):
        t += s[S_HAND + 5 * p + r]
    return t


@kernel
def invention_cards_nb(s):
    """How many cards Invention takes: two, or what the supply still holds if fewer."""
    total = 0
    for r in range(5):
        total += s[S_BANK + r]
    return min(2, total)


@inline_kernel
def can_afford_nb(s, p, kind):
    """Whether the player holds the cost of build ``kind`` (``constants.BUILD_*``)."""
    h = S_HAND + 5 * p
    c = 5 * kind
    return (s[h] >= COST_TABLE[c] and s[h + 1] >= COST_TABLE[c + 1]
            and s[h + 2] >= COST_TABLE[c + 2] and s[h + 3] >= COST_TABLE[c + 3]
            and s[h + 4] >= COST_TABLE[c + 4])


@typed_kernel("void(int32[::1], int64, int64)")
def pay_nb(s, p, kind):
    """Move the cost of build ``kind`` (``constants.BUILD_*``) from the hand to the supply."""
    h = S_HAND + 5 * p
    for r in range(5):
        c = COST_TABLE[5 * kind + r]
        if c > 0:
            s[h + r] -= c
            s[S_BANK + r] += c
            seen_remove_nb(s, p, r)


# --- placement legality --------------------------------------------------------------


@inline_kernel
def distance_ok_nb(s, n):
    """True if node ``n`` is empty and all its neighbours are empty (Distance Rule)."""
    return s[S_NODE_OPEN + n] != 0


@inline_kernel
def roads_at_nb(s, p, n):
    """How many of p's roads end at node ``n`` (0-3)."""
    return s[S_NODE_ROADS + N_NODES * p + n]


@inline_kernel
def net_nodes_nb(s, p):
    """The nodes p's network touches (``net_nodes``) as one int64: bit n for node n."""
    return np.int64(s[S_NET_NODES + 2 * p]) | (
        np.int64(s[S_NET_NODES + 2 * p + 1]) << NET_WORD_BITS
    )


@inline_kernel
def _add_net_node_nb(s, p, n):
    if n < NET_WORD_BITS:
        s[S_NET_NODES + 2 * p] |= 1 << n
    else:
        s[S_NET_NODES + 2 * p + 1] |= 1 << (n - NET_WORD_BITS)


@kernel
def touches_own_road_nb(s, p, n):
    return roads_at_nb(s, p, n) > 0


@kernel
def can_place_settlement_nb(s, p, n):
    """Settlement legality during play: Distance Rule, own road, a piece left."""
    return (
        s[S_SETTLEMENTS_LEFT + p] > 0 and distance_ok_nb(s, n) and touches_own_road_nb(s, p, n)
    )


@kernel
def _road_end_connects_nb(s, p, n):
    # A road on an empty edge may continue from its end n if p has a building there,
    # or p has a road at n and no opponent's building sits on n.
    owner = s[S_NODE_OWNER + n]
    if owner >= 0:
        return owner == p
    return roads_at_nb(s, p, n) > 0


@kernel
def can_place_road_nb(s, topo, p, e):
    """Road legality during play: empty edge touching own road or building, not through an
    opponent's building, and a road piece left."""
    if s[S_ROADS_LEFT + p] <= 0 or s[S_EDGE_OWNER + e] >= 0:
        return False
    a = topo[T_EDGE_NODES + 2 * e]
    b = topo[T_EDGE_NODES + 2 * e + 1]
    return _road_end_connects_nb(s, p, a) or _road_end_connects_nb(s, p, b)


@kernel
def can_place_city_nb(s, p, n):
    return s[S_CITIES_LEFT + p] > 0 and s[S_NODE_OWNER + n] == p and s[S_NODE_LEVEL + n] == 1


@kernel
def put_settlement_nb(s, topo, p, n):
    """Place a settlement (no payment, no event) and record any harbor it gives.

    The node and its neighbours close (Distance Rule), which also removes them from
    every player's open spots.
    """
    s[S_NODE_OWNER + n] = p
    s[S_NODE_LEVEL + n] = 1
    s[S_SETTLEMENTS_LEFT + p] -= 1
    _add_net_node_nb(s, p, n)
    _add_production_nb(s, topo, p, n)
    kind = s[S_NODE_HARBOR + n]
    if kind >= 0:
        s[S_HARBORS + 6 * p + kind] = 1
    _close_node_nb(s, n)
    for k in range(3):
        m = np.int64(topo[T_NODE_NEIGHBOURS + 3 * n + k])
        if m >= 0:
            _close_node_nb(s, m)


@inline_kernel
def _add_production_nb(s, topo, p, n):
    # One level of a building of p on node n: its hexes' pips, and the hexes themselves.
    for k in range(3):
        h = topo[T_NODE_HEXES + 3 * n + k]
        if h >= 0:
            s[S_OWN_HEXES + p] |= 1 << h
            t = s[S_HEX_TERRAIN + h]
            if t < 5:
                s[S_PROD_PIPS + 5 * p + t] += pips_nb(s[S_HEX_NUMBER + h])


@kernel
def put_city_nb(s, topo, p, n):
    """Upgrade p's settlement on n to a city (no payment, no event)."""
    s[S_NODE_LEVEL + n] = 2
    s[S_CITIES_LEFT + p] -= 1
    s[S_SETTLEMENTS_LEFT + p] += 1  # the settlement goes back to the player
    _add_production_nb(s, topo, p, n)


@kernel
def _close_node_nb(s, n):
    if s[S_NODE_OPEN + n] == 0:
        return
    s[S_NODE_OPEN + n] = 0
    for q in range(MAX_PLAYERS):
        if roads_at_nb(s, q, n) > 0:
            s[S_OPEN_SPOTS + q] -= 1


@kernel
def empty_edges_nb(s, topo, n):
    """Node n's empty edges from the edge owners: bit k set if its k-th edge exists and
    has no road (what ``node_free`` keeps)."""
    free = 0
    for k in range(3):
        e = topo[T_NODE_EDGES + 3 * n + k]
        free |= np.int64((e >= 0) & (s[S_EDGE_OWNER + max(e, 0)] < 0)) << k
    return free


@inline_kernel
def _take_edge_nb(s, topo, n, e):
    # Clear edge e's bit in node n's empty edges (``node_free``).
    used = 0
    for k in range(3):
        used |= np.int64(topo[T_NODE_EDGES + 3 * n + k] == e) << k
    s[S_NODE_FREE + n] &= ~used


@inline_kernel
def put_road_nb(s, topo, p, e):
    """Place a road (no payment, no event), count it at both its ends and clear its bit
    in their empty edges. Inlined: with the empty edges LLVM kept it a call of its own,
    and a call passes each array as seven machine words (700 instructions a game)."""
    s[S_EDGE_OWNER + e] = p
    s[S_ROADS_LEFT + p] -= 1
    for j in range(2):
        n = topo[T_EDGE_NODES + 2 * e + j]
        s[S_NODE_ROADS + N_NODES * p + n] += 1
        _take_edge_nb(s, topo, n, e)
        _add_net_node_nb(s, p, n)
        if roads_at_nb(s, p, n) == 1 and s[S_NODE_OPEN + n]:
            s[S_OPEN_SPOTS + p] += 1


@kernel
def derive_piece_fields_nb(s, topo):
    """Recompute ``node_open``, ``node_roads``, ``node_free``, ``open_spots``,
    ``net_nodes``, ``prod_pips`` and ``own_hexes`` from the pieces."""
    for n in range(N_NODES):
        # Every node has two or three edges, in slots 0, 1 (and 2): all empty, until
        # the roads below take theirs.
        s[S_NODE_FREE + n] = 3 | (np.int64(topo[T_NODE_EDGES + 3 * n + 2] >= 0) << 2)
    for n in range(N_NODES):
        s[S_NODE_OPEN + n] = 1 if s[S_NODE_OWNER + n] < 0 else 0
        for k in range(3):
            m = topo[T_NODE_NEIGHBOURS + 3 * n + k]
            if m >= 0 and s[S_NODE_OWNER + m] >= 0:
                s[S_NODE_OPEN + n] = 0
    for q in range(MAX_PLAYERS):
        s[S_OPEN_SPOTS + q] = 0
        s[S_NET_NODES + 2 * q] = 0
        s[S_NET_NODES + 2 * q + 1] = 0
        for n in range(N_NODES):
            s[S_NODE_ROADS + N_NODES * q + n] = 0
    for e in range(N_EDGES):
        q = s[S_EDGE_OWNER + e]
        if q >= 0:
            for j in range(2):
                n = topo[T_EDGE_NODES + 2 * e + j]
                s[S_NODE_ROADS + N_NODES * q + n] += 1
                _take_edge_nb(s, topo, n, e)
    for q in range(MAX_PLAYERS):
        for n in range(N_NODES):
            if roads_at_nb(s, q, n) > 0 and s[S_NODE_OPEN + n]:
                s[S_OPEN_SPOTS + q] += 1
            if roads_at_nb(s, q, n) > 0 or s[S_NODE_OWNER + n] == q:
                _add_net_node_nb(s, q, n)
        s[S_OWN_HEXES + q] = 0
        for r in range(5):
            s[S_PROD_PIPS + 5 * q + r] = 0
    for n in range(N_NODES):
        q = s[S_NODE_OWNER + n]
        if q >= 0:
            for _ in range(s[S_NODE_LEVEL + n]):
                _add_production_nb(s, topo, q, n)


@kernel
def route_after_road_nb(s, topo, p, e):
    """p's longest route just after road ``e`` was placed (``s[S_ROUTE_LEN + p]`` still
    holds the length before it).

    Usually one end of e has no other road of p (a road into new land). Then a longest
    trail either avoids e, and is as long as before, or ends with e, and is e plus the
    longest trail from the other end that avoids e: one search instead of all of them.
    Otherwise (e joins roads at both ends, or would pass an opponent's building) the
    whole network is searched again.
    """
    a = topo[T_EDGE_NODES + 2 * e]
    b = topo[T_EDGE_NODES + 2 * e + 1]
    pivot = -1
    if roads_at_nb(s, p, b) == 1 and _passable_nb(s, p, a):
        pivot = a
    elif roads_at_nb(s, p, a) == 1 and _passable_nb(s, p, b):
        pivot = b
    if pivot < 0:
        return route_length_nb(s, topo, p)
    s[S_ROUTE_MARKS + e] = 1  # the search from the pivot must not take e
    longest = _longest_from_nb(s, topo, p, pivot)
    s[S_ROUTE_MARKS + e] = 0
    return max(s[S_ROUTE_LEN + p], 1 + longest)


@kernel
def _passable_nb(s, p, n):
    # p's trails may pass through node n: no opponent's building on it.
    owner = s[S_NODE_OWNER + n]
    return owner < 0 or owner == p


@kernel
def build_settlement_nb(s, topo, log, p, n):
    """Build a settlement; it may cut opponents' routes, so recompute theirs."""
    pay_nb(s, p, BUILD_SETTLEMENT)
    put_settlement_nb(s, topo, p, n)
    log_event_nb(s, log, EV_BUILD_SETTLEMENT, p, n, 0, 0)
    if s[C_FIRST_SETTLEMENT + p] < 0:
        s[C_FIRST_SETTLEMENT + p] = s[S_TURN]
    cut = False
    for k in range(3):
        e = topo[T_NODE_EDGES + 3 * n + k]
        if e >= 0:
            q = s[S_EDGE_OWNER + e]
            if q >= 0 and q != p:
                s[S_ROUTE_LEN + q] = route_length_nb(s, topo, np.int64(q))
                cut = True
    if cut:
        update_longest_route_nb(s, log)


@kernel
def build_city_nb(s, topo, log, p, n):
    pay_nb(s, p, BUILD_CITY)
    put_city_nb(s, topo, p, n)
    log_event_nb(s, log, EV_BUILD_CITY, p, n, 0, 0)
    if s[C_FIRST_CITY + p] < 0:
        s[C_FIRST_CITY + p] = s[S_TURN]


# --- Longest Route -----------------------------------------------------------------


@kernel
def route_length_nb(s, topo, p):
    """Length of p's longest route: the longest trail of p's roads, each road used once,
    never passing through a node with an opponent's building (it may end there).

    Depth-first search with an explicit stack (at most 15 roads deep) in the state's
    ``route_stack`` and ``route_marks`` scratch. A longest trail can always be taken to
    start at a node where p has an odd number of roads (``node_roads``) or an opponent
    has a building (a trail starting at any other node could be extended backwards, or
    is closed and can start anywhere on it), so each of those nodes starts one search,
    plus one node of any ring that no search reached.

    When no two of p's roads meet at a node (always so at the end of the usual set-up),
    each road is a trail of its own and the length is 1 (0 without roads), without a
    search: the most roads of p at a node, a loop LLVM turns into vector maxima.
    """
    most = 0
    for n in range(N_NODES):
        most = max(most, roads_at_nb(s, p, n))
    if most <= 1:
        return most
    # The searches leave "in the current trail" clear; reset "ever used".
    for e in range(N_EDGES):
        s[S_ROUTE_MARKS + N_EDGES + e] = 0
    best = 0
    for n in range(N_NODES):
        degree = roads_at_nb(s, p, n)
        if degree == 0:
            continue
        owner = s[S_NODE_OWNER + n]
        if degree % 2 == 1 or (owner >= 0 and owner != p):
            best = max(best, _longest_from_nb(s, topo, p, n))
    for e in range(N_EDGES):
        if s[S_EDGE_OWNER + e] == p and s[S_ROUTE_MARKS + N_EDGES + e] == 0:
            best = max(best, _longest_from_nb(s, topo, p, np.int64(topo[T_EDGE_NODES + 2 * e])))
    return best


@kernel
def _longest_from_nb(s, topo, p, start):
    # Longest trail of p's roads from ``start``; marks[e] = in use, marks[72 + e] = seen.
    st = S_ROUTE_STACK
    marks = S_ROUTE_MARKS
    best = 0
    depth = 0
    s[st] = start
    s[st + 1] = 0
    s[st + 2] = -1
    while depth >= 0:
        base = st + 3 * depth
        node = s[base]
        owner = s[S_NODE_OWNER + node]
        advanced = False
        # The trail may start at, but not pass through, an opponent's building.
        if depth == 0 or owner < 0 or owner == p:
            # The next free road of p at this node from the k-th edge on, found from a
            # bit mask of the three without a branch per edge (such branches on the
            # board's state mispredict often; measured). Edge -1 reads edge 0's
            # fields, which its bit ignores.
            free = 0
            for j in range(3):
                e = topo[T_NODE_EDGES + 3 * node + j]
                c = max(e, 0)
                free |= np.int64((e >= 0) & (s[marks + c] == 0) & (s[S_EDGE_OWNER + c] == p)) << j
            free >>= s[base + 1]
            if free != 0:
                k = s[base + 1] + trailing_zeros(free)
                e = topo[T_NODE_EDGES + 3 * node + k]
                s[base + 1] = k + 1
                s[marks + e] = 1
                s[marks + N_EDGES + e] = 1
                depth += 1
                s[base + 3] = topo[T_NODE_NEIGHBOURS + 3 * node + k]
                s[base + 4] = 0
                s[base + 5] = e
                if depth > best:
                    best = depth
                advanced = True
        if not advanced:
            e = s[base + 2]
            if e >= 0:
                s[marks + e] = 0
            depth -= 1
    return best


@kernel
def update_longest_route_nb(s, log):
    """Give the Longest Route tile to whoever the rules say holds it now.

    A holder who is still at least 5 and tied for the longest keeps it; otherwise it
    goes to the one player alone with the longest route of at least 5, or to the
    supply (project rule D1). A player only overtakes with a strictly longer route.
    """
    n = np.int64(s[S_N_PLAYERS])
    holder = s[S_LONGEST]
    best = -1
    count = 0
    who = -1
    for q in range(n):
        length = s[S_ROUTE_LEN + q]
        if length > best:
            best = length
            count = 1
            who = q
        elif length == best:
            count += 1
    if (
        holder >= 0
        and s[S_ROUTE_LEN + holder] >= LONGEST_ROUTE_MIN
        and s[S_ROUTE_LEN + holder] >= best
    ):
        new = holder
    elif best >= LONGEST_ROUTE_MIN and count == 1:
        new = who
    else:
        new = -1
    if new != holder:
        s[S_LONGEST] = new
        log_event_nb(s, log, EV_LONGEST_ROUTE, new, best if new < 0 else s[S_ROUTE_LEN + new], 0, 0)


@typed_kernel(types.void(STATE_T, TOPO_T, LOG_T, types.int64, types.int64, types.boolean))
def build_road_nb(s, topo, log, p, e, free):
    """Build a road (paid unless ``free``), update Longest Route."""
    if not free:
        pay_nb(s, p, BUILD_ROAD)
    put_road_nb(s, topo, p, e)
    log_event_nb(s, log, EV_BUILD_ROAD, p, e, 1 if free else 0, 0)
    s[S_ROUTE_LEN + p] = route_after_road_nb(s, topo, p, e)
    update_longest_route_nb(s, log)


@kernel
def update_largest_army_nb(s, log, p):
    """Largest Army: at least 3 played knights; passes only to strictly more."""
    holder = s[S_ARMY]
    k = s[S_KNIGHTS + p]
    if holder == p or k < LARGEST_ARMY_MIN:
        return
    if holder < 0 or k > s[S_KNIGHTS + holder]:
        s[S_ARMY] = p
        log_event_nb(s, log, EV_LARGEST_ARMY, p, k, 0, 0)


# --- maritime trade ----------------------------------------------------------------


@kernel
def maritime_rate_nb(s, p, r):
    """Cards of resource r the player gives the supply for one card: 2, 3 or 4."""
    if s[S_HARBORS + 6 * p + r]:
        return 2
    if s[S_HARBORS + 6 * p + 5]:
        return 3
    return 4


@inline_kernel
def desert_hex_nb(s):
    """The desert's hex (every board has exactly one; hex 0 if none)."""
    for h in range(N_HEXES):
        if s[S_HEX_TERRAIN + h] == DESERT:
            return np.int64(h)
    return np.int64(0)


@kernel
def robber_for_rules_nb(s, rules):
    """Where the robber stands under ``rules``: with the robber off it rests on the
    desert, where it starts, so nothing is blocked; otherwise where it is."""
    if rules[R_ROBBER] == ROBBER_OFF:
        s[S_ROBBER] = desert_hex_nb(s)


# --- production --------------------------------------------------------------------


@kernel
def produce_nb(s, topo, rules, log, roll, owed):
    """Pay out a roll other than 7, applying the supply-shortage rule.

    ``owed`` is int32[4, 5] scratch. Official rule: if the supply cannot pay everyone
    owed a resource, nobody gets it, unless only one player is owed it, who takes what
    is left. ``strict``: nobody is paid. ``off``: paid in turn order from the roller.
    """
    n = np.int64(s[S_N_PLAYERS])
    for q in range(MAX_PLAYERS):
        for r in range(5):
            owed[q, r] = 0
    robber = s[S_ROBBER]
    owed_res = 0  # bit r: someone is owed resource r
    for k in range(2):
        h = s[S_NUMBER_HEXES + 2 * roll + k]
        if h < 0:
            continue
        r = s[S_HEX_TERRAIN + h]
        for j in range(6):
            # Every corner without a branch on its owner (such a branch mispredicts
            # often; measured): an empty corner has level 0 and adds nothing to seat 0.
            node = topo[T_HEX_NODES + 6 * h + j]
            q = max(s[S_NODE_OWNER + node], 0)
            amount = s[S_NODE_LEVEL + node]
            if h == robber:
                s[C_BLOCKED + q] += amount
            else:
                owed[q, r] += amount
                owed_res |= np.int64(amount > 0) << r
    ev = log_event_nb(s, log, EV_PRODUCTION, -1, 0, 0, 0)
    if owed_res == 0:
        return
    mode = rules[R_SHORTAGE]
    roller = s[S_CUR]
    # Only the resources owed (in increasing order), and only the players owed them
    # (paying nothing to the others changes nothing). The common path loops over all
    # MAX_PLAYERS seats, a constant bound LLVM unrolls (over ``n`` it set up a vector
    # loop on every roll); seats past ``n`` are owed nothing.
    while owed_res != 0:
        r = trailing_zeros(owed_res)
        owed_res &= owed_res - 1
        total = 0
        owed_players = 0
        for q in range(MAX_PLAYERS):
            total += owed[q, r]
            owed_players += np.int64(owed[q, r] > 0)
        bank = s[S_BANK + r]
        if total <= bank:
            # Every seat, without a branch on what it is owed (measured: such a branch
            # mispredicts often): a seat owed nothing receives 0, which changes nothing.
            for q in range(MAX_PLAYERS):
                _receive_nb(s, q, r, owed[q, r], owed[q, r], log, ev)
            continue
        s[C_SHORTAGE_EVENTS + r] += 1
        if s[C_FIRST_SHORTAGE + r] < 0:
            s[C_FIRST_SHORTAGE + r] = s[S_TURN]
        if owed_players == 1:
            s[C_SOLE_RECIPIENT + r] += 1
        # who loses the cards: only on a short roll, so the common path pays nothing
        leader = sole_leader_nb(s)
        before = s[C_WITHHELD + 5 * leader + r] if leader >= 0 else 0
        if mode == SHORTAGE_OFF:
            left = bank
            for i in range(n):
                q = (roller + i) % n
                if owed[q, r] > 0:
                    paid = min(owed[q, r], left)
                    left -= paid
                    _receive_nb(s, q, r, owed[q, r], paid, log, ev)
        elif mode == SHORTAGE_OFFICIAL and owed_players == 1:
            for q in range(n):
                if owed[q, r] > 0:
                    _receive_nb(s, q, r, owed[q, r], bank, log, ev)
        else:
            for q in range(n):
                if owed[q, r] > 0:
                    _receive_nb(s, q, r, owed[q, r], 0, log, ev)
        if leader >= 0:
            s[C_WITHHELD_LEADER] += s[C_WITHHELD + 5 * leader + r] - before


@typed_kernel("void(int32[::1], int64, int64, int64, int64, int32[:, ::1], int64)")
def _receive_nb(s, q, r, owed, paid, log, ev):
    s[S_HAND + 5 * q + r] += paid
    s[S_BANK + r] -= paid
    s[C_PRODUCED + 5 * q + r] += paid
    s[C_WITHHELD + 5 * q + r] += owed - paid
    if ev >= 0:
        log[ev, LOG_GAINS + 5 * q + r] += paid
        log[ev, LOG_WITHHELD + r] += owed - paid


# --- discards and the robber ---------------------------------------------------------


@kernel
def discard_nb(s, log, p, bundle):
    """Return ``bundle`` (int32[5], already checked) from p's hand to the supply."""
    total = 0
    for r in range(5):
        s[S_HAND + 5 * p + r] -= bundle[r]
        s[S_BANK + r] += bundle[r]
        seen_remove_nb(s, p, r)
        total += bundle[r]
    s[C_DISCARDED + p] += total
    ev = log_event_nb(s, log, EV_DISCARD, p, 0, 0, 0)
    if ev >= 0:
        for r in range(5):
            log[ev, LOG_CARDS + r] = bundle[r]


@kernel
def robber_hex_mask_nb(s, topo, rules, mask):
    """Fill ``mask`` (uint8[19]) with the hexes the robber may move to; return their count.

    Always a different hex (the desert is allowed). With the friendly robber, hexes
    touching a building of a player with 2 or fewer visible VP are excluded unless
    that leaves no hex at all.
    """
    cur = s[S_ROBBER]
    count = 0
    for h in range(N_HEXES):
        mask[h] = 1 if h != cur else 0
        count += mask[h]
    if rules[R_ROBBER] != ROBBER_FRIENDLY:
        return count
    # Mark protected hexes 2, then keep them only if every hex is protected.
    unprotected = 0
    for h in range(N_HEXES):
        if mask[h] == 0:
            continue
        for j in range(6):
            q = s[S_NODE_OWNER + topo[T_HEX_NODES + 6 * h + j]]
            if q >= 0 and visible_vp_nb(s, q) <= 2:
                mask[h] = 2
                break
        if mask[h] == 1:
            unprotected += 1
    keep = 1 if unprotected == 0 else 0
    for h in range(N_HEXES):
        if mask[h] == 2:
            mask[h] = keep
    return count if unprotected == 0 else unprotected


@kernel
def victims_nb(s, topo, p, h, out):
    """Opponents of p with a building on hex h, written to ``out``; return their count."""
    count = 0
    for j in range(6):
        q = s[S_NODE_OWNER + topo[T_HEX_NODES + 6 * h + j]]
        if q < 0 or q == p:
            continue
        seen = False
        for i in range(count):
            if out[i] == q:
                seen = True
        if not seen:
            out[count] = q
            count += 1
    return count


@kernel
def random_card_nb(s, q, u):
    """The resource of card number floor(u * hand size) in q's hand (u in [0, 1))."""
    total = hand_size_nb(s, q)
    pick = int(u * total)
    for r in range(5):
        c = s[S_HAND + 5 * q + r]
        if pick < c:
            return r
        pick -= c
    return -1


@kernel
def move_robber_nb(s, log, p, h, victim, stolen):
    """Move the robber to h and take resource ``stolen`` (-1 none) from ``victim`` (-1 none)."""
    s[S_ROBBER] = h
    s[C_ROBBER_MOVES] += 1
    leader = sole_leader_nb(s)
    if leader >= 0 and leader != p:
        s[C_LEADER_CHANCES] += 1
        if victim == leader:
            s[C_ROBBED_LEADER] += 1
    if victim >= 0:
        s[C_ROBBED + victim] += 1
    if stolen >= 0:
        s[S_HAND + 5 * victim + stolen] -= 1
        s[S_HAND + 5 * p + stolen] += 1
        seen_steal_nb(s, p, victim, stolen)
        s[C_STOLEN + victim] += 1
        s[C_STEALS + p] += 1
    log_event_nb(s, log, EV_ROBBER, p, h, victim, stolen)


@kernel
def setup_road_ok_nb(s, topo, e, n):
    """During setup a road must be empty and touch the settlement just placed on n."""
    if s[S_EDGE_OWNER + e] >= 0:
        return False
    return topo[T_EDGE_NODES + 2 * e] == n or topo[T_EDGE_NODES + 2 * e + 1] == n
