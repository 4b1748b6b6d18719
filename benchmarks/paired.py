"""Games per CPU-second of two checkouts' engines, paired: the measure of a kernel step.

On a shared 2-core VM games per second move by 10% or more from run to run, so two
engines timed one after the other cannot show a 5-10% step. Here each pair runs both
engines at the same time, one per core (so a slow spell of the machine hits both),
on the same seeds, and the cores are swapped every pair::

    python benchmarks/paired.py ../before                  # this checkout against ../before
    python benchmarks/paired.py ../before --pairs 10 --games 60000 --strategy random
    python benchmarks/paired.py ../before --strategy default --other-strategy classic

Each side is a fresh process that imports the catansim of its own checkout, loads its
kernels (from its cache, or compiled first), then plays the games on one thread;
only that play is timed (CPU seconds of the process). The table gives each pair's
rates and ratio (this checkout / the other), the median ratio with its range, how
many pairs were faster, and Wilcoxon's signed-rank test of the log ratios
(``scipy.stats.wilcoxon``). It also says whether both engines played exactly the same
games (a digest of every game's counters): a step meant to change no decision must
say "the same". With one CPU the two sides run one after the other, in alternating
order. Pair it with ``benchmarks/instructions.py``, which counts instructions and does
not move at all.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

import numpy as np
from scipy.stats import wilcoxon

_CHILD = """
import hashlib, json, os, sys, time
sys.path.insert(0, {root!r})
if {core!r} >= 0:
    os.sched_setaffinity(0, {{{core!r}}})
import catansim
from catansim.core import engine_fingerprint
from catansim.engine import batch_seeds, play_batch
from catansim.settings import GameSettings
try:
    settings = GameSettings(n_players={players!r}, strategies=({strategy!r},))
except ValueError as e:  # catansim's one-line error: the field and what is allowed
    sys.exit(str(e))
play_batch(batch_seeds(1, 2), settings, n_threads=1)  # load or compile the kernels
seeds = batch_seeds({seed!r}, {games!r})
t = time.process_time()
r = play_batch(seeds, settings, n_threads=1)
cpu = time.process_time() - t
print(json.dumps(dict(rate={games!r} / max(cpu, 1e-9), cpu=cpu, engine=engine_fingerprint(),
                      folder=os.path.dirname(catansim.__file__),
                      digest=hashlib.sha256(r.counters.tobytes()).hexdigest())))
"""


def _checkout(path: str) -> Path:
    root = Path(path).resolve()
    if not (root / "catansim" / "core" / "__init__.py").is_file():
        raise SystemExit(f"{path}: not a catansim checkout (no catansim/core/__init__.py)")
    return root


def _start(root: Path, core: int, args, seed: int, strategy: str | None = None
           ) -> subprocess.Popen:
    code = _CHILD.format(root=str(root), core=core, players=args.players,
                         strategy=strategy or args.strategy, seed=seed, games=args.games)
    return subprocess.Popen([sys.executable, "-c", code], cwd=root, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=dict(os.environ, NUMBA_NUM_THREADS="1"))


def _result(proc: subprocess.Popen, root: Path) -> dict:
    out, err = proc.communicate()
    if proc.returncode != 0:
        last = (err.strip().splitlines() or ["no output"])[-1]
        raise SystemExit(f"{root}: the timed process failed (exit {proc.returncode}): {last}")
    return json.loads(out.strip().splitlines()[-1])


def pair(here: Path, other: Path, i: int, args) -> tuple[dict, dict]:
    """One pair: both engines on the same seeds, at once on two cores (swapped when i
    is odd), or one after the other (order swapped) with a single CPU."""
    seed = args.seed + i
    if len(os.sched_getaffinity(0)) >= 2:
        cores = sorted(os.sched_getaffinity(0))[:2]
        a, b = (cores[0], cores[1]) if i % 2 == 0 else (cores[1], cores[0])
        pa, pb = _start(here, a, args, seed), _start(other, b, args, seed, args.other_strategy)
        try:
            return _result(pa, here), _result(pb, other)
        finally:  # a side that failed leaves no process behind
            for proc in (pa, pb):
                if proc.poll() is None:
                    proc.kill()
                    proc.wait()
    if i % 2 == 0:
        x = _result(_start(here, -1, args, seed), here)
        return x, _result(_start(other, -1, args, seed, args.other_strategy), other)
    y = _result(_start(other, -1, args, seed, args.other_strategy), other)
    return _result(_start(here, -1, args, seed), here), y


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("other", help="the other catansim checkout (the engine before a step)")
    ap.add_argument("--pairs", type=int, default=10, help="pairs of runs (>= 1)")
    ap.add_argument("--games", type=int, default=60_000, help="games per run (>= 1)")
    ap.add_argument("--strategy", default="default", help="every seat's strategy")
    ap.add_argument("--other-strategy", default=None, help="every seat's strategy in the "
                    "other checkout (default: --strategy)")
    ap.add_argument("--players", type=int, choices=(3, 4), default=4)
    ap.add_argument("--seed", type=int, default=100, help="base seed; pair i plays seed + i")
    args = ap.parse_args(argv)
    for name in ("pairs", "games"):
        if getattr(args, name) < 1:
            ap.error(f"--{name}: {getattr(args, name)}; allowed: an integer >= 1")
    here = _checkout(str(Path(__file__).resolve().parents[1]))
    other = _checkout(args.other)
    # Each engine loads (or first compiles, on both cores) its kernels once before any
    # timed run, so that no compile shares the machine with the other side's games.
    warm = argparse.Namespace(**dict(vars(args), games=2))
    _result(_start(here, -1, warm, args.seed), here)
    _result(_start(other, -1, warm, args.seed, args.other_strategy), other)
    rows = []
    for i in range(args.pairs):
        x, y = pair(here, other, i, args)
        rows.append((x, y))
        print(f"pair {i + 1}: {x['rate']:,.0f} against {y['rate']:,.0f} games per CPU-second",
              file=sys.stderr, flush=True)
    ratios = [x["rate"] / y["rate"] for x, y in rows]
    print(f"this checkout: engine {rows[0][0]['engine']} ({rows[0][0]['folder']})")
    print(f"the other: engine {rows[0][1]['engine']} ({rows[0][1]['folder']})")
    theirs = args.other_strategy or args.strategy
    print(f"{args.players} {args.strategy} players (the other: {args.players} {theirs}), "
          f"{args.games:,} games a run, {args.pairs} pairs\n")
    print("| pair | this checkout, games/CPU-s | the other | ratio |\n|---:|---:|---:|---:|")
    for i, ((x, y), r) in enumerate(zip(rows, ratios, strict=True), 1):
        print(f"| {i} | {x['rate']:,.0f} | {y['rate']:,.0f} | {r:.3f} |")
    same = all(x["digest"] == y["digest"] for x, y in rows)
    faster = sum(r > 1 for r in ratios)
    line = (f"\nratio (this / the other): median {statistics.median(ratios):.3f} "
            f"({min(ratios):.3f}-{max(ratios):.3f}), {faster} of {len(ratios)} faster")
    if len(ratios) >= 2 and any(r != 1 for r in ratios):
        line += f", Wilcoxon p = {wilcoxon(np.log(ratios)).pvalue:.3g}"
    print(line)
    print("games: the same in both engines" if same else
          "games: DIFFERENT (the engines do not play the same games)")


if __name__ == "__main__":
    main()
