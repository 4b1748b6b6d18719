"""Peak memory of ``catansim tournament``, ``tournament --matrix`` and ``simulate`` at two
numbers of games a factor 10 apart: it should be flat (they aggregate as they play).

Usage::

    .venv/bin/python benchmarks/memory_flat.py [--small 20000] [--factor 10]

Runs each command in a child process (``catansim.cli``) and reads its peak resident
set size from ``resource.getrusage(RUSAGE_CHILDREN)`` (Linux: KB), one child at a
time, so each figure is that child's own peak. Prints one line per command and size
and the ratio of the two peaks.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys

COMMANDS = {
    "tournament": ["tournament", "--quiet", "--games"],
    "tournament --matrix": ["tournament", "--matrix", "--quiet", "--games"],
    "simulate": ["simulate", "--games"],
}


def peak_rss_mb(argv: list[str]) -> float:
    """Peak RSS (MB) of ``python -m catansim.cli ARGV`` in a fresh process."""
    code = ("import resource, subprocess, sys; "
            "subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL); "
            "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    out = subprocess.run([sys.executable, "-c", code, sys.executable, "-m", "catansim.cli",
                          *argv], check=True, capture_output=True, text=True, env=os.environ)
    return int(out.stdout.split()[-1]) / 1024


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--small", type=int, default=20_000, help="games of the smaller run")
    ap.add_argument("--factor", type=int, default=10, help="the larger run has this many times")
    ap.add_argument("--matrix-small", type=int, default=2_000,
                    help="games per pair of the smaller --matrix run")
    args = ap.parse_args(argv)
    assert resource.RUSAGE_CHILDREN  # Linux and macOS
    for name, cmd in COMMANDS.items():
        small = args.matrix_small if "matrix" in name else args.small
        peaks = [peak_rss_mb([*cmd, str(n)]) for n in (small, small * args.factor)]
        print(f"{name}: {small:,} games {peaks[0]:.0f} MB, {small * args.factor:,} games "
              f"{peaks[1]:.0f} MB (ratio {peaks[1] / peaks[0]:.2f})", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
