"""The dataset on disk: a folder of Parquet parts, a manifest and its part records.

Layout of a dataset folder (``results/NAME/`` by default)::

    manifest.json                                   the run: experiment, settings, engine
    parts.jsonl                                     one record per complete part
    games/part-<variant>-<start>-<stop>.parquet     one row per game
    players/part-<variant>-<start>-<stop>.parquet   one row per seat per game

A part holds the games ``start .. stop-1`` (game indices, zero-padded to 12
digits) of one variant. **A part is complete exactly when ``parts.jsonl`` holds its
record**: the row count, size and SHA-256 of each of its two files and the engine
fingerprint that played it. Each file is written to a hidden temporary file in
the same folder, flushed to disk and renamed with ``os.replace`` (players first,
games next); only then is the record appended (one JSON line, flushed to disk).
A run killed at any moment leaves complete parts and, at worst, files without a
record or a torn last line of ``parts.jsonl``, which readers ignore and the next
run removes. The manifest is written atomically (temporary file and rename).

Appending one line per part keeps the cost of a part's record constant however
many parts a dataset holds (rewriting one JSON file per part would grow with the
dataset); a writer rewrites ``parts.jsonl`` once when it opens a dataset, keeping
only verified records.

Readers (``load``, ``iter_parts``, ``complete_parts``) take no lock and write
nothing, so a dataset on a read-only file system reads as any other. They check
cheaply what they read: each recorded file's size (``complete_parts``) and its
row count (when read); a part that fails is named in a ``CatansimWarning`` and
left out. ``verify`` also checks every SHA-256; a run resuming a dataset does the
same and plays the bad parts again. Datasets of format version 1 (before the
records) still read: a part is complete when both its files exist, and row counts
are checked against the game range.

Names come back categorical as ``results.schema`` says. This module knows nothing
of experiments or the engine: the runner (``catansim.runs.runner``) gives it tables
and metadata.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import re
import warnings
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pyarrow.types as pt

from ..errors import CatansimError, CatansimWarning, parse_problem
from ..files import append_bytes, atomic_write_bytes
from .schema import COLUMNS, category_columns

MANIFEST = "manifest.json"
PARTS_LOG = "parts.jsonl"
FORMAT = "catansim-results"
FORMAT_VERSION = 2
READABLE_VERSIONS = (1, 2)
TABLES = ("games", "players")
LOCK = ".lock"
_STEM_RE = re.compile(r"^part-([A-Za-z0-9_]+)-(\d{12})-(\d{12})$")
_HASH_CHUNK = 1 << 20


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

    @classmethod
    def from_stem(cls, stem: str) -> Part | None:
        """The part a file stem names, or None."""
        m = _STEM_RE.match(stem)
        return cls(m.group(1), int(m.group(2)), int(m.group(3))) if m else None


def plan_parts(variants, games: int, batch_size: int) -> Iterator[Part]:
    """Every part of a dataset, batch-major (every variant of batch 0, then batch 1, ...).

    A generator: planning ``10**12`` games takes no memory.
    """
    variants = list(variants)
    for start in range(0, games, batch_size):
        stop = min(start + batch_size, games)
        for v in variants:
            yield Part(v, start, stop)


def count_parts(n_variants: int, games: int, batch_size: int) -> int:
    """How many parts ``plan_parts`` yields."""
    return n_variants * -(-games // batch_size)


def part_fits(part: Part, variants, games: int, batch_size: int) -> bool:
    """Whether ``part`` is one of the parts ``plan_parts(variants, games, batch_size)`` yields."""
    return (part.variant in variants and 0 <= part.start < games
            and part.start % batch_size == 0 and part.stop == min(part.start + batch_size, games))


# --- part records -------------------------------------------------------------------


@dataclass(frozen=True)
class FileRecord:
    """What the record of a part says about one of its files."""

    rows: int
    bytes: int
    sha256: str

    def to_json(self) -> dict:
        return {"rows": self.rows, "bytes": self.bytes, "sha256": self.sha256}


@dataclass(frozen=True)
class PartRecord:
    """The record of a complete part (one line of ``parts.jsonl``)."""

    part: Part
    engine: str | None
    files: dict = field(compare=False)  # table -> FileRecord

    def to_line(self) -> str:
        obj = {"part": self.part.stem, "variant": self.part.variant, "start": self.part.start,
               "stop": self.part.stop, "engine": self.engine,
               **{t: self.files[t].to_json() for t in TABLES}}
        return json.dumps(obj, separators=(",", ":")) + "\n"

    @classmethod
    def from_obj(cls, obj) -> PartRecord:
        """Parse one record; raises ``ValueError`` (with the reason) if it is malformed."""
        if not isinstance(obj, dict):
            raise ValueError("not a JSON object")
        name = obj.get("part")
        part = Part.from_stem(name) if isinstance(name, str) else None
        if part is None or (part.variant, part.start, part.stop) != (
                obj.get("variant"), obj.get("start"), obj.get("stop")):
            raise ValueError("no valid part name and range")
        files = {}
        for t in TABLES:
            f = obj.get(t)
            if not isinstance(f, dict) or not all(
                    isinstance(f.get(k), int) and not isinstance(f.get(k), bool)
                    for k in ("rows", "bytes")) or not isinstance(f.get("sha256"), str):
                raise ValueError(f"no valid {t} entry")
            files[t] = FileRecord(f["rows"], f["bytes"], f["sha256"])
        return cls(part, obj.get("engine"), files)


def read_records(root) -> dict[str, PartRecord]:
    """The part records of ``parts.jsonl``, by stem (the last record of a stem wins).

    A torn last line (a writer killed while appending) is ignored; any other line
    that is not a valid record is named in a ``CatansimWarning`` and ignored.
    """
    path = Path(root) / PARTS_LOG
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise CatansimError(f"{path}: cannot read the part records ({exc.strerror}); allowed: "
                            "a readable dataset folder") from None
    out: dict[str, PartRecord] = {}
    lines = data.split(b"\n")
    for i, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            rec = PartRecord.from_obj(json.loads(raw.decode("utf-8")))
        except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
            if i == len(lines):  # no newline after it: an append cut short
                continue
            exc = parse_problem(exc)
            warnings.warn(CatansimWarning(f"{path}:{i}: not a part record ({exc}); ignored"),
                          stacklevel=2)
            continue
        out[rec.part.stem] = rec
    return out


def append_record(root: Path, record: PartRecord) -> None:
    """Append a part's record to ``parts.jsonl`` and flush it to disk.

    If the write fails (a full disk), the file is cut back to its old length, so it
    never holds half a record the next append would follow.
    """
    append_bytes(Path(root) / PARTS_LOG, record.to_line().encode())


def rewrite_records(root: Path, records: Iterable[PartRecord]) -> None:
    """Replace ``parts.jsonl`` with ``records`` (atomically)."""
    atomic_write_bytes(Path(root) / PARTS_LOG, "".join(r.to_line() for r in records).encode())


# --- writing ------------------------------------------------------------------------


# Parquet encodings: the game index (consecutive) packs to almost nothing with delta
# encoding; seeds and board ids (random 63-bit) gain nothing from any encoding; the
# other integer columns (small counts) are split into byte streams, which zstd packs
# as small as dictionaries (the high bytes are all zero) in 0.6-0.7 of the CPU to
# write and to read (measured: docs/history/performance.md); names and floats keep
# dictionaries. zstd at its default level 1.
_DELTA_COLUMNS = ("game",)
_PLAIN_COLUMNS = ("seed", "board_id")


def _parquet_options(t) -> dict:
    encoding = {c: "DELTA_BINARY_PACKED" for c in _DELTA_COLUMNS if c in t.column_names}
    encoding.update({c: "PLAIN" for c in _PLAIN_COLUMNS if c in t.column_names})
    encoding.update({f.name: "BYTE_STREAM_SPLIT" for f in t.schema
                     if pt.is_integer(f.type) and f.name not in encoding})
    return dict(compression="zstd", use_dictionary=[c for c in t.column_names if c not in encoding],
                column_encoding=encoding or None)


def parquet_bytes(t):
    """A pyarrow Table as the bytes of a Parquet file (this module's encodings)."""
    sink = pa.BufferOutputStream()
    pq.write_table(t, sink, **_parquet_options(t))
    return sink.getvalue()


def write_part(root: Path, part: Part, games, players, metadata: dict,
               engine: str | None = None) -> PartRecord:
    """Write one part: its two files atomically, then its record (the completion mark).

    ``games`` and ``players`` are pyarrow Tables or pandas frames; ``metadata`` is
    stored (with ``table``) under the ``catansim`` key of each file's schema metadata.
    ``engine`` (the engine fingerprint) goes into the record. Returns the record.
    """
    root = Path(root)
    files = {}
    try:
        for table, data in (("players", players), ("games", games)):
            t = data if isinstance(data, pa.Table) else pa.Table.from_pandas(
                data, preserve_index=False)
            meta = dict(t.schema.metadata or {})
            meta[b"catansim"] = json.dumps({"format": FORMAT, "format_version": FORMAT_VERSION,
                                            "table": table, **metadata}).encode()
            buf = parquet_bytes(t.replace_schema_metadata(meta))
            atomic_write_bytes(part.path(root, table), buf)
            files[table] = FileRecord(t.num_rows, buf.size, hashlib.sha256(buf).hexdigest())
            del buf
        record = PartRecord(part, engine, files)
        append_record(root, record)
    except BaseException:  # no file of a part without its record (a kill aside)
        for table in files:
            with contextlib.suppress(OSError):
                part.path(root, table).unlink()
        raise
    return record


def make_folders(root: Path) -> None:
    """Create the dataset folders and remove temporary files left by a killed run."""
    root.mkdir(parents=True, exist_ok=True)
    for tmp in root.glob(".*.tmp"):
        tmp.unlink(missing_ok=True)
    for table in TABLES:
        (root / table).mkdir(exist_ok=True)
        for tmp in (root / table).glob(".part-*.tmp"):
            tmp.unlink(missing_ok=True)


def stray_files(root: Path, records: dict[str, PartRecord]) -> list[Path]:
    """Part files without a record (a writer killed between a file and its record)."""
    out = []
    for table in TABLES:
        d = Path(root) / table
        if d.is_dir():
            out += [p for p in d.glob("part-*.parquet") if p.stem not in records]
    return sorted(out)


def write_manifest(root: Path, manifest: dict) -> None:
    atomic_write_bytes(root / MANIFEST, (json.dumps(manifest, indent=2) + "\n").encode())


def read_manifest(path) -> dict:
    """The ``manifest.json`` of a dataset."""
    root = Path(path)
    mpath = root / MANIFEST
    if not root.exists():
        raise CatansimError(f"{path}: no such folder; allowed: a dataset folder written by "
                            "catansim run")
    if not mpath.is_file():
        raise CatansimError(f"{path}: no {MANIFEST}, not a catansim dataset; allowed: a dataset "
                            "folder written by catansim run")
    try:
        manifest = json.loads(mpath.read_bytes().decode("utf-8"))
    except (OSError, ValueError, RecursionError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else "not JSON"
        raise CatansimError(f"{mpath}: unreadable manifest ({reason}); allowed: the manifest "
                            "catansim run wrote") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT \
            or manifest.get("format_version") not in READABLE_VERSIONS:
        version = manifest.get("format_version") if isinstance(manifest, dict) else None
        raise CatansimError(f"{mpath}: not a catansim dataset manifest of a known version "
                            f"({version!r}); allowed: format {FORMAT!r} version "
                            f"{', '.join(map(str, READABLE_VERSIONS))}")
    _check_manifest_fields(mpath, manifest)
    return manifest


_NAME_RE = re.compile(r"^[A-Za-z0-9_]+$")


def _check_manifest_fields(mpath: Path, m: dict) -> None:
    """Every field a reader relies on, each a one-line error naming it (a manifest
    edited by hand or damaged must not become a ZeroDivisionError three calls later)."""
    def bad(key: str, value, allowed: str):
        shown = repr(value) if len(repr(value)) <= 60 else repr(value)[:57] + "..."
        raise CatansimError(f"{mpath}: {key}: {shown} is not allowed; allowed: {allowed} "
                            "(the manifest catansim run wrote)")

    def is_int(v) -> bool:
        return isinstance(v, int) and not isinstance(v, bool)

    if not is_int(m.get("games")) or m["games"] < 1:
        bad("games", m.get("games"), "an integer >= 1")
    if not is_int(m.get("batch_size")) or m["batch_size"] < 1:
        bad("batch_size", m.get("batch_size"), "an integer >= 1")
    names = m.get("variants")
    if not isinstance(names, list) or not names or not all(
            isinstance(v, str) and _NAME_RE.match(v) for v in names) \
            or len(set(names)) != len(names):
        bad("variants", names, "a non-empty list of distinct variant names (letters, digits, _)")
    key = m.get("result_key", {})
    if not isinstance(key, dict):
        bad("result_key", key, "a JSON object")
    for where, value in (("players", m.get("players")),
                         ("result_key.players", key.get("players"))):
        if value is not None and (not is_int(value) or value not in (3, 4)):
            bad(where, value, "3, 4")
    if not isinstance(key.get("variants", {}), dict):
        bad("result_key.variants", key.get("variants"), "a JSON object of variants")


@contextlib.contextmanager
def locked(root: Path):
    """Hold the dataset's writer lock; a second writer gets a one-line error.

    Opening the lock file needs a writable folder: an ``OSError`` (read-only file
    system, no permission) propagates for the caller to report.
    """
    import fcntl  # noqa: PLC0415  (POSIX only; reading a dataset needs no lock)

    fh = open(Path(root) / LOCK, "a")
    try:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno not in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                raise
            raise CatansimError(f"{root}: another run is writing this dataset; allowed: one "
                                "run per dataset folder at a time") from None
        yield
    finally:
        fh.close()


# --- checking -----------------------------------------------------------------------


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(_HASH_CHUNK):
            h.update(chunk)
    return h.hexdigest()


def check_record(root: Path, record: PartRecord, full: bool = False) -> str | None:
    """What is wrong with a recorded part's files (None if nothing).

    Always: each file exists and has the recorded size. ``full``: also its SHA-256,
    the row count in its Parquet footer and the range of its ``game`` values.
    """
    for table in TABLES:
        path = record.part.path(root, table)
        want = record.files[table]
        try:
            size = path.stat().st_size
        except FileNotFoundError:
            return f"{path}: missing"
        except OSError as exc:
            return f"{path}: unreadable ({exc.strerror})"
        if size != want.bytes:
            return f"{path}: {size} bytes, its record says {want.bytes}"
        if full:
            try:
                if file_sha256(path) != want.sha256:
                    return f"{path}: contents differ from its record (SHA-256)"
                with _parquet(path) as pf:
                    rows = pf.metadata.num_rows
                    problem = game_range_problem(pf, record.part, path)
            except BadPart as exc:
                return str(exc).split("; allowed")[0]
            except OSError as exc:
                return f"{path}: unreadable ({exc.strerror or exc})"
            if rows != want.rows:
                return f"{path}: {rows} rows, its record says {want.rows}"
            if problem:
                return problem
    return None


@contextlib.contextmanager
def _parquet(path: Path):
    """A ``pyarrow.parquet.ParquetFile`` of a file Python opens (pyarrow cannot open a
    path that is not UTF-8, e.g. a byte 0xff in a folder's name); ``BadPart`` if it
    is not a readable Parquet file."""
    with open(path, "rb") as fh:
        try:
            pf = pq.ParquetFile(fh)
        except Exception as exc:  # ArrowInvalid (truncated, not Parquet), OSError
            first = str(exc).splitlines()[0] if str(exc) else ""
            raise BadPart(f"{path}: not a readable Parquet file ({type(exc).__name__}"
                          + (f": {first}" if first else "") + ")") from None
        yield pf


def game_range_problem(pf, part: Part, path: Path) -> str | None:
    """What is wrong with the ``game`` values of a part's file (None if nothing): each
    must lie in the part's range ``start .. stop-1``. Read from the column statistics of
    the footer (the whole column only if a writer left them out), so a file of another
    part (same size, other games) is found without reading its rows."""
    meta = pf.metadata
    idx = pf.schema_arrow.get_field_index("game")
    if idx < 0 or meta.num_rows == 0:
        return None if meta.num_rows == 0 else f"{path}: no game column"
    lo = hi = None
    for i in range(meta.num_row_groups):
        st = meta.row_group(i).column(idx).statistics
        if st is None or not st.has_min_max:
            mm = pc.min_max(pf.read(columns=["game"]).column(0)).as_py()
            lo, hi = mm["min"], mm["max"]
            break
        lo = st.min if lo is None else min(lo, st.min)
        hi = st.max if hi is None else max(hi, st.max)
    if lo is None or lo < part.start or hi >= part.stop:
        return (f"{path}: holds games {lo}..{hi}, its name says {part.start}..{part.stop - 1} "
                "(a file of another part?)")
    return None


class BadPart(CatansimError):
    """A part whose files do not match what is known of them (one line naming the file)."""


def _check_dataset(root: Path) -> dict:
    manifest = read_manifest(root)
    if not (root / "games").is_dir():
        raise CatansimError(f"{root}: no games/ folder, not a complete catansim dataset; "
                            "allowed: a dataset folder written by catansim run")
    return manifest


def _recorded_parts(root: Path, manifest: dict) -> dict[Part, PartRecord | None]:
    """The parts the dataset says are complete: records (format 2) or files (format 1)."""
    return _all_recorded_parts(root, manifest)[0]


def _all_recorded_parts(root: Path, manifest: dict
                        ) -> tuple[dict[Part, PartRecord | None], list[Part]]:
    """``_recorded_parts`` and the recorded parts the manifest does not plan (its games,
    batch size or variants cut or edited, or parts of another run)."""
    names, games, bs = manifest["variants"], manifest["games"], manifest["batch_size"]
    if manifest["format_version"] >= 2:
        parts = [(r.part, r) for r in read_records(root).values()]
    else:
        parts = [(part, None) for part in map(Part.from_stem, (
            p.stem for p in (root / "games").glob("part-*.parquet")))
            if part is not None and part.path(root, "players").exists()]
    found, unfit = {}, []
    for part, rec in parts:
        if part_fits(part, names, games, bs):
            found[part] = rec
        else:
            unfit.append(part)
    return found, sorted(unfit, key=lambda p: (p.variant, p.start))


def _unfit_text(root: Path, manifest: dict, unfit: list[Part]) -> str:
    return (f"{root}: {len(unfit)} recorded parts do not fit its manifest (games "
            f"{manifest['games']:,}, batch_size {manifest['batch_size']:,}, variants "
            f"{', '.join(manifest['variants'])}), e.g. {unfit[0].stem}; left out (a damaged "
            f"or edited {MANIFEST}?)")


def _warn_bad(problem: str) -> None:
    warnings.warn(CatansimWarning(f"{problem}; part left out (rerun the run's command to "
                                  "play it again)"), stacklevel=3)


def check_variants(variants, manifest: dict) -> list[str]:
    """``variants`` (a name or a list of names) as a list, each a variant of the dataset."""
    names = manifest["variants"]
    if isinstance(variants, str):
        variants = [variants]
    try:
        variants = list(variants)
    except TypeError:
        raise CatansimError(f"variants: {variants!r} given; allowed: a variant name or a list "
                            f"of them ({', '.join(names)})") from None
    unknown = [v for v in variants if v not in names]
    if unknown or not variants:
        what = f"{unknown[0]!r} is not a variant of the dataset" if unknown else "none given"
        raise CatansimError(f"variants: {what}; allowed: {', '.join(names)}")
    return variants


def _complete(root: Path, variants=None) -> tuple[dict, list[tuple[Part, PartRecord | None]]]:
    manifest = _check_dataset(root)
    names = manifest["variants"] if variants is None else [
        v for v in manifest["variants"] if v in set(check_variants(variants, manifest))]
    order = {v: i for i, v in enumerate(names)}
    out = []
    found, unfit = _all_recorded_parts(root, manifest)
    if unfit:
        warnings.warn(CatansimWarning(_unfit_text(root, manifest, unfit)), stacklevel=3)
    for part, rec in found.items():
        if part.variant not in order:
            continue
        problem = check_record(root, rec) if rec is not None else None
        if problem:
            _warn_bad(problem)
            continue
        out.append((part, rec))
    out.sort(key=lambda pr: (order[pr[0].variant], pr[0].start))
    return manifest, out


def complete_parts(path, variants=None) -> list[Part]:
    """The complete parts of a dataset in dataset order (variants as the manifest lists
    them, then by game), optionally only of some variants.

    Complete: recorded in ``parts.jsonl`` with files of the recorded sizes (a part
    that fails is named in a ``CatansimWarning`` and left out).
    """
    return [p for p, _ in _complete(Path(path), variants)[1]]


def games_present(path) -> dict[str, int]:
    """Games of each variant in the complete parts (``complete_parts``; nothing is read
    but the records): fewer than the manifest's ``games`` when a run was interrupted."""
    out: dict[str, int] = {}
    for part in complete_parts(path):
        out[part.variant] = out.get(part.variant, 0) + part.n_games
    return out


def _categorical(df: pd.DataFrame, table: str) -> pd.DataFrame:
    for c in category_columns(table):
        if c in df.columns and not isinstance(df[c].dtype, pd.CategoricalDtype):
            df[c] = df[c].astype("category")
    return df


def _read_table(root, part: Part, table: str, columns=None, rows: int | None = None):
    """One table of one part as a pyarrow Table; ``BadPart`` if it does not read or has
    not the rows expected (``rows``; the games table: one per game of the part)."""
    path = part.path(root, table)
    try:
        with _parquet(path) as pf:
            problem = game_range_problem(pf, part, path)
            if problem:
                raise BadPart(problem)
            t = pf.read(columns=columns)
    except FileNotFoundError:
        raise BadPart(f"{path}: missing; allowed: the files of complete parts") from None
    except BadPart:
        raise
    except Exception as exc:  # ArrowInvalid (a damaged page), OSError
        first = str(exc).splitlines()[0] if str(exc) else ""
        raise BadPart(f"{path}: not a readable Parquet file ({type(exc).__name__}"
                      + (f": {first}" if first else "") + ")") from None
    if rows is None and table == "games":
        rows = part.n_games
    if rows is not None and t.num_rows != rows:
        raise BadPart(f"{path}: {t.num_rows} rows, expected {rows}")
    if rows is None and (t.num_rows % part.n_games or t.num_rows // part.n_games not in (3, 4)):
        raise BadPart(f"{path}: {t.num_rows} rows, expected 3 or 4 per game of its "
                      f"{part.n_games}")
    return t


def read_part(root, part: Part, table: str, columns=None, rows: int | None = None
              ) -> pd.DataFrame:
    """One table of one part as a pandas frame (only ``columns``, if given).

    Raises ``BadPart`` (one line naming the file) if the file does not read or has not
    ``rows`` rows (default for the games table: one per game of the part).
    """
    return _categorical(_read_table(root, part, table, columns, rows).to_pandas(), table)


def _rows(rec: PartRecord | None, table: str, part: Part | None = None,
          manifest: dict | None = None) -> int | None:
    """The rows a part's table must have: its record's, else (format 1) one per game,
    or one per seat of each game when the manifest gives the players."""
    if rec is not None:
        return rec.files[table].rows
    if part is None:
        return None
    if table == "games":
        return part.n_games
    players = (manifest or {}).get("players") or (manifest or {}).get(
        "result_key", {}).get("players")
    return part.n_games * players if players else None


def _check_columns(columns) -> dict:
    """``columns`` as ``{table: [names]}``, each name a column of ``results.schema``."""
    if columns is None:
        return {}
    if not isinstance(columns, dict) or set(columns) - set(TABLES):
        raise CatansimError("columns: expected {'games': [...], 'players': [...]}; allowed: "
                            "the keys games and players with lists of column names")
    for table, names in columns.items():
        if names is None:
            continue
        if isinstance(names, str) or not all(isinstance(c, str) for c in names):
            raise CatansimError(f"columns.{table}: expected a list of column names; allowed: "
                                "the columns of docs/results.md")
        known = set(COLUMNS.name[COLUMNS.table == table])
        for c in names:
            if c not in known:
                raise CatansimError(f"columns.{table}: unknown column {c!r}; allowed: the "
                                    f"{table} columns of docs/results.md")
    return columns


def iter_parts(path, columns: dict | None = None, variants=None
               ) -> Iterator[tuple[Part, pd.DataFrame, pd.DataFrame]]:
    """Yield ``(part, games, players)`` for each complete part, in dataset order.

    ``columns`` is ``{"games": [...], "players": [...]}``; a table left out is read
    whole. Memory is that of one part. A part that does not read as recorded is named
    in a ``CatansimWarning`` and skipped.
    """
    root = Path(path)
    cols = _check_columns(columns)
    manifest, parts = _complete(root, variants)
    for part, rec in parts:
        try:
            g = read_part(root, part, "games", cols.get("games"), _rows(rec, "games"))
            p = read_part(root, part, "players", cols.get("players"),
                          _rows(rec, "players", part, manifest))
        except BadPart as exc:
            _warn_bad(str(exc))
            continue
        yield part, g, p


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
        The dataset folder (``results/NAME``); it may be read-only.
    columns : dict, optional
        ``{"games": [...], "players": [...]}`` to read only some columns.
    variants : sequence of str, optional
        Read only these variants.

    Returns
    -------
    (games, players) : tuple of pandas.DataFrame
        Sorted by variant and game (and seat); names are categorical. Only
        complete parts are read; a part whose files do not match its record (size,
        rows, a file that does not read) is named in a ``CatansimWarning`` and left
        out (``verify`` checks the SHA-256 of every file too).
    """
    root = Path(path)
    cols = _check_columns(columns)
    chunks: dict[str, list] = {t: [] for t in TABLES}
    manifest, parts = _complete(root, variants)
    for part, rec in parts:
        try:
            got = {t: _read_table(root, part, t, cols.get(t), _rows(rec, t, part, manifest))
                   for t in TABLES}
        except BadPart as exc:
            _warn_bad(str(exc))
            continue
        for t in TABLES:
            chunks[t].append(got[t])
    out = []
    for table in TABLES:
        if chunks[table]:
            df = pa.concat_tables(chunks[table], promote_options="permissive").to_pandas()
        else:
            df = pd.DataFrame()
        chunks[table] = []
        df = _categorical(df, table)
        keys = [k for k in ("variant", "game", "seat") if k in df.columns]
        if keys and len(df):
            df = df.sort_values(keys, kind="stable").reset_index(drop=True)
        out.append(df)
    return out[0], out[1]


@dataclass
class Verification:
    """What ``verify`` found."""

    root: Path
    parts_total: int  # parts the manifest plans
    parts_good: int  # recorded and every check passed
    bad: list[str]  # one line per bad part
    stray: list[Path]  # part files without a record (removed by the next run)
    format_version: int

    @property
    def complete(self) -> bool:
        return not self.bad and self.parts_good == self.parts_total

    def summary(self) -> str:
        state = "complete" if self.complete else "incomplete"
        line = (f"{self.root}: {state}: {self.parts_good} of {self.parts_total} parts verified "
                f"(size, rows, SHA-256)")
        if self.format_version < 2:
            line = (f"{self.root}: {state}: {self.parts_good} of {self.parts_total} parts read "
                    "(format 1: no checksums recorded; rows checked)")
        if self.bad:
            line += f"; {len(self.bad)} bad: {self.bad[0]}" + (
                f" (and {len(self.bad) - 1} more)" if len(self.bad) > 1 else "")
        if not self.complete:
            line += "; rerun the run's command to play the missing and bad parts"
        return line


def verify(path) -> Verification:
    """Check every part of a dataset in full: size, SHA-256 and row counts of each file.

    Reads every byte once; writes nothing (works on read-only folders).
    """
    root = Path(path)
    manifest = _check_dataset(root)
    total = count_parts(len(manifest["variants"]), manifest["games"], manifest["batch_size"])
    parts, unfit = _all_recorded_parts(root, manifest)
    bad, good = [], 0
    if unfit:
        bad.append(_unfit_text(root, manifest, unfit).split("; left out")[0])
    for part, rec in sorted(parts.items(), key=lambda pr: (pr[0].variant, pr[0].start)):
        if rec is not None:
            problem = check_record(root, rec, full=True)
        else:  # format 1: both tables read, their rows and game ranges checked
            try:
                for table in TABLES:
                    _read_table(root, part, table, ["game"], _rows(None, table, part, manifest))
                problem = None
            except BadPart as exc:
                problem = str(exc)
        if problem:
            bad.append(problem)
        else:
            good += 1
    stray = stray_files(root, {p.stem: r for p, r in parts.items()}) \
        if manifest["format_version"] >= 2 else []
    return Verification(root, total, good, bad, stray, manifest["format_version"])
