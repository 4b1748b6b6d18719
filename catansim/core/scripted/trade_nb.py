"""Trades: the twin of ``players/reference/trade.py``.

A player-trade offer (``trade_offers_nb``, with ``ask_more_nb``), what the seat reckons
of a partner's hand (``may_hold_nb`` and the compiled-only ``_sure_hand_nb``,
``_sure_count_nb``, ``_held_knights_nb``), a maritime trade toward a build
(``maritime_toward_nb``; ``maritime_trade``'s loop over the ranked builds is in
``decisions_nb.action_nb``, which asks ``can_trade_maritime_nb`` first: a compiled-only
shortcut) and the answer to an offer (``answer_nb``, weighing both sides in ``weigh_offer_nb``
with ``plan_value``'s twin ``plan_value_nb``).
"""

import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from ...constants import KNIGHT, MAX_PLAYERS
from ..actions_nb import ACT_A, ACT_GIVE, ACT_KIND, ACT_RECEIVE, ACT_SIZE, ACT_TRADE_PLAYER
from ..jit import inline_kernel, kernel
from ..layout import (
    R_MAX_OFFERS,
    S_BANK,
    S_DEV_HAND,
    S_HAND,
    S_N_PLAYERS,
    S_OFFERS,
    S_PROD_PIPS,
    S_VIEW,
)
from ..record_nb import seen_high_nb, seen_low_nb
from ..rng_nb import STREAM_PLAYER0, randint_nb
from ..rules_nb import COST_TABLE, MOST_COST_TABLE, maritime_rate_nb, visible_vp_nb
from .plan_nb import K_CITY, K_DEV, K_ROAD, K_SETTLEMENT, build_weights_nb, own_plan_nb, plan_nb
from .table_nb import missing_nb
from .weights_nb import (
    P_ACCEPT,
    P_ACCEPT_VP,
    P_ANSWER_CARDS,
    P_ANSWER_LEAD,
    P_ANSWER_WEIGH,
    P_INFORMATION,
    P_MISSING,
    P_OFFER_ASK,
    P_OFFER_HAGGLE,
    P_OFFER_TWO,
    P_OFFERS,
)
from .work_nb import SCRATCH, W_OFFER_START


@inline_kernel
def _sure_hand_nb(prm, s, p, q):
    """Offset in ``s`` of the five counts p takes for seat q's hand: the cards q surely
    holds by p's public record, written to the scratch field ``view``, or (omniscient)
    q's true hand."""
    if prm[P_INFORMATION] >= 0.5:
        return S_HAND + 5 * q
    for r in range(5):
        s[S_VIEW + r] = seen_low_nb(s, p, q, r)
    return S_VIEW


@inline_kernel
def _sure_count_nb(prm, s, p, q, r):
    """The cards of resource r that p knows seat q surely holds (``_sure_hand_nb``'s
    count of r, without writing the view)."""
    if prm[P_INFORMATION] >= 0.5:
        return s[S_HAND + 5 * q + r]
    return seen_low_nb(s, p, q, r)


@inline_kernel
def _held_knights_nb(prm, s, p, q):
    """The Knights p reckons q holds unplayed: its own exactly; an opponent's, as many as
    its unplayed development cards (a public count: their kinds are hidden), or
    (omniscient) exactly."""
    if q == p or prm[P_INFORMATION] >= 0.5:
        return s[S_DEV_HAND + 5 * q + KNIGHT]
    held = 0
    for k in range(5):
        held += s[S_DEV_HAND + 5 * q + k]
    return held


@inline_kernel
def may_hold_nb(prm, s, p, q, r):
    """Whether seat q may hold a card of resource r, as far as p can know."""
    if prm[P_INFORMATION] >= 0.5:
        return s[S_HAND + 5 * q + r] > 0
    return seen_high_nb(s, p, q, r) > 0


@inline_kernel
def trade_offers_nb(prm, s, topo, rules, rng, p, kind, act, x):
    """Fill ``act`` with a player-trade offer toward ``kind``; return False if none.

    p offers one card it does not need for ``kind`` for one card of the resource it
    misses most, to an opponent who, as far as p can know (``information``), holds that
    card beyond its own next build and lacks the card offered. The opponents are asked
    in turn from a place drawn from p's random stream at its first offer of the turn,
    so no seat is asked first for its index.
    """
    made = s[S_OFFERS]
    if made >= rules[R_MAX_OFFERS] or made >= prm[P_OFFERS]:
        return False
    # One pass over p's hand: ``want``, the resource it misses most for ``kind`` (the
    # first of the largest shortfall), and its spare cards beyond ``kind``, as bits r
    # and as a count (two of them pay a 2-for-1). ``want`` falls short of its cost, so
    # it has no spare card and needs no test of its own. With no spare card no partner
    # is asked: p gives one of them; and a partner holding as many of each as any build
    # costs lacks none of them whatever it plans (both skip only partners the loop below
    # would pass over, before their plans are made).
    want = -1
    worst = 0
    spare = 0
    spares = 0
    for r in range(5):
        d = COST_TABLE[5 * kind + r] - s[S_HAND + 5 * p + r]
        more = d > worst
        worst = d if more else worst
        want = r if more else want
        spare |= np.int64(d < 0) << r
        spares += max(-d, 0)
    if want < 0 or spare == 0:
        return False
    n = np.int64(s[S_N_PLAYERS])
    # The candidates (opponents who may hold the wanted card) as bits q.
    cands = 0
    n_cand = 0
    for q in range(n):
        c = np.int64((q != p) & may_hold_nb(prm, s, p, q, want))
        cands |= c << q
        n_cand += c
    if n_cand == 0:
        return False
    # The turn's first offer draws where the asking starts (0..5: uniform modulo 1, 2
    # or 3 candidates); the turn's later offers go on from there, one place a offer.
    if made == 0:
        x[W_OFFER_START] = randint_nb(rng, STREAM_PLAYER0 + p, 6)
    start = (int(x[W_OFFER_START]) + made) % n_cand
    y = x[SCRATCH:]
    partner = -1
    give = -1
    two = (prm[P_OFFER_TWO] >= 0.5) & (spares >= 2)
    partner2 = -1  # the first partner of a 2-for-1, offered when no 1-for-1 is found
    partner_k = -1
    partner2_k = -1
    # The candidates in the order asked, as bits: from the start-th in seat order on
    # (bits q), then those before it (bits MAX_PLAYERS + q). Of them, only those surely
    # holding the wanted card: the others cannot hold it beyond any build (no cost is
    # negative), so the test after their plans would pass over them.
    after = cands
    for _ in range(start):
        after &= after - 1
    sure = 0
    for q in range(n):
        sure |= np.int64(_sure_count_nb(prm, s, p, q, want) > 0) << q
    order = (after | (cands ^ after) << MAX_PLAYERS) & (sure | sure << MAX_PLAYERS)
    while order != 0:
        q = trailing_zeros(order) % MAX_PLAYERS
        order &= order - 1
        hq = _sure_hand_nb(prm, s, p, q)
        # Bits, not a chain of ``&`` and ``|`` on booleans, which LLVM splits back
        # into a branch each.
        low = 0  # bit r: q may hold fewer of r than some build costs
        for r in range(5):
            low |= np.int64(s[hq + r] < MOST_COST_TABLE[r]) << r
        if spare & low == 0 and not (two and partner2 < 0):
            continue
        qk = plan_nb(s, topo, prm, q, y, hq, _held_knights_nb(prm, s, p, q))
        if qk < 0 or s[hq + want] <= COST_TABLE[5 * qk + want]:
            continue
        give_v = 0
        for r in range(5):
            surplus = s[S_HAND + 5 * p + r] - COST_TABLE[5 * kind + r]
            lack = COST_TABLE[5 * qk + r] - s[hq + r]
            take = (lack > 0) & (surplus > give_v)  # give_v >= 0: a spare card, not want
            give_v = surplus if take else give_v
            give = r if take else give
        if give >= 0:
            partner = q
            partner_k = qk
            break
        if two and partner2 < 0:
            partner2 = q
            partner2_k = qk
    if partner < 0 and partner2 < 0:
        return False
    for i in range(ACT_SIZE):
        act[i] = 0
    act[ACT_KIND] = ACT_TRADE_PLAYER
    act[ACT_RECEIVE + want] = 1
    if partner < 0:
        # Two spare cards for the wanted one: the partner keeps its next build as close
        # and gets more cards than it pays, which a scripted partner accepts.
        partner = partner2
        partner_k = partner2_k
        for _ in range(2):
            give = -1
            give_v = 0
            for r in range(5):
                surplus = s[S_HAND + 5 * p + r] - COST_TABLE[5 * kind + r] - act[ACT_GIVE + r]
                take = surplus > give_v  # give_v >= 0: a spare card, not want
                give_v = surplus if take else give_v
                give = r if take else give
            act[ACT_GIVE + give] += 1
    else:
        act[ACT_GIVE + give] = 1
    act[ACT_A] = partner
    ask = int(prm[P_OFFER_ASK] + 0.5)
    if prm[P_OFFER_HAGGLE] >= 0.5 and made > 0:
        ask = 0  # the turn's later offers ask no more than the wanted card
    if ask > 0:
        ask_more_nb(prm, s, p, partner, partner_k, kind, ask, act)
    return True


@inline_kernel
def ask_more_nb(prm, s, p, q, qk, kind, ask, act):
    # Up to ``ask`` more cards asked of partner q, each one q surely holds beyond its own
    # next build ``qk`` and the cards already asked: first those p still misses for
    # ``kind``, then the resource p produces least (ties: the lower resource).
    hq = _sure_hand_nb(prm, s, p, q)
    for _ in range(ask):
        best = -1
        best_v = -1e18
        for r in range(5):
            if act[ACT_GIVE + r] > 0:
                continue
            extra = s[hq + r] - COST_TABLE[5 * qk + r] - act[ACT_RECEIVE + r]
            if extra <= 0:
                continue
            need = COST_TABLE[5 * kind + r] - s[S_HAND + 5 * p + r] - act[ACT_RECEIVE + r]
            v = 1000.0 * (need > 0) - s[S_PROD_PIPS + 5 * p + r]
            if v > best_v:
                best_v = v
                best = r
        if best < 0:
            return
        act[ACT_RECEIVE + best] += 1


@inline_kernel
def maritime_toward_nb(s, p, kind, complete):
    """A maritime trade (give, get) toward ``kind``, giving only cards the build does not
    use; with ``complete`` only if such trades can finish the build now. (-1, -1) if none."""
    avail = 0
    give = -1
    give_left = -1
    for r in range(5):
        surplus = s[S_HAND + 5 * p + r] - COST_TABLE[5 * kind + r]
        rate = maritime_rate_nb(s, p, r)
        if surplus >= rate:
            avail += surplus // rate
            left = surplus - rate
            if left > give_left:
                give_left = left
                give = r
    if give < 0:
        return -1, -1
    get = -1
    worst = 0
    missing = 0
    for r in range(5):
        d = COST_TABLE[5 * kind + r] - s[S_HAND + 5 * p + r]
        if d > 0:
            missing += d
            if s[S_BANK + r] < d:
                return -1, -1
            if d > worst:
                worst = d
                get = r
    if get < 0 or (complete and avail < missing):
        return -1, -1
    return give, get


@inline_kernel
def can_trade_maritime_nb(s, p):
    # p holds some resource at its maritime rate. If not, ``maritime_toward_nb`` finds no
    # trade toward any build, so the action decision skips its search.
    found = False
    for r in range(5):  # all five without a branch out: fewer instructions, measured
        if s[S_HAND + 5 * p + r] >= maritime_rate_nb(s, p, r):
            found = True
    return found


@inline_kernel
def plan_value_nb(s, prm, hand, w_road, w_set, w_city, w_dev):
    """``plan_value`` of ``plan_nb``'s plan for the hand at offset ``hand`` of s, from
    the weights of ``build_weights_nb``: its top build's priority (0 when none is
    wanted), computed as ``plan_nb`` computes it, without writing the plan. A weighed
    answer values four hands of two seats, so each seat's weights are made once."""
    pen = prm[P_MISSING]
    v = 0.0
    v = max(v, w_road / (1.0 + pen * missing_nb(s, hand, K_ROAD)))
    v = max(v, w_set / (1.0 + pen * missing_nb(s, hand, K_SETTLEMENT)))
    v = max(v, w_city / (1.0 + pen * missing_nb(s, hand, K_CITY)))
    return max(v, w_dev / (1.0 + pen * missing_nb(s, hand, K_DEV)))


@kernel
def weigh_offer_nb(prm, s, q, p, act):
    """``weigh_offer``: p's offer ``act`` weighed by q from both sides (positive: it pays
    q), and q's ``plan_value`` of its own hand, as (worth, own value). Each side's worth
    is its plan's gain plus ``answer_cards`` per card it receives more than it pays; q's
    less ``answer_weigh`` x (1 + ``answer_lead`` x p's visible points) x p's, p's hand
    read as the cards q's public record says it surely holds (the scratch field ``view``
    holds each hand valued). A seat's build weights do not depend on its hand, so each
    side's are made once for its two hands (``build_weights_nb``, ``plan_value_nb``)."""
    knights = s[S_DEV_HAND + 5 * q + KNIGHT]
    q_road, q_set, q_city, q_dev = build_weights_nb(s, prm, q, knights)
    own_value = plan_value_nb(s, prm, S_HAND + 5 * q, q_road, q_set, q_city, q_dev)
    balance = 0
    for r in range(5):
        s[S_VIEW + r] = s[S_HAND + 5 * q + r] + act[ACT_GIVE + r] - act[ACT_RECEIVE + r]
        balance += act[ACT_GIVE + r] - act[ACT_RECEIVE + r]
    after = plan_value_nb(s, prm, S_VIEW, q_road, q_set, q_city, q_dev)
    worth = after - own_value
    worth = worth + prm[P_ANSWER_CARDS] * balance
    dev = 0
    for k in range(5):
        dev += s[S_DEV_HAND + 5 * p + k]
    p_road, p_set, p_city, p_dev = build_weights_nb(s, prm, p, dev)
    for r in range(5):
        s[S_VIEW + r] = seen_low_nb(s, q, p, r)
    before = plan_value_nb(s, prm, S_VIEW, p_road, p_set, p_city, p_dev)
    for r in range(5):
        s[S_VIEW + r] = max(s[S_VIEW + r] - act[ACT_GIVE + r], 0) + act[ACT_RECEIVE + r]
    their_worth = plan_value_nb(s, prm, S_VIEW, p_road, p_set, p_city, p_dev) - before
    their_worth = their_worth - prm[P_ANSWER_CARDS] * balance
    lead = 1.0 + prm[P_ANSWER_LEAD] * visible_vp_nb(s, p)
    return worth - prm[P_ANSWER_WEIGH] * lead * their_worth, own_value


@kernel
def answer_nb(prm, s, topo, rules, q, p, act, x):
    """Whether q accepts p's offer: p must show fewer than ``accept_vp_limit`` victory
    points, and the offer must bring q's next build closer (or keep it as close and give
    q more cards than it pays); with ``answer_weigh`` above 0, be worth more than
    nothing weighed from both sides (``weigh_offer_nb``)."""
    if prm[P_ACCEPT] < 0.5 or visible_vp_nb(s, p) >= prm[P_ACCEPT_VP]:
        return False
    if prm[P_ANSWER_WEIGH] > 0:
        # ``own_plan``'s top is None exactly when its value is 0 (no priority is
        # negative), so the weighing's own value answers that test too
        worth, own_value = weigh_offer_nb(prm, s, q, p, act)
        return own_value > 0 and worth > 0
    top = own_plan_nb(s, topo, prm, q, x)
    if top < 0:
        return False
    before = 0
    after = 0
    gets = 0
    gives = 0
    for r in range(5):
        h = s[S_HAND + 5 * q + r]
        c = COST_TABLE[5 * top + r]
        h2 = h + act[ACT_GIVE + r] - act[ACT_RECEIVE + r]
        before += max(0, c - h)
        after += max(0, c - h2)
        gets += act[ACT_GIVE + r]
        gives += act[ACT_RECEIVE + r]
    return after < before or (after == before and gets > gives)
