"""Strategy ratings from multiplayer results: a Plackett-Luce (top-1) fit with CIs.

In a game only the winner is recorded, so the Plackett-Luce model reduces to its
first choice: the seat with strategy ``a`` at seat ``s`` wins with probability
``exp(b_a + g_s) / sum over the table of exp(b_k + g_t)``. That is a conditional
(multinomial) logit with each game a group. Its sufficient statistics are the
wins per (seating, seat), where a seating is the strategies at the seats: the
same fit is a Poisson log-linear model of those counts with one fixed effect per
seating (the multinomial-Poisson equivalence: identical estimates and standard
errors for ``b`` and ``g``), which ``statsmodels`` GLM fits in a moment whatever
the number of games. ``tests/test_analysis.py`` checks it against
``statsmodels``' ``ConditionalLogit`` on the raw games.

Why this rather than the win rate against the field: a strategy's win rate depends
on whom it met, and seats matter (seat effects are fitted, not ignored). The win
rate against the field, with its Wilson interval, is in ``seats.win_rates(..., "strategy")``.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import statsmodels.api as sm

from ..errors import CatansimError
from .driver import Analysis, Chunk, Context, reads_source, run
from .table import result_table

METHOD = ("Plackett-Luce top-1 (conditional logit, each game a group) fitted as a Poisson "
          "GLM of wins per (seating, seat) with a fixed effect per seating (statsmodels)")


def seat_table(chunk: Chunk, variant: str) -> tuple[np.ndarray, np.ndarray] | None:
    """(strategy names, won) as [games, seats] arrays of ``variant``'s games in the chunk,
    or None if it has none; the players rows must hold every seat of each game in seat
    order (as ``catansim.load`` returns them)."""
    rows = chunk.player_rows(variant)
    if rows.size == 0:
        return None
    seat = chunk.players["seat"].to_numpy()[rows].astype(np.int64)
    n_players = int(seat.max()) + 1
    if rows.size % n_players or not np.array_equal(
            seat, np.tile(np.arange(n_players), rows.size // n_players)):
        raise CatansimError("players: rows out of seat order; allowed: every seat of each "
                            "game, in seat order (as catansim.load returns them)")
    strat = chunk.labels("players", "strategy")[rows].reshape(-1, n_players)
    won = chunk.players["won"].to_numpy()[rows].astype(bool).reshape(-1, n_players)
    return strat, won


def _seating_map(chunk: Chunk):
    out = {}
    for v in chunk.variants:
        table = seat_table(chunk, v)
        if table is None:
            continue
        strat, won = table
        n_players = strat.shape[1]
        winner = np.where(won.any(axis=1), won.argmax(axis=1), -1)
        keys = pd.MultiIndex.from_arrays([*strat.T, winner])
        counts = pd.Series(1, index=keys).groupby(level=list(range(n_players + 1))).sum()
        counts.index.names = [*(f"seat_{i}" for i in range(n_players)), "winner"]
        out[v] = counts.astype(np.int64)
    return out


def fit_rating(counts: pd.Series, reference: str | None = None, confidence: float = 0.95
               ) -> pd.DataFrame:
    """Fit the top-1 Plackett-Luce model to wins per (seating, winning seat).

    ``counts`` is indexed by ``seat_0 .. seat_{n-1}`` (strategy names) and
    ``winner`` (the winning seat, -1 for no winner: left out). Returns one row per
    strategy: ``log_strength`` (relative to ``reference``, default the alphabetically
    first strategy; 0 for it), ``se``, ``ci_low``, ``ci_high``, ``strength`` (exp),
    ``p_value`` (vs the reference), ``games`` (decided games the strategy played),
    ``method``; and the seat effects as rows ``seat k`` (relative to seat 0).
    """
    n_players = len(counts.index.names) - 1
    c = counts[counts.index.get_level_values("winner") >= 0]
    seatings = c.groupby(level=list(range(n_players))).sum()
    strategies = sorted({s for lvl in range(n_players)
                         for s in seatings.index.get_level_values(lvl)})
    if not len(c):
        raise CatansimError(f"strategies: no game had a winner ({int(counts.sum()):,} games, "
                            "none decided: the turn limit or no winner); allowed: games with "
                            "winners, which a rating needs")
    if len(strategies) < 2:
        raise CatansimError(f"strategies: a rating needs at least two, got {strategies}; "
                            "allowed: games of two or more strategies")
    ref = reference or strategies[0]
    others = [s for s in strategies if s != ref]
    rows, y, groups = [], [], []
    lookup = c.to_dict()
    for j, seating in enumerate(seatings.index):
        for s in range(n_players):
            rows.append((j, seating[s], s))
            y.append(lookup.get((*seating, s), 0))
            groups.append(j)
    design = pd.DataFrame(rows, columns=["seating", "strategy", "seat"])
    x_strat = pd.DataFrame({f"strategy {o}": (design["strategy"] == o).astype(float)
                            for o in others})
    x_seat = pd.DataFrame({f"seat {s}": (design["seat"] == s).astype(float)
                           for s in range(1, n_players)})
    x_fe = pd.get_dummies(design["seating"], prefix="seating", dtype=float)
    x = pd.concat([x_strat, x_seat, x_fe], axis=1)
    note = ""
    if np.linalg.matrix_rank(x.to_numpy()) < x.shape[1]:  # seats confounded with strategies
        x = pd.concat([x_strat, x_fe], axis=1)
        note = "; seat effects not separable from strategies in this design (left out)"
    with warnings.catch_warnings():  # reported in the table (converged, wins) instead
        warnings.simplefilter("ignore")
        fit = sm.GLM(np.asarray(y, dtype=float), x, family=sm.families.Poisson()).fit()
    converged = bool(getattr(fit, "converged", True))
    ci = fit.conf_int(alpha=1 - confidence)
    terms = [t for t in x.columns if not t.startswith("seating")]
    games: dict[str, int] = {}
    won: dict[str, int] = {}
    for seating, n in seatings.items():
        for s in set(seating):
            games[s] = games.get(s, 0) + int(n)
    for key, n in c.items():
        won[key[key[-1]]] = won.get(key[key[-1]], 0) + int(n)
    out = [{"term": f"strategy {ref}", "log_strength": 0.0, "se": 0.0, "ci_low": 0.0,
            "ci_high": 0.0, "p_value": np.nan}]
    for t in terms:
        out.append({"term": t, "log_strength": float(fit.params[t]), "se": float(fit.bse[t]),
                    "ci_low": float(ci.loc[t, 0]), "ci_high": float(ci.loc[t, 1]),
                    "p_value": float(fit.pvalues[t])})
    frame = pd.DataFrame(out)
    frame["kind"] = np.where(frame["term"].str.startswith("seat "), "seat", "strategy")
    frame["name"] = frame["term"].str.split(" ", n=1).str[1]
    frame["strength"] = np.exp(frame["log_strength"])
    # counts stay integers (nullable: a seat row has no wins of its own)
    frame["games"] = pd.array([games.get(n, pd.NA) if k == "strategy" else int(seatings.sum())
                               for n, k in zip(frame["name"], frame["kind"], strict=True)],
                              dtype="Int64")
    frame["wins"] = pd.array([won.get(n, 0) if k == "strategy" else pd.NA
                              for n, k in zip(frame["name"], frame["kind"], strict=True)],
                             dtype="Int64")
    frame["converged"] = converged
    frame["reference"] = ref
    frame["method"] = METHOD + note + (
        "; a strategy that never (or always) wins has no finite strength: its estimate and "
        "interval are unbounded" if ((frame["wins"] == 0) | (frame["wins"] == frame["games"])
                                     ).any() else "")
    return frame.set_index(["kind", "name"]).drop(columns="term")


def _rating_finish(stats, ctx: Context) -> pd.DataFrame:
    frames = []
    for v in [v for v in ctx.variants if v in stats]:
        c = stats[v]
        names = {s for lvl in range(len(c.index.names) - 1)
                 for s in c.index.get_level_values(lvl)}
        if len(names) < 2 or not (c.index.get_level_values("winner") >= 0).any():
            continue  # nothing to rate: one strategy, or no game had a winner
        frames.append(fit_rating(c).assign(variant=v))
    if not frames:
        return pd.DataFrame()
    return pd.concat(frames).reset_index().set_index(["variant", "kind", "name"])


RATING = Analysis("strategy_rating", {"players": ("seat", "strategy", "won")}, _seating_map,
                  _rating_finish)
SEATINGS = Analysis("seatings", {"players": ("seat", "strategy", "won")}, _seating_map,
                    lambda s, ctx: s)


@reads_source
def strategy_rating(source, **kw) -> pd.DataFrame:
    """Rate the strategies of each variant with a top-1 Plackett-Luce fit.

    Reads ``players``: ``seat``, ``strategy``, ``won``. Returns a DataFrame indexed by
    (variant, kind, name), kind ``strategy`` or ``seat``: ``log_strength`` with
    ``se`` and its Wald interval, ``p_value`` against the reference, ``strength``
    (exp; the odds of winning relative to the reference in the same seat),
    ``games`` (decided games it played), ``wins``, ``converged``, ``reference``,
    ``method``. Variants with a single strategy are left
    out (nothing to rate); empty if none has two. Printed, the numbers come first and
    the method once below (``table.ResultTable``).
    """
    return result_table(run(RATING, source, **kw))
