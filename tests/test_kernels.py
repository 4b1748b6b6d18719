"""The cold compile in two processes (``catansim.kernels``): each kernel is compiled
once, in the process meant to compile it, for the signature the batch kernel calls it
with; the games played are the same as with the kernels compiled in one process."""

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from catansim import kernels
from catansim.engine import batch_seeds, play_batch
from catansim.settings import GameSettings

SETTINGS = dict(n_players=4, strategies=("default", "random", "default", "default"))

COLD = textwrap.dedent("""
    import collections, io, json
    from numba.core import event as ev
    with ev.install_recorder("numba:compile") as rec:
        from catansim import kernels
        from catansim.engine import batch_seeds, play_batch
        from catansim.settings import GameSettings
        line = io.StringIO()
        progress = kernels.CompileProgress(file=line)
        kernels.compile_in_two_processes(progress)
        before_batch_loop = progress.done
        res = play_batch(batch_seeds(7, 40), GameSettings(**SETTINGS), n_threads=1)
    compiled = collections.Counter(  # catansim's kernels, not Numba's own helpers
        f"{f.__module__}.{f.__name__}" for f in
        (e.data["dispatcher"].py_func for _, e in rec.buffer if e.is_start)
        if f.__module__.startswith("catansim"))
    helper_hits = {}
    for dispatcher, signature in kernels.compile_part(kernels.HELPER_PART):
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
    progress_seen = dict(before_batch_loop=before_batch_loop, done=progress.done,
                         closed=progress.closed, line=line.getvalue())
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
    helper = {f"catansim.core.{module}.{name}" for module, name, _ in kernels.HELPER_PART}
    compiled_here = set(cold_compile["compiled"])
    assert not helper & compiled_here  # not one of them compiled twice
    # ... because each was found in the cache, for the signature the game loop uses
    assert cold_compile["helper_hits"] == {name: 1 for _, name, _ in kernels.HELPER_PART}


def test_every_kernel_compiles_once_in_this_process(cold_compile):
    compiled = cold_compile["compiled"]
    main = {f"catansim.core.{module}.{name}" for module, name, _ in kernels.MAIN_PART}
    assert main <= set(compiled)
    # the batch kernel's own compile found the parts' signatures already there
    assert {name: n for name, n in compiled.items() if n > 1} == {}
    assert "catansim.core.engine_nb.play_batch_nb" in compiled
    # the turn is inlined into the batch loop: not a kernel of its own to lower again
    assert "catansim.core.engine_nb.play_turn_nb" not in compiled


def test_the_progress_counts_each_kernel_of_both_processes_then_the_batch_loop(cold_compile):
    seen = cold_compile["progress"]
    assert kernels.N_KERNELS == len(kernels.MAIN_PART) + len(kernels.HELPER_PART) + 1
    # every kernel of the parts, this process's from Numba's compile events, the helper's
    # from its lines, each once; then the batch loop, which closes the line
    assert seen["before_batch_loop"] == kernels.N_KERNELS - 1
    assert seen["done"] == kernels.N_KERNELS and seen["closed"]
    last = seen["line"].replace("\r", "\n").strip().splitlines()[-1]
    assert last.startswith(f"compiling the kernels: {kernels.N_KERNELS}/{kernels.N_KERNELS} "
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
    monkeypatch.setattr(kernels, "compile_in_two_processes",
                        lambda progress=None: calls.append(1))
    cases = [(1, False, True, 0), (2, True, True, 0), (2, False, True, 1), (8, False, True, 1),
             (2, False, False, 0)]
    for cpus, cached, writable, expected in cases:
        calls.clear()
        folder = tmp_path / ("cache" if writable else "missing")
        if writable:
            folder.mkdir(exist_ok=True)
        monkeypatch.setattr(numba.config, "CACHE_DIR", str(folder))
        monkeypatch.setattr(kernels, "_ready", False)
        monkeypatch.setattr(kernels, "available_cpus", lambda cpus=cpus: cpus)
        monkeypatch.setattr(kernels, "kernels_cached", lambda cached=cached: cached)
        assert kernels.batch_kernel() is not None
        assert len(calls) == expected, (cpus, cached, writable)
        assert kernels.batch_kernel() is not None  # once per process only
        assert len(calls) == expected


def test_a_failing_helper_is_named_in_a_warning():
    helper = subprocess.Popen(
        [sys.executable, "-c", "import sys; print('no kernels here', file=sys.stderr); "
                               "sys.exit(3)"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    with pytest.warns(RuntimeWarning, match=r"helper process failed \(exit code 3: no kernels "
                                            r"here\); compiling the rest in this process"):
        kernels._finish_helper(helper, kernels._HelperOutput(helper))


def test_the_progress_counts_the_helpers_lines_once_each_and_keeps_its_other_lines():
    """The helper's stderr: a ``DONE`` line per kernel (counted once, whichever process
    reports it), anything else kept for the warning."""
    import io

    progress = kernels.CompileProgress(file=io.StringIO())
    try:
        lines = [f"{kernels.DONE} engine_nb.roll_nb", "a warning of Numba",
                 f"{kernels.DONE} engine_nb.roll_nb", f"{kernels.DONE} rules_nb.produce_nb"]
        helper = subprocess.Popen(
            [sys.executable, "-c", f"import sys; print({chr(10).join(lines)!r}, file=sys.stderr)"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        reader = kernels._HelperOutput(helper, progress.kernel_done)
        kernels._finish_helper(helper, reader)
        assert progress.done == 2 and not progress.closed
        assert reader.join() == "a warning of Numba\n"
        progress.kernel_done("engine_nb.roll_nb")  # compiled here after all: still once
        assert progress.done == 2
    finally:
        progress.close()
    assert progress.closed
    progress.kernel_done("engine_nb.start_dev_nb")  # after closing: nothing
    assert progress.done == 2


def test_the_helper_refuses_another_cache_folder(tmp_path):
    r = subprocess.run([sys.executable, "-m", "catansim.kernels", "helper", str(tmp_path)],
                       capture_output=True, text=True)
    assert r.returncode == 1
    assert "kernel cache folder" in r.stderr and str(tmp_path) in r.stderr
    r = subprocess.run([sys.executable, "-m", "catansim.kernels"], capture_output=True,
                       text=True)
    assert r.returncode == 2 and "usage: python -m catansim.kernels helper" in r.stderr


def test_the_kernels_are_compiled_for_the_types_the_engine_passes():
    """``kernels`` makes its own sample arguments (it never imports the engine): their
    Numba types are those of the arrays ``GameSettings`` and ``game_arrays`` make."""
    import numba

    from catansim.board import make_board
    from catansim.kernels import game_arrays

    types = kernels._argument_types()
    _, _, board, openings, topo, rules, strat, params = GameSettings(
        n_players=4, strategies=("default",) * 4, layout="given",
        board=make_board("variable", 1),
    ).kernel_args()
    s, log = game_arrays(log_rows=10)
    engine = dict(s=s, log=log, topo=topo, rules=rules, strat=strat, params=params,
                  openings=openings, prm=params[0], sid=strat[0])
    assert {k: types[k] for k in engine} == {k: numba.typeof(v) for k, v in engine.items()}
    assert numba.typeof(board) == types["board"]  # the board vector a game is given
