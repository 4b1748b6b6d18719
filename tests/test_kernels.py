"""The cold compile in two processes (``catansim.core.compiling``): each kernel is compiled
once, in the process meant to compile it, for the signature the batch kernel calls it
with; the games played are the same as with the kernels compiled in one process."""

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from catansim.compile_progress import CompileProgress
from catansim.core import compiling
from catansim.engine import batch_seeds, play_batch
from catansim.settings import GameSettings

SETTINGS = dict(n_players=4, strategies=("default", "random", "default", "default"))

COLD = textwrap.dedent("""
    import collections, io, json, subprocess, sys
    from numba.core import event as ev
    with ev.install_recorder("numba:compile") as rec:
        from catansim.compile_progress import CompileProgress
        from catansim.core import compiling
        from catansim.engine import batch_seeds, play_batch, play_game
        from catansim.settings import GameSettings
        line = io.StringIO()
        class Recorded(CompileProgress):
            keys = []
            def kernel_done(self, key):
                self.keys.append(key)
                super().kernel_done(key)
        progress = Recorded(file=line)
        compiling.show_progress(lambda: progress)
        # the first command plays Python players alone (the step interface), which never
        # call the batch loop: the cold compile compiles it all the same
        play_game(3, n_players=4, strategies=["python:catansim.game:RandomPlayer"] * 4,
                  log=False)
        later = subprocess.run([sys.executable, "-c", "from catansim.core import compiling; "
                                "print(compiling.kernels_cached())"],
                               capture_output=True, text=True, check=True).stdout.strip()
        after_first_game = dict(done=progress.done, closed=progress.closed,
                                later_process_finds_them_cached=later)
        res = play_batch(batch_seeds(7, 40), GameSettings(**SETTINGS), n_threads=1)
    compiled = collections.Counter(  # catansim's kernels, not Numba's own helpers
        f"{f.__module__}.{f.__name__}" for f in
        (e.data["dispatcher"].py_func for _, e in rec.buffer if e.is_start)
        if f.__module__.startswith("catansim"))
    helper_hits = {}
    for dispatcher, signature in compiling.compile_part(compiling.HELPER_PART):
        helper_hits[dispatcher.py_func.__name__] = sum(dispatcher.stats.cache_hits.values())
    # the linkage of the core functions in the LLVM modules of the batch kernel (compiled
    # here, so its module is at hand) and of setup_settlement_choice_nb (another kernel
    # compiled here)
    from catansim.core import numba_patches as P
    from catansim.core.engine_nb import play_batch_nb
    from catansim.core.setup_nb import setup_settlement_choice_nb
    def linkage(dispatcher):
        module = next(iter(dispatcher.overloads.values())).library._final_module
        return collections.Counter(
            ("private " if f.name.endswith(P.PRIVATE_SUFFIX) else "") + f.linkage.name
            for f in module.functions
            if f.name.startswith(P.CORE_PREFIX) and not f.is_declaration)
    progress_seen = dict(after_first_game, keys=progress.keys, line=line.getvalue())
    print(json.dumps(dict(compiled=compiled, helper_hits=helper_hits, progress=progress_seen,
                          counters=res.counters.tolist(),
                          linkage=dict(batch=linkage(play_batch_nb),
                                       setup=linkage(setup_settlement_choice_nb)))))
""")


@pytest.fixture(scope="module")
def cold_compile(tmp_path_factory):
    """A cold compile in two processes, in a fresh kernel cache, then 40 games."""
    cache = tmp_path_factory.mktemp("cold-cache")
    code = f"SETTINGS = {SETTINGS!r}\n" + COLD
    r = subprocess.run([sys.executable, "-W", "error::RuntimeWarning", "-c", code],
                       capture_output=True, text=True,
                       env=dict(os.environ, NUMBA_CACHE_DIR=str(cache)), timeout=1800)
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_the_helper_compiles_its_part_and_this_process_loads_it(cold_compile):
    helper = {f"catansim.core.{module}.{name}" for module, name, _ in compiling.HELPER_PART}
    compiled_here = set(cold_compile["compiled"])
    assert not helper & compiled_here  # not one of them compiled twice
    # ... because each was found in the cache, for the signature the game loop uses
    assert cold_compile["helper_hits"] == {name: 1 for _, name, _ in compiling.HELPER_PART}


def test_every_kernel_compiles_once_in_this_process(cold_compile):
    compiled = cold_compile["compiled"]
    main = {f"catansim.core.{module}.{name}" for module, name, _ in compiling.MAIN_PART}
    assert main <= set(compiled)
    # the batch kernel's own compile found the parts' signatures already there
    assert {name: n for name, n in compiled.items() if n > 1} == {}
    assert "catansim.core.engine_nb.play_batch_nb" in compiled
    # the turn is inlined into the batch loop: not a kernel of its own to lower again
    assert "catansim.core.engine_nb.play_turn_nb" not in compiled


def test_the_progress_counts_each_kernel_of_both_processes_then_the_batch_loop(cold_compile):
    seen = cold_compile["progress"]
    assert compiling.N_KERNELS == len(compiling.MAIN_PART) + len(compiling.HELPER_PART) + 2
    # every kernel of the parts, this process's from Numba's compile events, the helper's
    # from its lines, each once; then the game loop and the batch loop, which closes
    # the line: all before the first game of Python players alone had begun
    keys = list(dict.fromkeys(seen["keys"]))  # each in the order first counted
    assert len(keys) == compiling.N_KERNELS
    assert set(keys[:-2]) == compiling.PART_KEYS
    assert keys[-2:] == [compiling.GAME_LOOP_KEY, compiling.BATCH_LOOP_KEY]
    assert seen["done"] == compiling.N_KERNELS and seen["closed"]
    # and the cache holds them all: the next process has nothing to compile
    assert seen["later_process_finds_them_cached"] == "True"
    last = seen["line"].replace("\r", "\n").strip().splitlines()[-1]
    assert last.startswith(f"compiling the kernels: {compiling.N_KERNELS}/{compiling.N_KERNELS} "
                           "done, ") and last.endswith(" elapsed")


def test_the_games_are_the_same_as_with_one_process(cold_compile):
    res = play_batch(batch_seeds(7, 40), GameSettings(**SETTINGS), n_threads=1)
    assert np.array_equal(np.array(cold_compile["counters"], dtype=np.int32), res.counters)


def test_the_batch_kernel_holds_private_copies_of_the_core_and_no_other_kernel_does(
        cold_compile):
    from catansim.core import numba_patches

    assert numba_patches.APPLIED["internal_callees"]  # in place with this Numba
    batch, setup = cold_compile["linkage"]["batch"], cold_compile["linkage"]["setup"]
    # the batch kernel itself stays external; what LLVM did not inline of its callees
    # (the road search, the robber, production, ...) is internal, under its private name
    assert batch.pop("external") == 1
    assert set(batch) == {"private internal"} and batch["private internal"] > 5
    # another kernel links its callees as Numba does: shared definitions, no renaming
    assert setup.pop("external") == 1
    assert set(setup) == {"linkonce_odr"}


PYTHON_CALLS_A_CALLEE = """
import json, sys
from catansim.board.layouts import generate_vectors
if sys.argv[1] == "batch-first":
    from catansim.engine import batch_seeds, play_batch
    from catansim.settings import GameSettings
    play_batch(batch_seeds(3, 2), GameSettings(n_players=4, strategies=("default",)))
print(json.dumps(generate_vectors("variable", [5, 6]).tolist()))
"""


def test_a_kernel_python_calls_is_its_own_after_the_batch_kernel_is_loaded():
    """The batch kernel's private copy of a callee has other arguments (LLVM dropped
    those it does not read): a kernel Python calls afterwards must not bind to it."""
    boards = {}
    for order in ("alone", "batch-first"):
        r = subprocess.run([sys.executable, "-c", PYTHON_CALLS_A_CALLEE, order],
                           capture_output=True, text=True, timeout=900)
        assert r.returncode == 0, r.stderr[-2000:]
        boards[order] = json.loads(r.stdout.strip().splitlines()[-1])
    assert boards["alone"] == boards["batch-first"]


def test_two_processes_only_for_a_cold_writable_cache_and_two_cpus(monkeypatch, tmp_path):
    import numba

    calls = []
    monkeypatch.setattr(compiling, "compile_in_two_processes",
                        lambda progress=None: calls.append(1))
    cases = [(1, False, True, 0), (2, True, True, 0), (2, False, True, 1), (8, False, True, 1),
             (2, False, False, 0)]
    for cpus, cached, writable, expected in cases:
        calls.clear()
        folder = tmp_path / ("cache" if writable else "missing")
        if writable:
            folder.mkdir(exist_ok=True)
        monkeypatch.setattr(numba.config, "CACHE_DIR", str(folder))
        monkeypatch.setattr(compiling, "_ready", False)
        monkeypatch.setattr(compiling, "available_cpus", lambda cpus=cpus: cpus)
        monkeypatch.setattr(compiling, "kernels_cached", lambda cached=cached: cached)
        assert compiling.batch_kernel() is not None
        assert len(calls) == expected, (cpus, cached, writable)
        assert compiling.batch_kernel() is not None  # once per process only
        assert len(calls) == expected


def test_a_failing_helper_is_named_in_a_warning():
    helper = subprocess.Popen(
        [sys.executable, "-c", "import sys; print('no kernels here', file=sys.stderr); "
                               "sys.exit(3)"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    with pytest.warns(RuntimeWarning, match=r"helper process failed \(exit code 3: no kernels "
                                            r"here\); compiling the rest in this process"):
        compiling._finish_helper(helper, compiling._HelperOutput(helper))


def test_the_progress_counts_the_helpers_lines_once_each_and_keeps_its_other_lines():
    """The helper's stderr: a ``DONE`` line per kernel (counted once, whichever process
    reports it), anything else kept for the warning."""
    import io

    progress = CompileProgress(file=io.StringIO())
    try:
        lines = [f"{compiling.DONE} phases_nb.roll_nb", "a warning of Numba",
                 f"{compiling.DONE} phases_nb.roll_nb", f"{compiling.DONE} rules_nb.produce_nb"]
        helper = subprocess.Popen(
            [sys.executable, "-c", f"import sys; print({chr(10).join(lines)!r}, file=sys.stderr)"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        reader = compiling._HelperOutput(helper, progress.kernel_done)
        compiling._finish_helper(helper, reader)
        assert progress.done == 2 and not progress.closed
        assert reader.join() == "a warning of Numba\n"
        progress.kernel_done("phases_nb.roll_nb")  # compiled here after all: still once
        assert progress.done == 2
    finally:
        progress.close()
    assert progress.closed
    progress.kernel_done("phases_nb.start_dev_nb")  # after closing: nothing
    assert progress.done == 2


def test_the_helper_refuses_another_cache_folder(tmp_path):
    r = subprocess.run([sys.executable, "-m", "catansim.core.compiling", "helper",
                        str(tmp_path)],
                       capture_output=True, text=True)
    assert r.returncode == 1
    assert "kernel cache folder" in r.stderr and str(tmp_path) in r.stderr
    r = subprocess.run([sys.executable, "-m", "catansim.core.compiling"], capture_output=True,
                       text=True)
    assert r.returncode == 2 and "usage: python -m catansim.core.compiling helper" in r.stderr


def test_the_kernels_are_compiled_for_the_types_the_engine_passes():
    """``compiling`` makes its own sample arguments (the core never imports the settings):
    their Numba types are those of the arrays ``GameSettings`` and ``game_arrays`` make."""
    import numba

    from catansim.board import make_board
    from catansim.core.engine_nb import game_arrays

    types = compiling._argument_types()
    _, _, board, openings, topo, rules, strat, params = GameSettings(
        n_players=4, strategies=("default",) * 4, layout="given",
        board=make_board("variable", 1),
    ).kernel_args()
    s, log = game_arrays(log_rows=10)
    engine = dict(s=s, log=log, topo=topo, rules=rules, strat=strat, params=params,
                  openings=openings, prm=params[0], sid=strat[0])
    assert {k: types[k] for k in engine} == {k: numba.typeof(v) for k, v in engine.items()}
    assert numba.typeof(board) == types["board"]  # the board vector a game is given


def test_the_compile_events_count_the_parts_then_the_game_loop_then_close_on_the_batch_loop():
    """What ``CompileEvents`` tells the progress line of Numba's compile events in this
    process: the parts' kernels and the game loop count, other functions do not, and the
    batch loop counts last and closes it."""
    from types import SimpleNamespace

    class Progress:
        def __init__(self):
            self.keys, self.closed = [], False

        def kernel_done(self, key):
            self.keys.append(key)

        def close(self):
            self.closed = True

    def end(module, name, signatures=("sig",)):
        func = SimpleNamespace(__module__=module, __name__=name)
        return SimpleNamespace(data={"dispatcher": SimpleNamespace(py_func=func,
                                                                   signatures=list(signatures))})

    part_module, part_name, _ = compiling.HELPER_PART[0]
    progress = Progress()
    events = compiling.CompileEvents(progress)
    events.on_end(end(f"catansim.core.{part_module}", part_name))
    events.on_end(end("catansim.core.rules_nb", "pay_nb"))  # a callee, not a step
    events.on_end(end("catansim.analysis.seats", "run_nb"))  # not the core's
    events.on_end(end("catansim.core.loop_nb", "run_nb"))
    assert progress.keys == [f"{part_module}.{part_name}", compiling.GAME_LOOP_KEY]
    assert not progress.closed
    events.on_end(end("catansim.core.engine_nb", "play_batch_nb"))
    assert progress.keys[-1] == compiling.BATCH_LOOP_KEY and progress.closed
    failed = Progress()  # a batch loop that failed to compile closes the line uncounted
    compiling.CompileEvents(failed).on_end(end("catansim.core.engine_nb", "play_batch_nb", ()))
    assert failed.keys == [] and failed.closed
