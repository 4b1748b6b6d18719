"""``RolloutOpener``: the first settlement chosen by rollouts, the rest by a preset."""

from __future__ import annotations

import numpy as np

from ...board import Board
from ...checks import check_int
from ...core import layout as L
from ...engine import play_batch
from ...game import Observation, Option
from ...kernels import free_openings, opening_slot
from ...settings import GameSettings
from ...strategies import PRESETS, StrategySet
from ..reference.placement import node_score
from ..reference.weights import weights


class RolloutOpener:
    """A player that chooses its first settlement by playing games, and leaves every
    other decision to its ``base_strategy``.

    At its first set-up settlement it shortlists the ``candidates`` free nodes its
    base strategy scores best (``players.reference.placement.node_score``), and plays
    ``rollouts`` games for each from the set-up as it stands: the same board and rules,
    the pieces placed so far forced, the candidate as its own first settlement, and
    every seat played by ``model`` (itself by ``base_strategy``), the rest of the
    set-up included. Every candidate plays the same rollout seeds, drawn from the
    player's own generator (new dice and a new deck: never the game's), so candidates
    are compared game by game. It takes the candidate that won most; equal counts are
    drawn at random from its generator.

    Parameters
    ----------
    candidates : int
        Nodes tried (1-54; 1 is the base strategy's own choice).
    rollouts : int
        Games per candidate (1-100,000).
    model : str
        The strategy its rollouts give the other seats (a compiled strategy of
        ``strategy_set``): what it assumes of its opponents.
    base_strategy : str
        The compiled strategy of its seat: every decision but the first settlement,
        and its own seat in the rollouts.
    seed : int
        Mixed into the generator, which ``new_game`` seeds from the game's seed and
        the seat, so a game depends only on its seed and settings.
    n_threads : int or None
        Threads the rollouts play on (``play_batch``; default all cores).
    strategy_set : StrategySet
        Where ``model`` and ``base_strategy`` are resolved (default the presets).

    Attributes
    ----------
    last_rollouts : dict of int to float
        Its last search: each shortlisted node's share of rollout games won.
    """

    def __init__(self, candidates: int = 24, rollouts: int = 160, model: str = "default",
                 base_strategy: str = "default", seed: int = 0, n_threads: int | None = None,
                 strategy_set: StrategySet = PRESETS):
        self.candidates = check_int(candidates, "candidates", 1, 54)
        self.rollouts = check_int(rollouts, "rollouts", 1, 100_000)
        self.seed = check_int(seed, "seed", 0)
        strategy_set.compiled(model, "model")
        base = strategy_set.compiled(base_strategy, "base_strategy")
        self.model, self.base_strategy = model, base_strategy
        self.n_threads = n_threads
        self.strategy_set = strategy_set
        self._weights = weights(base)
        self.rng = np.random.default_rng(self.seed)
        self.last_rollouts: dict[int, float] = {}

    def new_game(self, seed: int, seat: int) -> None:
        self.rng = np.random.default_rng([seed, seat, self.seed])

    def decide(self, observation: Observation, options: list[Option]) -> Option | None:
        obs = observation
        if (obs.decision != "setup settlement" or len(options) < 2
                or (obs.node_owner == obs.seat).any()):
            return None  # not its first settlement, or no choice: the base strategy's
        if self.candidates == 1:
            return None  # the base strategy's own choice, drawn as the kernel draws it
        shortlist = self.shortlist(obs, options)
        seeds = self.rng.integers(0, 2**62, self.rollouts)
        wins = self.rollout_wins(obs, [o.target for o in shortlist], seeds)
        self.last_rollouts = {o.target: w / self.rollouts
                              for o, w in zip(shortlist, wins, strict=True)}
        best = np.flatnonzero(wins == wins.max())
        return shortlist[int(best[self.rng.integers(best.size)])]

    def shortlist(self, obs: Observation, options: list[Option]) -> list[Option]:
        """The ``candidates`` options of highest placement score (equal scores in an
        order drawn from the player's generator)."""
        order = self.rng.permutation(len(options))
        scores = np.array([node_score(obs, self._weights, obs.seat, options[i].target, False)
                           for i in order])
        keep = order[np.argsort(-scores, kind="stable")[: self.candidates]]
        return [options[i] for i in keep]

    def rollout_wins(self, obs: Observation, nodes: list[int], seeds) -> np.ndarray:
        """Games won by the observer in one game per rollout seed of ``seeds`` for each
        node of ``nodes``, forced as its first settlement."""
        board = Board(obs.hex_terrain, obs.hex_number, obs.harbors)
        forced = free_openings()
        for q in range(obs.n_players):  # the set-up's first round so far: a node and a road
            node, edge = np.flatnonzero(obs.node_owner == q), np.flatnonzero(obs.edge_owner == q)
            if node.size:
                slot = opening_slot(q, 0)  # its first settlement's node, its road after
                forced[slot], forced[slot + 1] = node[0], edge[0]
        names = [self.model] * obs.n_players
        names[obs.seat] = self.base_strategy
        seeds = np.asarray(seeds, dtype=np.int64)
        wins = np.zeros(len(nodes), dtype=np.int64)
        for i, node in enumerate(nodes):
            forced[opening_slot(obs.seat, 0)] = node
            settings = GameSettings(n_players=obs.n_players, strategies=tuple(names),
                                    layout="given", board=board, rules=obs.rules,
                                    openings=forced.copy(), strategy_set=self.strategy_set)
            batch = play_batch(seeds, settings, n_threads=self.n_threads)
            wins[i] = int((L.counter(batch.counters, "c_winner") == obs.seat).sum())
        return wins
