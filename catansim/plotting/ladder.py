"""The figure of a ladder: every player's rating with its interval and n
(``analysis.ladder.ladder_table``)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from . import style as S


def ladder_figure(table: pd.DataFrame, reference: str):
    """Players strongest first, each at its log strength with its 95% interval; a rating
    the games cannot bound (``bounded`` False) is drawn as an arrow to the edge."""
    with S.styled():
        t = table.iloc[::-1]
        y = np.arange(len(t))
        ok = t["bounded"].to_numpy(bool)
        finite = t.loc[ok, ["ci_low", "ci_high"]].to_numpy(float)
        lo, hi = (finite.min(), finite.max()) if finite.size else (-1.0, 1.0)
        pad = 0.15 * max(hi - lo, 1.0)
        lo, hi = lo - pad, hi + pad
        fig, ax = S.new_figure(1.2 + 0.38 * len(t))
        m = t["log_strength"].to_numpy(float)
        ax.errorbar(m[ok], y[ok], xerr=[m[ok] - t["ci_low"].to_numpy(float)[ok],
                                        t["ci_high"].to_numpy(float)[ok] - m[ok]],
                    fmt="o", color=S.colour(0), capsize=3)
        for yi, mi in zip(y[~ok], m[~ok], strict=True):
            edge = lo if mi < 0 else hi
            ax.annotate("", xy=(edge, yi), xytext=(0.5 * (lo + hi), yi),
                        arrowprops=dict(arrowstyle="->", color=S.GREY))
            ax.text(0.5 * (lo + hi), yi + 0.18, "unbounded: " + ("never beat" if mi < 0 else
                    "never lost to") + " a group it met", fontsize=8, color=S.GREY,
                    ha="center")
        ax.set_xlim(lo, hi)
        ax.axvline(0, color=S.GREY, lw=1)
        labels = [f"{name}  (n = {S.fmt_n(n)})" for name, n in zip(t.index, t["games"],
                                                                    strict=True)]
        ax.set_yticks(y, labels)
        ax.set_xlabel(f"log strength relative to {reference} (log odds of winning, same seat)")
        return S.finish(fig, "Ladder: Plackett-Luce rating (top-1, seats fitted)",
                        "95% Wald intervals; n = decided games the player sat in")
