"""Rule effects measured on common random numbers: per-game outcomes, paired contrasts
between any two arms of a dataset, per-arm summaries, ratio shares and per-seat groups.

The robber and shortage studies compare many arms (rules, policies, supplies, tables),
not only each variant against the baseline: ``paired_contrasts`` takes the pairs
``(arm, reference)`` to compare and the **outcomes** to difference game by game. An
``Outcome`` is one integer per game (a count, or 0/1 for an event), possibly
undefined for some games (who led after turn 40 is undefined in a game that ended
before): a pair counts only the games where both arms define it, and says how many.

Statistics (``stats``): paired t interval of the per-game differences beside the
Welch interval of an unpaired design; McNemar's test for 0/1 outcomes; Holm (or
Benjamini-Hochberg) over every row of a table. Per-arm figures: t intervals of means
and Wilson intervals of rates, from exact histograms. A **share** (cards on the
leader out of all cards, robberies on the leader out of the chances) is a ratio of
two per-game counts: its interval comes from an intercept-only binomial GLM with a
sandwich (HC0) covariance, the games as independent units (``statsmodels``), which
is the ratio estimator with its delta-method variance; it needs only the histogram
of (numerator, denominator) pairs, so it adds up part by part like everything else.
``games_that_differ`` counts the games whose result differs between two arms at all,
per ``Facet`` (the winner, any seat's production or VP, the length) and in any of
them, with Wilson intervals.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import statsmodels.api as sm
from scipy.special import expit

from ..errors import CatansimError
from . import stats as S
from .driver import Analysis, Chunk, Context, reads_source, run, run_many
from .measures import GAME_MEASURE, Measure, game_values
from .variants import _seat_won

Values = tuple[np.ndarray, np.ndarray | None]  # (int64 per game, defined mask or None)
SHARE_METHOD = ("ratio of totals; Wald interval on the logit scale from an intercept-only "
                "binomial GLM with HC0 sandwich covariance, games as units (statsmodels)")


@dataclass(frozen=True)
class Outcome:
    """One integer per game of a variant (games-row order), possibly undefined.

    ``values(chunk, variant) -> (values, defined)``: int64 values and a boolean mask of
    the games where the outcome is defined (``None``: every game). ``binary`` outcomes
    are 0/1 (rates, McNemar); ``family`` groups rows in reports.
    """

    name: str
    label: str
    columns: dict[str, tuple[str, ...]]
    values: Callable[[Chunk, str], Values]
    binary: bool = False
    family: str = ""


def columns_of(items) -> dict[str, tuple[str, ...]]:
    """The games and players columns a set of outcomes (or shares) reads."""
    out: dict[str, list[str]] = {"games": [], "players": []}
    for o in items:
        for table, cols in o.columns.items():
            out[table] += [c for c in cols if c not in out[table]]
    return {k: tuple(v) for k, v in out.items()}


# --- outcome builders ------------------------------------------------------------------


def measure(name: str, label: str | None = None, family: str = "") -> Outcome:
    """A headline per-game measure of ``analysis.measures`` (``turns``, ``stolen``, ...)."""
    m = GAME_MEASURE[name]
    return column_sum(name, label or m.label, m.table, m.columns, family=family,
                      halve=m.halve)


def column_sum(name: str, label: str, table: str, columns: Sequence[str], family: str = "",
               halve: bool = False) -> Outcome:
    """The sum of ``columns`` per game (a games column, or a players column summed over
    the seats)."""
    m = Measure(name, label, table, tuple(columns), halve)
    return Outcome(name, label, {table: tuple(columns)},
                   lambda chunk, v: (game_values(chunk, v, m), None), family=family)


def flag(base: Outcome, name: str, label: str) -> Outcome:
    """1 in the games where ``base`` is above 0 (e.g. at least one shortage)."""
    def values(chunk, v):
        x, ok = base.values(chunk, v)
        return (x > 0).astype(np.int64), ok
    return Outcome(name, label, base.columns, values, binary=True, family=base.family)


def n_players_of(chunk: Chunk) -> int:
    return int(chunk.players["seat"].max()) + 1 if len(chunk.players) else 0


def seat_matrix(chunk: Chunk, variant: str, column: str, fill: int = -1) -> np.ndarray:
    """A players column as int64[games of the variant, seats] (``fill`` where missing or
    the seat does not play)."""
    def make():
        g = chunk.games["game"].to_numpy()[chunk.game_rows(variant)]
        rows = chunk.player_rows(variant)
        col = chunk.players[column]
        vals = (col.to_numpy(dtype=np.int64, na_value=fill)
                if isinstance(col.dtype, pd.api.extensions.ExtensionDtype)
                else col.to_numpy().astype(np.int64))[rows]
        out = np.full((g.size, n_players_of(chunk)), fill, dtype=np.int64)
        seat = chunk.players["seat"].to_numpy()[rows].astype(np.int64)
        out[chunk.game_of_player(variant), seat] = vals
        return out
    return chunk.memo(("seat_matrix", variant, column, fill), make)


def won_matrix(chunk: Chunk, variant: str) -> np.ndarray:
    """won[game row, seat] (0/1) for the games of ``variant``."""
    return _seat_won(chunk, variant, n_players_of(chunk))


def seat_win(seat: int) -> Outcome:
    """1 if seat ``seat`` won (undefined in games where it does not play)."""
    def values(chunk, v):
        won = won_matrix(chunk, v)
        if seat >= won.shape[1]:
            return np.zeros(won.shape[0], dtype=np.int64), np.zeros(won.shape[0], bool)
        return won[:, seat], None
    return Outcome(f"win_seat_{seat}", f"win rate of seat {seat}", {"players": ("seat", "won")},
                   values, binary=True, family="seats")


def no_winner() -> Outcome:
    def values(chunk, v):
        return (won_matrix(chunk, v).sum(axis=1) == 0).astype(np.int64), None
    return Outcome("no_winner", "share of games without a winner (turn limit)",
                   {"players": ("seat", "won")}, values, binary=True, family="length")


def vp_spread() -> Outcome:
    """Final VP of the first minus the last (hidden VP cards included)."""
    def values(chunk, v):
        vp = seat_matrix(chunk, v, "vp")
        live = np.where(vp >= 0, vp, np.iinfo(np.int64).max)
        return vp.max(axis=1) - live.min(axis=1), None
    return Outcome("vp_spread", "VP spread at the end: first minus last (VP)",
                   {"players": ("seat", "vp")}, values, family="length")


def winner_margin() -> Outcome:
    """The winner's final VP minus the best of the others' (games with a winner)."""
    def values(chunk, v):
        vp = seat_matrix(chunk, v, "vp")
        won = won_matrix(chunk, v).astype(bool)
        has = won.any(axis=1)
        best_other = np.where(won, -1, vp).max(axis=1)
        return np.where(has, (vp * won).sum(axis=1) - best_other, 0), has
    return Outcome("winner_margin", "winner's VP minus the runner-up's (VP)",
                   {"players": ("seat", "vp", "won")}, values, family="length")


# --- strategy wins, seat-aligned -------------------------------------------------------


def _strategy_seats(chunk: Chunk, variant: str) -> dict[str, np.ndarray]:
    """For each strategy of the variant, bool[games, seats]: the seats it plays."""
    def make():
        g = chunk.game_rows(variant)
        rows = chunk.player_rows(variant)
        names = chunk.labels("players", "strategy")[rows]
        seat = chunk.players["seat"].to_numpy()[rows].astype(np.int64)
        pos = chunk.game_of_player(variant)
        out = {}
        for name in pd.unique(names):
            m = np.zeros((g.size, n_players_of(chunk)), dtype=bool)
            sel = names == name
            m[pos[sel], seat[sel]] = True
            out[str(name)] = m
        return out
    return chunk.memo(("strategy_seats", variant), make)


# --- the analyses ----------------------------------------------------------------------


def common_games(chunk: Chunk, v: str, ref: str) -> tuple[np.ndarray, np.ndarray]:
    """The game rows of ``v`` and of ``ref`` (positions within each variant's games) of
    the games both played, in game order: the pairs of a common-seed comparison."""
    gv = chunk.games["game"].to_numpy()[chunk.game_rows(v)]
    gr = chunk.games["game"].to_numpy()[chunk.game_rows(ref)]
    _, iv, ir = np.intersect1d(gv, gr, assume_unique=True, return_indices=True)
    return iv, ir


def _pairs_map(pairs, outcomes, strategy_wins: bool):
    def f(chunk: Chunk):
        present = set(chunk.variants)
        out = {}

        def put(key, a, b, binary):
            out[key] = {"d": S.Hist.of(a - b), "base": S.Hist.of(b), "other": S.Hist.of(a),
                        "binary": np.int64(binary)}  # adds up: > 0 means binary

        for v, ref in pairs:
            if v not in present or ref not in present:
                continue
            iv, ir = common_games(chunk, v, ref)
            for o in outcomes:
                (xv, mv), (xr, mr) = o.values(chunk, v), o.values(chunk, ref)
                a, b = xv[iv], xr[ir]
                ok = _both(mv, iv, mr, ir)
                if ok is not None:
                    a, b = a[ok], b[ok]
                put((v, ref, o.name), a, b, o.binary)
            if strategy_wins:
                wv = won_matrix(chunk, v)[iv].astype(bool)
                wr = won_matrix(chunk, ref)[ir].astype(bool)
                for name, seats in _strategy_seats(chunk, v).items():
                    # the reference's result at the seats this strategy holds in the arm
                    s = seats[iv]
                    on = s.any(axis=1)
                    put((v, ref, f"win_strategy_{name}"),
                        (wv & s).any(axis=1)[on].astype(np.int64),
                        (wr & s).any(axis=1)[on].astype(np.int64), True)
        return out
    return f


def _both(mv, iv, mr, ir):
    if mv is None and mr is None:
        return None
    ok = np.ones(iv.size, dtype=bool)
    if mv is not None:
        ok &= mv[iv]
    if mr is not None:
        ok &= mr[ir]
    return ok


def _pairs_finish(pairs, labels: dict[str, tuple[str, str]], correction: str):
    def f(stats, ctx: Context) -> pd.DataFrame:
        for pair in pairs:
            for v in pair:
                if v not in ctx.variants:
                    raise CatansimError(f"pairs: variant {v!r} is not in the source; allowed: "
                                        f"{', '.join(ctx.variants)}")
        if not stats:
            return pd.DataFrame()
        order = {v: i for i, v in enumerate(ctx.variants)}
        keys = sorted(stats, key=lambda k: (order.get(k[0], len(order)),
                                            order.get(k[1], len(order))))
        rows = []
        for v, ref, name in keys:
            s = stats[(v, ref, name)]
            r = S.compare_paired(s["d"], s["base"], s["other"])
            binary = bool(s["binary"])
            if binary:
                counts = s["d"].series()
                only_ref, only_arm = int(counts.get(-1, 0)), int(counts.get(1, 0))
                r["p_value"] = S.mcnemar_p(only_ref, only_arm)
                r["discordant"] = only_ref + only_arm
                r["method"] = "McNemar test (statsmodels); " + S.PAIRED_T
            else:
                r["discordant"] = int(s["d"].n - counts_at(s["d"], 0))
                r["method"] = S.PAIRED_T + " and t test"
            with np.errstate(invalid="ignore", divide="ignore"):
                r["rel_diff"] = (r["diff"] / r["base_mean"]
                                 if not binary and r["base_mean"] else np.nan)
            if name.startswith("win_strategy_"):
                strat = name[len("win_strategy_"):]
                label, family = f"games won by {strat} (its seats)", "strategies"
            else:
                label, family = labels.get(name, (name, ""))
            rows.append({"variant": v, "reference": ref, "outcome": name, "label": label,
                         "family": family, "binary": binary, **r})
        out = pd.DataFrame(rows)
        out["p_adjusted"], out["significant"] = S.adjust(out["p_value"], correction)
        out["correction"] = f"{S.METHOD_NAMES[correction]} over the {len(out)} rows"
        cols = ["label", "family", "binary", "n", "base_mean", "mean", "diff", "ci_low",
                "ci_high", "rel_diff", "unpaired_ci_low", "unpaired_ci_high", "width_ratio",
                "sd_diff", "dz", "discordant", "p_value", "p_adjusted", "significant",
                "method", "correction"]
        return out.set_index(["variant", "reference", "outcome"])[cols]
    return f


def counts_at(h: S.Hist, value: int) -> int:
    i = value - h.lo
    return int(h.counts[i]) if 0 <= i < h.counts.size else 0


def contrasts_analysis(pairs: Sequence[tuple[str, str]], outcomes: Sequence[Outcome],
                       strategy_wins: bool = False, correction: str = "holm",
                       name: str = "contrasts") -> Analysis:
    if correction not in S.METHOD_NAMES:
        raise CatansimError(f"correction: {correction!r} is not allowed; allowed: "
                            f"{', '.join(S.METHOD_NAMES)}")
    for pair in pairs:
        if not (isinstance(pair, tuple | list) and len(pair) == 2
                and all(isinstance(x, str) for x in pair)):
            raise CatansimError(f"pairs: {pair!r} is not a pair of variant names; allowed: "
                                f"(arm, reference) tuples")
    cols = columns_of(outcomes)
    players = tuple(dict.fromkeys(("seat", "won", *(("strategy",) if strategy_wins else ()),
                                   *cols["players"])))
    labels = {o.name: (o.label, o.family) for o in outcomes}
    return Analysis(name, {"games": cols["games"], "players": players},
                    _pairs_map(list(pairs), list(outcomes), strategy_wins),
                    _pairs_finish(list(pairs), labels, correction))


@reads_source
def paired_contrasts(source, pairs: Sequence[tuple[str, str]], outcomes: Sequence[Outcome],
                     strategy_wins: bool = False, correction: str = "holm",
                     **kw) -> pd.DataFrame:
    """Each outcome of each arm against its reference, game by game on common seeds.

    ``pairs``: ``(arm, reference)`` variant names (pairs absent from the source are
    skipped). ``outcomes``: ``Outcome`` objects (``measure("turns")``, ``seat_win(0)``,
    ...). ``strategy_wins``: also, for each strategy of the arm, 1 if one of its seats
    won, against the reference's result **at the same seats** (so one seat that
    changes policy is compared with the same seat playing the reference's strategy).

    Returns a DataFrame indexed by (variant, reference, outcome): ``label``, ``family``,
    ``binary``, ``n`` (games where both arms define the outcome), ``base_mean`` (the
    reference's), ``mean`` (the arm's), ``diff`` (mean of arm - reference per game)
    with its paired t interval ``ci_low``/``ci_high``, ``rel_diff`` (diff / base_mean,
    counts), the Welch interval of an unpaired design ``unpaired_ci_low``/``_high``,
    ``width_ratio``, ``sd_diff``, ``dz``, ``discordant`` (games whose outcome differs
    between the arms), ``p_value`` (paired t; McNemar for 0/1 outcomes),
    ``p_adjusted``, ``significant`` (``correction`` over every row), ``method``,
    ``correction``.
    """
    return run(contrasts_analysis(pairs, outcomes, strategy_wins, correction), source, **kw)


# --- games that differ at all -----------------------------------------------------------


@dataclass(frozen=True)
class Facet:
    """One part of a game's result as int64[games, k] per variant (games-row order):
    two arms differ in this facet on a game where any of the k values differ (a game's
    length: k = 1; every seat's production or final VP: k = seats)."""

    name: str
    label: str
    columns: dict[str, tuple[str, ...]]
    values: Callable[[Chunk, str], np.ndarray]


def game_facet(name: str, label: str, column: str) -> Facet:
    """A games column (e.g. ``turns``)."""
    def values(chunk, v):
        return chunk.games[column].to_numpy().astype(np.int64)[chunk.game_rows(v), None]
    return Facet(name, label, {"games": (column,)}, values)


def seat_facet(name: str, label: str, columns: Sequence[str]) -> Facet:
    """Per seat, the sum of players ``columns`` (e.g. a seat's cards produced)."""
    def values(chunk, v):
        return sum(seat_matrix(chunk, v, c, fill=0) for c in columns)
    return Facet(name, label, {"players": ("seat", *columns)}, values)


def winner_facet() -> Facet:
    """Who won (no winner at the turn limit is a result of its own)."""
    return Facet("winner", "the winner", {"players": ("seat", "won")},
                 lambda chunk, v: won_matrix(chunk, v).astype(np.int64))


def _differ_map(pairs, facets):
    def f(chunk: Chunk):
        present = set(chunk.variants)
        out = {}
        for v, ref in pairs:
            if v not in present or ref not in present:
                continue
            iv, ir = common_games(chunk, v, ref)
            union = np.zeros(iv.size, dtype=bool)
            for fc in facets:
                d = (fc.values(chunk, v)[iv] != fc.values(chunk, ref)[ir]).any(axis=1)
                union |= d
                out[(v, ref, fc.name)] = np.array([iv.size, d.sum()], dtype=np.int64)
            out[(v, ref, "any")] = np.array([iv.size, union.sum()], dtype=np.int64)
        return out
    return f


def _differ_finish(pairs, facets):
    labels = {fc.name: fc.label for fc in facets}
    labels["any"] = "any of: " + ", ".join(fc.label for fc in facets)

    def f(stats, ctx: Context) -> pd.DataFrame:
        rows = []
        for v, ref in pairs:
            for name in labels:
                c = (stats or {}).get((v, ref, name))
                if c is None:
                    continue
                n, k = int(c[0]), int(c[1])
                lo, hi = S.wilson_ci(k, n)
                rows.append({"variant": v, "reference": ref, "facet": name,
                             "label": labels[name], "n": n, "games_differ": k,
                             "share": k / n if n else np.nan, "ci_low": float(lo[0]),
                             "ci_high": float(hi[0]), "method": S.WILSON})
        if not rows:
            return pd.DataFrame()
        return pd.DataFrame(rows).set_index(["variant", "reference", "facet"])
    return f


def differences_analysis(pairs: Sequence[tuple[str, str]], facets: Sequence[Facet],
                         name: str = "differ") -> Analysis:
    cols = columns_of(facets)
    players = tuple(dict.fromkeys(("seat", *cols["players"]))) if cols["players"] else ()
    return Analysis(name, {"games": cols["games"], "players": players},
                    _differ_map(list(pairs), list(facets)),
                    _differ_finish(list(pairs), list(facets)))


@reads_source
def games_that_differ(source, pairs: Sequence[tuple[str, str]], facets: Sequence[Facet],
                      **kw) -> pd.DataFrame:
    """In how many games each arm's result differs from its reference's at all, game by
    game on common seeds: per facet (``game_facet``, ``seat_facet``, ``winner_facet``)
    and in ``any`` of them.

    Returns a DataFrame indexed by (variant, reference, facet): ``label``, ``n`` (games
    both arms played), ``games_differ``, ``share`` with its Wilson interval
    ``ci_low``/``ci_high``, ``method``.
    """
    return run(differences_analysis(pairs, facets), source, **kw)


# --- per-arm summaries -----------------------------------------------------------------


def _arms_map(outcomes):
    def f(chunk: Chunk):
        out = {}
        for v in chunk.variants:
            for o in outcomes:
                x, ok = o.values(chunk, v)
                out[(v, o.name)] = S.Hist.of(x if ok is None else x[ok])
        return out
    return f


def _arms_finish(outcomes):
    meta = {o.name: o for o in outcomes}

    def f(stats, ctx: Context) -> pd.DataFrame:
        rows = []
        for v in ctx.variants:
            for name, o in meta.items():
                h = stats.get((v, name)) if stats else None
                if h is None:
                    continue
                d = S.describe(h)
                row = {"variant": v, "outcome": name, "label": o.label, "family": o.family,
                       "binary": o.binary, "n": h.n, "mean": d["mean"], "ci_low": d["ci_low"],
                       "ci_high": d["ci_high"], "sd": d["sd"], "median": d["median"],
                       "p90": d["p90"], "events": np.nan, "method": S.T_MEAN}
                if o.binary:
                    k = counts_at(h, 1)
                    lo, hi = S.wilson_ci(k, h.n)
                    row.update(events=k, ci_low=float(lo[0]), ci_high=float(hi[0]),
                               median=np.nan, p90=np.nan, method=S.WILSON)
                rows.append(row)
        out = pd.DataFrame(rows)
        if not len(out):
            return out
        out["n"] = out["n"].astype(np.int64)
        return out.set_index(["variant", "outcome"])
    return f


def arms_analysis(outcomes: Sequence[Outcome], name: str = "arms") -> Analysis:
    return Analysis(name, columns_of(outcomes), _arms_map(list(outcomes)),
                    _arms_finish(list(outcomes)))


@reads_source
def arm_summary(source, outcomes: Sequence[Outcome], **kw) -> pd.DataFrame:
    """Every outcome in every arm: n (games defining it), mean with its t interval, sd,
    median, p90; for 0/1 outcomes the rate (``mean``) with its Wilson interval and
    ``events``. Indexed by (variant, outcome)."""
    return run(arms_analysis(outcomes), source, **kw)


# --- shares: a ratio of two per-game counts --------------------------------------------


@dataclass(frozen=True)
class Share:
    """numerator / denominator, both per-game outcomes (numerator <= denominator)."""

    name: str
    label: str
    numerator: Outcome
    denominator: Outcome
    family: str = ""

    @property
    def columns(self) -> dict[str, tuple[str, ...]]:
        return columns_of([self.numerator, self.denominator])


def share_ci(pairs: dict, confidence: float = S.CONFIDENCE) -> dict:
    """The ratio of totals of a histogram ``{(numerator, denominator): games}`` with its
    interval: ``statsmodels`` GLM (binomial, logit link, intercept only) on the distinct
    pairs as (successes, failures) with the games as frequency weights, covariance HC0
    (the sandwich: robust to the cards of one game hanging together)."""
    keys = [k for k, c in pairs.items() if c > 0 and k[1] > 0]
    out = {"games": int(sum(c for k, c in pairs.items() if c > 0)),
           "games_with_chances": int(sum(pairs[k] for k in keys)),
           "numerator": int(sum(k[0] * pairs[k] for k in keys)),
           "denominator": int(sum(k[1] * pairs[k] for k in keys)),
           "share": np.nan, "ci_low": np.nan, "ci_high": np.nan}
    if out["denominator"] == 0:
        return out
    out["share"] = out["numerator"] / out["denominator"]
    if out["numerator"] in (0, out["denominator"]) or len(keys) < 2:
        lo, hi = S.wilson_ci(out["numerator"], out["denominator"], confidence)
        out["ci_low"], out["ci_high"] = float(lo[0]), float(hi[0])  # no spread to model
        return out
    y = np.array([[k[0], k[1] - k[0]] for k in keys], dtype=float)
    w = np.array([pairs[k] for k in keys], dtype=float)
    res = sm.GLM(y, np.ones((len(keys), 1)), family=sm.families.Binomial(),
                 freq_weights=w).fit(cov_type="HC0")
    lo, hi = res.conf_int(alpha=1 - confidence)[0]
    out["ci_low"], out["ci_high"] = float(_expit(lo)), float(_expit(hi))
    return out


def _expit(x):
    return expit(x)


def _shares_map(shares):
    def f(chunk: Chunk):
        out = {}
        for v in chunk.variants:
            for sh in shares:
                y, oky = sh.numerator.values(chunk, v)
                x, okx = sh.denominator.values(chunk, v)
                ok = np.ones(x.size, dtype=bool)
                for m in (oky, okx):
                    if m is not None:
                        ok &= m
                keys, counts = np.unique(np.stack([y[ok], x[ok]]), axis=1, return_counts=True)
                out[(v, sh.name)] = {(int(a), int(b)): int(c)
                                     for (a, b), c in zip(keys.T, counts, strict=True)}
        return out
    return f


def _shares_finish(shares):
    def f(stats, ctx: Context) -> pd.DataFrame:
        rows = []
        for v in ctx.variants:
            for sh in shares:
                if (v, sh.name) not in (stats or {}):
                    continue
                rows.append({"variant": v, "share_of": sh.name, "label": sh.label,
                             "family": sh.family, **share_ci(stats[(v, sh.name)]),
                             "method": SHARE_METHOD})
        out = pd.DataFrame(rows)
        return out.set_index(["variant", "share_of"]) if len(out) else out
    return f


def shares_analysis(shares: Sequence[Share], name: str = "shares") -> Analysis:
    return Analysis(name, columns_of(shares), _shares_map(list(shares)),
                    _shares_finish(list(shares)))


@reads_source
def share_table(source, shares: Sequence[Share], **kw) -> pd.DataFrame:
    """Each share in each arm: ``games``, ``games_with_chances`` (denominator > 0),
    ``numerator``, ``denominator`` (totals), ``share`` = numerator / denominator with
    its interval (``share_ci``), ``method``. Indexed by (variant, share_of)."""
    return run(shares_analysis(shares), source, **kw)


# --- per-seat groups -------------------------------------------------------------------

STANDINGS = ("winner", "others")


@dataclass(frozen=True)
class SeatCount:
    """A per-seat integer: the sum of players columns."""

    name: str
    label: str
    columns: tuple[str, ...]


def _seat_groups_map(counts, ratios):
    cols = {c for sc in counts for c in sc.columns}

    def f(chunk: Chunk):
        out = {}
        p = chunk.players
        for v in chunk.variants:
            rows = chunk.player_rows(v)
            strat = chunk.labels("players", "strategy")[rows]
            won = p["won"].to_numpy()[rows].astype(bool)
            vals = {c: p[c].to_numpy()[rows].astype(np.int64) for c in cols}
            per = {sc.name: sum(vals[c] for c in sc.columns) for sc in counts}
            groups = [("all", "all", np.ones(rows.size, dtype=bool)),
                      ("standing", "winner", won), ("standing", "others", ~won)]
            groups += [("strategy", str(s), strat == s) for s in pd.unique(strat)]
            for kind, g, sel in groups:
                for sc in counts:
                    out[(v, kind, g, sc.name)] = S.Hist.of(per[sc.name][sel])
                for rname, num, den in ratios:
                    y, x = per[num][sel], per[num][sel] + per[den][sel]
                    keys, c = np.unique(np.stack([y, x]), axis=1, return_counts=True)
                    out[(v, kind, g, rname)] = {(int(a), int(b)): int(k)
                                                for (a, b), k in zip(keys.T, c, strict=True)}
        return out
    return f


def _seat_groups_finish(counts, ratios):
    labels = {sc.name: sc.label for sc in counts}
    labels.update({r[0]: f"{r[1]} / ({r[1]} + {r[2]})" for r in ratios})

    def f(stats, ctx: Context) -> pd.DataFrame:
        rows = []
        order = {v: i for i, v in enumerate(ctx.variants)}
        for (v, kind, g, name) in sorted(stats, key=lambda k: order.get(k[0], len(order))):
            s = stats[(v, kind, g, name)]
            base = {"variant": v, "group_by": kind, "group": g, "measure": name,
                    "label": labels[name]}
            if isinstance(s, S.Hist):
                d = S.describe(s)
                rows.append({**base, "n": s.n, "mean": d["mean"], "ci_low": d["ci_low"],
                             "ci_high": d["ci_high"], "sd": d["sd"], "method": S.T_MEAN})
            else:
                r = share_ci(s)
                rows.append({**base, "n": r["games"], "mean": r["share"], "ci_low": r["ci_low"],
                             "ci_high": r["ci_high"], "sd": np.nan,
                             "method": SHARE_METHOD.replace("games as units",
                                                            "seat-games as units")})
        out = pd.DataFrame(rows)
        return out.set_index(["variant", "group_by", "group", "measure"]) if len(out) else out
    return f


def seat_groups_analysis(counts: Sequence[SeatCount],
                         ratios: Sequence[tuple[str, str, str]] = (),
                         name: str = "seat_groups") -> Analysis:
    cols = tuple(dict.fromkeys(c for sc in counts for c in sc.columns))
    return Analysis(name, {"players": ("strategy", "won", *cols)},
                    _seat_groups_map(list(counts), list(ratios)),
                    _seat_groups_finish(list(counts), list(ratios)))


@reads_source
def seat_groups(source, counts: Sequence[SeatCount],
                ratios: Sequence[tuple[str, str, str]] = (), **kw) -> pd.DataFrame:
    """Per-seat counts by group: every seat (``all``), by final standing (``winner``,
    ``others``) and by strategy. ``ratios``: ``(name, a, b)`` adds the share
    a / (a + b) of two of the counts (e.g. withheld / (withheld + produced): the share
    of the cards owed to a seat that it did not get), with the interval of
    ``share_ci`` (seat-games as units).

    Returns a DataFrame indexed by (variant, group_by, group, measure): ``label``, ``n``
    (seat-games), ``mean`` (per seat-game, or the share) with ``ci_low``/``ci_high``,
    ``sd``, ``method``.
    """
    return run(seat_groups_analysis(counts, ratios), source, **kw)


@dataclass
class Plan:
    """Several analyses of one dataset, run in one pass (``driver.run_many``)."""

    analyses: dict[str, Analysis] = field(default_factory=dict)

    def add(self, key: str, analysis: Analysis) -> Plan:
        self.analyses[key] = analysis
        return self

    def run(self, source, *, variants=None, scheduler=None, progress: bool = False) -> dict:
        values = run_many(list(self.analyses.values()), source, variants=variants,
                          scheduler=scheduler, progress=progress)
        return dict(zip(self.analyses, values, strict=True))
