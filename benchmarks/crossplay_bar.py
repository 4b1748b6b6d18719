"""Check the cross-play bar of issue #4 and print the per-seat evidence.

Usage::

    .venv/bin/python benchmarks/crossplay_bar.py [--games 10000] [--seed 3] [--threads 1]

Plays the cross-play matrix of the archetypes and ``default``
(``catansim.runs.tournament.cross_play``) and prints, for every (strategy, opponent) pair,
the win rate of the strategy against three copies of the opponent in each seat and
pooled, marked ``-`` when the 95% Wilson interval lies wholly below the fair share
(significantly worse) and ``+`` when wholly above. The bar holds when

- every strategy has at least one (opponent, seat) cell marked ``-``, and
- ``default`` has the best mean win rate across its row.
"""

from __future__ import annotations

import argparse

from catansim.runs.tournament import cross_play

NAMES = ("builder", "expander", "city", "army", "trader", "default")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=10_000, help="games per pair")
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--strategies", default=",".join(NAMES))
    a = ap.parse_args(argv)
    names = a.strategies.split(",")
    res = cross_play(names, a.games, 4, seed=a.seed, n_threads=a.threads)
    fair = 1.0 / res.n_players
    t = res.table()

    def cell(r):
        mark = "-" if r.ci_high < fair else ("+" if r.ci_low > fair else " ")
        return f"{r.win_rate:.3f}{mark}"

    t["cell"] = [cell(r) for r in t.itertuples()]
    per_seat = t.pivot_table(index=["strategy", "opponent"], columns="seat", values="cell",
                             aggfunc="first")
    print(f"win rate against 3 copies of the opponent, by seat of the single strategy "
          f"({a.games} games per pair, seed {a.seed}; -/+: 95% Wilson interval wholly "
          f"below/above {fair:.2f})")
    print(per_seat.to_string())

    m = res.matrix()
    means = m.mean(axis=1).sort_values(ascending=False)
    print("\nmean win rate across the row:")
    print(means.round(4).to_string())

    seats = t[t["seat"] != "all"]
    ok = True
    print("\nlowest significantly-below-fair cell of each strategy:")
    for name in names:
        below = seats[(seats["strategy"] == name) & (seats["ci_high"] < fair)]
        if below.empty:
            ok = False
            print(f"  {name}: none")
            continue
        r = below.sort_values("ci_high").iloc[0]
        print(f"  {name}: vs 3 {r.opponent}, seat {r.seat}: {r.wins}/{r.games} = "
              f"{r.win_rate:.4f} (95% CI {r.ci_low:.4f} - {r.ci_high:.4f})")
    if "default" in names:
        best = means.index[0] == "default"
        ok = ok and best
        print(f"\ndefault has the best row mean: {'yes' if best else 'no'}")
    print(f"bar met: {'yes' if ok else 'no'}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
