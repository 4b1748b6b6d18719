"""A position of a game log: the state after one event, as the checker replays it.

``position(header, events, at)`` replays (and checks) the log's events up to event
``at`` (-1: none, the game's start) and returns a ``Position``: the checker's state
there (``ReplayResult``, in our numbering), where the turn stands, and what the state
alone does not keep (each seat's public record of every hand, the development cards
drawn in order, the starting nodes, each turn's visible points).
``catansim.game.Game.from_log`` turns it into a game. ``positions(header, events, ats)``
gives the positions after several events in one replay (``Game.from_position`` turns
each into a game).

Some events are made by the rules at once after the one before, with no decision and
no chance between them: the starting resources after a second set-up road, the
production after a roll, a Longest Route or Largest Army change, and the game's end.
A position never stands between such an event and the one before it: ``at`` is moved
on to the last of them (``Position.at`` says where it stands).
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from dataclasses import dataclass, field

from ..constants import DEV_CARD_NAMES, MAX_PLAYERS, RESOURCE_NAMES
from ..errors import CatansimError
from .checker import TERRAIN_RESOURCE, ReplayResult, _Replayer
from .record import PlainRecord

# The events the rules make at once after the event before them (see the module text).
AUTOMATIC = ("starting_resources", "production", "longest_route", "largest_army", "game_end")


@dataclass
class Position:
    """The state after event ``at`` of a log (numbers in our numbering).

    Attributes
    ----------
    at : int
        The last event the position includes (the one asked for, or an event the rules
        made at once after it: see the module text); -1 the start, before any event.
    state : ReplayResult
        The checker's state: hands, supply, development cards, pieces, robber, tiles.
    header : dict
        The log's header.
    phase : str
        Where the turn stands: ``setup``, ``between`` (after a turn's end), ``pre_roll``,
        ``discard``, ``robber`` (after a 7), ``main`` or ``over``.
    turn : int
        The turn (0 in the set-up).
    active : int or None
        The seat whose turn it is (None in the set-up).
    setup_placements : int
        Set-up settlements placed with their road.
    setup_road_due : bool
        A set-up settlement is placed and its road comes next.
    setup_seat : int or None
        The seat that placed the last set-up settlement.
    discards_due : list of int
        Seats that still discard on this 7, in order.
    knight_robber_due : bool
        A knight was played and its robber moves next.
    free_roads : int or None
        Roads built so far by the Road Building card being played (None: none played).
    dev_played : bool
        A development card was played this turn.
    rolled : bool
        This turn's roll is over (its production, or its 7's discards and robber).
    after_roll : bool
        The roll is just over: no event since its last.
    count : int
        What the engine's state field ``step`` counts there: set-up placements made; on
        a 7 the seat after the last to discard; Road Building roads built.
    last_card : str or None
        When the last development card of the game was played: ``pre_roll`` or ``main``.
    last_robber : str or None
        What the robber's last move came after: ``seven``, or a knight ``pre_roll`` or in
        the ``main`` phase.
    dev_new : list of dict
        Each seat's development cards bought this turn.
    drawn : list of int
        The development cards drawn so far, in order (indices of ``DEV_CARD_NAMES``).
    deck_left : list of int
        The undrawn deck, cards of each kind (``DEV_CARD_NAMES`` order).
    record_low, record_high : list
        ``[o][q][r]`` for ``MAX_PLAYERS`` observers: the cards of resource r that
        observer o knows seat q surely holds, and may hold at most (``logs.record``).
    start_nodes : list of list of int
        Each seat's set-up settlement nodes (-1 not placed).
    visible_at_turn_end : dict
        Turn -> every seat's visible points at its end (and, once a game is won, at the
        win).
    tallies : dict
        Counts of the game so far that need the state at each event: ``blocked`` (per
        seat, the cards the robber's hex would have paid), ``withheld`` (per seat and
        resource, the cards owed but not paid by the shortage rule), ``sole_recipient``
        (per resource, the short rolls with one seat alone owed it), ``withheld_leader``
        (the cards withheld from the seat leading alone in visible points),
        ``leader_chances`` (robber moves while an opponent of the mover led alone) and
        ``robbed_leader`` (of them, the moves whose victim was that leader).
    events : list of dict
        The log's events up to ``at``.
    """

    at: int
    state: ReplayResult
    header: dict
    phase: str
    turn: int
    active: int | None
    setup_placements: int
    setup_road_due: bool
    setup_seat: int | None
    discards_due: list
    knight_robber_due: bool
    free_roads: int | None
    dev_played: bool
    rolled: bool
    after_roll: bool
    count: int
    last_card: str | None
    last_robber: str | None
    dev_new: list
    drawn: list
    deck_left: list
    record_low: list
    record_high: list
    start_nodes: list
    visible_at_turn_end: dict
    tallies: dict
    events: list = field(repr=False)


def position(header: dict, events: list[dict], at: int | None = None) -> Position:
    """The position after event ``at`` (None: the last; -1: the start, before the first
    event) of the log ``header``, ``events``.

    The events up to it are checked as ``replay`` checks them (a broken rule or a
    malformed event is a ``LogError`` naming the event); those after it are not read,
    but to see whether the rules made them at once (then the position includes them).

    Raises
    ------
    LogError
        The header or an event up to the position breaks the format or a rule.
    CatansimError
        ``at`` is not the index of an event.
    """
    return next(positions(header, events, [at]))


def positions(header: dict, events: list[dict], ats) -> Iterator[Position]:
    """The positions after each event of ``ats`` (as ``position`` takes ``at``), in one
    replay of the log: one for each distinct ``at``, in ascending order, each as
    ``position`` gives it (two ``at`` that stand at the same position share it).

    The replay stops at the last position asked for; a ``LogError`` of an event comes
    when the replay reaches it (after the positions before it)."""
    if not isinstance(events, list) or not events:
        raise CatansimError("from_log: the log has no events; allowed: a log with at least "
                            "one event after its header")
    last = len(events) - 1
    wanted = sorted({_checked_at(at, last) for at in ats})
    walk = _Walk(header)
    done = 0  # events replayed
    for asked in wanted:
        at = standing(events, asked)
        if at + 1 > done:
            walk.replayer.run(events[done : at + 1], walk.observe, complete=False, start=done)
            done = at + 1
        yield walk.position(at, events)


def standing(events: list[dict], at: int) -> int:
    """The last event the position after event ``at`` includes: ``at``, or the last of
    the events the rules made at once after it (the module text)."""
    last = len(events) - 1
    while at < last and isinstance(events[at + 1], dict) and events[at + 1].get(
            "e") in AUTOMATIC:
        at += 1
    return at


def _checked_at(at, last: int) -> int:
    if at is None:
        return last
    if isinstance(at, bool) or not isinstance(at, int) or not -1 <= at <= last:
        raise CatansimError(f"from_log: at {at!r} is not an event of the log; allowed: an "
                            f"event index in -1..{last} (-1: the start, before the first "
                            "event; None: the last)")
    return at


class _Walk:
    """The checker's replay with what a position needs beside its state, kept event by
    event (``observe``), and the position where the replay stands (``position``)."""

    def __init__(self, header: dict):
        self.header = header
        r = self.replayer = _Replayer(header, check=True)
        self.record = PlainRecord(r.n, observers=MAX_PLAYERS)
        self.drawn: list[int] = []
        self.starts = [[-1, -1] for _ in range(r.n)]
        self.visible: dict[int, list[int]] = {}
        self.tallies = {"blocked": [0] * r.n, "withheld": [[0] * 5 for _ in range(r.n)],
                        "sole_recipient": [0] * 5, "withheld_leader": 0,
                        "leader_chances": 0, "robbed_leader": 0}
        self.flags = {"after_roll": False, "phase": r.phase, "rolled": False, "count": 0,
                      "last_card": None, "last_robber": None, "knight": None,
                      "free_road": False}

    def observe(self, state, ev) -> None:
        flags, tallies, starts = self.flags, self.tallies, self.starts
        name, before = ev["e"], flags["phase"]
        self.record.apply(ev)
        if name == "buy_dev":
            self.drawn.append(DEV_CARD_NAMES.index(ev["card"]))
        elif name == "setup_settlement":
            slot = 0 if starts[ev["p"]][0] < 0 else 1
            starts[ev["p"]][slot] = state.geo.our_node[ev["node"]]
        elif name == "turn_end" or (name == "game_end" and ev["reason"] == "win"):
            self.visible[state.turn] = [state.visible_vp(q) for q in range(state.n)]
        elif name == "turn_start":
            flags["rolled"] = False
        elif name == "play_dev":
            flags["last_card"] = "pre_roll" if before == "pre_roll" else "main"
            if ev["card"] == "knight":
                flags["knight"] = flags["last_card"]
            elif ev["card"] == "road_building":
                flags["count"] = 0
        elif name == "robber":
            flags["last_robber"] = flags["knight"] or "seven"
            flags["knight"] = None
            leader = _sole_leader(state)
            if leader is not None and leader != ev["p"]:
                tallies["leader_chances"] += 1
                tallies["robbed_leader"] += ev["victim"] == leader
        elif name == "production":
            _tally_production(state, ev, tallies)
        if name == "roll" and sum(ev["dice"]) == 7:
            flags["count"] = 0
        elif name == "discard":
            flags["count"] = ev["p"] + 1
        elif name == "build_road" and ev["free"] is True:
            flags["count"] += 1  # taken back below if the road won the game
        elif name == "game_end" and flags["free_road"]:
            flags["count"] -= 1
        elif state.phase == "setup":
            flags["count"] = 2 * state.n - len(state.setup_queue)
        elif name == "starting_resources" or (name == "setup_road" and not state.setup_queue):
            flags["count"] = 0  # the set-up is over
        if state.phase == "main":
            flags["rolled"] = True
        if name not in ("longest_route", "largest_army"):
            flags["free_road"] = name == "build_road" and ev["free"] is True
            flags["after_roll"] = state.phase == "main" and before != "main"
        flags["phase"] = state.phase

    def position(self, at: int, events: list[dict]) -> Position:
        """The position after event ``at``, where the replay stands (a copy: the replay
        may go on)."""
        r, flags, header = self.replayer, self.flags, self.header
        state = r.result()
        state.snapshots = copy.deepcopy(state.snapshots)
        state.log = (header, events[: at + 1])
        phase = "over" if r.ended else "between" if r.phase == "limit" else r.phase
        if phase == "production":
            raise CatansimError(f"from_log: event {at} is a roll whose production event is "
                                "missing; allowed: a log with the production after each roll")
        return Position(
            at=at, state=state, header=header, phase=phase, turn=r.turn, active=r.active,
            setup_placements=2 * r.n - len(r.setup_queue),
            setup_road_due=r.phase == "setup" and r.setup_step == "road",
            setup_seat=r.setup_seat, discards_due=list(r.discards_due),
            knight_robber_due=r.knight_robber_due, free_roads=r.free_roads,
            dev_played=r.dev_played, rolled=flags["rolled"], after_roll=flags["after_roll"],
            count=flags["count"], last_card=flags["last_card"],
            last_robber=flags["last_robber"], dev_new=[dict(d) for d in r.dev_new],
            drawn=list(self.drawn), deck_left=[r.deck[c] for c in DEV_CARD_NAMES],
            record_low=copy.deepcopy(self.record.low),
            record_high=copy.deepcopy(self.record.high),
            start_nodes=copy.deepcopy(self.starts),
            visible_at_turn_end=copy.deepcopy(self.visible),
            tallies=copy.deepcopy(self.tallies), events=events[: at + 1])


def _sole_leader(state) -> int | None:
    """The seat with strictly the most visible points, None when the lead is shared."""
    points = [state.visible_vp(q) for q in range(state.n)]
    top = max(points)
    return points.index(top) if points.count(top) == 1 else None


def _tally_production(state, ev, tallies) -> None:
    """A production event's blocked and withheld cards (the state after it: the pieces
    and the robber as they were at the roll)."""
    total, geo = sum(state.last_dice), state.geo
    owed = [[0] * 5 for _ in range(state.n)]
    for h in range(19):
        if geo.hex_number[h] != total:
            continue
        res = TERRAIN_RESOURCE[geo.hex_terrain[h]]
        for node in geo.hex_nodes[h]:
            seat, level = state.buildings.get(node, (None, 0))
            if seat is None:
                continue
            if h == state.robber and state.robber_mode != "off":
                tallies["blocked"][seat] += level
            elif res is not None:
                owed[seat][RESOURCE_NAMES.index(res)] += level
    leader = _sole_leader(state)
    for r, short in enumerate(ev["withheld"]):
        if short > 0:
            tallies["sole_recipient"][r] += sum(owed[q][r] > 0 for q in range(state.n)) == 1
        for q in range(state.n):
            lost = owed[q][r] - ev["gains"][q][r]
            tallies["withheld"][q][r] += lost
            if short > 0 and q == leader:
                tallies["withheld_leader"] += lost
