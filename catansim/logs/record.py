"""The public record replayed from a game log, written from its definition.

Every resource card that changes hands does so in a public event, except the card a
robber steals, which only the thief and the victim see. For each observer o and seat q
the record is the interval of q's cards of each resource that the events o has seen
allow: the cards q surely holds (``low``) and may hold at most (``high``). This is the
plain twin of the engine's ``core.record_nb`` (``tests/test_record.py`` checks the two
agree at the end of every game): ``Game.from_log`` takes the record of a position from
here, so that a position read from a log knows what each seat knew.
"""

from __future__ import annotations

from ..constants import COSTS, MAX_PLAYERS, RESOURCE_NAMES

BUILD_COST = {
    "build_road": COSTS[0:5],
    "build_settlement": COSTS[5:10],
    "build_city": COSTS[10:15],
    "buy_dev": COSTS[15:20],
}


class PlainRecord:
    """The record replayed from a log's events (``apply`` each in turn).

    Attributes
    ----------
    hands : list of list of int
        Every seat's resource cards.
    low, high : list of list of list of int
        ``[o][q][r]``: the cards of resource r observer o knows seat q surely holds, and
        may hold at most. Observers are ``observers`` seats (the seats playing by
        default; the engine keeps ``MAX_PLAYERS``, a seat that does not play seeing
        the public events as any other).
    """

    def __init__(self, n: int, observers: int | None = None):
        self.n = n
        self.observers = n if observers is None else observers
        assert n <= self.observers <= MAX_PLAYERS
        self.hands = [[0] * 5 for _ in range(n)]
        self.low = [[[0] * 5 for _ in range(n)] for _ in range(self.observers)]
        self.high = [[[0] * 5 for _ in range(n)] for _ in range(self.observers)]

    def gain(self, q, r, k, observers=None):
        for o in range(self.observers) if observers is None else observers:
            self.low[o][q][r] += k
            self.high[o][q][r] += k

    def lose(self, q, r, k, observers=None):
        for o in range(self.observers) if observers is None else observers:
            self.low[o][q][r] = max(self.low[o][q][r] - k, 0)
            self.high[o][q][r] -= k

    def move(self, q, cards, sign):
        for r, k in enumerate(cards):
            self.hands[q][r] += sign * k
            (self.gain if sign > 0 else self.lose)(q, r, k)

    def tighten(self, o, q):
        """Narrow o's intervals of q by q's (public) hand size."""
        size = sum(self.hands[q])
        low, high = self.low[o][q], self.high[o][q]
        low_sum, high_sum = sum(low), sum(high)
        new_high = [min(high[r], size - (low_sum - low[r])) for r in range(5)]
        new_low = [max(low[r], size - (high_sum - high[r])) for r in range(5)]
        self.low[o][q], self.high[o][q] = new_low, new_high

    def steal(self, thief, victim, r):
        """The robber's steal of one card of resource r: seen by thief and victim only."""
        self.hands[victim][r] -= 1
        self.hands[thief][r] += 1
        self.lose(victim, r, 1, observers=(thief, victim))
        self.gain(thief, r, 1, observers=(thief, victim))
        for o in range(self.observers):
            if o in (thief, victim):
                continue
            for r2 in range(5):
                if self.high[o][victim][r2] > 0:  # the stolen card may have been r2
                    self.high[o][thief][r2] += 1
                self.low[o][victim][r2] = max(self.low[o][victim][r2] - 1, 0)
            self.tighten(o, victim)
            self.tighten(o, thief)

    def apply(self, ev: dict) -> None:
        """One event of the log format (``docs/game-log.md``), already checked."""
        e = ev["e"]
        if e == "starting_resources":
            self.move(ev["p"], ev["cards"], +1)
        elif e == "production":
            for q, gains in enumerate(ev["gains"]):
                self.move(q, gains, +1)
        elif e == "discard":
            self.move(ev["p"], ev["cards"], -1)
        elif e == "robber" and ev["stolen"] is not None:
            self.steal(ev["p"], ev["victim"], RESOURCE_NAMES.index(ev["stolen"]))
        elif e == "trade_bank":
            self.move(ev["p"], ev["give"], -1)
            self.move(ev["p"], ev["get"], +1)
        elif e == "trade_player":
            p, q = ev["p"], ev["partner"]
            self.move(p, ev["give"], -1)
            self.move(p, ev["get"], +1)
            self.move(q, ev["get"], -1)
            self.move(q, ev["give"], +1)
        elif e in BUILD_COST and not ev.get("free", False):
            self.move(ev["p"], BUILD_COST[e], -1)
        elif e == "play_dev" and ev["card"] == "invention":
            self.move(ev["p"], ev["cards"], +1)
        elif e == "play_dev" and ev["card"] == "monopoly":
            r = RESOURCE_NAMES.index(ev["resource"])
            for q, taken in enumerate(ev["taken"]):
                if q != ev["p"]:
                    self.hands[q][r] -= taken
                    for o in range(self.observers):
                        self.low[o][q][r] = self.high[o][q][r] = 0
                    self.hands[ev["p"]][r] += taken
                    self.gain(ev["p"], r, taken)
