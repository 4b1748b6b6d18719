"""Getting the batch kernel ready: loaded from the kernel cache, or a cold compile.

What lives here: ``batch_kernel()`` (``engine_nb.play_batch_nb``, ready to call),
``kernels_cached()`` (whether this machine's kernel cache holds it), the cold compile in
two processes (``compile_in_two_processes``, the helper process's ``python -m
catansim.core.compiling helper``) and the compile events it counts for a progress line
(``CompileEvents``, ``show_progress``); the line itself, drawn on stderr, lives above
the core (``catansim.compile_progress``).
May import: numpy, numba (its compile events) and the standard library; of catansim
``core`` and ``tunables`` (``HELPER_TIMEOUT``). It makes its own sample arguments, of
the types the engine passes (``_argument_types``), and changes no game: it is not part
of the engine fingerprint.

**The cold compile.** The first game on a machine (an empty kernel cache, see
``catansim.core``) compiles every kernel, in Numba's compiler, which runs one compile
at a time in a process. With two or more CPUs (and a cache folder it can write),
``batch_kernel`` splits it over two processes. A helper process compiles the board and
the kernels of a turn's play (``HELPER_PART``: development cards, the robber,
production, legality, applying an action, and the scripted player's decisions other
than its action: set-up, discard, robber, victim, cards, answering a trade) while this
one compiles the state, the set-up and the choice of action (``MAIN_PART``); each part
pulls in the kernels it calls, and each kernel is written to Numba's on-disk cache as it
is compiled. This process then waits for the helper and compiles what is left, the
game loop (``loop_nb.run_nb``) and the batch loop on top of it (the turn is inlined into
it), loading the helper's kernels from the cache, for the signature ``play_batch``
calls it with (``batch_signature``), before ``batch_kernel`` returns: a first command of
Python players alone, which plays through the step interface and never calls the batch
loop, leaves the cache whole all the same. That tail runs on one core, so the
two parts hold every other kernel of the game, and are about as long as each other
counting this process's imports, which the helper waits for
(``benchmarks/compile_cost.py --processes 2`` measures each step). The sources, the
signatures and the compiler are the same as in one process, so the games are too.
``tests/test_kernels.py`` checks, from an empty cache, that no kernel of either part is
compiled twice (a signature in these tables that the game loop does not use would be)
and that the games equal those of kernels compiled in one process.

If the helper cannot start, fails or takes longer than ``HELPER_TIMEOUT`` seconds,
a warning says so and this process compiles what is missing itself.

**Progress.** ``show_progress(make)`` asks the next cold compile for a progress object
``make()`` with ``kernel_done(key)`` and ``close()``: it is told of each kernel done of
``N_KERNELS`` (each entry of the two parts, from Numba's compile events in this process
through ``CompileEvents`` and from the helper's ``DONE`` lines, then the game loop and
the batch loop, the tail: about a third of the time on two cores).
It compiles nothing itself, so what is compiled, and where, is as without it.
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import threading
import warnings
from pathlib import Path

import numba
import numpy as np
from numba.core import event as numba_event

from ..constants import MAX_PLAYERS, N_HEXES, N_NODES
from ..topology import TOPO
from ..tunables import HELPER_TIMEOUT
from . import layout as L
from .engine_nb import game_arrays, new_scratch, play_batch_nb
from .scripted.weights_nb import N_PARAMS

# The kernels each process compiles first, and the arguments the game loop
# (``loop_nb.run_nb``) passes them, by the names of
# ``_argument_types``. Each list is in the order compiled.
MAIN_PART = (
    ("setup_nb", "init_state_nb", "s topo rules rng int board"),
    ("setup_nb", "setup_node_mask_nb", "s topo rules openings u8"),
    ("setup_nb", "setup_edge_mask_nb", "s topo rules openings u8 int"),
    ("setup_nb", "setup_settlement_choice_nb", "s topo rules openings log u8 int"),
    ("setup_nb", "setup_road_choice_nb", "s topo rules openings log u8 int"),
    ("scripted.decisions_nb", "action_nb", "prm s topo rules rng int act work"),
    ("policy_nb", "random_action_nb", "s topo rules rng int act cand"),
    ("rng_nb", "seed_streams_nb", "int rng"),
)
HELPER_PART = (
    ("board_nb", "generate_board_nb", "int rng topo board board_x"),
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
    ("phases_nb", "turn_done_nb", "s rules log"),
    ("phases_nb", "next_discard_nb", "s rules"),
    ("phases_nb", "free_road_due_nb", "s topo"),
    ("phases_nb", "finish_counters_nb", "s"),
    ("rules_nb", "robber_hex_mask_nb", "s topo rules hexes"),
    ("scripted.trade_nb", "answer_nb", "prm s topo rules int int act work"),
    ("scripted.decisions_nb", "discard_nb", "prm s topo int int bundle work"),
    ("scripted.decisions_nb", "robber_hex_nb", "prm s topo rng int hexes work"),
    ("policy_nb", "choose_victim_nb", "sid prm s topo rules rng work int int victims int"),
    ("scripted.decisions_nb", "free_road_nb", "prm s topo int work"),
    ("scripted.decisions_nb", "invention_nb", "prm s topo int bundle work"),
    ("policy_nb", "_invention_option_nb", "s int int int"),
    ("policy_nb", "choose_monopoly_nb", "sid prm s topo rules rng work int"),
    ("scripted.decisions_nb", "setup_settlement_nb", "prm s topo rng int nodes work"),
    ("scripted.decisions_nb", "setup_road_nb", "prm s topo int int u8 work"),
)

# The kernels compiled after both parts, in this process, in this order.
GAME_LOOP_KEY = "loop_nb.run_nb"
BATCH_LOOP_KEY = "engine_nb.play_batch_nb"
# Steps of the cold compile's progress: each kernel of the two parts, then the game loop
# and the batch loop.
N_KERNELS = len(MAIN_PART) + len(HELPER_PART) + 2
# The helper's line on stderr for each kernel of its part it has compiled.
DONE = "catansim-kernel-done"

_lock = threading.Lock()
_ready = False
_make_progress = None  # show_progress(): what the next cold compile reports its progress to


def batch_kernel():
    """``engine_nb.play_batch_nb``; on first use with a cold cache and two or more
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


def show_progress(make) -> None:
    """Have the next cold compile report to ``make()``: an object with
    ``kernel_done(key)`` (``module.name``, each kernel of ``N_KERNELS``) and ``close()``
    (see the module docstring)."""
    global _make_progress
    _make_progress = make


def _cold_compile() -> None:
    progress = _make_progress() if _make_progress is not None else None
    try:
        if available_cpus() >= 2 and _cache_writable():
            compile_in_two_processes(progress)
        # the game loop and the batch loop now, whatever the command plays: a first
        # command of Python players alone (which never calls the batch loop) would
        # otherwise leave the cache without it, and every later command cold
        play_batch_nb.compile(batch_signature())
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


_CORE = "catansim.core."
# The kernels a progress object is told of, as ``module.name``.
PART_KEYS = frozenset(f"{module}.{name}" for module, name, _ in MAIN_PART + HELPER_PART)


class CompileEvents(numba_event.Listener):
    """Numba's end of a compile, in this process, to a progress object (register it
    for ``"numba:compile"``): each kernel of the parts and the game loop, then the
    batch loop, which closes it."""

    def __init__(self, progress):
        self.progress = progress

    def on_start(self, event):
        pass

    def on_end(self, event):
        # by the Python function's module and name: the dispatcher Numba compiles for a
        # call need not be the object this module imported
        dispatcher = (event.data or {}).get("dispatcher")
        func = getattr(dispatcher, "py_func", None)
        if func is None or not func.__module__.startswith(_CORE):
            return
        # as the parts name it: the module under catansim.core (scripted.decisions_nb)
        key = f"{func.__module__[len(_CORE):]}.{func.__name__}"
        if key == BATCH_LOOP_KEY:
            # compiled if it now has a signature (Numba 0.68's Event.is_failed reads
            # the other way round)
            if dispatcher.signatures:
                self.progress.kernel_done(key)
            self.progress.close()
        elif key in PART_KEYS or key == GAME_LOOP_KEY:
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


def compile_in_two_processes(progress=None) -> None:
    """Compile ``MAIN_PART`` here while a helper process compiles ``HELPER_PART``;
    return when both are done (``batch_kernel`` then compiles the batch loop).
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


def batch_signature() -> tuple:
    """The batch loop's argument types, as ``engine.play_batch`` passes them: the seeds,
    ``GameSettings.kernel_args``, the counters' and boards' rows, ``game_arrays`` and
    ``new_scratch``."""
    t = _argument_types()
    rows = {k: numba.typeof(np.zeros((1, width), dtype=np.int32))
            for k, width in (("counters", L.N_COUNTERS), ("boards", L.BOARD_SIZE))}
    return (numba.typeof(np.zeros(1, dtype=np.int64)), t["int"], t["int"], t["board"],
            t["openings"], t["topo"], t["rules"], t["strat"], t["params"],
            rows["counters"], rows["boards"], t["s"], t["log"], numba.typeof(new_scratch()))


def _argument_types() -> dict:
    """Numba types of the game loop's arguments, from arrays of the shapes and types
    the engine passes (``GameSettings.kernel_args``, ``new_scratch``, ``game_arrays``)."""
    topo, rules, openings = TOPO, np.zeros(L.N_RULES, dtype=np.int32), L.free_openings()
    strat = np.zeros(MAX_PLAYERS, dtype=np.int32)
    params = np.zeros((MAX_PLAYERS, N_PARAMS), dtype=np.float64)
    (rng, act, cand, u8, victims, bundle, owed, work), board_x, b, _ = new_scratch()
    s, log = game_arrays()
    arrays = dict(
        s=s, log=log,
        topo=topo, rules=rules, strat=strat, params=params, openings=openings,
        rng=rng, act=act, cand=cand, u8=u8, hexes=u8[:N_HEXES], nodes=u8[:N_NODES],
        victims=victims,
        bundle=bundle, owed=owed, work=work, board_x=board_x, board=b,
        prm=params[0],
    )
    types = {k: numba.typeof(v) for k, v in arrays.items()}
    types["int"] = numba.int64  # seats, cards, rolls, layout and player counts
    types["bool"] = numba.boolean  # a partner's answer
    types["sid"] = numba.typeof(strat[0])  # a seat's strategy id, read from ``strat``
    return types


def _start_helper(command=None):
    # ``command``: the helper's command line (benchmarks/compile_cost.py times its own)
    env = dict(os.environ)
    root = str(Path(__file__).resolve().parents[2])  # the folder holding this catansim
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    command = command or [sys.executable, "-m", "catansim.core.compiling", "helper",
                          str(numba.config.CACHE_DIR)]
    try:
        return subprocess.Popen(
            command, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
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
        print("usage: python -m catansim.core.compiling helper CACHE_FOLDER", file=sys.stderr)
        return 2
    if os.path.abspath(numba.config.CACHE_DIR) != os.path.abspath(argv[1]):
        print(f"kernel cache folder: the helper's is {numba.config.CACHE_DIR}, the caller's "
              f"{argv[1]} (another catansim or environment)", file=sys.stderr)
        return 1
    compile_part(HELPER_PART, lambda key: print(f"{DONE} {key}", file=sys.stderr, flush=True))
    return 0


if __name__ == "__main__":
    sys.exit(_helper_main(sys.argv[1:]))
