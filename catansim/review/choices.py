"""The choices a log's events record, as the game's options (in catansim's numbering).

Most events are one decision of one seat: a build, a roll, a discard, the end of a
turn. A few record two: a robber's move and its victim (the steal), a development
card played and what Invention takes or Monopoly names, and a player trade (the offer
of the seat whose turn it is, then its partner's acceptance). The second decision has
no position of the log before it (the event records both), so it is reached by
playing the first on from the position before the event (``moves``).

A roll is a decision (rather than a card before it) unless a card was played before
it: then the rules roll at once.

The robber's hex, a node or an edge in the log is in its writer's numbering (the
header's geometry, ``logs.checker.Geometry``); an option is in ours.
"""

from __future__ import annotations

from typing import NamedTuple

from ..constants import DEV_CARD_NAMES, RESOURCE_NAMES
from ..game import Option
from ..logs.checker import Geometry


class Choice(NamedTuple):
    """One decision an event records: the seat that made it, the decision it answers
    when it comes after another choice of the same event (``None``: the first, the
    decision pending at the position before the event) and the option chosen."""

    seat: int
    after: str | None
    option: Option


def _cards(ev: dict, key: str) -> tuple:
    return tuple(int(x) for x in ev[key])


def event_choices(ev: dict, geo: Geometry) -> list[Choice]:
    """The decisions event ``ev`` records, in the order they were made ([] for an event
    the rules make: a turn's start, production, a tile changing hands, the end)."""
    e, p = ev["e"], ev.get("p")
    if e in ("setup_settlement", "build_settlement"):
        return [Choice(p, None, Option("settlement", geo.our_node[ev["node"]]))]
    if e in ("setup_road", "build_road"):
        return [Choice(p, None, Option("road", geo.our_edge[ev["edge"]]))]
    if e == "build_city":
        return [Choice(p, None, Option("city", geo.our_node[ev["node"]]))]
    if e == "roll":
        return [Choice(p, None, Option("roll"))]
    if e == "discard":
        return [Choice(p, None, Option("discard", give=_cards(ev, "cards")))]
    if e == "robber":
        move = [Choice(p, None, Option("robber", geo.our_hex[ev["hex"]]))]
        if ev["victim"] is None:
            return move
        return [*move, Choice(p, "robber victim", Option("steal", ev["victim"]))]
    if e == "trade_bank":
        return [Choice(p, None, Option("maritime", give=_cards(ev, "give"),
                                       get=_cards(ev, "get")))]
    if e == "trade_player":
        offer = Option("offer", ev["partner"], give=_cards(ev, "give"), get=_cards(ev, "get"))
        return [Choice(p, None, offer), Choice(ev["partner"], "trade answer", Option("accept"))]
    if e == "buy_dev":
        return [Choice(p, None, Option("buy"))]
    if e == "turn_end":
        return [Choice(p, None, Option("end"))]
    if e == "play_dev":
        play = [Choice(p, None, Option("play", DEV_CARD_NAMES.index(ev["card"])))]
        if ev["card"] == "invention":
            return [*play, Choice(p, "Invention", Option("invention", get=_cards(ev, "cards")))]
        if ev["card"] == "monopoly":
            return [*play, Choice(p, "Monopoly",
                                  Option("monopoly", RESOURCE_NAMES.index(ev["resource"])))]
        return play
    return []


def log_choices(header: dict, events: list[dict]) -> list[list[Choice]]:
    """The decisions each event of the log records (``event_choices``), but for the roll
    after a development card played before it, which the rules make at once (one card
    a turn: no choice is left before the roll)."""
    geo = Geometry(header["board"])
    out, rolled, carded = [], False, False
    for ev in events:
        e = ev["e"]
        if e == "turn_start":
            rolled = carded = False
        elif e == "play_dev" and not rolled:
            carded = True
        elif e == "roll":
            rolled = True
            if carded:
                out.append([])
                continue
        out.append(event_choices(ev, geo))
    return out


def decision_events(choices: list[list[Choice]], seat: int) -> list[int]:
    """The events that record a decision of ``seat`` (``choices``: ``log_choices``)."""
    return [k for k, made in enumerate(choices) if any(c.seat == seat for c in made)]
