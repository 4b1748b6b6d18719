"""The tables behind docs/findings.md's "The players": each headline under another kind
of player, on the same deals.

Reads a dataset whose baseline is four ``default`` players and whose variants
``T``, ``T_robber_off`` and ``T_strict`` (``T`` the treatment: ``omniscient`` in
``experiments/players/information.toml``, ``allrounder`` in ``strength.toml``) play the
other players, beside the ``robber_off`` and ``strict`` arms of the baseline players,
and writes CSV tables (every rate with its interval and n; differences paired game by
game on the same seeds, Holm-corrected within each comparison)::

    catansim run experiments/players/information.toml
    python experiments/players/player_tables.py \
        results/players-information/data results/players-information/tables
    python experiments/players/player_tables.py --treatment allrounder \
        results/players-strength/data results/players-strength/tables \
        results/players-strength/switch-data

- ``paired_<rules>.csv``: the treatment's players against the baseline's under the official rules,
  the robber off and the strict shortage rule; every headline measure per game
  (turns, player and maritime trades, Monopoly gains, robber moves, cards stolen,
  shortages, win rate of each seat).
- ``leader_after_turn_40.csv``: the robber headline under each arm: how often the
  player leading alone in visible VP after turn 40 wins (Wilson intervals).
- ``shortage_share.csv``: the share of games with a shortage under each arm (Wilson).
- ``strict_changes.csv``: for each kind of player, the games (same seeds) whose length
  or winner differs between the official and the strict shortage rule (Wilson).
- ``switch_after_40.csv`` (with the dataset of ``switch_information.toml`` or
  ``switch_strength.toml`` as a third argument, alone with ``--switch-only``; arms
  ``off_after_40``, ``T`` and ``T_off_after_40``): the robber study's causal headline
  under each kind of player: games alike to turn 40, then the robber off from turn 41
  against kept, paired on the same games (the turn-40 sole leader's and sole last's
  wins, the turns after 40).
"""

from __future__ import annotations

import argparse
import warnings
from pathlib import Path

import pandas as pd

from catansim import analysis as A
from catansim import load
from catansim.analysis import contrasts as C
from catansim.analysis import robber as R
from catansim.analysis.stats import wilson_ci
from catansim.constants import RESOURCE_NAMES

RULES = {"official": "", "robber_off": "_robber_off", "strict": "_strict"}  # table: suffix


def comparisons(treatment: str) -> dict[str, tuple[str, str]]:
    """Table name: (the treatment's arm, the baseline arm it is paired with)."""
    return {name: (treatment + suffix, suffix[1:] or "baseline")
            for name, suffix in RULES.items()}


def main(source: str, out: str, treatment: str = "omniscient") -> None:
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    for name, (arm, base) in comparisons(treatment).items():
        with warnings.catch_warnings():  # power solver: rows without a variance
            warnings.simplefilter("ignore")
            table = A.paired_differences(source, baseline=base)
        arms = table.index.get_level_values(0).unique()
        if arm not in arms:
            raise SystemExit(f"--treatment: {source} has no variant {arm!r}; allowed: a "
                             f"treatment T with variants T, T_robber_off, T_strict among "
                             f"{', '.join(map(str, arms))}")
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
    for official, strict in (("baseline", "strict"), (treatment, f"{treatment}_strict")):
        a, b = by_arm[official].align(by_arm[strict], join="inner")
        changed = (a["winner"] != b["winner"]) | (a["turns"] != b["turns"])
        k, n = int(changed.sum()), len(changed)
        low, high = (float(x[0]) for x in wilson_ci(k, n))
        rows.append(dict(official=official, strict=strict, games=n, changed=k, share=k / n,
                         winner_changed=int((a["winner"] != b["winner"]).sum()),
                         ci_low=low, ci_high=high, method="Wilson score interval"))
    pd.DataFrame(rows).to_csv(folder / "strict_changes.csv", index=False)


def switch_tables(source: str, out: str, treatment: str = "omniscient") -> None:
    """``switch_after_40.csv`` from a dataset of ``switch_*.toml``."""
    plan = C.Plan().add("switch", C.contrasts_analysis(
        [("off_after_40", "baseline"), (f"{treatment}_off_after_40", treatment)],
        R.switch_outcomes(40), name="switch"))
    table = plan.run(source)["switch"].reset_index()
    table.to_csv(Path(out) / "switch_after_40.csv", index=False)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source", help="the dataset of information.toml or strength.toml")
    parser.add_argument("out", help="the folder for the tables")
    parser.add_argument("switch", nargs="?", help="the dataset of a switch_*.toml")
    parser.add_argument("--treatment", default="omniscient",
                        help="the variant name of the other players (default omniscient)")
    parser.add_argument("--switch-only", action="store_true",
                        help="write only switch_after_40.csv (SOURCE is then not read)")
    args = parser.parse_args()
    if args.switch_only and not args.switch:
        parser.error("--switch-only: needs the switch dataset as the third argument")
    if not args.switch_only:
        main(args.source, args.out, args.treatment)
    if args.switch:
        switch_tables(args.switch, args.out, args.treatment)
