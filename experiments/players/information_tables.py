"""The tables behind docs/findings.md's "What seeing cards is worth".

Reads the dataset of ``experiments/players/information.toml`` and writes CSV tables
(every rate with its interval and n; differences paired game by game on the same
seeds, Holm-corrected within each comparison)::

    catansim run experiments/players/information.toml
    python experiments/players/information_tables.py \
        results/players-information/data results/players-information/tables

- ``paired_<rules>.csv``: omniscient against public players under the official rules,
  the robber off and the strict shortage rule; every headline measure per game
  (turns, player and maritime trades, Monopoly gains, robber moves, cards stolen,
  shortages, win rate of each seat).
- ``leader_after_turn_40.csv``: the robber headline under each arm: how often the
  player leading alone in visible VP after turn 40 wins (Wilson intervals).
- ``shortage_share.csv``: the share of games with a shortage under each arm (Wilson).
- ``strict_changes.csv``: for each kind of player, the games (same seeds) whose length
  or winner differs between the official and the strict shortage rule (Wilson).
- ``switch_after_40.csv`` (with the dataset of ``switch_information.toml`` as a third
  argument): the robber study's causal headline under each kind of player: games alike
  to turn 40, then the robber off from turn 41 against kept, paired on the same games
  (the turn-40 sole leader's and sole last's wins, the turns after 40).
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import pandas as pd

from catansim import analysis as A
from catansim import load
from catansim.analysis import robber as R
from catansim.analysis.stats import wilson_ci
from catansim.constants import RESOURCE_NAMES

COMPARISONS = {  # table: (arm, the arm it is paired with)
    "official": ("omniscient", "baseline"),
    "robber_off": ("omniscient_robber_off", "robber_off"),
    "strict": ("omniscient_strict", "strict"),
}


def main(source: str, out: str) -> None:
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    for name, (arm, base) in COMPARISONS.items():
        with warnings.catch_warnings():  # power solver: rows without a variance
            warnings.simplefilter("ignore")
            table = A.paired_differences(source, baseline=base)
        table = table.loc[arm].reset_index()
        table.insert(0, "arm", arm)
        table.insert(1, "paired_with", base)
        table.to_csv(folder / f"paired_{name}.csv", index=False)
    catch = R.catch_up(source, checkpoints=(40,)).reset_index()
    catch.to_csv(folder / "leader_after_turn_40.csv", index=False)
    short = [f"shortage_{r}" for r in RESOURCE_NAMES]
    games, _ = load(source, columns={"games": ["variant", *short], "players": []})
    rows = []
    for arm, g in games.groupby("variant", observed=True):
        k, n = int((g[short].sum(axis=1) > 0).sum()), len(g)
        low, high = (float(x[0]) for x in wilson_ci(k, n))
        rows.append(dict(arm=arm, games=n, with_shortage=k, share=k / n, ci_low=low,
                         ci_high=high, method="Wilson score interval"))
    pd.DataFrame(rows).to_csv(folder / "shortage_share.csv", index=False)
    games, _ = load(source, columns={"games": ["variant", "game", "winner", "turns"],
                                     "players": []})
    by_arm = {arm: g.set_index("game") for arm, g in games.groupby("variant", observed=True)}
    rows = []
    for official, strict in (("baseline", "strict"), ("omniscient", "omniscient_strict")):
        a, b = by_arm[official].align(by_arm[strict], join="inner")
        changed = (a["winner"] != b["winner"]) | (a["turns"] != b["turns"])
        k, n = int(changed.sum()), len(changed)
        low, high = (float(x[0]) for x in wilson_ci(k, n))
        rows.append(dict(official=official, strict=strict, games=n, changed=k, share=k / n,
                         winner_changed=int((a["winner"] != b["winner"]).sum()),
                         ci_low=low, ci_high=high, method="Wilson score interval"))
    pd.DataFrame(rows).to_csv(folder / "strict_changes.csv", index=False)


def switch_tables(source: str, out: str) -> None:
    """``switch_after_40.csv`` from the dataset of ``switch_information.toml``."""
    from catansim.analysis import contrasts as C

    plan = C.Plan().add("switch", C.contrasts_analysis(
        [("off_after_40", "baseline"), ("omniscient_off_after_40", "omniscient")],
        R.switch_outcomes(40), name="switch"))
    table = plan.run(source)["switch"].reset_index()
    table.to_csv(Path(out) / "switch_after_40.csv", index=False)


if __name__ == "__main__":
    main(*sys.argv[1:3])
    if len(sys.argv) > 3:
        switch_tables(sys.argv[3], sys.argv[2])
