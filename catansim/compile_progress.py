"""The cold compile said on stderr: ``COMPILING`` first, then a line of the kernels done.

What lives here: ``say_if_compiling()``, which every command that plays games calls
first, and ``CompileProgress``, the line it has the cold compile draw. Compiling and
caching are the core's (``catansim.core.compiling``); this module only shows them.
May import: ``catansim.core.compiling``, Numba's compile events and tqdm.

On a cold cache ``say_if_compiling`` prints ``COMPILING`` and the cold compile then
shows a line on stderr with the kernels done of ``N_KERNELS`` (each entry of the two
parts, then the game loop and the batch loop) and the time since it began, refreshed
every second on a terminal. A library call that did not ask is silent.
"""

from __future__ import annotations

import shutil
import sys
import threading

from numba.core import event as numba_event
from tqdm.auto import tqdm

from .core import compiling

# From an empty cache (docs/benchmarks.md, "Start-up and the first hour"): 28-40 s on two
# quiet cores of the VM of 7 Dec 2026 (its speed moved by a third within the hour) and 58 s
# on one; 52-58 s on two of the 6 Dec VM, about half as fast per core; minutes on a machine
# shared with other work.
COMPILING = ("compiling the kernels (once per machine: half a minute to a minute on two "
             "quiet cores, one to one and a half on one, several on a busy machine; cached "
             "afterwards)")


def say_if_compiling() -> bool:
    """Print ``COMPILING`` on stderr when the next game will compile the kernels (a cold
    cache), and have the cold compile show its progress (``CompileProgress``), so that a
    command does not sit silent for a minute; returns whether it did. Every command
    that plays games calls it first."""
    if compiling.kernels_cached():
        return False
    print(COMPILING, file=sys.stderr, flush=True)
    compiling.show_progress(CompileProgress)
    return True


class CompileProgress:
    """The cold compile's line on stderr: kernels done of ``N_KERNELS`` and the time since
    it began, refreshed every second on a terminal (elsewhere at most every 10 s).

    A kernel of the parts counts when Numba has compiled it in this process (its compile
    event, ``compiling.CompileEvents``) or the helper says it has (``kernel_done``), each
    once; the game loop and the batch loop, which ``batch_kernel`` compiles last,
    count last, and the batch loop closes the line (also if its compile fails).
    ``close()`` closes it at once.
    """

    def __init__(self, file=None):
        self._file = file or sys.stderr
        tty = self._file.isatty()
        self._lock = threading.Lock()
        self._closed = threading.Event()
        self._done: set[str] = set()
        # a terminal that reports no size (0 x 0) would make tqdm hide the line
        size = shutil.get_terminal_size((80, 24))
        self._bar = tqdm(total=compiling.N_KERNELS, file=self._file,
                         desc="compiling the kernels",
                         bar_format="{desc}: {n}/{total} done, {elapsed} elapsed",
                         mininterval=0.5 if tty else 10.0, ncols=size.columns,
                         nrows=size.lines)
        # stays registered, inert once closed: unregistering inside Numba's broadcast
        # would skip the listener after it
        numba_event.register("numba:compile", compiling.CompileEvents(self))
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
        """Count kernel ``key`` (``module.name``, e.g. ``phases_nb.roll_nb``) once."""
        with self._lock:
            if not self._closed.is_set() and key not in self._done:
                self._done.add(key)
                self._bar.update(1)

    def close(self) -> None:
        with self._lock:
            if not self._closed.is_set():
                self._closed.set()
                self._bar.close()
