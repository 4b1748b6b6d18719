"""Draw a board: terrains, number discs with pips, harbors, pieces, indices and heat maps.

Hex centres and corners come from ``catansim.topology`` (unit circumradius, page
coordinates with y growing downward, so the y axis is inverted).
"""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
from matplotlib import patheffects
from matplotlib.cm import ScalarMappable
from matplotlib.colors import Normalize
from matplotlib.lines import Line2D
from matplotlib.patches import Circle, Patch, Polygon, RegularPolygon

from .. import palette as P
from .. import topology as T
from ..board import Board
from ..constants import (
    HARBOR_ANY,
    N_EDGES,
    N_HEXES,
    N_NODES,
    PIPS,
    RESOURCE_NAMES,
    SEAT_COLOURS_4,
    TERRAIN_NAMES,
    Terrain,
)
from ..errors import CatansimError
from ..files import atomic_path

SEA_COLOUR, SEA_HEX_COLOUR = P.SEA_COLOUR, P.SEA_HEX_COLOUR
TERRAIN_COLOURS, SEAT_COLOURS = P.TERRAIN_COLOURS, P.SEAT_COLOURS
DISC_COLOUR, RED_NUMBER_COLOUR = P.DISC_COLOUR, P.RED_NUMBER_COLOUR
# A hex or node a heat map has no value for (NaN): drawn in these colours, not in the
# colour map's "bad" colour, which is transparent (a blank hex showed the sea behind it).
BLANK_HEX_COLOUR = "#efe9dc"
BLANK_NODE_COLOUR, BLANK_NODE_EDGE = "white", "#777777"
_OUTLINE = "#1a1a1a"
NOT_SIGNIFICANT_SCALE = 0.4  # a value not significant: its dot's area against a significant one
_SQRT3 = np.sqrt(3.0)


def _get(pieces, name):
    if isinstance(pieces, dict):
        return pieces.get(name)
    return getattr(pieces, name, None)


def _seat_colour(colours, seat: int) -> str:
    c = colours[seat]
    return SEAT_COLOURS.get(c, c)


def _house(x: float, y: float, s: float) -> np.ndarray:
    # A settlement: square with a pointed roof (page coordinates, y down).
    return np.array([[x - s, y + s], [x + s, y + s], [x + s, y - 0.2 * s],
                     [x, y - 1.1 * s], [x - s, y - 0.2 * s]])


def _city(x: float, y: float, s: float) -> np.ndarray:
    # A city: a house on the right joined to a lower wide block on the left.
    return np.array([[x - 1.6 * s, y + s], [x + 1.1 * s, y + s], [x + 1.1 * s, y - 0.4 * s],
                     [x + 0.35 * s, y - 1.2 * s], [x - 0.4 * s, y - 0.4 * s],
                     [x - 0.4 * s, y - 0.1 * s], [x - 1.6 * s, y - 0.1 * s]])


def _values(arr, n: int, name: str) -> np.ndarray:
    v = np.asarray(arr, dtype=float)
    if v.shape != (n,):
        raise CatansimError(f"{name}: expected {n} values, got shape {v.shape}; allowed: "
                            f"an array of {n} numbers")
    return v


def value_norm(values: np.ndarray) -> Normalize | None:
    """The colour scale of a heat map over its finite values; None when there are none
    (every value blank: no scale to show)."""
    finite = values[np.isfinite(values)]
    return Normalize(finite.min(), finite.max()) if finite.size else None


def value_colour(cm, norm: Normalize | None, value: float):
    """The heat-map colour of one value: ``BLANK_HEX_COLOUR`` for NaN (or no scale)."""
    return cm(norm(value)) if norm is not None and np.isfinite(value) else BLANK_HEX_COLOUR


def node_value_dots(ax, values: np.ndarray, norm: Normalize | None, cm, *, size: float,
                    blank_size: float, edge: str, linewidth: float, zorder: float,
                    significant: np.ndarray | None = None) -> None:
    """A heat map over the 54 intersections: a coloured dot per value, a small white
    dot where the value is NaN (no coloured dots when there is no scale). With
    ``significant`` (54 booleans), the values not significant are drawn at
    ``NOT_SIGNIFICANT_SCALE`` of ``size``."""
    blank = ~np.isfinite(values)
    ax.scatter(T.NODE_XY[blank, 0], T.NODE_XY[blank, 1], s=blank_size,
               facecolors=BLANK_NODE_COLOUR, edgecolors=BLANK_NODE_EDGE, linewidths=0.7,
               zorder=zorder)
    if norm is not None:
        sizes = np.full(N_NODES, float(size))
        if significant is not None:
            sizes[~np.asarray(significant, dtype=bool)] *= NOT_SIGNIFICANT_SCALE
        ax.scatter(T.NODE_XY[~blank, 0], T.NODE_XY[~blank, 1], s=sizes[~blank],
                   c=values[~blank], cmap=cm, norm=norm, edgecolors=edge, linewidths=linewidth,
                   zorder=zorder)


def significance_handles(size: float) -> list:
    """Legend entries for dots of area ``size`` (significant) and smaller (not)."""
    ms = float(np.sqrt(size))
    return [Line2D([], [], marker="o", ls="none", ms=ms, mfc="#cccccc", mec=_OUTLINE,
                   label="significant"),
            Line2D([], [], marker="o", ls="none", ms=ms * np.sqrt(NOT_SIGNIFICANT_SCALE),
                   mfc="#cccccc", mec=_OUTLINE, label="not significant")]


def draw_board(board: Board, *, ax=None, indices: bool = False, pieces=None, robber=None,
               node_values=None, hex_values=None, title=None, colours=None,
               cmap: str = "viridis", value_label: str | None = None,
               node_significant=None):
    """Draw a board on a matplotlib Axes.

    Parameters
    ----------
    board : Board
        The board to draw.
    ax : matplotlib Axes, optional
        Where to draw; a new 10 x 10 inch figure if None.
    indices : bool
        Label every hex (``h7``), node (white boxes) and edge (yellow boxes) with
        its index in our numbering.
    pieces : dict or object, optional
        ``node_owner`` int[54] (seat, -1 empty), ``node_level`` int[54] (1
        settlement, 2 city) and ``edge_owner`` int[72] (seat, -1 empty).
    robber : int, optional
        Hex of the robber; the desert by default.
    node_values : array of 54 floats, optional
        Heat map over the intersections (coloured dots, with a colour bar); NaN marks a
        node without a value (a small white dot).
    hex_values : array of 19 floats, optional
        Heat map over the hexes (fills the hexes instead of the terrain colours); NaN
        marks a hex without a value (``BLANK_HEX_COLOUR``).
    title : str, optional
        Axes title.
    colours : sequence of str, optional
        Colour of each seat; ``red, blue, white, orange`` by default.
    cmap : str
        Colour map of the heat maps.
    value_label : str, optional
        Label of the heat map's colour bar.
    node_significant : array of 54 bools, optional
        Which node values are significant: the others are drawn as smaller dots.

    Returns
    -------
    matplotlib Axes
    """
    if ax is None:
        _, ax = plt.subplots(figsize=(10, 10))
    fig = ax.figure
    colours = tuple(colours) if colours is not None else SEAT_COLOURS_4
    robber = board.robber_hex if robber is None else int(robber)
    if not 0 <= robber < N_HEXES:
        raise CatansimError(f"robber: {robber} is not a hex; allowed: a hex index "
                            f"0..{N_HEXES - 1}")
    cm = plt.get_cmap(cmap)

    # Sea: a large hexagon behind everything, then the 18 frame hexes.
    ax.add_patch(RegularPolygon((0, 0), 6, radius=7.3, orientation=np.pi / 6,
                                facecolor=SEA_COLOUR, edgecolor="none", zorder=0))
    for q in range(-3, 4):
        for r in range(-3, 4):
            if T.hex_distance(q, r) == 3:
                ax.add_patch(RegularPolygon(T.hex_to_xy(q, r), 6, radius=1.0,
                                            facecolor=SEA_HEX_COLOUR, edgecolor=SEA_COLOUR,
                                            lw=1.0, zorder=1))

    # Land hexes.
    hex_norm = None
    if hex_values is not None:
        hv = _values(hex_values, N_HEXES, "hex_values")
        hex_norm = value_norm(hv)
    for h, (x, y) in enumerate(T.HEX_XY):
        t = int(board.terrain[h])
        face = TERRAIN_COLOURS[t] if hex_norm is None else value_colour(cm, hex_norm, hv[h])
        ax.add_patch(RegularPolygon((x, y), 6, radius=0.98, facecolor=face,
                                    edgecolor="#f4f0e6", lw=2.5, zorder=2))
        if hex_norm is not None:  # keep the terrain readable under the heat map
            ax.add_patch(RegularPolygon((x, y), 6, radius=0.86, facecolor="none",
                                        edgecolor=TERRAIN_COLOURS[t], lw=4, zorder=2.1))
        n = int(board.number[h])
        if n:
            red = n in (6, 8)
            ax.add_patch(Circle((x, y), 0.32, facecolor=DISC_COLOUR, edgecolor="#5d4a2f",
                                lw=1.2, zorder=3))
            ax.text(x, y - 0.05, str(n), ha="center", va="center", zorder=4,
                    fontsize=15 if red else 13, fontweight="bold",
                    color=RED_NUMBER_COLOUR if red else "#222222")
            k = PIPS[n]
            xs = x + (np.arange(k) - (k - 1) / 2) * 0.075
            ax.scatter(xs, np.full(k, y + 0.19), s=7, zorder=4,
                       color=RED_NUMBER_COLOUR if red else "#222222")
        elif t == Terrain.desert:
            ax.text(x, y + 0.55, "desert", ha="center", va="center", fontsize=8,
                    color="#6b5a32", zorder=4)
        if indices:
            ax.text(x, y - 0.6, f"h{h}", ha="center", va="center", fontsize=9,
                    fontweight="bold", color="#111111", zorder=6,
                    bbox={"boxstyle": "round,pad=0.15", "fc": "#ffffffc0", "ec": "none"})

    # Harbors: a token in the sea hex, docks to its two intersections.
    for s in range(len(T.HARBOR_EDGES)):
        kind = int(board.harbor[s])
        hx, hy = T.HARBOR_XY[s]
        for n in T.HARBOR_NODES[s]:
            nx, ny = T.NODE_XY[n]
            ax.plot([hx, nx], [hy, ny], color="#7a5230", lw=3.5, solid_capstyle="round",
                    zorder=2.5)
        if kind == HARBOR_ANY:
            face, label = "#ffffff", "3:1"
        else:
            face, label = TERRAIN_COLOURS[kind], f"2:1\n{RESOURCE_NAMES[kind]}"
        ax.add_patch(Circle((hx, hy), 0.42, facecolor=face, edgecolor="#3b2a17", lw=1.5,
                            zorder=3))
        txt = ax.text(hx, hy, label, ha="center", va="center", fontsize=9, fontweight="bold",
                      color="#111111", zorder=4, linespacing=0.95)
        txt.set_path_effects([patheffects.withStroke(linewidth=2.5, foreground="white")])

    # Heat map over the intersections.
    node_norm = None
    if node_values is not None:
        nv = _values(node_values, N_NODES, "node_values")
        node_norm = value_norm(nv)
        node_value_dots(ax, nv, node_norm, cm, size=150, blank_size=50, edge=_OUTLINE,
                        linewidth=0.8, zorder=5, significant=node_significant)

    # Pieces.
    if pieces is not None:
        edge_owner = _get(pieces, "edge_owner")
        node_owner = _get(pieces, "node_owner")
        node_level = _get(pieces, "node_level")
        if edge_owner is not None:
            for e in np.flatnonzero(np.asarray(edge_owner)[:N_EDGES] >= 0):
                a, b = T.NODE_XY[T.EDGE_NODES[e]]
                p, q = a + 0.16 * (b - a), b - 0.16 * (b - a)
                ax.plot([p[0], q[0]], [p[1], q[1]], lw=7, solid_capstyle="butt", zorder=6,
                        color=_seat_colour(colours, int(edge_owner[e])),
                        path_effects=[patheffects.Stroke(linewidth=9.5, foreground=_OUTLINE),
                                      patheffects.Normal()])
        if node_owner is not None:
            node_owner = np.asarray(node_owner)[:N_NODES]
            levels = (np.ones(N_NODES, int) if node_level is None
                      else np.asarray(node_level)[:N_NODES])
            for n in np.flatnonzero(node_owner >= 0):
                x, y = T.NODE_XY[n]
                shape = _city(x, y, 0.2) if levels[n] >= 2 else _house(x, y, 0.17)
                ax.add_patch(Polygon(shape, closed=True, zorder=7, lw=1.6, edgecolor=_OUTLINE,
                                     facecolor=_seat_colour(colours, int(node_owner[n]))))

    # Robber: a dark pawn, beside the number disc (or in the middle of the desert).
    rx, ry = T.HEX_XY[robber]
    if board.number[robber]:
        rx -= 0.55
    ax.add_patch(Polygon([[rx - 0.14, ry + 0.3], [rx + 0.14, ry + 0.3], [rx + 0.07, ry - 0.05],
                          [rx - 0.07, ry - 0.05]], closed=True, facecolor="#3a3a3a",
                         edgecolor="#111111", lw=1, zorder=8))
    ax.add_patch(Circle((rx, ry - 0.13), 0.11, facecolor="#3a3a3a", edgecolor="#111111",
                        lw=1, zorder=8))

    if indices:
        for n, (x, y) in enumerate(T.NODE_XY):
            ax.text(x, y, str(n), ha="center", va="center", fontsize=7, zorder=9,
                    bbox={"boxstyle": "round,pad=0.12", "fc": "white", "ec": "#333333",
                          "lw": 0.5})
        for e, (x, y) in enumerate(T.EDGE_XY):
            ax.text(x, y, str(e), ha="center", va="center", fontsize=6, zorder=9,
                    color="#5a3d00", style="italic",
                    bbox={"boxstyle": "round,pad=0.1", "fc": "#fff3b0", "ec": "none"})

    # Legend: terrains (and seats when pieces are shown).
    handles = [Patch(facecolor=TERRAIN_COLOURS[t], edgecolor="#555555",
                     label=f"{TERRAIN_NAMES[t]} ({RESOURCE_NAMES[t]})" if t < 5 else "desert")
               for t in range(len(TERRAIN_NAMES))]
    if pieces is not None:
        handles += [Line2D([], [], marker="s", ls="none", markersize=10, markeredgecolor=_OUTLINE,
                           markerfacecolor=_seat_colour(colours, i), label=f"seat {i}: {c}")
                    for i, c in enumerate(colours)]
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0.02), ncol=5,
              fontsize=8, frameon=False)

    for norm, label in ((hex_norm, value_label or "hex value"),
                        (node_norm, value_label or "node value")):
        if norm is not None:
            fig.colorbar(ScalarMappable(norm=norm, cmap=cm), ax=ax, shrink=0.6, pad=0.02,
                         label=label)

    ax.set_xlim(-3.55 * _SQRT3, 3.55 * _SQRT3)
    ax.set_ylim(5.6, -5.6)  # page coordinates: y grows downward
    ax.set_aspect("equal")
    ax.axis("off")
    if title:
        ax.set_title(title, fontsize=13)
    return ax


def save_board_png(board: Board, path, *, dpi: int = 110, **kw) -> Path:
    """Draw ``board`` (keywords as ``draw_board``) and save it as a PNG; returns the path.

    Written atomically (``catansim.files.atomic_path``): a half-written image never
    exists at ``path``.
    """
    path = Path(path)
    fig, ax = plt.subplots(figsize=(10, 10.4))
    try:
        draw_board(board, ax=ax, **kw)
        with atomic_path(path) as tmp:
            fig.savefig(tmp, dpi=dpi, bbox_inches="tight", facecolor="white", format="png")
    finally:
        plt.close(fig)
    return path
