"""Figures. The only package that imports matplotlib (Agg backend when there is no display).

What lives here:

- ``board``: board drawings (terrains, numbers, harbors, pieces, heat maps);
- ``style``: the one style of every figure (palette, sizes, title and note with n);
- ``figures``: one figure function per analysis; each takes the frame a
  ``catansim.analysis`` function returned and returns a matplotlib Figure;
- ``rule_effects``: the figures of the robber and shortage studies (paired
  contrasts, catch-up curves, shares, sweeps);
- ``seats_boards``: the figures of the seat-order and board-balance analyses;
- ``ladder``: a ladder's rating, every player with its interval and n;
- ``openings``: the figures of the opening study (value maps on the board, the best
  openings, the win model);
- ``review``: a game's review, each seat's chance of winning through the game and the
  moves flagged.

May import: ``constants``, ``topology``, ``palette`` (the colours), ``board`` (the ``Board``
value), ``checks``, ``errors``, ``files`` (atomic writes), matplotlib, numpy, pandas. Never the
engine, the runner or ``analysis`` (figures draw frames, they compute nothing).
"""

import os
import sys

import matplotlib

if (not os.environ.get("MPLBACKEND") and sys.platform.startswith("linux")
        and not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY")
        and "ipykernel" not in sys.modules):
    matplotlib.use("Agg")

from .board import TERRAIN_COLOURS, draw_board, save_board_png  # noqa: E402
from .figures import (  # noqa: E402
    board_heat_map,
    calibration_figure,
    crossplay_heatmap,
    forest_plot,
    length_histogram,
    means_figure,
    rates_figure,
    rating_figure,
    reliability_figure,
    start_pips_figure,
    vp_sources_figure,
    win_rates_figure,
)
from .review import win_timeline_figure  # noqa: E402

__all__ = ["TERRAIN_COLOURS", "board_heat_map", "calibration_figure", "crossplay_heatmap",
           "draw_board",
           "forest_plot", "length_histogram", "means_figure", "rates_figure", "rating_figure",
           "reliability_figure", "save_board_png", "start_pips_figure", "vp_sources_figure",
           "win_rates_figure", "win_timeline_figure"]
