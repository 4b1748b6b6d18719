"""The table behind the label-invariance figures of docs/findings.md.

Reads the dataset of ``experiments/players/labels.toml`` (first_pick 0..3 on the same
deals) and writes ``position_by_first_pick.csv``: for each arm and set-up position k
(the seat that places k-th, (first_pick + k) mod 4), games, wins, the win rate and its
Wilson interval; and ``position_tests.csv``: per position, the chi-square test that the
win rate is the same whichever seat index holds the position (Holm over the four)::

    python experiments/players/label_tables.py \
        results/players-labels/data results/players-labels/tables
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import chi2_contingency

from catansim import load
from catansim.analysis.stats import adjust, wilson_ci

ARMS = {"baseline": 0, "pick_1": 1, "pick_2": 2, "pick_3": 3}  # arm: its first pick


def main(source: str, out: str) -> None:
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    games, _ = load(source, columns={"games": ["variant", "winner"], "players": []})
    rows = []
    for arm, pick in ARMS.items():
        w = games.loc[games["variant"] == arm, "winner"].to_numpy()
        n = len(w)
        wins = np.bincount((w[w >= 0] - pick) % 4, minlength=4)
        low, high = wilson_ci(wins, n)
        for k in range(4):
            rows.append(dict(arm=arm, first_pick=pick, position=k, seat=(pick + k) % 4,
                             games=n, wins=int(wins[k]), win_rate=wins[k] / n,
                             ci_low=low[k], ci_high=high[k], method="Wilson score interval"))
    table = pd.DataFrame(rows)
    table.to_csv(folder / "position_by_first_pick.csv", index=False)
    tests = []
    for k, cell in table.groupby("position"):
        counts = np.stack([cell["wins"], cell["games"] - cell["wins"]], axis=1)
        chi2, p, dof, _ = chi2_contingency(counts)
        tests.append(dict(position=k, chi2=chi2, dof=dof, p_value=p,
                          spread=cell["win_rate"].max() - cell["win_rate"].min()))
    tests = pd.DataFrame(tests)
    tests["p_holm"], tests["significant"] = adjust(tests["p_value"].to_numpy())
    tests.to_csv(folder / "position_tests.csv", index=False)
    print(table.to_string(index=False))
    print(tests.to_string(index=False))


if __name__ == "__main__":
    main(*sys.argv[1:3])
