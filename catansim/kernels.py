"""Compiling and loading the game kernels: the engine API's way to ``play_batch_nb``.

What lives here: ``batch_kernel()`` (the batch kernel, ready to call), ``kernels_cached()``
(whether this machine's kernel cache holds it), the cold compile in two processes and
its progress (``say_if_compiling``, ``CompileProgress``), and the blank arrays the batch
kernel plays in (``game_arrays``, ``free_openings``).
May import: ``catansim.core``, ``constants``, ``topology``, ``rules`` and ``strategies``
(the arguments a kernel is compiled for), ``tunables``, Numba's compile events and tqdm.
Never the engine: it calls this module.

**The cold compile.** The first game on a machine (an empty kernel cache, see
``catansim.core``) compiles every kernel (``COMPILING`` says how long it takes), in
Numba's compiler, which runs one compile at a time in a process. With two or more CPUs (and
a cache folder it can write), ``batch_kernel`` splits it over two processes. A helper
process (``python -m catansim.kernels helper``) compiles the kernels of a turn's play
(``HELPER_PART``: development cards, the robber, production, legality and applying
an action) while this one compiles the board, the state, the setup and the choice
of action (``MAIN_PART``); each part pulls in the kernels it calls, and each kernel
is written to Numba's on-disk cache as it is compiled. This process then waits for
the helper and compiles the batch loop on top (the turn is inlined into it), loading
the helper's kernels from the cache. The sources, the signatures and the compiler are the same
as in one process, so the games are too. ``tests/test_kernels.py`` checks, from an
empty cache, that no kernel of either part is compiled twice (a signature in these
tables that the game loop does not use would be) and that the games equal those of
kernels compiled in one process.

If the helper cannot start, fails or takes longer than ``HELPER_TIMEOUT`` seconds,
a warning says so and this process compiles what is missing itself.

**Progress.** A command that plays games calls ``say_if_compiling()`` first: on a cold
cache it prints ``COMPILING`` and the cold compile then shows a line on stderr with the
kernels done of ``N_KERNELS`` (each entry of the two parts, then the batch loop) and the
time since it began, refreshed every second on a terminal (``CompileProgress``). It
watches Numba's compile events in this process and reads the helper's ``DONE`` lines;
it compiles nothing itself, so what is compiled, and where, is as without it. A
library call that did not ask is silent.
"""

from __future__ import annotations

import importlib
import os
import shutil
import subprocess
import sys
import threading
import warnings
from pathlib import Path

import numba
import numpy as np
from numba.core import event as numba_event
from tqdm.auto import tqdm

from .constants import MAX_PLAYERS, N_HEXES
from .core import layout as L
from .core.engine_nb import new_scratch, play_batch_nb
from .rules import Rules
from .strategies import PRESETS
from .topology import TOPO
from .tunables import HELPER_TIMEOUT

# The kernels each process compiles first, and the arguments the game loop
# (``loop_nb.run_nb``) passes them, by the names of
# ``_argument_types``. Each list is in the order compiled.
MAIN_PART = (
    ("board_nb", "generate_board_nb", "int rng topo board board_x"),
    ("setup_nb", "init_state_nb", "s topo rules rng int board"),
    ("setup_nb", "setup_node_mask_nb", "s topo rules openings u8"),
    ("setup_nb", "setup_edge_mask_nb", "s topo rules openings u8 int"),
    ("setup_nb", "setup_settlement_choice_nb", "s topo rules openings log u8 int"),
    ("setup_nb", "setup_road_choice_nb", "s topo rules openings log u8 int"),
    ("scripted.decisions_nb", "action_nb", "prm s topo rules rng int act work"),
    ("policy_nb", "random_action_nb", "s topo rules rng int act cand"),
)
HELPER_PART = (
    ("phases_nb", "start_dev_nb", "s rules log int int"),
    ("phases_nb", "pre_roll_choice_nb", "s rules log int"),
    ("phases_nb", "robber_hex_choice_nb", "s topo rules log u8 victims int"),
    ("phases_nb", "victim_choice_nb", "s topo rng log victims int"),
    ("phases_nb", "discard_choice_nb", "s log bundle"),
    ("phases_nb", "free_road_choice_nb", "s topo rules log int"),
    ("phases_nb", "invention_choice_nb", "s log bundle"),
    ("phases_nb", "monopoly_choice_nb", "s log int"),
    ("phases_nb", "roll_nb", "s rules rng log owed topo"),
    ("rules_nb", "produce_nb", "s topo rules log int owed"),
    ("actions_nb", "trade_bundles_ok_nb", "s int act"),
    ("phases_nb", "build_action_nb", "s topo log int act"),
    ("phases_nb", "action_choice_nb", "s topo rules log act"),
    ("phases_nb", "answer_choice_nb", "s log act bool"),
)

# Steps of the cold compile's progress: each kernel of the two parts, then the batch loop.
N_KERNELS = len(MAIN_PART) + len(HELPER_PART) + 1
# The helper's line on stderr for each kernel of its part it has compiled.
DONE = "catansim-kernel-done"

_lock = threading.Lock()
_ready = False
_announced = False  # say_if_compiling() printed COMPILING: the cold compile shows progress

# Forced openings: (node1, edge1, node2, edge2) per seat, -1 free; slot (seat, k) of
# the k-th settlement (k = 0, 1) holds its node at ``4 * seat + 2 * k``, its road after.
OPENINGS_SIZE = L.OPENING_WIDTH * MAX_PLAYERS


def opening_slot(seat: int, k: int) -> int:
    """Index in an openings array of seat's ``k``-th (0 or 1) forced settlement node."""
    return L.OPENING_WIDTH * seat + 2 * k


def free_openings() -> np.ndarray:
    """An openings array with every choice left to the strategies."""
    return np.full(OPENINGS_SIZE, -1, dtype=np.int32)


def game_arrays(log_rows: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """The state and the event log ``play_batch_nb`` plays its games in: ``s``
    (int32[STATE_SIZE], zero) and ``log`` (int32[max(log_rows, 1), LOG_WIDTH]); with
    ``log_rows`` > 0 the state asks for the events (``S_LOG_ON`` = 1)."""
    s = np.zeros(L.STATE_SIZE, dtype=np.int32)
    s[L.S_LOG_ON] = 1 if log_rows > 0 else 0
    return s, np.zeros((max(log_rows, 1), L.LOG_WIDTH), dtype=np.int32)


def batch_kernel():
    """``core.engine_nb.play_batch_nb``; on first use with a cold cache and two or more
    CPUs (and a writable cache folder), its kernels are compiled in two processes first
    (see the module docstring).
    """
    global _ready
    if not _ready:
        with _lock:
            if not _ready:
                if not kernels_cached():
                    _cold_compile()
                _ready = True
    return play_batch_nb


def _cold_compile() -> None:
    progress = CompileProgress() if _announced else None
    try:
        if available_cpus() >= 2 and _cache_writable():
            compile_in_two_processes(progress)
    except BaseException:
        if progress is not None:
            progress.close()
        raise


def kernels_cached() -> bool:
    """Whether this process has the batch kernel or Numba's on-disk cache holds it
    (best effort: True if unsure)."""
    if play_batch_nb.signatures:
        return True
    try:
        return os.path.exists(play_batch_nb._cache._cache_file._index_path)
    except AttributeError:  # a Numba without this private attribute: assume cached
        return True


# Measured from an empty cache (docs/benchmarks.md, "Start-up and the first hour"): 85 CPU
# seconds for both processes, about a minute of wall time on two quiet cores.
COMPILING = ("compiling the kernels (once per machine: about a minute on two quiet cores, "
             "a minute and a half on one, several on a busy machine; cached afterwards)")


def say_if_compiling() -> bool:
    """Print ``COMPILING`` on stderr when the next game will compile the kernels (a cold
    cache), and have the cold compile show its progress (``CompileProgress``), so that a
    command does not sit silent for a minute; returns whether it did. Every command
    that plays games calls it first."""
    global _announced
    if kernels_cached():
        return False
    print(COMPILING, file=sys.stderr, flush=True)
    _announced = True
    return True


class CompileProgress:
    """The cold compile's line on stderr: kernels done of ``N_KERNELS`` and the time since
    it began, refreshed every second on a terminal (elsewhere at most every 10 s).

    A kernel of the parts counts when Numba has compiled it in this process (its compile
    event) or the helper says it has (``kernel_done``), each once; the batch loop, which
    compiles on the first game after ``batch_kernel`` returns, counts last and closes the
    line (also if its compile fails). ``close()`` closes it at once.
    """

    def __init__(self, file=None):
        self._file = file or sys.stderr
        tty = self._file.isatty()
        self._lock = threading.Lock()
        self._closed = threading.Event()
        self._done: set[str] = set()
        # a terminal that reports no size (0 x 0) would make tqdm hide the line
        size = shutil.get_terminal_size((80, 24))
        self._bar = tqdm(total=N_KERNELS, file=self._file, desc="compiling the kernels",
                         bar_format="{desc}: {n}/{total} done, {elapsed} elapsed",
                         mininterval=0.5 if tty else 10.0, ncols=size.columns,
                         nrows=size.lines)
        # stays registered, inert once closed: unregistering inside Numba's broadcast
        # would skip the listener after it
        numba_event.register("numba:compile", _CompileEvents(self))
        if tty:
            threading.Thread(target=self._tick, name="catansim-compile-progress",
                             daemon=True).start()

    def _tick(self):
        while not self._closed.wait(1.0):
            with self._lock:
                if not self._closed.is_set():
                    self._bar.refresh()

    @property
    def done(self) -> int:
        """Kernels counted so far (the batch loop included)."""
        return len(self._done)

    @property
    def closed(self) -> bool:
        return self._closed.is_set()

    def kernel_done(self, key: str) -> None:
        """Count kernel ``key`` (``module.name``, e.g. ``engine_nb.roll_nb``) once."""
        with self._lock:
            if not self._closed.is_set() and key not in self._done:
                self._done.add(key)
                self._bar.update(1)

    def close(self) -> None:
        with self._lock:
            if not self._closed.is_set():
                self._closed.set()
                self._bar.close()


# The kernels ``CompileProgress`` counts, as ``module.name``.
PART_KEYS = frozenset(f"{module}.{name}" for module, name, _ in MAIN_PART + HELPER_PART)
BATCH_LOOP_KEY = "engine_nb.play_batch_nb"


class _CompileEvents(numba_event.Listener):
    """Numba's end of a compile, in this process, to ``CompileProgress``."""

    def __init__(self, progress: CompileProgress):
        self.progress = progress

    def on_start(self, event):
        pass

    def on_end(self, event):
        # by the Python function's module and name: the dispatcher Numba compiles for a
        # call need not be the object this module imported
        dispatcher = (event.data or {}).get("dispatcher")
        func = getattr(dispatcher, "py_func", None)
        if func is None or not func.__module__.startswith("catansim.core."):
            return
        key = f"{func.__module__.rpartition('.')[2]}.{func.__name__}"
        if key == BATCH_LOOP_KEY:
            # compiled if it now has a signature (Numba 0.68's Event.is_failed reads
            # the other way round)
            if dispatcher.signatures:
                self.progress.kernel_done(key)
            self.progress.close()
        elif key in PART_KEYS:
            self.progress.kernel_done(key)


def _cache_writable() -> bool:
    # Without a writable cache the helper's kernels could not reach this process.
    folder = numba.config.CACHE_DIR
    return bool(folder) and os.path.isdir(folder) and os.access(folder, os.W_OK)


def available_cpus() -> int:
    """CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def compile_in_two_processes(progress: CompileProgress | None = None) -> None:
    """Compile ``MAIN_PART`` here while a helper process compiles ``HELPER_PART``;
    return when both are done (the batch kernel itself compiles on its first call).
    ``progress`` also counts the kernels the helper says it has compiled."""
    helper = _start_helper()
    reader = None
    if helper is not None:
        reader = _HelperOutput(helper, progress.kernel_done if progress is not None else None)
    try:
        compile_part(MAIN_PART)
    except BaseException:
        if helper is not None:
            helper.kill()
            helper.wait()
            reader.join()
        raise
    if helper is not None:
        _finish_helper(helper, reader)


def compile_part(part, on_done=None) -> list:
    """Compile (or load from the cache) each kernel of ``part`` for its signature,
    calling ``on_done("module.name")`` after each; returns the (dispatcher, signature)
    pairs."""
    types = _argument_types()
    done = []
    for module, name, args in part:
        dispatcher = getattr(importlib.import_module(f"catansim.core.{module}"), name)
        signature = tuple(types[a] for a in args.split())
        dispatcher.compile(signature)
        done.append((dispatcher, signature))
        if on_done is not None:
            on_done(f"{module}.{name}")
    return done


def _argument_types() -> dict:
    """Numba types of the game loop's arguments, from arrays made as the engine makes
    them (four ``default`` players, official rules, a blank board)."""
    topo, rules, openings = TOPO, Rules().to_array(), free_openings()
    strat, params = PRESETS.seat_arrays(("default",) * MAX_PLAYERS)
    rng, act, cand, u8, victims, bundle, owed, work, board_x, b, _ = new_scratch()
    s, log = game_arrays()
    arrays = dict(
        s=s, log=log,
        topo=topo, rules=rules, strat=strat, params=params, openings=openings,
        rng=rng, act=act, cand=cand, u8=u8, hexes=u8[:N_HEXES], victims=victims,
        bundle=bundle, owed=owed, work=work, board_x=board_x, board=b,
        prm=params[0],
    )
    types = {k: numba.typeof(v) for k, v in arrays.items()}
    types["int"] = numba.int64  # seats, cards, rolls, layout and player counts
    types["bool"] = numba.boolean  # a partner's answer
    types["sid"] = numba.typeof(strat[0])  # a seat's strategy id, read from ``strat``
    return types


def _start_helper():
    env = dict(os.environ)
    root = str(Path(__file__).resolve().parent.parent)  # the folder holding this catansim
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    try:
        return subprocess.Popen(
            [sys.executable, "-m", "catansim.kernels", "helper", str(numba.config.CACHE_DIR)],
            env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE, text=True, bufsize=1,
        )
    except OSError as e:
        warnings.warn(f"kernel compile: could not start a helper process ({e}); "
                      "compiling in this process only", RuntimeWarning, stacklevel=3)
        return None


class _HelperOutput:
    """Reads the helper's stderr as it comes: each ``DONE`` line calls ``on_done`` with
    the kernel's ``module.name``, the other lines are kept for the warning if it fails."""

    def __init__(self, helper, on_done=None):
        self.lines: list[str] = []
        self._thread = threading.Thread(target=self._read, args=(helper.stderr, on_done),
                                        name="catansim-helper-output", daemon=True)
        self._thread.start()

    def _read(self, stream, on_done):
        for line in stream:
            if line.startswith(DONE):
                if on_done is not None:
                    on_done(line[len(DONE):].strip())
            else:
                self.lines.append(line)

    def join(self) -> str:
        self._thread.join()
        return "".join(self.lines)


def _finish_helper(helper, reader: _HelperOutput) -> None:
    try:
        helper.wait(timeout=HELPER_TIMEOUT)
    except subprocess.TimeoutExpired:
        helper.kill()
        helper.wait()
        reader.join()
        warnings.warn(f"kernel compile: the helper process took over {HELPER_TIMEOUT:.0f} s "
                      "and was stopped; compiling the rest in this process",
                      RuntimeWarning, stacklevel=3)
        return
    except BaseException:  # stopped while waiting (SIGTERM, Ctrl-C): no orphan helper
        helper.kill()
        helper.wait()
        raise
    err = reader.join()
    if helper.returncode != 0:
        lines = [line for line in (err or "").splitlines() if line.strip()]
        why = lines[-1].strip() if lines else "no message"
        warnings.warn(f"kernel compile: the helper process failed (exit code "
                      f"{helper.returncode}: {why}); compiling the rest in this process",
                      RuntimeWarning, stacklevel=3)


def _helper_main(argv) -> int:
    # Importing catansim.core (above) placed Numba's cache folder.
    if len(argv) != 2 or argv[0] != "helper":
        print("usage: python -m catansim.kernels helper CACHE_FOLDER", file=sys.stderr)
        return 2
    if os.path.abspath(numba.config.CACHE_DIR) != os.path.abspath(argv[1]):
        print(f"kernel cache folder: the helper's is {numba.config.CACHE_DIR}, the caller's "
              f"{argv[1]} (another catansim or environment)", file=sys.stderr)
        return 1
    compile_part(HELPER_PART, lambda key: print(f"{DONE} {key}", file=sys.stderr, flush=True))
    return 0


if __name__ == "__main__":
    sys.exit(_helper_main(sys.argv[1:]))
