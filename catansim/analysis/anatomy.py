"""Game anatomy: how long games are, where the VP come from, where the cards go.

Every function takes a source (a dataset folder or ``(games, players)`` frames;
see ``driver.run_many``) and returns a DataFrame with ``n`` and a ``method`` column
naming its interval. Means carry a Student t interval computed from the value
histogram (``stats.describe``); rates a Wilson interval.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..logs import replay
from . import stats as S
from .driver import Analysis, Chunk, Context, reads_source, run
from .measures import (
    BOUGHT_COLS,
    DEV,
    GAME_MEASURE,
    GAME_MEASURES,
    PLAYED_COLS,
    SEAT_MEASURES,
    VP_SOURCES,
    Measure,
    columns_of,
    game_values,
    seat_values,
)

DESCRIBE_COLUMNS = ["n", "mean", "sd", "ci_low", "ci_high", "p10", "median", "p90", "max"]

# Published figures from human games for the measures of ``ANATOMY_MEASURES`` (other
# populations, other tables: context, not a test): computed from the 50 four-player games
# of "Settlers of Catan Games" (Kaggle dataset by lumins, played on playcatan.com in 2014,
# https://www.kaggle.com/datasets/lumins/settlers-of-catan-games; the file catanstats.csv,
# SHA-256 5d8d31fa..., as mirrored at https://github.com/DevinRS/Settlers_of_Catan_Analysis,
# commit 929b6ec4): a game's rolls are the sum of its columns 2..12, its 7s column 7, its
# discards the sum of the four players' "tribute"; mean and t interval over the 50 games.
HUMAN_SOURCE = ('"Settlers of Catan Games", Kaggle dataset by lumins (50 four-player '
                "games on playcatan.com, 2014), "
                "https://www.kaggle.com/datasets/lumins/settlers-of-catan-games")
HUMAN_ANATOMY = {
    "rolls": {"mean": 64.28, "sd": 12.74, "ci_low": 60.66, "ci_high": 67.90, "n": 50},
    "sevens": {"mean": 10.98, "ci_low": 9.60, "ci_high": 12.36, "n": 50},
    "discarded": {"mean": 20.26, "ci_low": 16.74, "ci_high": 23.78, "n": 50},
}

# Published figures from human play, for context (other populations, other rules of play).
HUMAN_REFERENCE = (
    {"measure": "rolls", "who": "game", "human_mean": HUMAN_ANATOMY["rolls"]["mean"],
     "human_sd": HUMAN_ANATOMY["rolls"]["sd"], "human_n": HUMAN_ANATOMY["rolls"]["n"],
     "human_source": f"rolls per game: {HUMAN_SOURCE}"},
    {"measure": "cards_received", "who": "winners", "human_mean": 76.0, "human_sd": np.nan,
     "human_n": 306, "human_source": "an analysis of 306 online games: about 76 resource "
                                     "cards in a winner's hand over a game"},
)


def _describe_frame(hists: dict, names: list[str], confidence: float = S.CONFIDENCE,
                    ctx: Context | None = None) -> pd.DataFrame:
    keys = _ordered_keys(hists, ctx)
    rows = []
    for k in keys:
        d = S.describe(hists[k], confidence)
        rows.append((*k, *[d[c] for c in DESCRIBE_COLUMNS]))
    out = pd.DataFrame(rows, columns=[*names, *DESCRIBE_COLUMNS])
    out["n"] = out["n"].astype(np.int64)
    out["method"] = S.T_MEAN
    return out.set_index(names)


def _ordered_keys(stats: dict, ctx: Context | None):
    """Keys in variant order (the context's), then as first seen."""
    keys = list(stats)
    if ctx is None:
        return keys
    order = {v: i for i, v in enumerate(ctx.variants)}
    return sorted(keys, key=lambda k: order.get(k[0], len(order)))


# --- game length -------------------------------------------------------------------------


def _length_map(chunk: Chunk):
    out = {}
    for v in chunk.variants:
        rows = chunk.game_rows(v)
        for name in ("turns", "rolls"):
            out[(v, name)] = S.Hist.of(game_values(chunk, v, GAME_MEASURE[name]))
        limit = (chunk.games["end_reason"].to_numpy()[rows] == "turn_limit")
        out[(v, "turn_limit")] = np.array([rows.size, int(limit.sum())], dtype=np.int64)
    return out


def _length_finish(stats, ctx: Context) -> pd.DataFrame:
    hists = {k: h for k, h in stats.items() if k[1] != "turn_limit"}
    out = _describe_frame(hists, ["variant", "measure"], ctx=ctx).reset_index()
    n, k = zip(*(stats[(v, "turn_limit")] for v in out["variant"]), strict=True)
    out["turn_limit_share"] = np.asarray(k) / np.asarray(n)
    out["turn_limit_ci_low"], out["turn_limit_ci_high"] = S.wilson_ci(k, n)
    return out.set_index(["variant", "measure"])


GAME_LENGTH = Analysis(
    "game_length",
    {"games": ("turns", "end_reason", *GAME_MEASURE["rolls"].columns)},
    _length_map, _length_finish)


@reads_source
def game_length(source, **kw) -> pd.DataFrame:
    """Game length in turns and in dice rolls, per variant.

    Reads ``games``: ``turns``, ``rolls_2`` .. ``rolls_12``, ``end_reason``.

    Returns
    -------
    DataFrame indexed by (variant, measure) with measure ``turns`` or ``rolls``:
    ``n`` (games), ``mean``, ``sd``, ``ci_low``/``ci_high`` (t interval of the mean),
    ``p10``, ``median``, ``p90``, ``max``, ``method``, ``turn_limit_share`` (games
    ended by max_turns, no winner) with its Wilson interval.
    """
    return run(GAME_LENGTH, source, **kw)


def _dist_map(measure: str):
    def f(chunk: Chunk):
        return {v: S.Hist.of(game_values(chunk, v, GAME_MEASURE[measure]))
                for v in chunk.variants}
    return f


def _dist_finish(stats, ctx: Context) -> pd.DataFrame:
    frames = []
    for v in [v for v in ctx.variants if v in stats] + [v for v in stats
                                                       if v not in ctx.variants]:
        s = stats[v].series("games")
        s = s[s > 0]
        frames.append(pd.DataFrame({"variant": v, "value": s.index, "games": s.to_numpy(),
                                    "share": s.to_numpy() / stats[v].n}))
    return pd.concat(frames, ignore_index=True).set_index(["variant", "value"])


def length_distribution_analysis(measure: str = "rolls") -> Analysis:
    m = GAME_MEASURE[measure]
    return Analysis(f"distribution_{measure}", columns_of([m]), _dist_map(measure),
                    _dist_finish)


@reads_source
def length_distribution(source, measure: str = "rolls", **kw) -> pd.DataFrame:
    """The distribution of a per-game measure (``rolls`` or ``turns``; any of
    ``measures.GAME_MEASURES``), per variant.

    Reads the measure's columns. Returns a DataFrame indexed by (variant, value):
    ``games`` (how many games had that value) and ``share`` (of the variant's games).
    """
    return run(length_distribution_analysis(measure), source, **kw)


# --- per-game counts ---------------------------------------------------------------------


def _per_game_map(chunk: Chunk):
    return {(v, m.name): S.Hist.of(game_values(chunk, v, m))
            for v in chunk.variants for m in GAME_MEASURES}


def _with_labels(frame: pd.DataFrame, labels: dict, level: str = "measure") -> pd.DataFrame:
    frame = frame.copy()
    frame.insert(0, "label", [labels[m] for m in frame.index.get_level_values(level)])
    return frame


PER_GAME = Analysis(
    "per_game", columns_of(GAME_MEASURES), _per_game_map,
    lambda s, ctx: _with_labels(_describe_frame(s, ["variant", "measure"], ctx=ctx),
                                {m.name: m.label for m in GAME_MEASURES}))


@reads_source
def per_game_counts(source, **kw) -> pd.DataFrame:
    """Cards produced, traded (bank, player), stolen, discarded, blocked and withheld,
    robber moves, shortages, development cards: totals over the table, per game.

    Reads the columns of ``measures.GAME_MEASURES`` (games: turns, rolls_*, sevens,
    robber_moves, shortage_*; players: produced_*, trades_bank, trades_player, stolen,
    discarded, blocked, withheld_*, monopoly_gain, dev_bought_*, dev_played_*).

    Returns a DataFrame indexed by (variant, measure): ``label``, ``n`` (games), ``mean``,
    ``sd``, t interval of the mean, quantiles, ``max``, ``method``. Player trades count
    each trade once (the players table counts it on both sides).
    """
    return run(PER_GAME, source, **kw)


# --- per-seat counts (VP sources and the rest), all seats and winners ----------------------


def _per_seat_map(chunk: Chunk):
    out = {}
    for v in chunk.variants:
        rows = chunk.player_rows(v)
        won = chunk.players["won"].to_numpy()[rows].astype(bool)
        strat = chunk.labels("players", "strategy")[rows]
        names = pd.unique(strat)
        for m in SEAT_MEASURES:
            x = seat_values(chunk, v, m)
            out[(v, "all seats", "all", m.name)] = S.Hist.of(x)
            out[(v, "winners", "all", m.name)] = S.Hist.of(x[won])
            if len(names) > 1:
                for s in names:
                    sel = strat == s
                    out[(v, "all seats", s, m.name)] = S.Hist.of(x[sel])
                    out[(v, "winners", s, m.name)] = S.Hist.of(x[sel & won])
    return out


SEAT_COLUMNS = columns_of(SEAT_MEASURES)
PER_SEAT = Analysis(
    "per_seat",
    {"players": ("strategy", "won", *SEAT_COLUMNS["players"])},
    _per_seat_map,
    lambda s, ctx: _with_labels(
        _describe_frame(s, ["variant", "who", "strategy", "measure"], ctx=ctx),
        {m.name: m.label for m in SEAT_MEASURES}))


@reads_source
def per_seat_counts(source, **kw) -> pd.DataFrame:
    """Per seat and game: final VP and their sources, cards received, produced, stolen,
    gained by stealing, discarded, blocked, withheld, trades, development cards,
    knights, route length; for all seats and for the winners.

    Reads ``players``: ``strategy``, ``won`` and the columns of
    ``measures.SEAT_MEASURES``.

    Returns a DataFrame indexed by (variant, who, strategy, measure): who is
    ``all seats`` or ``winners``; strategy is ``all`` (pooled) and, when several
    strategies play, each one. Columns as ``per_game_counts`` (``n`` counts seats).
    """
    return run(PER_SEAT, source, **kw)


@reads_source
def vp_sources(source, **kw) -> pd.DataFrame:
    """Mean VP by source (settlements, cities, Longest Route, Largest Army, VP cards),
    of all seats and of the winners: the VP rows of ``per_seat_counts``, one row per
    (variant, who, strategy) and one column per source, plus ``n``."""
    return vp_table(per_seat_counts(source, **kw))


def vp_table(per_seat: pd.DataFrame) -> pd.DataFrame:
    """``vp_sources`` from a ``per_seat_counts`` table already computed."""
    t = per_seat.reset_index()
    t = t[t["measure"].isin(["vp", *VP_SOURCES])]
    wide = t.pivot_table(index=["variant", "who", "strategy"], columns="measure",
                         values="mean", sort=False)
    n = t[t["measure"] == "vp"].set_index(["variant", "who", "strategy"])["n"]
    wide = wide[["vp", *VP_SOURCES]]
    wide.insert(0, "n", n.reindex(wide.index).astype(np.int64))
    wide.columns.name = None
    return wide


# --- development cards by type -----------------------------------------------------------


def _dev_map(chunk: Chunk):
    out = {}
    for v in chunk.variants:
        for action, cols in (("bought", BOUGHT_COLS), ("played", PLAYED_COLS)):
            for card, c in zip(DEV, cols, strict=True):
                out[(v, card, action)] = S.Hist.of(chunk.per_game(v, c))
    return out


DEV_CARDS = Analysis("dev_cards", {"players": BOUGHT_COLS + PLAYED_COLS}, _dev_map,
                     lambda s, ctx: _describe_frame(s, ["variant", "card", "action"], ctx=ctx))


@reads_source
def dev_cards(source, **kw) -> pd.DataFrame:
    """Development cards bought and played per game (all seats), by type.

    Reads ``players``: ``dev_bought_<card>``, ``dev_played_<card>``. Returns a
    DataFrame indexed by (variant, card, action) with the columns of
    ``per_game_counts``.
    """
    return run(DEV_CARDS, source, **kw)


# --- events: shortages, holders -----------------------------------------------------------


EVENTS = {
    "any_shortage": "games with at least one supply shortage",
    "longest_held": "games where someone holds Longest Route at the end",
    "army_held": "games where someone holds Largest Army at the end",
    "longest_holder_won": "Longest Route holder won (of games with a holder and a winner)",
    "army_holder_won": "Largest Army holder won (of games with a holder and a winner)",
    "no_winner": "games ended by the turn limit (no winner)",
}


def _events_map(chunk: Chunk):
    g = chunk.games
    out = {}
    for v in chunk.variants:
        rows = chunk.game_rows(v)
        n = rows.size
        short = game_values(chunk, v, GAME_MEASURE["shortage_rolls"]) > 0
        winner = g["winner"].to_numpy(dtype="float64", na_value=np.nan)[rows]
        has_w = ~np.isnan(winner)
        counts = {"any_shortage": (n, short.sum()), "no_winner": (n, (~has_w).sum())}
        for name, col in (("longest", "longest_holder"), ("army", "army_holder")):
            h = g[col].to_numpy(dtype="float64", na_value=np.nan)[rows]
            held = ~np.isnan(h)
            counts[f"{name}_held"] = (n, held.sum())
            both = held & has_w
            counts[f"{name}_holder_won"] = (both.sum(), (both & (h == winner)).sum())
        for k, (m, e) in counts.items():
            out[(v, k)] = np.array([m, e], dtype=np.int64)
    return out


def _events_finish(stats, ctx: Context) -> pd.DataFrame:
    keys = _ordered_keys(stats, ctx)
    t = pd.DataFrame([(v, k, EVENTS[k], *stats[(v, k)]) for v, k in keys],
                     columns=["variant", "event", "label", "n", "events"])
    return S.rate_table(t, "events").set_index(["variant", "event"])


EVENT_RATES = Analysis(
    "events",
    {"games": ("winner", "longest_holder", "army_holder", *GAME_MEASURE["shortage_rolls"].columns)},
    _events_map, _events_finish)


@reads_source
def event_rates(source, **kw) -> pd.DataFrame:
    """How often things happen: a supply shortage, Longest Route and Largest Army held
    at the end and whether their holders won, games without a winner.

    Reads ``games``: ``winner``, ``longest_holder``, ``army_holder``, ``shortage_*``.
    Returns a DataFrame indexed by (variant, event): ``label``, ``n``, ``events``,
    ``rate`` with its Wilson interval, ``method``.
    """
    return run(EVENT_RATES, source, **kw)


# --- first builds --------------------------------------------------------------------------


FIRST_BUILDS_COLS = ("first_settlement_turn", "first_city_turn")


def _first_map(chunk: Chunk):
    out = {}
    p = chunk.players
    for v in chunk.variants:
        rows = chunk.player_rows(v)
        won = p["won"].to_numpy()[rows].astype(bool)
        for c in FIRST_BUILDS_COLS:
            x = p[c].to_numpy(dtype="float64", na_value=np.nan)[rows]
            built = ~np.isnan(x)
            for who, sel in (("all seats", np.ones(rows.size, bool)), ("winners", won)):
                out[(v, who, c)] = {"hist": S.Hist.of(x[sel & built].astype(np.int64)),
                                    "seats": np.int64(sel.sum())}
    return out


def _first_finish(stats, ctx: Context) -> pd.DataFrame:
    keys = _ordered_keys(stats, ctx)
    desc = _describe_frame({k: stats[k]["hist"] for k in keys}, ["variant", "who", "measure"],
                           ctx=ctx)
    seats = np.array([int(stats[k]["seats"]) for k in keys])
    built = desc["n"].to_numpy()
    desc.insert(0, "seats", seats)
    desc = desc.rename(columns={"n": "n_built"})
    desc.insert(2, "built_share", built / np.where(seats > 0, seats, np.nan))
    lo, hi = S.wilson_ci(built, seats)
    desc.insert(3, "built_ci_low", lo)
    desc.insert(4, "built_ci_high", hi)
    return desc


FIRST_BUILDS = Analysis("first_builds", {"players": ("won", *FIRST_BUILDS_COLS)}, _first_map,
                        _first_finish)


@reads_source
def first_builds(source, **kw) -> pd.DataFrame:
    """The turn of the first settlement (beyond the starting two) and of the first city,
    for all seats and for winners.

    Reads ``players``: ``won``, ``first_settlement_turn``, ``first_city_turn``.
    Returns a DataFrame indexed by (variant, who, measure): ``seats``, ``n_built``
    (seats that built one), ``built_share`` with its Wilson interval, then the
    turn's mean (t interval over the seats that built), quantiles and ``method``.
    """
    return run(FIRST_BUILDS, source, **kw)


# --- context from human play --------------------------------------------------------------


def human_comparison(length: pd.DataFrame, per_seat: pd.DataFrame) -> pd.DataFrame:
    """The simulated figures beside the published human ones (``HUMAN_REFERENCE``).

    ``length`` is a ``game_length`` table, ``per_seat`` a ``per_seat_counts`` table.
    The human figures come from other populations (people, other rule sets and
    table habits); they are context, not a test.
    """
    rows = []
    for ref in HUMAN_REFERENCE:
        if ref["who"] == "game":
            sim = length.xs(ref["measure"], level="measure")
        else:
            sim = per_seat.xs((ref["who"], "all", ref["measure"]),
                              level=["who", "strategy", "measure"])
        for variant, r in sim.iterrows():
            rows.append({"variant": variant, "measure": ref["measure"], "who": ref["who"],
                         "sim_n": int(r["n"]), "sim_mean": r["mean"], "sim_sd": r["sd"],
                         "sim_ci_low": r["ci_low"], "sim_ci_high": r["ci_high"],
                         "human_mean": ref["human_mean"], "human_sd": ref["human_sd"],
                         "human_n": ref["human_n"], "human_source": ref["human_source"]})
    return pd.DataFrame(rows).set_index(["variant", "measure"])


# --- a game's anatomy beside human play ----------------------------------------------------


def log_measures(header: dict, events: list[dict]) -> dict:
    """What a game's columns do not hold, from its event log replayed by the rules checker
    (``logs.replay``, unchecked: the engine's logs are checked by its own tests).

    Returns ``turn_ends`` (turns that ended with ``turn_end``; the winning turn ends with
    ``game_end`` instead), ``held_mean`` (resource cards a seat holds at the end of a
    turn: the mean over every turn end and every seat; NaN without a turn end),
    ``over_limit_share`` (the share of those hands above the discard limit, which a 7 on
    the next roll would halve; NaN without a limit or a turn end), ``sevens`` (7s rolled)
    and ``sevens_discard`` (7s on which at least one player discarded).
    """
    snaps = replay(header, events, check=False).snapshots
    held = np.array([[sum(h) for h in s["hands"]] for s in snaps], dtype=float)
    limit = header["rules"]["discard_limit"]
    sevens = with_discard = 0
    after_seven = False
    for ev in events:
        if ev["e"] == "roll":
            after_seven = sum(ev["dice"]) == 7
            sevens += after_seven
        elif ev["e"] == "discard" and after_seven:
            with_discard += 1
            after_seven = False  # one 7, however many players discard on it
    some = held.size > 0
    return {"turn_ends": len(snaps),
            "held_mean": float(held.mean()) if some else np.nan,
            "over_limit_share": (float((held > limit).mean()) if some and limit is not None
                                 else np.nan),
            "sevens": sevens, "sevens_discard": with_discard}


# (key, label, how): how the figure is read per game. "game": a games column or a players
# column summed over the seats of a game; "winner": the winner's column; "seat_mean": a
# players column averaged over the seats of a game; "log": a ``log_measures`` value;
# "holds": the share of winners holding a tile (Wilson); "ratio": a share of sums.
ANATOMY_MEASURES = (
    ("rolls", "dice rolls a game", "game"),
    ("turns", "turns a game", "game"),
    ("sevens", "7s rolled a game", "game"),
    *((f"winner_{c}", f"the winner's {w}", "winner") for c, w in (
        ("vp", "VP"), ("vp_settlements", "VP from settlements"),
        ("vp_cities", "VP from cities"), ("vp_longest", "VP from Longest Route"),
        ("vp_army", "VP from Largest Army"), ("vp_cards", "VP from victory point cards"))),
    ("winner_holds_longest", "winners holding Longest Route at the end", "holds"),
    ("winner_holds_army", "winners holding Largest Army at the end", "holds"),
    ("dev_bought", "development cards bought a game", "game"),
    *((f"dev_bought_{d}", f"{d} cards bought a game", "game") for d in DEV),
    ("dev_played", "development cards played a game", "game"),
    *((f"dev_played_{d}", f"{d} cards played a game", "game") for d in DEV
      if d != "victory_point"),
    ("held_mean", "cards a seat holds at a turn's end (mean over turn ends and seats)",
     "log"),
    ("over_limit_share", "share of those hands above the discard limit (mean over games)",
     "log"),
    ("discarded", "cards discarded on 7s a game", "game"),
    ("sevens_discard", "7s with a discard a game", "log"),
    ("sevens_discard_share", "share of 7s with a discard", "ratio"),
    ("cities_per_seat", "cities a seat has at the end", "seat_mean"),
    ("trades_player", "player trades a game (each once)", "game"),
    ("trades_bank", "maritime trades a game", "game"),
)

ANATOMY_COLUMNS = ["label", "n", "mean", "ci_low", "ci_high", "method"]


def anatomy(games: pd.DataFrame, players: pd.DataFrame, logs: pd.DataFrame) -> pd.DataFrame:
    """Each measure of ``ANATOMY_MEASURES`` with its n and 95% interval, per variant.

    ``games`` and ``players`` are the tables of a run (``catansim.load`` or
    ``results.tables``); ``logs`` has one row per game, ``variant`` and ``game`` with the
    keys of ``log_measures``. A game's figure is its own (the winner's, or the mean over
    its seats), so games are the units: a t interval over games for means, a Wilson
    interval for the share of winners holding a tile (one winner a game), a bootstrap
    over games for the share of 7s with a discard. Returns a DataFrame indexed by
    (variant, measure): ``label``, ``n``, ``mean``, ``ci_low``, ``ci_high``, ``method``.
    """
    rows = []
    for v in pd.unique(games["variant"]):
        g = games[games["variant"] == v].set_index("game").sort_index()
        p = players[players["variant"] == v]
        lg = logs[logs["variant"] == v].set_index("game").reindex(g.index)
        by_game = p.groupby("game", observed=True)
        winners = p[p["won"].astype(bool)].set_index("game")
        for key, label, how in ANATOMY_MEASURES:
            if how == "game":
                m = GAME_MEASURE.get(key) or Measure(key, label, "players", (key,))
                if m.table == "games":
                    x = g[list(m.columns)].sum(axis=1)
                else:
                    x = by_game[list(m.columns)].sum().sum(axis=1).reindex(g.index)
                    x = x / 2 if m.halve else x  # a player trade counts on both sides
                r = S.mean_ci(x.to_numpy(dtype=float)) | {"method": S.T_MEAN}
            elif how == "winner":
                r = S.mean_ci(winners[key[len("winner_"):]].to_numpy(dtype=float)) | {
                    "method": S.T_MEAN}
            elif how == "seat_mean":
                cities = (p["vp_cities"] / 2).groupby(p["game"], observed=True).mean()
                r = S.mean_ci(cities.to_numpy(dtype=float)) | {"method": S.T_MEAN}
            elif how == "log":
                r = S.mean_ci(lg[key].to_numpy(dtype=float)) | {"method": S.T_MEAN}
            elif how == "holds":
                col = "longest_holder" if key.endswith("longest") else "army_holder"
                won = g["winner"].notna()
                held = (g.loc[won, col] == g.loc[won, "winner"]).fillna(False)
                n, k = int(won.sum()), int(held.sum())
                lo, hi = S.wilson_ci([k], [n])
                r = {"n": n, "mean": k / n if n else np.nan, "ci_low": float(lo[0]),
                     "ci_high": float(hi[0]), "method": S.WILSON}
            else:  # ratio
                r = S.ratio_ci(lg["sevens_discard"], lg["sevens"]) | {
                    "method": S.RATIO_BOOTSTRAP}
            rows.append({"variant": v, "measure": key, "label": label,
                         **{c: r[c] for c in ANATOMY_COLUMNS[1:]}})
    out = pd.DataFrame(rows)
    out["n"] = out["n"].astype(np.int64)
    return out.set_index(["variant", "measure"])
