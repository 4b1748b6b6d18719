"""Win rates by seat and by strategy, with Wilson intervals and tests of equal seats.

``win_rates(source, by)`` counts wins per group of seat-games; ``seat_test``
tests whether the seats win equally often (chi-square over the games that had
a winner), Holm-corrected across variants, with Cohen's w as the effect size and
the games a test of that size would need.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from . import stats as S
from .driver import Analysis, Chunk, Context, reads_source, run
from .table import result_table


def _win_map(by: str):
    def f(chunk: Chunk):
        p = chunk.players
        out = {}
        for v in chunk.variants:
            rows = chunk.player_rows(v)
            key = chunk.labels("players", by)[rows]
            won = p["won"].to_numpy()[rows].astype(np.int64)
            t = pd.DataFrame({"k": key, "won": won}).groupby("k", sort=True)["won"].agg(
                ["size", "sum"])
            out[v] = t.astype(np.int64)
        return out
    return f


def _win_finish(by: str):
    def f(stats, ctx: Context) -> pd.DataFrame:
        frames = []
        for v in [v for v in ctx.variants if v in stats]:
            t = stats[v].rename(columns={"size": "seat_games", "sum": "wins"})
            t.index.name = by
            frames.append(t.reset_index().assign(variant=v))
        out = pd.concat(frames, ignore_index=True)
        out = S.rate_table(out, "wins", n="seat_games", rate="win_rate")
        out = out[["variant", by, "seat_games", "wins", "win_rate", "ci_low", "ci_high",
                   "method"]]
        return out.set_index(["variant", by])
    return f


def win_rates_analysis(by: str = "seat") -> Analysis:
    return Analysis(f"win_rates_{by}", {"players": (by, "won")}, _win_map(by), _win_finish(by))


@reads_source
def win_rates(source, by: str = "seat", **kw) -> pd.DataFrame:
    """Win rate per group of seat-games, with its Wilson interval.

    Reads ``players``: ``by`` (``seat``, ``strategy`` or another column) and ``won``.

    Returns a DataFrame indexed by (variant, ``by``): ``seat_games`` (n: one per seat
    the group played in a game; a game with four ``default`` seats counts four times
    for ``default``), ``wins``, ``win_rate``, ``ci_low``, ``ci_high`` and ``method``.
    By strategy this is the win rate against the field the strategy met. Printed, the
    numbers come first and the method once below (``table.ResultTable``).
    """
    return result_table(run(win_rates_analysis(by), source, **kw))


@reads_source
def seat_win_rates(source, **kw) -> pd.DataFrame:
    """``win_rates(source, "seat")``: each seat's share of wins (n = games)."""
    return win_rates(source, "seat", **kw)


def seat_test(table: pd.DataFrame, correction: str = "holm") -> pd.DataFrame:
    """Chi-square test of equal seats per variant, from a ``seat_win_rates`` table.

    The wins of the games that had a winner are compared with equal shares
    (``scipy.stats.chisquare``); p-values are corrected across the variants
    (``stats.adjust``, Holm by default).

    Returns a DataFrame indexed by variant: ``n`` (games with a winner), ``chi2``,
    ``df``, ``p_value``, ``p_adjusted``, ``significant`` (at 0.05 after correction),
    ``cohens_w`` (effect size), ``max_gap`` (largest minus smallest seat win rate),
    ``games_for_w`` (decided games a test needs to detect this w with 80% power;
    ``statsmodels`` GofChisquarePower), ``method``.
    """
    rows = []
    for v, t in table.groupby(level="variant", sort=False, observed=True):
        wins = t["wins"].to_numpy()
        r = S.chisquare_equal(wins)
        share = wins / wins.sum() if wins.sum() else wins
        r["max_gap"] = float(t["win_rate"].max() - t["win_rate"].min())
        r["games_for_w"] = (S.games_for_seat_shares(share) if wins.sum() else np.nan)
        rows.append({"variant": v, **r})
    out = pd.DataFrame(rows).set_index("variant")
    out["p_adjusted"], out["significant"] = S.adjust(out["p_value"], correction)
    out["method"] = (f"chi-square test of equal win shares (scipy.stats.chisquare), "
                     f"{S.METHOD_NAMES[correction]} across variants")
    return out[["n", "chi2", "df", "p_value", "p_adjusted", "significant", "cohens_w",
                "max_gap", "games_for_w", "method"]]
