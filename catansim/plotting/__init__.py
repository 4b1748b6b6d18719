"""Figures. The only package that imports matplotlib (Agg backend when there is no display)."""

import os
import sys

import matplotlib

if (not os.environ.get("MPLBACKEND") and sys.platform.startswith("linux")
        and not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY")
        and "ipykernel" not in sys.modules):
    matplotlib.use("Agg")

from .board import TERRAIN_COLOURS, draw_board, save_board_png  # noqa: E402

__all__ = ["TERRAIN_COLOURS", "draw_board", "save_board_png"]
