"""Results: the column schema, tables from the kernel's records, the dataset on disk.

What lives here, in data-path order:

- ``schema``: every column of the games and players tables with its dtype and
  meaning (``COLUMNS``; ``docs/results.md`` is generated from it);
- ``tables``: the tables of a played batch, as pandas frames or pyarrow Tables;
- ``dataset``: the dataset folder: atomic Parquet parts, the manifest, ``load`` and
  ``iter_parts`` (one part at a time, only the columns asked for) and
  ``iter_game_ranges`` (the parts of every variant for the same games together);
- ``arms``: the names of forced-opening arms (the variants of a ``[sweep]``), read
  back into what they force;
- ``review``: the columns of a game review's tables (``catansim analyse``: the win
  chances through a game and the moves it flags), which the viewer draws.

No statistics live here: analyses (the run summary included) are ``catansim.analysis``.

May import: ``constants``, ``core.layout`` (counter positions), ``board`` (board ids
and features), ``errors``, ``files`` (atomic writes). Never the engine, the runner,
analysis or matplotlib.
"""

from .dataset import iter_game_ranges, iter_parts, load, read_manifest
from .schema import COLUMNS, DEFAULT_VARIANT, category_columns, covered_fields, render_docs
from .tables import games_frame, games_table, players_frame, players_table

__all__ = [
    "COLUMNS", "DEFAULT_VARIANT", "category_columns", "covered_fields",
    "games_frame", "games_table", "iter_game_ranges", "iter_parts", "load", "players_frame",
    "players_table", "read_manifest", "render_docs",
]
