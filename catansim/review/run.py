"""``analyse`` (``catansim.analyse``, ``catansim analyse``): the review of one game log.

The work is a list of items in the order of the log: the positions of the timeline
and the events that record a decision of the seat reviewed. Items are independent;
they are cut into chunks of ``block`` items, each chunk computed from one replay of
the log (``logs.position.positions``) in this process or in a worker process of a
pool, and written as it lands: ``chunks/cNNNN-timeline.parquet``,
``chunks/cNNNN-moves.parquet`` (each atomically), then ``chunks/cNNNN.json`` (its
counts and CPU seconds), whose presence says the chunk is done. ``review.json``
holds what the numbers depend on; a rerun with the same values computes only the
chunks missing, another value is refused, naming it. The threshold is not among them:
a rerun with another threshold flags anew from the chunks written.

The folder, once done: ``timeline.parquet`` and ``timeline.csv``, ``moves.parquet`` and
``moves.csv`` (the columns of ``results.review``), ``review.json`` (the settings and a
summary: the budget, the seed, the counts of what was valued and skipped, the CPU
seconds) and ``review.html`` (the game's viewer page).
"""

from __future__ import annotations

import hashlib
import json
import os
import resource
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import pandas as pd
from tqdm.auto import tqdm

from .. import __version__
from ..checks import check_int, check_number, check_path, check_resume, check_seed, is_int
from ..errors import CatansimError
from ..files import atomic_path, atomic_write_text, display_path
from ..logs import LogError, read_log
from ..logs.position import position, positions, standing
from ..results.review import MOVES, TIMELINE, empty, names
from ..runs.pool import completed
from ..strategies import PRESETS, StrategySet
from ..viewer import write_viewer
from . import values as V
from .choices import decision_events, log_choices

FORMAT = "catansim-review"
MANIFEST = "review.json"
CHUNKS = "chunks"
# What a resume must match (the threshold only flags: it may change).
KEYS = ("log_sha256", "seat", "observer", "events", "rollouts", "budget", "candidates",
        "strategy", "strategy_params", "seed", "block")
BUDGET_MIN = 8  # a decision: two searched, and two seeds a side of the comparison


@dataclass
class Review:
    """A game's review.

    ``timeline``: each seat's chance of winning at each position (``results.review.
    TIMELINE``); ``moves``: the decisions of the seat reviewed (``MOVES``);
    ``summary``: the settings, the budget, the counts and the CPU seconds (also in
    ``review.json``); ``out``: the folder; ``page``: its viewer page.
    """

    timeline: pd.DataFrame
    moves: pd.DataFrame
    summary: dict
    out: Path
    page: Path

    @property
    def flagged(self) -> pd.DataFrame:
        """The moves flagged, the costliest first."""
        return self.moves[self.moves["flagged"]].sort_values("loss", ascending=False)


def analyse(log, out, *, seat: int = 0, observer=None, events=None, rollouts: int = 400,
            budget: int = 1600, candidates: int = 8, strategy: str = "default",
            threshold: float = 5.0, seed: int = 0, workers: int | None = None,
            block: int = 8, progress: bool = False,
            strategy_set: StrategySet = PRESETS) -> Review:
    """Review a game log: each seat's chance of winning through the game, and the value of
    every decision of ``seat`` beside its best alternative; written to ``out``.

    Parameters
    ----------
    log : path or (dict, list of dict)
        Any valid game log (``docs/game-log.md``), complete or cut short.
    out : path
        The output folder (made if missing); rerunning with it resumes.
    seat : int
        The seat whose decisions are valued.
    observer : int or "full", optional
        Whose public information the timeline's rollouts are dealt from (default
        ``seat``); ``"full"``: the full state, every hand as the log has it (the
        decisions then too; otherwise each decision is valued from its seat's own
        public information).
    events : "turns", "all" or list of int, optional
        The positions of the timeline: the events after which they stand (-1 the
        start); ``"turns"`` (default): the start, each turn's start and the last
        event; ``"all"``: every position of the log.
    rollouts : int
        Rollouts a position (2-100,000).
    budget : int
        Rollouts a decision (8-100,000): half for the search among its candidates,
        a quarter each for the move played and its best alternative on the same seeds.
    candidates : int
        The options searched at most at a decision (2-64; ``SearchPlayer``).
    strategy : str
        The compiled strategy that plays every seat in the rollouts.
    threshold : float
        Flag a move whose loss is above this many points (hundredths of a chance of
        winning) and whose interval lies above 0 (0-100).
    seed : int
        Every rollout seed comes from it and the event.
    workers : int, optional
        Processes (default: every core).
    block : int
        Items (positions and decisions) a chunk: the unit computed, written and resumed.
    progress : bool
        Show a progress bar (tqdm).
    """
    header, moves_of, where, seat, observer, ats = check_inputs(log, seat, observer, events)
    rollouts = check_int(rollouts, "rollouts", 2, 100_000)
    budget = check_int(budget, "budget", BUDGET_MIN, 100_000)
    candidates = check_int(candidates, "candidates", 2, 64)
    strategy_set.compiled(strategy, "strategy")
    threshold = check_number(threshold, "threshold", 0.0, 100.0)
    seed = check_seed(seed)
    workers = (os.cpu_count() or 1) if workers is None else check_int(workers, "workers", 1)
    block = check_int(block, "block", 1)
    out = Path(check_path(out, "out"))
    spec = V.Spec(header, moves_of, seat, observer, tuple(ats), rollouts, budget, candidates,
                  strategy, seed, strategy_set)
    manifest = _manifest(spec, block, display_path(log) if isinstance(
        log, str | os.PathLike) else None)
    _open_folder(out, manifest)
    items = plan(spec)
    chunks = [items[i : i + block] for i in range(0, len(items), block)]
    todo = [i for i in range(len(chunks)) if not _done(out, i)]
    bar = (tqdm(total=sum(len(chunks[i]) for i in todo), unit="item", desc="analyse",
                leave=False) if progress and todo else None)
    wall, cpu = time.perf_counter(), _cpu_seconds()
    try:
        _compute(out, spec, chunks, todo, workers, bar)
    finally:
        if bar is not None:
            bar.close()
    run = {"chunks": len(todo), "workers": workers,
           "cpu_seconds": round(_cpu_seconds() - cpu, 2),
           "wall_seconds": round(time.perf_counter() - wall, 2)}
    timeline, moves, counts = _gather(out, len(chunks), threshold)
    summary = _summary(spec, threshold, timeline, moves, counts, run)
    for name, table in (("timeline", timeline), ("moves", moves)):
        with atomic_path(out / f"{name}.parquet") as tmp:
            table.to_parquet(tmp, index=False)
        with atomic_path(out / f"{name}.csv") as tmp:
            table.to_csv(tmp, index=False)
    atomic_write_text(out / MANIFEST, json.dumps({**manifest, "summary": summary},
                                                 indent=1) + "\n")
    page = _write_page(out / "review.html", header, moves_of, timeline, moves)
    return Review(timeline, moves, summary, out, page)


def _cpu_seconds() -> float:
    """CPU seconds of this process and of its child processes that have ended (a pool's
    workers, start-up included)."""
    own, children = (resource.getrusage(w) for w in (resource.RUSAGE_SELF,
                                                      resource.RUSAGE_CHILDREN))
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


# --- the inputs ------------------------------------------------------------------------


# How the checks name the inputs that only the log can check (the command: its options).
FIELDS = {"log": "log", "seat": "seat", "observer": "observer", "events": "events"}


class Inputs(NamedTuple):
    header: dict
    events: list
    where: str  # how a message names the log
    seat: int
    observer: int  # -1: the full state
    ats: list  # the timeline's positions (``timeline_events``)


def check_inputs(log, seat, observer, events, fields: dict = FIELDS) -> Inputs:
    """The inputs ``analyse`` checks against the log: the log itself (read and checked to
    its last event), the seat, the observer and the timeline's events; a bad one is a
    one-line error naming it as ``fields`` does."""
    if isinstance(log, tuple) and len(log) == 2 and isinstance(log[0], dict):
        header, moves_of, where = log[0], list(log[1]), fields["log"]
    elif isinstance(log, str | os.PathLike):
        path = display_path(check_path(log, fields["log"], "a game log file"))
        where = f"{fields['log']}: {path}" if fields["log"] else path
        header, moves_of = read_log(log)
    else:
        raise CatansimError(f"{fields['log']}: {type(log).__name__} is not allowed; allowed: "
                            "a path of a game log, or its (header, events)")
    try:
        position(header, moves_of)
    except LogError as exc:  # a rule or the format broken
        allowed = "" if "; allowed: " in str(exc) else (
            "; allowed: a log that follows the rules and the format (docs/game-log.md)")
        raise CatansimError(f"{where}: {exc}{allowed}") from None
    except CatansimError as exc:  # no events, a roll without its production
        raise CatansimError(f"{where}: {str(exc).removeprefix('from_log: ')}") from None
    n = int(header["n_players"])
    seat = check_int(seat, fields["seat"], 0, n - 1, f"a seat in 0..{n - 1} (the log's "
                     f"{n} players)")
    allowed = f"a seat in 0..{n - 1}, or full (the full state)"
    if observer is None:
        observer = seat
    elif observer == "full":
        observer = -1
    elif not is_int(observer) or not 0 <= observer < n:
        raise CatansimError(f"{fields['observer']}: {observer!r} is not allowed; allowed: "
                            f"{allowed}")
    ats = timeline_events(events, moves_of, fields["events"])
    return Inputs(header, moves_of, where, seat, int(observer), ats)


def timeline_events(asked, events: list[dict], field: str = "events") -> list[int]:
    """The events after which the timeline's positions stand, each as the position
    stands (``logs.position.standing``), without repeats: ``asked`` is "turns" (None),
    "all" or event indices (-1 the start)."""
    last = len(events) - 1
    allowed = (f"turns, all, or event indices in -1..{last} (-1: the start, before the "
               "first event)")
    if asked is None or asked == "turns":
        asked = [-1, *(k for k, ev in enumerate(events) if ev["e"] == "turn_start"), last]
    elif asked == "all":
        asked = range(-1, last + 1)
    elif isinstance(asked, str) or not hasattr(asked, "__iter__"):
        raise CatansimError(f"{field}: {asked!r} is not allowed; allowed: {allowed}")
    out = set()
    for at in asked:
        if not is_int(at) or not -1 <= at <= last:
            raise CatansimError(f"{field}: {at!r} is not an event of the log; allowed: "
                                f"{allowed}")
        out.add(standing(events, int(at)))
    if not out:
        raise CatansimError(f"{field}: none given; allowed: {allowed}")
    return sorted(out)


def plan(spec: V.Spec) -> list[tuple[int, str]]:
    """The review's items in the order of the log: (event, "position") for each position
    of the timeline, (event, "decision") for each event that records a decision of the
    seat reviewed."""
    items = [(at, "position") for at in spec.ats]
    made = log_choices(spec.header, spec.events)
    items += [(k, "decision") for k in decision_events(made, spec.seat)]
    return sorted(items)


# --- a chunk ------------------------------------------------------------------------------


def review_chunk(spec: V.Spec, items: list[tuple[int, str]]) -> tuple:
    """The rows of the items of one chunk (from one replay of the log) and its counts
    (``values``'s reasons, the rollouts played, ``cpu_seconds``)."""
    start = time.process_time()
    made = log_choices(spec.header, spec.events)
    counts: Counter = Counter()
    # a position stands after its event, a decision at the position before its event
    wanted = sorted((at if kind == "position" else at - 1, at, kind) for at, kind in items)
    loaded = positions(spec.header, spec.events, [w[0] for w in wanted])
    timeline, moves, pos, here = [], [], None, None
    for at, event, kind in wanted:
        if at != here:
            pos, here = next(loaded), at
        if kind == "position":
            timeline += V.timeline_rows(pos, spec, counts)
        else:
            moves += V.move_rows(pos, event, made[event], spec, counts)
    counts["cpu_seconds"] = time.process_time() - start
    return _frame(TIMELINE, timeline), _frame(MOVES, moves), dict(counts)


def _frame(table, rows: list[dict]) -> pd.DataFrame:
    if not rows:
        return empty(table)
    frame = pd.DataFrame(rows)
    if "flagged" not in frame:
        frame["flagged"] = False
    return frame[list(names(table))].astype({c: d for c, d, _ in table})


# --- the folder ---------------------------------------------------------------------------


def _digest(header: dict, events: list) -> str:
    text = json.dumps([header, events], sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def _manifest(spec: V.Spec, block: int, where: str | None) -> dict:
    params = (None if spec.strategy in PRESETS else
              spec.strategy_set.resolve(spec.strategy).params.tolist())
    return {"format": FORMAT, "version": 1, "log": where,
            "log_sha256": _digest(spec.header, spec.events), "seat": spec.seat,
            "observer": spec.observer, "information": spec.information,
            "events": list(spec.ats), "rollouts": spec.rollouts, "budget": spec.budget,
            "candidates": spec.candidates, "strategy": spec.strategy,
            "strategy_params": params, "seed": spec.seed, "block": block,
            "catansim": __version__}


def _open_folder(out: Path, manifest: dict) -> None:
    """Make ``out`` with its manifest, or check that the one there is this review's."""
    path = out / MANIFEST
    if not check_resume(out, MANIFEST, manifest, KEYS, "review") and out.exists() and any(
            out.iterdir()):
        raise CatansimError(f"{out}: the folder holds other files and no {MANIFEST}; "
                            "allowed: a new or empty folder, or the folder of a review")
    (out / CHUNKS).mkdir(parents=True, exist_ok=True)
    if not path.exists():
        atomic_write_text(path, json.dumps(manifest, indent=1) + "\n")


def _chunk_path(out: Path, i: int, part: str) -> Path:
    return out / CHUNKS / (f"c{i:04d}.json" if part == "counts" else f"c{i:04d}-{part}.parquet")


def _done(out: Path, i: int) -> bool:
    return all(_chunk_path(out, i, part).exists() for part in ("timeline", "moves", "counts"))


def _write_chunk(out: Path, i: int, got: tuple) -> None:
    """A chunk's tables, then its counts (the file that says it is done)."""
    timeline, moves, counts = got
    for part, table in (("timeline", timeline), ("moves", moves)):
        with atomic_path(_chunk_path(out, i, part)) as tmp:
            table.to_parquet(tmp, index=False)
    atomic_write_text(_chunk_path(out, i, "counts"), json.dumps(counts) + "\n")


def _compute(out: Path, spec: V.Spec, chunks: list, todo: list[int], workers: int,
             bar) -> None:
    """Compute the chunks ``todo`` and write each as it lands: here (one worker or one
    chunk) or in a pool of fresh processes (no forked Numba state). A chunk that fails
    stops the review with its error; the chunks written stay."""

    for i, got in completed(review_chunk, {i: (spec, chunks[i]) for i in todo}, workers):
        _write_chunk(out, i, got)
        if bar is not None:
            bar.update(len(chunks[i]))


def _gather(out: Path, n_chunks: int, threshold: float) -> tuple:
    """Every chunk's rows, in the log's order, flagged at ``threshold``, and the counts
    summed."""
    counts: Counter = Counter()
    parts = {"timeline": [], "moves": []}
    for i in range(n_chunks):
        counts.update(json.loads(_chunk_path(out, i, "counts").read_text()))
        for part, frames in parts.items():
            frames.append(pd.read_parquet(_chunk_path(out, i, part)))
    timeline = _concat(TIMELINE, parts["timeline"]).sort_values(
        ["event", "seat"], kind="stable", ignore_index=True)
    moves = _concat(MOVES, parts["moves"])
    moves["flagged"] = (moves["loss"] > threshold / 100) & (moves["loss_low"] > 0)
    return timeline, moves, counts


def _concat(table, frames: list[pd.DataFrame]) -> pd.DataFrame:
    frames = [f for f in frames if len(f)]
    frame = pd.concat(frames, ignore_index=True) if frames else empty(table)
    return frame.astype({c: d for c, d, _ in table})


def _summary(spec: V.Spec, threshold: float, timeline: pd.DataFrame,
             moves: pd.DataFrame, counts: Counter, run: dict) -> dict:
    """What a review says of itself: its budget, counts and cost."""
    skipped = {r: int(counts[r]) for r in (V.NOT_LOADED, V.NOT_LOGGED, V.NO_DEAL)
               if counts[r]}
    return {
        "threshold": threshold,
        "seeds": f"every rollout seed derives from seed {spec.seed} and the event "
                 "(catansim.review.values.derived)",
        "rollouts_a_position": spec.rollouts,
        "rollouts_a_decision": {"search": max(2, spec.budget // 2),
                                "move_played": spec.pairs, "best": spec.pairs},
        "positions": int(timeline["event"].nunique()),
        "decisions": len(moves),
        "forced": int(counts[V.FORCED]),
        "no_alternative": int(counts[V.ALONE]),
        "skipped": skipped,
        "flagged": int(moves["flagged"].sum()),
        "rollouts_played": int(counts["rollouts"]),
        "chunk_cpu_seconds": round(float(counts["cpu_seconds"]), 2),
        "this_run": run,
    }


def _write_page(path: Path, header: dict, events: list, timeline: pd.DataFrame,
                moves: pd.DataFrame) -> Path:
    """The review's viewer page: the game with its timeline under the board and the
    moves flagged (``viewer.write_viewer``). The page's slider has no step before the
    first event and draws chances measured by rollouts: the start (event -1) and a
    finished game's result (no rollouts) stay in the tables, off the chart."""
    drawn = timeline[(timeline["event"] >= 0) & (timeline["rollouts"] > 0)]
    return write_viewer(path, header, events, f"catansim review: game {header['seed']}",
                        timeline=drawn, moves=moves)
