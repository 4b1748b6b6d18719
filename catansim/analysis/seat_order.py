"""Seat order: who wins from which seat, at mixed tables and with the set-up and turn orders apart.

Both analyses read datasets whose variants play the **same deals** (common random
numbers: the same boards, dice and deck for game ``i`` of every variant) and pool
the variants of one game into one observation, so every interval is a t interval
over deals (games with the same index), not over seat-games that share a deal:

- ``rotation_seats``: variants that are the rotations of one table (strategy k at
  seat (k + r) % players in variant r). Pooled over the rotations every strategy
  sits in every seat on every deal, so the seat effect is free of who sits there.
- ``order_effects``: variants that differ only in the rule ``first_turn``. The
  set-up always starts with seat 0 (snake order), so seat s has pick position s
  and, in the variant where seat f takes turn 1, turn position (s - f) mod n. Over
  the n variants every (pick, turn) pair is played on every deal; the marginal
  means are the first-pick and the first-move effects.
- ``factor_effects``: variants over the rules ``first_pick`` x ``first_turn`` (all n²
  pairs). Seat s then has pick position (s - first_pick) mod n and turn position
  (s - first_turn) mod n; over the n² variants every (seat, pick, turn) triple is
  played once on every deal, so the seat index, the set-up position and the turn
  position are three crossed factors, each estimated free of the other two. Seat
  index is shown equivalent to no effect by two one-sided tests (TOST).

The statistics are the **moments** of a small integer vector per deal (``n``,
``sum``, the sum of outer products, all int64): they add up exactly over parts, so a
dataset read part by part gives the same result as in memory. Means, covariances,
t intervals of linear contrasts (equal to ``DescrStatsW`` on the per-deal contrast)
and Hotelling's T² tests (equal to ``statsmodels.stats.multivariate.test_mvmean``)
come from them.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats as st

from ..errors import CatansimError
from ..results import dataset as D
from . import stats as S
from .driver import Analysis, Chunk, Context, reads_source, run
from .variants import _seat_won

T_CONTRAST = "t interval over deals of the per-deal value (moments; = statsmodels DescrStatsW)"
HOTELLING = "Hotelling's T² (F form) over deals (= statsmodels test_mvmean)"


# --- moments of an integer vector per deal ----------------------------------------------------


def moments_of(values: np.ndarray) -> dict:
    """Additive moments of rows of integers: ``n``, ``sum`` (k), ``outer`` (k x k), int64."""
    v = np.asarray(values, dtype=np.int64)
    return {"n": np.int64(v.shape[0]), "sum": v.sum(axis=0), "outer": v.T @ v}


def moment_mean_cov(m: dict) -> tuple[int, np.ndarray, np.ndarray]:
    """n, mean and covariance (ddof 1) from ``moments_of`` statistics."""
    n = int(m["n"])
    s = np.asarray(m["sum"], dtype=float)
    mean = s / n
    cov = (np.asarray(m["outer"], dtype=float) - n * np.outer(mean, mean)) / (n - 1)
    return n, mean, cov


def contrast(m: dict, c, confidence: float = S.CONFIDENCE) -> dict:
    """Mean of the per-deal value ``c @ x`` with its t interval and t test against 0."""
    n, mean, cov = moment_mean_cov(m)
    c = np.asarray(c, dtype=float)
    est = float(c @ mean)
    var = float(c @ cov @ c)
    out = {"n": n, "estimate": est, "se": np.nan, "ci_low": np.nan, "ci_high": np.nan,
           "p_value": np.nan}
    if n < 2:
        return out
    if var <= 1e-15:
        out.update(se=0.0, ci_low=est, ci_high=est, p_value=1.0 if est == 0 else 0.0)
        return out
    se = np.sqrt(var / n)
    q = st.t.ppf(0.5 + confidence / 2, n - 1)
    out.update(se=se, ci_low=est - q * se, ci_high=est + q * se,
               p_value=float(2 * st.t.sf(abs(est / se), n - 1)))
    return out

def _named_contrasts(m, items: dict) -> pd.DataFrame:
    """One row per named contrast ``name: (weights, offset)`` of the per-deal cell means
    ``m``: the estimate and its t interval less ``offset`` (a p-value only where the
    offset is 0, a test against no difference)."""
    named = []
    for name, (c, offset) in items.items():
        r = contrast(m, c)
        named.append({"contrast": name, "n": r["n"], "estimate": r["estimate"] - offset,
                      "ci_low": r["ci_low"] - offset, "ci_high": r["ci_high"] - offset,
                      "p_value": r["p_value"] if offset == 0 else np.nan})
    contrasts = pd.DataFrame(named).set_index("contrast")
    contrasts["method"] = T_CONTRAST
    return contrasts



def hotelling(m: dict, cmat) -> dict:
    """Hotelling's T² test that ``cmat @ mean == 0`` (rows of ``cmat``: the contrasts)."""
    n, mean, cov = moment_mean_cov(m)
    c = np.atleast_2d(np.asarray(cmat, dtype=float))
    d = c @ mean
    sc = c @ cov @ c.T
    # Contrasts the design fixes (one winner per game: some combinations of cells never
    # vary) carry no information: test in the space where the per-deal values vary.
    w, v = np.linalg.eigh(sc)
    keep = w > max(float(w.max()), 0.0) * 1e-9
    q = int(keep.sum())
    if q == 0:
        return {"n": n, "df_num": 0, "df_den": n, "t2": np.nan, "f": np.nan, "p_value": np.nan}
    z = v[:, keep].T @ d
    t2 = float(n * np.sum(z * z / w[keep]))
    f = t2 * (n - q) / ((n - 1) * q)
    return {"n": n, "df_num": q, "df_den": n - q, "t2": t2, "f": f,
            "p_value": float(st.f.sf(f, q, n - q))}


# --- the wins of each variant of the same deals ---------------------------------------------


def _won(chunk: Chunk, variant: str, n_players: int) -> tuple[np.ndarray, np.ndarray]:
    """(game indices, won[game, seat]) of a variant's games in the chunk."""
    return chunk.games["game"].to_numpy()[chunk.game_rows(variant)], _seat_won(
        chunk, variant, n_players)


def _aligned(chunk: Chunk, variants, n_players: int):
    """Games present in every one of ``variants``: (games, won[variant, game, seat],
    strategy codes[variant, game, seat] as names)."""
    games, won, strat = None, [], []
    per = {}
    for v in variants:
        g, w = _won(chunk, v, n_players)
        rows = chunk.player_rows(v)
        names = chunk.labels("players", "strategy")[rows]
        pg = chunk.players["game"].to_numpy()[rows]
        seat = chunk.players["seat"].to_numpy()[rows].astype(np.int64)
        sn = np.empty((g.size, n_players), dtype=object)
        sn[np.searchsorted(g, pg), seat] = names
        per[v] = (g, w, sn)
        games = g if games is None else np.intersect1d(games, g, assume_unique=True)
    for v in variants:
        g, w, sn = per[v]
        idx = np.searchsorted(g, games)
        won.append(w[idx])
        strat.append(sn[idx])
    return games, np.stack(won), np.stack(strat)


def _players(chunk: Chunk) -> int:
    return int(chunk.players["seat"].max()) + 1 if len(chunk.players) else 0


# --- rotations of one table ------------------------------------------------------------------


def _rotation_map(variants):
    def f(chunk: Chunk):
        names = [v for v in (variants or chunk.variants) if v in chunk.variants]
        n = _players(chunk)
        if not names or n == 0:
            return None
        games, won, strat = _aligned(chunk, names, n)
        cells = pd.DataFrame({"seat": np.tile(np.arange(n), won.shape[0] * won.shape[1]),
                              "strategy": strat.reshape(-1), "won": won.reshape(-1)})
        cells = cells.groupby(["seat", "strategy"], sort=True)["won"].agg(["size", "sum"])
        return {"moments": moments_of(won.sum(axis=0)), "rotations": np.int64(len(names)),
                "cells": cells.astype(np.int64), "n_players": np.int64(n)}
    return f


def _rotation_combine(a, b):
    if a is None or b is None:
        return a if b is None else b
    out = _moments_combine(a, b)
    out["cells"] = a["cells"].add(b["cells"], fill_value=0).astype(np.int64)
    return out


def _rotation_finish(stats, ctx: Context) -> dict:
    if stats is None:
        return {}
    m = stats["moments"]
    n = int(stats["n_players"])
    k = int(stats["rotations"])
    rows = []
    for s in range(n):
        c = np.zeros(n)
        c[s] = 1.0 / k
        r = contrast(m, c)
        rows.append({"seat": s, "deals": r["n"], "seat_games": r["n"] * k,
                     "win_rate": r["estimate"], "ci_low": r["ci_low"],
                     "ci_high": r["ci_high"], "advantage": r["estimate"] - 1 / n,
                     "method": T_CONTRAST})
    seats = pd.DataFrame(rows).set_index("seat")
    cmat = np.eye(n)[:-1] - 1.0 / n  # seat s minus the mean of all, s < n - 1
    test = pd.DataFrame([{**hotelling(m, cmat), "max_gap": float(
        seats["win_rate"].max() - seats["win_rate"].min()), "method": HOTELLING}])
    cells = stats["cells"].rename(columns={"size": "games", "sum": "wins"}).reset_index()
    cells = S.rate_table(cells, "wins", n="games", rate="win_rate").set_index(
        ["seat", "strategy"])
    return {"seats": seats, "test": test, "cells": cells}


def rotation_analysis(variants=None) -> Analysis:
    return Analysis("rotation_seats", {"players": ("seat", "strategy", "won")},
                    _rotation_map(variants), _rotation_finish, _rotation_combine)


@reads_source
def rotation_seats(source, variants=None, **kw) -> dict:
    """The seat effect at a mixed table, pooled over its rotations on the same deals.

    Reads ``players``: ``seat``, ``strategy``, ``won``. ``variants`` are the rotations
    (default: every variant); games missing from one of them are left out.

    Returns a dict of DataFrames: ``seats`` (index seat: ``deals`` (n), ``seat_games``,
    ``win_rate`` pooled over the rotations, t interval over deals, ``advantage`` =
    win rate - 1 / players, ``method``), ``test`` (Hotelling's T² that all seats win
    equally often: ``n``, ``t2``, ``f``, ``df_num``, ``df_den``, ``p_value``,
    ``max_gap``) and ``cells`` (index (seat, strategy): ``games``, ``wins``,
    ``win_rate`` with its Wilson interval: each deal plays each cell once).
    """
    return run(rotation_analysis(variants), source, **kw)


# --- the set-up order and the turn order apart ----------------------------------------------


def order_cells(won_by_variant: dict, first_turn: dict, n_players: int) -> np.ndarray:
    """Y[game, pick, turn] (int): the win of the seat with that set-up pick position and
    turn position, from the variants that ``first_turn`` maps to 0 .. n-1 (one each)."""
    by_f: dict[int, str] = {}
    for v, f in first_turn.items():
        if v in won_by_variant and f not in by_f:
            by_f[f] = v
    missing = [f for f in range(n_players) if f not in by_f]
    if missing:
        raise CatansimError(f"first_turn: no variant with first_turn {missing[0]}; allowed: "
                            f"variants that cover first_turn 0..{n_players - 1}")
    g = next(iter(won_by_variant.values())).shape[0]
    y = np.zeros((g, n_players, n_players), dtype=np.int64)
    for f, v in by_f.items():
        w = won_by_variant[v]
        for seat in range(n_players):
            y[:, seat, (seat - f) % n_players] = w[:, seat]
    return y


def _cells_map(arms: dict, cells, dims: int):
    """Map step: the moments of ``cells(won by variant, arms, n)`` flattened to n**dims
    values per deal, over the games every variant of ``arms`` played."""
    def f(chunk: Chunk):
        n = _players(chunk)
        names = [v for v in chunk.variants if v in arms]
        if n == 0 or not names:
            return None
        _, won, _ = _aligned(chunk, names, n)
        y = cells({v: won[i] for i, v in enumerate(names)}, arms, n)
        return {"moments": moments_of(y.reshape(y.shape[0], n ** dims)),
                "n_players": np.int64(n)}
    return f


def _moments_combine(a, b):
    if a is None:
        return b
    if b is None:
        return a
    out = dict(a)
    out["moments"] = {k: a["moments"][k] + b["moments"][k] for k in a["moments"]}
    return out


def order_tables(m: dict, n: int) -> dict:
    """The tables of ``order_effects`` from the moments of Y[game, pick, turn] (flattened)."""
    k = n * n
    ones = np.full(k, 1.0 / k)  # the mean of all cells

    def cell(i, j):
        c = np.zeros(k)
        c[i * n + j] = 1.0
        return c

    def marginal(factor: str, pos: int) -> np.ndarray:
        c = np.zeros((n, n))
        if factor == "pick":
            c[pos, :] = 1.0 / n
        else:
            c[:, pos] = 1.0 / n
        return c.ravel()

    cells = []
    for i in range(n):
        for j in range(n):
            r = contrast(m, cell(i, j))
            cells.append({"pick": i, "turn": j, "games": r["n"], "win_rate": r["estimate"],
                          "ci_low": r["ci_low"], "ci_high": r["ci_high"]})
    cells = pd.DataFrame(cells).set_index(["pick", "turn"])
    cells["method"] = T_CONTRAST

    rows = []
    for factor in ("pick", "turn"):
        for pos in range(n):
            r = contrast(m, marginal(factor, pos) - ones)
            rows.append({"factor": factor, "position": pos, "n": r["n"],
                         "win_rate": contrast(m, marginal(factor, pos))["estimate"],
                         "effect": r["estimate"], "ci_low": r["ci_low"], "ci_high": r["ci_high"],
                         "p_value": r["p_value"]})
    effects = pd.DataFrame(rows)
    effects["p_adjusted"], effects["significant"] = S.adjust(effects["p_value"], "holm")
    effects["method"] = (T_CONTRAST + f"; effect = marginal win rate minus the mean of the {k} "
                         f"cells; Holm over the {len(effects)} rows")
    effects = effects.set_index(["factor", "position"])

    def others(factor, pos):
        return sum(marginal(factor, p) for p in range(n) if p != pos) / (n - 1)

    # The standard game (first_turn 0) gives seat s pick s and turn s, so its seat-0 win
    # rate minus the fair share splits exactly into the pick-0 effect, the turn-0 effect,
    # their interaction and the (negative) share of games without a winner.
    items = {
        "first pick: pick 0 minus the other picks": (marginal("pick", 0) - others("pick", 0),
                                                     0.0),
        "first move: turn 0 minus the other turns": (marginal("turn", 0) - others("turn", 0),
                                                     0.0),
        f"last pick: pick {n - 1} minus the other picks": (
            marginal("pick", n - 1) - others("pick", n - 1), 0.0),
        "standard game: seat 0 win rate minus 1 / players": (cell(0, 0), 1.0 / n),
        "  = pick-0 effect": (marginal("pick", 0) - ones, 0.0),
        "  + turn-0 effect": (marginal("turn", 0) - ones, 0.0),
        "  + interaction": (cell(0, 0) - marginal("pick", 0) - marginal("turn", 0) + ones,
                            0.0),
        "  + games without a winner (mean cell minus 1 / players)": (ones, 1.0 / n),
    }
    contrasts = _named_contrasts(m, items)

    eye = np.eye(n)
    tests = []
    for factor in ("pick", "turn"):
        cm = [marginal(factor, p) - marginal(factor, n - 1) for p in range(n - 1)]
        tests.append({"hypothesis": f"no {factor} effect: every {factor} position wins "
                                    "equally often", **hotelling(m, np.array(cm))})
    inter = [np.outer(eye[a] - eye[n - 1], eye[b] - eye[n - 1]).ravel()
             for a in range(n - 1) for b in range(n - 1)]
    tests.append({"hypothesis": "no interaction: the pick and turn effects add up",
                  **hotelling(m, np.array(inter))})
    tests = pd.DataFrame(tests).set_index("hypothesis")
    tests["p_adjusted"], tests["significant"] = S.adjust(tests["p_value"], "holm")
    tests["method"] = HOTELLING + "; Holm over the three tests"
    return {"cells": cells, "effects": effects, "contrasts": contrasts, "tests": tests}


def order_analysis(first_turn: dict) -> Analysis:
    """``order_effects`` as an ``Analysis`` (``first_turn``: variant -> the seat of turn 1)."""
    ft = {str(k): int(v) for k, v in first_turn.items()}
    return Analysis("order_effects", {"players": ("seat", "strategy", "won")},
                    _cells_map(ft, order_cells, 2),
                    lambda acc, ctx: order_tables(acc["moments"], int(acc["n_players"]))
                    if acc else {}, _moments_combine)


def first_turns(manifest: dict) -> dict[str, int]:
    """Variant -> its rule ``first_turn``, from a dataset's manifest.

    The set-up must start with seat 0 in every variant (rule ``first_pick`` 0, as in
    datasets written before it existed): the analysis takes seat s to pick s-th.
    """
    variants = manifest.get("result_key", {}).get("variants", {})
    for v, spec in variants.items():
        pick = int(spec.get("rules", {}).get("first_pick", 0))
        if pick != 0:
            raise CatansimError(f"variants.{v}.rules.first_pick: {pick}; allowed: 0 (the "
                                "pick and turn analysis moves only first_turn)")
    return {v: int(spec.get("rules", {}).get("first_turn", 0)) for v, spec in variants.items()}


@reads_source
def order_effects(source, first_turn: dict | None = None, **kw) -> dict:
    """The first-pick and the first-move advantage apart.

    Reads ``players``: ``seat``, ``strategy``, ``won``. The variants must differ in the
    rule ``first_turn`` and cover 0 .. players-1 (read from a dataset's manifest; for
    frames pass ``first_turn={variant: seat}``). Seat s has set-up pick position s (the
    snake set-up starts with seat 0) and turn position (s - first_turn) mod n; only the
    games every variant played count.

    Returns a dict of DataFrames: ``cells`` (index (pick, turn): ``games``, ``win_rate``
    with its t interval over deals), ``effects`` (index (factor, position), factor
    ``pick`` or ``turn``: marginal ``win_rate``, ``effect`` (marginal minus the mean of
    all cells) with its interval and p-value, Holm over the rows), ``contrasts`` (first
    pick, first move, last pick; the standard game's seat-0 advantage split exactly into
    the pick-0 effect, the turn-0 effect, their interaction and the games without a
    winner) and ``tests`` (Hotelling's T²: no pick effect, no turn effect, no
    interaction; Holm).
    """
    if first_turn is None:
        if isinstance(source, tuple | list):
            raise CatansimError("first_turn: frames in memory need first_turn={variant: seat}")
        first_turn = first_turns(D.read_manifest(source))
    return run(order_analysis(first_turn), source, **kw)


# --- seat index, set-up position and turn position: three crossed factors --------------------

FACTORS = ("seat", "pick", "turn")
TOST = ("two one-sided t tests (TOST) over deals against +-margin; all seats equivalent by "
        "intersection-union (each seat at 0.05, no correction needed)")


def arm_orders(manifest: dict) -> dict[str, tuple[int, int]]:
    """Variant -> (first_pick, first_turn) from a dataset's manifest (first_turn None
    resolves to first_pick, as the rules do)."""
    variants = manifest.get("result_key", {}).get("variants", {})
    out = {}
    for v, spec in variants.items():
        rules = spec.get("rules", {})
        pick = int(rules.get("first_pick", 0))
        turn = rules.get("first_turn")
        out[v] = (pick, pick if turn is None else int(turn))
    return out


def factor_cells(won_by_variant: dict, orders: dict, n_players: int) -> np.ndarray:
    """Y[game, seat, pick, turn] (int): the win of ``seat`` when it held that set-up pick
    position and turn position, from variants that ``orders`` maps to every
    (first_pick, first_turn) pair of 0 .. n-1 (one each)."""
    n = n_players
    by_arm: dict[tuple[int, int], str] = {}
    for v, arm in orders.items():
        if v in won_by_variant and tuple(arm) not in by_arm:
            by_arm[tuple(arm)] = v
    missing = [(a, b) for a in range(n) for b in range(n) if (a, b) not in by_arm]
    if missing:
        a, b = missing[0]
        raise CatansimError(f"variants: none with first_pick {a} and first_turn {b}; allowed: "
                            f"variants that cover every pair of 0..{n - 1}")
    g = next(iter(won_by_variant.values())).shape[0]
    y = np.zeros((g, n, n, n), dtype=np.int64)
    for (fp, ft), v in by_arm.items():
        w = won_by_variant[v]
        for seat in range(n):
            y[:, seat, (seat - fp) % n, (seat - ft) % n] = w[:, seat]
    return y


def tost(m: dict, c, margin: float) -> dict:
    """Equivalence of the per-deal value ``c @ x`` to 0 within +-``margin``: two one-sided
    t tests (= statsmodels DescrStatsW.ttost_mean) and the 90% interval that goes with
    them."""
    r = contrast(m, c, confidence=0.90)
    n, est, se = r["n"], r["estimate"], r["se"]
    if not se > 0:
        p = 0.0 if abs(est) < margin else 1.0
    else:
        p = float(max(st.t.sf((est + margin) / se, n - 1), st.t.cdf((est - margin) / se, n - 1)))
    return {"n": n, "estimate": est, "ci90_low": r["ci_low"], "ci90_high": r["ci_high"],
            "margin": margin, "p_value": p, "equivalent": bool(p < 0.05)}


def factor_tables(m: dict, n: int, margin: float = 0.005) -> dict:
    """The tables of ``factor_effects`` from the moments of Y[game, seat, pick, turn]."""
    k = n ** 3
    grand = np.full(k, 1.0 / k)

    def marginal(factor: str, pos: int) -> np.ndarray:
        c = np.zeros((n, n, n))
        sl = [slice(None)] * 3
        sl[FACTORS.index(factor)] = pos
        c[tuple(sl)] = 1.0 / n ** 2
        return c.ravel()

    def cell(s, p, t):
        c = np.zeros((n, n, n))
        c[s, p, t] = 1.0
        return c.ravel()

    def others(factor, pos):
        return sum(marginal(factor, q) for q in range(n) if q != pos) / (n - 1)

    cells = []
    for s in range(n):
        for p in range(n):
            for t in range(n):
                r = contrast(m, cell(s, p, t))
                cells.append({"seat": s, "pick": p, "turn": t, "games": r["n"],
                              "win_rate": r["estimate"], "ci_low": r["ci_low"],
                              "ci_high": r["ci_high"]})
    cells = pd.DataFrame(cells).set_index(["seat", "pick", "turn"])
    cells["method"] = T_CONTRAST

    rows = []
    for factor in FACTORS:
        for pos in range(n):
            r = contrast(m, marginal(factor, pos) - grand)
            rows.append({"factor": factor, "position": pos, "n": r["n"],
                         "win_rate": contrast(m, marginal(factor, pos))["estimate"],
                         "effect": r["estimate"], "ci_low": r["ci_low"], "ci_high": r["ci_high"],
                         "p_value": r["p_value"]})
    effects = pd.DataFrame(rows)
    effects["p_adjusted"], effects["significant"] = S.adjust(effects["p_value"], "holm")
    effects["method"] = (T_CONTRAST + f"; effect = marginal win rate (mean of the {n * n} cells "
                         f"of that position) minus the mean of all {k} cells; Holm over the "
                         f"{len(effects)} rows")
    effects = effects.set_index(["factor", "position"])

    equiv = pd.DataFrame([{"seat": s, **tost(m, marginal("seat", s) - grand, margin)}
                          for s in range(n)]).set_index("seat")
    equiv["all_equivalent"] = bool(equiv["equivalent"].all())
    equiv["method"] = TOST

    # The standard game (first_pick = first_turn = 0) puts seat s at pick s and turn s: its
    # seat-0 win rate minus the fair share splits exactly into the three main effects of
    # position 0, their interactions and the (negative) share of games without a winner.
    c000 = cell(0, 0, 0)
    mains = marginal("seat", 0) + marginal("pick", 0) + marginal("turn", 0) - 3 * grand
    items = {
        "first pick: pick 0 minus the other picks": (marginal("pick", 0) - others("pick", 0),
                                                     0.0),
        "first move: turn 0 minus the other turns": (marginal("turn", 0) - others("turn", 0),
                                                     0.0),
        f"last pick: pick {n - 1} minus the other picks": (
            marginal("pick", n - 1) - others("pick", n - 1), 0.0),
        "seat index: seat 0 minus the other seats": (marginal("seat", 0) - others("seat", 0),
                                                     0.0),
        "standard game: seat 0 win rate minus 1 / players": (c000, 1.0 / n),
        "  = pick-0 effect": (marginal("pick", 0) - grand, 0.0),
        "  + turn-0 effect": (marginal("turn", 0) - grand, 0.0),
        "  + seat-0 effect": (marginal("seat", 0) - grand, 0.0),
        "  + interactions": (c000 - grand - mains, 0.0),
        "  + games without a winner (mean cell minus 1 / players)": (grand, 1.0 / n),
    }
    contrasts = _named_contrasts(m, items)

    tests = []
    for factor in FACTORS:
        cm = [marginal(factor, p) - marginal(factor, n - 1) for p in range(n - 1)]
        tests.append({"hypothesis": f"no {factor} effect: every {factor} position wins "
                                    "equally often", **hotelling(m, np.array(cm))})
    eye = np.eye(n)
    inter = []
    for a in range(n - 1):
        for b in range(n - 1):
            pt = np.outer(eye[a] - eye[n - 1], eye[b] - eye[n - 1]) / n  # mean over seats
            inter.append(np.broadcast_to(pt, (n, n, n)).ravel())
    tests.append({"hypothesis": "no pick x turn interaction: the pick and turn effects add up",
                  **hotelling(m, np.array(inter))})
    tests = pd.DataFrame(tests).set_index("hypothesis")
    tests["p_adjusted"], tests["significant"] = S.adjust(tests["p_value"], "holm")
    tests["method"] = HOTELLING + f"; Holm over the {len(tests)} tests"
    return {"cells": cells, "effects": effects, "equivalence": equiv, "contrasts": contrasts,
            "tests": tests}


def factor_analysis(orders: dict, margin: float = 0.005) -> Analysis:
    """``factor_effects`` as an ``Analysis`` (``orders``: variant -> (first_pick,
    first_turn))."""
    o = {str(k): (int(v[0]), int(v[1])) for k, v in orders.items()}
    return Analysis("factor_effects", {"players": ("seat", "strategy", "won")},
                    _cells_map(o, factor_cells, 3),
                    lambda acc, ctx: factor_tables(acc["moments"], int(acc["n_players"]), margin)
                    if acc else {}, _moments_combine)


@reads_source
def factor_effects(source, orders: dict | None = None, margin: float = 0.005, **kw) -> dict:
    """Seat index, set-up position and turn position as three crossed factors.

    Reads ``players``: ``seat``, ``strategy``, ``won``. The variants must cover every
    pair (``first_pick``, ``first_turn``) of 0 .. players-1 (read from a dataset's
    manifest; for frames pass ``orders={variant: (first_pick, first_turn)}``); only the
    games every variant played count. Seat s has pick position (s - first_pick) mod n
    and turn position (s - first_turn) mod n.

    Returns a dict of DataFrames: ``cells`` (index (seat, pick, turn): ``games``,
    ``win_rate`` with its t interval over deals), ``effects`` (index (factor,
    position), factor ``seat``, ``pick`` or ``turn``: marginal ``win_rate``, ``effect``
    (marginal minus the mean of all cells) with its 95% interval, p-value, Holm over
    the rows), ``equivalence`` (per seat index: its effect, the 90% interval and the
    TOST p-value against +-``margin`` (a win-rate fraction), ``equivalent``,
    ``all_equivalent``), ``contrasts`` (first pick, first move, last pick, seat 0; the
    standard game's seat-0 advantage split exactly into the pick-0, turn-0 and seat-0
    effects, their interactions and the games without a winner) and ``tests``
    (Hotelling's T²: no seat, no pick, no turn effect, no pick x turn interaction;
    Holm).
    """
    if orders is None:
        if isinstance(source, tuple | list):
            raise CatansimError("orders: frames in memory need orders={variant: "
                                "(first_pick, first_turn)}")
        orders = arm_orders(D.read_manifest(source))
    return run(factor_analysis(orders, margin), source, **kw)


__all__ = ["arm_orders", "contrast", "factor_analysis", "factor_cells", "factor_effects",
           "factor_tables", "first_turns", "hotelling", "moment_mean_cov", "moments_of",
           "order_analysis", "order_cells", "order_effects", "order_tables", "rotation_analysis",
           "rotation_seats", "tost"]
