"""The games and players tables of a batch, built from the kernel's counter records.

``games_frame(batch)``
    One row per game: its index and seed, the board id and board features,
    dice, shortages, robber, holders and the winner.
``players_frame(batch)``
    One row per seat that played, per game: VP and their sources, production,
    robber and trade activity, development cards, first builds.

``games_table`` and ``players_table`` give the same as pyarrow Tables built
straight from the arrays (what the runner writes to Parquet). Every column is
specified once, in ``results.schema``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd
import pyarrow as pa

from ..board import SEEDED_LAYOUTS, board_ids
from ..board.metrics import board_features
from ..core import layout as L
from ..errors import CatansimError
from .schema import (
    _GAME_COUNTERS,
    _PLAYER_COUNTERS,
    DEFAULT_VARIANT,
    END_REASONS,
    LAYOUT_CATEGORIES,
    P,
    feature_dtypes,
    layout_categories,
)

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
        raise CatansimError(f"game_index: expected {n} values, got shape {gi.shape}; "
                            "allowed: one game index per game of the batch")
    return gi


def _rows(batch, game_index) -> _Rows:
    if not isinstance(batch, list | tuple):
        return _Rows(batch.seeds.astype(np.int64, copy=False), batch.counters, batch.boards,
                     _index(batch, game_index), batch.settings, (batch.settings.strategies,),
                     None)
    batches = list(batch)
    if not batches:
        raise CatansimError("batch: an empty list is not allowed; allowed: a BatchResult "
                            "or a list of them")
    if game_index is None or len(game_index) != len(batches):
        raise CatansimError("game_index: expected one index array per batch; allowed: a list "
                            "as long as the list of batches")
    first = batches[0].settings
    for b in batches[1:]:
        if (b.settings.n_players, b.settings.layout) != (first.n_players, first.layout):
            raise CatansimError("batch: the batches differ in players or layout; allowed: "
                                "batches that differ only in their strategies")
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
        raise CatansimError(f"strategy_names: {sorted(missing)} missing from the categories; "
                            "allowed: a list holding every strategy the batches use")
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
    return settings.layout if settings.layout in SEEDED_LAYOUTS or settings.layout in \
        LAYOUT_CATEGORIES else "given"


def _game_columns(rows: _Rows, variant: str, variants, strategy_names) -> dict:
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
    # one fixed board: its id and features once (a board set has one board per batch)
    given = (settings.layout not in SEEDED_LAYOUTS and n
             and bool((rows.boards == rows.boards[0]).all()))
    if given:
        vec = rows.boards[:1]
        bid = np.repeat(board_ids(vec), n)
        feats = {k: np.repeat(v, n) for k, v in board_features(vec).items()}
    else:
        bid = board_ids(rows.boards)
        feats = board_features(rows.boards) if n else {
            k: np.zeros(0, dtype=d) for k, d in feature_dtypes().items()}
    cols["board_id"] = bid
    layout = _layout_name(settings)
    cols["layout"] = _same_names(layout, n, _names_dtype(layout_categories(layout)))
    cols["n_players"] = np.full(n, settings.n_players, dtype=np.int8)
    for p in range(P):
        cols[f"strategy_{p}"] = _names(_by_row(seat_codes[:, p], rows), strat_dtype)
    end = L.counter(c, "c_end_reason")
    cols["end_reason"] = _names(np.where((end >= 1) & (end <= 2), end - 1, -1),
                                _names_dtype(END_REASONS))
    for field, names, dtype, _ in _GAME_COUNTERS:
        block = L.counter(c, field).reshape(len(c), -1)
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
    winner = L.counter(c, "c_winner")
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
        off = L.COUNTER_OFFSETS[field]
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
    batch : catansim.engine.BatchResult, or a sequence of them
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


