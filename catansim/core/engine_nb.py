"""The game loop: setup, turns, development cards, winning; a batch of games.

These only accept NumPy arrays and scalars. ``play_batch_nb`` plays a run of seeds
into its output rows (``engine.play_batch`` runs several on threads, each writing only
its own rows, and ``engine.play_game`` plays a single logged game through it: with
``s[S_LOG_ON] = 1`` it records every event into ``log``), so a logged game is the game
a batch plays for that seed. ``new_scratch`` (plain Python) makes the arrays it plays in.
"""

import numba as nb
import numpy as np

from ..constants import (
    BUILD_DEV_CARD,
    CITIES_PER_PLAYER,
    DESERT,
    DEV_CARD_COUNTS,
    INVENTION,
    KNIGHT,
    MAX_PLAYERS,
    MONOPOLY,
    N_DEV_CARDS,
    N_EDGES,
    N_HEXES,
    N_NODES,
    ROAD_BUILDING,
    ROADS_PER_PLAYER,
    SETTLEMENTS_PER_PLAYER,
    VICTORY_POINT,
)
from ..topology import T_NODE_EDGES, T_NODE_HEXES, T_NODE_NEIGHBOURS
from .actions_nb import (
    ACT_A,
    ACT_B,
    ACT_BUY_DEV,
    ACT_CITY,
    ACT_END,
    ACT_GIVE,
    ACT_KIND,
    ACT_PLAY_DEV,
    ACT_RECEIVE,
    ACT_ROAD,
    ACT_SETTLEMENT,
    ACT_SIZE,
    ACT_TRADE_BANK,
    ACT_TRADE_PLAYER,
    MAX_LEGAL,
    can_play_dev_nb,
    is_legal_action_nb,
    legal_actions_nb,
    unpack_nb,
)
from .board_nb import BOARD_SCRATCH, generate_board_nb
from .jit import inline_kernel, kernel, typed_kernel
from .layout import (
    BOARD_SIZE,
    C_ARMY_HOLDER,
    C_DEV_BOUGHT,
    C_DEV_PLAYED,
    C_END_REASON,
    C_FIRST_CITY,
    C_FIRST_SETTLEMENT,
    C_FIRST_SHORTAGE,
    C_ILLEGAL,
    C_KNIGHTS,
    C_LONGEST_HOLDER,
    C_MONOPOLY_GAIN,
    C_OFFERS,
    C_ROADS,
    C_ROLLS,
    C_ROUTE_LEN,
    C_SEVENS,
    C_START_CARDS,
    C_START_NODES,
    C_START_PIPS,
    C_TRADES_BANK,
    C_TRADES_PLAYER,
    C_TURNS,
    C_VIOLATIONS,
    C_VP,
    C_VP_ARMY,
    C_VP_AT,
    C_VP_CARDS,
    C_VP_CITIES,
    C_VP_LONGEST,
    C_VP_SETTLEMENTS,
    C_WINNER,
    D_ACTION,
    D_ANSWER,
    D_DISCARD,
    D_FREE_ROAD,
    D_INVENTION,
    D_MONOPOLY,
    D_NONE,
    D_PRE_ROLL,
    D_ROBBER_HEX,
    D_SETUP_ROAD,
    D_SETUP_SETTLEMENT,
    D_UNTIL,
    D_VICTIM,
    END_RUNNING,
    END_TURN_LIMIT,
    END_WIN,
    EV_BUY_DEV,
    EV_GAME_END,
    EV_PLAY_DEV,
    EV_ROLL,
    EV_SETUP_ROAD,
    EV_SETUP_SETTLEMENT,
    EV_STARTING_RESOURCES,
    EV_TRADE_BANK,
    EV_TRADE_PLAYER,
    EV_TURN_END,
    EV_TURN_START,
    LAYOUT_BALANCED,
    LAYOUT_GIVEN,
    LOG_B,
    LOG_BANK_GET,
    LOG_CARDS,
    LOG_FINAL_VP,
    LOG_GET,
    LOG_GIVE,
    LOG_INVENTION,
    LOG_TAKEN,
    N_COUNTERS,
    N_RULES,
    N_VP_CHECKPOINTS,
    NET_WORD_BITS,
    OPENING_WIDTH,
    PH_ACTION,
    PH_ACTION_DONE,
    PH_AFTER_ROLL,
    PH_ANSWER,
    PH_DISCARD,
    PH_FINISH,
    PH_FREE_ROAD,
    PH_INVENTION,
    PH_MONOPOLY,
    PH_OVER,
    PH_PRE_ROLL,
    PH_PRE_ROLL_DONE,
    PH_ROBBER_HEX,
    PH_ROLL,
    PH_SETUP_ROAD,
    PH_SETUP_SETTLEMENT,
    PH_TURN_DONE,
    PH_TURN_END,
    PH_TURN_START,
    PH_VICTIM,
    R_AFTER,
    R_BANK,
    R_CHECK,
    R_DISCARD_LIMIT,
    R_FIRST_PICK,
    R_FIRST_TURN,
    R_MAX_ACTIONS,
    R_MAX_TURNS,
    R_ROBBER,
    R_SWITCH_TURN,
    R_VP_TO_WIN,
    ROBBER_OFF,
    S_ACTIONS,
    S_ARMY,
    S_BANK,
    S_CITIES_LEFT,
    S_COUNTERS,
    S_CUR,
    S_DECK,
    S_DECK_POS,
    S_DEV_EVENT,
    S_DEV_HAND,
    S_DEV_NEW,
    S_DEV_PLAYED,
    S_DEV_RETURN,
    S_EDGE_OWNER,
    S_END,
    S_EXTERNAL,
    S_HAND,
    S_HEX_NUMBER,
    S_HEX_TERRAIN,
    S_ILLEGAL_DECISION,
    S_ILLEGAL_SEAT,
    S_ILLEGAL_TURN,
    S_ILLEGAL_VALUE,
    S_KNIGHTS,
    S_LOG_ON,
    S_LONGEST,
    S_N_PLAYERS,
    S_NET_NODES,
    S_NODE_FREE,
    S_NODE_LEVEL,
    S_NODE_OPEN,
    S_NODE_OWNER,
    S_OFFERS,
    S_OPEN_SPOTS,
    S_OWN_HEXES,
    S_PENDING,
    S_PENDING_SEAT,
    S_PHASE,
    S_PROD_PIPS,
    S_ROADS_LEFT,
    S_ROBBER_RETURN,
    S_ROBBER_TARGET,
    S_ROLLED,
    S_ROUTE_LEN,
    S_SEEN_ABOVE,
    S_SEEN_BELOW,
    S_SETTLEMENTS_LEFT,
    S_STEP,
    S_TURN,
    S_VP_CHECKPOINT,
    S_WINNER,
    VP_CHECKPOINTS,
)
from .policy_nb import (
    WORK_SIZE,
    accept_trade_nb,
    choose_action_nb,
    choose_discard_nb,
    choose_free_road_nb,
    choose_invention_nb,
    choose_monopoly_nb,
    choose_pre_roll_nb,
    choose_robber_hex_nb,
    choose_setup_road_nb,
    choose_setup_settlement_nb,
    choose_victim_nb,
    reset_work_nb,
)
from .record_nb import (
    seen_clear_nb,
    seen_high_nb,
    seen_index,
    seen_low_nb,
    seen_remove_nb,
)
from .rng_nb import (
    N_STREAMS,
    STREAM_CHANCE,
    STREAM_DICE,
    randint_nb,
    seed_streams_nb,
    shuffle_nb,
    uniform_nb,
)
from .rules_nb import (
    build_city_nb,
    build_road_nb,
    build_settlement_nb,
    can_place_road_nb,
    derive_piece_fields_nb,
    discard_nb,
    distance_ok_nb,
    hand_size_nb,
    invention_cards_nb,
    load_board_nb,
    log_event_nb,
    maritime_rate_nb,
    move_robber_nb,
    net_nodes_nb,
    node_pips_nb,
    pay_nb,
    pips_nb,
    produce_nb,
    put_road_nb,
    put_settlement_nb,
    random_card_nb,
    roads_at_nb,
    robber_for_rules_nb,
    robber_hex_mask_nb,
    route_length_nb,
    setup_road_ok_nb,
    update_largest_army_nb,
    victims_nb,
    visible_vp_nb,
    vp_nb,
)


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


# --- illegal choices ----------------------------------------------------------------


@typed_kernel("boolean(int32[::1], int64, int64, int64)")
def illegal_nb(s, p, decision, value):
    """Count an illegal choice by seat p (a strategy bug; the caller goes on with a legal
    substitute) and record the game's first in the ``illegal_*`` fields.

    ``decision`` is a ``D_*`` code, ``value`` what was chosen. True if it was the first.
    """
    s[C_ILLEGAL] += 1
    if s[S_ILLEGAL_DECISION] >= 0:
        return False
    s[S_ILLEGAL_TURN] = s[S_TURN]
    s[S_ILLEGAL_SEAT] = p
    s[S_ILLEGAL_DECISION] = decision
    for i in range(ACT_SIZE):
        s[S_ILLEGAL_VALUE + i] = 0
    s[S_ILLEGAL_VALUE] = value
    return True


@typed_kernel("boolean(int32[::1], int64, int64, int32[::1], int64)")
def illegal_array_nb(s, p, decision, choice, n):
    """``illegal_nb`` for a choice that is an array: records ``choice[:n]``."""
    first = illegal_nb(s, p, decision, choice[0])
    if first:
        for i in range(n):
            s[S_ILLEGAL_VALUE + i] = choice[i]
    return first


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
def _first_set_nb(mask):
    for i in range(mask.shape[0]):
        if mask[i]:
            return i
    return -1


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
            node = _first_set_nb(mask[:N_NODES])
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
            edge = _first_set_nb(mask)
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


# --- invariants ------------------------------------------------------------------------


@kernel
def count_violations_nb(s, topo, rules):
    """Count broken state invariants (0 for a legal state). Used with rules ``check=1``.

    Conservation of every resource (supply + hands = supply size) and of the 25
    development cards; no negative hands or supply; piece counts within limits and
    equal to the pieces on the board; stored route lengths and the fields derived from
    the pieces (``node_open``, ``node_roads``, ``node_free``, ``open_spots``, ``net_nodes``,
    ``prod_pips``, ``own_hexes``) equal a recomputation; every observer's public record
    holds every true hand, and each player's record of its own hand is exact; the bonus
    tiles held only by qualifying players; while the game runs, the player whose turn it
    is is below the winning total.
    """
    n = np.int64(s[S_N_PLAYERS])
    bad = 0
    for r in range(5):
        total = s[S_BANK + r]
        if s[S_BANK + r] < 0:
            bad += 1
        for p in range(n):
            total += s[S_HAND + 5 * p + r]
            if s[S_HAND + 5 * p + r] < 0:
                bad += 1
        if total != rules[R_BANK]:
            bad += 1
    # The public record never contradicts a hand, and each player's record of its own
    # hand is exact (core.record_nb).
    for o in range(n):
        for q in range(n):
            for r in range(5):
                i = seen_index(o, q) + r
                held = s[S_HAND + 5 * q + r]
                if not 0 <= seen_low_nb(s, o, q, r) <= held <= seen_high_nb(s, o, q, r):
                    bad += 1
                if o == q and s[S_SEEN_BELOW + i] + s[S_SEEN_ABOVE + i] != 0:
                    bad += 1
    cards = s[S_DECK_POS]  # drawn cards are held or played
    for p in range(n):
        for k in range(5):
            cards -= s[S_DEV_HAND + 5 * p + k] + s[C_DEV_PLAYED + 5 * p + k]
            if s[S_DEV_NEW + 5 * p + k] > s[S_DEV_HAND + 5 * p + k]:
                bad += 1
        if s[S_KNIGHTS + p] != s[C_DEV_PLAYED + 5 * p + KNIGHT]:
            bad += 1
    if cards != 0:
        bad += 1
    for p in range(n):
        settlements = 0
        cities = 0
        for m in range(N_NODES):
            if s[S_NODE_OWNER + m] == p:
                if s[S_NODE_LEVEL + m] == 1:
                    settlements += 1
                elif s[S_NODE_LEVEL + m] == 2:
                    cities += 1
                else:
                    bad += 1
        roads = 0
        for e in range(N_EDGES):
            if s[S_EDGE_OWNER + e] == p:
                roads += 1
        if settlements + s[S_SETTLEMENTS_LEFT + p] != SETTLEMENTS_PER_PLAYER:
            bad += 1
        if cities + s[S_CITIES_LEFT + p] != CITIES_PER_PLAYER:
            bad += 1
        if roads + s[S_ROADS_LEFT + p] != ROADS_PER_PLAYER or s[S_ROADS_LEFT + p] < 0:
            bad += 1
        if s[S_SETTLEMENTS_LEFT + p] < 0 or s[S_CITIES_LEFT + p] < 0:
            bad += 1
        if s[S_ROUTE_LEN + p] != route_length_nb(s, topo, p):
            bad += 1
    # Distance Rule holds everywhere, and the derived piece fields are up to date.
    for m in range(N_NODES):
        is_open = s[S_NODE_OWNER + m] < 0
        for k in range(3):
            nb_ = topo[T_NODE_NEIGHBOURS + 3 * m + k]
            if nb_ >= 0 and s[S_NODE_OWNER + nb_] >= 0:
                is_open = False
                if s[S_NODE_OWNER + m] >= 0:
                    bad += 1
        if s[S_NODE_OPEN + m] != (1 if is_open else 0):
            bad += 1
        free = 0
        for k in range(3):
            e = topo[T_NODE_EDGES + 3 * m + k]
            if e >= 0 and s[S_EDGE_OWNER + e] < 0:
                free |= 1 << k
        if s[S_NODE_FREE + m] != free:
            bad += 1
        for q in range(MAX_PLAYERS):
            roads = 0
            for k in range(3):
                e = topo[T_NODE_EDGES + 3 * m + k]
                if e >= 0 and s[S_EDGE_OWNER + e] == q:
                    roads += 1
            if roads_at_nb(s, q, m) != roads:
                bad += 1
    for q in range(MAX_PLAYERS):
        spots = 0
        for m in range(N_NODES):
            if s[S_NODE_OPEN + m] and roads_at_nb(s, q, m) > 0:
                spots += 1
        if s[S_OPEN_SPOTS + q] != spots:
            bad += 1
        net = np.int64(0)
        for m in range(N_NODES):
            touch = s[S_NODE_OWNER + m] == q
            for k in range(3):
                e = topo[T_NODE_EDGES + 3 * m + k]
                if e >= 0 and s[S_EDGE_OWNER + e] == q:
                    touch = True
            if touch:
                net |= np.int64(1) << m
        if net_nodes_nb(s, q) != net or s[S_NET_NODES + 2 * q] >= 1 << NET_WORD_BITS:
            bad += 1
        own = 0
        for m in range(N_NODES):
            if s[S_NODE_OWNER + m] == q:
                for k in range(3):
                    h = topo[T_NODE_HEXES + 3 * m + k]
                    if h >= 0:
                        own |= 1 << h
        if s[S_OWN_HEXES + q] != own:
            bad += 1
        for r in range(5):
            pips = 0
            for m in range(N_NODES):
                if s[S_NODE_OWNER + m] != q:
                    continue
                for k in range(3):
                    h = topo[T_NODE_HEXES + 3 * m + k]
                    if h >= 0 and s[S_HEX_TERRAIN + h] == r:
                        pips += s[S_NODE_LEVEL + m] * pips_nb(s[S_HEX_NUMBER + h])
            if s[S_PROD_PIPS + 5 * q + r] != pips:
                bad += 1
    holder = s[S_LONGEST]
    if holder >= 0:
        if s[S_ROUTE_LEN + holder] < 5:
            bad += 1
        for p in range(n):
            if s[S_ROUTE_LEN + p] > s[S_ROUTE_LEN + holder]:
                bad += 1
    army = s[S_ARMY]
    if army >= 0:
        if s[S_KNIGHTS + army] < 3:
            bad += 1
        for p in range(n):
            if p != army and s[S_KNIGHTS + p] > s[S_KNIGHTS + army]:
                bad += 1
    if s[S_END] == END_RUNNING and s[S_TURN] > 0 and vp_nb(s, s[S_CUR]) >= rules[R_VP_TO_WIN]:
        bad += 1
    if s[S_END] == END_WIN and vp_nb(s, s[S_WINNER]) < rules[R_VP_TO_WIN]:
        bad += 1
    return bad


@inline_kernel
def checkpoint_nb(s, topo, rules):
    """With rules ``check=1``, add the current state's violations to ``c_violations``."""
    if rules[R_CHECK]:
        s[C_VIOLATIONS] += count_violations_nb(s, topo, rules)


# --- ending ----------------------------------------------------------------------------


@typed_kernel("void(int32[::1], int32[:, ::1], int64, int64)")
def end_game_nb(s, log, winner, reason):
    s[S_WINNER] = winner
    s[S_END] = reason
    ev = log_event_nb(s, log, EV_GAME_END, -1, winner, s[S_TURN], reason)
    if ev >= 0:
        for q in range(np.int64(s[S_N_PLAYERS])):
            log[ev, LOG_FINAL_VP + q] = vp_nb(s, q)


@kernel
def check_win_nb(s, rules, log):
    """End the game if the player whose turn it is has enough VP; return True if over."""
    if s[S_END] != END_RUNNING:
        return True
    p = np.int64(s[S_CUR])
    if vp_nb(s, p) >= rules[R_VP_TO_WIN]:
        end_game_nb(s, log, p, END_WIN)
        return True
    return False


@typed_kernel("void(int32[::1], int64)")
def record_vp_nb(s, k):
    """Every player's visible VP after turn ``VP_CHECKPOINTS[k]`` (who leads when)."""
    for p in range(np.int64(s[S_N_PLAYERS])):
        s[C_VP_AT + N_VP_CHECKPOINTS * p + k] = visible_vp_nb(s, p)


@kernel
def finish_counters_nb(s):
    """Write the end-of-game part of the result record."""
    s[C_TURNS] = s[S_TURN]
    s[C_WINNER] = s[S_WINNER]
    s[C_END_REASON] = s[S_END]
    s[C_LONGEST_HOLDER] = s[S_LONGEST]
    s[C_ARMY_HOLDER] = s[S_ARMY]
    for p in range(np.int64(s[S_N_PLAYERS])):
        s[C_VP + p] = vp_nb(s, p)
        s[C_VP_SETTLEMENTS + p] = SETTLEMENTS_PER_PLAYER - s[S_SETTLEMENTS_LEFT + p]
        s[C_VP_CITIES + p] = 2 * (CITIES_PER_PLAYER - s[S_CITIES_LEFT + p])
        s[C_VP_LONGEST + p] = 2 if s[S_LONGEST] == p else 0
        s[C_VP_ARMY + p] = 2 if s[S_ARMY] == p else 0
        s[C_VP_CARDS + p] = s[S_DEV_HAND + 5 * p + VICTORY_POINT]
        s[C_ROUTE_LEN + p] = s[S_ROUTE_LEN + p]
        s[C_ROADS + p] = ROADS_PER_PLAYER - s[S_ROADS_LEFT + p]
        s[C_KNIGHTS + p] = s[S_KNIGHTS + p]


# --- the robber ------------------------------------------------------------------------


@kernel
def robber_hex_choice_nb(s, topo, rules, log, mask, victims, h):
    """Move the robber to ``h`` (checked against the hex mask ``mask[:19]``); with
    seats to rob the victim is chosen next, else the robber's move is over."""
    p = np.int64(s[S_CUR])
    if h < 0 or h >= N_HEXES or mask[h] == 0:
        illegal_nb(s, p, D_ROBBER_HEX, h)
        h = _first_set_nb(mask[:N_HEXES])
    if victims_nb(s, topo, p, h, victims) > 0:
        s[S_ROBBER_TARGET] = h
        s[S_PHASE] = PH_VICTIM
        return
    move_robber_nb(s, log, p, h, -1, -1)
    s[S_PHASE] = s[S_ROBBER_RETURN]


@kernel
def victim_choice_nb(s, topo, rng, log, victims, victim):
    """Steal one random card from ``victim`` (checked against the seats at the robber's
    hex) and end the robber's move."""
    p = np.int64(s[S_CUR])
    h = np.int64(s[S_ROBBER_TARGET])
    n_victims = victims_nb(s, topo, p, h, victims)
    ok = False
    for i in range(n_victims):
        if victims[i] == victim:
            ok = True
    if not ok:
        illegal_nb(s, p, D_VICTIM, victim)
        victim = np.int64(victims[0])
    stolen = -1
    if hand_size_nb(s, victim) > 0:
        stolen = random_card_nb(s, victim, uniform_nb(rng, STREAM_CHANCE))
    move_robber_nb(s, log, p, h, victim, stolen)
    s[S_ROBBER_TARGET] = -1
    s[S_PHASE] = s[S_ROBBER_RETURN]


@kernel
def discard_choice_nb(s, log, bundle):
    """Seat ``step`` discards ``bundle`` (int32[5]; checked: half its hand, rounded
    down); the next seat's turn to discard."""
    q = np.int64(s[S_STEP])
    k = hand_size_nb(s, q) // 2
    total = 0
    ok = True
    for r in range(5):
        if bundle[r] < 0 or bundle[r] > s[S_HAND + 5 * q + r]:
            ok = False
        total += bundle[r]
    if not ok or total != k:
        # A strategy bug: discard the first k cards instead.
        if illegal_array_nb(s, q, D_DISCARD, bundle, 5):
            s[S_ILLEGAL_VALUE + 5] = k
        left = k
        for r in range(5):
            bundle[r] = min(left, s[S_HAND + 5 * q + r])
            left -= bundle[r]
    discard_nb(s, log, q, bundle)
    s[S_STEP] = q + 1


@kernel
def next_discard_nb(s, rules):
    """From seat ``step`` on, the first seat that must discard on this 7 (stored in
    ``step``), or -1 when none is left."""
    limit = rules[R_DISCARD_LIMIT]
    if limit < 0:
        return -1
    n = np.int64(s[S_N_PLAYERS])
    q = np.int64(s[S_STEP])
    while q < n and hand_size_nb(s, q) <= limit:
        q += 1
    if q >= n:
        return -1
    s[S_STEP] = q
    return q


# --- development cards ------------------------------------------------------------------


@kernel
def start_dev_nb(s, rules, log, p, card):
    """Play a development card (already checked playable): its bookkeeping, then the
    phase of its effect; ``dev_return`` says where the game goes on after it."""
    s[S_DEV_HAND + 5 * p + card] -= 1
    s[S_DEV_PLAYED] = 1
    s[C_DEV_PLAYED + 5 * p + card] += 1
    s[S_DEV_EVENT] = log_event_nb(s, log, EV_PLAY_DEV, p, card, 0, 0)
    after = s[S_DEV_RETURN]
    if card == KNIGHT:
        s[S_KNIGHTS + p] += 1
        update_largest_army_nb(s, log, p)
        if check_win_nb(s, rules, log) or rules[R_ROBBER] == ROBBER_OFF:
            s[S_PHASE] = after
        else:
            s[S_ROBBER_RETURN] = after
            s[S_PHASE] = PH_ROBBER_HEX
    elif card == ROAD_BUILDING:
        s[S_STEP] = 0
        s[S_PHASE] = PH_FREE_ROAD
    elif card == INVENTION:
        s[S_PHASE] = PH_INVENTION
    elif card == MONOPOLY:
        s[S_PHASE] = PH_MONOPOLY
    else:
        s[S_PHASE] = after


@kernel
def free_road_due_nb(s, topo):
    """Whether the player whose turn it is builds another Road Building road: fewer
    than two built, a road piece left and a legal edge for it."""
    p = np.int64(s[S_CUR])
    if s[S_STEP] >= 2 or s[S_ROADS_LEFT + p] <= 0:
        return False
    for e in range(N_EDGES):
        if can_place_road_nb(s, topo, p, e):
            return True
    return False


@kernel
def free_road_choice_nb(s, topo, rules, log, e):
    """Build a Road Building road on ``e`` (checked legal); a win or an illegal edge
    ends the card."""
    p = np.int64(s[S_CUR])
    if e < 0 or e >= N_EDGES or not can_place_road_nb(s, topo, p, e):
        illegal_nb(s, p, D_FREE_ROAD, e)
        s[S_PHASE] = s[S_DEV_RETURN]
        return
    build_road_nb(s, topo, log, p, e, True)
    if check_win_nb(s, rules, log):
        s[S_PHASE] = s[S_DEV_RETURN]
        return
    s[S_STEP] += 1


@kernel
def invention_choice_nb(s, log, bundle):
    """Take Invention's cards ``bundle`` (int32[5]; checked: the cards due, from the
    supply) and end the card."""
    p = np.int64(s[S_CUR])
    ev = np.int64(s[S_DEV_EVENT])
    total = 0
    ok = True
    for r in range(5):
        total += bundle[r]
        if bundle[r] < 0 or bundle[r] > s[S_BANK + r]:
            ok = False
    due = invention_cards_nb(s)
    if not ok or total != due:
        if illegal_array_nb(s, p, D_INVENTION, bundle, 5):
            s[S_ILLEGAL_VALUE + 5] = due
        for r in range(5):
            bundle[r] = 0
    for r in range(5):
        s[S_BANK + r] -= bundle[r]
        s[S_HAND + 5 * p + r] += bundle[r]
        if ev >= 0:
            log[ev, LOG_INVENTION + r] = bundle[r]
    s[S_PHASE] = s[S_DEV_RETURN]


@kernel
def monopoly_choice_nb(s, log, r):
    """Name resource ``r`` (checked 0-4) for Monopoly and end the card."""
    p = np.int64(s[S_CUR])
    ev = np.int64(s[S_DEV_EVENT])
    if r < 0 or r > 4:
        illegal_nb(s, p, D_MONOPOLY, r)
        r = 0
    if ev >= 0:
        log[ev, LOG_B] = r
    for q in range(np.int64(s[S_N_PLAYERS])):
        if q == p:
            continue
        taken = s[S_HAND + 5 * q + r]
        s[S_HAND + 5 * q + r] = 0
        s[S_HAND + 5 * p + r] += taken
        seen_clear_nb(s, q, r)
        s[C_MONOPOLY_GAIN + p] += taken
        if ev >= 0:
            log[ev, LOG_TAKEN + q] = taken
    s[S_PHASE] = s[S_DEV_RETURN]


# --- a turn ------------------------------------------------------------------------------


@kernel
def pre_roll_choice_nb(s, rules, log, card):
    """Play ``card`` before the roll (-1: roll straight away; a card that may not be
    played is illegal, and the dice are rolled)."""
    p = np.int64(s[S_CUR])
    if card == -1:
        s[S_PHASE] = PH_ROLL
    elif can_play_dev_nb(s, p, card):
        s[S_DEV_RETURN] = PH_PRE_ROLL_DONE
        start_dev_nb(s, rules, log, p, card)
    else:
        illegal_nb(s, p, D_PRE_ROLL, card)
        s[S_PHASE] = PH_ROLL


@kernel
def roll_nb(s, rules, rng, log, owed, topo):
    """Roll the dice: production, or a 7 (discards, then the robber)."""
    p = np.int64(s[S_CUR])
    d1 = 1 + randint_nb(rng, STREAM_DICE, 6)
    d2 = 1 + randint_nb(rng, STREAM_DICE, 6)
    roll = d1 + d2
    log_event_nb(s, log, EV_ROLL, p, d1, d2, 0)
    s[C_ROLLS + roll - 2] += 1
    if roll == 7:
        s[C_SEVENS] += 1
        s[S_STEP] = 0
        s[S_PHASE] = PH_DISCARD
    else:
        produce_nb(s, topo, rules, log, roll, owed)
        s[S_PHASE] = PH_AFTER_ROLL


@kernel
def build_action_nb(s, topo, log, p, act):
    """Apply a legal road, settlement, city, development-card purchase or maritime trade
    (the action kinds that need neither the players nor the random streams)."""
    kind = act[ACT_KIND]
    if kind == ACT_ROAD:
        build_road_nb(s, topo, log, p, np.int64(act[ACT_A]), False)
    elif kind == ACT_SETTLEMENT:
        build_settlement_nb(s, topo, log, p, np.int64(act[ACT_A]))
    elif kind == ACT_CITY:
        build_city_nb(s, topo, log, p, np.int64(act[ACT_A]))
    elif kind == ACT_BUY_DEV:
        pay_nb(s, p, BUILD_DEV_CARD)
        card = s[S_DECK + s[S_DECK_POS]]
        s[S_DECK_POS] += 1
        s[S_DEV_HAND + 5 * p + card] += 1
        s[S_DEV_NEW + 5 * p + card] += 1
        s[C_DEV_BOUGHT + 5 * p + card] += 1
        log_event_nb(s, log, EV_BUY_DEV, p, card, 0, 0)
    elif kind == ACT_TRADE_BANK:
        give = np.int64(act[ACT_A])
        get = np.int64(act[ACT_B])
        rate = maritime_rate_nb(s, p, give)
        s[S_HAND + 5 * p + give] -= rate
        s[S_BANK + give] += rate
        s[S_BANK + get] -= 1
        s[S_HAND + 5 * p + get] += 1
        seen_remove_nb(s, p, give)
        s[C_TRADES_BANK + p] += 1
        ev = log_event_nb(s, log, EV_TRADE_BANK, p, 0, 0, 0)
        if ev >= 0:
            log[ev, LOG_CARDS + give] = rate
            log[ev, LOG_BANK_GET + get] = 1


@kernel
def action_choice_nb(s, topo, rules, log, act):
    """Apply the action ``act`` of the player whose turn it is: ending the turn, an
    illegal action (which ends it too), a card, an offer (its partner answers next)
    or a build or maritime trade."""
    p = np.int64(s[S_CUR])
    kind = act[ACT_KIND]
    if kind == ACT_END:
        s[S_PHASE] = PH_TURN_END
    elif not is_legal_action_nb(s, topo, rules, p, act):
        illegal_array_nb(s, p, D_ACTION, act, ACT_SIZE)
        s[S_PHASE] = PH_TURN_END
    elif kind == ACT_PLAY_DEV:
        s[S_DEV_RETURN] = PH_ACTION_DONE
        start_dev_nb(s, rules, log, p, np.int64(act[ACT_A]))
    elif kind == ACT_TRADE_PLAYER:
        q = np.int64(act[ACT_A])
        s[S_OFFERS] += 1
        s[C_OFFERS + p] += 1
        s[S_PHASE] = PH_ACTION_DONE
        for r in range(5):
            if s[S_HAND + 5 * q + r] < act[ACT_RECEIVE + r]:
                return  # the partner cannot pay: no answer is asked
        s[S_PHASE] = PH_ANSWER
    else:
        build_action_nb(s, topo, log, p, act)
        s[S_PHASE] = PH_ACTION_DONE


@kernel
def answer_choice_nb(s, log, act, accept):
    """The partner's answer to the offer ``act``: accepted, the cards change hands."""
    if accept:
        p = np.int64(s[S_CUR])
        q = np.int64(act[ACT_A])
        for r in range(5):
            s[S_HAND + 5 * p + r] += act[ACT_RECEIVE + r] - act[ACT_GIVE + r]
            s[S_HAND + 5 * q + r] += act[ACT_GIVE + r] - act[ACT_RECEIVE + r]
            seen_remove_nb(s, p, r)  # for the side that gains r, a no-op
            seen_remove_nb(s, q, r)
        s[C_TRADES_PLAYER + p] += 1
        s[C_TRADES_PLAYER + q] += 1
        ev = log_event_nb(s, log, EV_TRADE_PLAYER, p, q, 0, 0)
        if ev >= 0:
            for r in range(5):
                log[ev, LOG_GIVE + r] = act[ACT_GIVE + r]
                log[ev, LOG_GET + r] = act[ACT_RECEIVE + r]
    s[S_PHASE] = PH_ACTION_DONE


@kernel
def turn_done_nb(s, rules, log):
    """After a turn: the VP checkpoint, the rule switch (after ``switch_turn`` the
    after-rules replace the game's working rules, so the turn cap at its end is
    theirs, and a robber switched off rests on the desert), then the game's end or the
    next seat's turn."""
    turn = np.int64(s[S_TURN])
    k = np.int64(s[S_VP_CHECKPOINT])
    if k < N_VP_CHECKPOINTS and turn == VP_CHECKPOINTS[k]:
        record_vp_nb(s, k)
        s[S_VP_CHECKPOINT] = k + 1
    if turn == rules[R_SWITCH_TURN]:
        for i in range(R_SWITCH_TURN):
            rules[i] = rules[R_AFTER + i]
        robber_for_rules_nb(s, rules)
    if s[S_END] != END_RUNNING:
        s[S_PHASE] = PH_FINISH
    elif turn >= rules[R_MAX_TURNS]:
        end_game_nb(s, log, -1, END_TURN_LIMIT)
        s[S_PHASE] = PH_FINISH
    else:
        s[S_TURN] = turn + 1
        p = s[S_CUR] + 1  # the next seat, without a division (n_players >= 3)
        s[S_CUR] = 0 if p == s[S_N_PLAYERS] else p
        s[S_PHASE] = PH_TURN_START


# --- the engine: one loop for the batch and the step interface ---------------------------


@inline_kernel
def _await_nb(s, decision, seat):
    # Pause for a decision made outside the kernel; returns the decision.
    s[S_PENDING] = decision
    s[S_PENDING_SEAT] = seat
    return decision


@kernel
def run_nb(s, topo, rules, rng, strat, params, openings, log, act, cand, mask, victims, bundle,
           owed, work, until):
    """Play the game from ``s[S_PHASE]`` until a decision of an external seat
    (``s[S_EXTERNAL + seat]``) is pending, the game is over, or phase ``until`` is
    next (-1: never; tests drive one part of a turn this way).

    Returns the pending decision (``D_*``; its seat is ``s[S_PENDING_SEAT]``),
    ``D_NONE`` once the game is over, or ``D_UNTIL`` at phase ``until``. Every other
    seat's decisions are made here by its compiled strategy, so with no external seat
    this plays the whole game: the batch kernel is this loop. While a decision is
    pending this returns it at once;
    ``resolve_nb`` applies its choice. The scratch arrays (``act``, ``mask``) hold
    the pending decision's offer and legal options between the two calls.
    """
    if s[S_PENDING] != D_NONE:
        return np.int64(s[S_PENDING])
    while True:
        ph = s[S_PHASE]
        if ph == until:
            return np.int64(D_UNTIL)
        p = np.int64(s[S_CUR])
        # A turn's usual phases in their order: each falls through to the next when
        # that is the phase it set (one pass of the loop a turn, not one a phase).
        if ph == PH_TURN_START:
            s[S_DEV_PLAYED] = 0
            s[S_ROLLED] = 0
            s[S_OFFERS] = 0
            s[S_ACTIONS] = 0
            log_event_nb(s, log, EV_TURN_START, p, s[S_TURN], 0, 0)
            ph = PH_TURN_DONE if check_win_nb(s, rules, log) else PH_PRE_ROLL
            s[S_PHASE] = ph
            if ph == until:
                return np.int64(D_UNTIL)
        if ph == PH_PRE_ROLL:
            if s[S_EXTERNAL + p]:
                return _await_nb(s, D_PRE_ROLL, p)
            card = choose_pre_roll_nb(strat[p], params[p], s, topo, rules, rng, work, p)
            pre_roll_choice_nb(s, rules, log, card)
            ph = s[S_PHASE]
            if ph != PH_ROLL or ph == until:
                continue
        if ph == PH_ROLL:
            roll_nb(s, rules, rng, log, owed, topo)
            ph = s[S_PHASE]
            if ph != PH_AFTER_ROLL or ph == until:
                continue
        if ph == PH_AFTER_ROLL:
            s[S_ROLLED] = 1
            checkpoint_nb(s, topo, rules)
            ph = PH_ACTION
            s[S_PHASE] = ph
            if ph == until:
                return np.int64(D_UNTIL)
        if ph == PH_ACTION or ph == PH_ACTION_DONE:
            while True:
                if ph == PH_ACTION:
                    if s[S_ACTIONS] >= rules[R_MAX_ACTIONS]:
                        ph = PH_TURN_END
                        s[S_PHASE] = ph
                        break
                    s[S_ACTIONS] += 1
                    if s[S_EXTERNAL + p]:
                        return _await_nb(s, D_ACTION, p)
                    choose_action_nb(strat[p], params[p], s, topo, rules, rng, work, p, act,
                                     cand)
                    action_choice_nb(s, topo, rules, log, act)
                    ph = s[S_PHASE]
                    if ph != PH_ACTION_DONE or ph == until:
                        break
                over = check_win_nb(s, rules, log)
                checkpoint_nb(s, topo, rules)
                ph = PH_TURN_DONE if over else PH_ACTION
                s[S_PHASE] = ph
                if over or ph == until:
                    break
            if ph != PH_TURN_END or ph == until:
                continue
        if ph == PH_TURN_END:
            for k in range(5):
                s[S_DEV_NEW + 5 * p + k] = 0
            log_event_nb(s, log, EV_TURN_END, p, 0, 0, 0)
            ph = PH_TURN_DONE
            s[S_PHASE] = ph
            if ph == until:
                return np.int64(D_UNTIL)
        if ph == PH_TURN_DONE:
            turn_done_nb(s, rules, log)
            continue
        # The other phases: the set-up, a 7, the cards' effects, a partner's answer.
        if ph == PH_ANSWER:
            q = np.int64(act[ACT_A])
            if s[S_EXTERNAL + q]:
                return _await_nb(s, D_ANSWER, q)
            yes = accept_trade_nb(strat[q], params[q], s, topo, rules, rng, work, q, p, act)
            answer_choice_nb(s, log, act, yes)
        elif ph == PH_DISCARD:
            q = next_discard_nb(s, rules)
            if q < 0:
                if rules[R_ROBBER] != ROBBER_OFF:
                    s[S_ROBBER_RETURN] = PH_AFTER_ROLL
                    s[S_PHASE] = PH_ROBBER_HEX
                else:
                    s[S_PHASE] = PH_AFTER_ROLL
                continue
            if s[S_EXTERNAL + q]:
                return _await_nb(s, D_DISCARD, q)
            choose_discard_nb(strat[q], params[q], s, topo, rules, rng, work, q,
                              hand_size_nb(s, q) // 2, bundle)
            discard_choice_nb(s, log, bundle)
        elif ph == PH_ROBBER_HEX:
            hexes = mask[:N_HEXES]
            robber_hex_mask_nb(s, topo, rules, hexes)
            if s[S_EXTERNAL + p]:
                return _await_nb(s, D_ROBBER_HEX, p)
            h = choose_robber_hex_nb(strat[p], params[p], s, topo, rules, rng, work, p, hexes)
            robber_hex_choice_nb(s, topo, rules, log, mask, victims, h)
        elif ph == PH_VICTIM:
            h = np.int64(s[S_ROBBER_TARGET])
            n_victims = victims_nb(s, topo, p, h, victims)
            if s[S_EXTERNAL + p]:
                return _await_nb(s, D_VICTIM, p)
            victim = np.int64(choose_victim_nb(
                strat[p], params[p], s, topo, rules, rng, work, p, h, victims, n_victims
            ))
            victim_choice_nb(s, topo, rng, log, victims, victim)
        elif ph == PH_PRE_ROLL_DONE:
            s[S_PHASE] = PH_TURN_DONE if check_win_nb(s, rules, log) else PH_ROLL
        elif ph == PH_FREE_ROAD:
            if not free_road_due_nb(s, topo):
                s[S_PHASE] = s[S_DEV_RETURN]
                continue
            if s[S_EXTERNAL + p]:
                return _await_nb(s, D_FREE_ROAD, p)
            e = choose_free_road_nb(strat[p], params[p], s, topo, rules, rng, work, p, mask)
            free_road_choice_nb(s, topo, rules, log, e)
        elif ph == PH_INVENTION:
            if s[S_EXTERNAL + p]:
                return _await_nb(s, D_INVENTION, p)
            choose_invention_nb(strat[p], params[p], s, topo, rules, rng, work, p, bundle)
            invention_choice_nb(s, log, bundle)
        elif ph == PH_MONOPOLY:
            if s[S_EXTERNAL + p]:
                return _await_nb(s, D_MONOPOLY, p)
            r = choose_monopoly_nb(strat[p], params[p], s, topo, rules, rng, work, p)
            monopoly_choice_nb(s, log, r)
        elif ph == PH_SETUP_SETTLEMENT:
            p = setup_seat_nb(s, rules, np.int64(s[S_STEP]))
            s[S_CUR] = p
            i = np.int64(s[S_STEP])
            rnd = 0 if i < s[S_N_PLAYERS] else 1
            node = np.int64(openings[OPENING_WIDTH * p + 2 * rnd])
            if node < 0:
                setup_node_mask_nb(s, topo, rules, openings, mask)
                if s[S_EXTERNAL + p]:
                    return _await_nb(s, D_SETUP_SETTLEMENT, p)
                node = choose_setup_settlement_nb(
                    strat[p], params[p], s, topo, rules, rng, work, p, mask[:N_NODES]
                )
            setup_settlement_choice_nb(s, topo, rules, openings, log, mask, node)
        elif ph == PH_SETUP_ROAD:
            i = np.int64(s[S_STEP])
            rnd = 0 if i < s[S_N_PLAYERS] else 1
            node = np.int64(s[C_START_NODES + 2 * p + rnd])
            edge = np.int64(openings[OPENING_WIDTH * p + 2 * rnd + 1])
            if edge < 0:
                setup_edge_mask_nb(s, topo, rules, openings, mask, node)
                if s[S_EXTERNAL + p]:
                    return _await_nb(s, D_SETUP_ROAD, p)
                edge = choose_setup_road_nb(
                    strat[p], params[p], s, topo, rules, rng, work, p, node, mask
                )
            setup_road_choice_nb(s, topo, rules, openings, log, mask, edge)
        elif ph == PH_FINISH:
            checkpoint_nb(s, topo, rules)
            finish_counters_nb(s)
            s[S_PHASE] = PH_OVER
        else:  # PH_OVER
            return np.int64(D_NONE)


@kernel
def resolve_nb(s, topo, rules, rng, openings, log, act, mask, victims, bundle, value):
    """Apply the choice of the pending external decision: ``value`` (a node, edge,
    card, hex, seat, resource, or 1/0 for an answer), ``act`` for an action (and the
    offer an answer answers) or ``bundle`` for a discard or Invention. The caller
    checked it legal (an illegal one is handled as a strategy's would be). Then
    ``run_nb`` goes on."""
    d = s[S_PENDING]
    s[S_PENDING] = D_NONE
    s[S_PENDING_SEAT] = -1
    if d == D_ACTION:
        action_choice_nb(s, topo, rules, log, act)
    elif d == D_PRE_ROLL:
        pre_roll_choice_nb(s, rules, log, value)
    elif d == D_ANSWER:
        answer_choice_nb(s, log, act, value != 0)
    elif d == D_DISCARD:
        discard_choice_nb(s, log, bundle)
    elif d == D_ROBBER_HEX:
        robber_hex_choice_nb(s, topo, rules, log, mask, victims, value)
    elif d == D_VICTIM:
        victim_choice_nb(s, topo, rng, log, victims, value)
    elif d == D_FREE_ROAD:
        free_road_choice_nb(s, topo, rules, log, value)
    elif d == D_INVENTION:
        invention_choice_nb(s, log, bundle)
    elif d == D_MONOPOLY:
        monopoly_choice_nb(s, log, value)
    elif d == D_SETUP_SETTLEMENT:
        setup_settlement_choice_nb(s, topo, rules, openings, log, mask, value)
    elif d == D_SETUP_ROAD:
        setup_road_choice_nb(s, topo, rules, openings, log, mask, value)


def new_scratch():
    """The scratch arrays ``play_batch_nb`` plays its games in, as one tuple.

    Compiled code never allocates (see ``core.jit``): whoever calls the kernel makes
    these once, and the kernel resets them for every game (zeroed, but for the work
    array's memos, only marked empty, and the fairness-index scratch, zeroed only for
    the balanced layout, the one that reads it). In order: the random
    streams (uint64[N_STREAMS]), the action (int32[ACT_SIZE]), the legal-action list
    (int32[MAX_LEGAL]), the node/edge/hex masks (uint8[N_EDGES]), the robber's victims
    (int32[MAX_PLAYERS]), a bundle of cards (int32[5]), the cards owed per seat by a
    roll (int32[MAX_PLAYERS, 5]), the players' work array (float64[WORK_SIZE]), the
    balanced layout's fairness-index scratch (float64[BOARD_SCRATCH]), the board of
    the game being played (int32[BOARD_SIZE]) and its working copy of the rules
    (int32[N_RULES]: the rule switch writes into it). A game paused at a decision (the step
    interface) keeps its random streams, action, masks and work array here: they are
    part of it.
    """
    return (
        np.zeros(N_STREAMS, dtype=np.uint64),
        np.zeros(ACT_SIZE, dtype=np.int32),
        np.zeros(MAX_LEGAL, dtype=np.int32),
        np.zeros(N_EDGES, dtype=np.uint8),
        np.zeros(MAX_PLAYERS, dtype=np.int32),
        np.zeros(5, dtype=np.int32),
        np.zeros((MAX_PLAYERS, 5), dtype=np.int32),
        np.zeros(WORK_SIZE, dtype=np.float64),
        np.zeros(BOARD_SCRATCH, dtype=np.float64),
        np.zeros(BOARD_SIZE, dtype=np.int32),
        np.zeros(N_RULES, dtype=np.int32),
    )


@inline_kernel
def start_game_nb(seed, n_players, layout, board, openings, topo, rules, s, rng, act, cand,
                  mask, victims, bundle, owed, work, board_x):
    """Set up the game of ``seed`` in ``s`` with the scratch arrays given (reset here,
    see ``new_scratch``): its random streams, its board (dealt unless the layout is
    given) and its deck; the first placement is next. Keeps ``s``'s log switch and
    external seats."""
    log_on = s[S_LOG_ON]
    external = 0
    for q in range(MAX_PLAYERS):
        external |= np.int64(s[S_EXTERNAL + q] != 0) << q
    seed_streams_nb(seed, rng)
    if layout == LAYOUT_BALANCED:
        for i in range(board_x.size):
            board_x[i] = 0.0  # the fairness index: fresh for each game (only it reads board_x)
    if layout != LAYOUT_GIVEN:
        generate_board_nb(layout, rng, topo, board, board_x)
    init_state_nb(s, topo, rules, rng, n_players, board)
    s[S_LOG_ON] = log_on
    for q in range(MAX_PLAYERS):
        s[S_EXTERNAL + q] = (external >> q) & 1
    # Explicit loops: a slice assignment compiles a helper of its own for each array type.
    for i in range(ACT_SIZE):
        act[i] = 0
    for i in range(MAX_LEGAL):
        cand[i] = 0
    for i in range(N_EDGES):
        mask[i] = 0
    for i in range(MAX_PLAYERS):
        victims[i] = 0
        for r in range(5):
            owed[i, r] = 0
    for r in range(5):
        bundle[r] = 0
    reset_work_nb(work)


@nb.njit(cache=True, nogil=True, _nrt=False)
def play_batch_nb(seeds, n_players, layout, board, openings, topo, rules, strat, params,
                  counters_out, boards_out, s, log, scratch):
    """Play ``len(seeds)`` games one after another (the GIL released: callers run several
    batches on threads, as ``engine.play_batch`` does).

    Parameters
    ----------
    seeds : int64[n]
        The games' seeds (0 <= seed < 2**63); every random stream of game ``g`` derives
        from ``seeds[g]``, so a game is the same in any batch and on any thread.
    n_players : int
        3 or 4.
    layout : int
        ``LAYOUT_GIVEN`` to play on ``board``; another layout code deals each game's
        board from its board stream.
    board : int32[BOARD_SIZE]
    openings : int32[16]
        Forced openings (node1, edge1, node2, edge2) per seat, -1 for free choice.
    topo, rules : int32 arrays
        ``catansim.topology.TOPO`` and ``Rules.to_array()`` (read only: each game plays
        on a copy, in ``scratch``).
    strat : int32[4]
        Strategy id of each seat.
    params : float64[4, N_PARAMS]
        Parameter row of each seat's strategy.
    counters_out : int32[n, N_COUNTERS]
        Row ``g`` receives the counters section of game ``g``'s final state.
    boards_out : int32[n, BOARD_SIZE]
        Row ``g`` receives the board game ``g`` was played on.
    s : int32[STATE_SIZE]
        Holds each game's state in turn and keeps the last one; with ``s[S_LOG_ON] = 1``
        set by the caller the games record their events into ``log`` (int32[max_events,
        LOG_WIDTH], each game from row 0: log one game at a time). Its external seats
        must be 0: every decision is made here.
    scratch : tuple
        ``new_scratch()``: the arrays the games are played in.
    """
    rng, act, cand, mask, victims, bundle, owed, work, board_x, b, game_rules = scratch
    for q in range(MAX_PLAYERS):
        s[S_EXTERNAL + q] = 0
    for g in range(seeds.shape[0]):
        for i in range(BOARD_SIZE):
            b[i] = board[i]
        for i in range(N_RULES):
            game_rules[i] = rules[i]
        start_game_nb(seeds[g], n_players, layout, b, openings, topo, game_rules, s, rng,
                      act, cand, mask, victims, bundle, owed, work, board_x)
        run_nb(s, topo, game_rules, rng, strat, params, openings, log, act, cand, mask,
               victims, bundle, owed, work, -1)
        for i in range(N_COUNTERS):
            counters_out[g, i] = s[S_COUNTERS + i]
        for i in range(BOARD_SIZE):
            boards_out[g, i] = b[i]


# --- the step interface's entry points (catansim.game) ------------------------------------


@nb.njit(cache=True, _nrt=False)
def step_start_nb(seed, n_players, layout, board, openings, topo, rules, s, rng, act, cand,
                  mask, victims, bundle, owed, work, board_x):
    """Set up the game of ``seed`` (``board`` is dealt into unless the layout is given):
    the first placement is next (``step_run_nb`` or ``step_to_turn_nb`` plays on)."""
    start_game_nb(seed, n_players, layout, board, openings, topo, rules, s, rng, act, cand,
                  mask, victims, bundle, owed, work, board_x)


@nb.njit(cache=True, _nrt=False)
def step_resolve_nb(s, topo, rules, rng, strat, params, openings, log, act, cand, mask, victims,
                    bundle, owed, work, value):
    """Apply the pending decision's choice (``resolve_nb``) and play on to the next
    decision of an external seat; returns it (or ``D_NONE``)."""
    resolve_nb(s, topo, rules, rng, openings, log, act, mask, victims, bundle, value)
    return run_nb(s, topo, rules, rng, strat, params, openings, log, act, cand, mask, victims,
                  bundle, owed, work, -1)


@nb.njit(cache=True, _nrt=False)
def step_suggest_nb(s, topo, rules, rng, strat, params, work, act, cand, mask, victims, bundle):
    """What the compiled strategy ``strat[q]`` of the pending seat q chooses for the
    pending decision: returned as a value, or written to ``act`` (an action) or
    ``bundle`` (a discard, Invention). It draws from q's own random stream, as the
    batch kernel would."""
    d = s[S_PENDING]
    q = np.int64(s[S_PENDING_SEAT])
    sid = strat[q]
    prm = params[q]
    if d == D_ACTION:
        choose_action_nb(sid, prm, s, topo, rules, rng, work, q, act, cand)
    elif d == D_PRE_ROLL:
        return np.int64(choose_pre_roll_nb(sid, prm, s, topo, rules, rng, work, q))
    elif d == D_ANSWER:
        p = np.int64(s[S_CUR])
        return np.int64(1 if accept_trade_nb(sid, prm, s, topo, rules, rng, work, q, p, act)
                        else 0)
    elif d == D_DISCARD:
        choose_discard_nb(sid, prm, s, topo, rules, rng, work, q, hand_size_nb(s, q) // 2,
                          bundle)
    elif d == D_ROBBER_HEX:
        return np.int64(choose_robber_hex_nb(sid, prm, s, topo, rules, rng, work, q,
                                             mask[:N_HEXES]))
    elif d == D_VICTIM:
        h = np.int64(s[S_ROBBER_TARGET])
        n_victims = victims_nb(s, topo, q, h, victims)
        return np.int64(choose_victim_nb(sid, prm, s, topo, rules, rng, work, q, h, victims,
                                         n_victims))
    elif d == D_FREE_ROAD:
        return np.int64(choose_free_road_nb(sid, prm, s, topo, rules, rng, work, q, mask))
    elif d == D_INVENTION:
        choose_invention_nb(sid, prm, s, topo, rules, rng, work, q, bundle)
    elif d == D_MONOPOLY:
        return np.int64(choose_monopoly_nb(sid, prm, s, topo, rules, rng, work, q))
    elif d == D_SETUP_SETTLEMENT:
        return np.int64(choose_setup_settlement_nb(sid, prm, s, topo, rules, rng, work, q,
                                                   mask[:N_NODES]))
    elif d == D_SETUP_ROAD:
        i = np.int64(s[S_STEP])
        node = np.int64(s[C_START_NODES + 2 * q + (0 if i < s[S_N_PLAYERS] else 1)])
        return np.int64(choose_setup_road_nb(sid, prm, s, topo, rules, rng, work, q, node,
                                             mask))
    return np.int64(0)


@nb.njit(cache=True, _nrt=False)
def step_options_nb(s, topo, rules, mask, victims, out):
    """The legal choices of the pending decision into ``out`` (int32[MAX_LEGAL]); returns
    how many. Nodes, edges, hexes, seats or resources; for the card before the roll -1
    (roll) and the playable cards; for an answer 1 (accept) and 0 (refuse); for an
    action the packed codes of ``legal_actions_nb`` (player trades one card for one);
    for a discard or Invention the number of cards due, and nothing else."""
    d = s[S_PENDING]
    q = np.int64(s[S_PENDING_SEAT])
    n = 0
    if d == D_ACTION:
        return np.int64(legal_actions_nb(s, topo, rules, q, out))
    if d == D_PRE_ROLL:
        out[0] = -1
        n = 1
        for card in range(5):
            if can_play_dev_nb(s, q, card):
                out[n] = card
                n += 1
    elif d == D_ANSWER:
        out[0] = 1
        out[1] = 0
        n = 2
    elif d == D_DISCARD:
        out[0] = hand_size_nb(s, q) // 2
        n = 1
    elif d == D_INVENTION:
        out[0] = invention_cards_nb(s)
        n = 1
    elif d == D_MONOPOLY:
        for r in range(5):
            out[r] = r
        n = 5
    elif d == D_VICTIM:
        h = np.int64(s[S_ROBBER_TARGET])
        n = victims_nb(s, topo, q, h, victims)
        for i in range(n):
            out[i] = victims[i]
    elif d == D_FREE_ROAD:
        for e in range(N_EDGES):
            if can_place_road_nb(s, topo, q, e):
                out[n] = e
                n += 1
    else:  # setup settlement (nodes), setup road (edges), robber hex (hexes): the mask
        size = N_NODES if d == D_SETUP_SETTLEMENT else N_EDGES if d == D_SETUP_ROAD else N_HEXES
        for i in range(size):
            if mask[i]:
                out[n] = i
                n += 1
    return np.int64(n)


@nb.njit(cache=True, _nrt=False)
def step_to_turn_nb(s, topo, rules, rng, strat, params, openings, log, act, cand, mask,
                    victims, bundle, owed, work, turn):
    """Play on until turn ``turn`` is over (the game then waits at ``PH_TURN_DONE``:
    returns ``D_UNTIL``), a decision of an external seat is pending (returns it) or the
    game is over (``D_NONE``). ``run_nb(..., -1)`` goes on from the wait."""
    while True:
        d = run_nb(s, topo, rules, rng, strat, params, openings, log, act, cand, mask, victims,
                   bundle, owed, work, PH_TURN_DONE)
        if d != D_UNTIL or s[S_TURN] >= turn:
            return d
        turn_done_nb(s, rules, log)


@nb.njit(cache=True, _nrt=False)
def step_run_nb(s, topo, rules, rng, strat, params, openings, log, act, cand, mask, victims,
                bundle, owed, work):
    """Play on from where the game waits to the next external decision or the end."""
    return run_nb(s, topo, rules, rng, strat, params, openings, log, act, cand, mask, victims,
                  bundle, owed, work, -1)


# --- many games in lockstep (catansim.game.GameBatch) ------------------------------------


@kernel
def bundle_option_nb(s, at, total, index, out):
    """The bundles of ``total`` cards with at most ``s[at + r]`` of resource r, in the
    order of their counts (wood first, then brick, ...): with ``index`` >= 0 write the
    index-th to ``out`` (int32[5]); return how many there are (up to the index-th)."""
    n = 0
    for a in range(min(total, s[at]) + 1):
        for b in range(min(total - a, s[at + 1]) + 1):
            for c in range(min(total - a - b, s[at + 2]) + 1):
                for d in range(min(total - a - b - c, s[at + 3]) + 1):
                    e = total - a - b - c - d
                    if e <= s[at + 4]:
                        if n == index:
                            out[0] = a
                            out[1] = b
                            out[2] = c
                            out[3] = d
                            out[4] = e
                            return n + 1
                        n += 1
    return n


@kernel
def option_count_nb(s, topo, rules, mask, victims, cand):
    """How many options the pending decision has (0 once the game is over or waits);
    ``cand`` receives ``step_options_nb``'s list."""
    d = s[S_PENDING]
    if d == D_NONE:
        return np.int64(0)
    k = step_options_nb(s, topo, rules, mask, victims, cand)
    q = np.int64(s[S_PENDING_SEAT])
    if d == D_DISCARD:
        return np.int64(bundle_option_nb(s, S_HAND + 5 * q, cand[0], -1, cand[1:6]))
    if d == D_INVENTION:
        return np.int64(bundle_option_nb(s, S_BANK, cand[0], -1, cand[1:6]))
    return k


@nb.njit(cache=True, nogil=True, _nrt=False)
def batch_start_nb(seeds, n_players, layout, board, openings, topo, rules, strat, params,
                   states, log, rngs, acts, cands, masks, victims, bundles, owed, works,
                   board_x, boards, counts):
    """Set up game ``g`` of ``seeds`` in row g of each array (``states`` rows keep their
    external seats; ``rules`` rows are the games' working rules, int32[n, N_RULES])
    and play it to its first external decision; ``counts[g]`` receives its number of
    options (0: over)."""
    for g in range(seeds.shape[0]):
        for i in range(BOARD_SIZE):
            boards[g, i] = board[i]
        s = states[g]
        start_game_nb(seeds[g], n_players, layout, boards[g], openings, topo, rules[g], s,
                      rngs[g], acts[g], cands[g], masks[g], victims[g], bundles[g], owed[g],
                      works[g], board_x)
        run_nb(s, topo, rules[g], rngs[g], strat, params, openings, log, acts[g], cands[g],
               masks[g], victims[g], bundles[g], owed[g], works[g], -1)
        counts[g] = option_count_nb(s, topo, rules[g], masks[g], victims[g], cands[g])


@nb.njit(cache=True, nogil=True, _nrt=False)
def batch_choose_nb(choice, topo, rules, strat, params, openings, states, log, rngs, acts,
                    cands, masks, victims, bundles, owed, works, counts):
    """For each game g with a pending decision and ``choice[g]`` >= 0, take its option
    ``choice[g]`` (an index into the options ``Game.legal()`` lists, in the same
    order) and play on to its next external decision; ``counts[g]`` receives that
    decision's number of options (0: over). ``rules`` rows are the games' working
    rules (int32[n, N_RULES])."""
    for g in range(choice.shape[0]):
        s = states[g]
        game_rules = rules[g]
        i = choice[g]
        if i < 0 or s[S_PENDING] == D_NONE:
            continue
        cand = cands[g]
        d = s[S_PENDING]
        q = np.int64(s[S_PENDING_SEAT])
        step_options_nb(s, topo, game_rules, masks[g], victims[g], cand)
        value = np.int64(0)
        if d == D_ACTION:
            unpack_nb(cand[i], acts[g])
        elif d == D_DISCARD:
            bundle_option_nb(s, S_HAND + 5 * q, cand[0], i, bundles[g])
        elif d == D_INVENTION:
            bundle_option_nb(s, S_BANK, cand[0], i, bundles[g])
        else:
            value = np.int64(cand[i])
        resolve_nb(s, topo, game_rules, rngs[g], openings, log, acts[g], masks[g],
                   victims[g], bundles[g], value)
        run_nb(s, topo, game_rules, rngs[g], strat, params, openings, log, acts[g], cand,
               masks[g], victims[g], bundles[g], owed[g], works[g], -1)
        counts[g] = option_count_nb(s, topo, game_rules, masks[g], victims[g], cand)
