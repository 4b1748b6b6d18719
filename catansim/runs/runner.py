"""Run an experiment into a dataset: batches, atomic parts, resume, Dask.

The work is the games ``0 .. games-1`` cut into parts of ``batch_size`` games
times the variants (``results.dataset.plan_parts``, a generator: any number of
games plans in constant memory). Each part is played by ``play_batch`` (all
cores, a thread per core) on the main thread; a writer thread turns it into
pyarrow tables (``results.games_table``, straight from the arrays) while the next
part plays, and writes it (``results.dataset.write_part``: both files atomically,
then the part's record, the completion mark).

Rerunning resumes: the records of complete parts are checked in full (size,
SHA-256, rows) and the parts that fail are played again (with a warning naming
them); a run stopped at any moment (Ctrl-C, SIGTERM, kill -9, a full disk, a lost
scheduler) loses at most the parts in flight, and says how many parts it kept. A
resume is refused when the settings (``Experiment.result_key``, naming the key
that changed) or the engine (``catansim.core.engine_fingerprint``, naming both)
differ from the dataset's; Dask workers running another engine are refused too.

A part with Python players (``python:module:Class``) is played by ``play_batch`` one
game after another in the thread that plays the part; an experiment sent to a Dask
worker leaves its players behind, and the worker makes its own from their names.

Game ``i`` has seed ``engine.batch_seeds(seed, 1, i)`` whatever the batch size
or the machine, so a local run, a resumed run and a Dask run give identical
tables. The dataset's layout on disk is ``catansim.results.dataset``'s.
"""

from __future__ import annotations

import contextlib
import errno
import itertools
import logging
import os
import re
import shutil
import socket
import time
import warnings
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path

import numpy as np
from tqdm.auto import tqdm

from .. import __version__
from ..board import Board
from ..checks import check_path, check_scheduler
from ..compile_progress import say_if_compiling
from ..core import engine_fingerprint
from ..engine import batch_seeds, games_digest, play_batch
from ..errors import (
    CatansimError,
    CatansimWarning,
    FaultError,
    Interrupted,
    is_write_fault,
    os_reason,
    swallowed_interrupt,
)
from ..game import PlayerError
from ..results import dataset as D
from ..results import games_frame, games_table, players_frame, players_table
from ..results.dataset import Part as Task
from ..results.dataset import load
from ..strategies import PARAM_INDEX
from ..tunables import BASE_MEMORY, CONNECT_TIMEOUT, DISK_PER_GAME, MEMORY_PER_GAME
from .experiment import Experiment

__all__ = ["RunReport", "Task", "compute_tables", "compute_task", "describe_change", "load",
           "n_parts", "plan", "play_task", "prepare_dataset", "run_experiment"]



def plan(exp: Experiment) -> Iterator[Task]:
    """Every part of a run, batch-major (every variant of batch 0, then batch 1, ...).

    A generator: nothing is listed up front, whatever the number of games.
    """
    return D.plan_parts(exp.variant_names, exp.games, exp.batch_size)


def n_parts(exp: Experiment) -> int:
    """How many parts ``plan(exp)`` yields."""
    return D.count_parts(len(exp.variants), exp.games, exp.batch_size)


# --- computing a part ---------------------------------------------------------------


def play_task(exp: Experiment, task: Task, n_threads: int | None = None,
              debug: bool = False) -> list:
    """Play one part's games: ``[(BatchResult, game indices), ...]``, one per seat shift.

    Runs on the local machine or on a Dask worker (it registers the experiment's
    strategies config first). Seats rotate by game index when ``exp.rotate``.
    """
    idx = np.arange(task.start, task.stop, dtype=np.int64)
    if exp.board_set is not None:
        return _play_board_set(exp, task, idx, n_threads, debug)
    seeds = batch_seeds(exp.seed, task.n_games, task.start)
    shifts = exp.n_shifts(task.variant)
    played = []
    for shift in range(shifts):
        sel = (idx % shifts) == shift if shifts > 1 else slice(None)
        batch = play_batch(seeds[sel], exp.settings(task.variant, shift), n_threads=n_threads,
                           debug=debug)
        played.append((batch, idx[sel]))
    return played


def _play_board_set(exp: Experiment, task: Task, idx: np.ndarray, n_threads, debug) -> list:
    """A part of a board-set experiment: one ``play_batch`` per board and seat shift, each
    on its board as a given board (``BoardSet``: which board and which seed each game has)."""
    bs = exp.board_set
    k = bs.board_index(idx)
    si = bs.seed_index(idx)
    lo, hi = int(si.min()), int(si.max()) + 1
    seeds = batch_seeds(exp.seed, hi - lo, lo)[si - lo]
    first = int(k[0])
    vectors = exp.board_vectors(first, int(k[-1]) + 1)
    shifts = exp.n_shifts(task.variant)
    played = []
    for b in range(vectors.shape[0]):
        on_board = k == first + b
        board = Board.from_vector(vectors[b], layout=exp.layout)
        for shift in range(shifts):
            sel = on_board & ((idx % shifts) == shift) if shifts > 1 else on_board
            if not sel.any():
                continue
            settings = replace(exp.settings(task.variant, shift), layout="given", board=board)
            batch = play_batch(seeds[sel], settings, n_threads=n_threads, debug=debug)
            played.append((batch, idx[sel]))
    return played


def _labels(exp: Experiment, task: Task) -> dict:
    return dict(variant=task.variant, variants=exp.variant_names,
                strategy_names=exp.strategy_names)


def part_tables(exp: Experiment, task: Task, played: list):
    """The ``(games, players)`` pyarrow Tables of a played part (see ``play_task``).

    Built from the arrays without pandas (``results.games_table``); equal to
    ``pa.Table.from_pandas`` of the frames of ``compute_task``.
    """
    batches, index = [b for b, _ in played], [i for _, i in played]
    return (games_table(batches, index, **_labels(exp, task)),
            players_table(batches, index, **_labels(exp, task)))


def compute_task(exp: Experiment, task: Task, n_threads: int | None = None,
                 debug: bool = False):
    """Play one part's games and return its ``(games, players)`` frames, in game order."""
    played = play_task(exp, task, n_threads, debug)
    batches, index = [b for b, _ in played], [i for _, i in played]
    return (games_frame(batches, index, **_labels(exp, task)),
            players_frame(batches, index, **_labels(exp, task)))


def compute_tables(exp: Experiment, task: Task, n_threads: int | None = None,
                   debug: bool = False, engine: str | None = None):
    """``compute_task`` as pyarrow Tables (what Dask workers send back to be written).

    ``engine``: the fingerprint the run expects; a worker whose own engine differs
    refuses the task (one line naming both) instead of playing it.
    """
    if engine is not None and engine_fingerprint() != engine:
        raise CatansimError(f"worker {_worker_name()}: runs engine {engine_fingerprint()}, the "
                            f"run's engine is {engine}; allowed: workers with the same catansim "
                            "as the machine running catansim run (docs/cluster.md)")
    return part_tables(exp, task, play_task(exp, task, n_threads, debug))


def _worker_name() -> str:
    try:
        from dask.distributed import get_worker  # noqa: PLC0415  (the dask extra)

        return get_worker().address
    except (ImportError, ValueError):
        return f"{socket.gethostname()} (pid {os.getpid()})"


def _worker_engine() -> str:
    """Run on each Dask worker: the engine fingerprint of the code it runs."""
    return engine_fingerprint()


# --- writing ------------------------------------------------------------------------


def part_metadata(exp: Experiment, task: Task) -> dict:
    """What each Parquet file of a part records about how it was made."""
    return {
        "experiment": exp.name,
        "experiment_file": str(exp.path) if exp.path else None,
        "experiment_text": exp.text,
        "result_hash": exp.result_hash(),
        "catansim_version": __version__,
        "engine_fingerprint": engine_fingerprint(),
        "base_seed": exp.seed,
        "variant": task.variant,
        "start": task.start,
        "stop": task.stop,
        "seeds": f"game i has seed catansim.engine.batch_seeds({exp.seed}, 1, i)",
    }


def write_part(root: Path, exp: Experiment, task: Task, games, players):
    """Write one part (``results.dataset.write_part``) with its metadata and record."""
    return D.write_part(root, task, games, players, part_metadata(exp, task),
                        engine=engine_fingerprint())


# --- the dataset folder -------------------------------------------------------------


def _param_names() -> dict[int, str]:
    return {i: name for name, i in PARAM_INDEX.items()}


def _changes(old, new, path: str, out: list) -> None:
    if isinstance(old, dict) and isinstance(new, dict):
        for k in list(old) + [k for k in new if k not in old]:
            if k not in new:
                out.append(f"{path}.{k}: removed".lstrip("."))
            elif k not in old:
                out.append(f"{path}.{k}: added".lstrip("."))
            else:
                _changes(old[k], new[k], f"{path}.{k}", out)
        return
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new) \
            and not path.endswith(".board"):
        names = _param_names() if path.endswith(".strategy_params") else None
        for i, (a, b) in enumerate(zip(old, new, strict=True)):
            if names is not None and isinstance(a, list) and isinstance(b, list) \
                    and len(a) == len(b):
                for j, (x, y) in enumerate(zip(a, b, strict=True)):
                    if x != y:
                        out.append(f"{path}[{i}].{names.get(j, j)}: {x!r} -> {y!r}".lstrip("."))
            else:
                _changes(a, b, f"{path}[{i}]", out)
        return
    if old != new:
        text = (f"{old!r} -> {new!r}" if len(repr(old)) + len(repr(new)) <= 80
                else "changed")
        out.append(f"{path}: {text}".lstrip("."))


def describe_change(old: dict, new: dict) -> str:
    """What differs between two ``result_key`` values, key by key, e.g.
    ``variants.baseline.rules.robber: 'official' -> 'friendly'`` (at most three)."""
    out: list[str] = []
    _changes(old, new, "", out)
    if not out:
        return "the experiment"
    return ", ".join(out[:3]) + (f" and {len(out) - 3} more" if len(out) > 3 else "")


def _fits_text(exp: Experiment) -> str:
    return (f"does not fit games={exp.games} with batch_size={exp.batch_size}; allowed: the "
            "games of the earlier run (or more, when they were a multiple of batch_size), "
            "or a new --out")


def check_manifest(exp: Experiment, root: Path, manifest: dict) -> None:
    """Refuse to resume a dataset of another format, other settings or another engine."""
    mpath = root / D.MANIFEST
    if manifest.get("format_version") != D.FORMAT_VERSION:
        raise CatansimError(
            f"{root}: written by an older catansim (dataset format "
            f"{manifest.get('format_version')}, no engine fingerprint or part checksums); "
            f"cannot resume it; allowed: a new --out (the dataset still reads with "
            f"catansim.load)")
    if manifest.get("result_hash") != exp.result_hash():
        what = describe_change(manifest.get("result_key", {}), exp.result_key())
        raise CatansimError(
            f"{root}: holds results of different settings (changed: {what}); cannot resume; "
            f"allowed: the settings of the earlier run, a new --out, or delete the folder")
    old_engine = manifest.get("engine_fingerprint")
    if old_engine != engine_fingerprint():
        raise CatansimError(
            f"{root}: made by engine {old_engine}, this catansim is engine "
            f"{engine_fingerprint()}; cannot resume across engines; allowed: the catansim "
            f"that made it, or a new --out ({mpath} names its version)")


def _manifest(exp: Experiment) -> dict:
    return {
        "format": D.FORMAT,
        "format_version": D.FORMAT_VERSION,
        "experiment": exp.name,
        "description": exp.description,
        "experiment_file": str(exp.path) if exp.path else None,
        "experiment_text": exp.text,
        "catansim_version": __version__,
        "engine_fingerprint": engine_fingerprint(),
        "games_digest": games_digest(),
        "result_hash": exp.result_hash(),
        "result_key": exp.result_key(),
        "base_seed": exp.seed,
        "games": exp.games,
        "batch_size": exp.batch_size,
        "players": exp.players,
        "variants": exp.variant_names,
        "seeds": f"game i has seed catansim.engine.batch_seeds({exp.seed}, 1, i); parts cover "
                 "game index ranges part-<variant>-<start>-<stop> (stop excluded)",
        "parts": f"{D.PARTS_LOG}: one record per complete part (rows, bytes and SHA-256 of "
                 "each file, the engine fingerprint)",
    }


def _check_records(exp: Experiment, root: Path, records: dict, replay: bool
                   ) -> tuple[dict, list[str]]:
    """The records whose parts pass every check (size, SHA-256, rows, engine), and the
    problems of the others (each warned about; ``replay``: they will be played again)."""
    good, bad = {}, []
    for stem, rec in records.items():
        if not D.part_fits(rec.part, exp.variant_names, exp.games, exp.batch_size):
            raise CatansimError(f"{root}: part {stem} {_fits_text(exp)}")
        problem = D.check_record(root, rec, full=True)
        if problem is None and rec.engine != engine_fingerprint():
            problem = f"{rec.part.path(root, 'games')}: played by engine {rec.engine}"
        if problem:
            bad.append(problem)
            warnings.warn(CatansimWarning(
                problem + ("; playing the part again" if replay else "; part not counted")),
                stacklevel=3)
        else:
            good[stem] = rec
    return good, bad


def prepare_dataset(exp: Experiment, root: Path) -> dict:
    """Create or check the dataset folder (holding its lock); returns the records of the
    complete parts, each checked in full.

    Refuses a dataset of other settings or another engine; removes what a killed run
    left (temporary files, part files without a record) and the files of bad parts
    (which the run plays again); writes the manifest (when it changed) and the records.
    """
    D.make_folders(root)
    mpath = root / D.MANIFEST
    records = D.read_records(root)
    if mpath.exists():
        manifest = D.read_manifest(root)
        check_manifest(exp, root, manifest)
    else:
        manifest = None
        if records or D.stray_files(root, {}):
            raise CatansimError(f"{root}: has parts but no {D.MANIFEST}; allowed: a new --out")
    good, bad = _check_records(exp, root, records, replay=True)
    for stem in set(records) - set(good):
        for table in D.TABLES:
            records[stem].part.path(root, table).unlink(missing_ok=True)
    for path in D.stray_files(root, good):
        path.unlink(missing_ok=True)
    log = root / D.PARTS_LOG
    if bad or len(good) != len(records) or not log.exists() or _torn(log, len(good)):
        D.rewrite_records(root, good.values())
    new = _manifest(exp)
    if new != manifest:
        D.write_manifest(root, new)
    return good


def _torn(log: Path, n_records: int) -> bool:
    """Whether the parts log holds more lines than good records (a torn or repeated line)."""
    with open(log, "rb") as fh:
        return sum(1 for line in fh if line.strip()) != n_records


def _read_only_records(exp: Experiment, root: Path) -> dict:
    """The good records of a dataset this process cannot write to (nothing is changed)."""
    if not (root / D.MANIFEST).exists():
        return {}
    check_manifest(exp, root, D.read_manifest(root))
    return _check_records(exp, root, D.read_records(root), replay=False)[0]


# --- running ------------------------------------------------------------------------


@dataclass
class RunReport:
    """What a run did."""

    root: Path
    parts_total: int
    parts_skipped: int
    parts_written: int
    games_written: int
    seconds: float  # playing and writing the parts, after the kernels were ready
    warmup_seconds: float = 0.0  # compiling (first use) or loading the kernels


class _State:
    """What the dataset holds, for the one line a fault or a signal prints."""

    def __init__(self, root: Path, total: int):
        self.root, self.total = root, total
        self.done = None  # parts complete when the run started (None: folder not opened)
        self.landed: set[str] = set()  # parts this run wrote (their records appended)

    @property
    def kept(self) -> int | None:
        if self.done is None:  # stopped before the dataset was checked: count its records
            n = _count_records(self.root)
            return n or None
        return self.done + len(self.landed)

    def text(self, hint: str = "rerun the same command to resume") -> str:
        if self.kept is None:
            return "nothing written"
        return f"{self.kept} of {self.total} parts kept; {hint}"


def _count_records(root: Path) -> int:
    """Complete lines of the parts log (0 if there is none or it cannot be read)."""
    try:
        with open(Path(root) / D.PARTS_LOG, "rb") as fh:
            return sum(1 for line in fh if line.strip() and line.endswith(b"\n"))
    except OSError:
        return 0


def _check_memory(exp: Experiment, address) -> None:
    """Refuse a batch size the machine's available memory cannot hold (local runs)."""
    if address:
        return
    need = BASE_MEMORY + MEMORY_PER_GAME * exp.batch_size
    have = available_memory()
    if have is not None and need > have:
        fit = max(1, (have - BASE_MEMORY) // MEMORY_PER_GAME)
        raise FaultError(
            f"batch_size: {exp.batch_size:,} games per part need about {need / 2**30:.1f} GiB "
            f"of memory, {have / 2**30:.1f} GiB is available; allowed: batch_size "
            f"<= {fit:,} on this machine; nothing written")


def _check_disk(exp: Experiment, root: Path) -> None:
    """Refuse a run whose dataset cannot fit on the disk: its size estimated from the
    bytes per game of the parts already there (else ``DISK_PER_GAME``), for the games
    still to play, against the free space of the folder (or its nearest parent)."""
    with warnings.catch_warnings():  # a bad record is named once, when the run opens it
        warnings.simplefilter("ignore", CatansimWarning)
        records = D.read_records(root) if (root / D.PARTS_LOG).is_file() else {}
    games_done = sum(r.part.n_games for r in records.values())
    per_game = (sum(f.bytes for r in records.values() for f in r.files.values()) / games_done
                if games_done else DISK_PER_GAME)
    todo = max(0, exp.games * len(exp.variants) - games_done)
    where = next((p for p in (root, *root.parents) if p.exists()), None)
    try:
        free = shutil.disk_usage(where).free if where is not None else None
    except OSError:
        free = None
    need = todo * per_game
    if free is None or need <= free:
        return
    raise FaultError(
        f"{root}: too little space left on device: the dataset needs about {_size(need)} "
        f"more ({todo:,} games at "
        f"{per_game:,.0f} bytes each), {_size(free)} is free; allowed: fewer games, a "
        "folder on a bigger disk (--out), or --force to start anyway (a full disk stops "
        "the run, which resumes); nothing written")


def _size(n: float) -> str:
    for unit in ("bytes", "KB", "MB", "GB", "TB"):
        if n < 1000 or unit == "TB":
            return f"{n:,.0f} {unit}" if unit == "bytes" else f"{n:,.1f} {unit}"
        n /= 1000
    return f"{n:,.1f} TB"


def available_memory() -> int | None:
    """Bytes of memory available (``MemAvailable`` of ``/proc/meminfo``), None if unknown."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def run_experiment(exp: Experiment, out: str | Path | None = None, n_threads: int | None = None,
                   scheduler: str | None = None, progress: bool = True,
                   on_part=None, debug: bool = False, force: bool = False) -> RunReport:
    """Run (or resume) an experiment into its dataset folder.

    Parameters
    ----------
    exp : Experiment
    out : path, optional
        Dataset folder (default ``exp.output``).
    n_threads : int, optional
        Numba threads per batch (default: all cores; on Dask workers, theirs).
    scheduler : str, optional
        Dask scheduler address (default ``exp.scheduler``); None runs locally.
    progress : bool
        Show a tqdm bar (games done, games/s, time left).
    on_part : callable(Task), optional
        Called after each part is written (tests use it to interrupt a run).
    debug : bool
        Stop at the first illegal action a strategy chooses (``IllegalActionError``
        naming the game's seed, turn, seat, decision and value).
    force : bool
        Start even when the dataset's estimated size exceeds the free disk space
        (a run stopped by a full disk keeps its parts and resumes).

    Returns
    -------
    RunReport

    Raises
    ------
    CatansimError
        Settings or an engine that differ from the dataset's, a folder that is not a
        dataset, a worker running another engine (one line each); a Python player
        that raised (``catansim.game.PlayerError``: the game's seed, the seat, the
        player, its exception and how many parts were kept).
    FaultError
        A full disk, an unwritable or read-only folder, a lost scheduler, too little
        memory: one line naming the path and how many parts were kept.
    """
    root = Path(check_path(str(out) if out is not None else str(exp.output), "--out"))
    address = scheduler if scheduler is not None else exp.scheduler
    if address is not None:
        address = check_scheduler(address, "--scheduler")
    _check_memory(exp, address)
    if not force:
        _check_disk(exp, root)
    state = _State(root, n_parts(exp))
    try:
        with contextlib.ExitStack() as stack:
            # a cluster is reached, and its workers' engines checked, before the folder
            client = stack.enter_context(_client(address, state)) if address else None
            if root.exists() and not root.is_dir():
                raise CatansimError(f"{root}: is a file, not a folder; allowed: a dataset "
                                    "folder (output, --out)")
            # before the folder and its manifest, whose digest of the engine's games
            # compiles the kernels on a cold cache: the compile is said and timed, and
            # a run stopped in it leaves nothing
            warmup = _warm_up(exp, n_threads, progress)
            try:
                root.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise FaultError(f"{root}: cannot create the dataset folder "
                                 f"({os_reason(exc)}); nothing written") from None
            try:
                stack.enter_context(D.locked(root))
            except OSError as exc:
                if not is_write_fault(exc):
                    raise
                return _run_read_only(exp, root, state, exc)
            done = prepare_dataset(exp, root)
            state.done = len(done)
            return _run(exp, root, done, state, n_threads, client, address, progress,
                        on_part, warmup, debug)
    except Interrupted as exc:
        exc.state = f"{root}: {state.text()}"
        raise
    except _TaskFailed as exc:  # counted now that the part in flight has landed
        raise FaultError(f"{exc}; {root}: {state.text()}") from None
    except PlayerError as exc:  # a Python player raised: the parts before it are kept
        raise PlayerError(f"{exc}; {root}: {state.text()}") from exc.__cause__
    except FaultError:
        raise
    except OSError as exc:
        where = exc.filename or root
        raise FaultError(f"{where}: {os_reason(exc)}; {state.text(_hint(exc))}") from None
    except MemoryError:
        hint = "rerun the same command with a smaller batch_size to resume"
        raise FaultError(f"{root}: out of memory; {state.text(hint)}") from None
    except Exception:
        stopped = swallowed_interrupt()  # e.g. in Numba's compiler, which then failed
        if stopped is None:
            raise
        stopped.state = f"{root}: {state.text()}"
        raise stopped from None


def _hint(exc: OSError) -> str:
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return "free some space and rerun the same command to resume"
    if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
        return "rerun the same command where the folder is writable to resume"
    return "rerun the same command to resume"


def _run_read_only(exp: Experiment, root: Path, state: _State, exc: OSError) -> RunReport:
    """A folder this process cannot write: fine if the dataset is complete (nothing to
    do, the summary reads it), a fault naming what is kept otherwise."""
    done = _read_only_records(exp, root)
    state.done = len(done)
    if len(done) == state.total:
        return RunReport(root, state.total, state.total, 0, 0, 0.0)
    hint = "rerun the same command where the folder is writable to resume"
    raise FaultError(f"{root}: {os_reason(exc)}; {state.text(hint)}")


def _run(exp: Experiment, root: Path, done: dict, state: _State, n_threads, client, address,
         progress: bool, on_part, warmup: float, debug: bool = False) -> RunReport:
    pending = (t for t in plan(exp) if t.stem not in done)
    first = next(pending, None)
    done_games = sum(r.part.n_games for r in done.values())
    total_games = exp.games * len(exp.variants)
    if first is None:
        return RunReport(root, state.total, len(done), 0, 0, 0.0)
    pending = itertools.chain([first], pending)
    t0 = time.perf_counter()
    bar = _bar(exp, total_games, done_games, progress)
    written = (0, 0)
    try:
        if client is not None:
            parts = _dask_parts(exp, pending, client, address, n_threads, debug)
        else:
            parts = ((t, _Played(exp, t, play_task(exp, t, n_threads, debug)))
                     for t in pending)
        written = _write_all(root, exp, parts, bar, on_part,
                             lambda task: state.landed.add(task.stem))
    finally:
        bar.close()
    return RunReport(root, state.total, len(done), written[0], written[1],
                     time.perf_counter() - t0, warmup)


def _warm_up(exp: Experiment, n_threads, progress: bool) -> float:
    """Play the experiment's first game so that the kernels are compiled (first use on a
    machine, half a minute to a minute: ``catansim.core.compiling``), with the compile's progress
    shown, or loaded from Numba's cache, before anything else plays: the progress bar and
    the run's rate then count games only. Returns the seconds it took."""
    if progress:
        say_if_compiling()
    t = time.perf_counter()
    play_batch(batch_seeds(exp.seed, 1), exp.settings(exp.variants[0].name, 0),
               n_threads=n_threads)
    return time.perf_counter() - t


def _bar(exp: Experiment, total: int, initial: int, progress: bool):
    n_var = len(exp.variants)
    return tqdm(total=total, initial=initial, unit="game", unit_scale=True, smoothing=0.1,
                desc=f"{exp.name}" + (f" ({n_var} variants)" if n_var > 1 else ""),
                disable=not progress, dynamic_ncols=True)


class _Played:
    """A played part whose tables are made once, on the writer thread (``make_tables``).

    It lets go of the kernel's arrays as soon as the tables are built, so that they
    are not kept while the tables are written.
    """

    def __init__(self, exp: Experiment, task: Task, played: list):
        self._args = (exp, task, played)

    def __call__(self):
        args, self._args = self._args, None
        return part_tables(*args)


def _finish_part(root: Path, exp: Experiment, task: Task, make_tables, landed) -> None:
    """Writer thread: make the part's tables, write them, then say it landed."""
    write_part(root, exp, task, *make_tables())
    landed(task)


def _write_all(root: Path, exp: Experiment, parts, bar, on_part, on_landed=None
               ) -> tuple[int, int]:
    """Build and write parts on a writer thread while the next part is played.

    ``parts`` yields ``(task, make_tables)``; ``make_tables()`` returns the part's
    ``(games, players)`` tables and runs on the writer thread, so that building the
    tables of a played part overlaps the next kernel call (which releases the GIL).
    At most one part is being built and written while the next is played, so memory
    holds about two batches. An exception (a signal included) in the main thread
    still lets the part in flight finish (the executor joins on exit); the writer
    calls ``on_landed(task)`` as each part's record is written, so a fault's message
    counts exactly the parts on disk (``on_part(task)`` runs on the main thread).
    """
    written = games_done = 0
    landed = on_landed or (lambda task: None)
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="catansim-writer") as writer:
        inflight = None

        def finish():
            nonlocal written, games_done, inflight
            task, fut = inflight
            fut.result()
            inflight = None
            written += 1
            games_done += task.n_games
            bar.update(task.n_games)
            if on_part is not None:
                on_part(task)

        try:
            for task, make_tables in parts:
                fut = writer.submit(_finish_part, root, exp, task, make_tables, landed)
                del make_tables
                if inflight is not None:
                    finish()
                inflight = (task, fut)
            if inflight is not None:
                finish()
        except BaseException:
            writer.shutdown(wait=True)  # the part in flight lands (or fails) first
            raise
    return written, games_done


# --- Dask ---------------------------------------------------------------------------


class _TaskFailed(Exception):
    """A part that did not come back from the cluster; ``run_experiment`` adds how many
    parts were kept once the part being written has landed."""


def _dask_fault(exc: BaseException, address: str, task: Task) -> BaseException:
    """The one-line error of a task that did not come back (a worker's own one-line
    error, e.g. another engine or an illegal action with ``debug``, as it is)."""
    if isinstance(exc, CatansimError):
        return exc
    name = type(exc).__name__
    lost = name in ("FutureCancelledError", "CancelledError", "CommClosedError",
                    "TimeoutError", "StreamClosedError") or isinstance(exc, OSError | TimeoutError)
    if lost:
        m = re.search(r"scheduler-connection-lost|Connection reset by peer|Stream is closed|"
                      r"Timed out", str(exc))
        detail = name + (f": {m.group(0)}" if m else "")
        return _TaskFailed(f"--scheduler {address}: lost the scheduler ({detail})")
    if name == "KilledWorker":
        return _TaskFailed(f"--scheduler {address}: the workers playing part {task.stem} died "
                           "(out of memory?)")
    detail = str(exc).splitlines()[0] if str(exc) else ""
    return _TaskFailed(f"--scheduler {address}: part {task.stem} failed on a worker ({name}"
                       + (f": {detail}" if detail else "") + ")")


def check_workers(client, address: str) -> None:
    """Refuse workers whose engine fingerprint differs from this process's (one line)."""
    mine = engine_fingerprint()
    try:
        theirs = client.run(_worker_engine)
    except Exception as exc:  # a worker that cannot import catansim, or lost on the way
        raise FaultError(f"--scheduler {address}: cannot ask the workers for their engine "
                         f"({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
                         "); nothing written") from None
    for worker, fp in sorted(theirs.items()):
        if fp != mine:
            raise CatansimError(
                f"--scheduler {address}: worker {worker} runs engine {fp}, this catansim is "
                f"engine {mine}; allowed: workers with the same catansim (docs/cluster.md)")


@contextlib.contextmanager
def dask_client(scheduler: str | None, client=None, kept: str = "nothing written"):
    """A Dask client: the one given, one of the scheduler at ``scheduler`` whose workers
    all run this engine, or None (no scheduler). ``kept`` says, when it cannot connect,
    what the caller keeps."""
    if client is not None or scheduler is None:
        yield client
        return
    address = check_scheduler(scheduler, "--scheduler")
    try:
        from dask.distributed import Client  # noqa: PLC0415  (the dask extra)
    except ImportError:
        raise CatansimError("--scheduler: dask.distributed is not installed; allowed: "
                            "pip install 'catansim[dask]', or a local run") from None
    try:
        c = Client(address, timeout=CONNECT_TIMEOUT)
    except (OSError, TimeoutError) as exc:
        raise FaultError(f"--scheduler {address}: cannot connect ({exc}); {kept}") from None
    try:
        check_workers(c, address)
        yield c
    finally:
        with contextlib.suppress(Exception):
            c.close(timeout=5)


@contextlib.contextmanager
def _client(address: str, state: _State):
    """A Dask client of the scheduler at ``address`` whose workers all run this engine."""
    with contextlib.suppress(ImportError):  # without the extra, dask_client says so
        # importing distributed sets its loggers' levels: before they are quieted
        import distributed  # noqa: F401, PLC0415  (the dask extra)
    with _quiet("distributed", "tornado", "asyncio"), \
            dask_client(address, kept=f"{state.root}: {state.text()}") as client:
        yield client


@contextlib.contextmanager
def _quiet(*names: str):
    """Silence these loggers below CRITICAL: a lost scheduler makes Dask log a traceback
    per reconnection attempt, while the run reports the fault as one line."""
    known = list(logging.root.manager.loggerDict)
    loggers = [logging.getLogger(n) for n in sorted(
        {n for n in known for root in names if n == root or n.startswith(root + ".")}
        | set(names))]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        for lg, level in zip(loggers, levels, strict=True):
            lg.setLevel(level)


def _dask_parts(exp: Experiment, pending: Iterator[Task], client, address: str, n_threads,
                debug: bool = False):
    """Yield ``(task, make_tables)`` for parts computed on a Dask cluster (tables built
    on the workers, each of which checks its engine first), a bounded number in flight."""
    from dask.distributed import as_completed  # noqa: PLC0415  (the dask extra)

    n_workers = max(1, len(client.scheduler_info().get("workers", {})))
    limit = 2 * n_workers
    key = exp.result_hash()[:12]
    engine = engine_fingerprint()
    by_key: dict[str, Task] = {}

    def submit(t):
        fut = client.submit(compute_tables, exp, t, n_threads, debug, engine,
                            key=f"catansim-{key}-{t.stem}", pure=False, retries=2)
        by_key[fut.key] = t
        return fut

    ac = as_completed([submit(t) for t in itertools.islice(pending, limit)])
    for fut in ac:
        task = by_key.pop(fut.key)
        try:
            tables = fut.result()
        except Exception as exc:
            raise _dask_fault(exc, address, task) from None
        fut.release()
        nxt = next(pending, None)
        if nxt is not None:
            ac.add(submit(nxt))
        yield task, partial(tuple, tables)
