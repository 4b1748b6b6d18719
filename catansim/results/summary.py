"""The run summary: win rates with Wilson intervals, game length, VP sources.

``summarize(games, players)`` gives the tables ``catansim simulate`` and
``catansim run`` print; ``Summary`` accumulates the same tables a part at a time
(counts and sums only), so summarising a dataset of any size needs the memory of
one part (``summarize_dataset``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def wilson_ci(wins, games, confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval of a win rate (scipy.stats.binomtest), element-wise.

    Groups with no games get NaN bounds.
    """
    from scipy.stats import binomtest

    wins = np.atleast_1d(np.asarray(wins, dtype=np.int64))
    games = np.atleast_1d(np.asarray(games, dtype=np.int64))
    lo = np.full(wins.shape, np.nan)
    hi = np.full(wins.shape, np.nan)
    for i, (k, n) in enumerate(zip(wins, games, strict=True)):
        if n > 0:
            ci = binomtest(int(k), int(n)).proportion_ci(confidence, method="wilson")
            lo[i], hi[i] = ci.low, ci.high
    return lo, hi


def _win_table(counts: pd.DataFrame, confidence: float = 0.95) -> pd.DataFrame:
    # counts: index the group, columns games and wins.
    g = counts[["games", "wins"]].astype(np.int64)
    g["ci_low"], g["ci_high"] = wilson_ci(g["wins"], g["games"], confidence)
    g["win_rate"] = g["wins"] / g["games"]
    return g[["games", "wins", "win_rate", "ci_low", "ci_high"]]


def win_rates(players: pd.DataFrame, by: str, confidence: float = 0.95) -> pd.DataFrame:
    """Win rate per group of a players table, with Wilson confidence intervals.

    Parameters
    ----------
    players : DataFrame
        A players table (``players_frame`` or ``catansim.load``).
    by : str
        ``strategy``, ``seat`` or another players column.
    confidence : float
        Confidence level of the interval (``scipy.stats.binomtest(...).proportion_ci``).

    Returns
    -------
    DataFrame
        Index ``by``; columns ``games`` (seat-games), ``wins``, ``win_rate``, ``ci_low``,
        ``ci_high``.
    """
    counts = players.groupby(by, observed=True)["won"].agg(games="size", wins="sum")
    return _win_table(counts, confidence)


VP_SOURCES = ("vp_settlements", "vp_cities", "vp_longest", "vp_army", "vp_cards")
SUMMARY_COLUMNS = {
    "games": ["variant", "game", "turns", "end_reason"],
    "players": ["variant", "game", "seat", "strategy", "won", "vp", *VP_SOURCES],
}


class Summary:
    """The tables of ``summarize``, accumulated a part at a time.

    ``add(games, players)`` takes the games and players rows of any set of games
    (``SUMMARY_COLUMNS`` suffice); ``tables()`` gives what ``summarize`` of all the
    rows added would give. It keeps counts and sums only (game lengths as a
    histogram of turns), so summarising a dataset needs the memory of one part
    whatever the number of games.
    """

    def __init__(self):
        self._turns = np.zeros(1, dtype=np.int64)  # games by number of turns
        self._turn_limit = 0
        self._wins: dict[str, pd.DataFrame] = {}
        self._vp: dict[str, pd.DataFrame] = {}

    @staticmethod
    def _plus(old, new):
        return new if old is None else old.add(new, fill_value=0)

    def add(self, games: pd.DataFrame, players: pd.DataFrame) -> Summary:
        counts = np.bincount(games["turns"].to_numpy(np.int64))
        if counts.size > self._turns.size:
            counts[: self._turns.size] += self._turns
            self._turns = counts
        else:
            self._turns[: counts.size] += counts
        self._turn_limit += int((games["end_reason"] == "turn_limit").sum())
        for by in ("strategy", "seat"):
            c = players.groupby(by, observed=True)["won"].agg(games="size", wins="sum")
            self._wins[by] = self._plus(self._wins.get(by), c)
        cols = ["vp", *VP_SOURCES]
        for who, rows in (("all seats", players), ("winners", players[players["won"]])):
            grouped = rows.groupby("strategy", observed=True)
            sums = grouped[cols].sum().astype(np.int64)
            sums["_n"] = grouped.size()
            self._vp[who] = self._plus(self._vp.get(who), sums)
        return self

    def _quantile(self, q: float) -> float:
        # pandas' default (linear) quantile of the turns, from their histogram.
        cum = np.cumsum(self._turns)
        pos = (cum[-1] - 1) * q
        lo, hi = int(np.floor(pos)), int(np.ceil(pos))
        x_lo = float(np.searchsorted(cum, lo, side="right"))
        x_hi = float(np.searchsorted(cum, hi, side="right"))
        return x_lo + (x_hi - x_lo) * (pos - lo)

    def tables(self) -> dict[str, pd.DataFrame]:
        """The summary tables (see ``summarize``)."""
        n = int(self._turns.sum())
        t = np.arange(self._turns.size, dtype=float)
        if n:
            mean = float((t * self._turns).sum() / n)
            std = float(np.sqrt((self._turns * (t - mean) ** 2).sum() / (n - 1))) if n > 1 \
                else np.nan
            stats = [mean, std, self._quantile(0.1), self._quantile(0.5), self._quantile(0.9),
                     float(np.flatnonzero(self._turns)[-1]), self._turn_limit / n]
        else:
            stats = [np.nan] * 7
        length = pd.DataFrame(
            {k: [v] for k, v in zip(("mean", "std", "p10", "median", "p90", "max",
                                     "turn_limit_share"), stats, strict=True)},
            index=pd.Index(["turns"], name=""))
        length.insert(0, "games", [n])
        vp = pd.concat({who: self._vp_means(who) for who in ("all seats", "winners")},
                       names=["who", "strategy"])
        return {
            "by_strategy": _win_table(self._wins["strategy"]),
            "by_seat": _win_table(self._wins["seat"]),
            "length": length.round(2),
            "vp_sources": vp.round(2),
        }

    def _vp_means(self, who: str) -> pd.DataFrame:
        sums = self._vp[who]
        return sums[["vp", *VP_SOURCES]].div(sums["_n"], axis=0)


def summarize(games: pd.DataFrame, players: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """The summary tables ``catansim simulate`` and ``catansim run`` print.

    Returns
    -------
    dict of str to DataFrame
        ``by_strategy`` and ``by_seat`` (``win_rates``), ``length`` (turns: mean,
        standard deviation, quantiles, share ending at the turn limit, no winner) and
        ``vp_sources`` (mean VP by source per strategy, for all seats and for winners).
        ``Summary`` builds the same tables a part at a time.
    """
    return Summary().add(games, players).tables()


def format_summary(tables: dict[str, pd.DataFrame]) -> str:
    """The ``summarize`` tables as text: win rates by strategy and seat, length, VP sources."""
    fmt = {"win_rate": "{:.3f}".format, "ci_low": "{:.3f}".format, "ci_high": "{:.3f}".format}
    parts = [
        f"Win rate by strategy (95% CI, Wilson)\n{tables['by_strategy'].to_string(formatters=fmt)}",
        f"Win rate by seat (95% CI, Wilson)\n{tables['by_seat'].to_string(formatters=fmt)}",
        f"Game length (turns)\n{tables['length'].to_string()}",
        f"VP sources (mean per seat)\n{tables['vp_sources'].to_string()}",
    ]
    return "\n\n".join(parts)


def summarize_dataset(path, variants=None) -> dict[str, dict[str, pd.DataFrame]]:
    """The summary tables (``summarize``) of each variant of a dataset, read a part at
    a time (``results.dataset.iter_parts``): memory stays that of one part whatever
    the number of games.

    Returns
    -------
    dict
        ``{variant: tables}`` for the variants with complete parts, in dataset order.
    """
    from .dataset import iter_parts

    out: dict[str, Summary] = {}
    for part, games, players in iter_parts(path, SUMMARY_COLUMNS, variants):
        out.setdefault(part.variant, Summary()).add(games, players)
    return {v: s.tables() for v, s in out.items()}
