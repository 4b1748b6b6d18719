"""Analysis: pure functions over the games and players tables, with honest statistics.

Every analysis is ``f(source, ...) -> DataFrame`` (or a dict of DataFrames), where
the source is a dataset folder (read a range of games at a time, only the columns
the analysis needs; ``scheduler=`` runs it on a Dask cluster with identical
results) or ``(games, players)`` frames in memory. Every table carries ``n`` and
names its interval method. ``docs/analysis.md`` lists every function with the
columns it reads and returns.

What lives here:

- ``stats``: the statistics helpers (Wilson, t intervals from histograms, paired
  comparisons, McNemar, chi-square, Holm / Benjamini-Hochberg, power), thin
  wrappers over scipy.stats and statsmodels;
- ``driver``: the one aggregation mechanism (``Analysis``: columns, map, combine,
  finish; ``run``, ``run_many``, ``Accumulator``);
- ``measures``: the headline per-game and per-seat measures;
- ``anatomy``: game length, VP sources, cards, development cards, events, first builds;
- ``seats``: win rates by seat and strategy, the chi-square test of equal seats;
- ``strategies``: a Plackett-Luce (top-1) rating of strategies with CIs;
- ``crossplay``: one strategy against copies of another, every cell with its CI,
  verdicts only where significant after correction;
- ``ladder``: a ladder's games (``catansim.ladders``) as a rating for every player and
  the one-against-the-rest matrix;
- ``variants``: paired comparisons of every headline measure against the baseline;
- ``position``: starting pips and nodes, a logistic regression with calibration;
- ``summary``: the run summary printed by ``catansim run`` and ``catansim simulate``;
- ``contrasts``: rule effects on common random numbers: per-game outcomes, paired
  contrasts between any two arms of a dataset, per-arm summaries and ratio shares;
- ``robber``: the robber's outcomes (what it takes, whom it hits) and whether
  trailing players catch up;
- ``shortages``: the supply-shortage rule's outcomes: how often, when and of what
  the supply runs short, and who loses the cards;
- ``seat_order``: who wins from which seat, pooled over the rotations of a table,
  and the set-up and turn orders apart;
- ``board_balance``: each board's seat effect, how much of it is real, and which
  board features predict it;
- ``openings``: the value of starting positions: forced-opening arms against the
  free-choice baseline, game by game;
- ``table``: ``ResultTable``, a result's DataFrame printed with its numbers first and
  its constant words (method, correction) once below.

May import: ``catansim.results`` (schema, dataset reader), ``constants``, ``errors``,
``topology`` and ``core.layout`` (a board vector's slices: the features of an opening),
numpy, pandas, scipy, statsmodels (and dask.distributed, with ``scheduler=``). Never the
runner, the engine or matplotlib.
"""

from .anatomy import (
    dev_cards,
    event_rates,
    first_builds,
    game_length,
    human_comparison,
    length_distribution,
    per_game_counts,
    per_seat_counts,
    vp_sources,
)
from .crossplay import crossplay_table
from .driver import Accumulator, Analysis, Chunk, Context, add_stats, run, run_many
from .position import win_by_start_node, win_by_start_pips, win_model
from .seats import seat_test, seat_win_rates, win_rates
from .stats import wilson_ci
from .strategies import strategy_rating
from .summary import Summary, format_paired, format_summary, summarize, summarize_dataset
from .variants import paired_differences

__all__ = [
    "Accumulator", "Analysis", "Chunk", "Context", "Summary", "add_stats", "crossplay_table",
    "dev_cards",
    "event_rates", "first_builds", "format_paired", "format_summary", "game_length",
    "human_comparison", "length_distribution", "paired_differences", "per_game_counts",
    "per_seat_counts", "run", "run_many", "seat_test", "seat_win_rates", "strategy_rating",
    "summarize", "summarize_dataset", "vp_sources", "wilson_ci", "win_by_start_node",
    "win_by_start_pips", "win_model", "win_rates",
]
