"""The phases of a turn: each choice applied, and what follows it.

These only accept NumPy arrays and scalars. Each ``*_choice_nb`` applies one decision
(already made by a seat) to the state and sets the next phase: the card before the
roll, the roll (``roll_nb``: production, or a 7 with its discards and the robber), an
action (``action_choice_nb``, ``build_action_nb``), a partner's answer, the robber's
hex and victim, and the development cards' effects (``start_dev_nb``). The end of a
turn (``turn_done_nb``: the VP checkpoints, the rule switch, the turn cap) and of the
game (``check_win_nb``, ``end_game_nb``, ``finish_counters_nb``) are here too.
``loop_nb.run_nb`` runs them in order.
"""

import numpy as np

from ..constants import (
    BUILD_DEV_CARD,
    CITIES_PER_PLAYER,
    INVENTION,
    KNIGHT,
    MONOPOLY,
    N_EDGES,
    N_HEXES,
    ROAD_BUILDING,
    ROADS_PER_PLAYER,
    SETTLEMENTS_PER_PLAYER,
    VICTORY_POINT,
)
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
    can_play_dev_nb,
    is_legal_action_nb,
)
from .checker_nb import first_set_nb, illegal_array_nb, illegal_nb
from .jit import kernel, typed_kernel
from .layout import (
    C_ARMY_HOLDER,
    C_DEV_BOUGHT,
    C_DEV_PLAYED,
    C_END_REASON,
    C_KNIGHTS,
    C_LONGEST_HOLDER,
    C_MONOPOLY_GAIN,
    C_OFFERS,
    C_ROADS,
    C_ROLLS,
    C_ROUTE_LEN,
    C_SEVENS,
    C_TRADES_BANK,
    C_TRADES_PLAYER,
    C_TURNS,
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
    D_VICTIM,
    END_RUNNING,
    END_TURN_LIMIT,
    END_WIN,
    EV_BUY_DEV,
    EV_GAME_END,
    EV_PLAY_DEV,
    EV_ROLL,
    EV_TRADE_BANK,
    EV_TRADE_PLAYER,
    LOG_B,
    LOG_BANK_GET,
    LOG_CARDS,
    LOG_FINAL_VP,
    LOG_GET,
    LOG_GIVE,
    LOG_INVENTION,
    LOG_TAKEN,
    N_VP_CHECKPOINTS,
    PH_ACTION_DONE,
    PH_AFTER_ROLL,
    PH_ANSWER,
    PH_DISCARD,
    PH_FINISH,
    PH_FREE_ROAD,
    PH_INVENTION,
    PH_MONOPOLY,
    PH_PRE_ROLL_DONE,
    PH_ROBBER_HEX,
    PH_ROLL,
    PH_TURN_END,
    PH_TURN_START,
    PH_VICTIM,
    R_AFTER,
    R_DISCARD_LIMIT,
    R_MAX_TURNS,
    R_ROBBER,
    R_SWITCH_TURN,
    R_VP_TO_WIN,
    ROBBER_OFF,
    S_ARMY,
    S_BANK,
    S_CITIES_LEFT,
    S_CUR,
    S_DECK,
    S_DECK_POS,
    S_DEV_EVENT,
    S_DEV_HAND,
    S_DEV_NEW,
    S_DEV_PLAYED,
    S_DEV_RETURN,
    S_END,
    S_HAND,
    S_ILLEGAL_VALUE,
    S_KNIGHTS,
    S_LONGEST,
    S_N_PLAYERS,
    S_OFFERS,
    S_PHASE,
    S_ROADS_LEFT,
    S_ROBBER_RETURN,
    S_ROBBER_TARGET,
    S_ROUTE_LEN,
    S_SETTLEMENTS_LEFT,
    S_STEP,
    S_TURN,
    S_VP_CHECKPOINT,
    S_WINNER,
    VP_CHECKPOINTS,
)
from .record_nb import seen_clear_nb, seen_remove_nb
from .rng_nb import STREAM_CHANCE, STREAM_DICE, randint_nb, uniform_nb
from .rules_nb import (
    build_city_nb,
    build_road_nb,
    build_settlement_nb,
    can_place_road_nb,
    discard_nb,
    hand_size_nb,
    invention_cards_nb,
    log_event_nb,
    maritime_rate_nb,
    move_robber_nb,
    pay_nb,
    produce_nb,
    random_card_nb,
    robber_for_rules_nb,
    update_largest_army_nb,
    victims_nb,
    visible_vp_nb,
    vp_nb,
)

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
        h = first_set_nb(mask[:N_HEXES])
    if victims_nb(s, topo, p, h, victims) > 0:
        s[S_ROBBER_TARGET] = h
        s[S_PHASE] = PH_VICTIM
        return
    # no victim, no card: -1s typed int64 as in victim_choice_nb's call (literal -1s
    # would have Numba compile move_robber_nb a second time, for them)
    move_robber_nb(s, log, p, h, np.int64(-1), np.int64(-1))
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
