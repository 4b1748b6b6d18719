"""Determinization: what one seat cannot see, dealt anew from what it knows.

These only accept NumPy arrays and scalars. ``determinize_nb`` turns a game state into
one of the states seat ``p`` cannot tell from it, drawn at random:

- **resource cards**: the opponents' hands are dealt anew within ``p``'s public record
  (``core.record_nb``: each resource between the low and the high end), each hand keeps
  its size, and the opponents together hold what the supply's size less the supply and
  ``p``'s hand leaves. Cards are told apart, as cards on a table are: every deal of the
  opponents' cards that fits is equally likely, so a count matrix H (opponent by
  resource) has probability proportional to the product of ``1 / H[q, r]!`` (the number
  of ways to deal the distinct cards into it). A table of partial sums over the
  resources (``deal_table_nb``, one per position, since it reads only what ``p`` knows)
  makes each draw exact, resource by resource (``deal_hands_nb``);
- **development cards**: the cards ``p`` has not seen (the 25 less its own and every
  card played) are shuffled and dealt: each opponent's new cards (bought this turn),
  its other unplayed cards, then the undrawn deck in order. A deal that would give an
  opponent the winning total with its victory point cards (a seat that held it on its
  own turn would have won) is dealt again, up to ``MAX_REDEALS`` times;
- **the future**: every random stream is reseeded from ``seed`` (dice, the deck and
  steals, each seat's decisions), as in a new game of that seed; the deal draws from
  the board stream, which a game reads only while dealing its board.

The record of every other observer is set to ``p``'s own (``mirror_record_nb``): what
an opponent knows of a third seat is hidden from ``p``, which can only lend it what it
knows itself (every observer's record of ``p``'s hand, which ``p`` knows, is kept).
Each opponent's development cards bought (``c_dev_bought``) become its cards held and
played, and the log is switched off (its rows would say what ``p`` did not see).

Nothing here reads a hidden card: the plan (``hidden_plan_nb``) reads ``p``'s hand,
cards and record, the hand sizes, the supply, the development card counts, the cards
played and the trade offer ``p`` is answering (its maker holds the cards offered). Its
plain twin, ``catansim.players.search.belief``, reads the seat's ``Observation`` only
and draws the same deal from the same seed.

May import: numpy, numba, ``catansim.constants`` and the core below the game loop.
"""

import numpy as np

from ..constants import DEV_CARD_COUNTS, N_DEV_CARDS, VICTORY_POINT
from .actions_nb import ACT_GIVE
from .jit import kernel
from .layout import (
    C_DEV_BOUGHT,
    C_DEV_PLAYED,
    D_ANSWER,
    R_BANK,
    R_VP_TO_WIN,
    S_BANK,
    S_CUR,
    S_DECK,
    S_DECK_POS,
    S_DEV_EVENT,
    S_DEV_HAND,
    S_DEV_NEW,
    S_HAND,
    S_LOG_LEN,
    S_LOG_ON,
    S_N_PLAYERS,
    S_PENDING,
    S_PENDING_SEAT,
    S_SEEN_ABOVE,
    S_SEEN_BELOW,
)
from .record_nb import seen_high_nb, seen_index, seen_low_nb
from .rng_nb import STREAM_BOARD, seed_streams_nb, shuffle_nb, uniform_nb
from .rules_nb import visible_vp_nb

# Deals of the development cards tried before one that gives an opponent the winning
# total is kept anyway (only when nearly every deal does: the cards left are all victory
# points, say).
MAX_REDEALS = 100

# The plan (int32[PLAN_SIZE]): what p knows of the hidden cards, from hidden_plan_nb.
PL_M = 0  # opponents (2 or 3)
PL_SEAT = 1  # [3] the opponents' seats, in seat order
PL_NEED = 4  # [3] each opponent's cards beyond its record's low ends
PL_LOW = 7  # [15] each opponent's low end per resource
PL_WIDTH = 22  # [15] high end less low end
PL_POOL = 37  # [5] the opponents' cards of each resource beyond their low ends
PL_DEVS = 42  # [25] the development cards p has not seen, by kind (then shuffled)
PL_N_DEVS = 67  # how many
PL_OK = 68  # 1 if the record, the sizes and the supply agree (0: no deal fits)
PL_SHUFFLE = 69  # [25] the cards of PL_DEVS as a deal shuffles them (the plan stays)
PL_HELD = 94  # [3] each opponent's unplayed development cards (a public count)
PL_NEW = 97  # [3] of them, the cards bought this turn (a public count)
PLAN_SIZE = 100


@kernel
def hidden_plan_nb(s, rules, act, p, plan):
    """What seat p knows of the cards it cannot see, into ``plan`` (``PL_*``); returns
    the size of the table ``deal_table_nb`` needs (float64), 0 if no deal fits. While p
    answers a trade offer (``act``), the seat whose turn it is holds the cards it
    offers: they raise its low ends."""
    n = np.int64(s[S_N_PLAYERS])
    m = 0
    for q in range(n):
        if q != p:
            plan[PL_SEAT + m] = q
            m += 1
    plan[PL_M] = m
    total_need = 0
    ok = True
    answering = s[S_PENDING] == D_ANSWER and s[S_PENDING_SEAT] == p
    for i in range(m):
        q = np.int64(plan[PL_SEAT + i])
        size = 0
        low_sum = 0
        for r in range(5):
            size += s[S_HAND + 5 * q + r]
            low = seen_low_nb(s, p, q, r)
            if answering and q == s[S_CUR]:
                low = max(low, act[ACT_GIVE + r])
            plan[PL_LOW + 5 * i + r] = low
            plan[PL_WIDTH + 5 * i + r] = seen_high_nb(s, p, q, r) - low
            low_sum += low
        plan[PL_NEED + i] = size - low_sum
        total_need += size - low_sum
        ok &= size >= low_sum
    pool_sum = 0
    for r in range(5):
        held = rules[R_BANK] - s[S_BANK + r] - s[S_HAND + 5 * p + r]
        for i in range(m):
            held -= plan[PL_LOW + 5 * i + r]
            ok &= plan[PL_LOW + 5 * i + r] >= 0 and plan[PL_WIDTH + 5 * i + r] >= 0
        plan[PL_POOL + r] = held
        pool_sum += held
        ok &= held >= 0
    plan[PL_OK] = 1 if ok and pool_sum == total_need else 0
    # The development cards p has not seen: every card less its own and those played.
    k = 0
    for card in range(5):
        left = DEV_CARD_COUNTS[card] - s[S_DEV_HAND + 5 * p + card]
        for q in range(n):
            left -= s[C_DEV_PLAYED + 5 * q + card]
        for _ in range(left):
            plan[PL_DEVS + k] = card
            k += 1
    plan[PL_N_DEVS] = k
    for i in range(m):
        q = np.int64(plan[PL_SEAT + i])
        plan[PL_HELD + i] = 0
        plan[PL_NEW + i] = 0
        for card in range(5):
            plan[PL_HELD + i] += s[S_DEV_HAND + 5 * q + card]
            plan[PL_NEW + i] += s[S_DEV_NEW + 5 * q + card]
        k -= plan[PL_HELD + i]
    if k != N_DEV_CARDS - s[S_DECK_POS]:
        plan[PL_OK] = 0  # the cards held, played and left disagree
    if plan[PL_OK] == 0:
        return np.int64(0)
    n1 = plan[PL_NEED + 1] + 1 if m == 3 else 1
    return np.int64(6 * (plan[PL_NEED] + 1) * n1)


@kernel
def _fall_nb(low, x):
    """low! / (low + x)!: a count's weight relative to its low end (as the reference
    computes it, one division a card)."""
    v = 1.0
    for k in range(1, x + 1):
        v /= low + k
    return v


@kernel
def _terms_nb(plan, r, a, b, x0, x1):
    """The weight of giving opponent 0 x0 and opponent 1 x1 more cards of resource r
    (with three opponents the last takes the rest of the pool), or 0.0 if a count
    leaves its interval. ``a``, ``b``: the cards already given beyond the low ends."""
    m = plan[PL_M]
    last = m - 1
    if x0 > plan[PL_WIDTH + r] or a + x0 > plan[PL_NEED]:
        return 0.0
    rest = plan[PL_POOL + r] - x0
    t = _fall_nb(plan[PL_LOW + r], x0)
    if m == 3:
        if x1 > plan[PL_WIDTH + 5 + r] or b + x1 > plan[PL_NEED + 1]:
            return 0.0
        rest -= x1
        t = t * _fall_nb(plan[PL_LOW + 5 + r], x1)
    if rest < 0 or rest > plan[PL_WIDTH + 5 * last + r]:
        return 0.0
    return t * _fall_nb(plan[PL_LOW + 5 * last + r], rest)


@kernel
def deal_table_nb(plan, table):
    """Fill ``table`` (float64, the size ``hidden_plan_nb`` returned): at [r, a, b] the
    summed weight of every way to deal resources r..4 when opponents 0 and 1 have been
    given a and b cards beyond their low ends (the last opponent what is left). Returns
    the total weight (0.0: no deal fits the record)."""
    if plan[PL_OK] == 0:
        return 0.0
    m = plan[PL_M]
    n0 = plan[PL_NEED]
    n1 = plan[PL_NEED + 1] if m == 3 else 0
    w0 = n0 + 1
    w1 = n1 + 1
    for a in range(w0):
        for b in range(w1):
            table[(5 * w0 + a) * w1 + b] = 1.0 if (a == n0 and b == n1) else 0.0
    for r in range(4, -1, -1):
        for a in range(w0):
            for b in range(w1):
                acc = 0.0
                for x0 in range(n0 - a + 1):
                    for x1 in range(n1 - b + 1):
                        t = _terms_nb(plan, r, a, b, x0, x1)
                        if t > 0.0:
                            acc += t * table[((r + 1) * w0 + a + x0) * w1 + b + x1]
                table[(r * w0 + a) * w1 + b] = acc
    return table[0]


@kernel
def deal_hands_nb(s, plan, table, rng):
    """Deal the opponents' hands into ``s`` from the board stream of ``rng``: resource
    by resource, each split drawn with its share of the table's weight."""
    m = plan[PL_M]
    last = m - 1
    n0 = plan[PL_NEED]
    n1 = plan[PL_NEED + 1] if m == 3 else 0
    w0 = n0 + 1
    w1 = n1 + 1
    a = 0
    b = 0
    for r in range(5):
        target = uniform_nb(rng, STREAM_BOARD) * table[(r * w0 + a) * w1 + b]
        acc = 0.0
        pick0 = -1
        pick1 = 0
        for x0 in range(n0 - a + 1):
            for x1 in range(n1 - b + 1):
                t = _terms_nb(plan, r, a, b, x0, x1)
                if t > 0.0:
                    f = t * table[((r + 1) * w0 + a + x0) * w1 + b + x1]
                    if f > 0.0:
                        acc += f
                        if pick0 < 0 or acc - f <= target:
                            pick0 = x0  # the last split whose span starts at or below
                            pick1 = x1
        rest = plan[PL_POOL + r] - pick0 - (pick1 if m == 3 else 0)
        q0 = np.int64(plan[PL_SEAT])
        s[S_HAND + 5 * q0 + r] = plan[PL_LOW + r] + pick0
        if m == 3:
            q1 = np.int64(plan[PL_SEAT + 1])
            s[S_HAND + 5 * q1 + r] = plan[PL_LOW + 5 + r] + pick1
        ql = np.int64(plan[PL_SEAT + last])
        s[S_HAND + 5 * ql + r] = plan[PL_LOW + 5 * last + r] + rest
        a += pick0
        b += pick1 if m == 3 else 0


@kernel
def deal_devs_nb(s, rules, plan, rng):
    """Deal the development cards p has not seen from the board stream of ``rng``:
    each opponent's new cards, its other unplayed cards, then the undrawn deck."""
    m = plan[PL_M]
    n_devs = np.int64(plan[PL_N_DEVS])
    devs = plan[PL_SHUFFLE : PL_SHUFFLE + N_DEV_CARDS]
    for _ in range(MAX_REDEALS):
        for i in range(n_devs):  # each deal shuffles the cards as listed, by kind
            devs[i] = plan[PL_DEVS + i]
        shuffle_nb(rng, STREAM_BOARD, devs, n_devs)
        k = 0
        fits = True
        for i in range(m):
            q = np.int64(plan[PL_SEAT + i])
            vp = 0
            for j in range(plan[PL_HELD + i]):
                vp += 1 if devs[k + j] == VICTORY_POINT else 0
            k += plan[PL_HELD + i]
            if visible_vp_nb(s, q) + vp >= rules[R_VP_TO_WIN]:
                fits = False
        if fits:
            break
    k = 0
    for i in range(m):
        q = np.int64(plan[PL_SEAT + i])
        held = plan[PL_HELD + i]
        new = plan[PL_NEW + i]
        for card in range(5):
            s[S_DEV_NEW + 5 * q + card] = 0
            s[S_DEV_HAND + 5 * q + card] = 0
        for j in range(held):
            card = np.int64(devs[k + j])
            s[S_DEV_HAND + 5 * q + card] += 1
            if j < new:
                s[S_DEV_NEW + 5 * q + card] += 1
        k += held
        for card in range(5):
            s[C_DEV_BOUGHT + 5 * q + card] = (s[S_DEV_HAND + 5 * q + card]
                                              + s[C_DEV_PLAYED + 5 * q + card])
    pos = np.int64(s[S_DECK_POS])
    for i in range(pos, N_DEV_CARDS):
        s[S_DECK + i] = devs[k]
        k += 1


@kernel
def mirror_record_nb(s, plan, p):
    """Every record of an opponent's hand becomes p's (its low and high ends, from the
    plan, around the hand dealt); each seat's record of its own hand stays exact and
    every record of p's hand is kept."""
    n = np.int64(s[S_N_PLAYERS])
    m = plan[PL_M]
    for i in range(m):
        q = np.int64(plan[PL_SEAT + i])
        for o in range(n):
            if o == q:
                continue
            at = seen_index(o, q)
            for r in range(5):
                hand = s[S_HAND + 5 * q + r]
                low = plan[PL_LOW + 5 * i + r]
                s[S_SEEN_BELOW + at + r] = hand - low
                s[S_SEEN_ABOVE + at + r] = low + plan[PL_WIDTH + 5 * i + r] - hand


@kernel
def log_off_nb(s):
    """Switch the log off and empty it: no row, and no development card's row to fill
    in (a card being played writes its effect into the row it logged)."""
    s[S_LOG_ON] = 0
    s[S_LOG_LEN] = 0
    s[S_DEV_EVENT] = -1


@kernel
def redeal_nb(s, rules, rng, p, seed, plan, table):
    """Make ``s`` one of the states seat p cannot tell from it (the module's docstring),
    drawn from ``seed``; ``plan`` and ``table`` as ``hidden_plan_nb`` and
    ``deal_table_nb`` left them for this position and seat (the same for every draw).
    ``rng`` is reseeded from ``seed``."""
    seed_streams_nb(seed, rng)
    deal_hands_nb(s, plan, table, rng)
    deal_devs_nb(s, rules, plan, rng)
    mirror_record_nb(s, plan, p)
    log_off_nb(s)


@kernel
def reseed_nb(s, rng, seed):
    """The omniscient counterpart of ``redeal_nb``: nothing dealt, the random streams
    reseeded from ``seed`` and the log switched off."""
    seed_streams_nb(seed, rng)
    log_off_nb(s)
