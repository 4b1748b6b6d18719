"""One style for every figure: sizes, fonts, colours, the title and the note with n."""

from __future__ import annotations

import contextlib
import io

import matplotlib.pyplot as plt
from matplotlib.figure import Figure

# Colour-blind-safe palette (Okabe-Ito), one colour per variant in dataset order.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#D55E00", "#56B4E9", "#F0E442",
           "#000000")
GREY = "#7f7f7f"
SIGNIFICANT = "#C0392B"
WIDTH = 7.5  # inches; figures are 7.5 wide so they read at the same scale in a report
DPI = 110

RC = {
    "figure.dpi": DPI,
    "savefig.dpi": DPI,
    "font.size": 10,
    "axes.titlesize": 11.5,
    "axes.titleweight": "bold",
    "axes.labelsize": 10,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.color": "#e5e5e5",
    "grid.linewidth": 0.8,
    "axes.axisbelow": True,
    "legend.frameon": False,
    "legend.fontsize": 9,
    "xtick.labelsize": 9,
    "ytick.labelsize": 9,
}


def colour(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


@contextlib.contextmanager
def styled():
    """Apply the style for the figures made inside the block."""
    with plt.rc_context(RC):
        yield


def new_figure(height: float = 4.0, width: float = WIDTH, ncols: int = 1, **kw):
    """A figure and its axes in the house style (call inside ``styled()``).

    The figure is not registered with pyplot: nothing to close, it is shown once
    in a notebook (as the cell's value) and freed when it is no longer used.
    """
    fig = Figure(figsize=(width, height), layout="constrained")
    ax = fig.subplots(1, ncols, **kw)
    return fig, ax


def finish(fig, title: str, note: str | None = None):
    """Title on top; a small grey note at the bottom (n, the interval method)."""
    fig.suptitle(title, fontsize=12, fontweight="bold", x=0.01, ha="left")
    if note:
        fig.text(0.01, 0.0, note, fontsize=8, color="#555555", ha="left", va="top",
                 wrap=True)
    return fig


def fmt_n(n) -> str:
    return f"{int(n):,}"


def figure_png(fig, dpi: int | None = None) -> bytes:
    """The figure as PNG bytes (white background); a pyplot figure is closed after."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi or DPI, bbox_inches="tight", facecolor="white")
    plt.close(fig)
    return buf.getvalue()
