"""A review's numbers at one position: each seat's chance of winning, and the value of a
decision's move played beside its best alternative.

Both come from rollouts (``Game.rollouts``): games played on from the position by the
rollout strategy in every seat. With an observer's public information each rollout
deals anew what that seat cannot see (``Game.determinize``); with the full state
(observer -1) every hand is as the log has it, and since no log says the order of the
undrawn development cards, the rollouts are split over ``DECK_ORDERS`` games of the
position, each with the deck shuffled its own way.

A decision is searched as the search player searches (``SearchPlayer.shortlist`` and
``halve``, half the budget), with the move played as the candidate kept in every round,
so that the one left beside it is its best alternative; then the move played and that
alternative are played on fresh rollout seeds, the same seeds for both (the other
half of the budget), and the paired differences give the loss and its interval (a t
interval, ``scipy.stats.ttest_1samp``, cut to [-1, 1]). The search's own values are not
reused: the best of several noisy means is biased upwards.

Every random number comes from the review's seed and the event (``derived``), so a
position's rows do not depend on which process computed them or in which order.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np
from scipy import stats

from ..analysis.stats import wilson_ci
from ..core import layout as L
from ..errors import CatansimError
from ..game import Game, Option
from ..players.search import SearchPlayer
from ..strategies import PRESETS, StrategySet
from .choices import Choice

# The orders of the undrawn deck the full state's rollouts are split over.
DECK_ORDERS = 8
LEVEL = 0.95  # of every interval

# Streams of ``derived``: one per use, so that no two uses share numbers.
_ROOT, _DECK, _POSITION, _SEARCH, _PAIRED = range(5)

# Why a decision or a position is not valued (the counts a review reports).
FORCED = "forced"  # one option: nothing to choose
ALONE = "no alternative"  # no other option the search tries (every other one an offer)
NOT_LOADED = "not loaded"  # Game.from_position refused the position
NOT_LOGGED = "not the logged decision"  # the game's pending decision is not the event's
NO_DEAL = "no deal"  # no deal of the hidden cards fits the observer's record


@dataclass(frozen=True)
class Spec:
    """What a review's numbers depend on (the log and every setting but the threshold)."""

    header: dict
    events: list
    seat: int  # whose decisions are valued
    observer: int  # whose public information the timeline is dealt from; -1 the full state
    ats: tuple  # the events after which the timeline's positions stand
    rollouts: int  # a position
    budget: int  # a decision: half searching, a quarter each for the move and the best
    candidates: int
    strategy: str
    seed: int
    strategy_set: StrategySet = PRESETS

    @property
    def information(self) -> str:
        return "omniscient" if self.observer < 0 else "public"

    @property
    def n_players(self) -> int:
        return int(self.header["n_players"])

    @property
    def pairs(self) -> int:
        """Rollout seeds of a decision's paired comparison."""
        return self.budget // 4


def derived(seed: int, *keys: int) -> np.random.Generator:
    """The generator of stream ``keys`` of the review's ``seed``."""
    return np.random.default_rng([seed, *keys])


def _seed(seed: int, *keys: int) -> int:
    return int(derived(seed, *keys).integers(0, 2**62))


def load(pos, spec: Spec, *keys: int) -> Game:
    """The game of position ``pos``, the rollout strategy in every seat, every seat
    external (it stands at the first decision after the position)."""
    return Game.from_position(pos, seed=_seed(spec.seed, *keys),
                              strategies=(spec.strategy,) * spec.n_players, record=False,
                              strategy_set=spec.strategy_set)


def roots(game: Game, pos, spec: Spec, steps: tuple, *keys: int) -> list[Game]:
    """The games rollouts start from: ``game`` and, with the full state, the position
    again with the undrawn deck in ``DECK_ORDERS - 1`` more orders (``steps``, the
    options played since the position, played on each)."""
    out = [game]
    if spec.observer < 0:
        for g in range(1, DECK_ORDERS):
            other = load(pos, spec, _DECK, *keys, g)
            for option in steps:
                other.step(option)
            out.append(other)
    return out


def winners(games: list[Game], seat: int, choice: int, seeds: np.ndarray,
            spec: Spec) -> np.ndarray:
    """The winner (-1: none) of the rollout of each seed: option ``choice`` taken (-1:
    the rollout strategy decides), what ``seat`` cannot see dealt anew (public
    information), seed j played from ``games[j % len(games)]``."""
    out = np.empty(seeds.size, dtype=np.int64)
    names = [spec.strategy] * spec.n_players
    for g, game in enumerate(games):
        part = seeds[g :: len(games)]
        counters = game.rollouts(seat, np.full(part.size, choice), part, names,
                                 spec.information, spec.strategy_set)
        out[g :: len(games)] = L.counter(counters, "c_winner")
    return out


def timeline_rows(pos, spec: Spec, counts: Counter) -> list[dict]:
    """Each seat's chance of winning at position ``pos``: the share of ``spec.rollouts``
    rollouts it won, with its Wilson interval (exact, with no rollouts, once the game
    is over)."""
    try:
        game = load(pos, spec, _ROOT, pos.at + 1)
        if game.over:
            won = [float(game.winner == q) for q in range(spec.n_players)]
            return [_timeline_row(pos, q, w, w, w, 0, spec) for q, w in enumerate(won)]
        games = roots(game, pos, spec, (), pos.at + 1)
        seeds = derived(spec.seed, _POSITION, pos.at + 1).integers(0, 2**62, spec.rollouts)
        observer = spec.observer if spec.observer >= 0 else game.to_move
        winner = winners(games, observer, -1, seeds, spec)
    except CatansimError as exc:
        counts[_reason(exc)] += 1
        return []
    counts["rollouts"] += spec.rollouts
    rows = []
    for q in range(spec.n_players):
        k = int(np.sum(winner == q))
        low, high = wilson_ci(k, spec.rollouts, LEVEL)
        rows.append(_timeline_row(pos, q, k / spec.rollouts, float(low[0]), float(high[0]),
                                  spec.rollouts, spec))
    return rows


def _timeline_row(pos, seat, win, low, high, rollouts, spec) -> dict:
    return {"event": pos.at, "turn": pos.turn, "seat": seat, "win": win, "win_low": low,
            "win_high": high, "rollouts": rollouts, "observer": spec.observer}


def _reason(exc: CatansimError) -> str:
    return NO_DEAL if "no deal of the hidden cards" in str(exc) else NOT_LOADED


def move_rows(pos, k: int, choices: list[Choice], spec: Spec, counts: Counter) -> list[dict]:
    """The rows of the decisions of ``spec.seat`` among ``choices``, those event ``k``
    records (one, or two for a robber's hex and its victim or a card and its Invention
    or Monopoly), from ``pos``, the position before the event."""
    try:
        game = load(pos, spec, _ROOT, k)
    except CatansimError:
        counts[NOT_LOADED] += sum(c.seat == spec.seat for c in choices)
        return []
    rows, steps = [], ()
    for j, c in enumerate(choices):
        options = game.legal_options()
        if (game.to_move != c.seat or (c.after is not None and game.decision != c.after)
                or (c.option not in options and c.option.kind != "offer")):
            counts[NOT_LOGGED] += sum(d.seat == spec.seat for d in choices[j:])
            return rows
        if c.seat == spec.seat:
            try:
                row = _judge(game, pos, c.option, steps, k, j, spec, counts)
            except CatansimError as exc:
                counts[_reason(exc)] += 1
                row = None
            if row is not None:
                rows.append({"event": k, "turn": pos.turn, **row})
        if j + 1 < len(choices):
            try:
                game.step(c.option)
            except CatansimError:  # an offer the game does not take
                counts[NOT_LOGGED] += sum(d.seat == spec.seat for d in choices[j + 1 :])
                return rows
            steps = (*steps, c.option)
    return rows


def _judge(game: Game, pos, played: Option, steps: tuple, k: int, j: int, spec: Spec,
           counts: Counter) -> dict | None:
    """The value of ``played`` beside its best alternative at ``game``'s decision (None,
    counted, when there is none: one option, or none other the search tries)."""
    seat = game.to_move
    options = list(game.legal_options())
    listed = played in options
    player = SearchPlayer(budget=max(2, spec.budget // 2), candidates=spec.candidates,
                          model=spec.strategy, rollout=spec.strategy,
                          information=spec.information, confidence=0.0,
                          strategy_set=spec.strategy_set)
    player.watch(game)
    player.rng = derived(spec.seed, _SEARCH, k, j)
    if len(options) == 1:
        counts[FORCED] += 1
        return None
    shortlist = player.shortlist(game.observation(seat), options,
                                 first=played if listed else None)
    if len(shortlist) < 2:
        counts[ALONE] += 1
        return None
    player.halve(seat, shortlist)
    counts["rollouts"] += player.last["rollouts"]
    # the best other than the move played: the one left beside it (the move played
    # first), or the better of the two left (an offer not among the options listed)
    best = player.last["best"] if shortlist[0][1] == played else player.last["chosen"]
    choice = {o: i for i, o in shortlist}
    games = roots(game, pos, spec, steps, k, j)
    seeds = derived(spec.seed, _PAIRED, k, j).integers(0, 2**62, spec.pairs)
    if listed:
        won_played = winners(games, seat, choice[played], seeds, spec) == seat
    else:  # an offer of several cards: played on, its partner's answer left to rollouts
        offered = [g.fork() for g in games]
        for g in offered:
            g.step(played)
        won_played = winners(offered, seat, -1, seeds, spec) == seat
    won_best = winners(games, seat, choice[best], seeds, spec) == seat
    counts["rollouts"] += 2 * spec.pairs
    diff = won_best.astype(float) - won_played.astype(float)
    loss = float(diff.mean())
    if np.ptp(diff) == 0:  # every pair alike: no spread to make an interval of
        low = high = loss
    else:
        low, high = stats.ttest_1samp(diff, 0.0).confidence_interval(LEVEL)
        low, high = max(low, -1.0), min(high, 1.0)  # the range of a difference of shares
    return {"seat": seat, "decision": game.decision, "played": str(played),
            "best": str(best), "win_played": float(won_played.mean()),
            "win_best": float(won_best.mean()), "loss": loss, "loss_low": float(low),
            "loss_high": float(high), "rollouts": spec.pairs}
