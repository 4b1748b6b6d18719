"""Figures of rule effects (the robber and shortage studies): paired contrasts, catch-up
curves, shares and sweeps. Each takes a frame of ``analysis.contrasts``,
``analysis.robber`` or ``analysis.shortages`` and returns a Figure; nothing here
computes a statistic, the intervals are the tables'.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from . import style as S
from .figures import _err


def contrast_forest(table: pd.DataFrame, arms: Sequence[tuple[str, str, str]],
                    panels: Sequence[tuple[str, str, Sequence[str], float]], title: str,
                    note: str = "", correction: str | None = None):
    """Paired differences with their intervals, one panel per unit.

    ``table``: ``contrasts.paired_contrasts`` (index variant, reference, outcome).
    ``arms``: ``(variant, reference, legend label)`` to draw, one colour each.
    ``panels``: ``(panel title, x label, outcomes, scale)``; the differences are
    multiplied by ``scale`` (100 for rates in percentage points). Rows significant
    after the table's correction (or ``correction``, its wording) are drawn filled, the
    others hollow.
    """
    seen: set[int] = set()
    with S.styled():
        heights = [max(len(p[2]), 1) for p in panels]
        fig = Figure(figsize=(S.WIDTH, 1.0 + 0.32 * sum(heights) * max(1, len(arms)) ** 0.5
                                + 0.35 * len(panels)), layout="constrained")
        axes = fig.subplots(len(panels), 1, height_ratios=heights, squeeze=False)[:, 0]
        step = 0.7 / max(len(arms), 1)
        for ax, (ptitle, xlabel, outcomes, scale) in zip(axes, panels, strict=True):
            labels = []
            for j, o in enumerate(outcomes):
                lab = o
                for i, (v, ref, name) in enumerate(arms):
                    key = (v, ref, o)
                    if key not in table.index:
                        continue
                    r = table.loc[key]
                    lab = r["label"]
                    y = j + (i - (len(arms) - 1) / 2) * step
                    sig = bool(r["significant"])
                    ax.errorbar(r["diff"] * scale, y, xerr=_err(r["diff"] * scale,
                                                               r["ci_low"] * scale,
                                                               r["ci_high"] * scale),
                                fmt="o", color=S.colour(i), mfc=S.colour(i) if sig else "white",
                                ms=5, capsize=2.5, lw=1.4,
                                label=None if i in seen else name)
                    seen.add(i)
                labels.append(_wrap(lab, 38))
            ax.axvline(0, color=S.GREY, lw=1)
            ax.set_yticks(np.arange(len(outcomes)), labels, fontsize=8)
            ax.set_ylim(len(outcomes) - 0.5, -0.5)
            ax.set_title(ptitle, fontsize=10, loc="left")
            ax.set_xlabel(xlabel)
        if len(arms) > 1:  # beside the panels, never over a panel's points
            fig.legend(loc="outside right center", fontsize=8, frameon=False)
        corr = correction or (table["correction"].iloc[0] if len(table) else "")
        key = pd.MultiIndex.from_arrays([table.index.get_level_values(0),
                                         table.index.get_level_values(1)])
        n = [int(table["n"].to_numpy()[(key == (v, r))].max()) for v, r, _ in arms
             if (key == (v, r)).any()]
        text = (f"n = {S.fmt_n(max(n) if n else 0)} paired games per arm (fewer where an "
                f"outcome is undefined); bars: paired 95% t intervals; filled: significant "
                f"after {corr}" + (f"; {note}" if note else ""))
        return S.finish(fig, title, text)


def _wrap(text: str, width: int) -> str:
    return "\n".join(textwrap.wrap(str(text), width)) or str(text)


def catch_up_figure(catch: pd.DataFrame, arms: Sequence[str] | None = None,
                    labels: dict | None = None, title: str = "Who wins from where"):
    """The win rate of the player leading alone (left) and of the one alone in last place
    (right) after each checkpoint turn, per arm, with Wilson bands and the fair share.

    ``catch``: ``robber.catch_up`` (index variant, turn).
    """
    arms = list(arms or dict.fromkeys(catch.index.get_level_values("variant")))
    labels = labels or {}
    with S.styled():
        fig, axes = S.new_figure(3.8, ncols=2, sharex=True)
        for i, v in enumerate(arms):
            if v not in catch.index.get_level_values("variant"):
                continue
            whole = catch.xs(v, level="variant")
            for ax, who in ((axes[0], "leader"), (axes[1], "last")):
                # a rate on fewer games is noise on this scale
                t = whole[whole[f"sole_{who}"] >= 100]
                x = t.index.to_numpy()
                ax.plot(x, t[f"{who}_win_rate"] * 100, "-o", ms=3.5, color=S.colour(i),
                        label=labels.get(v, v) if who == "leader" else None)
                ax.fill_between(x, t[f"{who}_ci_low"] * 100, t[f"{who}_ci_high"] * 100,
                                color=S.colour(i), alpha=0.18, lw=0)
        fair = float(catch["fair"].iloc[0]) * 100 if len(catch) else 25
        for ax, what in ((axes[0], "the player leading alone"),
                         (axes[1], "the player alone in last place")):
            ax.axhline(fair, color=S.GREY, ls="--", lw=1)
            ax.text(ax.get_xlim()[0], fair, " fair share", ha="left", va="bottom",
                    fontsize=8, color=S.GREY)
            ax.set_xlabel("after turn")
            ax.set_ylabel(f"win rate of {what} (%)")
            ax.set_ylim(0, None)
        axes[0].legend(loc="lower right", fontsize=8, frameon=True, framealpha=0.9,
                       edgecolor="#dddddd")
        n = catch.groupby(level="variant", sort=False)["games"].max()
        note = ("n = " + ", ".join(f"{labels.get(v, v)}: {S.fmt_n(n[v])}" for v in arms
                                   if v in n.index)
                + " games; a checkpoint counts the games still going with one player alone "
                  "in the lead (in last place); bands: 95% Wilson intervals; points on fewer "
                  "than 100 such games left out")
        return S.finish(fig, title, note)


def lead_figure(lead: pd.DataFrame, turn: int, arms: Sequence[str] | None = None,
                labels: dict | None = None, fair: float | None = None):
    """The sole leader's win rate after ``turn`` by the size of the lead, per arm.

    ``lead``: ``robber.lead_table`` (index variant, turn, lead)."""
    t = lead.xs(turn, level="turn")
    arms = list(arms or dict.fromkeys(t.index.get_level_values("variant")))
    labels = labels or {}
    sizes = list(dict.fromkeys(t.index.get_level_values("lead")))
    with S.styled():
        fig, ax = S.new_figure(3.5)
        width = 0.8 / len(arms)
        for i, v in enumerate(arms):
            r = t.xs(v, level="variant").reindex(sizes)
            x = np.arange(len(sizes)) + (i - (len(arms) - 1) / 2) * width
            ax.bar(x, r["win_rate"] * 100, width * 0.9, color=S.colour(i), alpha=0.85,
                   label=labels.get(v, v))
            ax.errorbar(x, r["win_rate"] * 100, yerr=_err(r["win_rate"] * 100,
                                                         r["ci_low"] * 100, r["ci_high"] * 100),
                        fmt="none", ecolor="#222222", capsize=2.5, lw=1)
        if fair is not None:
            ax.axhline(fair * 100, color=S.GREY, ls="--", lw=1)
        ax.set_xticks(np.arange(len(sizes)), [f"{s} VP" for s in sizes])
        ax.set_xlabel(f"lead over the second after turn {turn} (visible VP)")
        ax.set_ylabel("the leader's win rate (%)")
        ax.set_ylim(0, 100)
        ax.legend(fontsize=8, loc="upper left", ncols=len(arms))
        n = t.groupby(level="variant", sort=False)["games"].sum()
        note = ("n = " + ", ".join(f"{labels.get(v, v)}: {S.fmt_n(n[v])}" for v in arms)
                + " games with one player leading alone; bars: 95% Wilson intervals")
        return S.finish(fig, f"How much a lead after turn {turn} is worth", note)


def share_bars(rows: pd.DataFrame, value: str, title: str, xlabel: str,
               reference: tuple[float, str] | None = None, pct: bool = True,
               label_col: str = "label", n_col: str = "denominator", n_unit: str = "events"):
    """Horizontal bars of a share (or mean) per row with its interval.

    ``rows``: one row per bar with ``label_col``, ``value``, ``ci_low``, ``ci_high`` and
    ``n_col``; ``reference``: (value, label) drawn as a dashed line."""
    k = 100.0 if pct else 1.0
    with S.styled():
        fig, ax = S.new_figure(1.3 + 0.36 * len(rows))
        y = np.arange(len(rows))
        m = rows[value].to_numpy(dtype=float) * k
        ax.barh(y, m, 0.65, color=[S.colour(i) for i in range(len(rows))], alpha=0.85)
        ax.errorbar(m, y, xerr=_err(m, rows["ci_low"] * k, rows["ci_high"] * k), fmt="none",
                    ecolor="#222222", capsize=3, lw=1)
        top = rows["ci_high"].to_numpy(dtype=float) * k
        for yi, mi, hi in zip(y, m, top, strict=True):
            if np.isfinite(mi):
                ax.text(max(mi, hi if np.isfinite(hi) else mi), yi,
                        f"  {mi:.1f}{'%' if pct else ''}", va="center", fontsize=8)
        ax.set_yticks(y, [_wrap(s, 40) for s in rows[label_col]], fontsize=8)
        ax.invert_yaxis()
        if reference is not None:
            ax.axvline(reference[0] * k, color=S.SIGNIFICANT, ls="--", lw=1)
            ax.text(reference[0] * k, len(rows) - 0.45, reference[1] + " ", ha="right",
                    va="bottom", fontsize=8, color=S.SIGNIFICANT)
        ax.set_xlabel(xlabel)
        hi = np.nanmax(rows["ci_high"].to_numpy(dtype=float) * k) if len(rows) else 1
        ax.set_xlim(0, max(hi * 1.18, (reference[0] * k * 1.05) if reference else 0))
        note = ("n = " + ", ".join(S.fmt_n(x) for x in rows[n_col]) + f" {n_unit} (top to "
                "bottom); bars: 95% intervals (" + str(rows["method"].iloc[0]).split(";")[0]
                + ")") if "method" in rows.columns and len(rows) else ""
        return S.finish(fig, title, note)


def sweep_figure(frame: pd.DataFrame, x: str, groups: str, title: str, xlabel: str,
                 ylabel: str, value: str = "mean", pct: bool = True, log: bool = False,
                 order: Sequence | None = None, note: str = ""):
    """One line per group across the values of ``x`` (e.g. the supply), with intervals.

    ``frame``: columns ``x``, ``groups``, ``value``, ``ci_low``, ``ci_high``, ``n``."""
    k = 100.0 if pct else 1.0
    names = list(order or dict.fromkeys(frame[groups]))
    with S.styled():
        fig, ax = S.new_figure(3.8)
        for i, g in enumerate(names):
            t = frame[frame[groups] == g]
            if not len(t):
                continue
            xs = np.arange(len(t)) if t[x].dtype == object else t[x].to_numpy()
            m = t[value].to_numpy(dtype=float) * k
            ax.errorbar(xs, m, yerr=_err(m, t["ci_low"] * k, t["ci_high"] * k), fmt="-o",
                        ms=4, capsize=2.5, color=S.colour(i), label=str(g))
        if frame[x].dtype == object:
            ticks = list(dict.fromkeys(frame[x]))
            ax.set_xticks(np.arange(len(ticks)), ticks)
        if log:
            ax.set_yscale("log")
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.legend(fontsize=8, ncols=min(len(names), 3))
        text = (f"n = {S.fmt_n(frame['n'].max())} per point; bars: 95% intervals"
                + (f"; {note}" if note else ""))
        return S.finish(fig, title, text)


def curve_figure(curve: pd.DataFrame, resource: str = "any", arms: Sequence[str] | None = None,
                 labels: dict | None = None, title: str = "When the supply first runs short"):
    """The cumulative share of games that had a shortage by each turn, per arm.

    ``curve``: ``shortages.first_shortage_curve`` (index variant, resource, turn)."""
    t = curve.xs(resource, level="resource")
    arms = list(arms or dict.fromkeys(t.index.get_level_values("variant")))
    labels = labels or {}
    with S.styled():
        fig, ax = S.new_figure(3.6)
        for i, v in enumerate(arms):
            if v not in t.index.get_level_values("variant"):
                continue
            r = t.xs(v, level="variant")
            ax.step(r.index.to_numpy(), r["share"].to_numpy() * 100, where="post",
                    color=S.colour(i), lw=1.6, label=labels.get(v, v))
        ax.set_xlabel("turn")
        what = "any resource" if resource == "any" else resource
        ax.set_ylabel(f"games short of {what} by then (%)")
        ax.set_xlim(0, 150)
        ax.legend(fontsize=8, loc="upper left")
        n = t.groupby(level="variant", sort=False)["games"].max()
        note = ("n = " + ", ".join(f"{labels.get(v, v)}: {S.fmt_n(n[v])}" for v in arms
                                   if v in n.index) + " games; cumulative share of all games "
                "(a game that ends before its first shortage never counts)")
        return S.finish(fig, title, note)


def group_bars(frame: pd.DataFrame, groups: Sequence[str], arms: Sequence[str], title: str,
               ylabel: str, labels: dict | None = None, pct: bool = False, note: str = "",
               log: bool = False):
    """Grouped bars: one group per ``groups`` value, one bar per arm, with intervals,
    each bar's value written above it.

    ``frame``: index (variant, group) with ``mean``, ``ci_low``, ``ci_high``, ``n``.
    ``log``: a log value axis, for bars of different orders of magnitude (0.2% beside
    18%), so the small ones stay visible."""
    k = 100.0 if pct else 1.0
    labels = labels or {}
    with S.styled():
        fig, ax = S.new_figure(3.6)
        width = 0.8 / max(len(arms), 1)
        for i, v in enumerate(arms):
            r = frame.xs(v, level=0).reindex(groups)
            x = np.arange(len(groups)) + (i - (len(arms) - 1) / 2) * width
            m = r["mean"].to_numpy(dtype=float) * k
            hi = r["ci_high"].to_numpy(dtype=float) * k
            ax.bar(x, m, width * 0.9, color=S.colour(i), alpha=0.85, label=labels.get(v, v))
            ax.errorbar(x, m, yerr=_err(m, r["ci_low"] * k, hi), fmt="none",
                        ecolor="#222222", capsize=2.5, lw=1)
            for xi, mi, top_i in zip(x, m, hi, strict=True):
                if np.isfinite(mi):
                    ax.annotate(f"{mi:.2g}", (xi, top_i), xytext=(0, 2),
                                textcoords="offset points", ha="center", va="bottom",
                                fontsize=7)
        ax.set_xticks(np.arange(len(groups)), groups)
        ax.set_ylabel(ylabel + (" (log scale)" if log else ""))
        shown = frame[frame.index.get_level_values(0).isin(list(arms))]
        top = np.nanmax(shown["ci_high"].to_numpy(dtype=float) * k) if len(shown) else np.nan
        low = shown["ci_low"].to_numpy(dtype=float) * k
        low = np.nanmin(low[low > 0]) if (low > 0).any() else np.nan
        rows = -(-len(arms) // 4)  # of the legend
        if log and np.isfinite(top) and np.isfinite(low):
            ax.set_yscale("log")  # headroom in decades: the values, then the legend
            ax.set_ylim(low / 2, top * 10 ** (0.35 + 0.25 * rows))
        elif np.isfinite(top) and top > 0:  # headroom: the legend above the tallest bar
            ax.set_ylim(0, top * (1.12 + 0.08 * rows))
        ax.legend(fontsize=8, ncols=min(len(arms), 4), loc="upper center")
        n = frame.groupby(level=0, sort=False)["n"].max()
        text = ("n = " + ", ".join(f"{labels.get(v, v)}: {S.fmt_n(n[v])}" for v in arms
                                   if v in n.index) + " (largest group); bars: 95% intervals"
                + (f"; {note}" if note else ""))
        return S.finish(fig, title, text)


def stage_figure(stage: pd.DataFrame, turn: int, arms: Sequence[str],
                 labels: dict | None = None, leads=("1", "2"), min_games: int | None = None):
    """The sole leader's win rate after ``turn`` at equal standing: by the leader's visible
    VP, one panel per lead size, one line per arm (Wilson intervals).

    ``stage``: ``robber.stage_table`` (index variant, turn, leader_vp, lead)."""
    labels = labels or {}
    t = stage.xs(turn, level="turn")
    if min_games is None:  # a point on fewer games is noise at a large scale
        min_games = 100 if t["games"].groupby(level="variant").sum().min() >= 20_000 else 10
    with S.styled():
        fig, axes = S.new_figure(3.6, ncols=len(leads), sharey=True)
        axes = np.atleast_1d(axes)
        for ax, lead in zip(axes, leads, strict=True):
            for i, v in enumerate(arms):
                if v not in t.index.get_level_values("variant"):
                    continue
                r = t.xs(v, level="variant")
                r = r[(r.index.get_level_values("lead") == lead) & (r["games"] >= min_games)]
                x = r.index.get_level_values("leader_vp").to_numpy()
                m = r["win_rate"].to_numpy() * 100
                ax.errorbar(x + (i - (len(arms) - 1) / 2) * 0.08, m,
                            yerr=_err(m, r["ci_low"] * 100, r["ci_high"] * 100), fmt="-o",
                            ms=4, capsize=2.5, color=S.colour(i),
                            label=labels.get(v, v) if ax is axes[0] else None)
            ax.set_title(f"leading by {lead} VP", fontsize=10, loc="left")
            ax.set_xlabel(f"the leader's visible VP after turn {turn}")
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        axes[0].set_ylabel("the leader's win rate (%)")
        axes[0].set_ylim(0, 100)
        axes[0].legend(loc="upper left", fontsize=8, frameon=True, framealpha=0.9,
                       edgecolor="#dddddd")
        n = t.groupby(level="variant", sort=False)["games"].sum()
        note = ("n = " + ", ".join(f"{labels.get(v, v)}: {S.fmt_n(n[v])}" for v in arms
                                   if v in n.index)
                + " games with one player leading alone; at the same standing a longer game "
                  "alone would not change the leader's chance; bars: 95% Wilson intervals; "
                  f"points on fewer than {min_games} games left out")
        return S.finish(fig, f"At equal standing after turn {turn}: does the leader still win?",
                        note)
