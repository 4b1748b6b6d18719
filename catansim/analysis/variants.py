"""Paired comparisons of variants against the baseline, game by game.

Every variant of a dataset plays the same game seeds as the baseline (common
random numbers: same boards, same dice and deck streams), so each headline
measure is differenced **per game** (variant minus baseline, paired on ``game``).
For a mean the paired t interval of the differences is reported beside the Welch
interval an unpaired design with the same games would give, and their width
ratio says how much the pairing narrowed it. For a win (a binary outcome per
seat and game) the p-value is McNemar's test on the discordant games and the
interval is the paired t interval of the per-game differences. All the rows of a
table are tested at once: p-values are Holm-corrected over the whole table.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from . import stats as S
from .driver import Analysis, Chunk, Context, reads_source, run, variant_check
from .measures import GAME_MEASURES, columns_of, game_values
from .table import result_table

# Smallest effects of interest for the power columns: 5% of the baseline mean for a
# mean, 2 percentage points for a rate.
MDE_MEAN_SHARE = 0.05
MDE_RATE = 0.02


def _seat_won(chunk: Chunk, variant: str, n_players: int) -> np.ndarray:
    """won[game row, seat] (int) for the games of ``variant``, aligned with games rows."""
    def make():
        g = chunk.games["game"].to_numpy()[chunk.game_rows(variant)]
        rows = chunk.player_rows(variant)
        pg = chunk.players["game"].to_numpy()[rows]
        seat = chunk.players["seat"].to_numpy()[rows].astype(np.int64)
        out = np.zeros((g.size, n_players), dtype=np.int64)
        out[np.searchsorted(g, pg), seat] = chunk.players["won"].to_numpy()[rows]
        return out
    return chunk.memo(("seat_won", variant), make)


def _outcomes(chunk: Chunk, variant: str, n_players: int) -> dict[str, tuple[np.ndarray, bool]]:
    """Per game of ``variant``: every headline measure (values, is_binary)."""
    out = {m.name: (game_values(chunk, variant, m), False) for m in GAME_MEASURES}
    won = _seat_won(chunk, variant, n_players)
    for s in range(n_players):
        out[f"win_seat_{s}"] = (won[:, s], True)
    out["no_winner"] = ((won.sum(axis=1) == 0).astype(np.int64), True)
    return out


def _paired_map(baseline: str | None):
    def f(chunk: Chunk):
        names = chunk.variants
        base = baseline if baseline is not None else (
            "baseline" if "baseline" in names else (names[0] if names else None))
        if base not in names or len(names) < 2:
            return {}
        n_players = int(chunk.players["seat"].max()) + 1
        gb = chunk.games["game"].to_numpy()[chunk.game_rows(base)]
        ob = _outcomes(chunk, base, n_players)
        out = {}
        for v in names:
            if v == base:
                continue
            gv = chunk.games["game"].to_numpy()[chunk.game_rows(v)]
            _, ib, iv = np.intersect1d(gb, gv, assume_unique=True, return_indices=True)
            ov = _outcomes(chunk, v, n_players)
            for name, (xv, binary) in ov.items():
                xb = ob[name][0][ib]
                xv = xv[iv]
                out[(v, name)] = {"d": S.Hist.of(xv - xb), "base": S.Hist.of(xb),
                                  "other": S.Hist.of(xv),
                                  "binary": np.int64(binary)}  # adds up: > 0 means binary
        return out
    return f


LABELS = {m.name: m.label for m in GAME_MEASURES}
LABELS["no_winner"] = "share of games without a winner (turn limit)"


def _label(name: str) -> str:
    if name.startswith("win_seat_"):
        return f"win rate of seat {name.rsplit('_', 1)[-1]}"
    return LABELS[name]


def _paired_finish(correction: str):
    def f(stats, ctx: Context) -> pd.DataFrame:
        if not stats:
            return pd.DataFrame()
        order = {v: i for i, v in enumerate(ctx.variants)}
        keys = sorted(stats, key=lambda k: order.get(k[0], len(order)))
        rows = []
        for v, name in keys:
            s = stats[(v, name)]
            r = S.compare_paired(s["d"], s["base"], s["other"])
            binary = bool(s["binary"])
            if binary:
                counts = s["d"].series()
                r["p_value"] = S.mcnemar_p(counts.get(-1, 0), counts.get(1, 0))
                mde = MDE_RATE
                p1 = r["base_mean"]
                r["games_needed_unpaired"] = (S.games_for_rates(p1, min(p1 + mde, 1.0))
                                              if 0 < p1 < 1 else np.nan)
                r["method"] = ("McNemar test (statsmodels); " + S.PAIRED_T + "; " + S.WELCH)
            else:
                mde = MDE_MEAN_SHARE * abs(r["base_mean"]) if r["base_mean"] else np.nan
                sd = s["base"].descr().std if s["base"].n > 1 else np.nan
                r["games_needed_unpaired"] = (S.games_for_unpaired_mean(mde, sd)
                                              if np.isfinite(mde) else np.nan)
                r["method"] = S.PAIRED_T + " and t test; " + S.WELCH
            r["mde"] = mde
            r["pairs_needed"] = (S.games_for_paired_mean(mde, r["sd_diff"])
                                 if np.isfinite(mde) else np.nan)
            rows.append({"variant": v, "measure": name, "label": _label(name),
                         "binary": binary, **r})
        out = pd.DataFrame(rows)
        out["p_adjusted"], out["significant"] = S.adjust(out["p_value"], correction)
        out["correction"] = f"{S.METHOD_NAMES[correction]} over the {len(out)} rows"
        cols = ["label", "binary", "n", "base_mean", "mean", "diff", "ci_low", "ci_high",
                "unpaired_ci_low", "unpaired_ci_high", "width_ratio", "sd_diff", "dz",
                "p_value", "p_adjusted", "significant", "mde", "pairs_needed",
                "games_needed_unpaired", "method", "correction"]
        return out.set_index(["variant", "measure"])[cols]
    return f


def paired_analysis(baseline: str | None = None, correction: str = "holm") -> Analysis:
    cols = columns_of(GAME_MEASURES)
    return Analysis("paired", {"games": cols["games"], "players": ("seat", "won",
                                                                    *cols["players"])},
                    _paired_map(baseline), _paired_finish(correction),
                    check=variant_check(baseline))


@reads_source
def paired_differences(source, baseline: str | None = None, correction: str = "holm",
                       **kw) -> pd.DataFrame:
    """Every headline measure of every variant against the baseline, paired by game.

    Reads the columns of ``measures.GAME_MEASURES`` and ``players``: ``seat``, ``won``.
    ``baseline`` defaults to ``baseline`` (else the first variant); ``correction`` is
    ``holm`` or ``fdr_bh`` (``stats.adjust``) over all rows of the table.

    Returns a DataFrame indexed by (variant, measure), measures: the per-game counts
    (turns, rolls, cards produced, stolen, ...), ``win_seat_<k>`` (win rate of seat k)
    and ``no_winner``. Columns: ``label``, ``binary``, ``n`` (paired games),
    ``base_mean``, ``mean`` (the variant's), ``diff`` (mean of variant - baseline per
    game) with its paired interval ``ci_low``/``ci_high``, ``unpaired_ci_low``/
    ``unpaired_ci_high`` (Welch, as if the arms were independent), ``width_ratio``
    (paired / unpaired width: below 1 the pairing helped), ``sd_diff``, ``dz``
    (diff / sd_diff), ``p_value`` (paired t; McNemar for wins), ``p_adjusted``,
    ``significant`` (0.05 after correction), ``mde`` (smallest effect of interest: 5%
    of the baseline mean, 2 points for a rate), ``pairs_needed`` and
    ``games_needed_unpaired`` (80% power at 0.05 for the mde, ``statsmodels.stats.power``),
    ``method``, ``correction``. Empty when the source has a single variant. Printed, the
    numbers come first, then ``label``, and the method and correction once below
    (``table.ResultTable``).
    """
    return result_table(run(paired_analysis(baseline, correction), source, **kw))
