"""The figure of a game's review (``catansim analyse``): each seat's chance of winning
through the game, and the moves flagged.

It draws the review's tables as they are (their columns: ``results.review``, named
here as text: plotting reads no result package).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib import patheffects

from ..constants import seat_colours
from ..palette import SEAT_COLOURS
from . import style as S

# A line of the white seat shows on a white page with a dark edge.
_EDGE = [patheffects.withStroke(linewidth=3.2, foreground="#333333")]


def win_timeline_figure(timeline: pd.DataFrame, flagged: pd.DataFrame | None = None,
                        title: str = "Chances of winning through the game"):
    """Each seat's chance of winning at each position of ``timeline`` (its ``win`` and
    the band of its interval, by ``turn``), and each move of ``flagged`` (its ``turn``,
    ``seat`` and ``loss``) marked on its seat's line with the points it cost."""
    seats = sorted(int(q) for q in timeline["seat"].unique())
    colours = seat_colours(len(seats))
    with S.styled():
        fig, ax = S.new_figure(3.8)
        for q in seats:
            t = timeline[timeline["seat"] == q].sort_values("event")
            c = SEAT_COLOURS[colours[q]]
            edge = _EDGE if colours[q] == "white" else None
            ax.fill_between(t["turn"], t["win_low"], t["win_high"], color=c, alpha=0.18,
                            lw=0, step="post")
            ax.step(t["turn"], t["win"], where="post", color=c, lw=1.6,
                    label=f"seat {q} ({colours[q]})", path_effects=edge)
        if flagged is not None and len(flagged):
            for _, m in flagged.iterrows():
                q = int(m["seat"])
                t = timeline[(timeline["seat"] == q) & (timeline["turn"] <= m["turn"])]
                y = float(t.sort_values("event")["win"].iloc[-1]) if len(t) else 0.5
                ax.plot([m["turn"]], [y], marker="v", ms=8, color=S.SIGNIFICANT, zorder=5)
                ax.annotate(f"-{100 * m['loss']:.0f}", (m["turn"], y), xytext=(0, 7),
                            textcoords="offset points", ha="center", fontsize=8,
                            color=S.SIGNIFICANT)
        ax.set_ylim(-0.02, 1.02)
        ax.set_xlabel("turn")
        ax.set_ylabel("chance of winning")
        ax.legend(loc="upper left", ncols=len(seats))
        n = timeline.loc[timeline["rollouts"] > 0, "rollouts"]
        rollouts = f"{int(np.median(n)):,} rollouts a position" if len(n) else "no rollouts"
        note = (f"{timeline['event'].nunique():,} positions, {rollouts}; bands: 95% Wilson "
                "intervals")
        if flagged is not None:
            note += f"; marks: {len(flagged)} moves flagged, with the points they cost"
        return S.finish(fig, title, note)
