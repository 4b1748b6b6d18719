"""A new game and its set-up: the state reset, the starting settlements and roads.

These only accept NumPy arrays and scalars. ``init_state_nb`` resets the state for a
board and shuffles the deck; the set-up is the snake of placements from the first pick
(``setup_seat_nb``), each a settlement and the road beside it, chosen among the legal
options of ``setup_node_mask_nb`` and ``setup_edge_mask_nb`` (forced openings reserve
their nodes and edges until placed) and applied by ``setup_settlement_choice_nb`` and
``setup_road_choice_nb``; the second settlement brings its starting resources.
"""

import numpy as np

from ..constants import (
    CITIES_PER_PLAYER,
    DESERT,
    DEV_CARD_COUNTS,
    MAX_PLAYERS,
    N_DEV_CARDS,
    N_EDGES,
    N_NODES,
    ROADS_PER_PLAYER,
    SETTLEMENTS_PER_PLAYER,
)
from ..topology import T_NODE_EDGES, T_NODE_HEXES, T_NODE_NEIGHBOURS
from .checker_nb import checkpoint_nb, first_set_nb, illegal_nb
from .jit import kernel
from .layout import (
    C_ARMY_HOLDER,
    C_FIRST_CITY,
    C_FIRST_SETTLEMENT,
    C_FIRST_SHORTAGE,
    C_LONGEST_HOLDER,
    C_START_CARDS,
    C_START_NODES,
    C_START_PIPS,
    C_VP_AT,
    C_WINNER,
    D_NONE,
    D_SETUP_ROAD,
    D_SETUP_SETTLEMENT,
    END_RUNNING,
    EV_SETUP_ROAD,
    EV_SETUP_SETTLEMENT,
    EV_STARTING_RESOURCES,
    LOG_CARDS,
    N_VP_CHECKPOINTS,
    OPENING_WIDTH,
    PH_SETUP_ROAD,
    PH_SETUP_SETTLEMENT,
    PH_TURN_START,
    R_BANK,
    R_FIRST_PICK,
    R_FIRST_TURN,
    S_ARMY,
    S_BANK,
    S_CITIES_LEFT,
    S_CUR,
    S_DECK,
    S_DEV_EVENT,
    S_EDGE_OWNER,
    S_END,
    S_HAND,
    S_HEX_TERRAIN,
    S_ILLEGAL_DECISION,
    S_ILLEGAL_SEAT,
    S_ILLEGAL_TURN,
    S_LONGEST,
    S_N_PLAYERS,
    S_NODE_OWNER,
    S_PENDING,
    S_PENDING_SEAT,
    S_PHASE,
    S_ROADS_LEFT,
    S_ROBBER_TARGET,
    S_ROUTE_LEN,
    S_SETTLEMENTS_LEFT,
    S_STEP,
    S_TURN,
    S_WINNER,
)
from .rng_nb import STREAM_CHANCE, shuffle_nb
from .rules_nb import (
    derive_piece_fields_nb,
    distance_ok_nb,
    load_board_nb,
    log_event_nb,
    node_pips_nb,
    put_road_nb,
    put_settlement_nb,
    route_length_nb,
    setup_road_ok_nb,
)

# --- a new game ----------------------------------------------------------------------


@kernel
def init_state_nb(s, topo, rules, rng, n_players, board):
    """Reset ``s`` for a new game on ``board`` (int32[BOARD_SIZE]) and shuffle the deck."""
    for i in range(s.size):
        s[i] = 0
    s[S_N_PLAYERS] = n_players
    s[S_WINNER] = -1
    s[S_LONGEST] = -1
    s[S_ARMY] = -1
    s[S_END] = END_RUNNING
    s[S_ILLEGAL_TURN] = -1
    s[S_ILLEGAL_SEAT] = -1
    s[S_ILLEGAL_DECISION] = -1
    s[S_DEV_EVENT] = -1
    s[S_ROBBER_TARGET] = -1
    s[S_PENDING] = D_NONE
    s[S_PENDING_SEAT] = -1
    s[S_CUR] = rules[R_FIRST_PICK]  # phase PH_SETUP_SETTLEMENT (0), placement 0
    load_board_nb(s, topo, board)
    for n in range(N_NODES):
        s[S_NODE_OWNER + n] = -1
    for e in range(N_EDGES):
        s[S_EDGE_OWNER + e] = -1
    derive_piece_fields_nb(s, topo)
    for r in range(5):
        s[S_BANK + r] = rules[R_BANK]
    i = 0
    for card in range(5):
        for _ in range(DEV_CARD_COUNTS[card]):
            s[S_DECK + i] = card
            i += 1
    shuffle_nb(rng, STREAM_CHANCE, s[S_DECK : S_DECK + N_DEV_CARDS], N_DEV_CARDS)
    for p in range(MAX_PLAYERS):
        if p < n_players:
            s[S_ROADS_LEFT + p] = ROADS_PER_PLAYER
            s[S_SETTLEMENTS_LEFT + p] = SETTLEMENTS_PER_PLAYER
            s[S_CITIES_LEFT + p] = CITIES_PER_PLAYER
        s[C_FIRST_CITY + p] = -1
        s[C_FIRST_SETTLEMENT + p] = -1
        s[C_START_NODES + 2 * p] = -1
        s[C_START_NODES + 2 * p + 1] = -1
        for k in range(N_VP_CHECKPOINTS):
            s[C_VP_AT + N_VP_CHECKPOINTS * p + k] = -1
    for r in range(5):
        s[C_FIRST_SHORTAGE + r] = -1
    s[C_WINNER] = -1
    s[C_LONGEST_HOLDER] = -1
    s[C_ARMY_HOLDER] = -1


# --- setup ---------------------------------------------------------------------------


@kernel
def _reserved_node_nb(topo, openings, placed, n):
    # A node is reserved while a forced opening that is not placed yet sits on it or
    # next to it, so free choices never make a forced opening illegal.
    for i in range(MAX_PLAYERS * 2):
        m = openings[2 * i]
        if m < 0 or placed & (1 << i):
            continue
        if m == n:
            return True
        for k in range(3):
            if topo[T_NODE_NEIGHBOURS + 3 * m + k] == n:
                return True
    return False


@kernel
def _reserved_edge_nb(openings, placed, e):
    for i in range(MAX_PLAYERS * 2):
        if openings[2 * i + 1] == e and not placed & (1 << i):
            return True
    return False


@kernel
def setup_seat_nb(s, rules, i):
    """The seat making setup placement ``i`` (0 .. 2n - 1): the snake from the first pick."""
    n = np.int64(s[S_N_PLAYERS])
    p = np.int64(rules[R_FIRST_PICK]) + (i if i < n else 2 * n - 1 - i)
    return p - n if p >= n else p


@kernel
def _any_forced_nb(openings):
    # Any forced opening: only then may a node or edge be reserved.
    for i in range(MAX_PLAYERS * 2):
        if openings[2 * i] >= 0 or openings[2 * i + 1] >= 0:
            return True
    return False


@kernel
def _placed_nb(s, rules, i):
    # Bit slot (2 * seat + round) for each settlement placed before placement i.
    n = np.int64(s[S_N_PLAYERS])
    placed = np.int64(0)
    for j in range(i):
        placed |= np.int64(1) << (2 * setup_seat_nb(s, rules, j) + (0 if j < n else 1))
    return placed


@kernel
def setup_node_mask_nb(s, topo, rules, openings, mask):
    """The legal nodes of the pending starting settlement into ``mask[:54]``."""
    forced = _any_forced_nb(openings)
    placed = _placed_nb(s, rules, np.int64(s[S_STEP])) if forced else 0
    for m in range(N_NODES):
        mask[m] = (
            1
            if distance_ok_nb(s, m)
            and not (forced and _reserved_node_nb(topo, openings, placed, m))
            else 0
        )


@kernel
def setup_edge_mask_nb(s, topo, rules, openings, mask, node):
    """The legal edges of the road beside the settlement just placed on ``node`` into
    ``mask[:72]``: only the empty edges at ``node`` pass ``setup_road_ok_nb``."""
    forced = _any_forced_nb(openings)
    placed = _placed_nb(s, rules, np.int64(s[S_STEP]) + 1) if forced else 0
    for e in range(N_EDGES):
        mask[e] = 0
    for k in range(3):
        e = topo[T_NODE_EDGES + 3 * node + k]
        if e >= 0 and setup_road_ok_nb(s, topo, e, node):
            if not (forced and _reserved_edge_nb(openings, placed, e)):
                mask[e] = 1


@kernel
def setup_settlement_choice_nb(s, topo, rules, openings, log, mask, node):
    """Place placement ``step``'s settlement on ``node`` (checked against ``mask`` unless
    the opening is forced); the road comes next."""
    i = np.int64(s[S_STEP])
    n = np.int64(s[S_N_PLAYERS])
    rnd = 0 if i < n else 1
    p = np.int64(s[S_CUR])
    slot = 2 * p + rnd
    if openings[OPENING_WIDTH * p + 2 * rnd] < 0:
        if node < 0 or node >= N_NODES or mask[node] == 0:
            illegal_nb(s, p, D_SETUP_SETTLEMENT, node)
            node = first_set_nb(mask[:N_NODES])
    put_settlement_nb(s, topo, p, node)
    s[C_START_NODES + slot] = node
    s[C_START_PIPS + slot] = node_pips_nb(s, topo, node)
    log_event_nb(s, log, EV_SETUP_SETTLEMENT, p, node, 0, 0)
    s[S_PHASE] = PH_SETUP_ROAD


@kernel
def setup_road_choice_nb(s, topo, rules, openings, log, mask, edge):
    """Place the road beside placement ``step``'s settlement on ``edge`` (checked
    against ``mask`` unless forced); the second settlement's resources; then the next
    placement, or the first turn."""
    i = np.int64(s[S_STEP])
    n = np.int64(s[S_N_PLAYERS])
    rnd = 0 if i < n else 1
    p = np.int64(s[S_CUR])
    node = np.int64(s[C_START_NODES + 2 * p + rnd])
    if openings[OPENING_WIDTH * p + 2 * rnd + 1] < 0:
        if edge < 0 or edge >= N_EDGES or mask[edge] == 0:
            illegal_nb(s, p, D_SETUP_ROAD, edge)
            edge = first_set_nb(mask)
    put_road_nb(s, topo, p, edge)
    log_event_nb(s, log, EV_SETUP_ROAD, p, edge, 0, 0)
    if rnd == 1:
        ev = log_event_nb(s, log, EV_STARTING_RESOURCES, p, 0, 0, 0)
        for k in range(3):
            h = topo[T_NODE_HEXES + 3 * node + k]
            if h < 0:
                continue
            r = s[S_HEX_TERRAIN + h]
            if r != DESERT and s[S_BANK + r] > 0:  # terrain t produces resource t
                s[S_BANK + r] -= 1
                s[S_HAND + 5 * p + r] += 1
                s[C_START_CARDS + 5 * p + r] += 1
                if ev >= 0:
                    log[ev, LOG_CARDS + r] += 1
    i += 1
    s[S_STEP] = i
    if i < 2 * n:
        s[S_CUR] = setup_seat_nb(s, rules, i)
        s[S_PHASE] = PH_SETUP_SETTLEMENT
        return
    s[S_STEP] = 0
    for q in range(n):
        s[S_ROUTE_LEN + q] = route_length_nb(s, topo, q)
    checkpoint_nb(s, topo, rules)
    s[S_TURN] = 1
    s[S_CUR] = rules[R_FIRST_TURN]
    s[S_PHASE] = PH_TURN_START
