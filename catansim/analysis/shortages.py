"""The supply-shortage rule: how often the supply runs short, when, of what, and who
loses the cards.

Outcomes per game (for ``contrasts.paired_contrasts`` and ``contrasts.arm_summary``):
short rolls per resource and in all (``shortage_<resource>``, ``shortage_rolls``),
whether a game had any (``any_shortage``, ``any_shortage_<resource>``), the rolls on
which one player alone was owed the short resource (``sole_recipient``: where the
official rule pays that player what is left and the strict rule pays nobody), the
cards withheld (all seats, and from the player leading alone at that roll), game
length and the seats' wins.

``shortage_timing(source)``: per arm and resource, the share of games with a shortage
(Wilson) and the turn of the first one (t interval of the mean, quantiles), also as a
fraction of the game's length; ``first_shortage_curve`` the cumulative share of games
short of each resource by each turn. ``SHORTAGE_SHARES``: of the short rolls, those
with a sole recipient (per resource), and the share of withheld cards taken from the
sole leader (``contrasts.share_table``). ``WITHHELD_BY_SEAT``: cards withheld and
produced per seat-game by standing and strategy (``contrasts.seat_groups``).
``DIFFER_FACETS``: the parts of a game's result (any seat's production, any seat's
final VP, the winner, the length) in which two rules' games may differ
(``contrasts.games_that_differ``).

Reads: games ``turns``, ``shortage_<r>``, ``first_shortage_<r>``,
``sole_recipient_<r>``, ``withheld_leader``; players ``seat``, ``won``, ``vp``,
``strategy``, ``produced_<r>``, ``withheld_<r>``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from . import stats as S
from .contrasts import (
    Outcome,
    SeatCount,
    Share,
    column_sum,
    flag,
    game_facet,
    measure,
    no_winner,
    seat_facet,
    seat_win,
    vp_spread,
    winner_facet,
)
from .driver import Analysis, Chunk, Context, reads_source, run
from .measures import PRODUCED_COLS, RES, SHORTAGE_COLS, WITHHELD_COLS

FIRST_COLS = tuple(f"first_shortage_{r}" for r in RES)
SOLE_COLS = tuple(f"sole_recipient_{r}" for r in RES)
FRACTION_BINS = 10  # the first shortage's place in the game, in tenths of its length


def shortage_outcomes(n_players: int, by_resource: bool = True) -> list[Outcome]:
    """The outcomes the shortage study summarises and differences game by game."""
    rolls = measure("shortage_rolls", family="shortage")
    sole = column_sum("sole_recipient", "rolls with a shortage of a resource owed to one "
                      "player alone", "games", SOLE_COLS, family="shortage")
    out = [
        measure("turns", family="length"), no_winner(), vp_spread(),
        flag(rolls, "any_shortage", "games with at least one roll the supply cannot pay "
             "in full"),
        rolls, sole,
        measure("withheld", family="shortage"),
        column_sum("withheld_leader", "cards withheld from the player leading alone",
                   "games", ("withheld_leader",), family="shortage"),
        measure("produced", family="cards"),
    ]
    if by_resource:
        for r in RES:
            c = column_sum(f"shortage_{r}", f"rolls short of {r}", "games",
                           (f"shortage_{r}",), family="resource")
            out += [flag(c, f"any_shortage_{r}", f"games short of {r} at least once"), c]
    out += [seat_win(s) for s in range(n_players)]
    return out


SHORTAGE_SHARES = (
    Share("sole_recipient", "of the short rolls: one player alone was owed the resource "
          "(the official rule pays them what is left)",
          column_sum("sole_recipient", "", "games", SOLE_COLS),
          column_sum("shortage_rolls", "", "games", SHORTAGE_COLS), family="shortage"),
    *(Share(f"sole_recipient_{r}", f"of the rolls short of {r}: one player alone was owed it",
            column_sum(f"sole_recipient_{r}", "", "games", (f"sole_recipient_{r}",)),
            column_sum(f"shortage_{r}", "", "games", (f"shortage_{r}",)), family="resource")
      for r in RES),
    Share("withheld_leader", "of the withheld cards: taken from the player leading alone "
          "in visible VP at that roll",
          column_sum("withheld_leader", "", "games", ("withheld_leader",)),
          measure("withheld"), family="shortage"),
)

WITHHELD_BY_SEAT = (
    SeatCount("withheld", "cards withheld by the shortage rule per seat-game", WITHHELD_COLS),
    SeatCount("produced", "cards produced per seat-game", PRODUCED_COLS),
)
WITHHELD_RATIO = (("withheld_share", "withheld", "produced"),)

# what "the two rules play out differently" counts (``contrasts.games_that_differ``)
DIFFER_FACETS = (
    seat_facet("production", "any seat's cards produced", PRODUCED_COLS),
    seat_facet("final_vp", "any seat's final VP", ("vp",)),
    winner_facet(),
    game_facet("length", "the game's length (turns)", "turns"),
)


# --- when in the game ------------------------------------------------------------------


def _first_turns(chunk: Chunk, v: str) -> dict[str, np.ndarray]:
    """Per game of ``v``: the turn of the first shortage of each resource and of any
    (-1 never)."""
    def make():
        rows = chunk.game_rows(v)
        out = {}
        big = np.iinfo(np.int64).max
        first_any = np.full(rows.size, big, dtype=np.int64)
        for r, c in zip(RES, FIRST_COLS, strict=True):
            x = chunk.games[c].to_numpy(dtype=np.int64, na_value=-1)[rows]
            out[r] = x
            first_any = np.where(x >= 0, np.minimum(first_any, x), first_any)
        out["any"] = np.where(first_any == big, -1, first_any)
        return out
    return chunk.memo(("first_shortage", v), make)


def _timing_map(chunk: Chunk):
    out = {}
    for v in chunk.variants:
        turns = chunk.games["turns"].to_numpy()[chunk.game_rows(v)].astype(np.int64)
        for r, first in _first_turns(chunk, v).items():
            had = first >= 0
            frac = np.minimum((first[had] * FRACTION_BINS) // np.maximum(turns[had], 1),
                              FRACTION_BINS - 1)
            out[(v, r)] = {"games": np.int64(first.size), "turn": S.Hist.of(first[had]),
                           "fraction": S.Hist.of(frac)}
    return out


def _timing_finish(stats, ctx: Context) -> dict[str, pd.DataFrame]:
    rows, curve = [], []
    order = {v: i for i, v in enumerate(ctx.variants)}
    names = ("any", *RES)
    keys = sorted(stats, key=lambda k: (order.get(k[0], 99), names.index(k[1])))
    for v, r in keys:
        s = stats[(v, r)]
        n, h = int(s["games"]), s["turn"]
        lo, hi = S.wilson_ci(h.n, n)
        d = S.describe(h, quantiles=(0.1, 0.25, 0.5, 0.75, 0.9))
        f = S.describe(s["fraction"], quantiles=(0.5,))
        rows.append({"variant": v, "resource": r, "games": n, "with_shortage": h.n,
                     "share": h.n / n if n else np.nan, "share_ci_low": lo[0],
                     "share_ci_high": hi[0], "mean_turn": d["mean"],
                     "turn_ci_low": d["ci_low"], "turn_ci_high": d["ci_high"],
                     "p10": d["p10"], "p25": d["p25"], "median_turn": d["median"],
                     "p75": d["p75"], "p90": d["p90"],
                     "median_tenth": f["median"],
                     "method": S.WILSON + "; " + S.T_MEAN})
        if h.n:
            cum = h.series().cumsum()
            curve.append(pd.DataFrame({"variant": v, "resource": r, "turn": cum.index,
                                       "games": n, "short_by_then": cum.to_numpy(),
                                       "share": cum.to_numpy() / n}))
    timing = pd.DataFrame(rows).set_index(["variant", "resource"]) if rows else pd.DataFrame()
    cur = (pd.concat(curve, ignore_index=True).set_index(["variant", "resource", "turn"])
           .sort_index() if curve else pd.DataFrame())
    return {"timing": timing, "curve": cur}


TIMING = Analysis("shortage_timing", {"games": ("turns", *FIRST_COLS)}, _timing_map,
                  _timing_finish)


@reads_source
def shortage_timing(source, **kw) -> pd.DataFrame:
    """When the supply first runs short, per arm and resource (``any`` first).

    Reads games ``turns``, ``first_shortage_<r>``. Returns a DataFrame indexed by
    (variant, resource): ``games``, ``with_shortage``, ``share`` with its Wilson
    interval, the first shortage's turn (``mean_turn`` with its t interval, ``p10``,
    ``p25``, ``median_turn``, ``p75``, ``p90``, over the games that had one) and
    ``median_tenth`` (in which tenth of its game it came, 0 = the first tenth),
    ``method``.
    """
    return run(TIMING, source, **kw)["timing"]


@reads_source
def first_shortage_curve(source, **kw) -> pd.DataFrame:
    """The share of all games that had a shortage of each resource by turn t
    (cumulative), indexed by (variant, resource, turn): ``games``, ``short_by_then``,
    ``share``."""
    return run(TIMING, source, **kw)["curve"]
