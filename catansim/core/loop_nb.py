"""The game loop: one resumable loop for the batch, the step interface, fork and replay.

These only accept NumPy arrays and scalars. ``run_nb`` plays a game from the phase it
stands in, asking each seat's compiled strategy (``policy_nb``) for its decisions,
until a decision of an external seat is pending (the step interface), a phase asked
for is next, or the game is over; ``resolve_nb`` applies an external seat's choice,
and ``run_nb`` goes on.
"""

import numpy as np

from ..constants import N_HEXES, N_NODES
from .actions_nb import ACT_A
from .checker_nb import checkpoint_nb
from .jit import inline_kernel, kernel
from .layout import (
    C_START_NODES,
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
    EV_TURN_END,
    EV_TURN_START,
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
    R_MAX_ACTIONS,
    R_ROBBER,
    ROBBER_OFF,
    S_ACTIONS,
    S_CUR,
    S_DEV_NEW,
    S_DEV_PLAYED,
    S_DEV_RETURN,
    S_EXTERNAL,
    S_N_PLAYERS,
    S_OFFERS,
    S_PENDING,
    S_PENDING_SEAT,
    S_PHASE,
    S_ROBBER_RETURN,
    S_ROBBER_TARGET,
    S_ROLLED,
    S_STEP,
    S_TURN,
)
from .phases_nb import (
    action_choice_nb,
    answer_choice_nb,
    check_win_nb,
    discard_choice_nb,
    finish_counters_nb,
    free_road_choice_nb,
    free_road_due_nb,
    invention_choice_nb,
    monopoly_choice_nb,
    next_discard_nb,
    pre_roll_choice_nb,
    robber_hex_choice_nb,
    roll_nb,
    turn_done_nb,
    victim_choice_nb,
)
from .policy_nb import (
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
from .rules_nb import hand_size_nb, log_event_nb, robber_hex_mask_nb, victims_nb
from .setup_nb import (
    setup_edge_mask_nb,
    setup_node_mask_nb,
    setup_road_choice_nb,
    setup_seat_nb,
    setup_settlement_choice_nb,
)

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
