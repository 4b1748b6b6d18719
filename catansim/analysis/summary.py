"""The run summary ``catansim run`` and ``catansim simulate`` print.

Win rates by strategy and by seat (Wilson intervals), game length in turns and
rolls, robber, shortage and trade figures per game, VP sources; with variants,
the paired differences against the baseline. The tables come from the analyses
of this package (``seats``, ``anatomy``, ``variants``), accumulated a part at a
time, so summarising a dataset of any size needs the memory of one part.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..errors import CatansimError
from . import anatomy as A
from . import seats as W
from .driver import Accumulator, run_many
from .measures import VP_SOURCES
from .stats import wilson_ci, with_p_text
from .variants import paired_analysis

__all__ = ["PER_GAME_FIGURES", "SUMMARY_COLUMNS", "VP_SOURCES", "Summary", "format_paired",
           "format_summary", "summarize", "summarize_dataset", "summarize_run", "wilson_ci",
           "win_rates"]

PER_GAME_FIGURES = ("robber_moves", "stolen", "discarded", "blocked", "shortage_rolls",
                    "withheld", "trades_bank", "trades_player")
_ANALYSES = (W.win_rates_analysis("strategy"), W.win_rates_analysis("seat"), A.GAME_LENGTH,
             A.PER_GAME, A.EVENT_RATES, A.PER_SEAT)


def _summary_columns() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {"games": ["variant", "game"],
                                 "players": ["variant", "game", "seat"]}
    for a in _ANALYSES:
        for t, cols in a.columns.items():
            out[t] += [c for c in cols if c not in out[t]]
    return out


SUMMARY_COLUMNS = _summary_columns()


def win_rates(players: pd.DataFrame, by: str, confidence: float = 0.95) -> pd.DataFrame:
    """Win rate per group of a players table (all its rows pooled), with Wilson intervals.

    Returns a DataFrame indexed by ``by``: ``seat_games`` (n), ``wins``, ``win_rate``,
    ``ci_low``, ``ci_high`` (``catansim.analysis.stats.wilson_ci``).
    """
    counts = players.groupby(by, observed=True)["won"].agg(seat_games="size", wins="sum")
    counts = counts.astype(np.int64)
    counts["win_rate"] = counts["wins"] / counts["seat_games"]
    counts["ci_low"], counts["ci_high"] = wilson_ci(counts["wins"], counts["seat_games"],
                                                    confidence)
    return counts


def _tables(results: list, variant: str) -> dict[str, pd.DataFrame]:
    by_strategy, by_seat, length, per_game, events = (r.xs(variant, level="variant")
                                                       for r in results[:5])
    keep = ["seat_games", "wins", "win_rate", "ci_low", "ci_high"]
    seat = by_seat[keep].rename(columns={"seat_games": "games"})
    length = length[["n", "mean", "sd", "p10", "median", "p90", "max", "turn_limit_share"]]
    length = length.rename(columns={"n": "games"})
    pg = per_game.loc[list(PER_GAME_FIGURES), ["n", "mean", "ci_low", "ci_high", "median",
                                               "max"]]
    short = events.loc["any_shortage"]
    pg.loc["games_with_shortage"] = [short["n"], short["rate"], short["ci_low"],
                                     short["ci_high"], np.nan, np.nan]
    pg["n"] = pg["n"].astype(np.int64)
    pg = pg.rename(columns={"n": "games"})
    vp = A.vp_table(results[5]).xs(variant, level="variant")
    return {"by_strategy": by_strategy[keep], "by_seat": seat, "length": length.round(2),
            "per_game": pg, "vp_sources": vp.round(2)}


class Summary:
    """The tables of ``summarize``, accumulated a part at a time.

    ``add(games, players)`` takes the rows of any set of games of one variant
    (``SUMMARY_COLUMNS`` suffice); ``tables()`` gives what ``summarize`` of all the
    rows added would give. It keeps counts and histograms only.
    """

    def __init__(self):
        self._acc = Accumulator(_ANALYSES)

    def add(self, games: pd.DataFrame, players: pd.DataFrame) -> Summary:
        self._acc.add(games, players)
        return self

    def tables(self) -> dict[str, pd.DataFrame]:
        results = self._acc.results()
        variants = results[2].index.get_level_values("variant").unique()
        if len(variants) != 1:
            raise CatansimError(f"variant: a summary is of one variant, got {list(variants)}; "
                                "allowed: the rows of one variant (summarize_run for several)")
        return _tables(results, variants[0])


def summarize(games: pd.DataFrame, players: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """The summary tables of the games of one variant.

    Returns
    -------
    dict of str to DataFrame
        ``by_strategy`` (win rate against the field, n = seat-games) and ``by_seat``
        (n = games) with 95% Wilson intervals; ``length`` (turns and rolls: games,
        mean, sd, quantiles, max, share ending at the turn limit); ``per_game``
        (robber moves, cards stolen, discarded, blocked, shortage rolls, withheld
        cards, maritime and player trades per game, with t intervals, and the share
        of games with a shortage with its Wilson interval); ``vp_sources`` (mean VP
        by source per strategy, for all seats and for winners).
    """
    return Summary().add(games, players).tables()


def summarize_run(path, variants=None, scheduler=None) -> tuple[dict, pd.DataFrame]:
    """One pass over a dataset: the summary tables of each variant and, when it has
    variants, their paired differences against the baseline
    (``variants.paired_differences``; empty otherwise)."""
    results = run_many([*_ANALYSES, paired_analysis()], path, variants=variants,
                       scheduler=scheduler)
    *results, paired = results
    names = results[2].index.get_level_values("variant").unique()
    return {v: _tables(results, v) for v in names}, paired


def summarize_dataset(path, variants=None) -> dict[str, dict[str, pd.DataFrame]]:
    """The summary tables (``summarize``) of each variant of a dataset, read a range of
    games at a time: memory stays that of one part per variant.

    Returns ``{variant: tables}`` for the variants with complete parts, in dataset order.
    """
    results = run_many(_ANALYSES, path, variants=variants)
    names = results[2].index.get_level_values("variant").unique()
    return {v: _tables(results, v) for v in names}


def _fmt_table(t: pd.DataFrame, digits: int = 3) -> str:
    with pd.option_context("display.width", 120, "display.max_columns", 30):
        return with_p_text(t).to_string(float_format=lambda v: f"{v:.{digits}f}", na_rep="")


def format_summary(tables: dict[str, pd.DataFrame]) -> str:
    """The ``summarize`` tables as text."""
    length = tables["length"].copy()
    length.index.name = "measure"
    parts = [
        "Win rate by strategy (95% CI, Wilson; seat_games = seats the strategy played, "
        f"one per seat per game)\n{_fmt_table(tables['by_strategy'])}",
        f"Win rate by seat (95% CI, Wilson)\n{_fmt_table(tables['by_seat'])}",
        f"Game length\n{_fmt_table(length, 2)}",
        "Robber, shortages and trades per game (mean, 95% CI: t; the shortage share: "
        f"Wilson)\n{_fmt_table(tables['per_game'], 2)}",
        f"VP sources (mean per seat)\n{_fmt_table(tables['vp_sources'], 2)}",
    ]
    return "\n\n".join(parts)


def format_paired(paired: pd.DataFrame) -> str:
    """The paired differences of ``summarize_run`` as text (empty without variants)."""
    if paired.empty:
        return ""
    t = paired[["n", "base_mean", "mean", "diff", "ci_low", "ci_high", "width_ratio",
                "p_adjusted"]].copy()
    t["sig"] = np.where(paired["significant"], "*", "")
    t.columns = ["games", "baseline", "variant", "diff", "ci_low", "ci_high", "paired/unpaired",
                 "p_holm", "sig"]
    return ("Paired differences against the baseline (same games; diff = variant - baseline "
            "per game; 95% paired t CI; paired/unpaired = CI width relative to an unpaired "
            "design; McNemar for win rates; p Holm-corrected over the table; * p_holm < 0.05)\n"
            + _fmt_table(t))
