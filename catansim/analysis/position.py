"""Starting positions: do starting pips predict winning? Win rate by starting node, and a
logistic regression of winning on the starting position with out-of-sample calibration.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import statsmodels.api as sm
from scipy.stats import binomtest

from ..constants import N_NODES
from ..errors import CatansimError
from ..results import dataset as D
from ..tunables import MODEL_CAP
from . import stats as S
from .driver import Analysis, Chunk, Context, reads_source, run, variant_check
from .measures import RES, START_COLS

START_PIPS = ("start_pips_1", "start_pips_2")


def _pips_map(chunk: Chunk):
    p = chunk.players
    out = {}
    for v in chunk.variants:
        rows = chunk.player_rows(v)
        pips = (p["start_pips_1"].to_numpy()[rows].astype(np.int64)
                + p["start_pips_2"].to_numpy()[rows].astype(np.int64))
        won = p["won"].to_numpy()[rows].astype(bool)
        out[v] = {"all": S.Hist.of(pips), "won": S.Hist.of(pips[won])}
    return out


def _pips_finish(stats, ctx: Context) -> pd.DataFrame:
    frames = []
    for v in [v for v in ctx.variants if v in stats]:
        a = stats[v]["all"].series("seat_games")
        w = stats[v]["won"].series("wins").reindex(a.index, fill_value=0)
        t = pd.DataFrame({"seat_games": a, "wins": w})
        t = t[t["seat_games"] > 0]
        t.index.name = "start_pips"
        frames.append(t.reset_index().assign(variant=v))
    out = S.rate_table(pd.concat(frames, ignore_index=True), "wins", n="seat_games",
                       rate="win_rate")
    return out.set_index(["variant", "start_pips"])[
        ["seat_games", "wins", "win_rate", "ci_low", "ci_high", "method"]]


START_PIPS_WIN = Analysis("start_pips", {"players": ("won", *START_PIPS)}, _pips_map,
                          _pips_finish)


@reads_source
def win_by_start_pips(source, **kw) -> pd.DataFrame:
    """Win rate by the pips of the two starting settlements together.

    Reads ``players``: ``won``, ``start_pips_1``, ``start_pips_2``. Returns a DataFrame
    indexed by (variant, start_pips): ``seat_games``, ``wins``, ``win_rate`` with its
    Wilson interval, ``method``.
    """
    return run(START_PIPS_WIN, source, **kw)


def _node_map(chunk: Chunk):
    p = chunk.players
    out = {}
    for v in chunk.variants:
        rows = chunk.player_rows(v)
        won = p["won"].to_numpy()[rows].astype(np.int64)
        seats = np.zeros(N_NODES, dtype=np.int64)
        wins = np.zeros(N_NODES, dtype=np.int64)
        for c in ("start_node_1", "start_node_2"):
            n = p[c].to_numpy()[rows].astype(np.int64)
            ok = n >= 0
            seats += np.bincount(n[ok], minlength=N_NODES)
            wins += np.bincount(n[ok], weights=won[ok], minlength=N_NODES).astype(np.int64)
        out[v] = np.stack([seats, wins])
    return out


NODE_CORRECTION = "fdr_bh"  # over a variant's nodes: a map is read as a whole


def _node_finish(stats, ctx: Context) -> pd.DataFrame:
    frames = []
    for v in [v for v in ctx.variants if v in stats]:
        seats, wins = stats[v]
        # each node against the variant's win rate of all starting settlements
        reference = wins.sum() / seats.sum() if seats.sum() else np.nan
        p = np.array([binomtest(int(k), int(n), reference).pvalue if n else np.nan
                      for k, n in zip(wins, seats, strict=True)])
        p_adj, significant = S.adjust(p, method=NODE_CORRECTION)
        frames.append(pd.DataFrame({"variant": v, "node": np.arange(N_NODES),
                                    "seat_games": seats, "wins": wins,
                                    "reference": reference, "p_value": p,
                                    "p_adjusted": p_adj, "significant": significant,
                                    "correction": NODE_CORRECTION}))
    out = S.rate_table(pd.concat(frames, ignore_index=True), "wins", n="seat_games",
                       rate="win_rate")
    return out.set_index(["variant", "node"])


NODE_WIN = Analysis("start_nodes", {"players": ("won", "start_node_1", "start_node_2")},
                    _node_map, _node_finish)


@reads_source
def win_by_start_node(source, **kw) -> pd.DataFrame:
    """Win rate of the seats that started with a settlement on each node (0-53).

    Reads ``players``: ``won``, ``start_node_1``, ``start_node_2``. A seat counts once
    for each of its two starting nodes. Returns a DataFrame indexed by (variant, node):
    ``seat_games``, ``wins``, ``win_rate`` with its Wilson interval, ``method``;
    ``reference`` (the variant's win rate of all starting settlements), ``p_value`` (exact
    binomial test of the node's rate against it, ``scipy.stats.binomtest``),
    ``p_adjusted`` and ``significant`` (Benjamini-Hochberg over the variant's nodes, at
    5%; ``correction`` names it). On a
    fixed board (``layout`` given or beginner) the nodes are the same intersections in
    every game; with a new board per game they are positions (coast, centre) only.
    """
    return run(NODE_WIN, source, **kw)


# --- logistic regression --------------------------------------------------------------------

FEATURES = ("start_pips_1", "start_pips_2", "start_kinds", "seat")
TEST_SHARE = 0.3  # held out for calibration, by game seed


def _sample_map(stride: int, variant: str):
    def f(chunk: Chunk):
        if variant not in chunk.variants:
            return []
        p = chunk.players
        rows = chunk.player_rows(variant)
        game = p["game"].to_numpy()[rows]
        keep = rows[game % stride == 0]
        kinds = np.zeros(keep.size, dtype=np.int64)
        for c in START_COLS:
            kinds += p[c].to_numpy()[keep] > 0
        return [pd.DataFrame({
            "game": p["game"].to_numpy()[keep], "seed": p["seed"].to_numpy()[keep],
            "seat": p["seat"].to_numpy()[keep].astype(np.int64),
            "start_pips_1": p["start_pips_1"].to_numpy()[keep].astype(np.int64),
            "start_pips_2": p["start_pips_2"].to_numpy()[keep].astype(np.int64),
            "start_kinds": kinds, "won": p["won"].to_numpy()[keep].astype(np.int64)})]
    return f


def fit_win_model(rows: pd.DataFrame, confidence: float = 0.95, test_share: float = TEST_SHARE,
                  bins: int = 10) -> dict[str, pd.DataFrame]:
    """Logistic regression of ``won`` on the starting position, with calibration.

    ``rows``: one row per seat-game with ``seed``, ``seat``, ``start_pips_1``,
    ``start_pips_2``, ``start_kinds`` (resource kinds of the second settlement's
    cards) and ``won``. Games whose ``seed % 1000 < test_share * 1000`` are held out
    (all seats of a game on the same side). Fit: ``statsmodels`` Logit with seat
    indicators (seat 0 the reference).
    """
    n_players = int(rows["seat"].max()) + 1
    x = rows[["start_pips_1", "start_pips_2", "start_kinds"]].astype(float)
    for s in range(1, n_players):
        x[f"seat_{s}"] = (rows["seat"] == s).astype(float)
    test = (rows["seed"].to_numpy() % 1000) < round(test_share * 1000)
    y = rows["won"].astype(float)
    if not test.any() or y[~test].nunique() < 2:
        raise CatansimError(
            f"win model: {int((~test).sum())} seat-games to fit (with "
            f"{int(y[~test].sum())} wins) and {int(test.sum())} held out; allowed: a variant "
            "with wins and losses among the fitted games and some held-out games (more games)")
    constant = [c for c in x.columns if x.loc[~test, c].nunique() < 2]
    x = sm.add_constant(x.drop(columns=constant))
    with warnings.catch_warnings():  # reported in calibration.converged instead
        warnings.simplefilter("ignore")
        fit = sm.Logit(y[~test], x[~test]).fit(disp=0, maxiter=100)
    ci = fit.conf_int(alpha=1 - confidence)
    with np.errstate(over="ignore"):
        coef = pd.DataFrame({"coef": fit.params, "se": fit.bse, "ci_low": ci[0],
                             "ci_high": ci[1], "p_value": fit.pvalues,
                             "odds_ratio": np.exp(fit.params), "or_ci_low": np.exp(ci[0]),
                             "or_ci_high": np.exp(ci[1])})
    coef.index.name = "term"
    coef["n"] = int((~test).sum())
    coef["method"] = "logistic regression (statsmodels Logit), Wald intervals" + (
        f"; left out (no variation): {', '.join(constant)}" if constant else "")
    p_test = fit.predict(x[test])
    y_test = y[test].to_numpy()
    base = float(y[~test].mean())
    brier = float(np.mean((p_test - y_test) ** 2))
    brier_base = float(np.mean((base - y_test) ** 2))
    calib = pd.DataFrame({"n_train": [int((~test).sum())], "n_test": [int(test.sum())],
                          "brier": [brier], "brier_base_rate": [brier_base],
                          "brier_skill": [1 - brier / brier_base if brier_base else np.nan],
                          "pseudo_r2": [float(fit.prsquared)],
                          "converged": [bool(fit.mle_retvals.get("converged", True))]})
    rel = S.reliability_table(p_test, y_test, bins, confidence)
    return {"coefficients": coef, "calibration": calib, "reliability": rel}


def count_games(source) -> int:
    """Games per variant of a source present (in the complete parts of a dataset: fewer
    than its manifest plans when a run was interrupted), the largest over variants."""
    if isinstance(source, tuple | list):
        return int(source[0]["game"].nunique())
    return max(D.games_present(source).values(), default=0)


def win_model_analysis(n_games: int, variant: str = "baseline", cap: int = MODEL_CAP,
                       n_players: int = 4, too_few: str = "raise") -> Analysis:
    """The win model of ``variant`` over ``n_games`` games (those present: the stride
    that keeps the sample under ``cap`` comes from them). ``too_few="note"``: a variant
    too small to fit gives ``{"left_out": reason}`` instead of a ``CatansimError``."""
    stride = max(1, math.ceil(n_games * n_players / cap))

    def finish(rows, ctx):
        if not rows:
            return {}
        try:
            fitted = fit_win_model(pd.concat(rows, ignore_index=True))
        except CatansimError as exc:
            if too_few != "note":
                raise
            return {"left_out": str(exc)}
        return fitted | {"sample": pd.DataFrame({"variant": [variant], "stride": [stride],
                                                 "games": [n_games], "cap": [cap]})}

    return Analysis("win_model", {"players": ("seed", "seat", "won", *START_PIPS, *START_COLS)},
                    _sample_map(stride, variant), finish,
                    check=variant_check(variant, "variant"))


@reads_source
def win_model(source, variant: str | None = None, cap: int = MODEL_CAP, **kw) -> dict:
    """Does the starting position predict winning? A logistic regression with CIs and
    its calibration on held-out games.

    Reads ``players``: ``seed``, ``seat``, ``won``, ``start_pips_1``, ``start_pips_2``,
    ``start_<resource>``. Fits one variant (default the baseline). Rows are seat-games;
    when a variant has more than ``cap`` seat-games (200,000), every k-th game is used
    (``game % k == 0``, k the smallest stride under the cap), so memory stays bounded.

    Returns a dict of DataFrames: ``coefficients`` (term: coef, se, Wald interval,
    p_value, odds ratio with its interval, n, method), ``calibration`` (held-out Brier
    score, that of predicting the base rate, Brier skill, McFadden pseudo-R2, whether
    the fit converged),
    ``reliability`` (held-out seat-games by decile of the predicted probability:
    n, wins, mean_predicted, observed with its Wilson interval) and ``sample``
    (stride and cap used).
    """
    n = count_games(source)
    if variant is None:
        variant = _first_variant(source)
    return run(win_model_analysis(n, variant, cap), source, **kw)


def _first_variant(source) -> str:
    if isinstance(source, tuple | list):
        names = list(pd.unique(source[0]["variant"].astype(str)))
    else:
        names = D.read_manifest(source)["variants"]
    return "baseline" if "baseline" in names else names[0]


__all__ = ["FEATURES", "RES", "count_games", "fit_win_model", "win_by_start_node",
           "win_by_start_pips", "win_model"]
