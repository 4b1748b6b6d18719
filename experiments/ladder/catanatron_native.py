"""catanatron's own games, for the bridge's fidelity check (results/ladder/README.md):
one catanatron bot alone against three of another in catanatron's engine and rules, and
the single bot's win rate with its 95% Wilson interval. The same cell played through the
bridge in catansim games is a ladder's (``catansim ladder --field
catanatron:ValueFunctionPlayer,catanatron:WeightedRandomPlayer``).

Needs catanatron with its value-function and alpha-beta players (docs/ladder.md):

    python experiments/ladder/catanatron_native.py ValueFunctionPlayer WeightedRandomPlayer 400 1000

prints one JSON line: the bots, games, wins, the rate and its interval, seconds. catanatron
draws the seats itself (``random.sample`` of the players, seeded by the game's seed).
"""

from __future__ import annotations

import argparse
import importlib
import json
import time

from statsmodels.stats.proportion import proportion_confint

from catansim.players.outside.catanatron import BOT_MODULES


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("single", choices=sorted(BOT_MODULES))
    ap.add_argument("other", choices=sorted(BOT_MODULES))
    ap.add_argument("games", type=int)
    ap.add_argument("first_seed", type=int)
    a = ap.parse_args()
    from catanatron import Color, Game  # noqa: PLC0415  (catanatron: GPL-3, a scratch venv)

    def bot(name, color):
        return getattr(importlib.import_module(BOT_MODULES[name]), name)(color)

    colors = list(Color)
    wins, t = 0, time.time()
    for seed in range(a.first_seed, a.first_seed + a.games):
        players = [bot(a.single, colors[0])] + [bot(a.other, c) for c in colors[1:4]]
        wins += Game(players, seed=seed).play() == colors[0]
    lo, hi = proportion_confint(wins, a.games, method="wilson")
    print(json.dumps({"single": a.single, "other": a.other, "games": a.games, "wins": int(wins),
                      "win_rate": wins / a.games, "ci_low": lo, "ci_high": hi,
                      "seconds": round(time.time() - t, 1)}))


if __name__ == "__main__":
    main()
