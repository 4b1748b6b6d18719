"""A ladder's numbers from its games: a rating for every player, and the one-against-three
matrix.

A ladder's games (``runs.ladder``) are cross-play games: one player alone against
``n_players - 1`` copies of another, the single player rotating through the seats on
shared deals. Each game is one row of a plain table: the player in each seat
(``seat_0`` ..), the winning seat (``winner``, -1 for none), the single player
(``strategy``), its seat (``single_seat``) and the copies' player (``opponent``).

- ``ladder_rating``: the top-1 Plackett-Luce fit of ``analysis.strategies.fit_rating``
  on every game's seating and winner (seat effects fitted), one rating for every player
  with its Wald interval, the decided games it played (n) and its wins;
- ``ladder_matrix``: the win rate of each single player against each opponent, pooled
  and per seat, with its Wilson interval, n and the exact binomial test against the fair
  share, Holm-corrected over the matrix (``analysis.crossplay.crossplay_cells``).

May import: ``analysis.strategies``, ``analysis.crossplay``, ``analysis.stats``,
``errors``; pandas and numpy.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..errors import CatansimError
from .crossplay import crossplay_cells
from .stats import wilson_ci
from .strategies import fit_rating

# The columns a ladder's games table must have beside ``seat_0 .. seat_{n-1}``.
COLUMNS = ("winner", "strategy", "opponent", "single_seat")
# A rating whose standard error is over this (log odds) is not bounded by the games: the
# player never won (or always won) against a group of players it met, so the fit's
# maximum is at infinity (quasi-separation) and the interval says nothing.
UNBOUNDED_SE = 10.0
UNBOUNDED_NOTE = ("unbounded: the games give no finite rating there (a player never won, or "
                  "always won, against those it met), so its interval says nothing")


def seat_columns(games: pd.DataFrame) -> list[str]:
    """``seat_0 .. seat_{n-1}``: the seats of the ladder's games."""
    cols = [c for c in games.columns if c.startswith("seat_")]
    missing = [c for c in COLUMNS if c not in games.columns]
    if len(cols) < 2 or missing:
        raise CatansimError(f"ladder games: columns {missing or ['seat_0', 'seat_1']} "
                            f"missing; allowed: a ladder's games table (seat_0.., "
                            f"{', '.join(COLUMNS)})")
    return [f"seat_{i}" for i in range(len(cols))]


def seating_counts(games: pd.DataFrame) -> pd.Series:
    """Games per (seating, winning seat): ``fit_rating``'s input."""
    seats = seat_columns(games)
    keys = [games[c].astype(str) for c in seats] + [games["winner"].astype(np.int64)]
    counts = pd.Series(1, index=pd.MultiIndex.from_arrays(keys)).groupby(
        level=list(range(len(seats) + 1))).sum()
    counts.index.names = [*seats, "winner"]
    return counts.astype(np.int64)


def ladder_rating(games: pd.DataFrame, reference: str | None = None,
                  confidence: float = 0.95) -> pd.DataFrame:
    """Every player's Plackett-Luce (top-1) rating with its interval, relative to
    ``reference`` (default: the first name alphabetically), and the seat effects: the
    frame of ``analysis.strategies.fit_rating`` under a ``variant`` level ``ladder``."""
    if not len(games):
        raise CatansimError("ladder games: none played yet; allowed: a ladder with games")
    counts = seating_counts(games)
    names = sorted({str(s) for c in seat_columns(games) for s in games[c]})
    if reference is not None and reference not in names:
        raise CatansimError(f"reference: {reference!r} is not in the ladder; allowed: "
                            f"{', '.join(names)}")
    fit = fit_rating(counts, reference, confidence)
    return pd.concat({"ladder": fit}, names=["variant"])


def ladder_matrix(games: pd.DataFrame, correction: str = "holm") -> pd.DataFrame:
    """The one-against-the-rest table, indexed by (strategy, opponent, seat), seat
    ``all`` (pooled) then ``0`` ..: games (n), wins, win rate with its Wilson interval,
    p-value against the fair share and its corrected verdict
    (``analysis.crossplay.crossplay_cells``)."""
    n_players = len(seat_columns(games))
    t = pd.DataFrame({"strategy": games["strategy"].astype(str),
                      "opponent": games["opponent"].astype(str),
                      "seat": games["single_seat"].astype(np.int64),
                      "won": (games["winner"] == games["single_seat"]).astype(np.int64)})
    counts = t.groupby(["strategy", "opponent", "seat"], sort=True)["won"].agg(["size", "sum"])
    return crossplay_cells(counts.astype(np.int64), n_players, correction)


def ladder_table(rating: pd.DataFrame, matrix: pd.DataFrame) -> pd.DataFrame:
    """One row per player, strongest first: its rating with the interval and n (``games``,
    the decided games it sat in), whether the games bound it (``bounded``: standard error
    at most ``UNBOUNDED_SE``), and its pooled win rate alone against the others (all
    opponents together) with the Wilson interval of those games."""
    r = rating.xs("ladder", level="variant").xs("strategy", level="kind")
    pooled = matrix.xs("all", level="seat").groupby(level="strategy")[["games", "wins"]].sum()
    out = pd.DataFrame({"log_strength": r["log_strength"], "ci_low": r["ci_low"],
                        "ci_high": r["ci_high"], "bounded": r["se"] <= UNBOUNDED_SE,
                        "games": r["games"].astype(np.int64),
                        "wins": r["wins"].astype(np.int64)})
    out = out.join(pooled.rename(columns={"games": "games_alone", "wins": "wins_alone"}))
    alone = ["games_alone", "wins_alone"]  # a player never alone (a ladder's ``alone``): 0
    out[alone] = out[alone].fillna(0).astype(np.int64)
    out["win_rate_alone"] = (out["wins_alone"] / out["games_alone"]).where(
        out["games_alone"] > 0)
    out["alone_low"], out["alone_high"] = wilson_ci(out["wins_alone"], out["games_alone"])
    out.index.name = "player"
    return out.sort_values("log_strength", ascending=False)
