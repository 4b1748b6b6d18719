"""The public record: what each player can know of every player's resource cards.

These only accept NumPy arrays and scalars. Every resource card that changes hands does
so in a public event (the set-up's starting cards, production, builds and development
card purchases, maritime and player trades, discards, Monopoly, Invention), except the
card a robber steals, which only the thief and the victim see. The sizes of all hands
are public (cards are counted on the table). For each observer o and seat q the state
keeps the interval of q's cards of each resource that the events o has seen allow:
``s[S_SEEN_LOW + i]`` cards surely held and ``s[S_SEEN_HIGH + i]`` cards held at most,
with ``i = (MAX_PLAYERS * o + q) * 5 + r`` (``seen_index``). Where the events fix a
count the two are equal; ``hand size - sum of seen_low`` cards are unknown to o, each
one of the resources whose interval is open. o's record of its own hand is exact.

Development cards need no record: their number per player is public (the state's
``dev_hand`` summed) and their kinds are never read by another player's decision.

Every function below updates the records of all ``MAX_PLAYERS`` observers (seats that
do not play see the public events too and stay consistent), so a caller never loops
over observers. The two of every card's move (``seen_add_nb``, ``seen_remove_nb``) are
inlined into their callers: production calls them for every seat on every roll.

Soundness, that every true count lies in every observer's interval, is checked by
``engine_nb.count_violations_nb`` under rules ``check=1`` (the random-play invariant
suite) and against the plain replay of a game log in ``tests/test_record.py``.

May import: numpy, numba, ``catansim.constants`` and ``core.layout``/``core.jit``.
"""

from ..constants import MAX_PLAYERS
from .jit import inline_kernel, typed_kernel
from .layout import S_SEEN_HIGH, S_SEEN_LOW

# Offset of observer o's record of seat q from S_SEEN_LOW / S_SEEN_HIGH: o's block of
# MAX_PLAYERS seats, then q's five resources.
OBSERVER_STRIDE = 5 * MAX_PLAYERS


@inline_kernel
def seen_index(o, q):
    """Offset of observer o's record of seat q's five resources (add ``S_SEEN_*``)."""
    return OBSERVER_STRIDE * o + 5 * q


@inline_kernel
def seen_add_nb(s, q, r, k):
    """Every observer sees seat q receive ``k`` cards of resource r (k >= 0)."""
    for o in range(MAX_PLAYERS):
        i = OBSERVER_STRIDE * o + 5 * q + r
        s[S_SEEN_LOW + i] += k
        s[S_SEEN_HIGH + i] += k


@inline_kernel
def seen_remove_nb(s, q, r, k):
    """Every observer sees seat q give up ``k`` cards of resource r (k >= 0).

    q held at least k, so at most ``high - k`` are left; of the cards q surely held,
    ``low - k`` if that is positive.
    """
    for o in range(MAX_PLAYERS):
        i = OBSERVER_STRIDE * o + 5 * q + r
        s[S_SEEN_LOW + i] = max(s[S_SEEN_LOW + i] - k, 0)
        s[S_SEEN_HIGH + i] -= k


@typed_kernel("void(int32[::1], int64, int64)")
def seen_clear_nb(s, q, r):
    """Every observer sees that seat q holds no card of resource r (Monopoly took them)."""
    for o in range(MAX_PLAYERS):
        i = OBSERVER_STRIDE * o + 5 * q + r
        s[S_SEEN_LOW + i] = 0
        s[S_SEEN_HIGH + i] = 0


@typed_kernel("void(int32[::1], int64, int64, int64)")
def _tighten_nb(s, o, q, size):
    """Narrow o's intervals of q by q's (public) hand size: no resource can hold more than
    the size less what the others surely hold, nor less than the size less what the others
    may hold at most."""
    base = OBSERVER_STRIDE * o + 5 * q
    low_sum = 0
    high_sum = 0
    for r in range(5):
        low_sum += s[S_SEEN_LOW + base + r]
        high_sum += s[S_SEEN_HIGH + base + r]
    for r in range(5):
        lo = s[S_SEEN_LOW + base + r]
        hi = s[S_SEEN_HIGH + base + r]
        s[S_SEEN_HIGH + base + r] = min(hi, size - (low_sum - lo))
        s[S_SEEN_LOW + base + r] = max(lo, size - (high_sum - hi))


@typed_kernel("void(int32[::1], int64, int64, int64, int64, int64)")
def seen_steal_nb(s, thief, victim, r, thief_size, victim_size):
    """The robber's steal of one card of resource r, already moved between the hands,
    which now hold ``thief_size`` and ``victim_size`` cards (public counts).

    The thief and the victim see the card; every other observer sees only that the
    victim lost one card, of a resource it may have held, and the thief gained it.
    """
    for o in range(MAX_PLAYERS):
        v = OBSERVER_STRIDE * o + 5 * victim
        t = OBSERVER_STRIDE * o + 5 * thief
        if o == thief or o == victim:
            s[S_SEEN_LOW + v + r] = max(s[S_SEEN_LOW + v + r] - 1, 0)
            s[S_SEEN_HIGH + v + r] -= 1
            s[S_SEEN_LOW + t + r] += 1
            s[S_SEEN_HIGH + t + r] += 1
            continue
        for r2 in range(5):
            possible = s[S_SEEN_HIGH + v + r2] > 0
            s[S_SEEN_LOW + v + r2] = max(s[S_SEEN_LOW + v + r2] - 1, 0)
            s[S_SEEN_HIGH + t + r2] += 1 if possible else 0
        _tighten_nb(s, o, victim, victim_size)
        _tighten_nb(s, o, thief, thief_size)
