"""Machine instructions per game, counted by valgrind's callgrind: a speed measure
that does not depend on the machine's load.

Games per second move by about 10% from run to run on a shared 2-core VM, so a
kernel change worth 5% cannot be told apart by timing it. The number of instructions
executed for a fixed set of seeds is the same on every run of the same code, within
0.01% (callgrind counts them as they execute; no hardware counter is needed), so
two versions of the core compare exactly, on the same games::

    python benchmarks/instructions.py                      # 200 games, four default
    python benchmarks/instructions.py --games 500 --strategy trader
    python benchmarks/instructions.py --by-kernel          # and where they go
    python benchmarks/instructions.py --branches           # mispredicted branches too

The engine counted is the catansim of the checkout this script is in, whatever the
working folder (so a second checkout's script counts that checkout), and the line
printed names its fingerprint and folder. Only the games are counted: the child
process loads the kernels, then turns callgrind's counting on with
``callgrind_control`` just for one ``play_batch`` on one thread. Under valgrind the
child takes about 10 s to start and plays about 200 games a second.

**The CPU valgrind shows.** Valgrind's simulated CPU reports fewer features than the
host's (on the project's VM: ``haswell`` under valgrind, ``znver3`` outside), and
Numba's cache keys machine code by the CPU it was made for, so a child under valgrind
finds no cached kernel and would compile all of them there, 20-50 times slower than
natively. So the script first asks a small process under valgrind which CPU it sees
(``NUMBA_CPU_NAME``, ``NUMBA_CPU_FEATURES``), has a native process compile and cache
the kernels for that CPU, and gives the counted child the same two settings: it loads
what the native process cached and runs the machine code it would have compiled
itself. ``--by-kernel``
compiles the kernels afresh in the child (about 3 minutes under valgrind; kernels
loaded from the cache have no symbol table), writes their addresses as
``perf_profile.write_perf_map`` does, and splits the count by compiled function (an
``inline_kernel`` counts as its caller).

Instructions are not seconds: fewer instructions that miss the cache more can be
slower, and a ``rep stos`` (libc's memset of a large array) counts one instruction
per byte. Keep a step when both this count and paired games per second agree.

``--branches`` also runs callgrind's branch simulator (``--branch-sim=yes``) and counts
the conditional and indirect branches it mispredicts, per game (and per compiled
function with ``--by-kernel``). Its predictor is simpler than a CPU's, so the count is
an upper bound that ranks the functions; since issue #15's tenth round the tests of the
board's state in the decision loops, which no predictor learns across games, cost more
of a game's time than its instructions (``docs/benchmarks.md``).

Needs Debian's ``valgrind`` package (``valgrind``, ``callgrind_control``,
``callgrind_annotate``).
"""

from __future__ import annotations

import argparse
import bisect
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile

_CHILD = """
import os, subprocess, sys
sys.path[:0] = [{root!r}, {here!r}]  # the catansim beside this script, whatever the cwd
import catansim
from catansim.core import engine_fingerprint
from catansim.engine import batch_seeds, play_batch
from catansim.settings import GameSettings
print("engine", engine_fingerprint(), os.path.dirname(catansim.__file__), flush=True)
settings = GameSettings(n_players=4, strategies=({strategy!r},))
play_batch(batch_seeds(1, 2), settings, n_threads=1)  # load or compile the kernels
if {symbols!r}:
    import perf_profile
    perf_profile.write_perf_map({symbols!r})
seeds = batch_seeds({seed}, {games})
subprocess.run(["callgrind_control", "-i", "on", str(os.getpid())], check=True,
               capture_output=True)
play_batch(seeds, settings, n_threads=1)
subprocess.run(["callgrind_control", "-i", "off", str(os.getpid())], check=True,
               capture_output=True)
"""

_TOOLS = ("valgrind", "callgrind_control", "callgrind_annotate")

# What a process under valgrind sees of its CPU, as Numba's settings name it.
_PROBE = """
import llvmlite.binding as ll
print(ll.get_host_cpu_name())
print(ll.get_host_cpu_features().flatten())
"""

# A native process that compiles (or loads) the kernels for the CPU of its environment.
_WARM = """
import sys
sys.path[:0] = [{root!r}]
from catansim.engine import batch_seeds, play_batch
from catansim.settings import GameSettings
play_batch(batch_seeds(1, 2), GameSettings(n_players=4, strategies=({strategy!r},)),
           n_threads=1)
"""


def valgrind_cpu() -> dict[str, str]:
    """``NUMBA_CPU_NAME`` and ``NUMBA_CPU_FEATURES`` of the CPU valgrind simulates."""
    r = subprocess.run(["valgrind", "--tool=none", "-q", sys.executable, "-c", _PROBE],
                       capture_output=True, text=True)
    lines = [ln for ln in r.stdout.splitlines() if ln.strip()]
    if r.returncode != 0 or len(lines) != 2:
        raise SystemExit("valgrind could not report its CPU: "
                         + ((r.stderr.strip().splitlines() or ["no output"])[-1]))
    return {"NUMBA_CPU_NAME": lines[0], "NUMBA_CPU_FEATURES": lines[1]}


def warm_cache(env: dict, root: str, strategy: str) -> None:
    """Compile the kernels natively for the CPU ``env`` names, into this engine's cache."""
    r = subprocess.run([sys.executable, "-c", _WARM.format(root=root, strategy=strategy)],
                       env=env, capture_output=True, text=True)
    if r.returncode != 0:
        tail = (r.stderr.strip().splitlines() or ["no output"])[-1]
        raise SystemExit(f"compiling the kernels for valgrind's CPU failed: {tail}")


def _count(games: int, strategy: str, seed: int, folder: str,
           symbols: str = "", branches: bool = False) -> tuple[str, str]:
    """Run the child under callgrind; return the path of its profile and the engine it
    counted (fingerprint and folder)."""
    for tool in _TOOLS:
        if shutil.which(tool) is None:
            raise SystemExit(f"{tool}: not found; install Debian's valgrind package")
    out = os.path.join(folder, "callgrind.out")
    here = os.path.dirname(os.path.abspath(__file__))
    code = _CHILD.format(root=os.path.dirname(here), here=here, strategy=strategy,
                         seed=seed, games=games, symbols=symbols)
    env = dict(os.environ, NUMBA_NUM_THREADS="1")
    if symbols:
        env["NUMBA_CACHE_DIR"] = os.path.join(folder, "numba-cache")  # compile afresh
    else:  # load natively compiled kernels for the CPU valgrind shows
        env.update(valgrind_cpu())
        warm_cache(env, os.path.dirname(here), strategy)
    sim = ["--branch-sim=yes"] if branches else []
    r = subprocess.run(["valgrind", "--tool=callgrind", "--instr-atstart=no", *sim,
                        f"--callgrind-out-file={out}", sys.executable, "-c", code],
                       env=env, capture_output=True, text=True)
    if r.returncode != 0:
        own = [ln for ln in r.stderr.splitlines() if ln.strip() and not ln.startswith("==")]
        tail = (own or ["no output"])[-1]  # the child's own last line, not valgrind's
        raise SystemExit(f"the game process under valgrind failed: {tail}")
    engines = [ln.split(" ", 1)[1] for ln in r.stdout.splitlines() if ln.startswith("engine ")]
    if not engines:
        raise SystemExit("the game process under valgrind did not name its engine")
    return out, engines[0]


def _annotated(profile: str, event: str = "Ir") -> list[tuple[int, str]]:
    """(count of ``event``, function) of every function in callgrind's profile; the
    first row is the total. Events: ``Ir`` instructions; with the branch simulator also
    ``Bcm`` and ``Bim``, mispredicted conditional and indirect branches."""
    text = subprocess.run(["callgrind_annotate", "--threshold=100", f"--show={event}",
                           f"--sort={event}", profile],
                          capture_output=True, text=True, check=True).stdout
    rows = []
    for line in text.splitlines():
        m = re.match(r"\s*([\d,]+) \(\s*[\d.]+%\)\s+(.*)", line)
        if m:
            rows.append((int(m.group(1).replace(",", "")), m.group(2)))
    if not rows or "PROGRAM TOTALS" not in rows[0][1]:
        raise SystemExit(f"{profile}: callgrind_annotate printed no program total")
    return rows


def _kernel_name(symbol: str) -> str:
    """``module.function`` of a Numba symbol (``_ZN8catansim4core9policy_nb16choose_...``),
    the module's subpackage included (``scripted.placement_nb.locate_nb``)."""
    parts, i = [], 3
    while i < len(symbol) and symbol[i].isdigit():
        j = i
        while symbol[j].isdigit():
            j += 1
        size = int(symbol[i:j])
        parts.append(symbol[j:j + size])
        i = j + size
    if parts[:2] == ["catansim", "core"] and len(parts) >= 4:
        return ".".join(parts[2:])  # the module (in its subpackage) and the function
    return symbol[:60]


def by_kernel(profile: str, symbol_map: str, event: str = "Ir") -> list[tuple[int, str]]:
    """The profile's ``event`` (instructions by default) summed per compiled function,
    largest first."""
    spans = []
    with open(symbol_map) as fh:
        for line in fh:
            address, size, name = line.rstrip("\n").split(" ", 2)
            spans.append((int(address, 16), int(size, 16), _kernel_name(name)))
    spans.sort()
    starts = [a for a, _, _ in spans]
    totals = collections.Counter()
    for ir, where in _annotated(profile, event)[1:]:
        found = re.search(r"\?\?\?:0x([0-9a-f]+)", where)
        if found is None:  # a symbol valgrind knows: libc, CPython
            totals[re.sub(r"\s*\[.*$", "", where).rsplit(":", 1)[-1]] += ir
            continue
        address = int(found.group(1), 16)
        k = bisect.bisect_right(starts, address) - 1
        inside = k >= 0 and address < spans[k][0] + spans[k][1]
        totals[spans[k][2] if inside else "(unmapped machine code)"] += ir
    return sorted(((v, k) for k, v in totals.items()), reverse=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200, help="games to count (>= 1)")
    parser.add_argument("--strategy", default="default", help="the four players' strategy")
    parser.add_argument("--seed", type=int, default=777, help="base seed of the games")
    parser.add_argument("--by-kernel", action="store_true",
                        help="compile afresh and split the count by compiled function")
    parser.add_argument("--branches", action="store_true",
                        help="also count mispredicted branches (callgrind's branch simulator)")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error(f"--games: {args.games}; allowed: an integer >= 1")
    with tempfile.TemporaryDirectory(prefix="catansim-callgrind-") as folder:
        symbols = os.path.join(folder, "symbols.map") if args.by_kernel else ""
        profile, engine = _count(args.games, args.strategy, args.seed, folder, symbols,
                                 args.branches)
        total = _annotated(profile)[0][0]
        print(f"{total:,} instructions for {args.games} games of four {args.strategy} "
              f"players: {total / args.games:,.0f} per game (engine {engine})")
        if args.branches:
            missed = _annotated(profile, "Bcm")[0][0]
            missed_indirect = _annotated(profile, "Bim")[0][0]
            print(f"{(missed + missed_indirect) / args.games:,.0f} mispredicted branches per "
                  f"game in callgrind's simulation ({missed / args.games:,.0f} conditional, "
                  f"{missed_indirect / args.games:,.0f} indirect)")
        events = [("Ir", "instructions", total)]
        if args.branches:
            events.append(("Bcm", "mispredicted conditional branches", missed))
        for event, label, whole in events if args.by_kernel else ():
            print(f"\n| function | {label} per game | share |\n|---|---:|---:|")
            for count, name in by_kernel(profile, symbols, event):
                if count >= whole / 1000:
                    print(f"| `{name}` | {count / args.games:,.0f} | "
                          f"{100 * count / whole:.1f}% |")


if __name__ == "__main__":
    main()
