"""What a seat cannot see, dealt anew from its observation: the plain twin of
``core.determinize_nb``.

``deal(observation, seed)`` draws one of the positions the observer cannot tell from the
true one, as ``Game.determinize`` does in compiled code, and from the same seed the same
one: the same weights, the same random draws (splitmix64, as ``core.rng_nb``), in the
same order. It reads the ``Observation`` only, so the kernel that draws what it draws
reads nothing the seat may not know (``tests/test_determinize.py``).

- **Resource cards.** The opponents' hands within the observer's record (``known_low``
  to ``known_high``; while it answers a trade offer, its maker holds what it offers),
  each of its size, together holding what the supply's size less
  the supply and the observer's hand leaves. Every deal of the (distinct) cards that
  fits is equally likely: a count matrix H has weight prod 1 / H[q, r]!.
- **Development cards.** The cards the observer has not seen (25 less its own and every
  card played), shuffled and dealt: each opponent its new cards, then its other
  unplayed cards, then the undrawn deck. A deal giving an opponent the winning total
  with its victory point cards is dealt again (``MAX_REDEALS``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...constants import DEV_CARD_COUNTS, VICTORY_POINT
from ...errors import CatansimError
from ...game import Observation

MAX_REDEALS = 100  # as core.determinize_nb

_M64 = (1 << 64) - 1
_GAMMA = 0x9E3779B97F4A7C15
_M1 = 0xBF58476D1CE4E5B9
_M2 = 0x94D049BB133111EB
_INV53 = 1.0 / 9007199254740992.0


def _mix64(z: int) -> int:
    z = ((z ^ (z >> 30)) * _M1) & _M64
    z = ((z ^ (z >> 27)) * _M2) & _M64
    return z ^ (z >> 31)


class Stream:
    """The board stream of a game of ``seed`` (``core.rng_nb``, stream 0), in Python."""

    def __init__(self, seed: int):
        self.state = _mix64((_mix64(seed & _M64) + _GAMMA) & _M64)

    def uniform(self) -> float:
        self.state = (self.state + _GAMMA) & _M64
        return (_mix64(self.state) >> 11) * _INV53

    def randint(self, n: int) -> int:
        return int(self.uniform() * n)

    def shuffle(self, items: list) -> None:
        for i in range(len(items) - 1, 0, -1):
            j = self.randint(i + 1)
            items[i], items[j] = items[j], items[i]


@dataclass
class Deal:
    """One deal of what the observer cannot see: every seat's ``hand``,
    ``development_cards`` and ``new_development_cards`` (the observer's own as they are),
    and the undrawn ``deck`` in draw order."""

    hands: np.ndarray
    development_cards: np.ndarray
    new_development_cards: np.ndarray
    deck: list[int]


def _fall(low: int, x: int) -> float:
    """low! / (low + x)!, one division a card (as the kernel)."""
    v = 1.0
    for k in range(1, x + 1):
        v /= low + k
    return v


class _Plan:
    """What the observer knows of the opponents' hands."""

    def __init__(self, obs: Observation):
        self.seats = [q for q in range(obs.n_players) if q != obs.seat]
        low, high = obs.known_low, obs.known_high
        self.low = [[int(low[q, r]) for r in range(5)] for q in self.seats]
        if obs.decision == "trade answer" and obs.to_move == obs.seat:
            # the seat whose turn it is holds the cards it offers
            maker = self.seats.index(obs.current_player)
            self.low[maker] = [max(x, g) for x, g in zip(self.low[maker], obs.offer.give,
                                                        strict=True)]
        self.width = [[int(high[q, r]) - lo[r] for r in range(5)]
                      for q, lo in zip(self.seats, self.low, strict=True)]
        self.need = [int(obs.hand_sizes[q]) - sum(lo) for q, lo in zip(self.seats, self.low,
                                                                     strict=True)]
        supply = obs.rules.supply_size
        self.pool = [supply - int(obs.supply[r]) - int(obs.hand[r])
                     - sum(lo[r] for lo in self.low) for r in range(5)]
        self.m = len(self.seats)

    def terms(self, r: int, a: int, b: int, x0: int, x1: int) -> float:
        """The weight of x0, x1 more cards of resource r to opponents 0 and 1 (the last
        takes the rest), 0.0 outside an interval."""
        m, last = self.m, self.m - 1
        if x0 > self.width[0][r] or a + x0 > self.need[0]:
            return 0.0
        rest = self.pool[r] - x0
        t = _fall(self.low[0][r], x0)
        if m == 3:
            if x1 > self.width[1][r] or b + x1 > self.need[1]:
                return 0.0
            rest -= x1
            t = t * _fall(self.low[1][r], x1)
        if rest < 0 or rest > self.width[last][r]:
            return 0.0
        return t * _fall(self.low[last][r], rest)

    def table(self) -> dict:
        """The summed weight of every way to deal resources r..4 from (a, b) on."""
        n0 = self.need[0]
        n1 = self.need[1] if self.m == 3 else 0
        f = {(5, a, b): 1.0 if (a, b) == (n0, n1) else 0.0
             for a in range(n0 + 1) for b in range(n1 + 1)}
        for r in range(4, -1, -1):
            for a in range(n0 + 1):
                for b in range(n1 + 1):
                    acc = 0.0
                    for x0 in range(n0 - a + 1):
                        for x1 in range(n1 - b + 1):
                            t = self.terms(r, a, b, x0, x1)
                            if t > 0.0:
                                acc += t * f[r + 1, a + x0, b + x1]
                    f[r, a, b] = acc
        return f


def deal(obs: Observation, seed: int) -> Deal:
    """One deal of what ``obs.seat`` cannot see, drawn from ``seed`` (the module's
    docstring); a one-line ``CatansimError`` if no deal fits the observation (one made
    by hand)."""
    plan = _Plan(obs)
    stream = Stream(seed)
    n0 = plan.need[0]
    n1 = plan.need[1] if plan.m == 3 else 0
    if (sum(plan.pool) != sum(plan.need) or min(plan.need) < 0 or min(plan.pool) < 0
            or min(min(w) for w in plan.width) < 0):
        raise CatansimError("deal: the record, the hand sizes and the supply disagree"
                           "; allowed: the observation of a position a game reached")
    f = plan.table()
    if f[0, 0, 0] <= 0.0:
        raise CatansimError("deal: no deal of the hidden cards fits the record"
                           "; allowed: the observation of a position a game reached")
    hands = np.zeros((obs.n_players, 5), dtype=np.int64)
    hands[obs.seat] = obs.hand
    a = b = 0
    for r in range(5):
        target = stream.uniform() * f[r, a, b]
        acc, pick = 0.0, None
        for x0 in range(n0 - a + 1):
            for x1 in range(n1 - b + 1):
                t = plan.terms(r, a, b, x0, x1)
                if t > 0.0:
                    w = t * f[r + 1, a + x0, b + x1]
                    if w > 0.0:
                        acc += w
                        if pick is None or acc - w <= target:
                            pick = (x0, x1)
        x0, x1 = pick
        x1 = x1 if plan.m == 3 else 0
        counts = [x0, x1][: plan.m - 1] + [plan.pool[r] - x0 - x1]
        for i, q in enumerate(plan.seats):
            hands[q, r] = plan.low[i][r] + counts[i]
        a, b = a + x0, b + x1
    return _deal_devs(obs, plan, stream, hands)


def _deal_devs(obs: Observation, plan: _Plan, stream: Stream, hands: np.ndarray) -> Deal:
    own = obs.development_cards
    played = obs.development_played.sum(axis=0)
    devs = [card for card in range(5)
            for _ in range(DEV_CARD_COUNTS[card] - int(own[card]) - int(played[card]))]
    held = {q: int(obs.development_counts[q]) for q in plan.seats}
    new = {q: int(obs.new_development_counts[q]) for q in plan.seats}
    if len(devs) != sum(held.values()) + obs.deck_left:
        raise CatansimError("deal: the development cards held, played and left "
                           "disagree; allowed: the observation of a position a game reached")
    listed = list(devs)
    for _ in range(MAX_REDEALS):
        devs = list(listed)
        stream.shuffle(devs)
        at, fits = 0, True
        for q in plan.seats:
            vp = sum(1 for c in devs[at : at + held[q]] if c == VICTORY_POINT)
            at += held[q]
            if int(obs.visible_points[q]) + vp >= obs.rules.vp_to_win:
                fits = False
        if fits:
            break
    cards = np.zeros((obs.n_players, 5), dtype=np.int64)
    fresh = np.zeros((obs.n_players, 5), dtype=np.int64)
    cards[obs.seat] = own
    fresh[obs.seat] = obs.new_development_cards
    at = 0
    for q in plan.seats:
        for j in range(held[q]):
            cards[q, devs[at + j]] += 1
            if j < new[q]:
                fresh[q, devs[at + j]] += 1
        at += held[q]
    return Deal(hands, cards, fresh, devs[at:])

