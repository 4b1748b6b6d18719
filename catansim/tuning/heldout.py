"""The answer re-measured on held-out deals: against the start and every preset.

Fresh deals (``spec.heldout_seed``, never used in the search; ``heldout_deals`` per
layout, split over the spec's layouts) are played with rotated seats:

- the tuned strategy alone against ``players - 1`` copies of each opponent (the start
  and every preset), and each opponent alone against copies of the tuned strategy;
- the start alone against copies of itself and of each preset, on the same deals, so that
  ``tuned - start`` is a paired difference deal by deal (the mean over the deal's seats),
  with its t interval (statsmodels).

Win rates carry Wilson intervals and exact binomial tests against the fair share,
Holm-corrected over the cells (``analysis.crossplay.crossplay_table``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from statsmodels.stats.weightstats import DescrStatsW

from ..analysis.crossplay import crossplay_table
from ..analysis.stats import wilson_ci
from ..rules import Rules
from ..runs.tournament import Deals, pair_name, play_seatings
from ..strategies import PRESETS, StrategySet, python_player_name
from .arena import candidate_set
from .spec import TuneSpec

CONFIDENCE = 0.95


@dataclass
class Heldout:
    """Held-out measurements: the cross-play table and the paired differences."""

    table: pd.DataFrame  # crossplay_table: (strategy, opponent, seat) rows
    paired: pd.DataFrame  # per opponent: tuned - start, mean over deals, t interval
    n_deals: int
    tuned: str
    start: str
    n_players: int = 4

    def cell(self, strategy: str, opponent: str, seat: str = "all") -> pd.Series:
        return self.table.loc[(strategy, opponent, seat)]

    def matrix(self) -> pd.DataFrame:
        """Pooled win rate of each row strategy alone against copies of each column."""
        t = self.table.xs("all", level="seat")
        return t["win_rate"].unstack("opponent")


def _pairs(tuned: str, start: str, presets) -> dict[str, tuple[str, str]]:
    # the start against copies of itself: the reference of ``tuned - start`` against the
    # start (every seat the same player: it wins a deal's game in exactly one seat)
    pairs = {pair_name(start, start): (start, start)}
    for o in (start, *presets):
        pairs[pair_name(tuned, o)] = (tuned, o)
        pairs[pair_name(o, tuned)] = (o, tuned)
    for o in presets:
        pairs[pair_name(start, o)] = (start, o)
    return pairs


def play_pairs(pairs, deals_of, layouts, n_deals: int, n_players: int, n_threads=None):
    """Each pair ``(a, b)`` of ``pairs`` played on every layout's deals (``deals_of(index,
    layout)``: a ``Deals`` of ``n_deals``), ``a`` alone in each seat in turn against
    copies of ``b``: ``(games, players)`` standard tables, one variant per pair; game
    ``deal * players + seat`` of each layout block (blocks offset by their deals)."""
    names = sorted({n for p in pairs.values() for n in p})
    games, players, offset = [], [], 0
    for li, layout in enumerate(layouts):
        deals = deals_of(li, layout)
        for group, (a, b) in pairs.items():
            seatings = [tuple(a if seat == r else b for seat in range(n_players))
                        for r in range(n_players)]
            g, p = play_seatings(deals, seatings, group, pairs, names, n_threads)
            g["game"] += offset
            p["game"] += offset
            games.append(g)
            players.append(p)
        offset += n_deals * n_players
    return pd.concat(games, ignore_index=True), pd.concat(players, ignore_index=True)


def play_heldout(spec: TuneSpec, params: dict[str, float], n_threads=None):
    """The held-out games: ``(games, players, pairs)`` (``play_pairs``)."""
    tuned, start = spec.name, spec.strategy
    strategy_set = candidate_set(spec.strategy_set, start, params, name=tuned)
    pairs = _pairs(tuned, start, spec.heldout_presets)
    per_layout = -(-spec.heldout_deals // len(spec.layouts))
    games, players = play_pairs(
        pairs, lambda li, layout: Deals(per_layout, spec.n_players, spec.heldout_seed + li,
                                        spec.rules, layout, strategy_set),
        spec.layouts, per_layout, spec.n_players, n_threads)
    return games, players, pairs


def paired_differences(players: pd.DataFrame, pairs, tuned: str, start: str, n_players: int,
                       opponents) -> pd.DataFrame:
    """Per opponent: the tuned strategy's win rate minus the start's, alone against the
    same copies on the same deals in the same seats; mean over deals with a t interval."""
    single = players[players["strategy"].astype(str)
                     == players["variant"].astype(str).map(lambda v: pairs[v][0])]
    variant = single["variant"].astype(str)

    def per_deal(a: str, o: str) -> pd.Series:
        s = single[variant == pair_name(a, o)]
        return s.groupby(s["game"] // n_players)["won"].mean()

    rows = []
    for o in opponents:
        a, b = per_deal(tuned, o), per_deal(start, o)
        d = (a - b).dropna().to_numpy(dtype=float)
        stats = DescrStatsW(d)
        with np.errstate(invalid="ignore", divide="ignore"):  # identical players: sd 0
            lo, hi = stats.tconfint_mean(alpha=1 - CONFIDENCE) if d.size > 1 else (np.nan,) * 2
            p = float(stats.ttest_mean(0.0)[1]) if d.size > 1 else np.nan
        rows.append(dict(opponent=o, deals=d.size, games=d.size * n_players,
                         tuned=float(a.mean()), start=float(b.mean()), diff=float(d.mean()),
                         ci_low=float(lo), ci_high=float(hi), p_value=p))
    return pd.DataFrame(rows).set_index("opponent")


def measure(spec: TuneSpec, params: dict[str, float], n_threads=None, client=None) -> Heldout:
    """Play and tabulate the held-out games of the tuned row ``params`` (every parameter).

    ``client`` is accepted for symmetry with the search; the held-out games run here."""
    games, players, pairs = play_heldout(spec, params, n_threads)
    table = crossplay_table((games, players))
    opponents = [spec.strategy, *spec.heldout_presets]
    paired = paired_differences(players, pairs, spec.name, spec.strategy, spec.n_players,
                                opponents)
    n_deals = -(-spec.heldout_deals // len(spec.layouts)) * len(spec.layouts)
    return Heldout(table, paired, n_deals, spec.name, spec.strategy, spec.n_players)


def measure_player(player, start: str, opponents, n_deals: int, seed: int, n_players: int = 4,
                   layouts=("variable",), rules=None, n_threads=None,
                   strategy_set: StrategySet = PRESETS) -> Heldout:
    """Held-out games of a Python player (an object: a search player, say), as ``measure``
    plays a tuned row's: alone against ``n_players - 1`` copies of each of ``opponents``,
    and the compiled ``start`` alone against the same copies on the same deals, so that
    ``player - start`` is paired deal by deal. ``n_deals`` deals per layout, from ``seed``
    (plus the layout's index), every seat rotated; ``start``, ``opponents`` and the
    player's ``base_strategy`` are names of ``strategy_set``."""
    name = python_player_name(player)
    pairs = {}
    for o in opponents:
        pairs[pair_name(name, o)] = (name, o)
        pairs[pair_name(start, o)] = (start, o)
    games, players_all = play_pairs(
        pairs, lambda li, layout: Deals(n_deals, n_players, seed + li, rules or Rules(),
                                        layout, strategy_set, players=((name, player),)),
        layouts, n_deals, n_players, n_threads)
    table = crossplay_table((games, players_all))
    paired = paired_differences(players_all, pairs, name, start, n_players, list(opponents))
    return Heldout(table, paired, n_deals * len(layouts), name, start, n_players)


def win_interval(wins: int, games: int) -> tuple[float, float, float]:
    """(rate, low, high): a win rate with its 95% Wilson interval."""
    lo, hi = wilson_ci(wins, games)
    return wins / games, float(lo[0]), float(hi[0])
