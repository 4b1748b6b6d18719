"""Every decision of the scripted player: the twin of ``players/reference/decisions.py``.

One kernel a decision, each named as its reference function with ``_nb``:
``setup_settlement_nb`` (``setup_settlement_chances`` is ``_softmax_node_nb``'s draw),
``setup_road_nb``, ``before_roll_nb``, ``card_to_play_nb``, ``free_road_nb``,
``invention_nb``, ``monopoly_nb``, ``action_nb`` (``build_now``, ``place`` and
``maritime_trade`` are folded into it; ``trade_down_nb`` places as ``place`` does),
``discard_risk_nb``, ``trade_down_nb``, ``discard_nb``, ``robber_hex_nb``
(``robber_policy``, ``leaders`` and ``hex_value`` are folded into it) and ``victim_nb``;
and their helpers ``robber_on_own_hex_nb``, ``knight_wanted_nb`` and
``monopoly_resource_nb`` (``opponents_hold`` folded in). The trades are in
``trade_nb``, the plan in ``plan_nb``. ``core.policy_nb`` calls these for every
strategy id other than ``random``.
"""

import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from ...constants import (
    INVENTION,
    KNIGHT,
    LARGEST_ARMY_MIN,
    MONOPOLY,
    N_HEXES,
    N_NODES,
    ROAD_BUILDING,
)
from ...topology import T_EDGE_NODES, T_HEX_NODES, T_NODE_EDGES, T_NODE_NEIGHBOURS
from ..actions_nb import (
    ACT_A,
    ACT_B,
    ACT_BUY_DEV,
    ACT_CITY,
    ACT_END,
    ACT_KIND,
    ACT_PLAY_DEV,
    ACT_ROAD,
    ACT_SETTLEMENT,
    ACT_SIZE,
    ACT_TRADE_BANK,
    can_play_dev_nb,
)
from ..jit import inline_kernel, kernel, typed_kernel
from ..layout import (
    R_BANK,
    R_DISCARD_LIMIT,
    S_ARMY,
    S_BANK,
    S_DEV_HAND,
    S_DEV_PLAYED,
    S_HAND,
    S_HEX_NUMBER,
    S_KNIGHTS,
    S_N_PLAYERS,
    S_NODE_LEVEL,
    S_NODE_OWNER,
    S_OWN_HEXES,
    S_PROD_PIPS,
    S_ROADS_LEFT,
    S_ROBBER,
    S_SETTLEMENTS_LEFT,
)
from ..rng_nb import STREAM_PLAYER0, randint_nb, uniform_nb
from ..rules_nb import (
    COST_TABLE,
    distance_ok_nb,
    hand_size_nb,
    invention_cards_nb,
    maritime_rate_nb,
    pips_nb,
    visible_vp_nb,
)
from .placement_nb import (
    best_city_nb,
    best_road_nb,
    best_settlement_spot_nb,
    locate_nb,
    node_score_nb,
)
from .plan_nb import K_CITY, K_DEV, K_ROAD, K_SETTLEMENT, N_KINDS, own_plan_nb, plan_nb, ranked_nb
from .table_nb import production_nb
from .trade_nb import can_trade_maritime_nb, maritime_toward_nb, trade_offers_nb
from .weights_nb import (
    P_BANK_TRADE,
    P_HAND_GUARD,
    P_KNIGHT,
    P_MONOPOLY_MIN,
    P_PLACEMENT_TEMPERATURE,
    P_ROBBER,
)
from .work_nb import (
    ROBBER_OWNERS,
    W_ROBBER_HOLD,
    W_ROBBER_LEAD,
    W_ROBBER_MULT,
    X_MISSING,
    X_ORDER,
    X_PROD,
    X_SCORE,
)


@inline_kernel
def _pick_tie_nb(rng, p, ties):
    """True with probability 1 / ``ties``: the ``ties``-th of equal candidates replaces the
    one kept, so each is chosen with equal chance (from p's own random stream)."""
    return randint_nb(rng, STREAM_PLAYER0 + p, ties) == 0


@typed_kernel("void(int32[::1], int64, int64, int64)")
def _set_act_nb(act, kind, a, b):
    for i in range(ACT_SIZE):
        act[i] = 0
    act[ACT_KIND] = kind
    act[ACT_A] = a
    act[ACT_B] = b


# --- the set-up ---------------------------------------------------------------------------


@kernel
def setup_settlement_nb(prm, s, topo, rng, p, legal, x):
    """The best-scoring legal starting node (``node_score_nb`` with p's production so far);
    with ``placement_temperature`` above 0, one drawn from p's own random stream with
    probability proportional to exp((score - best score) / temperature)."""
    locate_nb(s, topo, prm, p, x)
    # The legal nodes as bits, gathered without a branch per node (a branch on the
    # board's state mispredicts often: measured), then visited in increasing order.
    nodes = 0
    for n in range(N_NODES):
        nodes |= np.int64(legal[n] != 0) << n
    best = -1
    best_v = -1e18
    m = nodes
    while m != 0:
        n = trailing_zeros(m)
        m &= m - 1
        v = node_score_nb(s, topo, prm, p, n, x, False)
        if v > best_v:
            best_v = v
            best = n
    temperature = prm[P_PLACEMENT_TEMPERATURE]
    if temperature > 0.0 and best >= 0:
        best = _softmax_node_nb(s, topo, prm, rng, p, x, nodes, best_v, temperature)
    return best


@inline_kernel
def _softmax_node_nb(s, topo, prm, rng, p, x, nodes, best_v, temperature):
    """One of the nodes (bits of ``nodes``) drawn with probability proportional to
    exp((score - best_v) / temperature): the weights summed in node order, then the
    node where a uniform draw times the sum falls."""
    total = 0.0
    m = nodes
    while m != 0:
        n = trailing_zeros(m)
        m &= m - 1
        total += np.exp((node_score_nb(s, topo, prm, p, n, x, False) - best_v) / temperature)
    target = uniform_nb(rng, STREAM_PLAYER0 + p) * total
    last = -1
    m = nodes
    while m != 0:
        n = trailing_zeros(m)
        m &= m - 1
        target -= np.exp((node_score_nb(s, topo, prm, p, n, x, False) - best_v) / temperature)
        last = n
        if target < 0.0:
            return n
    return last  # the draw fell on the sum's last rounding


@kernel
def setup_road_nb(prm, s, topo, p, node, legal, x):
    """The legal road from ``node`` pointing at the best spot two edges away (``legal``
    marks edges at ``node`` only, as every setup road is)."""
    locate_nb(s, topo, prm, p, x)
    best = -1
    best_v = -1e18
    # A setup road starts at ``node``: its three edges, in increasing order as the
    # topology lists them (tests/test_topology.py), are the only ones to look at.
    for k in range(3):
        e = topo[T_NODE_EDGES + 3 * node + k]
        if e < 0 or not legal[e]:
            continue
        a = topo[T_EDGE_NODES + 2 * e]
        m = topo[T_EDGE_NODES + 2 * e + 1] if a == node else a
        v = 0.0
        for k in range(3):
            m2 = topo[T_NODE_NEIGHBOURS + 3 * m + k]
            if m2 >= 0 and m2 != node and distance_ok_nb(s, m2):
                v = max(v, node_score_nb(s, topo, prm, p, m2, x, False))
        if v > best_v:
            best_v = v
            best = e
    return best


# --- development cards --------------------------------------------------------------------


@kernel
def robber_on_own_hex_nb(s, topo, p):
    """The robber sits on a producing hex where p has a building."""
    h = s[S_ROBBER]
    return s[S_HEX_NUMBER + h] != 0 and (s[S_OWN_HEXES + p] >> h) & 1 != 0


@kernel
def knight_wanted_nb(prm, s, topo, rules, p):
    if prm[P_KNIGHT] >= 0.5 or robber_on_own_hex_nb(s, topo, p):
        return True
    holder = s[S_ARMY]
    mine = s[S_KNIGHTS + p] + 1
    if holder != p and mine >= LARGEST_ARMY_MIN and (holder < 0 or mine > s[S_KNIGHTS + holder]):
        return True  # takes Largest Army now
    return False


@inline_kernel
def before_roll_nb(prm, s, topo, rules, p):
    """Play a knight before rolling to free p's own hex or take Largest Army; else -1."""
    if can_play_dev_nb(s, p, KNIGHT) and knight_wanted_nb(prm, s, topo, rules, p):
        return KNIGHT
    return -1


@kernel
def monopoly_resource_nb(s, rules, p):
    # The resource opponents hold most of; ties go to the one p lacks most. What all
    # opponents hold together is public: every card is in the supply or a hand, so they
    # hold the supply's size less the supply and p's own cards.
    best = 0
    best_v = -1.0
    for r in range(5):
        held = rules[R_BANK] - s[S_BANK + r] - s[S_HAND + 5 * p + r]
        v = held - 0.01 * s[S_HAND + 5 * p + r]
        if v > best_v:
            best_v = v
            best = r
    return best, int(best_v + 0.5)


@inline_kernel
def card_to_play_nb(prm, s, topo, rules, p, x, top):
    """The development card p plays now in the action phase, or -1."""
    if s[S_DEV_PLAYED] != 0:
        return -1
    if can_play_dev_nb(s, p, KNIGHT) and knight_wanted_nb(prm, s, topo, rules, p):
        return KNIGHT
    if can_play_dev_nb(s, p, MONOPOLY):
        _, held = monopoly_resource_nb(s, rules, p)
        if held >= prm[P_MONOPOLY_MIN]:
            return MONOPOLY
    if can_play_dev_nb(s, p, INVENTION):
        bank = 0
        for r in range(5):
            bank += s[S_BANK + r]
        for k in range(N_KINDS):
            m = x[X_MISSING + k]
            if x[X_SCORE + k] > 0 and 1 <= m <= 2 and bank >= 2:
                return INVENTION
    if can_play_dev_nb(s, p, ROAD_BUILDING) and s[S_ROADS_LEFT + p] > 0:
        if x[X_SCORE + K_ROAD] > 0 or s[S_ROADS_LEFT + p] >= 2:
            return ROAD_BUILDING
    return -1


@kernel
def free_road_nb(prm, s, topo, p, x):
    """Where a Road Building road goes: the most useful legal edge, -1 if none is legal."""
    locate_nb(s, topo, prm, p, x)
    e, _ = best_road_nb(s, topo, prm, p, x, s[S_SETTLEMENTS_LEFT + p] > 0)
    return e


@kernel
def invention_nb(prm, s, topo, p, out, x):
    """Two cards from the supply: what the best nearly complete build misses, then the
    resource p produces least of."""
    for r in range(5):
        out[r] = 0
    want = invention_cards_nb(s)
    own_plan_nb(s, topo, prm, p, x)
    production_nb(s, topo, p, x)
    target = -1
    target_v = 0.0
    for k in range(N_KINDS):
        if x[X_SCORE + k] > target_v and x[X_MISSING + k] <= 2:
            target_v = x[X_SCORE + k]
            target = k
    taken = 0
    if target >= 0:
        for r in range(5):
            d = COST_TABLE[5 * target + r] - s[S_HAND + 5 * p + r]
            while d > 0 and taken < want and s[S_BANK + r] - out[r] > 0:
                out[r] += 1
                taken += 1
                d -= 1
    while taken < want:
        best = -1
        best_v = 1e18
        for r in range(5):
            if s[S_BANK + r] - out[r] > 0:
                v = x[X_PROD + r] + out[r] * 5.0
                if v < best_v:
                    best_v = v
                    best = r
        out[best] += 1
        taken += 1


@kernel
def monopoly_nb(prm, s, topo, rules, p):
    """The resource opponents hold most of (ties: the one p holds least of)."""
    r, _ = monopoly_resource_nb(s, rules, p)
    return r


# --- the action phase ---------------------------------------------------------------------


@inline_kernel
def _affordable_from_nb(s, p, kind, reserve):
    # p can pay ``kind`` without touching the cards reserved for build ``reserve``
    # (>= 0; with nothing reserved the plan's cards missing say it). The cards short
    # are summed, so all five resources are read without a branch each (measured: an
    # early exit on the hand mispredicts often; LLVM splits a chain of ``&`` back into
    # branches, not a sum).
    short = 0
    for r in range(5):
        h = s[S_HAND + 5 * p + r]
        h -= min(h, COST_TABLE[5 * reserve + r])
        short += max(COST_TABLE[5 * kind + r] - h, 0)
    return short == 0


@kernel
def action_nb(prm, s, topo, rules, rng, p, act, x):
    """Fill ``act`` with p's next action-phase action.

    In order: a development card worth playing now; the best-ranked build p can pay
    (lower-ranked ones only from cards the top build does not use); a player-trade
    offer, then maritime trades, toward the top build; maritime trades to get below
    the discard limit; else end the turn.
    """
    total = hand_size_nb(s, p)
    dev_free = s[S_DEV_PLAYED] == 0
    if total < 2 and not dev_free:
        _set_act_nb(act, ACT_END, 0, 0)
        return
    top = plan_nb(s, topo, prm, p, x, S_HAND + 5 * p, s[S_DEV_HAND + 5 * p + KNIGHT])
    if dev_free:
        card = card_to_play_nb(prm, s, topo, rules, p, x, top)
        if card >= 0:
            _set_act_nb(act, ACT_PLAY_DEV, card, 0)
            return
    if top < 0 or total < 2:
        _set_act_nb(act, ACT_END, 0, 0)
        return
    k0, k1, k2, k3, c0, c1, c2, c3 = ranked_nb(x)
    x[X_ORDER + 0] = k0
    x[X_ORDER + 1] = k1
    x[X_ORDER + 2] = k2
    x[X_ORDER + 3] = k3
    # The places i (bit i) of kinds worth building that p can pay from its whole hand
    # (scores fall along the order, so a kind scored 0 ends the list). The first is
    # the top build; while the top build lacks cards, a later kind must also leave
    # the top build's cards (``_affordable_from_nb``), tested only for these few.
    paid = (np.int64((c0 > 0) & (x[X_MISSING + k0] == 0))
            | np.int64((c1 > 0) & (x[X_MISSING + k1] == 0)) << 1
            | np.int64((c2 > 0) & (x[X_MISSING + k2] == 0)) << 2
            | np.int64((c3 > 0) & (x[X_MISSING + k3] == 0)) << 3)
    top_paid = x[X_MISSING + top] == 0
    located = False
    while paid != 0:
        i = trailing_zeros(paid)
        paid &= paid - 1
        k = int(x[X_ORDER + i])
        if not top_paid and not _affordable_from_nb(s, p, k, top):
            continue
        if k == K_DEV:
            _set_act_nb(act, ACT_BUY_DEV, 0, 0)
            return
        if k == K_CITY:
            n = best_city_nb(s, topo, prm, p)
            if n >= 0:
                _set_act_nb(act, ACT_CITY, n, 0)
                return
            continue
        if not located:
            locate_nb(s, topo, prm, p, x)
            located = True
        if k == K_SETTLEMENT:
            n = best_settlement_spot_nb(s, topo, prm, p, x)
            if n >= 0:
                _set_act_nb(act, ACT_SETTLEMENT, n, 0)
                return
        else:
            e, v = best_road_nb(s, topo, prm, p, x, s[S_SETTLEMENTS_LEFT + p] > 0)
            if e >= 0 and v > 0:
                _set_act_nb(act, ACT_ROAD, e, 0)
                return
    # Nothing to build: trade toward the top build.
    if x[X_MISSING + top] > 0:
        if x[X_MISSING + top] <= 2 and trade_offers_nb(prm, s, topo, rules, rng, p, top, act, x):
            return
        mode = prm[P_BANK_TRADE]
        if mode > 0 and can_trade_maritime_nb(s, p):
            over = rules[R_DISCARD_LIMIT] >= 0 and total > rules[R_DISCARD_LIMIT]
            complete = mode < 1.5 and not over
            for i in range(N_KINDS):
                k = int(x[X_ORDER + i])
                if x[X_SCORE + k] <= 0:
                    break
                give, get = maritime_toward_nb(s, p, k, complete)
                if give >= 0:
                    _set_act_nb(act, ACT_TRADE_BANK, give, get)
                    return
    if prm[P_HAND_GUARD] > 0 and trade_down_nb(prm, s, topo, rules, p, top, act, x):
        return
    _set_act_nb(act, ACT_END, 0, 0)


@inline_kernel
def discard_risk_nb(s, rules, p, cards):
    """The cards p expects to lose to a 7 before it acts again if it ends its turn
    holding ``cards``: the first 7 at roll j of the next ``n_players`` (chance
    (5/6)^(j-1) x 1/6) takes half the cards then held over the discard limit, the hand
    growing by p's pips / 36 a roll. 0 without a discard limit."""
    limit = rules[R_DISCARD_LIMIT]
    if limit < 0:
        return 0.0
    pips = 0
    for r in range(5):
        pips += s[S_PROD_PIPS + 5 * p + r]
    per_roll = pips / 36.0
    n = np.int64(s[S_N_PLAYERS])
    # The hand grows roll by roll, so no roll takes a card when the last does not: the
    # usual case, told without the loop.
    if int(cards + (n - 1) * per_roll) <= limit:
        return 0.0
    risk = 0.0
    first = 1.0 / 6.0
    for j in range(n):
        held = int(cards + j * per_roll)
        if held > limit:
            risk += first * (held // 2)
        first *= 5.0 / 6.0
    return risk


@kernel
def trade_down_nb(prm, s, topo, rules, p, top, act, x):
    """Fill ``act`` with the build, purchase or maritime trade that keeps most cards from
    a 7, worth ``hand_guard`` x the cards saved less its setback to the top build (each
    wanted build payable from the whole hand, in the plan's order ``x[X_ORDER:]``, then
    the maritime trade toward the first build that has one); False if none is worth
    more than 0."""
    cards = hand_size_nb(s, p)
    risk = discard_risk_nb(s, rules, p, cards)
    if risk <= 0:
        return False
    guard = prm[P_HAND_GUARD]
    short = x[X_MISSING + top]
    best_v = 0.0
    best_kind = -1
    best_a = 0
    best_b = 0
    located = False
    for i in range(N_KINDS):
        k = int(x[X_ORDER + i])
        if x[X_SCORE + k] <= 0:
            break
        if x[X_MISSING + k] > 0:
            continue
        # The build's worth before its place: a build not worth more than the best so
        # far is never placed (placing costs more than the rest of the decision).
        spent = 0
        after = 0
        for r in range(5):
            c = COST_TABLE[5 * k + r]
            spent += c
            after += max(COST_TABLE[5 * top + r] - (s[S_HAND + 5 * p + r] - c), 0)
        setback = 0.0 if k == top else after - short
        v = guard * (risk - discard_risk_nb(s, rules, p, cards - spent)) - setback
        if v <= best_v:
            continue
        kind = ACT_BUY_DEV
        a = 0
        if k == K_CITY:
            a = best_city_nb(s, topo, prm, p)
            kind = ACT_CITY
        elif k != K_DEV:
            if not located:
                locate_nb(s, topo, prm, p, x)
                located = True
            if k == K_SETTLEMENT:
                a = best_settlement_spot_nb(s, topo, prm, p, x)
                kind = ACT_SETTLEMENT
            else:
                e, value = best_road_nb(s, topo, prm, p, x, s[S_SETTLEMENTS_LEFT + p] > 0)
                a = e if value > 0 else -1
                kind = ACT_ROAD
        if a < 0:
            continue
        best_v = v
        best_kind = kind
        best_a = a
    if prm[P_BANK_TRADE] > 0:
        for i in range(N_KINDS):
            k = int(x[X_ORDER + i])
            if x[X_SCORE + k] <= 0:
                break
            give, get = maritime_toward_nb(s, p, k, False)
            if give >= 0:
                rate = maritime_rate_nb(s, p, give)
                v = guard * (risk - discard_risk_nb(s, rules, p, cards - rate + 1)) - (rate - 2)
                if v > best_v:
                    best_kind = ACT_TRADE_BANK
                    best_a = give
                    best_b = get
                break
    if best_kind < 0:
        return False
    _set_act_nb(act, best_kind, best_a, best_b)
    return True


# --- a 7 ----------------------------------------------------------------------------------


@kernel
def discard_nb(prm, s, topo, p, k, out, x):
    """Choose ``k`` cards to discard into ``out``, keeping the cards of p's next builds.

    Each card goes from the resource with the largest excess over what the top build
    needs (plus half of what the second build needs); ties go to the resource p
    produces most, as it comes back soonest.
    """
    top = own_plan_nb(s, topo, prm, p, x)
    second = -1
    second_v = 0.0
    for j in range(N_KINDS):
        if j != top and x[X_SCORE + j] > second_v:
            second_v = x[X_SCORE + j]
            second = j
    production_nb(s, topo, p, x)
    for r in range(5):
        out[r] = 0
    for _ in range(k):
        best = -1
        best_v = -1e18
        for r in range(5):
            held = s[S_HAND + 5 * p + r] - out[r]
            if held == 0:
                continue
            want = 0.0
            if top >= 0:
                want += COST_TABLE[5 * top + r]
            if second >= 0:
                want += 0.5 * COST_TABLE[5 * second + r]
            v = held - want + 0.001 * x[X_PROD + r]
            if v > best_v:
                best_v = v
                best = r
        out[best] += 1


@kernel
def robber_hex_nb(prm, s, topo, rng, p, mask, x):
    """Where p moves the robber, among ``mask`` (``x``: the work array, as scratch).

    Policy 0 hits the leader (most visible VP, then most cards; among equals, one drawn
    from p's random stream): the hex where the leader's buildings produce most. Policy 1
    hits the most opponent production. Policy 2 picks a random hex. Hexes with p's own
    buildings are avoided whenever another hex is allowed (else every policy chooses
    among them as usual); hexes with victims holding cards count a little more, and
    among equal hexes one is drawn from p's random stream.
    """
    n = np.int64(s[S_N_PLAYERS])
    policy = int(prm[P_ROBBER] + 0.5)
    leader = -1
    lead_v = -1
    ties = 0
    holding = 0  # bit q: q holds cards (hand sizes are public)
    for q in range(n):
        size = hand_size_nb(s, q)
        if size > 0:
            holding |= 1 << q
        if q == p:
            continue
        v = 100 * visible_vp_nb(s, q) + size
        if v > lead_v:
            lead_v = v
            leader = q
            ties = 1
        elif v == lead_v:
            ties += 1
            if policy == 0 and _pick_tie_nb(rng, p, ties):
                leader = q
    own = s[S_OWN_HEXES + p]  # bit h: p has a building at hex h
    # The allowed hexes as bits, counted without a branch per hex (measured: these
    # branches on the board's state were a fifth of the function's mispredictions).
    allowed = 0
    n_allowed = 0
    n_ok = 0
    for h in range(N_HEXES):
        a = np.int64(mask[h] != 0)
        allowed |= a << h
        n_allowed += a
        n_ok += a & ~(own >> h) & 1
    avoid_own = n_ok > 0
    # When every allowed hex has p's buildings, the random pick is among all of them.
    hexes = allowed & ~own if avoid_own else allowed
    pick = -1
    if policy == 2:
        pick = randint_nb(rng, STREAM_PLAYER0 + p, n_ok if avoid_own else n_allowed)
    # Each corner's terms from a table by its owner (slot q + 1; slot 0, an empty
    # corner, adds 0.0), not from branches on it (measured: a branch on the board's
    # state mispredicts often): v += mult * level * pips + lead_add, then v += hold_add,
    # the same sums in the same order as the terms chosen seat by seat.
    for q1 in range(ROBBER_OWNERS):
        q = q1 - 1
        mine = q == p
        lead = policy == 0 and q == leader
        x[W_ROBBER_MULT + q1] = -10.0 if mine else (1.0 if lead else (0.1 if policy == 0 else 1.0))
        x[W_ROBBER_LEAD + q1] = 0.1 if lead else 0.0
        hold = q >= 0 and not mine and not lead and (holding >> q) & 1 == 1
        x[W_ROBBER_HOLD + q1] = 0.05 if hold else 0.0
    best = -1
    best_v = -1e18
    ties = 0
    while hexes != 0:
        h = trailing_zeros(hexes)
        hexes &= hexes - 1
        if policy == 2:
            if pick == 0:
                return h
            pick -= 1
            continue
        pips = pips_nb(s[S_HEX_NUMBER + h])
        v = 0.0
        for j in range(6):
            node = topo[T_HEX_NODES + 6 * h + j]
            q1 = np.int64(s[S_NODE_OWNER + node]) + 1
            level = s[S_NODE_LEVEL + node]  # 0 at an empty corner
            v += x[W_ROBBER_MULT + q1] * level * pips + x[W_ROBBER_LEAD + q1]
            v += x[W_ROBBER_HOLD + q1]
        if v > best_v:
            best_v = v
            best = h
            ties = 1
        elif v == best_v:
            ties += 1
            if _pick_tie_nb(rng, p, ties):
                best = h
    return best


@kernel
def victim_nb(prm, s, rng, p, victims, n_victims):
    """Whom p robs: the leader (policy 0) or the largest hand, among equals one drawn from
    p's random stream; random for policy 2."""
    policy = int(prm[P_ROBBER] + 0.5)
    if policy == 2:
        return victims[randint_nb(rng, STREAM_PLAYER0 + p, n_victims)]
    best = victims[0]
    best_v = -1
    ties = 0
    for i in range(n_victims):
        q = np.int64(victims[i])
        size = hand_size_nb(s, q)
        v = size if policy == 1 else 100 * visible_vp_nb(s, q) + size
        if size == 0:
            v -= 10000
        if v > best_v:
            best_v = v
            best = q
            ties = 1
        elif v == best_v:
            ties += 1
            if _pick_tie_nb(rng, p, ties):
                best = q
    return best
