"""What to build next: the twin of ``players/reference/plan.py``.

``plan_nb`` ranks the four builds for a hand (the reference's ``plan``) from the weights
of ``build_weights_nb``, ``own_plan_nb`` for the seat's own hand and Knights,
``army_in_reach_nb`` as in the reference, and ``ranked_nb`` orders the builds as
``Plan.ranked`` does. A plan is written to the work array (``work_nb``:
``X_SCORE``, ``X_MISSING``), not returned.
"""

import numpy as np

from ...constants import (
    BUILD_CITY,
    BUILD_DEV_CARD,
    BUILD_ROAD,
    BUILD_SETTLEMENT,
    KNIGHT,
    N_BUILD_KINDS,
    N_DEV_CARDS,
    SETTLEMENTS_PER_PLAYER,
)
from ..jit import inline_kernel, kernel
from ..layout import (
    S_ARMY,
    S_CITIES_LEFT,
    S_DECK_POS,
    S_DEV_HAND,
    S_HAND,
    S_KNIGHTS,
    S_OPEN_SPOTS,
    S_ROADS_LEFT,
    S_SETTLEMENTS_LEFT,
)
from .table_nb import missing_nb
from .weights_nb import P_ARMY, P_MISSING, P_REACH, P_W_CITY, P_W_DEV, P_W_ROAD, P_W_SETTLEMENT
from .work_nb import X_MISSING, X_SCORE

# Build kinds the planner ranks, and their costs (wood, brick, wool, wheat, ore).
K_ROAD = BUILD_ROAD
K_SETTLEMENT = BUILD_SETTLEMENT
K_CITY = BUILD_CITY
K_DEV = BUILD_DEV_CARD
N_KINDS = N_BUILD_KINDS


@kernel
def army_in_reach_nb(s, p, held_knights):
    # Knights played plus ``held_knights`` would take Largest Army within two more cards.
    holder = s[S_ARMY]
    if holder == p:
        return False
    mine = s[S_KNIGHTS + p] + held_knights
    need = 3 if holder < 0 else s[S_KNIGHTS + holder] + 1
    return mine + 2 >= need


@inline_kernel
def build_weights_nb(s, prm, p, held_knights):
    """``build_weights``: the weights of p's road, settlement, city and development
    card, each 0 where the build is not possible at all (see ``plan_nb``)."""
    # The weights from conditional expressions between values read first, not from
    # nested branches on the state. LLVM still branches on the road weight's choice
    # (a choice between two floats); arithmetic or a table in its place is not faster.
    set_left = s[S_SETTLEMENTS_LEFT + p]
    spot = (set_left > 0) & (s[S_OPEN_SPOTS + p] > 0)
    road_w = prm[P_W_ROAD]
    set_w = prm[P_W_SETTLEMENT]
    city_w = prm[P_W_CITY]
    reach_w = max(road_w, set_w * prm[P_REACH])
    w_road = reach_w if (set_left > 0) & (not spot) else road_w
    w_road = w_road if s[S_ROADS_LEFT + p] > 0 else 0.0
    w_set = set_w if spot else 0.0
    city_ok = (s[S_CITIES_LEFT + p] > 0) & (set_left < SETTLEMENTS_PER_PLAYER)  # a settlement built
    w_city = city_w if city_ok else 0.0
    w_dev = 0.0
    if s[S_DECK_POS] < N_DEV_CARDS:
        w_dev = prm[P_W_DEV]
        if prm[P_ARMY] > 0 and army_in_reach_nb(s, p, np.int64(held_knights)):
            w_dev += prm[P_ARMY]
    return w_road, w_set, w_city, w_dev


@inline_kernel
def plan_nb(s, topo, prm, p, x, hand, held_knights):
    """Rank the four builds for p; return the top kind (-1 if none is wanted).

    p's cards are the five counts at offset ``hand`` of ``s`` and its unplayed Knights
    ``held_knights``: p's own (``own_plan_nb``), or what another player reckons of them
    (a trade offer plans the partner's next build).

    Writes ``x[X_MISSING + k]`` (cards p still lacks for kind k) and ``x[X_SCORE + k]``
    = weight_k / (1 + missing_penalty * missing_k), where weight_k is the kind's build
    priority when it is possible at all (a piece left, a spot, a card in the deck):
    roads use ``road_weight``, or ``reach_weight * settlement_weight`` when no
    settlement spot is reachable; development cards add ``army_weight`` while Largest
    Army is within reach.
    """
    w_road, w_set, w_city, w_dev = build_weights_nb(s, prm, p, held_knights)
    # Every read of the hand before the first store to x: Numba tells LLVM nothing of
    # which arrays may overlap, so a store to x between reads makes it read them again.
    m_road = missing_nb(s, hand, K_ROAD)
    m_set = missing_nb(s, hand, K_SETTLEMENT)
    m_city = missing_nb(s, hand, K_CITY)
    m_dev = missing_nb(s, hand, K_DEV)
    # np.int64: inlined, a literal -1 typed the result as that constant on one pass, and
    # trade_offers_nb compiled a second time for it (tests/test_kernels.py)
    best = np.int64(-1)
    best_v = 0.0
    for k in range(N_KINDS):
        if k == K_ROAD:
            w, m = w_road, m_road
        elif k == K_SETTLEMENT:
            w, m = w_set, m_set
        elif k == K_CITY:
            w, m = w_city, m_city
        else:
            w, m = w_dev, m_dev
        # w = 0 gives exactly 0.0 (the divisor is >= 1): dividing always costs less
        # than a branch on w (measured)
        v = w / (1.0 + prm[P_MISSING] * m)
        x[X_MISSING + k] = m
        x[X_SCORE + k] = v
        if v > best_v:
            best_v = v
            best = k
    return best


@kernel
def own_plan_nb(s, topo, prm, p, x):
    """``plan_nb`` of p's own hand as a kernel of its own, for callers of a few calls a
    game (discard, free road, trade acceptance, the tests). The action decision and
    ``trade_offers_nb``'s partner plans (about 250 calls a game) inline ``plan_nb`` instead,
    as a call passes each array as seven machine words (see the module's docstring)."""
    return plan_nb(s, topo, prm, p, x, S_HAND + 5 * p, s[S_DEV_HAND + 5 * p + KNIGHT])


@inline_kernel
def _exchange_nb(ki, ci, kj, cj):
    """One compare-exchange of a selection sort by falling score: the kind scored
    strictly higher takes the earlier place; as selects, not a branch."""
    up = cj > ci
    return (kj if up else ki), (cj if up else ci), (ki if up else kj), (ci if up else cj)


@inline_kernel
def ranked_nb(x):
    """The four build kinds by falling score ``x[X_SCORE + k]`` and their scores, as
    ``(k0, k1, k2, k3, c0, c1, c2, c3)``: a selection sort's six compare-exchanges on
    locals, each exchange a select (as branches on the scores they mispredict)."""
    k0, c0 = np.int64(0), x[X_SCORE + 0]
    k1, c1 = np.int64(1), x[X_SCORE + 1]
    k2, c2 = np.int64(2), x[X_SCORE + 2]
    k3, c3 = np.int64(3), x[X_SCORE + 3]
    k0, c0, k1, c1 = _exchange_nb(k0, c0, k1, c1)
    k0, c0, k2, c2 = _exchange_nb(k0, c0, k2, c2)
    k0, c0, k3, c3 = _exchange_nb(k0, c0, k3, c3)
    k1, c1, k2, c2 = _exchange_nb(k1, c1, k2, c2)
    k1, c1, k3, c3 = _exchange_nb(k1, c1, k3, c3)
    k2, c2, k3, c3 = _exchange_nb(k2, c2, k3, c3)
    return k0, k1, k2, k3, c0, c1, c2, c3
