"""Cross-play: one strategy alone against copies of another, with CIs in every cell and
"beats" / "loses to" only where significant after correction.

A cross-play game has two strategies at the table, one of them in a single seat
(``runs.tournament.cross_play`` plays one variant ``A_vs_B`` per ordered pair, the
single ``A`` rotating through the seats). Each cell is the single strategy's win
rate against the other, per seat and pooled (seat ``all``), with its Wilson
interval and an exact binomial test against the fair share ``1 / players``
(``scipy.stats.binomtest``). The pooled cells of the matrix are one family and the
per-seat cells another: each is Holm-corrected (or Benjamini-Hochberg) as a whole,
and a cell is labelled ``beats`` or ``loses to`` only when significant after it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import binomtest

from . import stats as S
from .driver import Analysis, Chunk, Context, reads_source, run
from .strategies import seat_table

VERDICTS = ("beats", "loses to", "not significant")


def _single_map(chunk: Chunk):
    out = {}
    for v in chunk.variants:
        table = seat_table(chunk, v)
        if table is None:
            continue
        names, won = table
        kinds, codes = np.unique(names.astype(str), return_inverse=True)
        codes = codes.reshape(names.shape)
        if kinds.size < 2:
            continue
        count = np.stack([(codes == k).sum(axis=1) for k in range(kinds.size)], axis=1)
        distinct = (count > 0).sum(axis=1)
        alone = np.where(count == 1, np.arange(kinds.size)[None, :], -1).max(axis=1)
        other = np.where((count > 1), np.arange(kinds.size)[None, :], -1).max(axis=1)
        ok = (distinct == 2) & (alone >= 0) & (other >= 0)
        if not ok.any():
            continue
        g = np.flatnonzero(ok)
        seat_of = (codes[g] == alone[g][:, None]).argmax(axis=1)
        win = won[g, seat_of]
        t = pd.DataFrame({"strategy": kinds[alone[g]], "opponent": kinds[other[g]],
                          "seat": seat_of, "won": win.astype(np.int64)})
        c = t.groupby(["strategy", "opponent", "seat"], sort=True)["won"].agg(["size", "sum"])
        # (games, seat rows): additive, their ratio is the number of players
        out[v] = {"counts": c.astype(np.int64),
                  "size": np.array([names.shape[0], names.size], dtype=np.int64)}
    return out


def _finish(correction: str):
    def f(stats, ctx: Context) -> pd.DataFrame:
        if not stats:
            return pd.DataFrame()
        counts = None
        for v in [v for v in ctx.variants if v in stats]:
            c = stats[v]["counts"]
            counts = c if counts is None else counts.add(c, fill_value=0)
        n_players = int(max(s["size"][1] // s["size"][0] for s in stats.values()))
        return crossplay_cells(counts.astype(np.int64), n_players, correction)
    return f


def crossplay_cells(counts: pd.DataFrame, n_players: int, correction: str = "holm"
                    ) -> pd.DataFrame:
    """The cross-play table from wins per (strategy, opponent, seat): ``counts`` has
    columns ``size`` (games) and ``sum`` (wins)."""
    fair = 1.0 / n_players
    per_seat = counts.reset_index()
    per_seat["seat"] = per_seat["seat"].astype(str)
    pooled = counts.groupby(level=["strategy", "opponent"]).sum().reset_index().assign(
        seat="all")
    frames = []
    for family in (pooled, per_seat):
        t = family.rename(columns={"size": "games", "sum": "wins"})
        t = S.rate_table(t, "wins", n="games", rate="win_rate")
        t["p_value"] = [binomtest(int(k), int(n), fair).pvalue if n else np.nan
                        for k, n in zip(t["wins"], t["games"], strict=True)]
        t["p_adjusted"], t["significant"] = S.adjust(t["p_value"], correction)
        t["verdict"] = np.where(~t["significant"], "not significant",
                                np.where(t["win_rate"] > fair, "beats", "loses to"))
        t["correction"] = (f"{S.METHOD_NAMES[correction]} over the {len(t)} "
                           f"{'pooled' if family is pooled else 'per-seat'} cells")
        frames.append(t)
    out = pd.concat(frames, ignore_index=True)
    out["fair"] = fair
    out["method"] = (S.WILSON + "; exact binomial test against the fair share "
                     "(scipy.stats.binomtest)")
    out["_seat"] = [-1 if s == "all" else int(s) for s in out["seat"]]
    out = out.sort_values(["strategy", "opponent", "_seat"], kind="stable")
    cols = ["games", "wins", "win_rate", "ci_low", "ci_high", "p_value", "p_adjusted",
            "significant", "verdict", "fair", "method", "correction"]
    return out.set_index(["strategy", "opponent", "seat"])[cols]


def crossplay_analysis(correction: str = "holm") -> Analysis:
    return Analysis("crossplay", {"players": ("seat", "strategy", "won")}, _single_map,
                    _finish(correction))


@reads_source
def crossplay_table(source, correction: str = "holm", **kw) -> pd.DataFrame:
    """The cross-play matrix as a table with CIs and corrected verdicts.

    Reads ``players``: ``seat``, ``strategy``, ``won``. Uses the games that have exactly
    two strategies, one of them in a single seat (other games are left out); pools
    the variants (select some with ``variants=``).

    Returns a DataFrame indexed by (strategy, opponent, seat), seat ``all`` (pooled)
    then ``0`` .. ``n-1``: ``games``, ``wins``, ``win_rate``, ``ci_low``, ``ci_high``
    (Wilson), ``p_value`` (exact binomial test against ``fair`` = 1 / players),
    ``p_adjusted``, ``significant`` (0.05 after ``correction`` within the pooled cells
    and within the per-seat cells), ``verdict`` (``beats``, ``loses to`` or ``not
    significant``), ``fair``, ``method``, ``correction``.
    """
    return run(crossplay_analysis(correction), source, **kw)


def crossplay_matrix(table: pd.DataFrame, seat: str = "all", value: str = "win_rate"
                     ) -> pd.DataFrame:
    """One column of a ``crossplay_table`` as a strategy x opponent matrix."""
    t = table.xs(str(seat), level="seat")
    return t[value].unstack("opponent")


def counters(table: pd.DataFrame) -> pd.DataFrame:
    """For each strategy, the opponents it beats and those it loses to, significant after
    correction (pooled seats): ``beats``, ``loses_to`` (comma-separated), ``even``."""
    t = table.xs("all", level="seat").reset_index()
    rows = []
    for a, part in t.groupby("strategy", sort=True):
        pick = {v: ", ".join(part.loc[part["verdict"] == v, "opponent"]) for v in VERDICTS}
        rows.append((a, pick["beats"], pick["loses to"], pick["not significant"]))
    return pd.DataFrame(rows, columns=["strategy", "beats", "loses_to", "even"]).set_index(
        "strategy")


def dominant(table: pd.DataFrame) -> list[str]:
    """Strategies that significantly beat every other one from every seat (after the
    per-seat correction)."""
    t = table[table.index.get_level_values("seat") != "all"].reset_index()
    names = sorted(set(t["strategy"]) | set(t["opponent"]))
    out = []
    for a in names:
        mine = t[t["strategy"] == a]
        if set(mine["opponent"]) == set(names) - {a} and (mine["verdict"] == "beats").all():
            out.append(a)
    return out


def format_crossplay(table: pd.DataFrame) -> str:
    """The pooled matrix as text, in two matrices narrow enough for a terminal (six
    strategies in under 100 columns): the win rates, with ``+`` / ``-`` where the cell
    beats / loses to the fair share significantly after correction, then their
    intervals ``[low,high]``."""
    t = table.xs("all", level="seat")
    mark = {"beats": "+", "loses to": "-", "not significant": " "}
    rates = [f"{r:.3f}{mark[v]}" for r, v in zip(t["win_rate"], t["verdict"], strict=True)]
    bounds = [f"[{lo:.3f},{hi:.3f}]" for lo, hi in zip(t["ci_low"], t["ci_high"], strict=True)]

    def matrix(cells):
        m = pd.Series(cells, index=t.index).unstack("opponent").fillna("")
        with pd.option_context("display.width", 1000, "display.max_columns", None):
            return m.to_string()

    return f"{matrix(rates)}\n\nTheir intervals:\n{matrix(bounds)}"
