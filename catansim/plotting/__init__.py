"""Figures: board drawings and the figures of analyses; the only package that imports matplotlib.

What lives here: ``board`` (a board with its numbers, harbors, pieces and the
robber, and heat maps of per-node or per-hex values). Figure functions take
boards or analysis frames and return matplotlib Figures; the Agg backend is used
when there is no display.

May import: ``board``, ``topology``, ``constants``, matplotlib and the frames the
analysis layer returns. Never the engine, the runner or the dataset on disk.
"""

import os
import sys

import matplotlib

if (not os.environ.get("MPLBACKEND") and sys.platform.startswith("linux")
        and not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY")
        and "ipykernel" not in sys.modules):
    matplotlib.use("Agg")

from .board import TERRAIN_COLOURS, draw_board, save_board_png  # noqa: E402

__all__ = ["TERRAIN_COLOURS", "draw_board", "save_board_png"]
