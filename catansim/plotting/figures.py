"""One figure per analysis: each takes the frame an analysis returned and gives a Figure.

The frames are those of ``catansim.analysis`` (see ``docs/analysis.md``); nothing
here computes a statistic, it only draws what the tables hold (intervals included).
Every figure has a title, axis units and n.
"""

from __future__ import annotations

import matplotlib as mpl
import numpy as np
import pandas as pd
from matplotlib.cm import ScalarMappable
from matplotlib.patches import Rectangle, RegularPolygon

from .. import topology as T
from . import style as S
from .board import (
    draw_board,
    node_value_dots,
    significance_handles,
    value_colour,
    value_norm,
)


def _err(m, lo, hi) -> np.ndarray:
    """Error-bar lengths (2, n) from a value and its interval; rounding never makes them
    negative."""
    m, lo, hi = (np.asarray(a, dtype=float) for a in (m, lo, hi))
    return np.clip(np.vstack([m - lo, hi - m]), 0, None)


def _variants(frame: pd.DataFrame) -> list[str]:
    return list(dict.fromkeys(frame.index.get_level_values("variant")))


def win_rates_figure(table: pd.DataFrame, by: str = "seat", fair: float | None = None):
    """Win rate per seat (or strategy) with its interval, one colour per variant.

    ``table``: ``analysis.win_rates`` (index variant, ``by``; ``win_rate``, ``ci_low``,
    ``ci_high``, ``seat_games``). ``fair``: a reference line (1 / players).
    """
    variants = _variants(table)
    groups = list(dict.fromkeys(table.index.get_level_values(by)))
    with S.styled():
        fig, ax = S.new_figure(3.6)
        width = 0.8 / len(variants)
        for i, v in enumerate(variants):
            t = table.xs(v, level="variant").reindex(groups)
            x = np.arange(len(groups)) + (i - (len(variants) - 1) / 2) * width
            ax.bar(x, t["win_rate"], width * 0.9, color=S.colour(i), alpha=0.85, label=v)
            ax.errorbar(x, t["win_rate"], yerr=_err(t["win_rate"], t["ci_low"], t["ci_high"]),
                        fmt="none", ecolor="#222222", capsize=3, lw=1)
        if fair is not None:
            ax.axhline(fair, color=S.GREY, ls="--", lw=1)
            ax.text(len(groups) - 0.5, fair, f" fair share {fair:.3f}", va="bottom", ha="right",
                    fontsize=8, color=S.GREY)
        ax.set_xticks(np.arange(len(groups)), [str(g) for g in groups])
        ax.set_xlabel(by)
        ax.set_ylabel("win rate")
        top = float(np.nanmax(table["ci_high"])) if len(table) else 1
        ax.set_ylim(0, min(1.0, top * 1.25 + 0.02))
        if len(variants) > 1:
            ax.legend(ncols=len(variants), loc="upper right")
        if by == "seat":
            n = table["seat_games"].groupby(level="variant", sort=False).max()
            unit = "games per seat"
        else:
            n = table["seat_games"].groupby(level="variant", sort=False).sum()
            unit = "seat-games"
        note = ("n = " + ", ".join(f"{v}: {S.fmt_n(n[v])} {unit}" for v in variants)
                + "; bars: 95% Wilson intervals")
        return S.finish(fig, f"Win rate by {by}", note)


def length_histogram(dist: pd.DataFrame, measure: str = "rolls", human: tuple | None = None):
    """Distribution of game length (``analysis.length_distribution``), one line per variant.

    ``human``: (mean, sd, label) of a published human figure, drawn as a band.
    """
    variants = _variants(dist)
    with S.styled():
        fig, ax = S.new_figure(3.6)
        for i, v in enumerate(variants):
            t = dist.xs(v, level="variant")
            # every length in the range, 0 where no game had it: a step between two lengths
            # present would otherwise claim the ones between
            share = t["share"].reindex(range(int(t.index.min()), int(t.index.max()) + 1),
                                       fill_value=0.0)
            ax.step(share.index.to_numpy(), share.to_numpy() * 100, where="mid",
                    color=S.colour(i), lw=1.6, label=f"{v} (n = {S.fmt_n(t['games'].sum())})")
        if human is not None:
            mean, sd, label = human
            ax.axvspan(mean - sd, mean + sd, color="#bbbbbb", alpha=0.35, lw=0,
                       label=f"{label}: {mean:g} ± {sd:g}")
            ax.axvline(mean, color=S.GREY, lw=1)
        ax.set_xlabel(f"{measure} per game")
        ax.set_ylabel("share of games (%)")
        ax.set_ylim(bottom=0)
        ax.legend(loc="best")
        return S.finish(fig, f"Game length: {measure} per game",
                        "one step per value; grey band: human play, context only "
                        "(other players, other table habits)" if human else None)


def vp_sources_figure(vp: pd.DataFrame, strategy: str = "all"):
    """Mean VP by source, all seats and winners, per variant (``analysis.vp_sources``)."""
    t = vp.xs(strategy, level="strategy")
    VP_SOURCES = [c for c in t.columns if c.startswith("vp_")]
    labels = [f"{v}\n{w}" for v, w in t.index]
    with S.styled():
        fig, ax = S.new_figure(0.9 + 0.45 * len(t))
        left = np.zeros(len(t))
        for i, src in enumerate(VP_SOURCES):
            vals = t[src].to_numpy()
            ax.barh(np.arange(len(t)), vals, left=left, color=S.colour(i), label=src[3:])
            for y, (lv, v) in enumerate(zip(left, vals, strict=True)):
                if v >= 0.6:
                    ax.text(lv + v / 2, y, f"{v:.1f}", ha="center", va="center", fontsize=8,
                            color="white")
            left += vals
        ax.set_yticks(np.arange(len(t)), labels)
        ax.invert_yaxis()
        ax.set_xlabel("mean VP per seat at the end")
        ax.legend(ncols=5, loc="lower center", bbox_to_anchor=(0.5, 1.0))
        note = "n = " + ", ".join(f"{v} {w}: {S.fmt_n(n)}" for (v, w), n in t["n"].items())
        return S.finish(fig, "Where the VP come from", note)


def means_figure(table: pd.DataFrame, measures, title: str, xlabel: str):
    """Means with their intervals for some measures of a (variant, measure) table
    (``analysis.per_game_counts``), one colour per variant."""
    variants = _variants(table)
    measures = [m for m in measures if m in set(table.index.get_level_values("measure"))]
    with S.styled():
        fig, ax = S.new_figure(1.1 + 0.25 * len(measures) * max(1, len(variants)) ** 0.6)
        h = 0.8 / len(variants)
        for i, v in enumerate(variants):
            t = table.xs(v, level="variant").reindex(measures)
            y = np.arange(len(measures)) + (i - (len(variants) - 1) / 2) * h
            ax.barh(y, t["mean"], h * 0.9, color=S.colour(i), alpha=0.85, label=v)
            ax.errorbar(t["mean"], y, xerr=_err(t["mean"], t["ci_low"], t["ci_high"]),
                        fmt="none", ecolor="#222222", capsize=2, lw=1)
        ax.set_yticks(np.arange(len(measures)), measures)
        ax.invert_yaxis()
        ax.set_xlabel(xlabel)
        if len(variants) > 1:
            ax.legend(loc="lower right")
        n = table["n"].groupby(level="variant", sort=False).first()
        note = ("n = " + ", ".join(f"{v}: {S.fmt_n(n[v])} games" for v in variants)
                + "; bars: 95% t intervals of the mean")
        return S.finish(fig, title, note)


def rates_figure(table: pd.DataFrame, title: str, rate: str = "rate"):
    """Rates with Wilson intervals of a (variant, item) table (``analysis.event_rates``)."""
    variants = _variants(table)
    items = list(dict.fromkeys(table.index.get_level_values(1)))
    labels = table.reset_index().drop_duplicates(table.index.names[1]).set_index(
        table.index.names[1])["label"].reindex(items) if "label" in table else items
    with S.styled():
        fig, ax = S.new_figure(1.0 + 0.34 * len(items) * max(1, len(variants)) ** 0.6)
        h = 0.8 / len(variants)
        for i, v in enumerate(variants):
            t = table.xs(v, level="variant").reindex(items)
            y = np.arange(len(items)) + (i - (len(variants) - 1) / 2) * h
            ax.barh(y, t[rate] * 100, h * 0.9, color=S.colour(i), alpha=0.85, label=v)
            ax.errorbar(t[rate] * 100, y, xerr=_err(t[rate] * 100, t["ci_low"] * 100,
                                                      t["ci_high"] * 100),
                        fmt="none", ecolor="#222222", capsize=2, lw=1)
        ax.set_yticks(np.arange(len(items)), list(labels))
        ax.invert_yaxis()
        ax.set_xlabel("share (%)")
        ax.set_xlim(0, 100)
        if len(variants) > 1:
            ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0))
        return S.finish(fig, title, "bars: 95% Wilson intervals; n per row in the table")


def forest_plot(paired: pd.DataFrame):
    """Paired differences against the baseline (``analysis.paired_differences``).

    Each measure's difference is shown relative to the baseline mean (%), with the
    paired interval (thick) over the unpaired one (thin); rates in percentage points.
    Significant rows (after the table's correction) in red.
    """
    t = paired.reset_index()
    rel = t["base_mean"].abs().where(~t["binary"] & (t["base_mean"].abs() > 0))
    scale = np.where(t["binary"], 100.0, 100.0 / rel)
    x = t["diff"] * scale
    lo, hi = t["ci_low"] * scale, t["ci_high"] * scale
    ulo, uhi = t["unpaired_ci_low"] * scale, t["unpaired_ci_high"] * scale
    labels = [f"{v}: {m}" for v, m in zip(t["variant"], t["measure"], strict=True)]
    # rows without spread in either arm (e.g. no game without a winner) say nothing here
    ok = np.isfinite(x) & np.isfinite(ulo)
    with S.styled():
        fig, ax = S.new_figure(1.2 + 0.24 * ok.sum())
        y = np.arange(ok.sum())
        col = np.where(t["significant"][ok], S.SIGNIFICANT, "#333333")
        ax.hlines(y, ulo[ok], uhi[ok], color="#bbbbbb", lw=5, label="unpaired 95% CI")
        ax.hlines(y, lo[ok], hi[ok], color=col, lw=2.2, label="paired 95% CI")
        ax.scatter(x[ok], y, color=col, s=16, zorder=3)
        ax.axvline(0, color=S.GREY, lw=1)
        ax.set_yticks(y, np.asarray(labels)[ok], fontsize=8)
        ax.invert_yaxis()
        big = np.nanmax(np.abs(np.r_[ulo[ok], uhi[ok]])) if ok.any() else 0
        typical = np.nanmedian(np.abs(np.r_[ulo[ok], uhi[ok]])) if ok.any() else 0
        if typical > 0 and big / typical > 15:  # a few huge effects: keep the small ones legible
            ax.set_xscale("symlog", linthresh=max(typical, 0.5))
            ax.xaxis.set_major_formatter(lambda v, _: f"{v:g}")
        ax.set_xlabel("variant - baseline: % of the baseline mean (rates: percentage points)"
                      + ("; symmetric log scale" if ax.get_xscale() == "symlog" else ""))
        ax.legend(loc="lower right", fontsize=8)
        corr = t["correction"].iloc[0] if len(t) else ""
        note = (f"n = {S.fmt_n(t['n'].max())} paired games per variant; red: significant at "
                f"0.05 after {corr}")
        return S.finish(fig, "Variants against the baseline, game by game", note)


# Columns beyond which a cross-play cell writes its win rate only (its interval stays in
# the table): thirteen players' intervals in a page-wide figure are too small to read.
COMPACT_COLUMNS = 7


def _ordered(names, order) -> list[str]:
    """``names`` in ``order`` (any not in it after, alphabetically); alphabetical without."""
    names = set(names)
    first = [n for n in order if n in names] if order is not None else []
    return first + sorted(names - set(first))


def crossplay_heatmap(table: pd.DataFrame, fair: float, order=None):
    """Win rate of the row strategy against copies of the column strategy, with its
    interval in every cell (``analysis.crossplay_table``); cells that beat or lose to
    the fair share significantly (after correction) are outlined.

    ``order``: the players in the order of the rows and columns (a ladder's, strongest
    first); default alphabetical. The colours run from 0 to 1 with white at the fair
    share. Past ``COMPACT_COLUMNS`` columns a cell holds its win rate only."""
    rows = _ordered(table.index.get_level_values("strategy"), order)
    cols = _ordered(table.index.get_level_values("opponent"), order)
    m = np.full((len(rows), len(cols)), np.nan)
    compact = len(cols) > COMPACT_COLUMNS
    widest = max(map(len, cols))
    long = widest > 10  # long names lean, so that they do not overlap
    with S.styled():
        if compact:  # fits the page's width, so the numbers are not shrunk
            fig, ax = S.new_figure(1.4 + 0.42 * len(rows) + 0.06 * widest, width=9.2)
        else:
            fig, ax = S.new_figure(1.2 + 0.75 * len(rows) + (0.06 * widest if long else 0),
                                   width=max(S.WIDTH, 1.5 + 1.3 * len(cols)))
        lim = max(abs(np.nanmax(table["win_rate"]) - fair), abs(np.nanmin(table["win_rate"])
                                                                 - fair), 0.05)
        norm = mpl.colors.TwoSlopeNorm(fair, max(0.0, fair - lim), min(1.0, fair + lim))
        for (a, b), r in table.iterrows():
            m[rows.index(a), cols.index(b)] = r["win_rate"]
        im = ax.imshow(m, cmap="RdBu", norm=norm, aspect="auto")
        for (a, b), r in table.iterrows():
            i, j = rows.index(a), cols.index(b)
            verdict = r.get("verdict", "")
            sig = verdict in ("beats", "loses to")
            dark = abs(float(norm(r["win_rate"])) - 0.5) > 0.3
            text = (f"{r['win_rate']:.2f}" if compact else
                    f"{r['win_rate']:.3f}\n[{r['ci_low']:.3f}, {r['ci_high']:.3f}]"
                    + (f"\n{verdict}" if sig else ""))
            ax.text(j, i, text, ha="center", va="center", fontsize=9 if compact else 8,
                    color="white" if dark else "#111111",
                    fontweight="bold" if sig else "normal")
            if sig:
                ax.add_patch(Rectangle((j - 0.47, i - 0.47), 0.94, 0.94, fill=False, lw=2.2,
                                       ec="#111111"))
        lean = 45 if compact else 30 if long else 0
        ax.set_xticks(range(len(cols)), cols, rotation=lean, ha="right" if lean else "center",
                      rotation_mode="anchor" if lean else "default")
        ax.set_yticks(range(len(rows)), rows)
        ax.set_xlabel("opponent (the other seats)")
        ax.set_ylabel("strategy (one seat)")
        ax.grid(False)
        fig.colorbar(im, ax=ax, label="win rate", shrink=0.8)
        n = int(table["games"].min()) if len(table) else 0
        cell = ("win rate (its 95% Wilson interval in the table)" if compact else
                "[95% Wilson interval]")
        return S.finish(fig, "Cross-play: one strategy against copies of another",
                        f"n >= {S.fmt_n(n)} games per cell; {cell}; outlined and "
                        f"{'bold' if compact else 'labelled'}: significantly above (beats) "
                        f"or below (loses to) the fair share {fair:.3f} after Holm "
                        "correction over the matrix")


def rating_figure(rating: pd.DataFrame):
    """Strategy strengths with their intervals (``analysis.strategy_rating``)."""
    variants = _variants(rating)
    with S.styled():
        t = rating.xs("strategy", level="kind")
        names = list(dict.fromkeys(t.index.get_level_values("name")))
        fig, ax = S.new_figure(1.0 + 0.35 * len(names) * len(variants) ** 0.5)
        h = 0.8 / len(variants)
        for i, v in enumerate(variants):
            r = t.xs(v, level="variant").reindex(names)
            y = np.arange(len(names)) + (i - (len(variants) - 1) / 2) * h
            ax.errorbar(r["log_strength"], y,
                        xerr=_err(r["log_strength"], r["ci_low"], r["ci_high"]), fmt="o",
                        color=S.colour(i), capsize=3, label=v)
        ax.axvline(0, color=S.GREY, lw=1)
        ax.set_yticks(np.arange(len(names)), names)
        ax.invert_yaxis()
        ref = t["reference"].iloc[0]
        ax.set_xlabel(f"log strength relative to {ref} (log odds of winning, same seat)")
        if len(variants) > 1:
            ax.legend(loc="lower right")
        return S.finish(fig, "Strategy rating (Plackett-Luce, top-1)",
                        "95% Wald intervals; seats fitted as effects")


def start_pips_figure(table: pd.DataFrame, fair: float | None = None, min_n: int = 30):
    """Win rate by the starting settlements' pips (``analysis.win_by_start_pips``)."""
    variants = _variants(table)
    with S.styled():
        fig, ax = S.new_figure(3.6)
        for i, v in enumerate(variants):
            t = table.xs(v, level="variant")
            t = t[t["seat_games"] >= min_n]
            x = t.index.to_numpy()
            ax.fill_between(x, t["ci_low"], t["ci_high"], color=S.colour(i), alpha=0.2, lw=0)
            ax.plot(x, t["win_rate"], color=S.colour(i), lw=1.6, marker="o", ms=3, label=v)
        if fair is not None:
            ax.axhline(fair, color=S.GREY, ls="--", lw=1)
        ax.set_xlabel("pips of the two starting settlements")
        ax.set_ylabel("win rate")
        if len(variants) > 1:
            ax.legend()
        n = table["seat_games"].groupby(level="variant", sort=False).sum()
        return S.finish(fig, "Do starting pips predict winning?",
                        "n = " + ", ".join(f"{v}: {S.fmt_n(n[v])} seat-games" for v in variants)
                        + f"; bands: 95% Wilson intervals; values with fewer than {min_n} "
                        "seat-games not drawn")


def reliability_figure(rel: pd.DataFrame):
    """Held-out calibration of the win model (``analysis.win_model()['reliability']``)."""
    return calibration_figure({"deciles (held out)": rel}, "Win model: calibration",
                              f"n = {S.fmt_n(rel['n'].sum())} held-out seat-games; 95% "
                              "Wilson")


def calibration_figure(rels: dict, title: str, note: str, width: float = 4.6):
    """Predicted probabilities against the rates observed: one set of points per model
    (``label -> analysis.stats.reliability_table``), each bin with its interval, beside
    the diagonal of perfect calibration."""
    with S.styled():
        fig, ax = S.new_figure(3.8, width=width)
        frames = list(rels.values())
        top = max(float(max(r["ci_high"].max(), r["mean_predicted"].max())) for r in frames)
        low = min(float(min(r["ci_low"].min(), r["mean_predicted"].min())) for r in frames)
        top *= 1.05
        ax.plot([0, 1], [0, 1], color=S.GREY, ls="--", lw=1, label="perfect calibration")
        for i, (label, rel) in enumerate(rels.items()):
            ax.errorbar(rel["mean_predicted"], rel["observed"],
                        yerr=_err(rel["observed"], rel["ci_low"], rel["ci_high"]),
                        fmt="os^D"[i % 4], color=S.colour(i), capsize=3, label=label)
        lo = low - 0.05 * (top - low)  # a margin: a bin at 0 is drawn whole
        ax.set_xlim(lo, top)
        ax.set_ylim(lo, top)
        ax.set_xlabel("predicted win probability")
        ax.set_ylabel("observed win rate")
        ax.legend(loc="upper left")
        return S.finish(fig, title, note)


def board_heat_map(node_values=None, hex_values=None, board=None, title: str = "",
                   label: str = "", note: str | None = None, node_significant=None):
    """A value per intersection (54) or per hex (19) on the board.

    With a ``board`` (a fixed board) its terrains and numbers are drawn
    (``plotting.board.draw_board``); without one only the geometry, since the nodes
    then stand for positions on boards that change from game to game. With
    ``node_significant`` (54 booleans) the node values not significant are smaller dots,
    and a legend says so.
    """
    with S.styled():
        fig, ax = S.new_figure(5.6 if board is None else 6.2, width=6.4)
        if board is not None:
            draw_board(board, ax=ax, node_values=node_values, hex_values=hex_values,
                       value_label=label, node_significant=node_significant)
            if node_values is not None or hex_values is not None:
                ax.get_legend().remove()
        else:
            cm = mpl.colormaps["viridis"]
            hv = None if hex_values is None else np.asarray(hex_values, float)
            hn = None if hv is None else value_norm(hv)
            for h, (x, y) in enumerate(T.HEX_XY):
                face = value_colour(cm, hn, np.nan if hv is None else hv[h])
                ax.add_patch(RegularPolygon((x, y), 6, radius=0.98, facecolor=face,
                                            edgecolor="#9a9080", lw=1.2))
            if node_values is not None:
                nv = np.asarray(node_values, float)
                nn = value_norm(nv)
                node_value_dots(ax, nv, nn, cm, size=120, blank_size=40, edge="#1a1a1a",
                                linewidth=0.7, zorder=3, significant=node_significant)
                if nn is not None:  # else every node is blank, as the note says
                    fig.colorbar(ScalarMappable(norm=nn, cmap=cm), ax=ax, shrink=0.7,
                                 label=label)
            elif hn is not None:
                fig.colorbar(ScalarMappable(norm=hn, cmap=cm), ax=ax, shrink=0.7, label=label)
            ax.set_xlim(-3.2 * np.sqrt(3), 3.2 * np.sqrt(3))
            ax.set_ylim(5.2, -5.2)
            ax.set_aspect("equal")
            ax.axis("off")
            ax.grid(False)
        if node_significant is not None and node_values is not None:
            ax.legend(handles=significance_handles(150 if board is not None else 120),
                      loc="lower center", bbox_to_anchor=(0.5, -0.06), ncols=2, fontsize=9,
                      frameon=False)
        return S.finish(fig, title, note)
