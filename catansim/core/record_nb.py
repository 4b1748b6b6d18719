"""The public record: what each player can know of every player's resource cards.

These only accept NumPy arrays and scalars. Every resource card that changes hands does
so in a public event (the set-up's starting cards, production, builds and development
card purchases, maritime and player trades, discards, Monopoly, Invention), except the
card a robber steals, which only the thief and the victim see. The sizes of all hands
are public (cards are counted on the table). For each observer o and seat q the record
is the interval of q's cards of each resource that the events o has seen allow: the
cards q surely holds (``seen_low_nb``) and the cards it may hold at most
(``seen_high_nb``). Where the events fix a count the two are equal;
``hand size - sum of seen_low`` cards are unknown to o, each one of the resources whose
interval is open. o's record of its own hand is exact.

The state keeps the interval as its two distances from q's hand, ``seen_below`` (hand
less the low end) and ``seen_above`` (the high end less the hand), at
``seen_index(o, q) + r``: a public gain moves the hand and both ends alike and changes
no distance, so production costs the record nothing; a public loss can only shorten
``seen_below`` (``seen_remove_nb``); Monopoly fixes its victims' counts at 0
(``seen_clear_nb``); a steal widens the others' intervals (``seen_steal_nb``). Decisions
read the ends through ``seen_low_nb`` and ``seen_high_nb``, never a hand alone.

Development cards need no record: their number per player is public (the state's
``dev_hand`` summed) and their kinds are never read by another player's decision.

Every update covers all ``MAX_PLAYERS`` observers (seats that do not play see the
public events too and stay consistent), so a caller never loops over observers.

Soundness, that every true count lies in every observer's interval, is checked by
``checker_nb.count_violations_nb`` under rules ``check=1`` (the random-play invariant
suite) and against the plain replay of a game log in ``tests/test_record.py``.

May import: numpy, numba, ``catansim.constants`` and ``core.layout``/``core.jit``.
"""

from ..constants import MAX_PLAYERS
from .jit import inline_kernel, typed_kernel
from .layout import S_HAND, S_SEEN_ABOVE, S_SEEN_BELOW

# Offset of observer o's record of seat q from S_SEEN_BELOW / S_SEEN_ABOVE: o's block of
# MAX_PLAYERS seats, then q's five resources.
OBSERVER_STRIDE = 5 * MAX_PLAYERS


@inline_kernel
def seen_index(o, q):
    """Offset of observer o's record of seat q's five resources (add ``S_SEEN_*``)."""
    return OBSERVER_STRIDE * o + 5 * q


@inline_kernel
def seen_low_nb(s, o, q, r):
    """The cards of resource r that observer o knows seat q surely holds."""
    return s[S_HAND + 5 * q + r] - s[S_SEEN_BELOW + OBSERVER_STRIDE * o + 5 * q + r]


@inline_kernel
def seen_high_nb(s, o, q, r):
    """The cards of resource r that seat q may hold at most, as far as observer o knows."""
    return s[S_HAND + 5 * q + r] + s[S_SEEN_ABOVE + OBSERVER_STRIDE * o + 5 * q + r]


@inline_kernel
def seen_remove_nb(s, q, r):
    """Every observer sees seat q give up cards of resource r (already taken from the
    hand): of the cards q surely held, the cards given are the first to go, so at most
    the hand left is still sure; the high end falls with the hand."""
    hand = s[S_HAND + 5 * q + r]
    for o in range(MAX_PLAYERS):
        i = S_SEEN_BELOW + OBSERVER_STRIDE * o + 5 * q + r
        s[i] = min(s[i], hand)


@typed_kernel("void(int32[::1], int64, int64)")
def seen_clear_nb(s, q, r):
    """Every observer sees that seat q holds no card of resource r (Monopoly took them)."""
    for o in range(MAX_PLAYERS):
        i = OBSERVER_STRIDE * o + 5 * q + r
        s[S_SEEN_BELOW + i] = 0
        s[S_SEEN_ABOVE + i] = 0


@inline_kernel
def _tighten_nb(s, o, q):
    """Narrow o's intervals of q by q's (public) hand size: no resource can hold more than
    the size less what the others surely hold, nor less than the size less what the others
    may hold at most. In distances from the hand the size cancels: with B and A the sums
    of ``seen_below`` and ``seen_above``, above_r <= B - below_r and below_r <= A - above_r
    (both from the distances before narrowing)."""
    base = OBSERVER_STRIDE * o + 5 * q
    below_sum = 0
    above_sum = 0
    for r in range(5):
        below_sum += s[S_SEEN_BELOW + base + r]
        above_sum += s[S_SEEN_ABOVE + base + r]
    for r in range(5):
        below = s[S_SEEN_BELOW + base + r]
        above = s[S_SEEN_ABOVE + base + r]
        s[S_SEEN_ABOVE + base + r] = min(above, below_sum - below)
        s[S_SEEN_BELOW + base + r] = min(below, above_sum - above)


@typed_kernel("void(int32[::1], int64, int64, int64)")
def seen_steal_nb(s, thief, victim, r):
    """The robber's steal of one card of resource r, already moved between the hands.

    The thief and the victim see the card: the victim's loss as any public loss, the
    thief's gain as any public gain. Every other observer sees only that the victim
    lost one card, of a resource it may have held, and the thief gained it: the victim
    may now hold one less of every resource (its low ends fall by one, never below 0),
    and the thief one more of each the victim may have held (high ends rise); then the
    hand sizes narrow both (``_tighten_nb``).
    """
    for o in range(MAX_PLAYERS):
        v = OBSERVER_STRIDE * o + 5 * victim
        t = OBSERVER_STRIDE * o + 5 * thief
        if o == thief or o == victim:
            s[S_SEEN_BELOW + v + r] = min(s[S_SEEN_BELOW + v + r], s[S_HAND + 5 * victim + r])
            continue
        for r2 in range(5):
            hand = s[S_HAND + 5 * victim + r2]  # after the steal
            if r2 == r:
                # the victim held one more: its low end falls by one, its high end stays
                s[S_SEEN_BELOW + v + r2] = min(s[S_SEEN_BELOW + v + r2], hand)
                s[S_SEEN_ABOVE + v + r2] += 1
                s[S_SEEN_BELOW + t + r2] += 1  # the thief's low end stays
            else:
                possible = hand + s[S_SEEN_ABOVE + v + r2] > 0  # o's high end of the victim
                s[S_SEEN_BELOW + v + r2] = min(s[S_SEEN_BELOW + v + r2] + 1, hand)
                s[S_SEEN_ABOVE + t + r2] += 1 if possible else 0
        _tighten_nb(s, o, victim)
        _tighten_nb(s, o, thief)
