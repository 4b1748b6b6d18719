"""The suite's order and its progress lines (``make test``).

**Longest first.** ``make test`` hands whole files to its workers (pytest-xdist,
``--dist loadfile``) in the order they are collected. A file that takes minutes,
handed out last, keeps one worker busy alone at the end; handed out first, it runs
while the other workers take the rest. ``FIRST`` names those files, longest first; the
others keep their order. (``make test`` passes ``--no-loadscope-reorder``: by default
pytest-xdist hands out the files with the most tests first, which put the bounds-checked
compile, two tests, last.)

**Progress.** Beside pytest's dots, a line each time a test file has finished: the
time since the run began, the files done of all, and the file
(``[  4:31] 12/80 files done: tests/test_kernels.py``). Under xdist the line is
written by the process that prints the dots.

**One cold compile.** On a cold kernel cache (a clean checkout, or a change to the
compiled core), every xdist worker would compile the same kernels at once. Before the
workers start, one process compiles them (``WARM``: a batch, which compiles in two
processes, then the step interface, the determinization and the rollouts), and the
workers load them from the cache.

**Slow tests** (``@pytest.mark.slow``: statistical sweeps, the games counted under
valgrind) are skipped unless the marker expression names them:
``pytest -m slow`` runs them alone, ``pytest -m "slow or not slow"`` with the rest.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections import Counter

import pytest

# The files that take longest (minutes each on two cores), longest first: a
# bounds-checked cold compile of the kernels and the games played under it; every
# notebook run; a cold compile in two processes; the study builds at scale small; the
# benchmarks' tests (games counted under valgrind).
FIRST = ("test_bounds.py", "test_notebooks.py", "test_kernels.py", "test_seats_and_boards.py",
         "test_openings_study.py", "test_study_robber_shortages.py", "test_study_all.py",
         "test_bench.py")


def pytest_collection_modifyitems(config, items):
    rank = {name: i for i, name in enumerate(FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(FIRST)))  # stable
    if "slow" not in (config.getoption("markexpr") or ""):
        skip = pytest.mark.skip(reason='slow: runs with -m slow (or -m "slow or not slow")')
        for item in items:
            if "slow" in item.keywords:
                item.add_marker(skip)


# Every kernel the suite's workers would otherwise each compile on a cold cache.
WARM = """
import numpy as np
from catansim.core.compiling import kernels_cached
if not kernels_cached():
    from catansim.engine import batch_seeds, play_batch
    from catansim.game import Game
    from catansim.settings import GameSettings
    play_batch(batch_seeds(1, 2), GameSettings(n_players=4), n_threads=1)
    Game(2).play_to(turn=3).resume()
    game = Game(1, external={0, 1, 2, 3})
    for _ in range(30):
        game.observation(game.to_move)
        game.step(game.suggest())
    game.determinize(game.to_move, seed=1)
    game.rollouts(game.to_move, np.array([-1]), np.array([1]), "default")
    print("compiled")
"""


def pytest_sessionstart(session):
    config = session.config
    if hasattr(config, "workerinput") or not getattr(config.option, "numprocesses", None):
        return  # a worker, or no workers: the tests compile what they use
    start = time.monotonic()
    r = subprocess.run([sys.executable, "-c", WARM], capture_output=True, text=True)
    terminal = config.pluginmanager.getplugin("terminalreporter")
    if terminal is None:
        return
    if r.returncode != 0:  # the tests that use the kernels will say what failed
        tail = (r.stderr.strip().splitlines() or ["no output"])[-1]
        terminal.write_line(f"compiling the kernels before the workers start failed: {tail}")
    elif "compiled" in r.stdout:
        terminal.write_line(f"kernels compiled before the workers start: "
                            f"{time.monotonic() - start:.0f} s")


class FileProgress:
    """Writes a line when the last test of a file has reported its teardown."""

    def __init__(self, terminal):
        self.terminal = terminal
        self.start = time.monotonic()
        self.left: Counter = Counter()
        self.files = 0
        self.done = 0

    def count(self, nodeids) -> None:
        if not self.left:  # every worker collects the same tests: the first says
            self.left = Counter(nodeid.split("::")[0] for nodeid in nodeids)
            self.files = len(self.left)

    def pytest_collection_finish(self, session):
        self.count(item.nodeid for item in session.items)

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node, ids):
        self.count(ids)

    def pytest_runtest_logreport(self, report):
        if report.when != "teardown":
            return
        path = report.nodeid.split("::")[0]
        if path not in self.left:
            return
        self.left[path] -= 1
        if self.left[path] == 0 and self.files > 1:
            self.done += 1
            minutes, seconds = divmod(int(time.monotonic() - self.start), 60)
            if self.terminal._tw.width_of_current_line:  # after pytest's dots
                self.terminal.write("\n")
            self.terminal.write_line(f"[{minutes:3d}:{seconds:02d}] {self.done}/{self.files} "
                                     f"files done: {path}")


@pytest.hookimpl(trylast=True)  # after the terminal reporter is registered
def pytest_configure(config):
    terminal = config.pluginmanager.getplugin("terminalreporter")
    if terminal is not None and not hasattr(config, "workerinput"):  # not an xdist worker
        config.pluginmanager.register(FileProgress(terminal), "catansim-file-progress")
