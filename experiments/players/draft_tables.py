"""The tables behind docs/findings.md's "Deterministic drafts": how much of a board's
seat spread the deterministic draft makes.

Reads the dataset of ``experiments/players/stochastic_draft.toml`` (the same 2,000
boards and game seeds with starting settlements chosen as scripted, ``baseline``, and
drawn by a softmax at temperature 1 and 3, ``t1`` and ``t3``) and writes::

    python experiments/players/draft_tables.py \\
        results/players-draft/data results/players-draft/tables

The same tables of ``boards_omniscient.toml`` and ``boards_allrounder.toml`` (the board
set played by other players) take ``--prefix omniscient_`` and ``--prefix allrounder_``.

- ``board_variance.csv``: per arm, ``analysis.board_balance.board_variance``: each
  seat's between-board SD of the win rate (bootstrap interval over boards) and the
  typical board's spread (sqrt of the mean unbiased squared distance of its seat rates
  from 1/4, t interval), with the share of boards found unfair.
- ``spread_paired.csv``: per drawn arm against the baseline, the paired difference over
  the same boards of the unbiased squared spread (``rms2``; t interval and p,
  statsmodels), and the two typical spreads.
- ``board_spread.csv``: per arm, the headline figures of ``board_variance.csv`` on one
  row: seat 0's between-board SD with its interval (square roots of the variance's
  bootstrap bounds, 0 below 0), the typical spread and the share of unfair boards.
- ``draft_repeats.csv``: per arm, how often seat 0's first settlement is the board's
  most frequent one for seat 0 (mean over boards with its t interval): 1 when the board
  fixes the draft.
- ``seat0_cost.csv``: what drawing costs one player: seat 0 drawing alone among three
  scripted players (``t1_seat0``, ``t3_seat0``) against seat 0 placing as scripted, on
  the same games (``analysis.paired_differences``: paired t, Holm); only for a dataset
  with those arms.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd
from statsmodels.stats.weightstats import DescrStatsW

from catansim import analysis as A
from catansim import load
from catansim.analysis import board_balance as BB

BASELINE = "baseline"


def main(source: str, out: str, prefix: str = "") -> None:
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)

    def table(name: str) -> Path:
        return folder / f"{prefix}{name}.csv"

    boards = BB.per_board(source)
    variance = BB.board_variance(boards)
    variance.reset_index().to_csv(table("board_variance"), index=False)
    rows = []
    for arm, t in variance.groupby(level="variant", sort=False):
        seat0, spread = t.xs("seat_0", level="measure").iloc[0], t.xs(
            "spread", level="measure").iloc[0]
        rows.append(dict(
            arm=arm, boards=int(spread["boards"]), games_per_board=spread["games_per_board"],
            seat0_rate=seat0["mean"], seat0_between_sd=seat0["between_sd"],
            seat0_sd_low=np.sqrt(max(seat0["between_ci_low"], 0.0)),
            seat0_sd_high=np.sqrt(max(seat0["between_ci_high"], 0.0)),
            spread=spread["mean"], spread_low=spread["ci_low"], spread_high=spread["ci_high"],
            unfair_share=spread["unfair_share"], unfair_low=spread["unfair_ci_low"],
            unfair_high=spread["unfair_ci_high"]))
    pd.DataFrame(rows).to_csv(table("board_spread"), index=False)

    rms2 = boards["rms2"].unstack("variant")
    rows = []
    for arm in [v for v in rms2.columns if v != BASELINE]:
        both = rms2[[BASELINE, arm]].dropna()
        d = DescrStatsW((both[arm] - both[BASELINE]).to_numpy())
        low, high = d.tconfint_mean()
        rows.append(dict(arm=arm, paired_with=BASELINE, boards=len(both),
                         spread_base=np.sqrt(max(both[BASELINE].mean(), 0)),
                         spread=np.sqrt(max(both[arm].mean(), 0)),
                         rms2_base=both[BASELINE].mean(), rms2=both[arm].mean(),
                         diff=d.mean, ci_low=low, ci_high=high, p_value=d.ttest_mean()[1],
                         method="paired t over boards of the unbiased squared spread "
                                "(statsmodels DescrStatsW)"))
    pd.DataFrame(rows).to_csv(table("spread_paired"), index=False)

    games, players = load(source, columns={"games": ["variant", "game", "board_id"],
                                           "players": ["variant", "game", "seat",
                                                       "start_node_1"]})
    first = players[players["seat"] == 0].merge(games, on=["variant", "game"])
    rows = []
    for arm, g in first.groupby("variant", observed=True, sort=False):
        modal = g.groupby("board_id")["start_node_1"].agg(
            lambda s: s.value_counts().iloc[0] / len(s))
        d = DescrStatsW(modal.to_numpy())
        low, high = d.tconfint_mean()
        rows.append(dict(arm=arm, boards=len(modal), share=d.mean, ci_low=low, ci_high=high,
                         method="mean over boards of the modal first settlement's share "
                                "(t interval)"))
    pd.DataFrame(rows).to_csv(table("draft_repeats"), index=False)

    paired = A.paired_differences(source, baseline=BASELINE).reset_index()
    cost = paired[paired["variant"].isin(["t1_seat0", "t3_seat0"])
                  & paired["measure"].isin(["win_seat_0", "turns"])]
    if len(cost):
        cost.to_csv(table("seat0_cost"), index=False)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source", help="the dataset of stochastic_draft.toml")
    parser.add_argument("out", help="the folder for the tables")
    parser.add_argument("--prefix", default="",
                        help="put before each table's name (e.g. 'allrounder_')")
    args = parser.parse_args()
    main(args.source, args.out, args.prefix)
