"""Benchmark script: prints a Markdown table of catansim's throughput and compile times.

Usage::

    .venv/bin/python benchmarks/bench.py [--games 20000] [--e2e-games 200000] [--players 4]

Measures (``catansim.runs.bench``): compile time cold (empty NUMBA_CACHE_DIR) and warm
(from cache) in fresh processes, games/s on 1 core and on all cores after compiling,
and the end-to-end rate of ``catansim run`` with Parquet written, extrapolated to
1,000,000 games.
"""

from __future__ import annotations

import argparse
import sys

from catansim.runs import bench


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=20_000)
    ap.add_argument("--e2e-games", type=int, default=None)
    ap.add_argument("--players", type=int, choices=(3, 4), default=4)
    ap.add_argument("--strategies", default=None)
    ap.add_argument("--no-compile", action="store_true")
    a = ap.parse_args(argv)
    names = tuple(a.strategies.split(",")) if a.strategies else None
    r = bench.run(games=a.games, players=a.players, strategies=names, e2e_games=a.e2e_games,
                  compile=not a.no_compile, echo=lambda m: print(m, file=sys.stderr))
    print(bench.markdown(r))


if __name__ == "__main__":
    main()
