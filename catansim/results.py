"""Result tables: the pandas layer over the engine's per-game counters.

The batch kernel returns one ``int32`` counter record per game (the ``c_*``
fields of ``core.layout.STATE_FIELDS``). This module labels every slot, in the
spirit of vectorbt's ``records_readable``:

``games_frame(batch)``
    One row per game: its index and seed, the board id and board features,
    dice, shortages, robber, holders and the winner.
``players_frame(batch)``
    One row per seat that played, per game: VP and their sources, production,
    robber and trade activity, development cards, first builds.

Column names are readable (``produced_wood``); names (strategies, variants,
layouts, end reasons) are categorical; a ``-1`` that means "none" (no winner,
never built a city) becomes ``<NA>`` in a nullable integer column. Every
column is listed with its dtype and meaning in ``COLUMNS`` and in
``docs/results.md`` (regenerate with ``python -m catansim.results``).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd

from .constants import DEV_CARD_NAMES, MAX_PLAYERS, RESOURCE_NAMES
from .core import layout as L

P = MAX_PLAYERS
LAYOUT_CATEGORIES = ("variable", "random_numbers", "beginner", "given")
END_REASONS = ("win", "turn_limit")  # end_reason codes 1 and 2
DEFAULT_VARIANT = "baseline"

# --- column specifications -------------------------------------------------------
# Game-level counters: (state field, column names, dtype, meaning). "Int8" etc. are
# pandas nullable dtypes: -1 in the record becomes <NA>.
_ROLL_SUMS = tuple(range(2, 13))
_GAME_COUNTERS: tuple[tuple[str, tuple[str, ...], str, str], ...] = (
    ("c_winner", ("winner",), "Int8", "winning seat (0-based); <NA> if nobody won"),
    ("c_turns", ("turns",), "int32", "turns played (every player's turn counts; setup is 0)"),
    ("c_sevens", ("sevens",), "int32", "7s rolled"),
    ("c_rolls", tuple(f"rolls_{k}" for k in _ROLL_SUMS), "int32",
     "times the dice summed to {item}"),
    ("c_shortage_events", tuple(f"shortage_{r}" for r in RESOURCE_NAMES), "int32",
     "rolls on which {item} could not be paid in full from the supply"),
    ("c_robber_moves", ("robber_moves",), "int32", "times the robber moved"),
    ("c_longest_holder", ("longest_holder",), "Int8",
     "seat holding Longest Route at the end; <NA> if nobody"),
    ("c_army_holder", ("army_holder",), "Int8",
     "seat holding Largest Army at the end; <NA> if nobody"),
    ("c_illegal", ("illegal",), "int32",
     "strategy actions the engine rejected (a strategy bug; 0 expected)"),
    ("c_violations", ("violations",), "int32",
     "invariant violations found when rules check=1 (0 expected; 0 when checks are off)"),
)
_GAME_SPECIAL = ("c_end_reason",)  # mapped to a categorical by hand

_RES = tuple(RESOURCE_NAMES)
_DEV = tuple(DEV_CARD_NAMES)
# Per-player counters (P * k slots, seat-major): (field, column names, dtype, meaning).
_PLAYER_COUNTERS: tuple[tuple[str, tuple[str, ...], str, str], ...] = (
    ("c_vp", ("vp",), "int32", "final victory points, hidden VP cards included"),
    ("c_vp_settlements", ("vp_settlements",), "int32", "VP from settlements at the end"),
    ("c_vp_cities", ("vp_cities",), "int32", "VP from cities at the end"),
    ("c_vp_longest", ("vp_longest",), "int32", "VP from Longest Route at the end (0 or 2)"),
    ("c_vp_army", ("vp_army",), "int32", "VP from Largest Army at the end (0 or 2)"),
    ("c_vp_cards", ("vp_cards",), "int32", "VP from victory point cards at the end"),
    ("c_route_len", ("route_len",), "int32", "length of the longest route at the end"),
    ("c_roads", ("roads",), "int32", "roads on the board at the end"),
    ("c_knights", ("knights",), "int32", "knights played"),
    ("c_start_nodes", ("start_node_1", "start_node_2"), "int16",
     "node of the {item} starting settlement"),
    ("c_start_pips", ("start_pips_1", "start_pips_2"), "int32",
     "pips of the land hexes at the {item} starting settlement"),
    ("c_start_cards", tuple(f"start_{r}" for r in _RES), "int32",
     "{item} cards received from the second starting settlement"),
    ("c_produced", tuple(f"produced_{r}" for r in _RES), "int32",
     "{item} cards received from production"),
    ("c_blocked", ("blocked",), "int32", "cards the robber's hex would have paid the player"),
    ("c_withheld", tuple(f"withheld_{r}" for r in _RES), "int32",
     "{item} cards owed by production but not paid because of the shortage rule"),
    ("c_stolen", ("stolen",), "int32", "cards lost to steals"),
    ("c_robbed", ("robbed",), "int32", "times chosen as the robber's victim"),
    ("c_steals", ("steals",), "int32", "cards gained by stealing"),
    ("c_discarded", ("discarded",), "int32", "cards discarded on 7s"),
    ("c_monopoly_gain", ("monopoly_gain",), "int32", "cards gained by Monopoly"),
    ("c_trades_bank", ("trades_bank",), "int32", "maritime trades (bank or harbor)"),
    ("c_trades_player", ("trades_player",), "int32", "player trades completed (either side)"),
    ("c_offers", ("offers",), "int32", "player-trade offers made"),
    ("c_dev_bought", tuple(f"dev_bought_{d}" for d in _DEV), "int32",
     "{item} development cards bought"),
    ("c_dev_played", tuple(f"dev_played_{d}" for d in _DEV), "int32",
     "{item} development cards played"),
    ("c_first_city", ("first_city_turn",), "Int32", "turn of the first city; <NA> if none"),
    ("c_first_settlement", ("first_settlement_turn",), "Int32",
     "turn of the first settlement beyond the starting two; <NA> if none"),
)
_ITEM_WORDS = {"start_node_1": "first", "start_node_2": "second",
               "start_pips_1": "first", "start_pips_2": "second"}

_FEATURE_MEANINGS = {
    "pips_std": "board: population standard deviation of the five pips_<resource> values",
    "pips_max_min_ratio": "board: largest / smallest pips_<resource> (inf if one is 0)",
    "red_adjacent_pairs": "board: pairs of side-sharing hexes both showing 6 or 8",
    "same_terrain_pairs": "board: pairs of side-sharing hexes of the same terrain",
    "same_number_pairs": "board: pairs of side-sharing hexes with the same number",
    "best_node_pips": "board: pips of the best intersection",
    "top5_node_pips": "board: mean pips of the five best intersections",
    "desert_hex": "board: hex index of the desert (robber start)",
    "desert_ring": "board: ring of the desert (0 centre, 2 coast)",
}
_FEATURE_PATTERNS = (
    ("harbor_node_pips_", "board: pips of the better intersection at the {item} 2:1 harbor"),
    ("harbor_match_pips_", "board: pips of {item} hexes touching the {item} 2:1 harbor"),
    ("pips_", "board: pips of all hexes producing {item}"),
)


def _feature_meaning(name: str) -> str:
    if name in _FEATURE_MEANINGS:
        return _FEATURE_MEANINGS[name]
    for prefix, text in _FEATURE_PATTERNS:
        if name.startswith(prefix):
            return text.format(item=name[len(prefix):])
    raise KeyError(f"board feature {name!r} has no documented meaning in catansim.results")


def _item_text(col: str, names: tuple[str, ...], template: str) -> str:
    if "{item}" not in template:
        return template
    if col in _ITEM_WORDS:
        return template.format(item=_ITEM_WORDS[col])
    item = col.rsplit("_", 1)[-1]
    for prefix in ("rolls_", "dev_bought_", "dev_played_"):
        if col.startswith(prefix):
            item = col[len(prefix):]
    return template.format(item=item)


def _feature_dtypes() -> dict[str, str]:
    from .metrics import board_features

    feats = board_features(np.zeros((1, L.BOARD_SIZE), dtype=np.int32))
    return {k: str(v.dtype) for k, v in feats.items()}


def _columns_table() -> pd.DataFrame:
    rows = [
        ("games", "game", "int64", "game index in the run (0-based); seeds and parts follow it"),
        ("games", "seed", "int64",
         "the game's own seed: `catansim play --seed SEED` with the same settings replays it"),
        ("games", "variant", "category", "variant name (`baseline` unless the experiment has "
         "variants); all variants play the same seeds"),
        ("games", "board_id", "int64", "stable 63-bit id of the board (`boards.board_ids`)"),
        ("games", "layout", "category", "variable, random_numbers (a board per game), beginner "
         "or given (one fixed board)"),
        ("games", "n_players", "int8", "seats playing (3 or 4)"),
    ]
    for p in range(P):
        rows.append(("games", f"strategy_{p}", "category",
                     f"strategy at seat {p}; NaN if the seat is unused"))
    rows.append(("games", "end_reason", "category", "win or turn_limit (max_turns reached)"))
    for field, cols, dtype, meaning in _GAME_COUNTERS:
        for c in cols:
            rows.append(("games", c, dtype, _item_text(c, cols, meaning)))
        if field == "c_winner":
            rows.append(("games", "winner_strategy", "category",
                         "strategy of the winning seat; NaN if nobody won"))
    for name, dtype in _feature_dtypes().items():
        rows.append(("games", name, dtype, _feature_meaning(name)))
    rows += [
        ("players", "game", "int64", "game index in the run (joins games.game)"),
        ("players", "seed", "int64", "the game's own seed"),
        ("players", "variant", "category", "variant name (joins games.variant)"),
        ("players", "seat", "int8", "seat (0-based, seat 0 starts)"),
        ("players", "strategy", "category", "strategy playing the seat"),
        ("players", "won", "bool", "True if this seat won the game"),
    ]
    for _, cols, dtype, meaning in _PLAYER_COUNTERS:
        for c in cols:
            rows.append(("players", c, dtype, _item_text(c, cols, meaning)))
    return pd.DataFrame(rows, columns=["table", "name", "dtype", "meaning"])


COLUMNS: pd.DataFrame = _columns_table()


# --- building the tables ---------------------------------------------------------------
# A table is first an ordered dict of columns, each a plain ndarray, a _Names
# (categorical codes) or a _Maybe (nullable integers). ``_frame`` makes it a pandas
# DataFrame; ``_arrow`` makes it a pyarrow Table directly from the arrays, with the
# schema (pandas metadata included) that ``pa.Table.from_pandas(frame,
# preserve_index=False)`` gives, so the Parquet files are the same either way.


class _Names(NamedTuple):
    """A categorical column: codes (-1 is NaN) and the categories."""

    codes: np.ndarray
    dtype: pd.CategoricalDtype


class _Maybe(NamedTuple):
    """A nullable integer column: values (0 where none) and the mask of nones."""

    values: np.ndarray
    none: np.ndarray


def _names_dtype(names) -> pd.CategoricalDtype:
    return pd.CategoricalDtype(list(names), ordered=False)


def _codes_dtype(n_categories: int) -> type:
    """The dtype pandas gives the codes of a categorical with ``n_categories``."""
    for t in (np.int8, np.int16, np.int32):
        if n_categories < np.iinfo(t).max:
            return t
    return np.int64


def _names(codes: np.ndarray, dtype: pd.CategoricalDtype) -> _Names:
    return _Names(np.asarray(codes).astype(_codes_dtype(len(dtype.categories)), copy=False),
                  dtype)


def _same_names(name, n: int, dtype: pd.CategoricalDtype) -> _Names:
    """``n`` rows of ``name`` (NaN if None or not a category)."""
    cats = list(dtype.categories)
    code = cats.index(name) if name is not None and name in cats else -1
    return _Names(np.full(n, code, dtype=_codes_dtype(len(cats))), dtype)


def _column(values: np.ndarray, dtype: str):
    if dtype[0] == "I":  # nullable: -1 means none
        none = values < 0
        return _Maybe(np.where(none, 0, values).astype(dtype.lower()), none)
    return np.ascontiguousarray(values, dtype=dtype)


def _frame(cols: dict) -> pd.DataFrame:
    out = {}
    for name, col in cols.items():
        if isinstance(col, _Names):
            col = pd.Categorical.from_codes(col.codes, dtype=col.dtype, validate=False)
        elif isinstance(col, _Maybe):
            col = pd.arrays.IntegerArray(col.values, col.none)
        out[name] = col
    return pd.DataFrame(out)


_SCHEMAS: dict = {}
_DICTIONARIES: dict = {}


def _schema(cols: dict):
    """The ``from_pandas`` schema of these columns (cached: it depends only on the dtypes)."""
    import pyarrow as pa

    key = tuple((name, tuple(col.dtype.categories) if isinstance(col, _Names)
                 else ("I", col.values.dtype.str) if isinstance(col, _Maybe) else col.dtype.str)
                for name, col in cols.items())
    schema = _SCHEMAS.get(key)
    if schema is None:
        empty = {name: (col._replace(codes=col.codes[:0]) if isinstance(col, _Names)
                        else _Maybe(col.values[:0], col.none[:0]) if isinstance(col, _Maybe)
                        else col[:0]) for name, col in cols.items()}
        schema = pa.Table.from_pandas(_frame(empty), preserve_index=False).schema
        if len(_SCHEMAS) > 64:
            _SCHEMAS.clear()
        _SCHEMAS[key] = schema
    return schema


def _dictionary(value_type, categories: tuple):
    import pyarrow as pa

    key = (str(value_type), categories)
    arr = _DICTIONARIES.get(key)
    if arr is None:
        arr = pa.array(list(categories), type=value_type)
        if len(_DICTIONARIES) > 256:
            _DICTIONARIES.clear()
        _DICTIONARIES[key] = arr
    return arr


def _arrow(cols: dict):
    """The columns as a pyarrow Table equal to ``from_pandas(_frame(cols))``, without pandas."""
    import pyarrow as pa

    schema = _schema(cols)
    arrays = []
    for field, col in zip(schema, cols.values(), strict=True):
        if isinstance(col, _Names):
            none = col.codes < 0
            idx = pa.array(col.codes, type=field.type.index_type,
                           mask=none if none.any() else None)
            arrays.append(pa.DictionaryArray.from_arrays(
                idx, _dictionary(field.type.value_type, tuple(col.dtype.categories))))
        elif isinstance(col, _Maybe):
            arrays.append(pa.array(col.values, type=field.type, mask=col.none))
        else:
            arrays.append(pa.array(col, type=field.type, from_pandas=True))
    return pa.Table.from_arrays(arrays, schema=schema)


def counter_field(counters: np.ndarray, name: str) -> np.ndarray:
    """Columns of counter ``name`` (a ``c_*`` state field) in ``counters[n, N_COUNTERS]``."""
    off = L.STATE_OFFSETS[name] - L.S_COUNTERS
    return counters[:, off : off + L.STATE_LENGTHS[name]]


class _Rows(NamedTuple):
    """The games of a table: one batch, or several merged in game-index order."""

    seeds: np.ndarray  # int64[n]
    counters: np.ndarray  # int32[n, N_COUNTERS]
    boards: np.ndarray  # int32[n, BOARD_SIZE]
    game_index: np.ndarray  # int64[n]
    settings: object  # GameSettings of the first batch
    seat_strategies: tuple  # strategies by seat, one tuple per batch
    source: np.ndarray | None  # batch of each row; None: all from batch 0


def _index(batch, game_index) -> np.ndarray:
    n = batch.seeds.size
    if game_index is None:
        return np.arange(n, dtype=np.int64)
    gi = np.asarray(game_index, dtype=np.int64)
    if gi.shape != (n,):
        raise ValueError(f"game_index: expected {n} values, got shape {gi.shape}")
    return gi


def _rows(batch, game_index) -> _Rows:
    if not isinstance(batch, list | tuple):
        return _Rows(batch.seeds.astype(np.int64, copy=False), batch.counters, batch.boards,
                     _index(batch, game_index), batch.settings, (batch.settings.strategies,),
                     None)
    batches = list(batch)
    if not batches:
        raise ValueError("batch: expected at least one batch")
    if game_index is None or len(game_index) != len(batches):
        raise ValueError("game_index: give one index array per batch")
    first = batches[0].settings
    for b in batches[1:]:
        if (b.settings.n_players, b.settings.layout) != (first.n_players, first.layout):
            raise ValueError("batch: the batches must differ only in their strategies")
    if len(batches) == 1:
        return _rows(batches[0], game_index[0])
    gis = [_index(b, g) for b, g in zip(batches, game_index, strict=True)]
    gi = np.concatenate(gis)
    n = gi.size
    order = np.argsort(gi, kind="stable")
    pos = np.empty(n, dtype=np.int64)
    pos[order] = np.arange(n)
    c0 = batches[0].counters
    seeds = np.empty(n, dtype=np.int64)
    counters = np.empty((n, c0.shape[1]), dtype=c0.dtype)
    boards = np.empty((n, batches[0].boards.shape[1]), dtype=batches[0].boards.dtype)
    source = np.empty(n, dtype=np.int64)
    start = 0
    for i, b in enumerate(batches):
        at = pos[start : start + b.seeds.size]
        seeds[at] = b.seeds
        counters[at] = b.counters
        boards[at] = b.boards
        source[at] = i
        start += b.seeds.size
    return _Rows(seeds, counters, boards, gi[order], first,
                 tuple(b.settings.strategies for b in batches), source)


def _strategy_dtype(rows: _Rows, strategy_names) -> pd.CategoricalDtype:
    used = {s for seats in rows.seat_strategies for s in seats}
    if strategy_names is None:
        return _names_dtype(sorted(used))
    names = list(strategy_names)
    missing = used - set(names)
    if missing:
        raise ValueError(f"strategy_names: {sorted(missing)} missing from the categories")
    return _names_dtype(names)


def _seat_codes(rows: _Rows, dtype: pd.CategoricalDtype) -> np.ndarray:
    """int64[batches, P]: the strategy code of each seat in each batch, -1 if unused."""
    out = np.full((len(rows.seat_strategies), P), -1, dtype=np.int64)
    for i, seats in enumerate(rows.seat_strategies):
        out[i, : len(seats)] = [dtype.categories.get_loc(s) for s in seats]
    return out


def _by_row(per_batch: np.ndarray, rows: _Rows) -> np.ndarray:
    """Values given per batch (first axis), picked for each row."""
    if rows.source is None:
        return np.broadcast_to(per_batch[0], (rows.seeds.size, *per_batch.shape[1:]))
    return per_batch[rows.source]


def _layout_name(settings) -> str:
    return settings.layout if settings.layout in LAYOUT_CATEGORIES else "given"


def _game_columns(rows: _Rows, variant: str, variants, strategy_names) -> dict:
    from .boards import board_ids
    from .metrics import board_features

    c = rows.counters
    n = c.shape[0]
    settings = rows.settings
    strat_dtype = _strategy_dtype(rows, strategy_names)
    seat_codes = _seat_codes(rows, strat_dtype)
    cols: dict[str, object] = {
        "game": rows.game_index,
        "seed": rows.seeds,
        "variant": _same_names(variant, n, _names_dtype(variants or [variant])),
    }
    given = settings.layout not in ("variable", "random_numbers")
    if given and n:
        vec = rows.boards[:1]
        bid = np.repeat(board_ids(vec), n)
        feats = {k: np.repeat(v, n) for k, v in board_features(vec).items()}
    else:
        bid = board_ids(rows.boards)
        feats = board_features(rows.boards) if n else {
            k: np.zeros(0, dtype=d) for k, d in _feature_dtypes().items()}
    cols["board_id"] = bid
    cols["layout"] = _same_names(_layout_name(settings), n, _names_dtype(LAYOUT_CATEGORIES))
    cols["n_players"] = np.full(n, settings.n_players, dtype=np.int8)
    for p in range(P):
        cols[f"strategy_{p}"] = _names(_by_row(seat_codes[:, p], rows), strat_dtype)
    end = counter_field(c, "c_end_reason")[:, 0]
    cols["end_reason"] = _names(np.where((end >= 1) & (end <= 2), end - 1, -1),
                                _names_dtype(END_REASONS))
    for field, names, dtype, _ in _GAME_COUNTERS:
        block = counter_field(c, field)
        for j, name in enumerate(names):
            cols[name] = _column(block[:, j], dtype)
        if field == "c_winner":
            w = block[:, 0].astype(np.int64)
            codes = np.take_along_axis(_by_row(seat_codes, rows), np.maximum(w, 0)[:, None],
                                       axis=1)[:, 0]
            cols["winner_strategy"] = _names(np.where(w >= 0, codes, -1), strat_dtype)
    cols.update(feats)
    return cols


def _player_columns(rows: _Rows, variant: str, variants, strategy_names) -> dict:
    c = rows.counters
    n = c.shape[0]
    k = rows.settings.n_players
    strat_dtype = _strategy_dtype(rows, strategy_names)
    seat_codes = _seat_codes(rows, strat_dtype)[:, :k]
    seat = np.tile(np.arange(k, dtype=np.int8), n)
    winner = counter_field(c, "c_winner")[:, 0]
    cols: dict[str, object] = {
        "game": np.repeat(rows.game_index, k),
        "seed": np.repeat(rows.seeds, k),
        "variant": _same_names(variant, n * k, _names_dtype(variants or [variant])),
        "seat": seat,
        "strategy": _names(_by_row(seat_codes, rows).reshape(n * k), strat_dtype),
        "won": np.repeat(winner, k) == seat,
    }
    seats = np.arange(k)
    for field, names, dtype, _ in _PLAYER_COUNTERS:
        width = len(names)
        off = L.STATE_OFFSETS[field] - L.S_COUNTERS
        for j, name in enumerate(names):
            # seat-major slots: one gather gives the (game, seat) rows of the column
            values = np.take(c, off + seats * width + j, axis=1).reshape(n * k)
            cols[name] = _column(values, dtype)
    return cols


def games_frame(batch, game_index=None, variant: str = DEFAULT_VARIANT, variants=None,
                strategy_names=None) -> pd.DataFrame:
    """One row per game of a batch (columns: ``COLUMNS[COLUMNS.table == "games"]``).

    Parameters
    ----------
    batch : catansim.sim.BatchResult, or a sequence of them
        Output of ``play_batch``. Several batches that differ only in their
        strategies (the seat rotations of a run's part) make one table, in
        game-index order; ``game_index`` is then one array per batch.
    game_index : int array (n,), optional
        Index of each game in its run (default ``0 .. n-1``).
    variant : str
        Variant label of every row.
    variants : sequence of str, optional
        Categories of the ``variant`` column (default ``[variant]``); give the
        run's full list so frames of different variants concatenate as categoricals.
    strategy_names : sequence of str, optional
        Categories of the strategy columns (default: the batch's strategies, sorted).

    Returns
    -------
    pandas.DataFrame
    """
    return _frame(_game_columns(_rows(batch, game_index), variant, variants, strategy_names))


def players_frame(batch, game_index=None, variant: str = DEFAULT_VARIANT, variants=None,
                  strategy_names=None) -> pd.DataFrame:
    """One row per seat that played, per game (``n_games * n_players`` rows, game-major).

    Unused seats (3-player games) produce no rows. Parameters as ``games_frame``.

    Returns
    -------
    pandas.DataFrame
        Columns ``COLUMNS[COLUMNS.table == "players"]``.
    """
    return _frame(_player_columns(_rows(batch, game_index), variant, variants, strategy_names))


def games_table(batch, game_index=None, variant: str = DEFAULT_VARIANT, variants=None,
                strategy_names=None):
    """``games_frame`` as a pyarrow Table, built from the arrays without pandas.

    Equal, schema metadata included, to ``pa.Table.from_pandas(games_frame(...),
    preserve_index=False)``; the runner writes it to Parquet. Parameters as ``games_frame``.
    """
    return _arrow(_game_columns(_rows(batch, game_index), variant, variants, strategy_names))


def players_table(batch, game_index=None, variant: str = DEFAULT_VARIANT, variants=None,
                  strategy_names=None):
    """``players_frame`` as a pyarrow Table (see ``games_table``)."""
    return _arrow(_player_columns(_rows(batch, game_index), variant, variants, strategy_names))


def wilson_ci(wins, games, confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval of a win rate (scipy.stats.binomtest), element-wise.

    Groups with no games get NaN bounds.
    """
    from scipy.stats import binomtest

    wins = np.atleast_1d(np.asarray(wins, dtype=np.int64))
    games = np.atleast_1d(np.asarray(games, dtype=np.int64))
    lo = np.full(wins.shape, np.nan)
    hi = np.full(wins.shape, np.nan)
    for i, (k, n) in enumerate(zip(wins, games, strict=True)):
        if n > 0:
            ci = binomtest(int(k), int(n)).proportion_ci(confidence, method="wilson")
            lo[i], hi[i] = ci.low, ci.high
    return lo, hi


def _win_table(counts: pd.DataFrame, confidence: float = 0.95) -> pd.DataFrame:
    # counts: index the group, columns games and wins.
    g = counts[["games", "wins"]].astype(np.int64)
    g["ci_low"], g["ci_high"] = wilson_ci(g["wins"], g["games"], confidence)
    g["win_rate"] = g["wins"] / g["games"]
    return g[["games", "wins", "win_rate", "ci_low", "ci_high"]]


def win_rates(players: pd.DataFrame, by: str, confidence: float = 0.95) -> pd.DataFrame:
    """Win rate per group of a players table, with Wilson confidence intervals.

    Parameters
    ----------
    players : DataFrame
        A players table (``players_frame`` or ``catansim.load``).
    by : str
        ``strategy``, ``seat`` or another players column.
    confidence : float
        Confidence level of the interval (``scipy.stats.binomtest(...).proportion_ci``).

    Returns
    -------
    DataFrame
        Index ``by``; columns ``games`` (seat-games), ``wins``, ``win_rate``, ``ci_low``,
        ``ci_high``.
    """
    counts = players.groupby(by, observed=True)["won"].agg(games="size", wins="sum")
    return _win_table(counts, confidence)


VP_SOURCES = ("vp_settlements", "vp_cities", "vp_longest", "vp_army", "vp_cards")
SUMMARY_COLUMNS = {
    "games": ["variant", "game", "turns", "end_reason"],
    "players": ["variant", "game", "seat", "strategy", "won", "vp", *VP_SOURCES],
}


class Summary:
    """The tables of ``summarize``, accumulated a part at a time.

    ``add(games, players)`` takes the games and players rows of any set of games
    (``SUMMARY_COLUMNS`` suffice); ``tables()`` gives what ``summarize`` of all the
    rows added would give. It keeps counts and sums only (game lengths as a
    histogram of turns), so summarising a dataset needs the memory of one part
    whatever the number of games.
    """

    def __init__(self):
        self._turns = np.zeros(1, dtype=np.int64)  # games by number of turns
        self._turn_limit = 0
        self._wins: dict[str, pd.DataFrame] = {}
        self._vp: dict[str, pd.DataFrame] = {}

    @staticmethod
    def _plus(old, new):
        return new if old is None else old.add(new, fill_value=0)

    def add(self, games: pd.DataFrame, players: pd.DataFrame) -> Summary:
        counts = np.bincount(games["turns"].to_numpy(np.int64))
        if counts.size > self._turns.size:
            counts[: self._turns.size] += self._turns
            self._turns = counts
        else:
            self._turns[: counts.size] += counts
        self._turn_limit += int((games["end_reason"] == "turn_limit").sum())
        for by in ("strategy", "seat"):
            c = players.groupby(by, observed=True)["won"].agg(games="size", wins="sum")
            self._wins[by] = self._plus(self._wins.get(by), c)
        cols = ["vp", *VP_SOURCES]
        for who, rows in (("all seats", players), ("winners", players[players["won"]])):
            grouped = rows.groupby("strategy", observed=True)
            sums = grouped[cols].sum().astype(np.int64)
            sums["_n"] = grouped.size()
            self._vp[who] = self._plus(self._vp.get(who), sums)
        return self

    def _quantile(self, q: float) -> float:
        # pandas' default (linear) quantile of the turns, from their histogram.
        cum = np.cumsum(self._turns)
        pos = (cum[-1] - 1) * q
        lo, hi = int(np.floor(pos)), int(np.ceil(pos))
        x_lo = float(np.searchsorted(cum, lo, side="right"))
        x_hi = float(np.searchsorted(cum, hi, side="right"))
        return x_lo + (x_hi - x_lo) * (pos - lo)

    def tables(self) -> dict[str, pd.DataFrame]:
        """The summary tables (see ``summarize``)."""
        n = int(self._turns.sum())
        t = np.arange(self._turns.size, dtype=float)
        if n:
            mean = float((t * self._turns).sum() / n)
            std = float(np.sqrt((self._turns * (t - mean) ** 2).sum() / (n - 1))) if n > 1 \
                else np.nan
            stats = [mean, std, self._quantile(0.1), self._quantile(0.5), self._quantile(0.9),
                     float(np.flatnonzero(self._turns)[-1]), self._turn_limit / n]
        else:
            stats = [np.nan] * 7
        length = pd.DataFrame(
            {k: [v] for k, v in zip(("mean", "std", "p10", "median", "p90", "max",
                                     "turn_limit_share"), stats, strict=True)},
            index=pd.Index(["turns"], name=""))
        length.insert(0, "games", [n])
        vp = pd.concat({who: self._vp_means(who) for who in ("all seats", "winners")},
                       names=["who", "strategy"])
        return {
            "by_strategy": _win_table(self._wins["strategy"]),
            "by_seat": _win_table(self._wins["seat"]),
            "length": length.round(2),
            "vp_sources": vp.round(2),
        }

    def _vp_means(self, who: str) -> pd.DataFrame:
        sums = self._vp[who]
        return sums[["vp", *VP_SOURCES]].div(sums["_n"], axis=0)


def summarize(games: pd.DataFrame, players: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """The summary tables ``catansim simulate`` and ``catansim run`` print.

    Returns
    -------
    dict of str to DataFrame
        ``by_strategy`` and ``by_seat`` (``win_rates``), ``length`` (turns: mean,
        standard deviation, quantiles, share ending at the turn limit, no winner) and
        ``vp_sources`` (mean VP by source per strategy, for all seats and for winners).
        ``Summary`` builds the same tables a part at a time.
    """
    return Summary().add(games, players).tables()


def format_summary(tables: dict[str, pd.DataFrame]) -> str:
    """The ``summarize`` tables as text: win rates by strategy and seat, length, VP sources."""
    fmt = {"win_rate": "{:.3f}".format, "ci_low": "{:.3f}".format, "ci_high": "{:.3f}".format}
    parts = [
        f"Win rate by strategy (95% CI, Wilson)\n{tables['by_strategy'].to_string(formatters=fmt)}",
        f"Win rate by seat (95% CI, Wilson)\n{tables['by_seat'].to_string(formatters=fmt)}",
        f"Game length (turns)\n{tables['length'].to_string()}",
        f"VP sources (mean per seat)\n{tables['vp_sources'].to_string()}",
    ]
    return "\n\n".join(parts)


def state_fields_frame() -> pd.DataFrame:
    """The engine's state layout (``core.layout.STATE_FIELDS``) as a table."""
    return pd.DataFrame(
        [(name, L.STATE_OFFSETS[name], n, meaning) for name, n, meaning in L.STATE_FIELDS],
        columns=["field", "offset", "length", "meaning"],
    )


def covered_fields() -> set[str]:
    """The counter fields (``c_*``) that appear in the result tables."""
    return ({f for f, *_ in _GAME_COUNTERS} | {f for f, *_ in _PLAYER_COUNTERS}
            | set(_GAME_SPECIAL))


def render_docs() -> str:
    """The Markdown text of ``docs/results.md`` (generated from ``COLUMNS``)."""
    out = [
        "# Result tables",
        "",
        "<!-- Generated by `python -m catansim.results`; do not edit by hand. -->",
        "",
        "A run writes two tables (`catansim.load(path)` returns both as pandas",
        "DataFrames): **games**, one row per game, and **players**, one row per seat",
        "that played in each game (`n_games * n_players` rows; unused seats of",
        "3-player games have no rows). They join on `(variant, game)`.",
        "",
        "Names are categorical. `Int8`/`Int32` are pandas nullable integers: `<NA>`",
        "stands for \"none\" (no winner, no holder, never built). Seats are 0-based",
        "and seat 0 starts. Resources: " + ", ".join(RESOURCE_NAMES) + "; development "
        "cards: " + ", ".join(DEV_CARD_NAMES) + ".",
        "",
        "On disk (`catansim run`) each part of each table is one Parquet file with",
        "these dtypes in its pandas metadata and a `catansim` metadata key (experiment,",
        "seeds, game range). Compression is zstd at level 1; columns are dictionary",
        "encoded except `game` (delta encoded) and `seed` and `board_id` (plain), which",
        "a dictionary would only make larger and slower to write.",
        "",
    ]
    for table in ("games", "players"):
        out += [f"## {table}", "", "| column | dtype | meaning |", "|---|---|---|"]
        for row in COLUMNS[COLUMNS.table == table].itertuples():
            out.append(f"| `{row.name}` | {row.dtype} | {row.meaning} |")
        out.append("")
    return "\n".join(out)


DOCS_PATH = Path(__file__).resolve().parent.parent / "docs" / "results.md"


if __name__ == "__main__":  # pragma: no cover - regenerates the docs
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else DOCS_PATH
    target.write_text(render_docs())
    print(f"wrote {target}")
