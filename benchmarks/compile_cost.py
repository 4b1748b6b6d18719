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
    python benchmarks/compile_cost.py --processes 2   # the compile as in use, two processes

The columns: CPU and wall seconds of the kernel's own compiles, and its specializations
(compile events: more than one means it was compiled for several signatures). The last
rows are the sum over kernels and the whole process (imports, the games, writing the
cache). With ``--processes 2`` the child is not pinned and starts a timed helper
(``helper_child``): a table of each step of each process (imports, its part, waiting,
the tail), Numba's stages (``_Stages``) and the critical path comes first, then the
kernels of each process. On a shared machine the wall time waits for the CPU; the CPU
time waits less (the load still inflates it by 10-20% on a 2-core VM). The figures are
in docs/benchmarks.md ("What each kernel costs in the cold compile").
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
        self.stages: dict[str, dict] = {}  # per kernel: its own seconds in each stage

    def on_start(self, event):
        func = getattr((event.data or {}).get("dispatcher"), "py_func", None)
        key = f"{func.__module__}.{func.__qualname__}" if func is not None else "?"
        self.stack.append([key, time.process_time(), time.perf_counter(), 0.0, 0.0])

    def on_end(self, event):
        key, cpu0, wall0, inner_cpu, inner_wall = self.stack.pop()
        cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
        row = self.kernels.setdefault(key, {"cpu": 0.0, "wall": 0.0, "compiles": 0,
                                            "done at": time.process_time()})
        row["cpu"] += cpu - inner_cpu
        row["wall"] += wall - inner_wall
        row["compiles"] += 1
        if self.stack:
            self.stack[-1][3] += cpu
            self.stack[-1][4] += wall


class _Stages:
    """CPU seconds of the compiler's stages in this process (``STAGES``), each exclusive
    of the stages nested in it (a callee's compile inside type inference counts in its
    own stages)."""

    def __init__(self, timer: _Timer):
        self.cpu = dict.fromkeys(STAGES, 0.0)
        self.stack = []  # [stage, cpu at start, nested cpu]
        self.timer = timer  # each stage's seconds also go to the kernel being compiled

    def _add(self, stage: str, cpu: float) -> None:
        self.cpu[stage] += cpu
        if self.timer.stack:
            row = self.timer.stages.setdefault(self.timer.stack[-1][0], {})
            row[stage] = row.get(stage, 0.0) + cpu

    def wrap(self, owner, attribute: str, stage: str) -> None:
        original = getattr(owner, attribute)

        def timed(*args, **kwargs):
            self.stack.append([stage, time.process_time(), 0.0])
            try:
                return original(*args, **kwargs)
            finally:
                stage_, cpu0, nested = self.stack.pop()
                spent = time.process_time() - cpu0
                self._add(stage_, spent - nested)
                if self.stack:
                    self.stack[-1][2] += spent

        setattr(owner, attribute, timed)

    def install(self) -> None:
        """Wrap Numba's stages; after ``catansim.core.jit`` (its patches) is imported."""
        from numba.core import caching, codegen, typed_passes, untyped_passes  # noqa: PLC0415

        import catansim.core.jit  # noqa: F401, PLC0415  (the core's patches first)

        self.wrap(untyped_passes.InlineInlinables, "run_pass", "inlining inline_kernels")
        self.wrap(typed_passes.BaseTypeInference, "run_pass", "type inference")
        self.wrap(typed_passes.BaseNativeLowering, "run_pass", "lowering to LLVM IR")
        self.wrap(codegen.CPUCodeLibrary, "_optimize_functions", "LLVM function passes")
        self.wrap(codegen.CPUCodeLibrary, "_optimize_final_module", "LLVM module passes")
        self.wrap(codegen.JITCodeLibrary, "_finalize_specific", "machine code")
        self.wrap(caching.Cache, "save_overload", "cache write")
        self.wrap(caching.Cache, "load_overload", "cache read")


# Numba's stages timed by ``_Stages`` (each exclusive of those nested in it).
STAGES = ("inlining inline_kernels", "type inference", "lowering to LLVM IR",
          "LLVM function passes", "LLVM module passes", "machine code", "cache write", "cache read")


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)  # since the process started
    return usage.ru_utime + usage.ru_stime


def child(processes: int = 1) -> dict:
    """In the fresh process: compile and play two games, timing each kernel's compiles.
    With ``processes`` 1 pinned to one CPU (every kernel here); with 2 as in use (the
    helper process timed the same way, ``helper_child``)."""
    if processes == 1:
        cpus = sorted(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpus[0]})  # one CPU: no helper process, every kernel here
    timer = _Timer()
    event.register("numba:compile", timer)  # before the first kernel module is imported
    stages = _Stages(timer)
    stages.install()
    marks = {}
    if processes == 2:
        marks = _two_process_marks()
    from catansim.engine import batch_seeds, play_batch  # noqa: PLC0415
    from catansim.settings import GameSettings  # noqa: PLC0415

    marks["imported"] = _cpu()
    play_batch(batch_seeds(0, 2), GameSettings(n_players=4))
    out = {"kernels": timer.kernels, "stages": stages.cpu, "kernel stages": timer.stages,
           "cpu": _cpu(),
           "wall": time.perf_counter() - START, "marks": marks}
    if processes == 2:
        out["helper"] = json.loads(Path(os.environ[_HELPER_OUT]).read_text())
    return out


_HELPER_OUT = "CATANSIM_COMPILE_COST_HELPER"  # where the timed helper writes its figures


def _two_process_marks() -> dict:
    """Have the cold compile start a timed helper (``helper_child``) and note this
    process's CPU seconds when its part is done and when the helper is."""
    import numba  # noqa: PLC0415

    from catansim.core import compiling  # noqa: PLC0415

    if compiling.available_cpus() < 2:
        raise SystemExit("compile_cost --processes 2: needs two CPUs")
    marks: dict[str, float] = {}
    start_helper, compile_part, finish = (compiling._start_helper, compiling.compile_part,
                                          compiling._finish_helper)

    def timed_start():
        marks["helper started"] = _cpu()
        argv = [sys.executable, __file__, "--helper-child", str(numba.config.CACHE_DIR)]
        return start_helper(argv)

    def timed_part(part, on_done=None):
        done = compile_part(part, on_done)
        marks["part done"] = _cpu()
        return done

    def timed_finish(helper, reader):
        finish(helper, reader)
        marks["helper done"] = _cpu()

    compiling._start_helper, compiling.compile_part, compiling._finish_helper = (
        timed_start, timed_part, timed_finish)
    return marks


def helper_child(cache: str) -> int:
    """The helper process, timed: its kernels' and stages' CPU seconds to ``_HELPER_OUT``."""
    timer = _Timer()
    event.register("numba:compile", timer)
    stages = _Stages(timer)
    stages.install()
    from catansim.core import compiling  # noqa: PLC0415

    imported = _cpu()
    code = compiling._helper_main(["helper", cache])
    Path(os.environ[_HELPER_OUT]).write_text(json.dumps(
        {"kernels": timer.kernels, "stages": stages.cpu, "kernel stages": timer.stages,
         "cpu": _cpu(), "imported": imported}))
    return code


def measure(cache: str | None = None, processes: int = 1) -> dict:
    """The child's figures, run on an empty kernel cache: ``cache`` (kept) or a temporary
    folder; ``processes`` 1 (pinned to one CPU) or 2 (the cold compile as in use)."""
    if cache is not None and os.path.isdir(cache) and os.listdir(cache):
        raise SystemExit(f"--cache: {cache} is not empty; allowed: an empty or new folder "
                         "(a cold compile)")
    with tempfile.TemporaryDirectory(prefix="catansim-compile-cost-") as scratch:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache or scratch, PYTHONPATH=os.pathsep.join(
            p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p))
        env[_HELPER_OUT] = os.path.join(scratch, "helper.json")
        done = subprocess.run([sys.executable, __file__, "--child", str(processes)], env=env,
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


def processes_table(result: dict) -> str:
    """The Markdown table of the cold compile in two processes: CPU seconds of each step
    of each process, Numba's stages, and the critical path (this process up to the
    helper's start, the longer of its part and the whole helper, then the batch loop)."""
    m, h = result["marks"], result["helper"]
    started, part, done, total = m["helper started"], m["part done"], m["helper done"], \
        result["cpu"]
    critical = started + max(part - started, h["cpu"]) + (total - done)
    lines = ["| step | main process, CPU s | helper process, CPU s |", "|---|---:|---:|",
             f"| imports (the eager `typed_kernel`s compile here) | {m['imported']:.2f} "
             f"| {h['imported']:.2f} |",
             f"| up to the helper's start | {started - m['imported']:.2f} | |",
             f"| its part of the kernels | {part - started:.2f} | {h['cpu'] - h['imported']:.2f} |",
             f"| waiting for the helper | {done - part:.2f} | |",
             f"| the batch loop and two games | {total - done:.2f} | |",
             f"| **the process** | **{total:.2f}** | **{h['cpu']:.2f}** |"]
    for stage in STAGES:
        lines.append(f"| of which Numba's {stage} | {result['stages'].get(stage, 0.0):.2f} "
                     f"| {h['stages'].get(stage, 0.0):.2f} |")
    lines.append(f"| **critical path** (CPU s of the longer branch) | **{critical:.2f}** | |")
    lines.append(f"| wall, main process (on the machine's load) | {result['wall']:.2f} | |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--child", type=int, choices=(1, 2), default=None, help=argparse.SUPPRESS)
    ap.add_argument("--helper-child", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--processes", type=int, choices=(1, 2), default=1,
                    help="1: pinned to one CPU, every kernel in one process (default); 2: "
                         "the cold compile as in use, a helper process taking its part")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    ap.add_argument("--modules", action="store_true",
                    help="a row per module (the kernels' figures summed) and one per kernel")
    ap.add_argument("--from-json", metavar="FILE", default=None,
                    help="print the tables of figures saved with --json; compile nothing")
    ap.add_argument("--cache", metavar="DIR", default=None,
                    help="compile into DIR (empty or new) and keep it, e.g. to run the "
                         "tests on it as NUMBA_CACHE_DIR; default: a temporary folder")
    args = ap.parse_args(argv)
    if args.helper_child is not None:
        return helper_child(args.helper_child)
    if args.child is not None:
        print(json.dumps(child(args.child)))
        return 0
    if args.from_json is not None:
        result = json.loads(Path(args.from_json).read_text())
    else:
        result = measure(args.cache, args.processes)
    if args.json:
        print(json.dumps(result, indent=1))
    elif "helper" in result:
        helper_only = {"kernels": result["helper"]["kernels"], "cpu": result["helper"]["cpu"],
                       "wall": 0.0}
        print(processes_table(result) + "\n\nThe main process:\n\n" + table(result)
              + "\n\nThe helper process:\n\n" + table(helper_only))
    else:
        print((table(result, modules=True) + "\n\n" if args.modules else "") + table(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
