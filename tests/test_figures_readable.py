"""Figures a reader can read: the small bars of a grouped bar chart stay visible beside
bars 60 times taller, a legend never covers a panel, a colour bar covers every number
written on its map, a ladder's thirteen-player matrix fits the page unshrunk."""

from __future__ import annotations

import io
import re

import numpy as np
import pandas as pd
from PIL import Image

from catansim.board import beginner_board
from catansim.plotting import rule_effects as PR
from catansim.plotting import style as S
from catansim.plotting.figures import crossplay_heatmap
from catansim.plotting.openings import value_map_figure
from catansim.reports.html import CSS


def _who_frame() -> pd.DataFrame:
    """who_loses.csv's shape: 0.24% at the official supply beside 15-18% at 9 cards."""
    rows = []
    for arm, w, o in (("official 19", 0.00238, 0.00240), ("official 9", 0.155, 0.177),
                      ("off 9", 0.106, 0.119)):
        for group, m in (("winner", w), ("others", o)):
            rows.append({"arm": arm, "group": group, "mean": m, "ci_low": m * 0.99,
                         "ci_high": m * 1.01, "n": 1000})
    return pd.DataFrame(rows).set_index(["arm", "group"])


def _drawn(fig):
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(fig)
    canvas.draw()  # a layout engine places things at draw time
    return canvas.get_renderer()


def test_the_smallest_bars_of_who_loses_are_visible_and_labelled():
    frame = _who_frame()
    fig = PR.group_bars(frame, ["winner", "others"], ["official 19", "official 9", "off 9"],
                        "t", "cards owed but withheld (%)", pct=True, log=True)
    _drawn(fig)
    ax = fig.axes[0]
    assert ax.get_yscale() == "log"
    lo, hi = ax.get_ylim()
    heights = [p.get_height() for p in ax.patches]
    assert len(heights) == 6 and min(heights) > lo
    # on screen the smallest bar is a tenth of the axis (a linear axis: about 1%)
    frac = np.log(min(heights) / lo) / np.log(hi / lo)
    assert frac > 0.1
    texts = sorted(t.get_text() for t in ax.texts)
    assert texts == sorted(f"{100 * m:.2g}" for m in frame["mean"])


def test_the_forest_legend_covers_no_panel():
    rows = []
    for i, v in enumerate(("a", "b", "c", "d")):
        for o, d in (("turns", 2.0 * i), ("win_seat_0", -0.002 * i)):
            rows.append({"variant": v, "reference": "ref", "outcome": o, "label": o,
                         "diff": d, "ci_low": d - 0.1, "ci_high": d + 0.1,
                         "significant": i > 1, "n": 100, "correction": "Holm"})
    table = pd.DataFrame(rows).set_index(["variant", "reference", "outcome"])
    arms = [(v, "ref", f"{v} vs ref") for v in ("a", "b", "c", "d")]
    fig = PR.contrast_forest(table, arms, [("Length", "turns", ["turns"], 1.0),
                                           ("Seats", "points", ["win_seat_0"], 100.0)], "t")
    r = _drawn(fig)
    (legend,) = fig.legends
    box = legend.get_window_extent(r)
    for ax in fig.axes:
        assert not box.overlaps(ax.get_window_extent(r)), ax.get_title()
    assert [t.get_text() for t in legend.get_texts()] == [a[2] for a in arms]


def test_the_value_map_colour_bar_covers_every_written_value():
    rng = np.random.default_rng(3)
    rows = []
    for seat in range(4):
        diff = rng.normal(0, 0.03, 54)
        diff[7] = 0.24  # the best node: labelled +24, beyond the 98th percentile
        for node in range(54):
            rows.append({"seat": seat, "kind": "first", "node": node, "diff": diff[node],
                         "significant": abs(diff[node]) > 0.05, "n": 400,
                         "chosen_share": float(node == 20), "base_win_rate": 0.25,
                         "correction": "Benjamini-Hochberg"})
    arms = pd.DataFrame(rows)
    fig = value_map_figure(arms, beginner_board(), n_players=4)
    _drawn(fig)
    cbar = fig.axes[-1]
    lo, hi = sorted(cbar.get_ylim())
    written = [float(t.get_text()) for ax in fig.axes[:4] for t in ax.texts
               if t.get_text().startswith(("+", "-"))]
    assert max(written) == 24
    assert lo <= min(100 * arms["diff"]) and hi >= max(written)


def _cross_play(names, rate) -> pd.DataFrame:
    """A pooled cross-play table (``analysis.ladder.ladder_matrix`` at seat ``all``)."""
    rows = []
    for a in names:
        for b in names:
            if a != b:
                w = rate(a, b)
                rows.append({"strategy": a, "opponent": b, "games": 40, "wins": round(40 * w),
                             "win_rate": w, "ci_low": max(0.0, w - 0.1),
                             "ci_high": min(1.0, w + 0.1),
                             "verdict": "beats" if w > 0.6 else "not significant"})
    return pd.DataFrame(rows).set_index(["strategy", "opponent"])


def test_a_ladders_big_matrix_fits_the_page_in_its_order_on_a_win_rate_scale():
    names = [f"preset{i}" for i in range(10)] + ["catanatron:ValueFunctionPlayer",
                                                 "catanatron:RandomPlayer",
                                                 "catanatron:WeightedRandomPlayer"]
    strength = {n: i for i, n in enumerate(names)}
    table = _cross_play(names, lambda a, b: 0.25 + 0.05 * (strength[b] - strength[a]) / 2
                        if abs(strength[b] - strength[a]) < 10 else float(strength[a] < 10))
    order = names[::-1]  # not alphabetical: the rows and columns follow it
    fig = crossplay_heatmap(table, 0.25, order)
    _drawn(fig)
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == order
    assert [t.get_text() for t in ax.get_xticklabels()] == order
    norm = ax.images[0].norm  # win rates: 0 to 1, white (the middle) at the fair share
    assert norm.vmin == 0.0 and norm.vmax == 1.0 and norm(0.25) == 0.5
    cells = {(round(t.get_position()[1]), round(t.get_position()[0])): t.get_text()
             for t in ax.texts}
    assert len(cells) == 13 * 12
    for (a, b), r in table.iterrows():  # one number a cell, the rate of its own pair
        assert cells[(order.index(a), order.index(b))] == f"{r['win_rate']:.2f}"
    # a report page's figures are at most its main column wide (less the image's border):
    # a wider one is shrunk, and its numbers with it
    page = int(re.search(r"main \{ max-width: (\d+)px", CSS).group(1))
    assert Image.open(io.BytesIO(S.figure_png(fig))).size[0] <= page - 2


def test_a_small_cross_play_matrix_writes_each_interval_and_verdict():
    names = ["builder", "default", "random"]
    table = _cross_play(names, lambda a, b: {"default": 0.7, "builder": 0.3}.get(a, 0.0))
    fig = crossplay_heatmap(table, 0.25)
    _drawn(fig)
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == names  # alphabetical
    norm = ax.images[0].norm
    assert norm.vmin >= 0.0 and norm.vmax <= 1.0 and norm(0.25) == 0.5
    texts = sorted(t.get_text() for t in ax.texts)
    want = sorted(f"{r['win_rate']:.3f}\n[{r['ci_low']:.3f}, {r['ci_high']:.3f}]"
                  + ("\nbeats" if r["verdict"] == "beats" else "")
                  for _, r in table.iterrows())
    assert texts == want
