"""``runs.pool.completed``: results as they complete, and a prompt stop that leaves no
worker running a task whose result would be dropped."""

from __future__ import annotations

import os
import time

import pytest

from catansim.runs.pool import completed


def _square(x):
    return x * x


def _fail(x):
    raise ValueError(f"task {x} failed")


def _slow(folder, i):
    """Write ``started-i``, wait up to 20 s for ``release`` (never written), then write
    ``finished-i``: a task left running after the caller stopped leaves that file."""
    with open(os.path.join(folder, f"started-{i}"), "w") as fh:
        fh.write(str(os.getpid()))
    for _ in range(200):
        if os.path.exists(os.path.join(folder, "release")):
            break
        time.sleep(0.1)
    with open(os.path.join(folder, f"finished-{i}"), "w") as fh:
        fh.write("done")
    return i


def _quick_or_slow(folder, i):
    return i if i == 0 else _slow(folder, i)


@pytest.mark.parametrize("workers", [1, 2])
def test_every_result_once(workers):
    got = dict(completed(_square, {k: (k,) for k in range(6)}, workers))
    assert got == {k: k * k for k in range(6)}


def test_a_failing_task_raises_in_the_caller():
    with pytest.raises(ValueError, match="task 3 failed"):
        dict(completed(_fail, {3: (3,), 4: (4,)}, 2))


def test_a_stopped_caller_leaves_no_task_running(tmp_path):
    # Task 0 returns at once; tasks 1 and 2 would run for 20 s. The caller takes the
    # first result and stops: the two slow tasks' workers must be gone, not finished.
    folder = str(tmp_path)
    results = completed(_quick_or_slow, {i: (folder, i) for i in range(3)}, 2)
    assert next(results) == (0, 0)
    for _ in range(600):  # the slow task on the freed worker has started
        if any(name.startswith("started-") for name in os.listdir(folder)):
            break
        time.sleep(0.05)
    results.close()
    time.sleep(0.5)  # a terminated worker writes nothing more
    assert not [name for name in os.listdir(folder) if name.startswith("finished-")]
