"""How long ``catansim --help`` and a refused argument take, and what they import.

Each case runs ``python -X importtime -m catansim.cli ARGS`` in a fresh interpreter
(the catansim of the checkout this script is in, whatever the working folder), ``--runs``
times; it prints, as a Markdown table, the best wall time of the whole process, its CPU
time (user + system, from the child's resource usage: on a shared machine the wall time
waits for a core, the CPU time does not) and which heavy packages were imported::

    python benchmarks/startup.py             # every case, best of 5
    python benchmarks/startup.py --runs 9

A refused argument must exit non-zero (2) and ``--help`` zero; a case that does not
is reported as failed. The figures are in docs/benchmarks.md ("Start-up").
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# (label, argv, expected exit status)
CASES = (
    ("catansim --help", ["--help"], 0),
    ("catansim simulate --help", ["simulate", "--help"], 0),
    ("catansim study --help", ["study", "--help"], 0),
    ("refused strategy: simulate --strategies defualt", ["simulate", "--strategies", "defualt"],
     2),
    ("refused layout: simulate --layout varible", ["simulate", "--layout", "varible"], 2),
    ("refused rule: simulate --rule robbr=off", ["simulate", "--rule", "robbr=off"], 2),
    ("refused study: study robbr", ["study", "robbr"], 2),
    ("refused players: play --players 5", ["play", "--players", "5"], 2),
)

# Packages that cost a second or more to import between them, and catansim's heavy layers.
HEAVY = ("numba", "pandas", "scipy", "statsmodels", "matplotlib", "pyarrow", "dask",
         "catansim.core.jit", "catansim.analysis", "catansim.studies", "catansim.runs")
# The light modules of a heavy layer: the studies package and its text files, which the
# study command reads to list, title and check the studies (no study module).
LIGHT = ("catansim.studies", "catansim.studies._texts")


def imported(stderr: str) -> dict[str, int]:
    """Module name -> its cumulative import time in microseconds, from ``-X importtime``."""
    out = {}
    for line in stderr.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        _, cumulative, name = line[len("import time:"):].split("|")
        if cumulative.strip().isdigit():
            out[name.strip()] = int(cumulative)
    return out


def heavy(modules) -> list[str]:
    """The ``HEAVY`` packages among imported module names (their ``LIGHT`` modules aside)."""
    return [h for h in HEAVY if any((m == h or m.startswith(h + ".")) and m not in LIGHT
                                    for m in modules)]


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_once(argv: list[str]) -> tuple[float, float, int, dict[str, int]]:
    """(wall seconds, CPU seconds, exit status, imported modules) of one fresh ``catansim``
    process."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p))
    cpu, t = _children_cpu(), time.perf_counter()
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "catansim.cli", *argv],
                          env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    return (time.perf_counter() - t, _children_cpu() - cpu, done.returncode,
            imported(done.stderr))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5, help="runs per case (the best is shown)")
    args = ap.parse_args(argv)
    rows, failed = [], 0
    for label, case, code in CASES:
        best, modules = None, {}
        for _ in range(args.runs):
            seconds, cpu, status, modules = run_once(case)
            if status != code:
                failed += 1
                print(f"{label}: exit status {status}, expected {code}", file=sys.stderr)
                break
            best = (seconds, cpu) if best is None else min(best, (seconds, cpu))
        if best is None:
            continue
        rows.append((label, *best, modules))
    print(f"| command | wall (best of {args.runs}) | its CPU | heavy packages imported |")
    print("|---|---:|---:|---|")
    for label, wall, cpu, modules in rows:
        print(f"| `{label}` | {wall:.2f} s | {cpu:.2f} s | {', '.join(heavy(modules)) or 'none'} |")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
