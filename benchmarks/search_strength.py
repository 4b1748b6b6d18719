"""The search player's strength and cost at one budget, on held-out deals.

The player (``SearchPlayer``, budget ``--budget``, its rollouts and opponent model played
by the compiled ``--rollout``) alone against ``players - 1`` copies of each opponent, in
every seat in turn (``tuning.heldout.measure_player``), and the compiled ``--baseline``
alone against the same copies on the same deals, so that the gain ``search - baseline``
is paired deal by deal (the mean over a deal's seats, t interval).
Win rates carry 95% Wilson intervals. The cost is the player's own CPU seconds
(``SearchPlayer.seconds``) per game and per decision searched. One process, one
thread: run one at a time on a shared machine::

    python benchmarks/search_strength.py --budget 100 --deals 500 --seed 52000
    python benchmarks/search_strength.py --budget 100 --deals 200 --opponents allrounder \
        --strategy-defs results/tuning/allrounder/allrounder.toml

Each run appends one row per opponent to ``--out`` (CSV; the folder is made).
"""

from __future__ import annotations

import argparse
import csv
import time
from pathlib import Path

from catansim.players.search import SearchPlayer
from catansim.strategies import PRESETS
from catansim.tuning.heldout import measure_player

FIELDS = ("budget", "candidates", "information", "confidence", "vp_weight", "rollout",
          "opponent", "baseline", "deals", "games", "wins", "win_rate", "ci_low", "ci_high",
          "seat_rates", "baseline_rate", "gain", "gain_low", "gain_high", "gain_p", "cpu_per_game",
          "ms_per_decision", "searched_per_game", "rollouts_per_decision", "seed")


def run(budget: int, deals: int, seed: int, opponents, candidates: int, information: str,
        vp_weight: float, confidence: float, strategy_set=PRESETS, rollout: str = "default",
        baseline: str = "default") -> list[dict]:
    player = SearchPlayer(budget=budget, candidates=candidates, model=rollout,
                          rollout=rollout, information=information, vp_weight=vp_weight,
                          confidence=confidence, strategy_set=strategy_set)
    wall = time.perf_counter()
    held = measure_player(player, baseline, list(opponents), deals, seed, n_threads=1,
                          strategy_set=strategy_set)
    wall = time.perf_counter() - wall
    rows = []
    games_played = 4 * deals * len(opponents)
    for o in opponents:
        cell = held.cell(held.tuned, o)
        seats = [held.cell(held.tuned, o, str(k)) for k in range(held.n_players)]
        paired = held.paired.loc[o]
        rows.append(dict(
            budget=budget, candidates=candidates, information=information,
            confidence=confidence, vp_weight=vp_weight, rollout=rollout, opponent=o,
            baseline=baseline,
            deals=deals, games=int(cell["games"]), wins=int(cell["wins"]),
            win_rate=round(float(cell["win_rate"]), 4), ci_low=round(float(cell["ci_low"]), 4),
            ci_high=round(float(cell["ci_high"]), 4),
            seat_rates=" ".join(f"{float(s['win_rate']):.3f}" for s in seats),
            baseline_rate=round(float(paired["start"]), 4), gain=round(float(paired["diff"]), 4),
            gain_low=round(float(paired["ci_low"]), 4),
            gain_high=round(float(paired["ci_high"]), 4),
            gain_p=float(f"{float(paired['p_value']):.3g}"),
            cpu_per_game=round(player.seconds / games_played, 3),
            ms_per_decision=round(1000 * player.seconds / max(player.decisions_searched, 1), 2),
            searched_per_game=round(player.decisions_searched / games_played, 1),
            rollouts_per_decision=round(player.rollouts_played
                                        / max(player.decisions_searched, 1), 1),
            seed=seed))
    print(f"# {games_played} games in {wall:.0f} s wall")
    return rows


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--budget", type=int, default=100)
    ap.add_argument("--deals", type=int, default=500, help="deals; 4 games each (seats)")
    ap.add_argument("--seed", type=int, default=52_000, help="held-out deals' seed")
    ap.add_argument("--opponents", default="default")
    ap.add_argument("--rollout", default="default",
                    help="the compiled strategy of the rollouts and of the opponent model")
    ap.add_argument("--baseline", default="default",
                    help="the compiled strategy the gain is paired against, in the same seat")
    ap.add_argument("--candidates", type=int, default=8)
    ap.add_argument("--information", default="public", choices=("public", "omniscient"))
    ap.add_argument("--vp-weight", type=float, default=0.2)
    ap.add_argument("--confidence", type=float, default=1.0)
    ap.add_argument("--strategy-defs", default=None,
                    help="a TOML file of [strategies.NAME] tables (an opponent of your own, "
                         "e.g. results/tuning/allrounder/allrounder.toml)")
    ap.add_argument("--out", default="results/search-player/strength.csv")
    args = ap.parse_args(argv)
    strategy_set = (PRESETS.with_definitions(args.strategy_defs) if args.strategy_defs
                    else PRESETS)
    rows = run(args.budget, args.deals, args.seed, args.opponents.split(","), args.candidates,
               args.information, args.vp_weight, args.confidence, strategy_set, args.rollout,
               args.baseline)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    new = not out.exists()
    with out.open("a", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        if new:
            w.writeheader()
        w.writerows(rows)
    for r in rows:
        print(", ".join(f"{k}={r[k]}" for k in FIELDS))


if __name__ == "__main__":
    main()
