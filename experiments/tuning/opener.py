"""The placement variant that searches: ``RolloutOpener`` (``catansim.players.search``) chooses
its first settlement by rollouts and plays ``classic`` otherwise (the row its published
figures were measured with; docs/strategies.md, Presets). This script chooses
its two knobs on training deals, then measures the choice on held-out deals, as
``catansim tune`` measures a tuned row (docs/tuning.md)::

    python experiments/tuning/opener.py results/tuning/opener

1. Sweep (training deals, base seed 74): each setting of (candidates, rollouts) in
   ``SETTINGS`` alone against three ``classic``, every seat, paired deal by deal with
   ``classic`` alone on the same deals; the setting of highest mean difference is kept.
2. Held out (base seed 7373, the placer's held-out deals): the kept setting, alone
   against three ``classic``, paired with ``classic`` alone; the difference as a share
   of the openings study's gap (``GAP``, mean of its four seats on variable boards).

Each stage's result is written (atomically) to ``<out>/stages.json`` as it ends, and a
rerun skips the stages already there; ``summary.json`` and ``tables/`` come last.
``--deals`` and ``--sweep-deals`` scale it down (the notebook and CI use a few deals).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import pandas as pd

from catansim.errors import CatansimError
from catansim.files import atomic_write_text
from catansim.players.search import RolloutOpener
from catansim.tuning.heldout import measure_player, win_interval

SETTINGS = ((6, 80), (12, 160), (24, 160))  # (candidates, rollouts)
SWEEP_SEED, HELDOUT_SEED = 74, 7373
START = "classic"  # the opener's own play, its rollouts' model and its opponents
GAP = 7.75  # points: the openings study's data-driven first settlement, variable boards


def _row(h, seconds: float) -> dict:
    r = h.paired.loc[START]
    return dict(deals=int(r["deals"]), games=int(r["games"]), win_rate=float(r["tuned"]),
                start_rate=float(r["start"]), diff=float(r["diff"]),
                ci_low=float(r["ci_low"]), ci_high=float(r["ci_high"]),
                p_value=float(r["p_value"]), seconds=round(seconds, 1))


def _opener(candidates: int, rollouts: int) -> RolloutOpener:
    return RolloutOpener(candidates=candidates, rollouts=rollouts, model=START,
                         base_strategy=START)


def _stage(out: Path, stages: dict, key: str, work) -> dict:
    if key not in stages:
        t0 = time.perf_counter()
        h = work()
        stages[key] = _row(h, time.perf_counter() - t0)
        if key.startswith("heldout"):
            cells = h.table.reset_index()
            stages[key]["cells"] = json.loads(cells.to_json(orient="records"))
        atomic_write_text(out / "stages.json", json.dumps(stages, indent=1))
    return stages[key]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path, help="folder for stages.json, summary.json, tables/")
    ap.add_argument("--deals", type=int, default=2500, help="held-out deals (x4 games)")
    ap.add_argument("--sweep-deals", type=int, default=300, help="training deals a setting")
    args = ap.parse_args(argv)
    for name in ("deals", "sweep_deals"):
        if getattr(args, name) < 1:
            raise CatansimError(f"--{name.replace('_', '-')}: {getattr(args, name)}; "
                                "allowed: an integer of at least 1")
    out = args.out
    try:
        (out / "tables").mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise CatansimError(f"{out}: cannot make the folder ({e.strerror}); allowed: a "
                            "writable folder") from None
    path = out / "stages.json"
    stages = json.loads(path.read_text()) if path.exists() else {}
    sweep = {}
    for k, r in SETTINGS:
        key = f"sweep_{k}x{r}_{args.sweep_deals}"
        sweep[(k, r)] = _stage(out, stages, key, lambda k=k, r=r: measure_player(
            _opener(k, r), START, [START], args.sweep_deals, SWEEP_SEED))
        print(f"sweep {k} x {r}: {sweep[(k, r)]['diff'] * 100:+.2f} points", flush=True)
    k, r = max(sweep, key=lambda x: sweep[x]["diff"])
    held = _stage(out, stages, f"heldout_{k}x{r}_{args.deals}", lambda: measure_player(
        _opener(k, r), START, [START], args.deals, HELDOUT_SEED))
    rows = [dict(stage="sweep", candidates=c, rollouts=n, **{x: v for x, v in s.items()})
            for (c, n), s in sweep.items()]
    rows.append(dict(stage="heldout", candidates=k, rollouts=r,
                     **{x: v for x, v in held.items() if x != "cells"}))
    atomic_write_text(out / "tables" / "opener.csv", pd.DataFrame(rows).to_csv(index=False))
    cells = pd.DataFrame(held["cells"])  # the held-out games by seat (Wilson, exact test)
    atomic_write_text(out / "tables" / "heldout_cells.csv", cells.to_csv(index=False))
    held = {x: v for x, v in held.items() if x != "cells"}
    wins = round(held["win_rate"] * held["games"])
    rate, lo, hi = win_interval(wins, held["games"])
    summary = dict(name="opener", start=START, candidates=k, rollouts=r, gap_points=GAP,
                   heldout_vs_copies={START: dict(games=held["games"], wins=wins,
                                                  win_rate=rate, ci_low=lo, ci_high=hi)},
                   gap_share=held["diff"] * 100 / GAP,  # 1.0: the whole gap
                   gap_share_ci=[held["ci_low"] * 100 / GAP, held["ci_high"] * 100 / GAP],
                   heldout=held, sweep={f"{c}x{n}": s for (c, n), s in sweep.items()},
                   sweep_seed=SWEEP_SEED, heldout_seed=HELDOUT_SEED)
    atomic_write_text(out / "summary.json", json.dumps(summary, indent=1))
    print(f"held out {k} x {r}: {held['diff'] * 100:+.2f} [{held['ci_low'] * 100:+.2f}, "
          f"{held['ci_high'] * 100:+.2f}] points, {summary['gap_share']:.0%} of the gap")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except CatansimError as e:
        sys.exit(f"opener: error: {e}")
