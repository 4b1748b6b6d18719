"""What each kernel costs in the cold compile: seconds compiling it, and how many times.

Runs a fresh process on an empty kernel cache (``NUMBA_CACHE_DIR`` set to a new
temporary folder), pinned to one CPU so that it compiles every kernel itself (with two,
``catansim.core.compiling`` hands half of them to a helper process), and plays two
default games (``engine.play_batch``), as the first game on a machine does. Numba's
compile events (``numba:compile``, one per specialization) are timed there; a kernel's
seconds are its own, less those of the kernels compiled while typing it (its callees,
counted under their own names). Inlined kernels (``inline_kernel``) are part of their
callers. It prints a Markdown table, most costly first::

    python benchmarks/compile_cost.py                 # about 1.5 CPU minutes
    python benchmarks/compile_cost.py --modules       # also a row per module
    python benchmarks/compile_cost.py --json --cache DIR   # figures as JSON; keep the cache

The columns: CPU and wall seconds of the kernel's own compiles, and its specializations
(compile events: more than one means it was compiled for several signatures). The last
rows are the sum over kernels and the whole process (imports, the games, writing the
cache). On a shared machine the wall time waits for the CPU; the CPU time does not. The
figures are in docs/benchmarks.md ("What each kernel costs in the cold compile").
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from numba.core import event

ROOT = Path(__file__).resolve().parent.parent
START = time.perf_counter()  # the whole process's wall time counts from its imports


class _Timer(event.Listener):
    """A ``numba:compile`` listener: per kernel (``module.name``), its own CPU and wall
    seconds and its compile events."""

    def __init__(self):
        self.stack = []  # [key, cpu at start, wall at start, callees' cpu, callees' wall]
        self.kernels: dict[str, dict] = {}

    def on_start(self, event):
        func = getattr((event.data or {}).get("dispatcher"), "py_func", None)
        key = f"{func.__module__}.{func.__qualname__}" if func is not None else "?"
        self.stack.append([key, time.process_time(), time.perf_counter(), 0.0, 0.0])

    def on_end(self, event):
        key, cpu0, wall0, inner_cpu, inner_wall = self.stack.pop()
        cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
        row = self.kernels.setdefault(key, {"cpu": 0.0, "wall": 0.0, "compiles": 0})
        row["cpu"] += cpu - inner_cpu
        row["wall"] += wall - inner_wall
        row["compiles"] += 1
        if self.stack:
            self.stack[-1][3] += cpu
            self.stack[-1][4] += wall


def child() -> dict:
    """In the fresh process: compile and play two games, timing each kernel's compiles."""
    cpus = sorted(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {cpus[0]})  # one CPU: no helper process, every kernel here
    timer = _Timer()
    event.register("numba:compile", timer)  # before the first kernel module is imported
    from catansim.engine import batch_seeds, play_batch  # noqa: PLC0415
    from catansim.settings import GameSettings  # noqa: PLC0415

    play_batch(batch_seeds(0, 2), GameSettings(n_players=4))
    usage = resource.getrusage(resource.RUSAGE_SELF)  # since the process started
    return {"kernels": timer.kernels, "cpu": usage.ru_utime + usage.ru_stime,
            "wall": time.perf_counter() - START}


def measure(cache: str | None = None) -> dict:
    """The child's figures, run on an empty kernel cache: ``cache`` (kept) or a temporary
    folder."""
    if cache is not None and os.path.isdir(cache) and os.listdir(cache):
        raise SystemExit(f"--cache: {cache} is not empty; allowed: an empty or new folder "
                         "(a cold compile)")
    with tempfile.TemporaryDirectory(prefix="catansim-compile-cost-") as scratch:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache or scratch, PYTHONPATH=os.pathsep.join(
            p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p))
        done = subprocess.run([sys.executable, __file__, "--child"], env=env,
                              capture_output=True, text=True, stdin=subprocess.DEVNULL)
    if done.returncode != 0:
        raise SystemExit(f"compile_cost: the child failed:\n{done.stderr}")
    return json.loads(done.stdout.splitlines()[-1])


def by_module(kernels: dict) -> dict:
    """The kernels' figures summed by module (Numba's own helpers as one), with the
    number of kernels as ``kernels``."""
    out: dict[str, dict] = {}
    for key, k in kernels.items():
        module = key.rsplit(".", 1)[0] if key.startswith("catansim.") else "Numba's own"
        row = out.setdefault(module, {"cpu": 0.0, "wall": 0.0, "compiles": 0, "kernels": 0})
        for field in ("cpu", "wall", "compiles"):
            row[field] += k[field]
        row["kernels"] += 1
    return out


def table(result: dict, modules: bool = False) -> str:
    """The Markdown table, by kernel or (``modules``) by module, most costly first."""
    rows = by_module(result["kernels"]) if modules else result["kernels"]
    what = "module (kernels)" if modules else "kernel"
    lines = [f"| {what} | CPU s | wall s | specializations |", "|---|---:|---:|---:|"]
    for key, k in sorted(rows.items(), key=lambda kv: -kv[1]["cpu"]):
        name = f"`{key.removeprefix('catansim.core.')}`" + (f" ({k['kernels']})" if modules
                                                             else "")
        lines.append(f"| {name} | {k['cpu']:.2f} | {k['wall']:.2f} | {k['compiles']} |")
    kernels = result["kernels"].values()
    cpu, wall = sum(k["cpu"] for k in kernels), sum(k["wall"] for k in kernels)
    n = sum(k["compiles"] for k in kernels)
    lines.append(f"| all {len(kernels)} kernels | {cpu:.2f} | {wall:.2f} | {n} |")
    lines.append(f"| the whole process (imports, 2 games, cache writes) | {result['cpu']:.2f} "
                 f"| {result['wall']:.2f} | |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    ap.add_argument("--modules", action="store_true",
                    help="a row per module (the kernels' figures summed) and one per kernel")
    ap.add_argument("--from-json", metavar="FILE", default=None,
                    help="print the tables of figures saved with --json; compile nothing")
    ap.add_argument("--cache", metavar="DIR", default=None,
                    help="compile into DIR (empty or new) and keep it, e.g. to run the "
                         "tests on it as NUMBA_CACHE_DIR; default: a temporary folder")
    args = ap.parse_args(argv)
    if args.child:
        print(json.dumps(child()))
        return 0
    if args.from_json is not None:
        result = json.loads(Path(args.from_json).read_text())
    else:
        result = measure(args.cache)
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        print((table(result, modules=True) + "\n\n" if args.modules else "") + table(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
