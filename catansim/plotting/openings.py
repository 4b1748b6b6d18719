"""Figures of the opening study: value maps on the board, the best openings, seats, the
win model, what the scripted placement leaves on the table.

Each function takes a frame of ``catansim.analysis.openings`` and returns a Figure; none
computes a statistic (intervals come from the tables).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib import patheffects
from matplotlib.cm import ScalarMappable
from matplotlib.colors import TwoSlopeNorm
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from .. import topology as T
from ..checks import check_players
from ..constants import seat_colours
from ..errors import CatansimError
from . import style as S
from .board import draw_board

CMAP = "RdBu"  # red: worse than the strategy's own choice, blue: better
# the seats' own colours where a line or a dot stands for a seat (white drawn grey)
SEAT_LINE = {"red": "#d62728", "blue": "#1f5fbf", "white": "#8c8c8c", "orange": "#f08a24"}
KIND_WORDS = {"first": "first settlement", "second": "second settlement", "pair": "both"}


def _limit(values) -> float:
    """The half-width of a diverging colour scale: the largest |value| (at least 0.02),
    so the colour bar covers every value drawn and every number written beside one."""
    v = np.abs(np.asarray(values, dtype=float))
    v = v[np.isfinite(v)]
    return float(max(v.max() if v.size else 0.0, 0.02))


def _players(seats, n_players: int | None) -> int:
    """Seats are coloured by the number playing (red sits out with 3): given, or 4 when
    seat 3 is in the rows; rows of seats 0-2 alone could be either, so they need it."""
    if n_players is not None:
        return check_players(n_players, "n_players")
    if int(np.max(seats)) == 3:
        return 4
    raise CatansimError("n_players: these rows have seats up to "
                        f"{int(np.max(seats))}, which 3 or 4 players could have; allowed: "
                        "n_players=3 or n_players=4")


def _seat_label(seat: int, n_players: int) -> str:
    return f"seat {seat} ({seat_colours(n_players)[seat]})"


def seat_colour(seat: int, n_players: int) -> str:
    return SEAT_LINE[seat_colours(n_players)[int(seat)]]


def value_map_figure(arms: pd.DataFrame, board, kind: str = "first", seats=None,
                     title: str | None = None, label_top: int = 5, choice=None,
                     n_players: int | None = None):
    """The value of every node for each seat, drawn on the board (one panel per seat).

    ``arms``: the ``arms`` table of ``analysis.openings.opening_values`` (one board).
    Each node is coloured by its paired difference in the seat's win probability
    against the strategy's own choice (percentage points, a diverging scale centred on
    0 and shared by the panels); large dots are significant after the table's
    correction. The strategy's choice is ringed in black, the best ``label_top`` nodes
    carry their value. Nodes the sweep did not force are left empty. ``choice``: the
    strategy's own node per seat (``{seat: node}``; default: the arms it chose in at
    least half of the baseline games). ``n_players``: the players of the games (seats
    are named by colour; needed unless seat 3 is in ``arms``).
    """
    t = arms[arms["kind"] == kind]
    seats = sorted(t["seat"].unique()) if seats is None else list(seats)
    n_players = _players(arms["seat"], n_players)
    lim = 100 * _limit(t["diff"])
    norm = TwoSlopeNorm(vcenter=0.0, vmin=-lim, vmax=lim)
    ncols = 2 if len(seats) > 1 else 1
    nrows = int(np.ceil(len(seats) / ncols))
    with S.styled():
        # fixed positions: a constrained layout measures every label of every board
        fig = Figure(figsize=(11.0 if ncols == 2 else 6.4, 5.0 * nrows + 0.6))
        axes = fig.subplots(nrows, ncols, squeeze=False)
        fig.subplots_adjust(left=0.01, right=0.87 if ncols == 2 else 0.8, bottom=0.05,
                            top=0.93, wspace=0.03, hspace=0.1)
        for ax in axes.ravel()[len(seats):]:
            ax.set_visible(False)
        for ax, seat in zip(axes.ravel(), seats, strict=False):
            u = t[t["seat"] == seat]
            draw_board(board, ax=ax)
            if ax.get_legend() is not None:
                ax.get_legend().remove()
            ax.grid(False)
            nodes = u["node"].to_numpy()
            val = 100 * u["diff"].to_numpy()
            sig = u["significant"].to_numpy().astype(bool)
            xy = T.NODE_XY[nodes]
            ax.scatter(xy[~sig, 0], xy[~sig, 1], s=70, c=val[~sig], cmap=CMAP, norm=norm,
                       edgecolors="#333333", linewidths=0.6, zorder=10)
            ax.scatter(xy[sig, 0], xy[sig, 1], s=190, c=val[sig], cmap=CMAP, norm=norm,
                       edgecolors="#111111", linewidths=0.9, zorder=10)
            own = ([choice[seat]] if choice is not None and seat in choice
                   else [int(n) for n in u.loc[u["chosen_share"] >= 0.5, "node"]])
            for n in own:
                x, y = T.NODE_XY[n]
                ax.scatter([x], [y], s=420, facecolors="none", edgecolors="black",
                           linewidths=2.4, zorder=11)
            top = u.sort_values("diff", ascending=False).head(label_top)
            for _, r in top.iterrows():
                x, y = T.NODE_XY[int(r["node"])]
                txt = ax.text(x, y - 0.36, f"{100 * r['diff']:+.0f}", ha="center", va="bottom",
                              fontsize=9, fontweight="bold", zorder=12, color="#111111")
                txt.set_path_effects([patheffects.withStroke(linewidth=2.5, foreground="white")])
            base = u["base_win_rate"].iloc[0] if len(u) else np.nan
            pick = own[0] if own else "-"
            ax.set_title(f"{_seat_label(seat, n_players)}: own choice node {pick}, "
                         f"wins {100 * base:.1f}%", fontsize=10.5)
        cax = fig.add_axes((0.89 if ncols == 2 else 0.83, 0.3, 0.018, 0.4))
        fig.colorbar(ScalarMappable(norm=norm, cmap=CMAP), cax=cax,
                     label="win probability vs the strategy's own choice (points)")
        n = int(t["n"].max()) if len(t) else 0
        handles = [Line2D([], [], marker="o", ls="none", ms=13, mfc="white", mec="black",
                          mew=2.2, label="the strategy's own choice"),
                   Line2D([], [], marker="o", ls="none", ms=11, mfc="#cccccc", mec="#111111",
                          label="significant"),
                   Line2D([], [], marker="o", ls="none", ms=6, mfc="#cccccc", mec="#333333",
                          label="not significant")]
        fig.legend(handles=handles, loc="lower center", ncols=3, fontsize=9,
                   bbox_to_anchor=(0.45, 0.0))
        corr = t["correction"].iloc[0] if len(t) else ""
        return S.finish(fig, title or f"Value of each {KIND_WORDS[kind]} on the board",
                        f"n = {S.fmt_n(n)} paired games per node and seat; paired difference "
                        f"of the seat's win rate (arm - own choice, same games); numbers: the "
                        f"best {label_top} in points; significance after {corr}")


def best_openings_figure(arms: pd.DataFrame, kind: str = "first", top: int = 8,
                         title: str | None = None, n_players: int | None = None):
    """The ``top`` openings of each seat with their win rate and 95% Wilson interval,
    beside the seat's win rate with its own choice (dashed)."""
    t = arms[arms["kind"] == kind]
    seats = sorted(t["seat"].unique())
    n_players = _players(arms["seat"], n_players)
    with S.styled():
        fig, ax = S.new_figure(0.9 + 0.26 * top * len(seats))
        y0 = 0
        ticks, labels = [], []
        for seat in seats:
            u = t[t["seat"] == seat].sort_values("diff", ascending=False).head(top)
            y = y0 + np.arange(len(u))
            col = np.where(u["significant"] & (u["diff"] > 0), "#111111",
                           seat_colour(seat, n_players))
            ax.errorbar(u["win_rate"], y, xerr=_err(u["win_rate"], u["win_ci_low"],
                                                     u["win_ci_high"]),
                        fmt="none", ecolor="#555555", capsize=2, lw=1)
            ax.scatter(u["win_rate"], y, c=col, s=22, zorder=3)
            base = float(u["base_win_rate"].iloc[0])
            ax.vlines(base, y0 - 0.5, y0 + len(u) - 0.5, color=seat_colour(seat, n_players),
                      ls="--", lw=1.2)
            for yy, (_, r) in zip(y, u.iterrows(), strict=True):
                node = (f"{int(r['node'])}+{int(r['node_2'])}" if kind == "pair"
                        else str(int(r["node"])))
                own = " (own choice)" if r["chosen_share"] >= 0.5 else ""
                ticks.append(yy)
                labels.append(f"{_seat_label(seat, n_players)}: node {node}{own}")
            y0 += len(u) + 1
        ax.set_yticks(ticks, labels, fontsize=8)
        ax.invert_yaxis()
        ax.set_xlabel("win rate of the seat with this opening")
        n = int(t["n"].max()) if len(t) else 0
        return S.finish(fig, title or f"Best {KIND_WORDS[kind]}s by seat",
                        f"n = {S.fmt_n(n)} games per opening; bars: 95% Wilson intervals; "
                        "dashed: the seat's win rate with the strategy's own choice; black dots: "
                        "significantly better than it (paired, after correction)")


def _err(m, lo, hi) -> np.ndarray:
    m, lo, hi = (np.asarray(a, dtype=float) for a in (m, lo, hi))
    return np.clip(np.vstack([m - lo, hi - m]), 0, None)


def seat_values_figure(arms: pd.DataFrame, kind: str = "first", reference: int = 0,
                       n_players: int | None = None):
    """Each node's value for every other seat against its value for seat ``reference``
    (paired differences in points, with their intervals): how much the value of an
    intersection depends on the seat that takes it."""
    t = arms[arms["kind"] == kind]
    seats = [s for s in sorted(t["seat"].unique()) if s != reference]
    n_players = _players(arms["seat"], n_players)
    ref = t[t["seat"] == reference].set_index("node")
    with S.styled():
        fig, axes = S.new_figure(3.7, ncols=max(len(seats), 1), sharex=True, sharey=True)
        axes = np.atleast_1d(axes)
        lim = 100 * max(_limit(t["ci_high"]), _limit(t["ci_low"])) * 1.05
        for ax, seat in zip(axes, seats, strict=True):
            u = t[t["seat"] == seat].set_index("node").reindex(ref.index)
            x, y = 100 * ref["diff"], 100 * u["diff"]
            ax.errorbar(x, y, xerr=100 * _err(ref["diff"], ref["ci_low"], ref["ci_high"]),
                        yerr=100 * _err(u["diff"], u["ci_low"], u["ci_high"]), fmt="o", ms=3,
                        color=seat_colour(seat, n_players), ecolor="#bbbbbb", elinewidth=0.7)
            ax.plot([-lim, lim], [-lim, lim], color=S.GREY, ls="--", lw=1)
            ax.set_xlabel(f"value for {_seat_label(reference, n_players)} (points)")
            ax.set_title(_seat_label(seat, n_players), fontsize=10)
        axes[0].set_ylabel("value for this seat (points)")
        n = int(t["n"].max()) if len(t) else 0
        return S.finish(fig, f"Does a {KIND_WORDS[kind]}'s value depend on the seat?",
                        f"one dot per node; paired differences against each seat's own choice "
                        f"with 95% intervals; n = {S.fmt_n(n)} games per node and seat; "
                        "dashed: equal value")


def pair_matrix_figure(arms: pd.DataFrame, seat: int, title: str | None = None,
                       n_players: int | None = None):
    """Paired value of every forced pair (first settlement x second) for one seat: a
    matrix over the swept nodes, empty where the Distance Rule forbids the pair."""
    t = arms[(arms["kind"] == "pair") & (arms["seat"] == seat)]
    nodes = sorted(set(t["node"]) | set(t["node_2"]))
    m = np.full((len(nodes), len(nodes)), np.nan)
    for _, r in t.iterrows():
        m[nodes.index(int(r["node"])), nodes.index(int(r["node_2"]))] = 100 * r["diff"]
    n_players = _players(arms["seat"], n_players)
    lim = 100 * _limit(t["diff"])
    with S.styled():
        fig, ax = S.new_figure(1.4 + 0.42 * len(nodes), width=max(5.6, 1.8 + 0.5 * len(nodes)))
        im = ax.imshow(m, cmap=CMAP, norm=TwoSlopeNorm(vcenter=0.0, vmin=-lim, vmax=lim))
        for i in range(len(nodes)):
            for j in range(len(nodes)):
                if np.isfinite(m[i, j]):
                    ax.text(j, i, f"{m[i, j]:+.0f}", ha="center", va="center", fontsize=7,
                            color="white" if abs(m[i, j]) > 0.6 * lim else "#111111")
        ax.set_xticks(range(len(nodes)), [str(n) for n in nodes], fontsize=8)
        ax.set_yticks(range(len(nodes)), [str(n) for n in nodes], fontsize=8)
        ax.set_xlabel("second settlement (pays the starting cards)")
        ax.set_ylabel("first settlement")
        ax.grid(False)
        fig.colorbar(im, ax=ax, shrink=0.8, label="win probability vs own choice (points)")
        n = int(t["n"].max()) if len(t) else 0
        return S.finish(fig, title or f"Pairs of settlements for {_seat_label(seat, n_players)}",
                        f"paired difference of the seat's win rate against the strategy's own "
                        f"two choices (points); n = {S.fmt_n(n)} games per pair; empty: "
                        "forbidden by the Distance Rule")


def coefficients_figure(coef: pd.DataFrame, title: str = "What makes a good opening"):
    """The win model's terms (``analysis.openings.fit_opening_model``): the change in win
    probability per unit of each feature (linear model, points) and the logistic
    coefficient per standard deviation, each with its 95% interval."""
    t = coef.drop(index=[i for i in coef.index if i == "const" or i.startswith("seat_")],
                  errors="ignore")
    labels = [f"{i}" for i in t.index]
    y = np.arange(len(t))
    with S.styled():
        fig, (a1, a2) = S.new_figure(1.2 + 0.3 * len(t), ncols=2, sharey=True)
        a1.errorbar(100 * t["lpm"], y, xerr=100 * _err(t["lpm"], t["lpm_ci_low"],
                                                        t["lpm_ci_high"]),
                    fmt="o", color=S.colour(0), capsize=2)
        a1.axvline(0, color=S.GREY, lw=1)
        a1.set_yticks(y, labels, fontsize=8.5)
        a1.invert_yaxis()
        a1.set_xlabel("win probability per unit (points; linear model)")
        sd = t["per_sd"] / t["coef"].where(t["coef"] != 0)
        a2.errorbar(t["per_sd"], y, xerr=_err(t["per_sd"], t["ci_low"] * sd, t["ci_high"] * sd),
                    fmt="o", color=S.colour(1), capsize=2)
        a2.axvline(0, color=S.GREY, lw=1)
        a2.set_xlabel("log odds per standard deviation (logistic)")
        n = int(coef["n"].iloc[0]) if len(coef) else 0
        k = int(coef["clusters"].iloc[0]) if len(coef) else 0
        return S.finish(fig, title, f"n = {S.fmt_n(n)} seat-games on {k} boards (cluster-robust "
                                    "95% intervals by board); seat terms in the table")


def gain_figure(place: pd.DataFrame, title: str = "What the scripted placement leaves",
                n_players: int | None = None):
    """Per seat, across boards: the win probability a data-driven first settlement gains
    over the strategy's own choice (chosen on half of the games, measured on the other),
    one dot per board, with the mean and its 95% interval (``place``: rows of
    ``analysis.openings.placement`` for many boards, with ``board``, and a summary in
    ``place.attrs['summary']`` if given)."""
    seats = sorted(place["seat"].unique())
    n_players = _players(place["seat"], n_players)
    summary = place.attrs.get("summary")
    with S.styled():
        fig, ax = S.new_figure(3.6)
        rng = np.random.default_rng(0)  # jitter only: where the dots sit, not a statistic
        for i, seat in enumerate(seats):
            u = place[place["seat"] == seat]
            x = i + rng.uniform(-0.18, 0.18, len(u))
            ax.scatter(x, 100 * u["gain"], s=10, color=seat_colour(seat, n_players), alpha=0.6,
                       lw=0)
            if summary is not None and seat in summary.index:
                r = summary.loc[seat]
                ax.errorbar([i + 0.32], [100 * r["mean"]],
                            yerr=100 * _err(r["mean"], r["ci_low"], r["ci_high"]),
                            fmt="D", color="#111111", capsize=4, ms=5)
        ax.axhline(0, color=S.GREY, lw=1)
        ax.set_xticks(range(len(seats)), [_seat_label(s, n_players) for s in seats])
        ax.set_ylabel("gain over the own choice (points)")
        boards = place["board"].nunique() if "board" in place.columns else 1
        return S.finish(fig, title,
                        f"one dot per board ({boards} boards): the node that looks best on one "
                        "half of the games, measured on the other; black: mean over the boards "
                        "with its 95% t interval")


def spread_figure(first: pd.DataFrame, second: pd.DataFrame | None = None,
                  title: str = "How much each pick matters", n_players: int | None = None):
    """Per seat, the paired values of every node free at the seat's turn, sorted: the
    first settlement (and the second, given the strategy's first, when ``second`` has
    its arms). A steep curve is a pick that matters."""
    frames = [("first", first)] + ([("second", second)] if second is not None else [])
    n_players = _players(first["seat"], n_players)
    seats = sorted(first["seat"].unique())
    with S.styled():
        fig, axes = S.new_figure(3.6, ncols=len(frames), sharey=True)
        axes = np.atleast_1d(axes)
        for ax, (kind, t) in zip(axes, frames, strict=True):
            t = t[(t["kind"] == kind) & (t["legal_share"] >= 0.5)]
            for seat in seats:
                u = t[t["seat"] == seat].sort_values("diff", ascending=False)
                x = np.arange(1, len(u) + 1)
                c = seat_colour(seat, n_players)
                ax.fill_between(x, 100 * u["ci_low"], 100 * u["ci_high"], color=c, alpha=0.15,
                                lw=0)
                ax.plot(x, 100 * u["diff"], color=c, lw=1.5, label=_seat_label(seat, n_players))
            ax.axhline(0, color=S.GREY, lw=1)
            ax.set_xlabel("nodes free at the seat's turn, best first")
            ax.set_title(KIND_WORDS[kind], fontsize=10)
        axes[0].set_ylabel("win probability vs own choice (points)")
        axes[0].legend(fontsize=8)
        ns = ", ".join(f"{S.fmt_n(int(t['n'].max()))} ({KIND_WORDS[kind]})"
                       for kind, t in frames)
        return S.finish(fig, title, f"paired differences with 95% intervals (bands); n = "
                                    f"{ns} games per node and seat")


__all__ = ["best_openings_figure", "coefficients_figure", "gain_figure", "pair_matrix_figure",
           "seat_values_figure", "spread_figure", "value_map_figure"]
