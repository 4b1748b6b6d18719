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
    D_DISCARD,
    D_FREE_ROAD,
    D_INVENTION,
    D_MONOPOLY,
    D_PRE_ROLL,
    D_ROBBER_HEX,
    D_SETUP_ROAD,
    D_SETUP_SETTLEMENT,
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
    N_VP_CHECKPOINTS,
    NET_WORD_BITS,
    OPENING_WIDTH,
    R_BANK,
    R_CHECK,
    R_DISCARD_LIMIT,
    R_FIRST_PICK,
    R_FIRST_TURN,
    R_MAX_ACTIONS,
    R_MAX_TURNS,
    R_ROBBER,
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
    S_DEV_HAND,
    S_DEV_NEW,
    S_DEV_PLAYED,
    S_EDGE_OWNER,
    S_END,
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
    S_NODE_LEVEL,
    S_NODE_OPEN,
    S_NODE_OWNER,
    S_OFFERS,
    S_OPEN_SPOTS,
    S_OWN_HEXES,
    S_PROD_PIPS,
    S_ROADS_LEFT,
    S_ROLLED,
    S_ROUTE_LEN,
    S_SEEN_ABOVE,
    S_SEEN_BELOW,
    S_SETTLEMENTS_LEFT,
    S_TURN,
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
def setup_nb(s, topo, rules, rng, strat, params, openings, log, mask, work):
    """Snake-order setup: settlement then road, twice; the second settlement pays.

    ``mask`` (uint8[72]) is scratch: the legal nodes, then the legal edges.
    """
    n = np.int64(s[S_N_PLAYERS])
    node_mask = mask[:N_NODES]
    edge_mask = mask
    placed = np.int64(0)  # bit i: opening slot i (2 * seat + round) is placed
    forced = False  # any forced opening: only then may a node or edge be reserved
    for i in range(MAX_PLAYERS * 2):
        if openings[2 * i] >= 0 or openings[2 * i + 1] >= 0:
            forced = True
    first = np.int64(rules[R_FIRST_PICK])
    for i in range(2 * n):
        rnd = 0 if i < n else 1
        p = first + (i if i < n else 2 * n - 1 - i)
        p = p - n if p >= n else p
        s[S_CUR] = p
        slot = 2 * p + rnd
        node = openings[OPENING_WIDTH * p + 2 * rnd]
        if node < 0:
            for m in range(N_NODES):
                node_mask[m] = (
                    1
                    if distance_ok_nb(s, m)
                    and not (forced and _reserved_node_nb(topo, openings, placed, m))
                    else 0
                )
            node = choose_setup_settlement_nb(
                strat[p], params[p], s, topo, rules, rng, work, p, node_mask
            )
            if node < 0 or node >= N_NODES or node_mask[node] == 0:
                illegal_nb(s, p, D_SETUP_SETTLEMENT, node)
                node = _first_set_nb(node_mask)
        placed |= 1 << slot
        put_settlement_nb(s, topo, p, node)
        s[C_START_NODES + slot] = node
        s[C_START_PIPS + slot] = node_pips_nb(s, topo, node)
        log_event_nb(s, log, EV_SETUP_SETTLEMENT, p, node, 0, 0)
        edge = openings[OPENING_WIDTH * p + 2 * rnd + 1]
        if edge < 0:
            # Only the empty edges at ``node`` pass ``setup_road_ok_nb``.
            for e in range(N_EDGES):
                edge_mask[e] = 0
            for k in range(3):
                e = topo[T_NODE_EDGES + 3 * node + k]
                if e >= 0 and setup_road_ok_nb(s, topo, e, node):
                    if not (forced and _reserved_edge_nb(openings, placed, e)):
                        edge_mask[e] = 1
            edge = choose_setup_road_nb(
                strat[p], params[p], s, topo, rules, rng, work, p, node, edge_mask
            )
            if edge < 0 or edge >= N_EDGES or edge_mask[edge] == 0:
                illegal_nb(s, p, D_SETUP_ROAD, edge)
                edge = _first_set_nb(edge_mask)
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
    for p in range(n):
        s[S_ROUTE_LEN + p] = route_length_nb(s, topo, p)
    checkpoint_nb(s, topo, rules)


# --- invariants ------------------------------------------------------------------------


@kernel
def count_violations_nb(s, topo, rules):
    """Count broken state invariants (0 for a legal state). Used with rules ``check=1``.

    Conservation of every resource (supply + hands = supply size) and of the 25
    development cards; no negative hands or supply; piece counts within limits and
    equal to the pieces on the board; stored route lengths and the fields derived from
    the pieces (``node_open``, ``node_roads``, ``open_spots``, ``net_nodes``,
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
def robber_step_nb(s, topo, rules, rng, strat, params, log, p, hex_mask, victims, work):
    """The player moves the robber (to a legal hex) and steals one random card."""
    robber_hex_mask_nb(s, topo, rules, hex_mask)
    h = choose_robber_hex_nb(strat[p], params[p], s, topo, rules, rng, work, p, hex_mask)
    if h < 0 or h >= N_HEXES or hex_mask[h] == 0:
        illegal_nb(s, p, D_ROBBER_HEX, h)
        h = _first_set_nb(hex_mask)
    n_victims = victims_nb(s, topo, p, h, victims)
    victim = -1
    stolen = -1
    if n_victims > 0:
        victim = np.int64(choose_victim_nb(
            strat[p], params[p], s, topo, rules, rng, work, p, h, victims, n_victims
        ))
        ok = False
        for i in range(n_victims):
            if victims[i] == victim:
                ok = True
        if not ok:
            illegal_nb(s, p, D_VICTIM, victim)
            victim = victims[0]
        if hand_size_nb(s, victim) > 0:
            stolen = random_card_nb(s, victim, uniform_nb(rng, STREAM_CHANCE))
    move_robber_nb(s, log, p, h, victim, stolen)


@kernel
def seven_nb(s, topo, rules, rng, strat, params, log, hex_mask, victims, bundle, work):
    """A rolled 7: discards in seat order, then the roller moves the robber."""
    limit = rules[R_DISCARD_LIMIT]
    if limit >= 0:
        for q in range(np.int64(s[S_N_PLAYERS])):
            size = hand_size_nb(s, q)
            if size > limit:
                k = size // 2
                choose_discard_nb(strat[q], params[q], s, topo, rules, rng, work, q, k, bundle)
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
    if rules[R_ROBBER] != ROBBER_OFF:
        robber_step_nb(s, topo, rules, rng, strat, params, log, np.int64(s[S_CUR]), hex_mask,
                       victims, work)


# --- development cards ------------------------------------------------------------------


@kernel
def play_dev_nb(s, topo, rules, rng, strat, params, log, p, card, mask, victims, bundle, work):
    """Play a development card (already checked playable) with its effect.

    ``mask`` (uint8[72]) is scratch: the robber's hex mask for a knight, the edge
    mask for Road Building.
    """
    s[S_DEV_HAND + 5 * p + card] -= 1
    s[S_DEV_PLAYED] = 1
    s[C_DEV_PLAYED + 5 * p + card] += 1
    ev = log_event_nb(s, log, EV_PLAY_DEV, p, card, 0, 0)
    if card == KNIGHT:
        s[S_KNIGHTS + p] += 1
        update_largest_army_nb(s, log, p)
        if check_win_nb(s, rules, log):
            return
        if rules[R_ROBBER] != ROBBER_OFF:
            robber_step_nb(
                s, topo, rules, rng, strat, params, log, p, mask[:N_HEXES], victims, work
            )
    elif card == ROAD_BUILDING:
        for _ in range(2):
            if s[S_ROADS_LEFT + p] <= 0:
                break
            e = choose_free_road_nb(strat[p], params[p], s, topo, rules, rng, work, p, mask)
            if e < 0:
                # No road is allowed only when none is legal (the card builds two).
                for e2 in range(N_EDGES):
                    if can_place_road_nb(s, topo, p, e2):
                        illegal_nb(s, p, D_FREE_ROAD, e)
                        break
                break
            if e >= N_EDGES or not can_place_road_nb(s, topo, p, e):
                illegal_nb(s, p, D_FREE_ROAD, e)
                break
            build_road_nb(s, topo, log, p, e, True)
            if check_win_nb(s, rules, log):
                return
    elif card == INVENTION:
        choose_invention_nb(strat[p], params[p], s, topo, rules, rng, work, p, bundle)
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
    elif card == MONOPOLY:
        r = choose_monopoly_nb(strat[p], params[p], s, topo, rules, rng, work, p)
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


# --- a turn ------------------------------------------------------------------------------


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
def trade_player_nb(s, topo, rules, rng, strat, params, log, p, act, work):
    """Offer a legal player trade: the partner ``act[ACT_A]`` accepts or refuses it."""
    q = np.int64(act[ACT_A])
    s[S_OFFERS] += 1
    s[C_OFFERS + p] += 1
    can_pay = True
    for r in range(5):
        if s[S_HAND + 5 * q + r] < act[ACT_RECEIVE + r]:
            can_pay = False
    if can_pay and accept_trade_nb(strat[q], params[q], s, topo, rules, rng, work, q, p, act):
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


@inline_kernel
def apply_action_nb(
    s, topo, rules, rng, strat, params, log, p, act, scratch_u8, victims, bundle, work
):
    """Apply a legal action-phase action of the player whose turn it is.

    Inlined into the turn: each kind goes to a kernel that takes only the arrays it
    needs (a call passes each array as seven machine words, and this one had eleven
    arrays on 86 calls a game; ``docs/benchmarks.md``, eighth round).
    """
    kind = act[ACT_KIND]
    if kind == ACT_PLAY_DEV:
        play_dev_nb(s, topo, rules, rng, strat, params, log, p, np.int64(act[ACT_A]), scratch_u8,
                    victims, bundle, work)
    elif kind == ACT_TRADE_PLAYER:
        trade_player_nb(s, topo, rules, rng, strat, params, log, p, act, work)
    elif kind != ACT_END:
        build_action_nb(s, topo, log, p, act)


@inline_kernel
def play_turn_nb(
    s, topo, rules, rng, strat, params, log, act, cand, scratch_u8, victims, bundle, owed, work
):
    """One full turn of the player ``s[S_CUR]``; the game may end inside it.

    Inlined into the batch loop (its only caller in compiled code): a compiled kernel's
    machine code holds all its callees, so a separate turn kernel made the cold compile
    lower nearly the whole game twice, once for the turn and once for the batch loop.
    """
    p = np.int64(s[S_CUR])
    s[S_DEV_PLAYED] = 0
    s[S_ROLLED] = 0
    s[S_OFFERS] = 0
    s[S_ACTIONS] = 0
    log_event_nb(s, log, EV_TURN_START, p, s[S_TURN], 0, 0)
    if check_win_nb(s, rules, log):
        return
    # Before the roll: at most one development card.
    card = choose_pre_roll_nb(strat[p], params[p], s, topo, rules, rng, work, p)
    if card != -1:
        if can_play_dev_nb(s, p, card):
            play_dev_nb(
                s, topo, rules, rng, strat, params, log, p, card, scratch_u8, victims, bundle, work
            )
            if check_win_nb(s, rules, log):
                return
        else:
            illegal_nb(s, p, D_PRE_ROLL, card)
    d1 = 1 + randint_nb(rng, STREAM_DICE, 6)
    d2 = 1 + randint_nb(rng, STREAM_DICE, 6)
    roll = d1 + d2
    log_event_nb(s, log, EV_ROLL, p, d1, d2, 0)
    s[C_ROLLS + roll - 2] += 1
    if roll == 7:
        s[C_SEVENS] += 1
        seven_nb(
            s, topo, rules, rng, strat, params, log, scratch_u8[:N_HEXES], victims, bundle, work
        )
    else:
        produce_nb(s, topo, rules, log, roll, owed)
    s[S_ROLLED] = 1
    checkpoint_nb(s, topo, rules)
    max_actions = rules[R_MAX_ACTIONS]
    while s[S_ACTIONS] < max_actions:
        s[S_ACTIONS] += 1
        choose_action_nb(strat[p], params[p], s, topo, rules, rng, work, p, act, cand)
        if act[ACT_KIND] == ACT_END:
            break
        if not is_legal_action_nb(s, topo, rules, p, act):
            illegal_array_nb(s, p, D_ACTION, act, ACT_SIZE)
            break
        apply_action_nb(
            s, topo, rules, rng, strat, params, log, p, act, scratch_u8, victims, bundle, work
        )
        over = check_win_nb(s, rules, log)
        checkpoint_nb(s, topo, rules)
        if over:
            return
    for k in range(5):
        s[S_DEV_NEW + 5 * p + k] = 0
    log_event_nb(s, log, EV_TURN_END, p, 0, 0, 0)


def new_scratch():
    """The scratch arrays ``play_batch_nb`` plays its games in, as one tuple.

    Compiled code never allocates (see ``core.jit``): whoever calls the kernel makes
    these once, and the kernel zeroes them for every game. In order: the random
    streams (uint64[N_STREAMS]), the action (int32[ACT_SIZE]), the legal-action list
    (int32[MAX_LEGAL]), the node/edge/hex masks (uint8[N_EDGES]), the robber's victims
    (int32[MAX_PLAYERS]), a bundle of cards (int32[5]), the cards owed per seat by a
    roll (int32[MAX_PLAYERS, 5]), the players' work array (float64[WORK_SIZE]), the
    balanced layout's fairness-index scratch (float64[BOARD_SCRATCH]) and the board of
    the game being played (int32[BOARD_SIZE]).
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
    )


@inline_kernel
def _game_nb(seed, n_players, layout, board, openings, topo, rules, strat, params, s, log, rng,
             act, cand, scratch_u8, victims, bundle, owed, work, board_x):
    """Play one complete game into ``s`` with the scratch arrays given (zeroed here)."""
    log_on = s[S_LOG_ON]
    seed_streams_nb(seed, rng)
    if layout != LAYOUT_GIVEN:
        for i in range(board_x.size):
            board_x[i] = 0.0  # the balanced layout's fairness index: fresh for each game
        generate_board_nb(layout, rng, topo, board, board_x)
    init_state_nb(s, topo, rules, rng, n_players, board)
    s[S_LOG_ON] = log_on
    # Explicit loops: a slice assignment compiles a helper of its own for each array type.
    for i in range(ACT_SIZE):
        act[i] = 0
    for i in range(MAX_LEGAL):
        cand[i] = 0
    for i in range(N_EDGES):
        scratch_u8[i] = 0
    for i in range(MAX_PLAYERS):
        victims[i] = 0
        for r in range(5):
            owed[i, r] = 0
    for r in range(5):
        bundle[r] = 0
    for i in range(WORK_SIZE):
        work[i] = 0.0
    setup_nb(s, topo, rules, rng, strat, params, openings, log, scratch_u8, work)
    max_turns = rules[R_MAX_TURNS]
    p = rules[R_FIRST_TURN]
    turn = 1
    checkpoint = 0  # index of the next turn in VP_CHECKPOINTS
    while True:
        s[S_TURN] = turn
        s[S_CUR] = p
        play_turn_nb(
            s, topo, rules, rng, strat, params, log, act, cand, scratch_u8, victims, bundle, owed,
            work,
        )
        if checkpoint < N_VP_CHECKPOINTS and turn == VP_CHECKPOINTS[checkpoint]:
            record_vp_nb(s, checkpoint)
            checkpoint += 1
        if s[S_END] != END_RUNNING:
            break
        if turn >= max_turns:
            end_game_nb(s, log, -1, END_TURN_LIMIT)
            break
        turn += 1
        p += 1  # the next seat, without a division (n_players >= 3; p < n_players)
        p = 0 if p == n_players else p
    checkpoint_nb(s, topo, rules)
    finish_counters_nb(s)


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
        ``catansim.topology.TOPO`` and ``Rules.to_array()``.
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
        LOG_WIDTH], each game from row 0: log one game at a time).
    scratch : tuple
        ``new_scratch()``: the arrays the games are played in.
    """
    rng, act, cand, scratch_u8, victims, bundle, owed, work, board_x, b = scratch
    log_on = s[S_LOG_ON]
    for g in range(seeds.shape[0]):
        s[S_LOG_ON] = log_on
        for i in range(BOARD_SIZE):
            b[i] = board[i]
        _game_nb(seeds[g], n_players, layout, b, openings, topo, rules, strat, params, s, log,
                 rng, act, cand, scratch_u8, victims, bundle, owed, work, board_x)
        for i in range(N_COUNTERS):
            counters_out[g, i] = s[S_COUNTERS + i]
        for i in range(BOARD_SIZE):
            boards_out[g, i] = b[i]
