"""``SearchPlayer``: every decision by determinized rollouts on the compiled engine.

Determinized flat Monte Carlo with sequential halving. At each decision with more
than one option the player shortlists its candidates (the rollout strategy's own
choice first, then the options its scripted twin ranks best, where the options are
many), and spends its budget of rollouts on them in rounds: each round plays every
candidate still in the race on the same rollout seeds (so they meet the same deals of
the hidden cards and the same dice: ``Game.rollouts``), and keeps the better half of
the others, until one is left beside the rollout strategy's choice, which runs in
every round. It leaves that choice only for an option that beats it by a margin on
the same seeds (``confidence``): at small budgets most differences are noise, and
following them would play worse than the rollout strategy itself.

Why flat Monte Carlo and not ISMCTS: a tree needs many visits a node before its
statistics beat a rollout, and at the budgets a game can afford (a few hundred games a
decision) the tree would stay one level deep, which is flat Monte Carlo with more
bookkeeping; sequential halving is the bandit for a fixed budget and the best single
pick (not regret), and it spends the most on the close calls.
"""

from __future__ import annotations

import math
import time

import numpy as np

from ...checks import check_choice, check_int, check_number
from ...constants import COST_CITY, COST_DEV_CARD, COST_ROAD, COST_SETTLEMENT
from ...core import layout as L
from ...errors import CatansimError
from ...game import Game, Observation, Option
from ...strategies import PRESETS, StrategySet
from ...topology import EDGE_NODES
from ..reference.decisions import hex_value, leaders
from ..reference.placement import city_value, node_score, road_candidates, road_value
from ..reference.weights import weights

BUILD_COSTS = (COST_CITY, COST_SETTLEMENT, COST_DEV_CARD, COST_ROAD)


class SearchPlayer:
    """A player that decides every decision by playing games on from it.

    Parameters
    ----------
    budget : int
        Rollouts a decision (2-100,000). A decision with one option costs none.
    candidates : int
        The options searched at most (2-64): where there are more, the rollout
        strategy's choice and the options its scripted twin
        (``players.reference``) ranks best.
    model : str
        The compiled strategy its rollouts give every other seat: what it assumes of
        its opponents.
    rollout : str
        The compiled strategy of its own seat in the rollouts, after the option tried;
        also its first candidate at every decision.
    information : str
        ``public``: each rollout deals anew what the seat cannot see
        (``Game.determinize``). ``omniscient``: the rollouts play on from the true
        position (only the dice and the deck's future are new): what seeing the cards
        is worth to the search.
    confidence : float
        How sure the search must be to leave the rollout strategy's own choice: the
        best other candidate is taken only if its mean value beats that choice's by more
        than ``confidence`` standard errors of their differences on the same rollout
        seeds (0-10; 0: whenever its mean is higher).
    vp_weight : float
        A rollout's value is 1 for a win plus ``vp_weight`` x the seat's share of the
        points to win at its end (0-1): a little of the points breaks the ties of small
        budgets.
    seed : int
        Mixed into the generator that draws the rollout seeds; ``new_game`` seeds it
        from the game's seed and the seat, so a game depends only on its seed and
        settings.
    strategy_set : StrategySet
        Where ``model`` and ``rollout`` are resolved: a strategy of your own (a scripted
        row) is a rollout policy of your own.

    Attributes
    ----------
    last : dict
        Its last search: ``own`` (the rollout strategy's choice), ``best`` (the best
        other candidate), ``chosen``, ``gain`` (best's mean value less own's on the same
        seeds) and ``se`` (its standard error), ``rollouts`` and ``candidates`` (each
        candidate's (Option, rollouts, mean value), own first).
    rollouts_played, decisions_searched, decisions_asked : int
        Counts since the player was made.
    seconds : float
        CPU seconds its decisions took since it was made (``time.process_time``).
    """

    def __init__(self, budget: int = 200, candidates: int = 8, model: str = "default",
                 rollout: str = "default", information: str = "public",
                 confidence: float = 1.0, vp_weight: float = 0.2, seed: int = 0,
                 strategy_set: StrategySet = PRESETS):
        self.budget = check_int(budget, "budget", 2, 100_000)
        self.candidates = check_int(candidates, "candidates", 2, 64)
        strategy_set.compiled(model, "model")
        own = strategy_set.compiled(rollout, "rollout")
        self.model, self.rollout = model, rollout
        self.information = check_choice(information, "information", ("public", "omniscient"))
        self.confidence = check_number(confidence, "confidence", 0.0, 10.0)
        self.vp_weight = check_number(vp_weight, "vp_weight", 0.0, 1.0)
        self.seed = check_int(seed, "seed", 0)
        self.strategy_set = strategy_set
        # the ranking of many options: the rollout strategy's parameters (default's for
        # random, which has none)
        self._weights = weights(own if own.param_dict() else PRESETS["default"])
        self.base_strategy = rollout
        self.rng = np.random.default_rng(self.seed)
        self.game: Game | None = None
        self.last: dict = {}
        self.rollouts_played = 0
        self.decisions_searched = 0
        self.decisions_asked = 0
        self.seconds = 0.0

    def __repr__(self) -> str:
        return (f"SearchPlayer(budget={self.budget}, candidates={self.candidates}, "
                f"model={self.model!r}, rollout={self.rollout!r}, "
                f"information={self.information!r})")

    def new_game(self, seed: int, seat: int) -> None:
        self.rng = np.random.default_rng([seed, seat, self.seed])

    def watch(self, game: Game) -> None:
        """The game it plays in: it reads it only through ``Game.rollouts``, which deals
        anew what the seat cannot see (unless ``information`` is ``omniscient``)."""
        self.game = game

    # --- a decision ------------------------------------------------------------------

    def decide(self, observation: Observation, options) -> Option:
        self.decisions_asked += 1
        if len(options) == 1:
            return options[0]
        start = time.process_time()
        try:
            return self._search(observation, options)
        finally:
            self.seconds += time.process_time() - start

    def _search(self, observation: Observation, options) -> Option:
        game = self.game
        if game is None or game.to_move != observation.seat:
            raise CatansimError("SearchPlayer: it needs the game it plays in (watch(game), "
                                "which the engine calls); allowed: play it with play_game, "
                                "a tournament or an experiment")
        options = list(options)
        shortlist = self.shortlist(observation, options)
        if len(shortlist) == 1:
            return shortlist[0][1]
        return self.halve(observation.seat, shortlist)

    def shortlist(self, obs: Observation, options: list[Option],
                  first: Option | None = None) -> list[tuple[int, Option]]:
        """The candidates as (index of the option, or -1 for the rollout strategy's own
        choice when it is not among the options, the option): ``first`` (one of the
        options; default the rollout strategy's choice), then that choice if it is not
        ``first``, then by the ranking of ``_prior`` (the options' order among equals).
        ``halve`` keeps the first in every round (a review gives the move played)."""
        own = self.game.suggest(obs.seat)
        index = {o: i for i, o in enumerate(options)}
        heads = [(index.get(own, -1), own)]
        if first is not None and first != own:
            heads.insert(0, (index[first], first))
        taken = {i for i, _ in heads}
        if len(options) <= self.candidates and -1 not in taken:
            rest = [(i, o) for i, o in enumerate(options) if i not in taken]
        else:
            prior = self._prior(obs, options)
            order = sorted(range(len(options)), key=lambda i: -prior[i])
            rest = [(i, options[i]) for i in order if i not in taken and prior[i] > -math.inf]
        return [*heads, *rest][: self.candidates]

    def _prior(self, obs: Observation, options: list[Option]) -> list[float]:
        """A score of each option where the options are many (-inf: never a candidate):
        the scripted twin's worth of a node, a road, a city or a robber's hex; a build,
        a card bought or played, and the end ranked above trades; a maritime trade that
        completes a build above one that does not; a discard or Invention by the builds
        the hand keeps or gains; an offer only as the rollout strategy's choice."""
        w, seat = self._weights, obs.seat
        roads = {}
        if any(o.kind == "road" for o in options):
            if obs.decision == "setup road":  # from the settlement just placed
                for o in options:
                    a, b = (int(x) for x in EDGE_NODES[o.target])
                    near, far = (a, b) if obs.node_owner[a] == seat else (b, a)
                    roads[o.target] = road_value(obs, w, seat, near, far, True)
            else:
                for e, near, far in road_candidates(obs, seat):
                    roads[e] = max(roads.get(e, -math.inf),
                                   road_value(obs, w, seat, near, far, True))
        leader = leaders(obs)[0] if obs.decision == "robber hex" else -1
        hand = np.asarray(obs.hand)
        out = []
        for o in options:
            k = o.kind
            if k == "settlement":
                v = 10.0 + node_score(obs, w, seat, o.target, obs.turn > 0)
            elif k == "city":
                v = 20.0 + city_value(obs, w, o.target)
            elif k == "road":
                v = 5.0 + roads.get(o.target, 0.0)
            elif k == "robber":
                v = hex_value(obs, w, o.target, leader)
            elif k in ("buy", "play", "end"):
                v = 8.0
            elif k == "maritime":
                v = 4.0 + _builds(hand - o.give + o.get) - _builds(hand)
            elif k == "discard":
                v = _builds(hand - o.give) + 0.01 * _kinds(hand - o.give)
            elif k == "invention":
                v = _builds(hand + o.get) + 0.01 * _kinds(hand + o.get)
            elif k == "offer":
                v = -math.inf
            else:
                v = 0.0
            out.append(v)
        return out

    def halve(self, seat: int, shortlist: list[tuple[int, Option]]) -> Option:
        """Sequential halving over the shortlist, the rollout strategy's own choice (the
        first) kept in every round: ceil(log2 k) rounds, each with an equal share of the
        budget split among the candidates left, which all play the same rollout seeds;
        the better half of the others (by mean value, then the shortlist's order) goes
        on. The one left is taken if it beats the first by more than ``confidence``
        standard errors of their paired differences (the same seeds), else the first."""
        game = self.game
        names = [self.model] * game.n_players
        names[seat] = self.rollout
        k = len(shortlist)
        left = list(range(k))
        total = np.zeros(k)
        count = np.zeros(k, dtype=np.int64)
        diffs = [[] for _ in range(k)]  # each candidate's values less the first's, seed by seed
        rounds = math.ceil(math.log2(k))
        vp_to_win = game.rules.vp_to_win
        played = 0
        for r in range(rounds):
            per = max(1, self.budget // (rounds * len(left)))
            if r == rounds - 1:  # the last round spends what is left
                per = max(per, (self.budget - played) // len(left))
            seeds = self.rng.integers(0, 2**62, per)
            choices = np.repeat([shortlist[i][0] for i in left], per)
            out = game.rollouts(seat, choices, np.tile(seeds, len(left)), names,
                                self.information, self.strategy_set)
            won = (L.counter(out, "c_winner") == seat).astype(float)
            vp = L.counter(out, "c_vp")[:, seat] / vp_to_win
            value = (won + self.vp_weight * np.minimum(vp, 1.0)).reshape(len(left), per)
            for j, i in enumerate(left):
                total[i] += value[j].sum()
                count[i] += per
                diffs[i].extend(value[j] - value[0])  # left[0] is always the first
            played += per * len(left)
            mean = total / np.maximum(count, 1)
            others = sorted(left[1:], key=lambda i: (-mean[i], i))
            left = [0, *others[: max(1, math.ceil(len(others) / 2))]]
        self.rollouts_played += played
        self.decisions_searched += 1
        mean = total / np.maximum(count, 1)
        best = left[1] if len(left) > 1 else 0
        d = np.asarray(diffs[best])
        se = d.std(ddof=1) / math.sqrt(d.size) if d.size > 1 else math.inf
        pick = best if d.size and d.mean() > self.confidence * se and d.mean() > 0 else 0
        self.last = {"own": shortlist[0][1], "best": shortlist[best][1],
                     "chosen": shortlist[pick][1], "gain": float(d.mean()) if d.size else 0.0,
                     "se": float(se), "rollouts": played,
                     "candidates": [(shortlist[i][1], int(count[i]), float(mean[i]))
                                    for i in range(k)]}
        return shortlist[pick][1]

def _builds(hand) -> int:
    """How many of the four builds ``hand`` pays for, each on its own."""
    return sum(all(h >= c for h, c in zip(hand, cost, strict=True)) for cost in BUILD_COSTS)


def _kinds(hand) -> int:
    return int(sum(1 for h in hand if h > 0))

