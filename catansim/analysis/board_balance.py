"""Board balance: each board's seat effect, how much the board explains, and what predicts it.

Datasets with many games per board (a board set, ``[boards]`` in an experiment file)
let a board's own seat win rates be measured. The analyses here:

- ``per_board``: one row per board: its games, each seat's win rate (Wilson), a
  chi-square test of equal seats (Benjamini-Hochberg over the boards), the seat
  spread (observed and its unbiased square), the seat-0 advantage, the game length,
  split-half copies of each (even and odd games) and the board's features;
- ``board_variance``: how much of the board-to-board variation is real: the
  between-board variance of each seat's win rate (one-way random effects, method of
  moments, bootstrap interval over boards), the reliability of one board's estimate,
  the typical board's seat spread, the share of boards found unfair;
- ``board_power``: what a number of games per board buys (interval width, reliability,
  power of the per-board test at the typical board's spread);
- ``luck_budget``: a crossed design (boards x shared game seeds, ``dice = "shared"``)
  splits the variance of a seat's result into seat, strategy, board, game seed (the
  dice, the deck, the steals and the decisions' random draws) and board x game seed,
  which includes each game's own noise (two-way ANOVA per seat cell, jackknife over
  boards plus over seeds);
- ``board_regression``: regressions of a board's seat-0 advantage, seat spread and game
  length on its features (standardised coefficients, HC3 intervals, BH), with
  cross-validated (by board) R² beside the split-half reliability that bounds it;
- ``fit_seat_model`` / ``seat_model_check``: a linear model of each seat's win rate on
  the opening features of a reference draft (the fairness index of
  ``catansim.board.fairness``), fitted on some boards and checked on others;
- ``compare_board_sets``: two board sets (e.g. variable and balanced boards) side by side.

``per_board`` reads the tables (a part at a time); the others take its table (and
board features computed elsewhere) and are pure functions of frames.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import scipy.linalg
import statsmodels.api as sm
from scipy.stats import binom, bootstrap, pearsonr
from statsmodels.stats.power import GofChisquarePower
from statsmodels.stats.weightstats import CompareMeans, DescrStatsW
from statsmodels.tools.sm_exceptions import SingularMatrixWarning

from ..errors import CatansimError, CatansimWarning
from ..results.schema import feature_dtypes
from . import stats as S
from .driver import Analysis, Chunk, Context, reads_source, run

BH = "fdr_bh"
BOOTSTRAP = 2000  # resamples for the bootstrap intervals over boards
FOLDS = 5  # cross-validation folds, by board


def _features() -> tuple[str, ...]:
    return tuple(feature_dtypes())


# --- per board --------------------------------------------------------------------------------


def _board_map(chunk: Chunk):
    g = chunk.games
    feats = [c for c in _features() if c in g.columns]
    out = []
    for v in chunk.variants:
        rows = chunk.game_rows(v)
        if not rows.size:
            continue
        n = int(g["n_players"].to_numpy()[rows[0]])
        game = g["game"].to_numpy()[rows]
        win = pd.array(g["winner"].to_numpy()[rows]).to_numpy(dtype=float, na_value=-1)
        turns = g["turns"].to_numpy()[rows].astype(np.int64)
        frame = {"board_id": g["board_id"].to_numpy()[rows], "first_game": game,
                 "games": np.ones(rows.size, dtype=np.int64),
                 "decided": (win >= 0).astype(np.int64), "turns_sum": turns,
                 "turns_sq": turns * turns}
        half = game % 2
        for s in range(n):
            w = (win == s).astype(np.int64)
            frame[f"wins_{s}"] = w
            frame[f"wins_{s}_h0"] = w * (half == 0)
        frame["games_h0"] = (half == 0).astype(np.int64)
        frame["turns_sum_h0"] = turns * (half == 0)
        t = pd.DataFrame(frame)
        agg = {c: "sum" for c in t.columns if c not in ("board_id", "first_game")}
        agg["first_game"] = "min"
        t = t.groupby("board_id", sort=False).agg(agg)
        fe = g.iloc[rows][["board_id", *feats]].drop_duplicates("board_id").set_index(
            "board_id")
        t = t.join(fe)
        t["variant"] = v
        t["n_players"] = n
        out.append(t.reset_index())
    return out


def _board_finish(stats, ctx: Context) -> pd.DataFrame:
    if not stats:
        return pd.DataFrame()
    t = pd.concat(stats, ignore_index=True)
    counts = [c for c in t.columns if c.startswith(("games", "decided", "wins_", "turns_"))]
    feats = [c for c in _features() if c in t.columns]
    agg = {c: "sum" for c in counts}
    agg.update({"first_game": "min", "n_players": "first", **{c: "first" for c in feats}})
    t = t.groupby(["variant", "board_id"], sort=False).agg(agg)
    order = {v: i for i, v in enumerate(ctx.variants)}
    t = t.reset_index()
    t["_v"] = t["variant"].map(order)
    t = t.sort_values(["_v", "first_game"], kind="stable").drop(columns="_v")
    return board_table(t.set_index(["variant", "board_id"]), feats)


def _unbiased_rms2(rates: np.ndarray, games: np.ndarray, n: int) -> np.ndarray:
    """Unbiased estimate of mean_s (p_s - 1/n)^2 from observed rates over ``games``: each
    (p̂ - 1/n)² loses its sampling variance, estimated without bias by p̂(1 - p̂)/(G - 1)."""
    g = games[:, None].astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        noise = np.where(g > 1, rates * (1 - rates) / (g - 1), np.nan)
    return np.mean((rates - 1.0 / n) ** 2 - noise, axis=1)


def board_table(t: pd.DataFrame, feats=()) -> pd.DataFrame:
    """Add the per-board statistics to a table of per-board counts (see ``per_board``)."""
    t = t.copy()
    out = []
    for _v, part in t.groupby(level="variant", sort=False):
        part = part.copy()
        n = int(part["n_players"].iloc[0])
        games = part["games"].to_numpy()
        wins = np.stack([part[f"wins_{s}"].to_numpy() for s in range(n)], axis=1)
        rates = wins / games[:, None]
        for s in range(n):
            part[f"win_rate_{s}"] = rates[:, s]
            part[f"ci_low_{s}"], part[f"ci_high_{s}"] = S.wilson_ci(wins[:, s], games)
        part["seat0_advantage"] = rates[:, 0] - 1.0 / n
        part["max_gap"] = rates.max(axis=1) - rates.min(axis=1)
        part["rms"] = np.sqrt(np.mean((rates - 1.0 / n) ** 2, axis=1))
        part["rms2"] = _unbiased_rms2(rates, games, n)
        chi = [S.chisquare_equal(w) for w in wins]
        part["chi2"] = [c["chi2"] for c in chi]
        part["p_value"] = [c["p_value"] for c in chi]
        part["cohens_w"] = [c["cohens_w"] for c in chi]
        part["p_adjusted"], part["unfair"] = S.adjust(part["p_value"], BH)
        part["turns_mean"] = part["turns_sum"] / games
        with np.errstate(invalid="ignore"):
            part["turns_sd"] = np.sqrt(np.maximum(
                (part["turns_sq"] - games * part["turns_mean"] ** 2) / (games - 1), 0))
        # split halves (even and odd games) for reliabilities
        g0 = part["games_h0"].to_numpy()
        g1 = games - g0
        w0 = np.stack([part[f"wins_{s}_h0"].to_numpy() for s in range(n)], axis=1)
        r0, r1 = w0 / g0[:, None], (wins - w0) / g1[:, None]
        part["seat0_advantage_h0"] = r0[:, 0] - 1.0 / n
        part["seat0_advantage_h1"] = r1[:, 0] - 1.0 / n
        part["rms2_h0"] = _unbiased_rms2(r0, g0, n)
        part["rms2_h1"] = _unbiased_rms2(r1, g1, n)
        part["turns_mean_h0"] = part["turns_sum_h0"] / g0
        part["turns_mean_h1"] = (part["turns_sum"] - part["turns_sum_h0"]) / g1
        part["method"] = (f"{S.WILSON}; chi-square test of equal seats per board "
                          f"(scipy), Benjamini-Hochberg over the {len(part)} boards; rms2: "
                          "unbiased square of the RMS distance from 1 / players")
        out.append(part)
    t = pd.concat(out)
    first = ["first_game", "n_players", "games", "decided"]
    stat = [c for c in t.columns if c.startswith(("win_rate_", "ci_low_", "ci_high_"))]
    rest = ["seat0_advantage", "max_gap", "rms", "rms2", "chi2", "p_value", "p_adjusted",
            "unfair", "cohens_w", "turns_mean", "turns_sd", "method"]
    other = [c for c in t.columns if c not in set(first + stat + rest) and c not in feats]
    return t[first + stat + rest + list(feats) + other]


PER_BOARD = Analysis("per_board", {"games": ("board_id", "n_players", "winner", "turns",
                                             *_features())},
                     _board_map, _board_finish)


@reads_source
def per_board(source, **kw) -> pd.DataFrame:
    """One row per board of a board set: its seat win rates, spread and game length.

    Reads ``games``: ``board_id``, ``n_players``, ``winner``, ``turns`` and the board
    features. Returns a DataFrame indexed by (variant, board_id), boards in the order
    they were played: ``first_game``, ``n_players``, ``games`` (n), ``decided``;
    ``win_rate_<s>``, ``ci_low_<s>``, ``ci_high_<s>`` (Wilson) per seat;
    ``seat0_advantage`` (seat 0's rate - 1 / players), ``max_gap`` (best - worst seat),
    ``rms`` (RMS distance of the seat rates from 1 / players) and ``rms2`` (its square,
    unbiased: the sampling noise taken out); ``chi2``, ``p_value`` (equal seats on this
    board), ``p_adjusted`` (Benjamini-Hochberg over the variant's boards), ``unfair``
    (significant after it), ``cohens_w``; ``turns_mean``, ``turns_sd``; split-half
    copies (``*_h0`` even games, ``*_h1`` odd games) and the counts behind them; the
    board features of the games table.
    """
    return run(PER_BOARD, source, **kw)


# --- how much of it is real -------------------------------------------------------------------


def _tau2(rates, games):
    """Between-board variance of a rate: observed variance minus the mean sampling variance
    (unbiased per board: p̂(1 - p̂)/(G - 1)); method of moments."""
    rates = np.asarray(rates, dtype=float)
    games = np.asarray(games, dtype=float)
    noise = rates * (1 - rates) / (games - 1)
    return np.var(rates, ddof=1, axis=-1) - np.mean(noise, axis=-1)


def _boot_ci(data, statistic, seed: int = 0):
    res = bootstrap(data, statistic, paired=True, vectorized=True, n_resamples=BOOTSTRAP,
                    method="percentile", random_state=np.random.default_rng(seed))
    return float(res.confidence_interval.low), float(res.confidence_interval.high)


def board_variance(table: pd.DataFrame) -> pd.DataFrame:
    """How much of the board-to-board variation of the seat results is real.

    ``table``: a ``per_board`` table. For each variant, rows ``seat_<s>`` (the seat's win
    rate), ``spread`` (the RMS distance of a board's seat rates from 1 / players) and
    ``turns`` (mean game length). Columns: ``boards``, ``games_per_board`` (median),
    ``mean`` (over boards), ``observed_var`` (variance of the per-board estimates),
    ``noise_var`` (their mean sampling variance), ``between_var`` (the difference: the
    real between-board variance, method of moments) with ``between_ci_low`` /
    ``_high`` (percentile bootstrap over boards, scipy), ``between_sd``,
    ``reliability`` (share of the observed variance that is real at this many games per
    board), ``games_for_reliability_90``, ``board_share`` (between-board variance over
    the variance of one seat's win/loss, p(1-p): the share of a seat's result the board
    decides); for ``spread``: ``mean`` is sqrt(mean unbiased rms2) with its interval,
    ``unfair_share`` the boards found unfair (BH) with its Wilson interval.
    """
    rows = []
    for v, t in table.groupby(level="variant", sort=False):
        n = int(t["n_players"].iloc[0])
        g = t["games"].to_numpy().astype(float)
        gm = float(np.median(g))
        for s in range(n):
            p = t[f"win_rate_{s}"].to_numpy()
            tau2 = float(_tau2(p, g))
            lo, hi = _boot_ci((p, g), lambda a, b, axis=-1: _tau2(a, b), seed=s)
            pbar = float(p.mean())
            noise = float(np.mean(p * (1 - p) / (g - 1)))
            rel = tau2 / (tau2 + pbar * (1 - pbar) / gm) if tau2 > 0 else 0.0
            rows.append({"variant": v, "measure": f"seat_{s}", "boards": len(t),
                         "games_per_board": gm, "mean": pbar,
                         "observed_var": float(np.var(p, ddof=1)), "noise_var": noise,
                         "between_var": tau2, "between_ci_low": lo, "between_ci_high": hi,
                         "between_sd": np.sqrt(max(tau2, 0.0)), "reliability": rel,
                         "games_for_reliability_90": (9 * pbar * (1 - pbar) / tau2
                                                      if tau2 > 0 else np.inf),
                         "board_share": tau2 / (pbar * (1 - pbar)),
                         "method": "one-way random effects (method of moments); "
                                   "percentile bootstrap over boards (scipy)"})
        r2 = t["rms2"].to_numpy()
        m, lo, hi = _mean_ci(r2)
        unfair = int(t["unfair"].sum())
        ulo, uhi = S.wilson_ci(unfair, len(t))
        rows.append({"variant": v, "measure": "spread", "boards": len(t),
                     "games_per_board": gm, "mean": np.sqrt(max(m, 0)),
                     "between_var": m, "between_ci_low": lo, "between_ci_high": hi,
                     "between_sd": np.sqrt(max(m, 0)),
                     "ci_low": np.sqrt(max(lo, 0)), "ci_high": np.sqrt(max(hi, 0)),
                     "observed_var": float(np.mean(t["rms"] ** 2)),
                     "noise_var": float(np.mean(t["rms"] ** 2) - m),
                     "unfair_share": unfair / len(t), "unfair_ci_low": float(ulo[0]),
                     "unfair_ci_high": float(uhi[0]),
                     "method": "sqrt of the mean unbiased rms2 (t interval over boards); "
                               "unfair: BH over the boards, Wilson interval"})
        tm = t["turns_mean"].to_numpy()
        tv = (t["turns_sd"].to_numpy() ** 2) / g
        tau2 = float(np.var(tm, ddof=1) - tv.mean())
        lo, hi = _boot_ci((tm, tv), lambda a, b, axis=-1: np.var(a, ddof=1, axis=axis)
                          - np.mean(b, axis=axis), seed=99)
        sd_game = float(np.sqrt(np.mean(t["turns_sd"] ** 2)))
        rows.append({"variant": v, "measure": "turns", "boards": len(t), "games_per_board": gm,
                     "mean": float(tm.mean()), "observed_var": float(np.var(tm, ddof=1)),
                     "noise_var": float(tv.mean()), "between_var": tau2,
                     "between_ci_low": lo, "between_ci_high": hi,
                     "between_sd": np.sqrt(max(tau2, 0.0)),
                     "reliability": tau2 / (tau2 + sd_game ** 2 / gm) if tau2 > 0 else 0.0,
                     "board_share": tau2 / (tau2 + sd_game ** 2),
                     "method": "one-way random effects of the mean game length (turns)"})
    return pd.DataFrame(rows).set_index(["variant", "measure"])


def _mean_ci(x) -> tuple[float, float, float]:
    x = np.asarray(x, dtype=float)
    if x.size < 2:
        return (float(x.mean()) if x.size else np.nan), np.nan, np.nan
    d = DescrStatsW(x)
    lo, hi = d.tconfint_mean()
    return float(d.mean), float(lo), float(hi)


def board_power(variance: pd.DataFrame, games=(25, 50, 100, 200, 500, 1000, 2000),
                variant: str | None = None) -> pd.DataFrame:
    """What G games per board buy, from a ``board_variance`` table (one variant).

    Per G: ``ci_half_width`` of one seat's win rate (Wilson, at the mean rate),
    ``reliability`` (mean over seats of between / (between + p(1-p)/G)), ``power`` of the
    per-board chi-square test of equal seats at the typical board's spread (Cohen's w =
    players x the ``spread`` row's mean; statsmodels GofChisquarePower, 0.05) and
    ``games_for_power_80`` (the games that test needs).
    """
    if variant is None:
        variant = variance.index.get_level_values("variant")[0]
    t = variance.xs(variant, level="variant")
    seats = [m for m in t.index if m.startswith("seat_")]
    n = len(seats)
    w = n * float(t.loc["spread", "mean"])
    need = GofChisquarePower().solve_power(effect_size=w, nobs=None, alpha=0.05, power=0.8,
                                           n_bins=n) if w > 0 else np.inf
    rows = []
    for g in games:
        p = t.loc[seats, "mean"].to_numpy()
        tau2 = np.maximum(t.loc[seats, "between_var"].to_numpy(), 0)
        lo, hi = S.wilson_ci(np.round(p.mean() * g), g)
        rows.append({"games_per_board": g, "ci_half_width": float((hi[0] - lo[0]) / 2),
                     "reliability": float(np.mean(tau2 / (tau2 + p * (1 - p) / g))),
                     "power": float(GofChisquarePower().power(effect_size=w, nobs=g, alpha=0.05,
                                                              n_bins=n)) if w > 0 else np.nan,
                     "cohens_w": w, "games_for_power_80": float(need)})
    out = pd.DataFrame(rows).set_index("games_per_board")
    out["method"] = ("Wilson half-width at the mean seat rate; reliability from the "
                     "between-board variances; statsmodels GofChisquarePower at w = players x "
                     "typical spread")
    return out


# --- the luck budget -------------------------------------------------------------------------

LUCK_MEASURES = {"won": "win (0/1)", "vp": "final VP"}
# the luck budget's components: a game seed sets the dice, the deck, the steals and every
# random draw of the decisions (not only the dice); with one game per board and seed,
# board x game seed holds whatever the two do together and each game's own noise
SEED = "game seed"
BOARD_X_SEED = "board x game seed"


def _luck_map(variants, measure):
    def f(chunk: Chunk):
        names = [v for v in chunk.variants if variants is None or v in variants]
        out = []
        p = chunk.players
        for v in names:
            rows = chunk.player_rows(v)
            gpos = chunk.game_of_player(v)
            grows = chunk.game_rows(v)
            out.append(pd.DataFrame({
                "variant": v,
                "board_id": chunk.games["board_id"].to_numpy()[grows][gpos],
                "seed": p["seed"].to_numpy()[rows],
                "seat": p["seat"].to_numpy()[rows].astype(np.int64),
                "strategy": chunk.labels("players", "strategy")[rows],
                "y": p[measure].to_numpy()[rows].astype(np.int64)}))
        return out
    return f


def _two_way(y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Variance components of y[cell, board, seed] (one observation per board and game
    seed): board, seed and the rest (their interaction with each game's own noise), per
    cell; two-way random-effects ANOVA without replication (method of moments)."""
    c, b, d = y.shape
    m = y.mean(axis=(1, 2), keepdims=True)
    rb = y.mean(axis=2, keepdims=True)
    cd = y.mean(axis=1, keepdims=True)
    ms_b = d * ((rb - m) ** 2).sum(axis=(1, 2)) / (b - 1)
    ms_d = b * ((cd - m) ** 2).sum(axis=(1, 2)) / (d - 1)
    ms_r = ((y - rb - cd + m) ** 2).sum(axis=(1, 2)) / ((b - 1) * (d - 1))
    return (ms_b - ms_r) / d, (ms_d - ms_r) / b, ms_r


def luck_components(y: np.ndarray, seats: np.ndarray, strategies: np.ndarray) -> dict:
    """The luck budget of y[cell, board, seed]; ``seats`` and ``strategies`` label the
    cells.

    Returns variances: ``seat``, ``strategy``, ``seat x strategy`` (fixed effects: the
    variance of the cell means split by a two-way decomposition, plug-in), ``board``,
    ``game seed`` (the seed sets the dice, the deck, the steals and the decisions'
    random draws) and ``board x game seed`` (the rest: everything the board and the seed
    do together; a game is a pure function of its board, seed and players, so there is
    no other residual), each the mean over the cells of the two-way ANOVA estimates.
    With one game per board and seed, the interaction cannot be told apart from chance
    within a game: it includes each game's own noise.
    """
    vb, vd, vr = _two_way(y.astype(float))
    mu = y.mean(axis=(1, 2))
    grand = mu.mean()
    seat_levels = np.unique(seats)
    strat_levels = np.unique(strategies)
    a = np.array([mu[seats == s].mean() - grand for s in seat_levels])
    b = np.array([mu[strategies == k].mean() - grand for k in strat_levels])
    seat_var = float(np.mean(a[np.searchsorted(seat_levels, seats)] ** 2))
    strat_var = float(np.mean(b[np.searchsorted(strat_levels, strategies)] ** 2))
    fixed = float(np.mean((mu - grand) ** 2))
    return {"seat": seat_var, "strategy": strat_var,
            "seat x strategy": max(fixed - seat_var - strat_var, 0.0),
            "board": float(vb.mean()), SEED: float(vd.mean()),
            BOARD_X_SEED: float(vr.mean())}


def _luck_finish(measure):
    def f(stats, ctx: Context) -> pd.DataFrame:
        if not stats:
            return pd.DataFrame()
        t = pd.concat(stats, ignore_index=True)
        return luck_table(t, measure)
    return f


def luck_table(t: pd.DataFrame, measure: str = "won") -> pd.DataFrame:
    """``luck_budget`` from its rows (variant, board_id, seed, seat, strategy, y)."""
    t = t.sort_values(["variant", "seat", "board_id", "seed"], kind="stable")
    boards = np.unique(t["board_id"].to_numpy())
    seeds = np.unique(t["seed"].to_numpy())
    cells = t[["variant", "seat"]].drop_duplicates()
    nb, nd = boards.size, seeds.size
    y = np.full((len(cells), nb, nd), np.nan)
    seats = np.zeros(len(cells), dtype=np.int64)
    strats = np.empty(len(cells), dtype=object)
    for i, (v, s) in enumerate(cells.itertuples(index=False)):
        part = t[(t["variant"] == v) & (t["seat"] == s)]
        names = part["strategy"].unique()
        if len(names) != 1:
            raise CatansimError(f"luck budget: variant {v} seat {s} has several strategies "
                                "(seats rotated within the variant); allowed: one strategy "
                                "per seat in each variant (rotations as variants)")
        bi = np.searchsorted(boards, part["board_id"].to_numpy())
        di = np.searchsorted(seeds, part["seed"].to_numpy())
        if len(part) != nb * nd or len(set(zip(bi, di, strict=True))) != nb * nd:
            raise CatansimError("luck budget: needs every board with every game seed once "
                                "(a board set with dice = 'shared'); this source is not one")
        y[i, bi, di] = part["y"].to_numpy()
        seats[i] = s
        strats[i] = str(names[0])
    strats = strats.astype(str)
    est = luck_components(y, seats, strats)
    keys = list(est)

    def stat(yy):
        c = luck_components(yy, seats, strats)
        tot = sum(c.values())
        return np.array([c[k] for k in keys] + [c[k] / tot for k in keys])

    full = stat(y)
    # Jackknife over boards and over seeds apart; in a crossed design the variance of an
    # estimate is about the sum of the two (a resampling bootstrap would duplicate boards
    # or seeds, which then pass for real effects and bias variance components upward).
    var = np.zeros_like(full)
    for axis, size in ((1, nb), (2, nd)):
        reps = np.array([stat(np.delete(y, i, axis=axis)) for i in range(size)])
        var += (size - 1) / size * ((reps - reps.mean(axis=0)) ** 2).sum(axis=0)
    se = np.sqrt(var)
    z = 1.959963984540054
    k = len(keys)
    out = pd.DataFrame({"component": keys, "variance": full[:k], "se": se[:k],
                        "ci_low": np.maximum(full[:k] - z * se[:k], 0),
                        "ci_high": full[:k] + z * se[:k], "share": full[k:],
                        "share_ci_low": np.maximum(full[k:] - z * se[k:], 0),
                        "share_ci_high": np.minimum(full[k:] + z * se[k:], 1)}
                       ).set_index("component")
    out["boards"] = nb
    out["seeds"] = nd
    out["cells"] = len(cells)
    out["measure"] = LUCK_MEASURES.get(measure, measure)
    out["method"] = (f"two-way ANOVA (boards x game seeds, one game each) per seat cell, "
                     f"method of moments, averaged over the {len(cells)} cells; a game seed "
                     "sets the dice, the deck, the steals and the decisions' random draws; "
                     "board x game seed includes each game's own noise; seat and strategy: "
                     "variance of the cell means; 95% intervals from the jackknife over "
                     "boards plus the jackknife over seeds (clipped to 0 and, for shares, 1)")
    return out


def luck_analysis(variants=None, measure: str = "won") -> Analysis:
    if measure not in LUCK_MEASURES:
        raise CatansimError(f"measure: {measure!r} is not allowed; allowed: "
                            f"{', '.join(LUCK_MEASURES)}")
    return Analysis(f"luck_{measure}", {"games": ("board_id",),
                                        "players": ("seed", "seat", "strategy", measure)},
                    _luck_map(None if variants is None else list(variants), measure),
                    _luck_finish(measure))


@reads_source
def luck_budget(source, variants=None, measure: str = "won", **kw) -> pd.DataFrame:
    """The luck budget: how much of a seat's result the seat, the strategy, the board and
    the game seed (the dice, the deck, the steals and the decisions' random draws) decide.

    Needs a crossed design: every board played with the same game seeds (a board set
    with ``dice = "shared"``); ``variants`` are the tables to pool (e.g. the rotations
    of a mixed table, so that every strategy plays every seat on every board and seed).
    Reads ``games``: ``board_id``; ``players``: ``seed``, ``seat``, ``strategy`` and the
    measure (``won`` or ``vp``).

    Returns a DataFrame indexed by component (``seat``, ``strategy``, ``seat x
    strategy``, ``board``, ``game seed``, ``board x game seed``: the rest, which includes
    each game's own noise): ``variance`` with ``se`` and its interval, ``share`` of the
    total with its interval (jackknife over boards plus jackknife over seeds, normal
    intervals), ``boards``, ``seeds``, ``cells``, ``measure``, ``method``.
    """
    return run(luck_analysis(variants, measure), source, **kw)


# --- what predicts it -------------------------------------------------------------------------

TARGETS = {
    "seat0_advantage": "seat 0's win rate minus 1 / players",
    "rms2": "seat spread: squared RMS distance of the seat rates from 1 / players (unbiased)",
    "turns_mean": "mean game length (turns)",
}


def split_half_reliability(table: pd.DataFrame, target: str) -> float:
    """Reliability of a per-board target: the correlation of its even-game and odd-game
    halves across boards, stepped up to all games (Spearman-Brown)."""
    a = table[f"{target}_h0"].to_numpy(dtype=float)
    b = table[f"{target}_h1"].to_numpy(dtype=float)
    ok = np.isfinite(a) & np.isfinite(b)
    r = float(np.corrcoef(a[ok], b[ok])[0, 1])
    return 2 * r / (1 + r) if r > -1 else np.nan


def _folds(n: int, k: int = FOLDS) -> np.ndarray:
    return np.arange(n) % k


def _design(frame: pd.DataFrame, features) -> tuple[pd.DataFrame, list[str]]:
    x = frame[list(features)].astype(float).replace([np.inf, -np.inf], np.nan)
    keep = [c for c in x.columns if x[c].notna().all() and x[c].std() > 0]
    x = x[keep]
    z = (x - x.mean()) / x.std()
    return z, keep


def board_regression(table: pd.DataFrame, features: pd.DataFrame | None = None,
                     targets=tuple(TARGETS), feature_names=None, folds: int = FOLDS) -> dict:
    """What makes a board unfair: each target regressed on the board's features.

    ``table``: a ``per_board`` table (one variant); ``features``: more features per
    board (indexed by ``board_id``), joined to the table's own; ``feature_names``: the
    columns to use (default: every feature except exact linear combinations: the five
    pips per resource always sum to 58, so ``pips_ore`` is left out).

    Returns a dict: ``coefficients`` (index (target, feature): ``coef`` = change of the
    target per standard deviation of the feature, others held fixed, with HC3
    intervals and p-values (statsmodels OLS), ``p_adjusted``/``significant``
    (Benjamini-Hochberg per target), ``sd`` of the feature) and ``fit`` (index target:
    ``boards``, ``r2`` in sample, ``r2_cv`` (cross-validated, ``folds`` folds by board)
    with a bootstrap interval, ``reliability`` (split-half: the most any model could
    explain), ``explained`` = r2_cv / reliability).
    """
    t = table.reset_index()
    if features is not None:
        t = t.join(features[[c for c in features.columns if c not in t.columns]],
                   on="board_id")
    if feature_names is None:
        feature_names = [c for c in _features() if c in t.columns and c != "pips_ore"]
        if features is not None:
            feature_names += [c for c in features.columns if c not in feature_names]
    z, keep = _design(t, feature_names)
    sd = t[keep].astype(float).std()
    fold = _folds(len(t), folds)
    coef_rows, fit_rows = [], []
    for target in targets:
        y = t[target].to_numpy(dtype=float)
        x = sm.add_constant(z.to_numpy())
        fit = sm.OLS(y, x).fit(cov_type="HC3")
        ci = fit.conf_int()
        for j, name in enumerate(keep, start=1):
            coef_rows.append({"target": target, "feature": name, "coef": fit.params[j],
                              "ci_low": ci[j, 0], "ci_high": ci[j, 1],
                              "p_value": fit.pvalues[j], "sd": float(sd[name])})
        pred = np.zeros_like(y)
        for k in range(folds):
            tr, te = fold != k, fold == k
            f = sm.OLS(y[tr], x[tr]).fit()
            pred[te] = f.predict(x[te])
        r2cv = _r2(y, pred)
        lo, hi = _boot_ci((y, pred), lambda a, b, axis=-1: _r2(a, b, axis), seed=7)
        rel = split_half_reliability(t, target)
        fit_rows.append({"target": target, "label": TARGETS.get(target, target),
                         "boards": len(t), "features": len(keep), "r2": float(fit.rsquared),
                         "r2_cv": r2cv, "r2_cv_ci_low": lo, "r2_cv_ci_high": hi,
                         "reliability": rel, "explained": r2cv / rel if rel > 0 else np.nan})
    coefs = pd.DataFrame(coef_rows)
    parts = []
    for _, c in coefs.groupby("target", sort=False):
        c = c.copy()
        c["p_adjusted"], c["significant"] = S.adjust(c["p_value"], BH)
        parts.append(c)
    coefs = pd.concat(parts).set_index(["target", "feature"])
    coefs["method"] = ("OLS on standardised features (statsmodels), HC3 intervals; "
                       "Benjamini-Hochberg per target")
    fit = pd.DataFrame(fit_rows).set_index("target")
    fit["method"] = (f"r2_cv: {folds}-fold cross-validation by board; percentile bootstrap "
                     "over boards; reliability: split-half (even / odd games), "
                     "Spearman-Brown")
    return {"coefficients": coefs, "fit": fit}


def _r2(y, pred, axis=-1):
    y = np.asarray(y, dtype=float)
    pred = np.asarray(pred, dtype=float)
    sse = ((y - pred) ** 2).sum(axis=axis)
    sst = ((y - y.mean(axis=axis, keepdims=True)) ** 2).sum(axis=axis)
    return 1 - sse / sst


# --- the fairness index: a model of each seat from the reference draft -----------------------


def _seat_frame(table: pd.DataFrame, draft: pd.DataFrame) -> pd.DataFrame:
    """One row per (board, seat): the observed rate and games, joined to the draft table
    (``board`` = board_id, ``seat``, features, ``predicted``)."""
    t = table.reset_index()
    n = int(t["n_players"].iloc[0])
    rows = []
    for s in range(n):
        rows.append(pd.DataFrame({"board_id": t["board_id"], "first_game": t["first_game"],
                                  "seat": s, "rate": t[f"win_rate_{s}"],
                                  "rate_h0": (t[f"wins_{s}_h0"] / t["games_h0"]),
                                  "rate_h1": (t[f"wins_{s}"] - t[f"wins_{s}_h0"])
                                  / (t["games"] - t["games_h0"]),
                                  "games": t["games"]}))
    seats = pd.concat(rows, ignore_index=True)
    d = draft.rename(columns={"board": "board_id"})
    out = seats.merge(d, on=["board_id", "seat"], how="inner")
    if len(out) != len(seats):
        raise CatansimError("draft: needs a row per board and seat of the table")
    return out.sort_values(["first_game", "seat"], kind="stable").reset_index(drop=True)


def fit_seat_model(table: pd.DataFrame, draft: pd.DataFrame, features,
                   test_every: int = FOLDS) -> dict:
    """Fit the index's model: each seat's win rate on the opening features of the
    reference draft, relative to the table's mean, with one intercept per seat.

    ``draft``: ``catansim.board.fairness.draft_table`` of the same boards (``board`` =
    board_id). Boards are split by the order they were played: every ``test_every``-th
    board is held out. Returns a dict: ``coefficients`` (term: ``coef`` with its
    cluster-robust (by board) interval, statsmodels OLS; the order of
    ``core.board_nb.FAIRNESS_COEF_*``), ``check`` (``seat_model_check`` of the fitted
    model on the held-out boards) and ``predicted`` (the held-out seat rows with the
    model's ``predicted``). When the training boards cannot separate the terms (a rank-
    deficient design, e.g. a rare feature that equals a combination of the others on
    few boards), the coefficients' ``method`` names the terms and a ``CatansimWarning``
    says so (one line on the command line): its coefficients are then one of many
    equally good fits.
    """
    sf = _seat_frame(table, draft)
    n = int(sf["seat"].max()) + 1
    rel = sf[list(features)] - sf.groupby("board_id")[list(features)].transform("mean")
    x = pd.concat([pd.get_dummies(sf["seat"], prefix="seat").astype(float), rel], axis=1)
    x.columns = [f"seat_{s}" for s in range(n)] + list(features)
    order = sf.groupby("board_id", sort=False)["first_game"].transform("first")
    rank = order.rank(method="dense").astype(int) - 1
    test = (rank % test_every == 0).to_numpy()
    boards = int(sf.loc[~test, "board_id"].nunique())
    train = x[~test].to_numpy(float)
    design_rank = int(np.linalg.matrix_rank(train))
    with warnings.catch_warnings():
        # a rank-deficient design is said below, with the model's terms and boards
        warnings.simplefilter("ignore", SingularMatrixWarning)
        fit = sm.OLS(sf["rate"][~test], x[~test]).fit(
            cov_type="cluster", cov_kwds={"groups": sf["board_id"][~test].to_numpy()})
    ci = fit.conf_int()
    coef = pd.DataFrame({"coef": fit.params, "se": fit.bse, "ci_low": ci[0], "ci_high": ci[1],
                         "p_value": fit.pvalues})
    coef.index.name = "term"
    coef["boards"] = boards
    coef["method"] = ("OLS of each seat's win rate on its opening features minus the table "
                      "mean, one intercept per seat (statsmodels), cluster-robust by board")
    if design_rank < x.shape[1]:
        # column-pivoted QR puts the terms the others already span last
        _, _, pivots = scipy.linalg.qr(train, mode="economic", pivoting=True)
        spanned = ", ".join(str(x.columns[j]) for j in sorted(pivots[design_rank:]))
        why = (f"the design has rank {design_rank} for {x.shape[1]} terms on {boards} training "
               f"boards ({spanned}: a linear combination of the others there): the "
               "coefficients are one of many equally good fits")
        coef["method"] += "; " + why
        warnings.warn(f"seat model ({n} players): {why}", CatansimWarning, stacklevel=2)
    held = sf[test].copy()
    held["predicted"] = fit.predict(x[test])
    return {"coefficients": coef, "check": seat_model_check(held, n), "predicted": held}


def seat_model_check(seats: pd.DataFrame, n_players: int | None = None,
                     bins: int = 10) -> dict:
    """How well predicted seat win rates match boards the model never saw.

    ``seats``: one row per (board, seat) with ``board_id``, ``seat``, ``rate`` (observed),
    ``rate_h0``/``rate_h1`` (split halves), ``games`` and ``predicted``. Returns a dict:
    ``summary`` (seat level: ``r2`` of the predicted rates with a bootstrap interval over
    boards, the split-half ``reliability`` of the observed rates and ``explained`` =
    r2 / reliability; board level: the correlation of the index (RMS of the predicted
    rates from 1 / players) with the observed unbiased spread) and ``calibration``
    (boards by decile of the index: ``boards``, mean ``index``, observed ``spread`` =
    sqrt(mean unbiased rms2) with its t interval, and the seat rates' calibration).
    """
    s = seats.copy()
    n = n_players or int(s["seat"].max()) + 1
    y, p = s["rate"].to_numpy(float), s["predicted"].to_numpy(float)
    boards = s["board_id"].to_numpy()
    r2 = _r2(y, p)
    ub = np.unique(boards)
    idx = np.searchsorted(ub, boards)
    # boards resampled whole (their seats together)
    rng = np.random.default_rng(3)
    reps = []
    for _ in range(BOOTSTRAP // 4):
        pick = rng.integers(0, ub.size, ub.size)
        w = np.bincount(pick, minlength=ub.size)[idx]
        ym = np.average(y, weights=w)
        reps.append(1 - np.sum(w * (y - p) ** 2) / np.sum(w * (y - ym) ** 2))
    a, b = s["rate_h0"].to_numpy(float), s["rate_h1"].to_numpy(float)
    ok = np.isfinite(a) & np.isfinite(b)
    r = float(np.corrcoef(a[ok], b[ok])[0, 1])
    rel = 2 * r / (1 + r)
    g = s.groupby("board_id", sort=False)
    index = g["predicted"].apply(lambda v: float(np.sqrt(np.mean((v - 1 / n) ** 2))))
    rates = g["rate"].apply(np.asarray)
    games = g["games"].first()
    rms2 = np.array([_unbiased_rms2(np.asarray(r_)[None, :], np.array([gg]), n)[0]
                     for r_, gg in zip(rates, games, strict=True)])
    # a prediction that is the same on every board (seat intercepts alone) has no index
    constant = np.ptp(index.to_numpy()) == 0
    corr = np.nan if constant else float(np.corrcoef(index.to_numpy(), rms2)[0, 1])
    summary = pd.DataFrame([{
        "boards": int(ub.size), "seat_rows": len(s), "r2": float(r2),
        "r2_ci_low": float(np.quantile(reps, 0.025)),
        "r2_ci_high": float(np.quantile(reps, 0.975)), "reliability": rel,
        "explained": float(r2 / rel) if rel > 0 else np.nan,
        "index_spread_corr": corr, "mean_index": float(index.mean()),
        "observed_spread": float(np.sqrt(max(np.mean(rms2), 0))),
        "method": "held-out boards; r2 of the seat rates, bootstrap over boards; reliability: "
                  "split-half, Spearman-Brown; spread: sqrt of the mean unbiased rms2"}])
    dec = (np.zeros(len(index), dtype=int) if constant else
           pd.qcut(index.to_numpy(), bins, labels=False, duplicates="drop"))
    cal = []
    for k in np.unique(dec):
        sel = dec == k
        m, lo, hi = _mean_ci(rms2[sel])
        cal.append({"decile": int(k), "boards": int(sel.sum()),
                    "index": float(index.to_numpy()[sel].mean()),
                    "spread": np.sqrt(max(m, 0)), "ci_low": np.sqrt(max(lo, 0)),
                    "ci_high": np.sqrt(max(hi, 0))})
    cal = pd.DataFrame(cal).set_index("decile")
    cal["method"] = "observed spread: sqrt of the mean unbiased rms2, t interval over boards"
    return {"summary": summary, "calibration": cal}


def index_boards(table: pd.DataFrame, draft: pd.DataFrame, test_every: int | None = FOLDS
                 ) -> pd.DataFrame:
    """One row per board: ``board_id``, ``index`` (from ``draft``), the observed ``rms2``
    (unbiased squared seat spread), ``games`` and ``held_out`` (every ``test_every``-th
    board in play order, as ``fit_seat_model`` holds them out; None: every board)."""
    t = table.reset_index().sort_values("first_game", kind="stable")
    idx = draft.groupby("board", sort=False)["index"].first()
    out = pd.DataFrame({"board_id": t["board_id"].to_numpy(),
                        "index": idx.reindex(t["board_id"]).to_numpy(),
                        "rms2": t["rms2"].to_numpy(float), "games": t["games"].to_numpy()})
    if out["index"].isna().any():
        raise CatansimError("draft: needs a row for every board of the table")
    out["held_out"] = (np.arange(len(out)) % test_every == 0) if test_every else True
    return out


def index_fit(train: pd.DataFrame, test: pd.DataFrame) -> pd.DataFrame:
    """The fairness index on its own: how well the scalar index predicts a board's
    observed seat spread on boards it was not fitted on.

    ``train`` and ``test``: ``index_boards`` frames (their ``index`` and ``rms2``).
    Rows: ``intercept only`` (every test board predicted at the training boards' mean
    spread: the baseline), ``index, calibrated`` (OLS of rms2 on the index fitted on the
    training boards) and ``index as is`` (index² taken as the board's squared spread).
    Columns: ``boards`` (n, test), ``r`` (Pearson r of the prediction with rms2 on the
    test boards, scipy, with its Fisher-z interval; none for the baseline), ``r2``
    (out-of-sample: 1 - SSE / the test boards' sum of squares about their mean) with a
    percentile bootstrap interval over the test boards.
    """
    y = test["rms2"].to_numpy(float)
    x = test["index"].to_numpy(float)
    fit = sm.OLS(train["rms2"].to_numpy(float),
                 sm.add_constant(train["index"].to_numpy(float))).fit()
    preds = {"intercept only": np.full_like(y, float(train["rms2"].mean())),
             "index, calibrated": fit.params[0] + fit.params[1] * x,
             "index as is": x ** 2}
    rows = []
    for name, pred in preds.items():
        row = {"predictor": name, "boards": len(y), "train_boards": len(train),
               "r2": float(_r2(y, pred))}
        row["r2_ci_low"], row["r2_ci_high"] = _boot_ci((y, pred), lambda a, b, axis=-1: _r2(
            a, b, axis), seed=11)
        if np.ptp(pred) > 0:
            pr = pearsonr(pred, y)
            ci = pr.confidence_interval()
            row.update(r=float(pr.statistic), r_ci_low=float(ci.low), r_ci_high=float(ci.high),
                       p_value=float(pr.pvalue))
        rows.append(row)
    out = pd.DataFrame(rows).set_index("predictor")
    out["method"] = ("target: each test board's unbiased squared seat spread (rms2); r: "
                     "Pearson (scipy), Fisher-z interval; r2 out of sample, percentile "
                     "bootstrap over the test boards; calibration: OLS on the training boards")
    return out


def index_bands(boards: pd.DataFrame, edges=(0.04, 0.06)) -> pd.DataFrame:
    """What a value of the index delivers: boards (an ``index_boards`` frame, best with
    many games per board) grouped by their index (bands cut at ``edges``), each band's
    ``boards``, mean ``index``, typical observed spread (sqrt of the mean unbiased rms2,
    t interval over boards) and the 10%, 50% and 90% quantiles of the boards' own
    spreads (sqrt of rms2, 0 where negative: a board's noise is not removed)."""
    cuts = [-np.inf, *edges, np.inf]
    labels = [f"index <= {edges[0]:.2f}"] + [
        f"{a:.2f} < index <= {b:.2f}" for a, b in zip(edges[:-1], edges[1:], strict=True)] + [
        f"index > {edges[-1]:.2f}"]
    band = pd.cut(boards["index"], cuts, labels=labels)
    rows = []
    for label in labels:
        b = boards[band == label]
        if b.empty:
            continue
        r2 = b["rms2"].to_numpy(float)
        m, lo, hi = _mean_ci(r2)
        own = np.sqrt(np.maximum(r2, 0))
        rows.append({"band": label, "boards": len(b), "games_per_board": float(
            b["games"].median()), "index": float(b["index"].mean()),
            "spread": np.sqrt(max(m, 0)), "ci_low": np.sqrt(max(lo, 0)),
            "ci_high": np.sqrt(max(hi, 0)), "q10": float(np.quantile(own, 0.1)),
            "q50": float(np.quantile(own, 0.5)), "q90": float(np.quantile(own, 0.9))})
    out = pd.DataFrame(rows).set_index("band")
    out["method"] = ("spread: sqrt of the mean unbiased rms2, t interval over boards; q10, "
                     "q50, q90: quantiles of the boards' own spreads")
    return out


def compare_board_sets(tables: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Board sets side by side (e.g. variable and balanced boards; each a ``per_board``
    table of one variant).

    Rows (set, measure): ``seat_<s>`` (mean win rate over boards), ``spread`` (sqrt of
    the mean unbiased rms2), ``unfair_share`` (boards unfair after BH), ``turns``
    (mean game length): ``boards``, ``mean`` with its interval (t over boards; Wilson
    for the share), and for every set after the first its ``diff`` from the first
    with a Welch interval (``CompareMeans``) where the measure is a mean.
    """
    rows = []
    first = None
    for name, t in tables.items():
        n = int(t["n_players"].iloc[0])
        measures = {f"seat_{s}": t[f"win_rate_{s}"].to_numpy(float) for s in range(n)}
        measures["spread (rms2)"] = t["rms2"].to_numpy(float)
        measures["turns"] = t["turns_mean"].to_numpy(float)
        if first is None:
            first = measures
        for k, x in measures.items():
            m, lo, hi = _mean_ci(x)
            r = {"set": name, "measure": k, "boards": len(x), "mean": m, "ci_low": lo,
                 "ci_high": hi}
            if k.startswith("spread"):
                r.update(spread=np.sqrt(max(m, 0)), spread_ci_low=np.sqrt(max(lo, 0)),
                         spread_ci_high=np.sqrt(max(hi, 0)))
            if first is not measures and k in first:
                cm = CompareMeans(DescrStatsW(x), DescrStatsW(first[k]))
                dlo, dhi = cm.tconfint_diff(usevar="unequal")
                r.update(diff=m - float(np.mean(first[k])), diff_ci_low=dlo, diff_ci_high=dhi,
                         p_value=float(cm.ttest_ind(usevar="unequal")[1]))
            rows.append(r)
        u = int(t["unfair"].sum())
        lo, hi = S.wilson_ci(u, len(t))
        rows.append({"set": name, "measure": "unfair_share", "boards": len(t),
                     "mean": u / len(t), "ci_low": float(lo[0]), "ci_high": float(hi[0])})
    out = pd.DataFrame(rows).set_index(["set", "measure"])
    out["method"] = ("t intervals over boards; Welch interval of the difference from the "
                     "first set (statsmodels CompareMeans); share: Wilson")
    return out


def seat_rate_distribution(table: pd.DataFrame, seat: int = 0) -> pd.DataFrame:
    """How a seat's per-board win rate is spread over the boards, beside the spread that
    chance alone would give if every board were the same (binomial with the mean rate).

    ``table``: a ``per_board`` table with equal games per board. Returns one row per
    number of wins k (0 .. games): ``win_rate`` (k / games), ``boards`` (observed),
    ``expected_if_equal`` (boards x binomial pmf, ``scipy.stats.binom``).
    """
    g = table["games"].to_numpy()
    if not (g == g[0]).all():
        raise CatansimError("seat_rate_distribution: needs the same games on every board")
    games = int(g[0])
    wins = table[f"wins_{seat}"].to_numpy().astype(np.int64)
    k = np.arange(games + 1)
    observed = np.bincount(wins, minlength=games + 1)
    p = wins.sum() / (games * len(wins))
    out = pd.DataFrame({"wins": k, "win_rate": k / games, "boards": observed,
                        "expected_if_equal": len(wins) * binom.pmf(k, games, p)})
    out["seat"] = seat
    out["games_per_board"] = games
    return out.set_index("wins")


__all__ = ["LUCK_MEASURES", "PER_BOARD", "TARGETS", "board_power", "board_regression",
           "board_table", "board_variance", "compare_board_sets", "fit_seat_model",
           "index_bands", "index_boards", "index_fit",
           "luck_analysis", "luck_budget", "luck_components", "luck_table", "per_board",
           "seat_model_check", "seat_rate_distribution", "split_half_reliability"]
