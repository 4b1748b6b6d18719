"""A new user's first hour, timed in one window: the figures issue #57 asks for.

Runs, one after the other, each as a fresh process of the checkout this script is in:

1. the first compile: ``catansim simulate --games 200`` on an empty kernel cache (a
   temporary ``NUMBA_CACHE_DIR``, which every later step then shares, as a user's would),
   then the same command with the kernels cached, best of ``--runs``: the difference is
   the compile itself, the rest the command's own work (imports, games, the summary);
2. ``catansim --help`` and a refused strategy name (``simulate --strategies defualt``),
   best of ``--runs``;
3. each study at ``--scale small``, into a temporary folder;
4. each tutorial notebook, top to bottom at its own default sizes (nbclient), its
   datasets in a temporary folder;
5. with ``--make-test``, ``make test`` (the whole suite).

and prints a Markdown table: each step's wall time, its CPU time (user + system of the
step's processes, from the resource usage of the children) and the load average before
and after it, then the compile itself (the first command less the cached one). On a
shared machine the wall time waits for a core and the CPU time does not, so read the two
together with the load::

    python benchmarks/first_hour.py                        # about 10 minutes
    python benchmarks/first_hour.py --make-test --json first-hour.json
    python benchmarks/first_hour.py --only notebooks

The figures are in docs/benchmarks.md ("Start-up and the first hour").
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ANSI = re.compile(r"\x1b\[[0-9;]*m")  # a notebook's traceback is coloured
STUDIES = ("seats-and-boards", "openings", "robber", "shortages")
FIRST = "first compile: `catansim simulate --games 200`, empty cache"
CACHED = "the same command, the kernels cached"

_NOTEBOOK = """
import sys, nbformat, nbclient
path = sys.argv[1]
nb = nbformat.read(path, as_version=4)
nbclient.NotebookClient(nb, timeout=1800, kernel_name="python3",
                        resources={"metadata": {"path": sys.argv[2]}}).execute()
"""


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(argv: list[str], env: dict, cwd: Path = ROOT) -> dict:
    """Run one command to its end; its wall and CPU seconds, exit status and load."""
    load = os.getloadavg()[0]
    cpu, start = _cpu(), time.perf_counter()
    done = subprocess.run(argv, env=env, cwd=cwd, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - start
    tail = [ANSI.sub("", line) for line in done.stderr.strip().splitlines()[-1:]
            ] if done.returncode else []
    return {"wall": wall, "cpu": _cpu() - cpu, "status": done.returncode,
            "load_before": load, "load_after": os.getloadavg()[0], "error": " ".join(tail)}


def best_of(argv: list[str], env: dict, runs: int) -> dict:
    """The run with the least wall time of ``runs``."""
    return min((timed(argv, env) for _ in range(runs)), key=lambda r: r["wall"])


def steps(scratch: Path, runs: int, make_test: bool, notebooks: bool, commands: bool = True):
    """(label, how to run it, the exit status expected) in the order a new user meets them.

    The first compile always comes first: every later step shares its kernel cache.
    ``commands`` False leaves out the quick commands and the studies.
    """
    cli = [sys.executable, "-m", "catansim.cli"]
    first = [*cli, "simulate", "--games", "200", "--seed", "1"]
    yield (FIRST, lambda env: timed(first, env), 0)
    yield (CACHED, lambda env: best_of(first, env, runs), 0)
    if commands:
        yield from _commands(scratch, runs, cli)
    if notebooks:
        for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
            # each notebook its own dataset folder, as a reader's fresh run would have
            yield (f"notebook {path.stem}",
                   lambda env, path=path: timed(
                       [sys.executable, "-c", _NOTEBOOK, str(path), str(path.parent)],
                       dict(env, CATANSIM_NOTEBOOK_OUT=str(scratch / "notebooks" / path.stem))),
                   0)
    if make_test:
        yield ("`make test`", lambda env: timed(["make", "test"], env), 0)


def _commands(scratch: Path, runs: int, cli: list[str]):
    yield ("`catansim --help`", lambda env: best_of([*cli, "--help"], env, runs), 0)
    yield ("refused typo: `catansim simulate --strategies defualt`",
           lambda env: best_of([*cli, "simulate", "--strategies", "defualt"], env, runs), 2)
    for study in STUDIES:
        out = scratch / "studies" / study
        yield (f"`catansim study {study} --scale small`",
               lambda env, study=study, out=out: timed(
                   [*cli, "study", study, "--scale", "small", "--out", str(out)], env), 0)


def compile_seconds(rows: list[dict]) -> float | None:
    """The compile's own wall seconds: the first command on an empty kernel cache less the
    same command with the kernels cached (None unless both ran and succeeded)."""
    wall = {r["step"]: r["wall"] for r in rows if r["ok"]}
    if FIRST not in wall or CACHED not in wall:
        return None
    return wall[FIRST] - wall[CACHED]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3, help="runs of the quick commands (>= 1)")
    ap.add_argument("--make-test", action="store_true", help="also time `make test`")
    ap.add_argument("--no-notebooks", action="store_true", help="skip the notebooks")
    ap.add_argument("--only", choices=("all", "notebooks"), default="all",
                    help="notebooks: time the notebooks alone (on a warm cache of their own)")
    ap.add_argument("--json", type=Path, default=None, help="also write the rows here")
    args = ap.parse_args(argv)
    if args.runs < 1:
        ap.error(f"--runs: {args.runs} is not allowed; allowed: an integer >= 1")
    if args.json is not None and not args.json.parent.is_dir():
        ap.error(f"--json: {args.json.parent}: no such folder")

    rows = []
    with tempfile.TemporaryDirectory(prefix="catansim-first-hour-") as tmp:
        scratch = Path(tmp)
        env = dict(os.environ, NUMBA_CACHE_DIR=str(scratch / "cache"),
                   PYTHONPATH=os.pathsep.join([str(ROOT), *filter(None, [
                       os.environ.get("PYTHONPATH")])]))
        env.pop("CATANSIM_NOTEBOOK_GAMES", None)  # each notebook at its own default sizes
        print("| step | wall s | CPU s | load before / after | |\n|---|---:|---:|---|---|",
              flush=True)
        for label, run, expected in steps(scratch, args.runs, args.make_test,
                                          not args.no_notebooks, args.only == "all"):
            row = {"step": label, **run(env)}
            row["ok"] = row["status"] == expected
            rows.append(row)
            note = "" if row["ok"] else f"FAILED (exit {row['status']}): {row['error']}"
            print(f"| {label} | {row['wall']:.1f} | {row['cpu']:.1f} | "
                  f"{row['load_before']:.1f} / {row['load_after']:.1f} | {note} |", flush=True)
    compile_s = compile_seconds(rows)
    if compile_s is not None:
        print(f"\nthe compile itself (the first command less the cached one): "
              f"{compile_s:.1f} s wall", flush=True)
    if args.json is not None:
        args.json.write_text(json.dumps({"cores": os.cpu_count(), "rows": rows,
                                         "compile_seconds": compile_s}, indent=1))
    return 0 if all(r["ok"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
