"""The entry points of the game loop: a batch of games, the step interface, games in lockstep.

These only accept NumPy arrays and scalars. ``play_batch_nb`` plays a run of seeds
into its output rows (``engine.play_batch`` runs several on threads, each writing only
its own rows, and ``engine.play_game`` plays a single logged game through it: with
``s[S_LOG_ON] = 1`` it records every event into ``log``), so a logged game is the game
a batch plays for that seed. ``new_scratch`` (plain Python) makes the arrays it plays in.
The ``step_*`` kernels serve ``catansim.game.Game``, ``batch_start_nb`` and
``batch_choose_nb`` its ``GameBatch``; every one runs ``loop_nb.run_nb``.
"""

import numba as nb
import numpy as np

from ..constants import MAX_PLAYERS, N_EDGES, N_HEXES, N_NODES
from .actions_nb import ACT_SIZE, MAX_LEGAL, can_play_dev_nb, legal_actions_nb, unpack_nb
from .board_nb import BOARD_SCRATCH, generate_board_nb
from .jit import inline_kernel, kernel
from .layout import (
    BOARD_SIZE,
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
    LAYOUT_BALANCED,
    LAYOUT_GIVEN,
    N_COUNTERS,
    N_RULES,
    PH_TURN_DONE,
    S_BANK,
    S_COUNTERS,
    S_CUR,
    S_EXTERNAL,
    S_HAND,
    S_LOG_ON,
    S_N_PLAYERS,
    S_PENDING,
    S_PENDING_SEAT,
    S_ROBBER_TARGET,
    S_STEP,
    S_TURN,
)
from .loop_nb import resolve_nb, run_nb
from .phases_nb import turn_done_nb
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
from .rng_nb import N_STREAMS, seed_streams_nb
from .rules_nb import can_place_road_nb, hand_size_nb, invention_cards_nb, victims_nb
from .setup_nb import init_state_nb


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
