"""Time every analysis of the report on a dataset, with peak memory; prints Markdown.

    python benchmarks/analysis_bench.py DATASET [--games N] [--each] [--report]

With ``--games N`` and no dataset at DATASET, it is made first with
``catansim run experiments/quickstart.toml --games N --out DATASET`` (1,000,000
games: about 50 s on 2 cores). Each measurement runs in a fresh process so its
peak resident memory (``ru_maxrss``, imports included) is its own:

- ``all``: every analysis of the report in one pass (what ``catansim report`` runs);
- with ``--each``: each analysis alone;
- with ``--report``: ``catansim report`` end to end (figures and HTML included).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def child(what: str, dataset: str) -> None:
    from catansim.analysis.driver import run_many
    from catansim.reports.build import ANALYSIS_NAMES, build_report, report_analyses

    import_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    t = time.perf_counter()
    if what == "report":
        build_report(dataset, Path(dataset) / "report-bench")
    else:
        analyses = report_analyses(dataset)
        if what != "all":
            analyses = [analyses[ANALYSIS_NAMES.index(what)]]
        run_many(analyses, dataset)
    seconds = time.perf_counter() - t
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"what": what, "seconds": seconds, "peak_mib": peak,
                      "import_mib": import_mib}))


def measure(what: str, dataset: str) -> dict:
    out = subprocess.run([sys.executable, __file__, "--child", what, dataset], check=True,
                         capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dataset")
    ap.add_argument("--games", type=int, default=None)
    ap.add_argument("--each", action="store_true")
    ap.add_argument("--report", action="store_true")
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.child:
        child(a.child, a.dataset)
        return
    ds = Path(a.dataset)
    if not (ds / "manifest.json").exists():
        if a.games is None:
            raise SystemExit(f"{ds}: no dataset; give --games N to make one")
        t = time.perf_counter()
        subprocess.run([sys.executable, "-m", "catansim.cli", "run",
                        str(ROOT / "experiments" / "quickstart.toml"), "--games", str(a.games),
                        "--out", str(ds), "--no-summary", "--no-progress"], check=True)
        print(f"made {ds} ({a.games:,} games) in {time.perf_counter() - t:.1f} s",
              file=sys.stderr)
    from catansim.reports.build import ANALYSIS_NAMES

    games = json.loads((ds / "manifest.json").read_text())["games"]
    rows = [measure("all", str(ds))]
    if a.each:
        rows += [measure(name, str(ds)) for name in ANALYSIS_NAMES]
    if a.report:
        rows.append(measure("report", str(ds)))
    print(f"{games:,} games ({ds})\n")
    print("| analysis | seconds | peak RSS (MiB) |")
    print("|---|---:|---:|")
    for r in rows:
        label = {"all": "**all analyses of the report, one pass**",
                 "report": "`catansim report` (analyses, figures, HTML)"}.get(r["what"], r["what"])
        print(f"| {label} | {r['seconds']:.1f} | {r['peak_mib']:.0f} |")
    print(f"\n(peak RSS after the imports alone: {rows[0]['import_mib']:.0f} MiB)")


if __name__ == "__main__":
    main()
