"""Run an experiment into a dataset: batches, atomic parts, resume, Dask.

The work is the games ``0 .. games-1`` cut into parts of ``batch_size`` games
times the variants (``results.dataset.plan_parts``). Each part is played by
``play_batch`` (all cores, a thread per core) on the main thread; a writer thread
turns it into pyarrow tables (``results.games_table``, straight from the arrays)
while the next part plays, and writes it atomically (``results.dataset.write_part``:
a part is complete exactly when its games file exists). Rerunning skips complete
parts; a run stopped at any moment loses at most the parts in flight.

Game ``i`` has seed ``engine.batch_seeds(seed, 1, i)`` whatever the batch size
or the machine, so a local run, a resumed run and a Dask run give identical
tables. The dataset's layout on disk is ``catansim.results.dataset``'s.
"""

from __future__ import annotations

import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import numpy as np

from ..errors import CatansimError
from ..results import dataset as D
from ..results.dataset import Part as Task
from ..results.dataset import load
from .experiment import Experiment

__all__ = ["RunReport", "Task", "compute_tables", "compute_task", "load", "plan",
           "play_task", "prepare_dataset", "run_experiment"]

CONNECT_TIMEOUT = "20s"  # to reach a Dask scheduler


def plan(exp: Experiment) -> list[Task]:
    """All parts of a run, batch-major (every variant of batch 0, then batch 1, ...)."""
    return D.plan_parts(exp.variant_names, exp.games, exp.batch_size)


# --- computing a part ---------------------------------------------------------------


def play_task(exp: Experiment, task: Task, n_threads: int | None = None,
              debug: bool = False) -> list:
    """Play one part's games: ``[(BatchResult, game indices), ...]``, one per seat shift.

    Runs on the local machine or on a Dask worker (it registers the experiment's
    strategies config first). Seats rotate by game index when ``exp.rotate``.
    """
    from ..engine import batch_seeds, play_batch

    idx = np.arange(task.start, task.stop, dtype=np.int64)
    seeds = batch_seeds(exp.seed, task.n_games, task.start)
    shifts = exp.n_shifts(task.variant)
    played = []
    for shift in range(shifts):
        sel = (idx % shifts) == shift if shifts > 1 else slice(None)
        batch = play_batch(seeds[sel], exp.settings(task.variant, shift), n_threads=n_threads,
                           debug=debug)
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
    from ..results import games_table, players_table

    batches, index = [b for b, _ in played], [i for _, i in played]
    return (games_table(batches, index, **_labels(exp, task)),
            players_table(batches, index, **_labels(exp, task)))


def compute_task(exp: Experiment, task: Task, n_threads: int | None = None,
                 debug: bool = False):
    """Play one part's games and return its ``(games, players)`` frames, in game order."""
    from ..results import games_frame, players_frame

    played = play_task(exp, task, n_threads, debug)
    batches, index = [b for b, _ in played], [i for _, i in played]
    return (games_frame(batches, index, **_labels(exp, task)),
            players_frame(batches, index, **_labels(exp, task)))


def compute_tables(exp: Experiment, task: Task, n_threads: int | None = None,
                   debug: bool = False):
    """``compute_task`` as pyarrow Tables (what Dask workers send back to be written)."""
    return part_tables(exp, task, play_task(exp, task, n_threads, debug))


# --- writing ------------------------------------------------------------------------


def part_metadata(exp: Experiment, task: Task) -> dict:
    """What each Parquet file of a part records about how it was made."""
    from .. import __version__

    return {
        "experiment": exp.name,
        "experiment_file": str(exp.path) if exp.path else None,
        "experiment_text": exp.text,
        "result_hash": exp.result_hash(),
        "catansim_version": __version__,
        "base_seed": exp.seed,
        "variant": task.variant,
        "start": task.start,
        "stop": task.stop,
        "seeds": f"game i has seed catansim.engine.batch_seeds({exp.seed}, 1, i)",
    }


def write_part(root: Path, exp: Experiment, task: Task, games, players) -> None:
    """Write one part atomically (``results.dataset.write_part``) with its metadata."""
    D.write_part(root, task, games, players, part_metadata(exp, task))


# --- the dataset folder -------------------------------------------------------------


def _describe_change(old: dict, new: dict) -> str:
    keys = sorted(k for k in set(old) | set(new) if old.get(k) != new.get(k))
    if keys == ["variants"]:
        ov, nv = old.get("variants", {}), new.get("variants", {})
        names = sorted(k for k in set(ov) | set(nv) if ov.get(k) != nv.get(k))
        return "variants " + ", ".join(names)
    return ", ".join(keys) or "the experiment"


def prepare_dataset(exp: Experiment, root: Path, tasks: list[Task]) -> None:
    """Create or check the dataset folder; refuse to mix results of different settings."""
    from .. import __version__

    D.make_folders(root)
    key = exp.result_key()
    h = exp.result_hash()
    if (root / D.MANIFEST).exists():
        old = D.read_manifest(root)
        if old.get("result_hash") != h:
            what = _describe_change(old.get("result_key", {}), key)
            raise CatansimError(
                f"{root}: holds results of different settings (changed: {what}); "
                f"cannot resume; use a new --out or delete the folder"
            )
    elif D.existing_stems(root):
        raise CatansimError(f"{root}: has parts but no {D.MANIFEST}; use a new --out")
    stems = {t.stem for t in tasks}
    extra = sorted(D.existing_stems(root) - stems)
    if extra:
        raise CatansimError(
            f"{root}: part {extra[0]} does not fit games={exp.games} with "
            f"batch_size={exp.batch_size}; rerun with the games of the earlier run, or a new --out"
        )
    D.write_manifest(root, {
        "format": D.FORMAT,
        "format_version": D.FORMAT_VERSION,
        "experiment": exp.name,
        "description": exp.description,
        "experiment_file": str(exp.path) if exp.path else None,
        "experiment_text": exp.text,
        "catansim_version": __version__,
        "result_hash": h,
        "result_key": key,
        "base_seed": exp.seed,
        "games": exp.games,
        "batch_size": exp.batch_size,
        "variants": exp.variant_names,
        "seeds": f"game i has seed catansim.engine.batch_seeds({exp.seed}, 1, i); parts cover "
                 "game index ranges part-<variant>-<start>-<stop> (stop excluded)",
    })


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


def run_experiment(exp: Experiment, out: str | Path | None = None, n_threads: int | None = None,
                   scheduler: str | None = None, progress: bool = True,
                   on_part=None, debug: bool = False) -> RunReport:
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

    Returns
    -------
    RunReport
    """
    root = Path(out) if out is not None else exp.output
    tasks = plan(exp)
    root.mkdir(parents=True, exist_ok=True)
    with D.locked(root):
        prepare_dataset(exp, root, tasks)
        pending = [t for t in tasks if not D.part_done(root, t)]
        done_games = sum(t.n_games for t in tasks) - sum(t.n_games for t in pending)
        address = scheduler if scheduler is not None else exp.scheduler
        warmup = _warm_up(exp, pending[0], n_threads, progress) if pending and not address else 0.0
        t0 = time.perf_counter()
        bar = _bar(exp, sum(t.n_games for t in tasks), done_games, progress)
        written = (0, 0)
        try:
            if address:
                parts = _dask_parts(exp, pending, address, n_threads, debug)
            else:
                parts = ((t, _Played(exp, t, play_task(exp, t, n_threads, debug)))
                         for t in pending)
            written = _write_all(root, exp, parts, bar, on_part)
        finally:
            bar.close()
    return RunReport(root, len(tasks), len(tasks) - len(pending), written[0], written[1],
                     time.perf_counter() - t0, warmup)


def _warm_up(exp: Experiment, task: Task, n_threads, progress: bool) -> float:
    """Play one game so that the kernels are compiled (first use on a machine, about a
    minute) or loaded from Numba's cache before the progress bar starts: the bar and
    the run's rate then count games only. Returns the seconds it took."""
    from ..engine import batch_seeds, play_batch

    if progress and not _kernels_cached():
        print("compiling the kernels (once per machine, about a minute; cached afterwards)...",
              file=sys.stderr, flush=True)
    t = time.perf_counter()
    play_batch(batch_seeds(exp.seed, 1, task.start), exp.settings(task.variant, 0),
               n_threads=n_threads)
    return time.perf_counter() - t


def _kernels_cached() -> bool:
    """Whether Numba's on-disk cache holds the batch kernel (best effort: True if unsure)."""
    from ..core.engine_nb import play_batch_nb

    if play_batch_nb.signatures:
        return True
    try:
        return os.path.exists(play_batch_nb._cache._cache_file._index_path)
    except AttributeError:  # a Numba without this private attribute: say nothing
        return True


def _bar(exp: Experiment, total: int, initial: int, progress: bool):
    from tqdm.auto import tqdm

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


def _finish_part(root: Path, exp: Experiment, task: Task, make_tables) -> None:
    """Writer thread: make the part's tables, then write them."""
    write_part(root, exp, task, *make_tables())


def _write_all(root: Path, exp: Experiment, parts, bar, on_part) -> tuple[int, int]:
    """Build and write parts on a writer thread while the next part is played.

    ``parts`` yields ``(task, make_tables)``; ``make_tables()`` returns the part's
    ``(games, players)`` tables and runs on the writer thread, so that building the
    tables of a played part overlaps the next kernel call (which releases the GIL).
    At most one part is being built and written while the next is played, so memory
    holds about two batches. An exception (Ctrl-C included) in the main thread still
    lets the part in flight finish (the executor joins on exit).
    """
    written = games_done = 0
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="catansim-writer") as writer:
        inflight = None

        def finish():
            nonlocal written, games_done
            task = inflight[0]
            inflight[1].result()
            written += 1
            games_done += task.n_games
            bar.update(task.n_games)
            if on_part is not None:
                on_part(task)

        for task, make_tables in parts:
            fut = writer.submit(_finish_part, root, exp, task, make_tables)
            del make_tables
            if inflight is not None:
                finish()
            inflight = (task, fut)
        if inflight is not None:
            finish()
    return written, games_done


def _dask_parts(exp: Experiment, pending: list[Task], address: str, n_threads, debug=False):
    """Yield ``(task, make_tables)`` for parts computed on a Dask cluster (tables built
    on the workers), a bounded number in flight."""
    try:
        from dask.distributed import Client, as_completed
    except ImportError:
        raise CatansimError("--scheduler: dask.distributed is not installed; "
                            "pip install 'catansim[dask]'") from None
    try:
        client = Client(address, timeout=CONNECT_TIMEOUT)
    except (OSError, TimeoutError) as exc:
        raise CatansimError(f"--scheduler {address}: cannot connect ({exc})") from None
    try:
        n_workers = max(1, len(client.scheduler_info().get("workers", {})))
        queue = list(pending)
        limit = 2 * n_workers
        key = exp.result_hash()[:12]
        by_key: dict[str, Task] = {}

        def submit(t):
            fut = client.submit(compute_tables, exp, t, n_threads, debug,
                                key=f"catansim-{key}-{t.stem}", pure=False, retries=2)
            by_key[fut.key] = t
            return fut

        ac = as_completed([submit(queue.pop(0)) for _ in range(min(limit, len(queue)))])
        for fut in ac:
            task = by_key.pop(fut.key)
            tables = fut.result()
            fut.release()
            if queue:
                ac.add(submit(queue.pop(0)))
            yield task, partial(tuple, tables)
    finally:
        client.close()
