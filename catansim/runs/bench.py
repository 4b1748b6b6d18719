"""Benchmarks: games per second (1 core, all cores, end to end with Parquet) and compile times.

Used by ``catansim bench`` and ``benchmarks/bench.py``. Timings are wall-clock on
the current machine; other processes compiling or simulating skew them.
"""

from __future__ import annotations

import contextlib
import os
import platform
import signal
import subprocess
import sys
import tempfile
import time

import numba

from ..engine import batch_seeds, play_batch
from ..settings import GameSettings
from .experiment import parse_experiment
from .runner import run_experiment

DEFAULT_STRATEGIES = ("default",)
# A sample shorter than this is too short to time (the clock, warm caches and thread
# start-up dominate): it is doubled until it takes this long, and the figures say so.
MIN_SAMPLE_SECONDS = 0.5
MAX_SAMPLE_GAMES = 10**8
# Each rate is the best of this many runs of its sample. A process's first large
# batch also pays for the memory its result arrays are the first to touch (on this
# project's 2-core VM, 0.3 s of the 4 s 100,000 games take on one core, as system
# time), which is no part of the engine's rate; and the better of two runs is the
# one fewer other processes took time from.
RATE_REPEATS = 2

_COMPILE_SNIPPET = """
import time
t = time.perf_counter()
from catansim.engine import batch_seeds, play_batch
from catansim.settings import GameSettings
play_batch(batch_seeds(0, 2), GameSettings(n_players={players}, strategies={strategies!r}))
print(time.perf_counter() - t)
"""

# The least any Numba program takes to start here: a fresh process importing Numba and
# calling a one-line kernel from a filled cache (the module is written next to it, as
# Numba caches only functions defined in files).
_FLOOR_MODULE = """
import numba


@numba.njit(cache=True)
def one(x):
    return x + 1
"""
_FLOOR_SNIPPET = ("import sys; sys.path.insert(0, {folder!r}); import floor_kernel; "
                  "floor_kernel.one(1); print(sum(floor_kernel.one.stats.cache_hits.values()))")


def settings(players: int = 4, strategies: tuple[str, ...] | None = None):
    return GameSettings(n_players=players, strategies=tuple(strategies or DEFAULT_STRATEGIES))


def _widened(measure, n_games: int) -> tuple[int, float]:
    """``(games, seconds)`` of ``measure(games)``, doubling ``games`` until the sample
    takes ``MIN_SAMPLE_SECONDS`` (or reaches ``MAX_SAMPLE_GAMES``)."""
    while True:
        seconds = measure(n_games)
        if seconds >= MIN_SAMPLE_SECONDS or n_games >= MAX_SAMPLE_GAMES:
            return n_games, seconds
        n_games = min(MAX_SAMPLE_GAMES, 2 * n_games if seconds <= 0 else max(
            2 * n_games, int(n_games * 1.2 * MIN_SAMPLE_SECONDS / seconds)))


def timed_rate(n_games: int, players: int = 4, strategies=None, n_threads: int | None = None,
               seed: int = 12345, repeats: int = 1) -> tuple[float, int]:
    """``(games/s, games timed)`` of ``play_batch`` after compiling, best of ``repeats``;
    a sample too short to time is widened (``MIN_SAMPLE_SECONDS``)."""
    st = settings(players, strategies)
    play_batch(batch_seeds(seed, 4), st, n_threads=n_threads)  # compile / load from cache

    def once(n):
        seeds = batch_seeds(seed, n)
        t = time.perf_counter()
        play_batch(seeds, st, n_threads=n_threads)
        return time.perf_counter() - t

    n, seconds = _widened(once, n_games)
    best = seconds
    for _ in range(repeats - 1):
        best = min(best, once(n))
    return n / best, n


def games_per_second(n_games: int, players: int = 4, strategies=None, n_threads: int | None = None,
                     seed: int = 12345, repeats: int = 1) -> float:
    """Kernel throughput (``play_batch``) after compiling; best of ``repeats`` (a sample
    too short to time is widened, see ``timed_rate``)."""
    return timed_rate(n_games, players, strategies, n_threads, seed, repeats)[0]


def _cold_then_warm(code: str, cache: str) -> list[tuple[float, str]]:
    """Run ``code`` in two fresh processes on the kernel cache folder ``cache`` (empty
    for the first): ``(seconds, stdout)`` of each."""
    env = dict(os.environ, NUMBA_CACHE_DIR=cache)
    out = []
    for _ in range(2):
        t = time.perf_counter()
        stdout = _run_group([sys.executable, "-c", code], env)
        out.append((time.perf_counter() - t, stdout))
    return out


def _run_group(cmd: list[str], env: dict) -> str:
    """Run ``cmd`` in a process group of its own and return its stdout; if it fails, or
    this process is stopped (SIGTERM, Ctrl-C) while it runs, the whole group is
    killed: the child and the compile helper it started (``catansim.kernels``), which
    would otherwise go on compiling into the temporary cache folder being removed."""
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    try:
        stdout, stderr = proc.communicate()
    except BaseException:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        raise
    if proc.returncode != 0:
        raise subprocess.CalledProcessError(proc.returncode, cmd, stdout, stderr)
    return stdout


def compile_times(players: int = 4, strategies=None) -> tuple[float, float]:
    """(cold, warm) seconds to import and play a first batch in a fresh process.

    Cold uses an empty ``NUMBA_CACHE_DIR`` (everything compiles); warm runs a second
    process with that cache filled.
    """
    code = _COMPILE_SNIPPET.format(players=players,
                                   strategies=tuple(strategies or DEFAULT_STRATEGIES))
    with tempfile.TemporaryDirectory(prefix="catansim-numba-") as cache:
        (cold, _), (warm, _) = _cold_then_warm(code, cache)
    return cold, warm


def numba_start_floor() -> float:
    """Seconds for a fresh process to import Numba and call a one-line kernel from a
    filled cache: no warm start of a Numba program here can be shorter."""
    with tempfile.TemporaryDirectory(prefix="catansim-numba-floor-") as folder:
        with open(os.path.join(folder, "floor_kernel.py"), "w") as fh:
            fh.write(_FLOOR_MODULE)
        _, (seconds, stdout) = _cold_then_warm(_FLOOR_SNIPPET.format(folder=folder),
                                               os.path.join(folder, "cache"))
    if stdout.split() != ["1"]:
        raise RuntimeError("the floor's one-line kernel was not loaded from the cache "
                           f"(cache hits: {stdout.strip()!r})")
    return seconds


def end_to_end(n_games: int, players: int = 4, strategies=None, batch_size: int = 50_000,
               n_threads: int | None = None, seed: int = 12345) -> tuple[float, float]:
    """(games/s, seconds) of ``run_experiment`` writing Parquet to a temporary folder.

    ``timed_end_to_end`` widens a sample too short to time."""
    names = list(strategies or DEFAULT_STRATEGIES)
    with tempfile.TemporaryDirectory(prefix="catansim-bench-") as tmp:
        warm = parse_experiment({"name": "warm", "games": 8, "players": players,
                                 "strategies": names, "seed": seed})
        run_experiment(warm, out=os.path.join(tmp, "warm"), n_threads=n_threads, progress=False)
        exp = parse_experiment({"name": "bench", "games": n_games, "players": players,
                                "strategies": names, "seed": seed, "batch_size": batch_size})
        report = run_experiment(exp, out=os.path.join(tmp, "bench"), n_threads=n_threads,
                                progress=False)
    return (n_games / report.seconds if report.seconds > 0 else float("inf")), report.seconds


def timed_end_to_end(n_games: int, players: int = 4, strategies=None,
                     n_threads: int | None = None) -> tuple[float, float, int]:
    """``(games/s, seconds, games timed)`` of ``end_to_end``, widened to take at least
    ``MIN_SAMPLE_SECONDS``."""
    n, seconds = _widened(lambda k: end_to_end(k, players, strategies,
                                               n_threads=n_threads)[1], n_games)
    return n / seconds, seconds, n


def machine() -> str:
    """A one-line description of this machine."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return (f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}, "
            f"numba {numba.__version__}, {platform.system()}")


def run(games: int = 20_000, players: int = 4, strategies=None, e2e_games: int | None = None,
        compile: bool = True, echo=print) -> dict:
    """Measure everything; returns a dict of figures (and echoes progress lines)."""
    names = tuple(strategies or DEFAULT_STRATEGIES)
    shown = names[:1] if len(set(names)) == 1 else names  # "default", not four times
    out: dict = {"machine": machine(), "players": players, "strategies": ",".join(shown),
                 "games": games, "cores": numba.config.NUMBA_NUM_THREADS}
    if compile:
        echo("compile times (two fresh processes)...")
        out["compile_cold_s"], out["compile_warm_s"] = compile_times(players, names)
        out["numba_floor_s"] = numba_start_floor()
    echo(f"1 core, {games} games...")
    out["rate_1"], n1 = timed_rate(games, players, names, n_threads=1, repeats=RATE_REPEATS)
    echo(f"{out['cores']} cores, {games} games...")
    out["rate_all"], n_all = timed_rate(games, players, names, n_threads=None,
                                        repeats=RATE_REPEATS)
    out["speedup"] = out["rate_all"] / out["rate_1"]
    n = e2e_games or games
    echo(f"end to end with Parquet, {n} games...")
    out["e2e_rate"], out["e2e_s"], out["e2e_games"] = timed_end_to_end(n, players, names)
    out["million_s"] = 1_000_000 / out["e2e_rate"]
    widened = [f"{what} {asked:,} -> {got:,} games" for what, asked, got in (
        ("1 core", games, n1), ("all cores", games, n_all), ("end to end", n, out["e2e_games"]))
        if got != asked]
    if widened:
        out["widened"] = widened
        echo(f"samples shorter than {MIN_SAMPLE_SECONDS} s were widened: " + "; ".join(widened))
    return out


def markdown(r: dict) -> str:
    """The figures of ``run`` as a Markdown table."""
    rows = [("machine", r["machine"]),
            ("games", f"{r['players']} players, strategies {r['strategies']}")]
    if "compile_cold_s" in r:
        rows += [("compile, cold (empty cache)", f"{r['compile_cold_s']:.1f} s"),
                 ("compile, warm (from cache)", f"{r['compile_warm_s']:.1f} s"),
                 ("warm start of a one-line Numba kernel (the floor here)",
                  f"{r['numba_floor_s']:.1f} s")]
    rows += [
        (f"games/s, 1 core (best of {RATE_REPEATS} runs)", f"{r['rate_1']:,.0f}"),
        (f"games/s, {r['cores']} cores (best of {RATE_REPEATS})",
         f"{r['rate_all']:,.0f} ({r['speedup']:.2f}x)"),
        (f"end to end with Parquet ({r['e2e_games']:,} games)",
         f"{r['e2e_rate']:,.0f} games/s ({r['e2e_s']:.1f} s)"),
        ("1,000,000 games end to end (extrapolated)", f"{r['million_s']:,.0f} s"),
    ]
    if r.get("widened"):
        rows.append(("samples widened to time at least "
                     f"{MIN_SAMPLE_SECONDS} s", "; ".join(r["widened"])))
    lines = ["| measure | value |", "|---|---|"]
    lines += [f"| {k} | {v} |" for k, v in rows]
    return "\n".join(lines)
