"""The dataset on disk: a folder of Parquet parts and a manifest.

Layout of a dataset folder (``results/NAME/`` by default)::

    manifest.json                                   experiment, hash, seeds, plan
    games/part-<variant>-<start>-<stop>.parquet     one row per game
    players/part-<variant>-<start>-<stop>.parquet   one row per seat per game

A part holds the games ``start .. stop-1`` (game indices, zero-padded to 12
digits) of one variant. Each table of a part is written to a hidden temporary
file in the same folder, then renamed with ``os.replace``: the players file
first, the games file last, so **a part is complete exactly when its games file
exists** (readers ignore a players file without its games file).

Readers (``load``, ``iter_parts``) read only the columns they are asked for, one
part at a time where they can; names come back categorical as ``results.schema``
says. This module knows nothing of experiments or the engine: the runner
(``catansim.runs.runner``) gives it tables and metadata.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from ..errors import CatansimError
from .schema import category_columns

MANIFEST = "manifest.json"
FORMAT = "catansim-results"
FORMAT_VERSION = 1
TABLES = ("games", "players")
LOCK = ".lock"


@dataclass(frozen=True)
class Part:
    """One part of a dataset: the games ``start .. stop-1`` of one variant."""

    variant: str
    start: int
    stop: int

    @property
    def stem(self) -> str:
        return f"part-{self.variant}-{self.start:012d}-{self.stop:012d}"

    @property
    def n_games(self) -> int:
        return self.stop - self.start

    def path(self, root: Path, table: str) -> Path:
        return Path(root) / table / f"{self.stem}.parquet"


def plan_parts(variants, games: int, batch_size: int) -> list[Part]:
    """All parts of a dataset, batch-major (every variant of batch 0, then batch 1, ...)."""
    out = []
    for start in range(0, games, batch_size):
        stop = min(start + batch_size, games)
        out.extend(Part(v, start, stop) for v in variants)
    return out


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file and a rename."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


# Parquet encodings: the game index (consecutive) packs to almost nothing with delta
# encoding, seeds and board ids (random 63-bit) gain nothing from a dictionary, and
# every other column (small counts, names) keeps the default dictionary encoding;
# zstd at its default level 1. Smaller files and less CPU than dictionaries everywhere.
_DELTA_COLUMNS = ("game",)
_PLAIN_COLUMNS = ("seed", "board_id")


def _parquet_options(t) -> dict:
    names = t.column_names
    encoding = {c: "DELTA_BINARY_PACKED" for c in _DELTA_COLUMNS if c in names}
    encoding.update({c: "PLAIN" for c in _PLAIN_COLUMNS if c in names})
    return dict(compression="zstd", use_dictionary=[c for c in names if c not in encoding],
                column_encoding=encoding or None)


def write_part(root: Path, part: Part, games, players, metadata: dict) -> None:
    """Write one part atomically: players first, games (the completion mark) last.

    ``games`` and ``players`` are pyarrow Tables or pandas frames; ``metadata`` is
    stored (with ``table``) under the ``catansim`` key of each file's schema metadata.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    for table, data in (("players", players), ("games", games)):
        t = data if isinstance(data, pa.Table) else pa.Table.from_pandas(data,
                                                                         preserve_index=False)
        meta = dict(t.schema.metadata or {})
        meta[b"catansim"] = json.dumps({"format": FORMAT, "format_version": FORMAT_VERSION,
                                        "table": table, **metadata}).encode()
        t = t.replace_schema_metadata(meta)
        final = part.path(root, table)
        tmp = final.with_name(f".{final.name}.{os.getpid()}.tmp")
        pq.write_table(t, tmp, **_parquet_options(t))
        os.replace(tmp, final)


def part_done(root: Path, part: Part) -> bool:
    return part.path(root, "games").exists() and part.path(root, "players").exists()


def existing_stems(root: Path) -> set[str]:
    """Stems of the complete parts in the folder (those with a games file)."""
    d = Path(root) / "games"
    return {p.stem for p in d.glob("part-*.parquet")} if d.is_dir() else set()


def make_folders(root: Path) -> None:
    """Create the dataset folders and remove temporary files left by a killed run."""
    root.mkdir(parents=True, exist_ok=True)
    for table in TABLES:
        (root / table).mkdir(exist_ok=True)
        for tmp in (root / table).glob(".part-*.tmp"):
            tmp.unlink(missing_ok=True)


def write_manifest(root: Path, manifest: dict) -> None:
    atomic_write_bytes(root / MANIFEST, (json.dumps(manifest, indent=2) + "\n").encode())


def read_manifest(path) -> dict:
    """The ``manifest.json`` of a dataset."""
    mpath = Path(path) / MANIFEST
    if not mpath.exists():
        raise CatansimError(f"{path}: no {MANIFEST}; not a catansim dataset")
    try:
        return json.loads(mpath.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise CatansimError(f"{mpath}: unreadable manifest ({exc})") from None


@contextlib.contextmanager
def locked(root: Path):
    """Hold the dataset's writer lock; a second writer gets a one-line error."""
    import fcntl

    fh = open(root / LOCK, "w")
    try:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise CatansimError(f"{root}: another run is writing this dataset") from None
        yield
    finally:
        fh.close()


# --- reading ------------------------------------------------------------------------


def _check_dataset(root: Path) -> None:
    if not (root / "games").is_dir():
        raise CatansimError(f"{root}: not a catansim dataset (no games/ folder)")


def complete_parts(path, variants=None) -> list[Part]:
    """The complete parts of a dataset in dataset order (variants as the manifest lists
    them, then by game), optionally only of some variants."""
    root = Path(path)
    _check_dataset(root)
    manifest = read_manifest(root)
    names = manifest["variants"] if variants is None else [
        v for v in manifest["variants"] if v in set(variants)]
    done = existing_stems(root)
    parts = plan_parts(names, manifest["games"], manifest["batch_size"])
    parts = [p for p in parts if p.stem in done]
    order = {v: i for i, v in enumerate(names)}
    return sorted(parts, key=lambda p: (order[p.variant], p.start))


def _categorical(df: pd.DataFrame, table: str) -> pd.DataFrame:
    for c in category_columns(table):
        if c in df.columns and not isinstance(df[c].dtype, pd.CategoricalDtype):
            df[c] = df[c].astype("category")
    return df


def read_part(root, part: Part, table: str, columns=None) -> pd.DataFrame:
    """One table of one part as a pandas frame (only ``columns``, if given)."""
    import pyarrow.parquet as pq

    df = pq.read_table(part.path(root, table), columns=columns).to_pandas()
    return _categorical(df, table)


def iter_parts(path, columns: dict | None = None, variants=None
               ) -> Iterator[tuple[Part, pd.DataFrame, pd.DataFrame]]:
    """Yield ``(part, games, players)`` for each complete part, in dataset order.

    ``columns`` is ``{"games": [...], "players": [...]}``; a table left out is read
    whole. Memory is that of one part.
    """
    root = Path(path)
    for part in complete_parts(root, variants):
        cols = columns or {}
        yield (part, read_part(root, part, "games", cols.get("games")),
               read_part(root, part, "players", cols.get("players")))


def iter_game_ranges(path, columns: dict | None = None, variants=None
                     ) -> Iterator[tuple[int, int, list[Part], pd.DataFrame, pd.DataFrame]]:
    """Yield ``(start, stop, parts, games, players)`` per range of games, aligned over variants.

    Every variant's part for the games ``start .. stop-1`` is read and the frames are
    concatenated (variants in dataset order, then game, then seat), so the rows of the
    same game in every variant arrive together: what paired comparisons need (pair on
    ``game``). A range whose part is missing for some variant (an unfinished run)
    holds the variants that have it. ``columns`` as in ``iter_parts``. Memory is that
    of one part per variant.
    """
    for start, stop, parts in game_ranges(path, variants):
        games, players = read_range(path, parts, columns)
        yield start, stop, parts, games, players


def game_ranges(path, variants=None) -> list[tuple[int, int, list[Part]]]:
    """``(start, stop, parts)`` of ``iter_game_ranges`` without reading anything."""
    by_range: dict[tuple[int, int], list[Part]] = {}
    for part in complete_parts(path, variants):
        by_range.setdefault((part.start, part.stop), []).append(part)
    return [(a, b, ps) for (a, b), ps in sorted(by_range.items())]


def read_range(path, parts: list[Part], columns: dict | None = None
               ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The ``(games, players)`` of some parts (one range of ``game_ranges``), concatenated."""
    cols = columns or {}
    return tuple(_concat([read_part(path, p, t, cols.get(t)) for p in parts], t)
                 for t in TABLES)


def _concat(frames: list[pd.DataFrame], table: str) -> pd.DataFrame:
    if len(frames) == 1:
        return frames[0]
    df = pd.concat(frames, ignore_index=True)  # categories differ: union them
    for c in category_columns(table):
        if c in df.columns and not isinstance(df[c].dtype, pd.CategoricalDtype):
            df[c] = df[c].astype("category")
    return df


def load(path, columns: dict | None = None, variants=None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Read a dataset written by ``catansim run``.

    Parameters
    ----------
    path : str or Path
        The dataset folder (``results/NAME``).
    columns : dict, optional
        ``{"games": [...], "players": [...]}`` to read only some columns.
    variants : sequence of str, optional
        Read only these variants.

    Returns
    -------
    (games, players) : tuple of pandas.DataFrame
        Sorted by variant and game (and seat); names are categorical. Only
        complete parts are read.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    root = Path(path)
    parts = complete_parts(root, variants)
    out = []
    for table in TABLES:
        cols = (columns or {}).get(table)
        if parts:
            tables = [pq.read_table(p.path(root, table), columns=cols) for p in parts]
            df = pa.concat_tables(tables, promote_options="permissive").to_pandas()
        else:
            df = pd.DataFrame()
        df = _categorical(df, table)
        keys = [k for k in ("variant", "game", "seat") if k in df.columns]
        if keys and len(df):
            df = df.sort_values(keys, kind="stable").reset_index(drop=True)
        out.append(df)
    return out[0], out[1]
