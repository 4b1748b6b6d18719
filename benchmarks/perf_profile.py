"""Where a game's time goes, by compiled kernel: play games under ``perf``.

Numba's machine code has no symbols that ``perf`` can see, so this script compiles
the kernels afresh (point ``NUMBA_CACHE_DIR`` at an empty folder: kernels loaded
from the cache carry no symbol table), writes ``/tmp/perf-<pid>.map`` (every
compiled function's address, its size taken as the distance to the next one), and
then plays the games to profile::

    NUMBA_CACHE_DIR=$(mktemp -d) NUMBA_NUM_THREADS=1 \\
        perf record -F 1999 -o perf.data -- python benchmarks/perf_profile.py 100000
    perf report -i perf.data --no-children --sort sym --stdio

Kernels inlined into their callers (``inline_kernel``) count as the caller. The
compile is in the recording too; only the ``catansim`` symbols are the games.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
import sys
import time


def write_perf_map(path: str | None = None) -> int:
    """Write every compiled function's address, size and name in perf's map format to
    ``path`` (default ``/tmp/perf-<pid>.map``, where ``perf`` looks); return how many."""
    from numba.core.registry import CPUDispatcher

    import catansim.core as core

    symbols = {}
    for info in pkgutil.iter_modules(core.__path__):
        module = importlib.import_module("catansim.core." + info.name)
        for value in vars(module).values():
            if not isinstance(value, CPUDispatcher):
                continue
            for cres in value.overloads.values():
                try:
                    llvm_module = cres.library._final_module
                except Exception:  # loaded from the cache: no module to list
                    continue
                for fn in llvm_module.functions:
                    if fn.is_declaration:
                        continue
                    address = cres.library.get_pointer_to_function(fn.name)
                    if address:
                        symbols.setdefault(address, fn.name)
    addresses = sorted(symbols)
    with open(path or f"/tmp/perf-{os.getpid()}.map", "w") as fh:
        for i, address in enumerate(addresses):
            size = addresses[i + 1] - address if i + 1 < len(addresses) else 4096
            fh.write(f"{address:x} {min(size, 1 << 20):x} {symbols[address]}\n")
    return len(addresses)


def main(n_games: int = 100_000, strategy: str = "default") -> None:
    from catansim.engine import batch_seeds, play_batch
    from catansim.settings import GameSettings

    settings = GameSettings(n_players=4, strategies=(strategy,))
    play_batch(batch_seeds(1, 4), settings, n_threads=1)  # compile
    print("symbols in the perf map:", write_perf_map(), flush=True)
    t = time.process_time()
    play_batch(batch_seeds(777, n_games), settings, n_threads=1)
    print(f"{n_games / (time.process_time() - t):.0f} games per CPU-second")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100_000,
         sys.argv[2] if len(sys.argv) > 2 else "default")
