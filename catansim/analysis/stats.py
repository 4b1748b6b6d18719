"""Statistics helpers: thin wrappers over scipy.stats and statsmodels, one home.

Every helper labels what it returns: ``n`` (the observations behind the figure),
``method`` (how the interval or test was computed), ``ci_low`` / ``ci_high``.
Nothing here hand-writes a statistic a library provides: intervals and tests come
from ``statsmodels`` (Wilson intervals, weighted descriptive statistics, McNemar,
multiple-testing corrections, power) and ``scipy.stats`` (chi-square, Student t).

Integer measures are summarised by their **histogram** (``Hist``: how many games
or seats had each value). A histogram is a sufficient statistic for the mean,
the variance, quantiles and t intervals of an integer measure, it adds up exactly
over parts of a dataset (so part-at-a-time and Dask runs give identical results),
and ``statsmodels.stats.weightstats.DescrStatsW`` takes it as frequency weights.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import bootstrap, chisquare
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.gof import chisquare_effectsize
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.power import GofChisquarePower, NormalIndPower, TTestIndPower, TTestPower
from statsmodels.stats.proportion import proportion_confint, proportion_effectsize
from statsmodels.stats.weightstats import CompareMeans, DescrStatsW

from ..errors import CatansimError

CONFIDENCE = 0.95
WILSON = "Wilson score interval (statsmodels proportion_confint)"
T_MEAN = "Student t interval of the mean (statsmodels DescrStatsW)"
PAIRED_T = "paired: t interval of the per-game difference (statsmodels DescrStatsW)"
WELCH = "unpaired: Welch t interval (statsmodels CompareMeans)"


# --- histograms of integer measures ------------------------------------------------------


class Hist:
    """Counts of the integer values ``lo, lo+1, ...`` of a measure (additive).

    ``Hist.of(values)`` builds one; ``a + b`` adds two (any ranges). ``values`` and
    ``counts`` give the non-empty values and their frequencies.
    """

    __slots__ = ("counts", "lo")

    def __init__(self, lo: int, counts: np.ndarray):
        self.lo = int(lo)
        self.counts = np.asarray(counts, dtype=np.int64)

    @classmethod
    def of(cls, values) -> Hist:
        v = np.asarray(values)
        if v.dtype.kind == "b":
            v = v.astype(np.int64)
        v = v.astype(np.int64, copy=False)
        if v.size == 0:
            return cls(0, np.zeros(0, dtype=np.int64))
        lo = int(v.min())
        return cls(lo, np.bincount(v - lo))

    def __add__(self, other: Hist) -> Hist:
        if not isinstance(other, Hist):
            return NotImplemented
        if self.counts.size == 0:
            return other
        if other.counts.size == 0:
            return self
        lo = min(self.lo, other.lo)
        hi = max(self.lo + self.counts.size, other.lo + other.counts.size)
        out = np.zeros(hi - lo, dtype=np.int64)
        out[self.lo - lo : self.lo - lo + self.counts.size] += self.counts
        out[other.lo - lo : other.lo - lo + other.counts.size] += other.counts
        return Hist(lo, out)

    def __eq__(self, other) -> bool:
        return (isinstance(other, Hist) and self.lo == other.lo
                and np.array_equal(self.counts, other.counts))

    def __repr__(self) -> str:
        return f"Hist(n={self.n}, lo={self.lo}, values={self.counts.size})"

    @property
    def n(self) -> int:
        return int(self.counts.sum())

    @property
    def values(self) -> np.ndarray:
        nz = np.flatnonzero(self.counts)
        return (nz + self.lo).astype(float)

    @property
    def weights(self) -> np.ndarray:
        return self.counts[self.counts > 0].astype(float)

    def series(self, name: str = "count") -> pd.Series:
        """The histogram as a Series (index: value, every value from lo to max)."""
        return pd.Series(self.counts, index=pd.RangeIndex(self.lo, self.lo + self.counts.size,
                                                          name="value"), name=name)

    def descr(self):
        """``statsmodels`` ``DescrStatsW`` of the values with the counts as frequency weights."""
        return DescrStatsW(self.values, weights=self.weights, ddof=1)


def describe(h: Hist, confidence: float = CONFIDENCE, quantiles=(0.1, 0.5, 0.9)) -> dict:
    """n, mean, sd, the t interval of the mean and quantiles of a histogram.

    Quantiles are those of the weighted sample (``numpy.quantile`` with the counts
    as weights, ``method="inverted_cdf"``: the inverse of the empirical distribution
    function). A histogram with fewer than
    two values gets NaN for what it cannot give.
    """
    out = {"n": h.n, "mean": np.nan, "sd": np.nan, "ci_low": np.nan, "ci_high": np.nan}
    out.update({_qname(q): np.nan for q in quantiles})
    out["max"] = np.nan
    if h.n == 0:
        return out
    d = h.descr()
    out["mean"] = float(d.mean)
    out["max"] = float(h.values.max())
    qs = np.quantile(h.values, np.asarray(quantiles), weights=h.weights, method="inverted_cdf")
    out.update({_qname(q): float(v) for q, v in zip(quantiles, np.atleast_1d(qs), strict=True)})
    if h.n > 1:
        out["sd"] = float(d.std)
        lo, hi = d.tconfint_mean(alpha=1 - confidence)
        out["ci_low"], out["ci_high"] = (float(lo), float(hi)) if d.std > 0 else (d.mean, d.mean)
    return out


def mean_ci(values, confidence: float = CONFIDENCE) -> dict:
    """n, mean and the t interval of the mean of a sample of real numbers (NaN dropped):
    a per-game mean or share, which ``Hist`` cannot hold. NaN for what fewer than two
    values cannot give."""
    x = np.asarray(values, dtype=float)
    x = x[~np.isnan(x)]
    out = {"n": int(x.size), "mean": np.nan, "ci_low": np.nan, "ci_high": np.nan}
    if x.size == 0:
        return out
    d = DescrStatsW(x, ddof=1)
    out["mean"] = float(d.mean)
    if x.size > 1:
        lo, hi = d.tconfint_mean(alpha=1 - confidence) if d.std > 0 else (d.mean, d.mean)
        out["ci_low"], out["ci_high"] = float(lo), float(hi)
    return out


RATIO_BOOTSTRAP = "ratio of sums, percentile bootstrap over games (scipy.stats.bootstrap)"


def ratio_ci(num, den, confidence: float = CONFIDENCE, resamples: int = 2000,
             seed: int = 0) -> dict:
    """``sum(num) / sum(den)`` over units (games) with a percentile bootstrap interval that
    resamples the units in pairs (``scipy.stats.bootstrap``, ``paired=True``): a share of
    events that cluster within games, where a Wilson interval on the pooled events would
    treat them as independent. ``n`` is the units; ``events`` the sum of ``den``."""
    a, b = np.asarray(num, dtype=float), np.asarray(den, dtype=float)
    out = {"n": int(a.size), "events": float(b.sum()), "mean": np.nan, "ci_low": np.nan,
           "ci_high": np.nan}
    if a.size == 0 or b.sum() == 0:
        return out
    out["mean"] = float(a.sum() / b.sum())
    if a.size > 1:
        res = bootstrap((a, b), lambda x, y, axis=-1: x.sum(axis) / y.sum(axis), paired=True,
                        vectorized=True, confidence_level=confidence, n_resamples=resamples,
                        method="percentile", rng=np.random.default_rng(seed))
        out["ci_low"], out["ci_high"] = (float(res.confidence_interval.low),
                                         float(res.confidence_interval.high))
    return out


def _qname(q: float) -> str:
    return "median" if q == 0.5 else f"p{round(q * 100):d}"


# --- rates --------------------------------------------------------------------------------


def wilson_ci(successes, n, confidence: float = CONFIDENCE) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval of a rate, element-wise (statsmodels ``proportion_confint``).

    Groups with ``n == 0`` get NaN bounds.
    """
    k, m = np.broadcast_arrays(np.atleast_1d(np.asarray(successes, dtype=np.int64)),
                               np.atleast_1d(np.asarray(n, dtype=np.int64)))
    bad = np.flatnonzero((k < 0) | (k > m))
    if bad.size:
        raise CatansimError(f"wilson_ci: {k.flat[bad[0]]} successes of {m.flat[bad[0]]}; "
                            "allowed: 0 <= successes <= n")
    lo = np.full(k.shape, np.nan)
    hi = np.full(k.shape, np.nan)
    ok = m > 0
    if ok.any():
        lo[ok], hi[ok] = proportion_confint(k[ok], m[ok], alpha=1 - confidence, method="wilson")
    return lo, hi


def rate_table(frame: pd.DataFrame, successes: str, n: str = "n", rate: str = "rate",
               confidence: float = CONFIDENCE) -> pd.DataFrame:
    """Add ``rate``, ``ci_low``, ``ci_high`` (Wilson) and ``method`` to a table of counts."""
    out = frame.copy()
    out[n] = out[n].astype(np.int64)
    out[successes] = out[successes].astype(np.int64)
    with np.errstate(invalid="ignore", divide="ignore"):
        out[rate] = out[successes] / out[n].where(out[n] > 0)
    out["ci_low"], out["ci_high"] = wilson_ci(out[successes], out[n], confidence)
    out["method"] = WILSON
    return out


def reliability_table(predicted, won, bins: int = 10,
                      confidence: float = CONFIDENCE) -> pd.DataFrame:
    """Calibration of predicted probabilities: the predictions cut into ``bins`` groups of
    equal size (quantiles; ties may merge groups), each with ``n``, ``wins``,
    ``mean_predicted``, the ``observed`` rate and its Wilson interval (``rate_table``)."""
    p = np.asarray(predicted, dtype=float)
    y = np.asarray(won, dtype=float)
    group = pd.qcut(p, bins, labels=False, duplicates="drop")
    rel = pd.DataFrame({"bin": group, "p": p, "y": y}).groupby("bin").agg(
        n=("y", "size"), wins=("y", "sum"), mean_predicted=("p", "mean"))
    return rate_table(rel, "wins", rate="observed", confidence=confidence)


# --- paired and unpaired comparisons of means -----------------------------------------------


def compare_paired(diff: Hist, base: Hist, other: Hist, confidence: float = CONFIDENCE) -> dict:
    """A paired comparison of means (other - base) from the histograms of the per-game
    differences and of each arm, with the unpaired interval beside it.

    Returns n (pairs), the two means, the mean difference with its paired t interval
    and p-value (``DescrStatsW.tconfint_mean`` / ``ttest_mean`` on the differences),
    the Welch interval an unpaired design would give (``CompareMeans.tconfint_diff``
    with unequal variances), ``width_ratio`` = paired width / unpaired width (how much
    the pairing narrowed the interval) and ``dz`` (mean difference / sd of the
    differences, the paired effect size).
    """
    alpha = 1 - confidence
    out = {"n": diff.n, "base_mean": np.nan, "mean": np.nan, "diff": np.nan,
           "ci_low": np.nan, "ci_high": np.nan, "p_value": np.nan,
           "unpaired_ci_low": np.nan, "unpaired_ci_high": np.nan, "width_ratio": np.nan,
           "sd_diff": np.nan, "dz": np.nan}
    if diff.n < 2:
        return out
    dd, db, do = diff.descr(), base.descr(), other.descr()
    out.update(base_mean=float(db.mean), mean=float(do.mean), diff=float(dd.mean),
               sd_diff=float(dd.std))
    if dd.std > 0:
        lo, hi = dd.tconfint_mean(alpha=alpha)
        out.update(ci_low=float(lo), ci_high=float(hi), p_value=float(dd.ttest_mean(0)[1]),
                   dz=float(dd.mean / dd.std))
    else:  # every game the same difference: no spread to speak of
        out.update(ci_low=float(dd.mean), ci_high=float(dd.mean),
                   p_value=1.0 if dd.mean == 0 else 0.0)
    if db.std > 0 or do.std > 0:
        ulo, uhi = CompareMeans(do, db).tconfint_diff(alpha=alpha, usevar="unequal")
        out.update(unpaired_ci_low=float(ulo), unpaired_ci_high=float(uhi))
        width = uhi - ulo
        if width > 0:
            out["width_ratio"] = float((out["ci_high"] - out["ci_low"]) / width)
    return out


def mcnemar_p(only_base: int, only_other: int) -> float:
    """McNemar's test of paired binary outcomes (statsmodels; exact binomial when the
    discordant pairs are fewer than 25). ``only_base``: pairs where only the
    baseline had the event; ``only_other``: only the other arm."""
    b, c = int(only_base), int(only_other)
    if b + c == 0:
        return 1.0
    res = mcnemar(np.array([[0, b], [c, 0]]), exact=b + c < 25, correction=True)
    return float(res.pvalue)


# --- tests of equal shares and multiple comparisons ------------------------------------------


def chisquare_equal(counts) -> dict:
    """Chi-square goodness-of-fit test of equal shares (``scipy.stats.chisquare``).

    Returns n, chi2, df, p_value and Cohen's w (sqrt(chi2 / n), the effect size).
    """
    c = np.asarray(counts, dtype=float)
    n = float(c.sum())
    if n == 0 or c.size < 2:
        return {"n": int(n), "chi2": np.nan, "df": c.size - 1, "p_value": np.nan,
                "cohens_w": np.nan}
    res = chisquare(c)
    return {"n": int(n), "chi2": float(res.statistic), "df": c.size - 1,
            "p_value": float(res.pvalue), "cohens_w": float(np.sqrt(res.statistic / n))}


def adjust(p_values, method: str = "holm", alpha: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    """Multiple-comparison control (``statsmodels.stats.multitest.multipletests``).

    ``method``: ``holm`` (family-wise error) or ``fdr_bh`` (Benjamini-Hochberg false
    discovery rate). NaN p-values are left out and stay NaN. Returns the adjusted
    p-values and which are significant at ``alpha``.
    """
    p = np.asarray(p_values, dtype=float)
    adj = np.full(p.shape, np.nan)
    sig = np.zeros(p.shape, dtype=bool)
    ok = ~np.isnan(p)
    if ok.any():
        reject, padj, _, _ = multipletests(p[ok], alpha=alpha, method=method)
        adj[ok], sig[ok] = padj, reject
    return adj, sig


P_COLUMNS = frozenset({"p_value", "p_adjusted", "p_holm", "p"})  # p-values in our tables
# Interval ends, printed as text by ``with_unbounded_text`` (still numbers, right-aligned)
CI_COLUMNS = ("ci_low", "ci_high")


def p_text(p) -> str:
    """A p-value as text: ``0.032``, ``5.8e-36``; one below the smallest double (scipy's
    ``sf`` returns 0 there) is ``< 1e-300``, never ``0``; a missing one is ``""``."""
    if p is None or p is pd.NA:
        return ""
    p = float(p)
    if np.isnan(p):
        return ""
    return "< 1e-300" if p < 1e-300 else f"{p:.2g}"


def format_p(p: float) -> str:
    """A p-value for a sentence: ``p = 0.032``, ``p = 5.8e-36``, ``p < 1e-300``, never
    ``p = 0``."""
    t = p_text(p)
    return "p = n/a" if not t else f"p {t}" if t.startswith("<") else f"p = {t}"


def with_p_text(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``frame`` whose p-value columns (``P_COLUMNS``) are ``p_text`` strings,
    for printing: a float format would show 4e-33 as 0.000."""
    cols = [c for c in frame.columns if c in P_COLUMNS]
    if not cols:
        return frame
    return frame.assign(**{c: frame[c].map(p_text) for c in cols})


def with_unbounded_text(frame: pd.DataFrame, bounded, digits: int = 3,
                        columns=CI_COLUMNS) -> pd.DataFrame:
    """A copy of ``frame`` for printing whose interval ``columns`` read ``unbounded`` on
    the rows where ``bounded`` is False (a fit the games do not bound, e.g. a player that
    never won against a group it met: its interval runs to thousands and says nothing),
    and the others formatted to ``digits`` places (NaN as NaN, as pandas prints it).
    A table whose intervals are all bounded is returned as numbers, so it prints exactly
    as the plain table does."""
    ok = np.asarray(bounded, dtype=bool)
    if ok.all():
        return frame.copy()

    def text(v, b):
        return "unbounded" if not b else ("NaN" if pd.isna(v) else f"{v:.{digits}f}")

    return frame.assign(**{c: [text(v, b) for v, b in zip(frame[c], ok, strict=True)]
                           for c in columns})


METHOD_NAMES = {"holm": "Holm", "fdr_bh": "Benjamini-Hochberg"}


# --- power ---------------------------------------------------------------------------------


def games_for_rates(p1: float, p2: float, alpha: float = 0.05, power: float = 0.8) -> float:
    """Games per arm an unpaired comparison of two rates needs to detect ``p1`` vs
    ``p2`` (two-sided; ``NormalIndPower`` with Cohen's h, ``proportion_effectsize``)."""
    h = abs(float(proportion_effectsize(p2, p1)))
    if h == 0:
        return np.inf
    return float(NormalIndPower().solve_power(effect_size=h, alpha=alpha, power=power,
                                              ratio=1.0))


def games_for_paired_mean(delta: float, sd_diff: float, alpha: float = 0.05,
                          power: float = 0.8) -> float:
    """Pairs (games played in both arms) a paired design needs to detect a mean
    difference ``delta`` when the per-game differences have sd ``sd_diff``
    (``TTestPower`` with dz = delta / sd_diff)."""
    if sd_diff <= 0 or delta == 0 or not np.isfinite(sd_diff):
        return np.nan
    return _solve_nobs(TTestPower(), abs(delta) / sd_diff, alpha, power)


def games_for_unpaired_mean(delta: float, sd: float, alpha: float = 0.05,
                            power: float = 0.8) -> float:
    """Games per arm an unpaired design needs for a mean difference ``delta`` when the
    measure has sd ``sd`` in each arm (``TTestIndPower`` with d = delta / sd)."""
    if sd <= 0 or delta == 0 or not np.isfinite(sd):
        return np.nan
    return _solve_nobs(TTestIndPower(), abs(delta) / sd, alpha, power, ratio=1.0)


# statsmodels' root finder does not converge for an effect that a handful of
# observations already detect (it warns and returns nan), and its power at 2
# observations is nan for large effects: such effects are counted from 3 upward.
_MIN_NOBS = 3
_FEW_NOBS = 30


def _solve_nobs(test, effect_size: float, alpha: float, power: float, **kw) -> float:
    """Observations (per arm) ``test`` needs for ``power``: the fewest whole number from
    ``_MIN_NOBS`` when a few suffice, else statsmodels' solution."""
    for n in range(_MIN_NOBS, _FEW_NOBS):
        if test.power(effect_size, n, alpha, **kw) >= power:  # nobs (paired) / nobs1
            return float(n)
    return float(test.solve_power(effect_size=effect_size, alpha=alpha, power=power, **kw))


def games_for_seat_shares(shares, alpha: float = 0.05, power: float = 0.8) -> float:
    """Decided games a chi-square test of equal seats needs to detect the win shares
    ``shares`` (one per seat, summing to 1): ``GofChisquarePower`` with Cohen's w."""
    s = np.asarray(shares, dtype=float)
    s = s / s.sum()
    w = float(chisquare_effectsize(np.full(s.size, 1 / s.size), s))
    if w == 0:
        return np.inf
    return float(GofChisquarePower().solve_power(effect_size=w, nobs=None, alpha=alpha,
                                                 power=power, n_bins=s.size))
