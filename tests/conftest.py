"""The suite's order and its progress lines (``make test``).

**Longest first.** ``make test`` hands whole files to its workers (pytest-xdist,
``--dist loadfile``) in the order they are collected. A file that takes minutes,
handed out last, keeps one worker busy alone at the end; handed out first, it runs
while the other workers take the rest. ``FIRST`` names those files, longest first; the
others keep their order.

**Progress.** Beside pytest's dots, a line each time a test file has finished: the
time since the run began, the files done of all, and the file
(``[  4:31] 12/80 files done: tests/test_kernels.py``). Under xdist the line is
written by the process that prints the dots.
"""

from __future__ import annotations

import time
from collections import Counter

import pytest

# The files that take longest (minutes each on two cores), longest first: a
# bounds-checked cold compile of the kernels and the games played under it; every
# notebook run; a cold compile in two processes; the study builds at scale small.
FIRST = ("test_bounds.py", "test_notebooks.py", "test_kernels.py", "test_seats_and_boards.py",
         "test_openings_study.py", "test_study_robber_shortages.py")


def pytest_collection_modifyitems(config, items):
    rank = {name: i for i, name in enumerate(FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(FIRST)))  # stable


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
