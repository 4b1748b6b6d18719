"""Trades: a player-trade offer and the answer to one, and a maritime trade toward a build
(``docs/strategies.md``, Trading).

What the observer reckons of a partner's hand is the public record (``Observation``'s
``known_low`` and ``known_high``), or, for an ``information = "omniscient"`` strategy,
the true cards (``Hidden``).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ...constants import KNIGHT
from ...game import Observation, Option
from ...rules import MAX_OFFERS
from .plan import COST, Plan, own_plan, plan
from .table import best_of, maritime_rate, missing, one_card, production
from .weights import Weights


class Hidden(NamedTuple):
    """What an ``information = "omniscient"`` player reads beyond its observation: every
    seat's resource cards and development cards (int[n, 5] each, as in the state)."""

    hands: np.ndarray
    development_cards: np.ndarray


def may_hold(obs: Observation, seat: int, resource: int, hidden: Hidden | None) -> bool:
    """``seat`` may hold a card of ``resource``: its record's high end is above 0
    (omniscient: it does)."""
    if hidden is not None:
        return hidden.hands[seat][resource] > 0
    return obs.known_high[seat][resource] > 0


def trade_offers(obs: Observation, w: Weights, mine: Plan, offers_made: int,
                 hidden: Hidden | None = None) -> list[Option]:
    """The player-trade offers toward the top build (which misses cards); [] for none.

    One card it does not need for the top build, for one card of the resource that
    build misses most, to an opponent who may hold that card and who, as far as the
    observer can know, holds it beyond its own next build (planned from the cards it
    surely holds and its unplayed development cards counted as Knights; omniscient:
    its true cards and Knights) and lacks the card offered for that build. The card
    offered is the one with most to spare among those the partner lacks. At most
    ``offers`` offers a turn, and at most the engine's ``MAX_OFFERS``.

    With ``offer_two`` on and at least two cards to spare (``want`` aside), when no
    partner lacks a card offered, two spare cards (each the one with most left to spare)
    go to a partner holding ``want`` beyond its own next build. With ``offer_ask`` k,
    up to k more cards are asked (``ask_more``); with ``offer_haggle`` on, only in the
    turn's first offer.

    The kernel asks the opponents in turn from a place drawn from the seat's own random
    stream, so any of these offers may be the one made: all are returned.
    """
    if offers_made >= MAX_OFFERS or offers_made >= w.offers:
        return []
    cost = COST[mine.top]
    hand = [int(x) for x in obs.hand]
    lack = [c - h for h, c in zip(hand, cost, strict=True)]
    if max(lack) <= 0:
        return []
    want = best_of(range(5), lambda r: lack[r])[0]
    spare = [hand[r] - cost[r] for r in range(5)]
    ask = int(getattr(w, "offer_ask", 0.0) + 0.5)
    if getattr(w, "offer_haggle", 0.0) >= 0.5 and offers_made > 0:
        ask = 0  # the turn's later offers ask no more than the wanted card
    two = getattr(w, "offer_two", 0.0) >= 0.5
    two = two and sum(max(spare[r], 0) for r in range(5) if r != want) >= 2
    out, out_two = [], []
    for q in range(obs.n_players):
        if q == obs.seat or not may_hold(obs, q, want, hidden):
            continue
        if hidden is not None:
            theirs = [int(x) for x in hidden.hands[q]]
            knights = int(hidden.development_cards[q][KNIGHT])
        else:
            theirs = [int(x) for x in obs.known_low[q]]
            knights = int(obs.development_counts[q])
        their = plan(obs, w, q, theirs, knights)
        if their.top is None or theirs[want] <= COST[their.top][want]:
            continue
        gives = [r for r in range(5) if r != want and spare[r] > 0
                 and COST[their.top][r] - theirs[r] > 0]
        if gives:
            give = best_of(gives, lambda r: spare[r])[0]
            get = ask_more(obs, cost, theirs, COST[their.top], one_card(give), one_card(want), ask)
            out.append(Option("offer", q, give=one_card(give), get=get))
        elif two:
            given = [0] * 5
            for _ in range(2):
                left = [spare[r] - given[r] if r != want else 0 for r in range(5)]
                given[best_of(range(5), lambda r, left=left: left[r])[0]] += 1
            get = ask_more(obs, cost, theirs, COST[their.top], tuple(given), one_card(want), ask)
            out_two.append(Option("offer", q, give=tuple(given), get=get))
    return out or out_two


def ask_more(obs: Observation, cost, theirs, their_cost, give: tuple, get: tuple,
             ask: int) -> tuple:
    """``get`` plus up to ``ask`` more cards, one at a time: a resource not offered that
    the partner holds (``theirs``, as far as the observer knows) beyond its next build's
    ``their_cost`` and the cards already asked; first one the observer still misses for
    its build (``cost``), then the one it produces least (ties: the lower resource)."""
    get = list(get)
    own = production(obs, obs.seat)
    hand = [int(x) for x in obs.hand]
    for _ in range(ask):
        options = [r for r in range(5)
                   if give[r] == 0 and theirs[r] - their_cost[r] - get[r] > 0]
        if not options:
            break
        get[best_of(options, lambda r: 1000.0 * (cost[r] - hand[r] - get[r] > 0) - own[r])[0]] += 1
    return tuple(get)


def maritime_toward(obs: Observation, build: str, complete: bool) -> Option | None:
    """A maritime trade toward ``build``, or None: it gives the resource with most to
    spare beyond the build's cost (after the trade) at its rate, for the resource the
    build misses most; only if the supply holds every missing card, and with
    ``complete`` only if such trades can pay the whole build now."""
    cost = COST[build]
    hand = [int(x) for x in obs.hand]
    spare = [h - c for h, c in zip(hand, cost, strict=True)]
    rate = [maritime_rate(obs, obs.seat, r) for r in range(5)]
    tradable = [r for r in range(5) if spare[r] >= rate[r]]
    if not tradable:
        return None
    give = best_of(tradable, lambda r: spare[r] - rate[r])[0]
    trades = sum(spare[r] // rate[r] for r in tradable)
    lack = [c - h for h, c in zip(hand, cost, strict=True)]
    short = [r for r in range(5) if lack[r] > 0]
    if not short or any(obs.supply[r] < lack[r] for r in short):
        return None
    if complete and trades < sum(lack[r] for r in short):
        return None
    get = best_of(short, lambda r: lack[r])[0]
    return Option("maritime", give=one_card(give, rate[give]), get=one_card(get))


def plan_value(mine: Plan) -> float:
    """How close a plan is to its next build: the priority of its top build (0 when
    none is wanted)."""
    return mine.priority[mine.top] if mine.top is not None else 0.0


def weigh_offer(obs: Observation, w: Weights) -> float:
    """The pending offer weighed from both sides, from public information only (positive:
    it pays the observer).

    Each side's worth is how much the trade brings its plan closer (``plan_value`` after
    less before) plus ``answer_cards`` per card it receives more than it pays; the
    observer's worth less ``answer_weigh`` x (1 + ``answer_lead`` x the offerer's visible
    points) x the offerer's. The offerer's plan is read from the public record: the cards
    it surely holds (its unplayed development cards counted as Knights), planned with the
    observer's own weights, as a trade offer plans a partner.
    """
    offerer = obs.current_player
    offer = obs.offer  # its ``give`` reaches the observer, its ``get`` leaves it
    hand = [int(x) for x in obs.hand]
    after = [h + g - t for h, g, t in zip(hand, offer.give, offer.get, strict=True)]
    knights = int(obs.development_cards[KNIGHT])
    balance = sum(offer.give) - sum(offer.get)
    worth = (plan_value(plan(obs, w, obs.seat, after, knights))
             - plan_value(plan(obs, w, obs.seat, hand, knights)) + w.answer_cards * balance)
    sure = [int(x) for x in obs.known_low[offerer]]
    theirs = [max(c - g, 0) + t for c, g, t in zip(sure, offer.give, offer.get, strict=True)]
    dev = int(obs.development_counts[offerer])
    their_worth = (plan_value(plan(obs, w, offerer, theirs, dev))
                   - plan_value(plan(obs, w, offerer, sure, dev)) - w.answer_cards * balance)
    lead = 1.0 + w.answer_lead * int(obs.visible_points[offerer])
    return worth - w.answer_weigh * lead * their_worth


def answer(obs: Observation, w: Weights) -> list[Option]:
    """Accept the pending offer if ``accept`` is on, the offering player (whose turn it
    is) shows fewer than ``accept_vp_limit`` points, and the trade pays: with
    ``answer_weigh`` 0, it brings the top build closer (or keeps it as close and brings
    more cards than it costs); above 0, it is worth more than nothing weighed from both
    sides (``weigh_offer``)."""
    offerer = obs.current_player
    if w.accept < 0.5 or obs.visible_points[offerer] >= w.accept_vp_limit:
        return [Option("refuse")]
    mine = own_plan(obs, w)
    if mine.top is None:
        return [Option("refuse")]
    if getattr(w, "answer_weigh", 0.0) > 0:
        return [Option("accept" if weigh_offer(obs, w) > 0 else "refuse")]
    cost = COST[mine.top]
    offer = obs.offer  # its ``give`` reaches the observer, its ``get`` leaves it
    hand = [int(x) for x in obs.hand]
    after = [h + g - t for h, g, t in zip(hand, offer.give, offer.get, strict=True)]
    before_short, after_short = missing(hand, cost), missing(after, cost)
    more_cards = sum(offer.give) > sum(offer.get)
    yes = after_short < before_short or (after_short == before_short and more_cards)
    return [Option("accept" if yes else "refuse")]
