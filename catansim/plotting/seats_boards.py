"""Figures of the seat-order and board-balance analyses (``analysis.seat_order``,
``analysis.board_balance``). Each takes the frames those analyses return and returns a
Figure; nothing here computes a statistic."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..constants import N_EDGES, N_NODES, seat_colours
from . import style as S
from .board import SEAT_COLOURS, draw_board
from .figures import _err


def preset_seats_figure(tables: dict[int, pd.DataFrame]):
    """Seat win rates of every preset playing the whole table, one panel per player count.

    ``tables``: players -> ``analysis.seat_win_rates`` table (index variant, seat), the
    variants named after the preset (``baseline`` = default).
    """
    counts = sorted(tables)
    with S.styled():
        fig, axes = S.new_figure(0.9 + 0.42 * max(len(_variants(t)) for t in tables.values()),
                                 ncols=len(counts), sharey=True)
        axes = np.atleast_1d(axes)
        for ax, n in zip(axes, counts, strict=True):
            t = tables[n]
            variants = _variants(t)
            for s in range(n):
                for i, v in enumerate(variants):
                    r = t.loc[(v, s)]
                    y = i + (s - (n - 1) / 2) * 0.17
                    ax.errorbar(r["win_rate"], y, xerr=_err(r["win_rate"], r["ci_low"],
                                                            r["ci_high"]).reshape(2, 1),
                                fmt="o", ms=4, color=S.colour(s), capsize=2, lw=1,
                                label=f"seat {s}" if i == 0 else None)
            ax.axvline(1 / n, color=S.GREY, ls="--", lw=1)
            ax.set_yticks(range(len(variants)), [_preset(v) for v in variants])
            ax.set_title(f"{n} players (fair share {1 / n:.3f})", fontsize=10)
            ax.set_xlabel("win rate")
            ax.legend(loc="lower right", fontsize=8)
        axes[0].invert_yaxis()
        n_games = min(int(t["seat_games"].max()) for t in tables.values())
        return S.finish(fig, "Win rate by seat when one preset plays every seat",
                        f"n = {S.fmt_n(n_games)} games per preset and player count, on the "
                        "same boards and dice; bars: 95% Wilson intervals")


def _variants(t: pd.DataFrame) -> list[str]:
    return list(dict.fromkeys(t.index.get_level_values("variant")))


def _preset(v: str) -> str:
    return "default" if v == "baseline" else v


def rotation_figure(results: dict[int, dict]):
    """Seat win rates at a mixed table pooled over its rotations (``rotation_seats``), one
    panel per player count, with each strategy's rate in each seat as small markers."""
    counts = sorted(results)
    with S.styled():
        fig, axes = S.new_figure(3.4, ncols=len(counts))
        axes = np.atleast_1d(axes)
        for ax, n in zip(axes, counts, strict=True):
            seats = results[n]["seats"]
            cells = results[n]["cells"]
            x = np.arange(n)
            ax.bar(x, seats["win_rate"], 0.6, color=S.colour(0), alpha=0.8,
                   label="pooled over the rotations")
            ax.errorbar(x, seats["win_rate"], yerr=_err(seats["win_rate"], seats["ci_low"],
                                                        seats["ci_high"]),
                        fmt="none", ecolor="#222222", capsize=3, lw=1)
            strategies = list(dict.fromkeys(cells.index.get_level_values("strategy")))
            for k, name in enumerate(strategies):
                c = cells.xs(name, level="strategy")
                ax.scatter(c.index + (k - (len(strategies) - 1) / 2) * 0.12, c["win_rate"],
                           s=16, color=S.colour(k + 1), zorder=3, label=name)
            ax.axhline(1 / n, color=S.GREY, ls="--", lw=1)
            ax.set_xticks(x, [f"seat {s}" for s in x])
            ax.set_ylabel("win rate")
            ax.set_ylim(0, float(cells["win_rate"].max()) * 1.3)
            ax.set_title(f"{n} players: " + ", ".join(strategies), fontsize=9)
            ax.legend(fontsize=7, loc="upper right", ncols=2)
        deals = ", ".join(f"{n}p {S.fmt_n(results[n]['seats']['deals'].iloc[0])}"
                          for n in counts)
        return S.finish(fig, "A mixed table: every strategy in every seat on the same deals",
                        f"n = {deals} deals, each played in every rotation; bars: t intervals "
                        "over deals; dots: one strategy in one seat")


def order_figure(effects: dict[int, pd.DataFrame]):
    """The set-up pick position, the turn position and (where measured, ``factor_effects``)
    the seat index apart, one line per player count."""
    factors = [f for f in ("pick", "turn", "seat")
               if all(f in t.index.get_level_values("factor") for t in effects.values())]
    with S.styled():
        fig, axes = S.new_figure(3.4, ncols=len(factors), sharey=True)
        for ax, factor in zip(axes, factors, strict=True):
            for i, n in enumerate(sorted(effects)):
                t = effects[n].xs(factor, level="factor")
                x = t.index.to_numpy() + (i - 0.5) * 0.12
                ax.errorbar(x, t["effect"] * 100, yerr=_err(t["effect"] * 100, t["ci_low"] * 100,
                                                            t["ci_high"] * 100),
                            fmt="o-", ms=4, capsize=3, color=S.colour(i), label=f"{n} players")
            ax.axhline(0, color=S.GREY, lw=1)
            ax.set_xticks(range(max(effects)))
            ax.set_xlabel(_ORDER_LABELS[factor], fontsize=8)
            ax.set_title(_ORDER_TITLES[factor], fontsize=10)
            ax.legend(fontsize=8)
        axes[0].set_ylabel("win rate minus the mean cell (points)")
        n = ", ".join(f"{k}p: {S.fmt_n(effects[k]['n'].iloc[0])}" for k in sorted(effects))
        every = ("every seat in every pick and turn position" if "seat" in factors
                 else "every seat taking turn 1")
        return S.finish(fig, "First pick, first move or seat index? Each apart",
                        f"n = {n} deals, each played with {every}; bars: 95% t intervals "
                        "over deals")


_ORDER_LABELS = {"pick": "set-up pick position\n(0 places first and last)",
                 "turn": "turn position (0 takes turn 1)",
                 "seat": "seat index"}
_ORDER_TITLES = {"pick": "the set-up order", "turn": "the turn order",
                 "seat": "the seat index"}


def spread_figure(dist: pd.DataFrame, title: str | None = None):
    """A seat's per-board win rate over the boards against chance alone
    (``seat_rate_distribution``)."""
    seat = int(dist["seat"].iloc[0])
    games = int(dist["games_per_board"].iloc[0])
    with S.styled():
        fig, ax = S.new_figure(3.4)
        x = dist["win_rate"].to_numpy()
        width = 1.0 / games
        ax.bar(x, dist["boards"], width * 0.95, color=S.colour(0), alpha=0.8,
               label="observed boards")
        ax.plot(x, dist["expected_if_equal"], color=S.colour(1), lw=2,
                label="if every board were the same (chance alone)")
        ax.set_xlabel(f"seat {seat}'s win rate on the board ({games} games each)")
        ax.set_ylabel("boards")
        ax.set_xlim(-0.01, min(1.0, x[dist["boards"].to_numpy() > 0].max() + 0.05))
        ax.legend()
        return S.finish(fig, title or f"Seat {seat}'s win rate differs from board to board",
                        f"n = {S.fmt_n(dist['boards'].sum())} boards x {games} games; the "
                        "line: binomial with the mean rate")


def precise_boards_figure(table: pd.DataFrame, n_boards: int = 100):
    """Each board's seat win rates with their intervals (a ``per_board`` table with many
    games per board), boards sorted by their spread."""
    t = table.sort_values("rms").head(n_boards)
    n = int(t["n_players"].iloc[0])
    with S.styled():
        fig, ax = S.new_figure(3.8)
        x = np.arange(len(t))
        for s in range(n):
            ax.errorbar(x + (s - (n - 1) / 2) * 0.15, t[f"win_rate_{s}"],
                        yerr=_err(t[f"win_rate_{s}"], t[f"ci_low_{s}"], t[f"ci_high_{s}"]),
                        fmt="o", ms=2.5, lw=0.7, color=S.colour(s), label=f"seat {s}")
        ax.axhline(1 / n, color=S.GREY, ls="--", lw=1)
        ax.set_xlabel("board (sorted from the fairest to the least fair)")
        ax.set_ylabel("win rate on the board")
        ax.legend(ncols=n, fontsize=8, loc="upper left")
        fair = int((~t["unfair"]).sum())
        return S.finish(fig, "Every board has its own seat order",
                        f"n = {len(t)} boards x {S.fmt_n(t['games'].iloc[0])} games; bars: 95% "
                        f"Wilson intervals; {fair} of {len(t)} boards not shown unfair "
                        "(chi-square, Benjamini-Hochberg)")


def luck_figure(budgets: dict[str, pd.DataFrame]):
    """The luck budget: share of a seat's result by component, one colour per table or
    measure (``luck_budget``)."""
    names = list(budgets)
    comps = list(next(iter(budgets.values())).index)
    with S.styled():
        fig, ax = S.new_figure(1.2 + 0.42 * len(comps) * len(names) ** 0.5)
        h = 0.8 / len(names)
        for i, name in enumerate(names):
            t = budgets[name].reindex(comps)
            y = np.arange(len(comps)) + (i - (len(names) - 1) / 2) * h
            ax.barh(y, t["share"] * 100, h * 0.9, color=S.colour(i), alpha=0.85, label=name)
            ax.errorbar(t["share"] * 100, y, xerr=_err(t["share"] * 100, t["share_ci_low"] * 100,
                                                       t["share_ci_high"] * 100),
                        fmt="none", ecolor="#222222", capsize=2, lw=1)
            # the label right of the interval, so the error bar never crosses it
            ends = np.fmax(t["share"], t["share_ci_high"].fillna(t["share"]))
            for yy, v, e in zip(y, t["share"], ends, strict=True):
                ax.text(e * 100 + 1.2, yy, f"{v * 100:.1f}%", va="center", fontsize=7)
        ax.set_yticks(np.arange(len(comps)), comps)
        ax.invert_yaxis()
        ax.set_xlabel("share of the variance of one seat's result (%)")
        ax.set_xlim(0, 105)
        ax.legend(loc="upper right", fontsize=8)  # the top rows (seat, strategy) are short
        t0 = next(iter(budgets.values()))
        return S.finish(fig, "The luck budget: what decides a seat's result",
                        f"n = {S.fmt_n(t0['boards'].iloc[0])} boards x "
                        f"{S.fmt_n(t0['seeds'].iloc[0])} game seeds, every seat cell; a game "
                        "seed sets the dice, the deck, the steals and the decisions; board x "
                        "game seed includes each game's own noise; bars: 95% intervals "
                        "(jackknife over boards plus seeds)")


def predictability_figure(fits: dict[str, pd.DataFrame]):
    """Cross-validated R² beside the reliability that bounds it, per target and feature set
    (``board_regression``'s ``fit`` tables; the index's ``seat_model_check`` summary)."""
    rows = []
    for name, f in fits.items():
        for target, r in f.iterrows():
            rows.append((name, str(target), r))
    with S.styled():
        fig, ax = S.new_figure(1.2 + 0.42 * len(rows))
        y = np.arange(len(rows))
        for i, (_, _, r) in enumerate(rows):
            ax.barh(i, r["reliability"] * 100, 0.7, color="#dddddd",
                    label="reliability (the most any model can explain)" if i == 0 else None)
            ax.barh(i, max(r["r2_cv"], 0) * 100, 0.45, color=S.colour(0),
                    label="cross-validated R²" if i == 0 else None)
            ax.errorbar(r["r2_cv"] * 100, i, xerr=_err(r["r2_cv"] * 100, r["r2_cv_ci_low"] * 100,
                                                       r["r2_cv_ci_high"] * 100).reshape(2, 1),
                        fmt="none", ecolor="#222222", capsize=2, lw=1)
            end = max(r["r2_cv"], r["r2_cv_ci_high"] if np.isfinite(r["r2_cv_ci_high"]) else 0, 0)
            ax.text(end * 100 + 1, i, f"{r['r2_cv'] * 100:.1f}%", va="center", fontsize=8)
        ax.set_yticks(y, [f"{name}: {_TARGET_SHORT.get(t, t)}" for name, t, _ in rows],
                      fontsize=8)
        ax.invert_yaxis()
        ax.set_xlim(0, 100)
        ax.set_xlabel("share of the board-to-board variance (%), on boards not used to fit")
        # above the bars: every row's grey bar reaches far to the right
        ax.legend(loc="lower left", bbox_to_anchor=(0, 1.0), ncol=2, fontsize=8,
                  frameon=False, borderaxespad=0.2)
        n = max(int(r["boards"]) for _, _, r in rows)
        return S.finish(fig, "Does a balance score predict a fair board?",
                        f"n = {S.fmt_n(n)} boards; 5-fold cross-validation by board (index: "
                        "held-out boards); bars: bootstrap intervals over boards")


_TARGET_SHORT = {"seat0_advantage": "seat 0's advantage", "rms2": "seat spread",
                 "turns_mean": "game length", "seat_rates": "each seat's win rate"}


def coefficients_figure(coefs: pd.DataFrame, target: str, top: int = 16):
    """Standardised coefficients of one target of ``board_regression``, largest first."""
    t = coefs.xs(target, level="target")
    t = t.reindex(t["coef"].abs().sort_values(ascending=False).index).head(top)
    scale = 100 if target != "turns_mean" else 1
    unit = "points of win rate" if target == "seat0_advantage" else (
        "turns" if target == "turns_mean" else "x 100")
    with S.styled():
        fig, ax = S.new_figure(1.0 + 0.26 * len(t))
        y = np.arange(len(t))
        col = np.where(t["significant"], S.SIGNIFICANT, "#333333")
        ax.hlines(y, t["ci_low"] * scale, t["ci_high"] * scale, color=col, lw=2)
        ax.scatter(t["coef"] * scale, y, color=col, s=16, zorder=3)
        ax.axvline(0, color=S.GREY, lw=1)
        ax.set_yticks(y, list(t.index), fontsize=8)
        ax.invert_yaxis()
        ax.set_xlabel(f"change per standard deviation of the feature ({unit})")
        return S.finish(fig, f"What goes with {_TARGET_SHORT.get(target, target)}",
                        "OLS on standardised features, 95% HC3 intervals; red: significant "
                        "after Benjamini-Hochberg")


def calibration_figure(calibration: dict[str, pd.DataFrame]):
    """Observed seat spread by decile of the fairness index (``seat_model_check``)."""
    with S.styled():
        fig, ax = S.new_figure(3.6)
        top = 0.0
        for i, (name, c) in enumerate(calibration.items()):
            ax.errorbar(c["index"], c["spread"], yerr=_err(c["spread"], c["ci_low"],
                                                           c["ci_high"]),
                        fmt="o-", ms=4, capsize=3, color=S.colour(i), label=name)
            top = max(top, float(c["ci_high"].max()), float(c["index"].max()))
        ax.plot([0, top], [0, top], color=S.GREY, ls=":", lw=1, label="index = observed")
        ax.set_xlabel("fairness index (predicted RMS distance of the seats from a fair share)")
        ax.set_ylabel("observed seat spread (RMS)")
        ax.set_xlim(0, top * 1.05)
        ax.set_ylim(0, top * 1.05)
        ax.legend(fontsize=8)
        n = ", ".join(f"{k}: {S.fmt_n(c['boards'].sum())}" for k, c in calibration.items())
        return S.finish(fig, "The fairness index ranks boards it never saw",
                        f"boards in deciles of the index; n = {n} boards; bars: t intervals of "
                        "the unbiased squared spread")


def board_sets_figure(sets: dict[str, pd.DataFrame]):
    """The per-board seat spread (RMS) of board sets, as overlaid distributions (e.g.
    variable and balanced boards; each a ``per_board`` table)."""
    with S.styled():
        fig, ax = S.new_figure(3.4)
        bins = np.linspace(0, max(float(t["rms"].max()) for t in sets.values()), 40)
        for i, (name, t) in enumerate(sets.items()):
            ax.hist(t["rms"], bins=bins, density=True, histtype="step", lw=1.8,
                    color=S.colour(i), label=f"{name} (n = {S.fmt_n(len(t))} boards)")
        ax.set_xlabel("a board's seat spread: RMS distance of its seat win rates from 1 / "
                      "players (observed)")
        ax.set_ylabel("density")
        ax.legend(fontsize=8)
        g = int(next(iter(sets.values()))["games"].iloc[0])
        return S.finish(fig, "Seat spread of variable and balanced boards",
                        f"{g} games per board; observed spreads include chance (about 0.04 at "
                        f"{g} games)")


def board_fairness_figure(board, draft: np.ndarray, rates: pd.DataFrame, predicted,
                          title: str):
    """One board: the reference draft on the board, and each seat's win rate (with its
    interval) beside the index's prediction (``catansim board --fairness``)."""
    n = len(rates)
    owner = np.full(N_NODES, -1, np.int32)
    for s in range(n):
        owner[draft[s]] = s
    pieces = {"node_owner": owner, "node_level": (owner >= 0).astype(np.int32),
              "edge_owner": np.full(N_EDGES, -1, np.int32)}
    with S.styled():
        fig, axes = S.new_figure(5.2, width=S.WIDTH * 1.3, ncols=2,
                                 gridspec_kw={"width_ratios": [1.5, 1]})
        names = seat_colours(n)
        draw_board(board, ax=axes[0], pieces=pieces, colours=names)
        axes[0].set_title("the reference draft: default players' starting settlements",
                          fontsize=9)
        ax = axes[1]
        x = np.arange(n)
        ax.bar(x, rates["win_rate"], 0.6, color=[SEAT_COLOURS.get(c, c) for c in names],
               edgecolor="#444444", lw=0.8, label="played")
        ax.errorbar(x, rates["win_rate"], yerr=_err(rates["win_rate"], rates["ci_low"],
                                                    rates["ci_high"]),
                    fmt="none", ecolor="#222222", capsize=3, lw=1)
        ax.scatter(x, predicted, marker="D", color="black", zorder=3, s=22,
                   label="predicted by the index")
        ax.axhline(1 / n, color=S.GREY, ls="--", lw=1)
        ax.set_xticks(x, [f"seat {s}\n{names[s]}" for s in x])
        ax.set_ylabel("win rate")
        ax.set_ylim(0, max(0.6, float(rates["ci_high"].max()) * 1.15))
        ax.legend(fontsize=8, loc="upper right")
        games = int(rates["games"].iloc[0])
        return S.finish(fig, title, f"n = {S.fmt_n(games)} games on this board; bars: 95% "
                                    "Wilson intervals")


__all__ = ["board_fairness_figure", "board_sets_figure", "calibration_figure",
           "coefficients_figure", "luck_figure", "order_figure", "precise_boards_figure",
           "predictability_figure", "preset_seats_figure", "rotation_figure", "spread_figure"]
