"""The search player's column of the studies' headlines (issue #54, item 2).

The experiment files beside this script play the headlines' designs with the search
player in every seat, at budget 50 (``search:50``: 50 rollouts a decision, the
ladder's second budget, results/ladder), on the studies' own seeds:

- ``order-4p-search50.toml``: the seat decomposition (``first_pick`` x ``first_turn``,
  16 arms on the same deals), the first 1,500 deals of the study's ``order-4p``;
- ``official-search50.toml``: the official game and the strict shortage rule, the
  first 10,000 deals of the robber study's ``switch`` (its arm ``off_after_40`` was
  played while the search player's rollouts still saw the pending switch, so it is
  not read);
- ``switch-search50.toml``: the robber off from turn 41 (the robber study's switch)
  on the same deals; its kept arm is ``official-search50``'s baseline, the same games
  up to the end of turn 40, which ``switch`` checks game by game;
- ``beginner4-chooser.toml``: on the beginner map, seat 0's first settlement chosen by
  rollouts (``RolloutOpener``), the rest played by ``default``, beside the openings
  study's best node and ``default``'s own choice on the study's 4,000 games.

Each is a resumable run (about 0.9 CPU-seconds a game at ``search:50``; the chooser 0.3
for its own arm), locally or on Dask::

    catansim run experiments/strength/order-4p-search50.toml --out DATA/order-4p-search50
    catansim run experiments/strength/official-search50.toml --out DATA/official-search50
    catansim run experiments/strength/switch-search50.toml --out DATA/switch-search50
    catansim run experiments/strength/beginner4-chooser.toml --out DATA/beginner4-chooser
    python experiments/strength/strength.py DATA            # prints the headlines
    python experiments/strength/strength.py DATA --write    # and writes them
    python experiments/strength/strength.py DATA --paired-with STUDY/data/order-4p

Every figure is computed by the analysis the study itself uses for that headline (named
below), from the runs that are complete; of the others it prints the parts done.
``--write`` writes each study's headlines into ``catansim/studies/search/<study>.csv``
(the search column of its table of headlines) and every table they are read from into
``results/strength/tables/`` (under the study's own table names), so that each figure
quoted from these runs stands in a committed table.

``--paired-with`` names the seats-and-boards study's own ``order-4p`` dataset (the
same seed, played by ``default``; ``catansim study seats-and-boards`` writes it to
``OUT/data/order-4p``): the seat decomposition's contrasts are then also compared deal
by deal, the search player's less the scripted one's on the deals both played
(``paired_seat_order``; with ``--write``, ``results/strength/tables/order_paired_4p.csv``).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from catansim.analysis import contrasts as C
from catansim.analysis import robber as R
from catansim.analysis import seat_order as SO
from catansim.analysis import shortages as SH
from catansim.analysis import stats as ST
from catansim.constants import RESOURCE_NAMES
from catansim.errors import CatansimError
from catansim.files import atomic_write_text
from catansim.results import dataset as D
from catansim.studies import _headlines as H
from catansim.studies.seats_and_boards import EQUIVALENCE_MARGIN

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
RESULTS = ROOT / "results" / "strength" / "tables"  # every table the headlines are read from
PLAYERS = "search:50"
ORDER, OFFICIAL, CHOOSER = "order-4p-search50", "official-search50", "beginner4-chooser"
SWITCH, SWITCH_TURN = "switch-search50", 40
# the players each study's search headlines were measured with
WHO = {"seats-and-boards": f"{PLAYERS} in every seat", "robber": f"{PLAYERS} in every seat",
       "shortages": f"{PLAYERS} in every seat",
       "openings": "seat 0's first settlement by RolloutOpener (24 nodes x 160 rollouts), "
                   "default otherwise"}
# the runs each study's search headlines are read from
RUNS_OF = {"seats-and-boards": (ORDER,), "robber": (OFFICIAL, SWITCH), "shortages": (OFFICIAL,),
           "openings": (CHOOSER,)}
# the openings study's best first settlement of seat 0 (results/openings/tables/
# beginner4_seat_best.csv), forced in beginner4-chooser.toml's arm node28
BEST_NODE = 28


def seats_and_boards(data: Path) -> dict[str, pd.DataFrame]:
    """The study's ``order_contrasts_4p`` (``seat_order.factor_effects``, its margin), and
    seat 0's win rate in the standard game (the arm ``baseline``: first pick and first
    move both seat 0) as the row of ``seats_4p`` its headline reads."""
    path = data / ORDER
    fx = SO.factor_effects(path, margin=EQUIVALENCE_MARGIN)
    contrasts = fx["contrasts"].reset_index()
    won = C.arm_summary(path, [C.seat_win(s) for s in range(4)], variants=["baseline"])
    rows = won.reset_index().set_index("outcome").loc[[f"win_seat_{s}" for s in range(4)]]
    seats = pd.DataFrame({
        "variant": "default",  # the row the headline names: one player in every seat
        "players": f"{PLAYERS} in every seat", "seat": range(4),
        "win_rate": rows["mean"].to_numpy(),
        "ci_low": rows["ci_low"].to_numpy(), "ci_high": rows["ci_high"].to_numpy(),
        "seat_games": rows["n"].to_numpy()})
    return {"order_contrasts_4p": contrasts, "seats_4p": seats,
            "order_effects_4p": fx["effects"].reset_index(),
            "order_tests_4p": fx["tests"].reset_index(),
            "seat_equivalence_4p": fx["equivalence"].reset_index()}


def paired_seat_order(data: Path, scripted: Path) -> pd.DataFrame:
    """The seat decomposition's four contrasts (first pick, first move, last pick, seat
    index) of ``order-4p-search50`` less those of ``scripted`` (a dataset of the same
    design and seed with other players), deal by deal on the deals both played: the
    study's own ``factor_tables`` on the per-deal difference of the two cell vectors, so
    each row is a paired t interval over deals."""
    search = data / ORDER
    mine, them = D.read_manifest(search), D.read_manifest(scripted)
    orders = SO.arm_orders(mine)
    key = ("base_seed", "players")
    if SO.arm_orders(them) != orders or any(them[k] != mine[k] for k in key) \
            or them["result_key"].get("layout") != mine["result_key"].get("layout"):
        raise CatansimError(f"paired-with: {scripted} is not the seat decomposition of "
                            f"{search.name} (its arms, seed, layout or players differ); "
                            "allowed: the order-4p dataset of catansim study seats-and-boards")
    if not complete(scripted):
        done, planned = parts_done(scripted)
        raise CatansimError(f"paired-with: {scripted} holds {done} of its {planned} parts; "
                            "allowed: a complete dataset (rerun its command to finish it)")
    n = int(mine["players"])
    deals = min(int(mine["games"]), int(them["games"]))
    cells = []
    for path in (search, scripted):
        p = pd.read_parquet(path / "players", columns=["game", "variant", "seat", "won"],
                            filters=[("game", "<", deals)])
        won = {str(v): g.pivot(index="game", columns="seat", values="won")
               .reindex(range(deals)).to_numpy(dtype=np.int64)
               for v, g in p.groupby("variant", observed=True)}
        cells.append(SO.factor_cells(won, orders, n).reshape(deals, n ** 3))
    m = SO.moments_of(cells[0] - cells[1])
    out = SO.factor_tables(m, n, EQUIVALENCE_MARGIN)["contrasts"].iloc[:4].reset_index()
    out["contrast"] = out["contrast"] + f" ({PLAYERS} minus {_players_of(scripted)})"
    out["p_adjusted"], out["significant"] = ST.adjust(out["p_value"], "holm")
    out["method"] = ("paired over deals: " + out["method"]
                     + " of the per-deal difference of the two runs' cells; Holm over the "
                     f"{len(out)} rows")
    return out


def _players_of(path: Path) -> str:
    """The strategies a dataset's seats played, as one name (``default``) or a list."""
    names = sorted(pd.read_parquet(path / "players", columns=["strategy"])["strategy"]
                   .astype(str).unique())
    return names[0] if len(names) == 1 else "/".join(names)


def official(data: Path) -> dict[str, dict[str, pd.DataFrame]]:
    """The shortage study's ``rule19_arms``, ``rule19_shares`` and ``rule19_differ`` rows
    (arm ``strict`` against ``baseline`` of ``official-search50``), and the robber study's
    ``policy_shares`` of the official games (how often the robber robs the sole leader)."""
    outcomes = SH.shortage_outcomes(4)
    plan = (C.Plan()
            .add("arms", C.arms_analysis(outcomes))
            .add("shares", C.shares_analysis(SH.SHORTAGE_SHARES))
            .add("differ", C.differences_analysis([("strict", "baseline")],
                                                  SH.DIFFER_FACETS))
            .add("robber", C.shares_analysis(R.ROBBER_SHARES)))
    r = plan.run(data / OFFICIAL, variants=["baseline", "strict"])
    robber = r["robber"].reset_index()
    return {"robber": {"policy_shares": robber[robber["variant"] == "baseline"]},
            "shortages": {"rule19_arms": r["arms"].reset_index(),
                          "rule19_shares": r["shares"].reset_index(),
                          "rule19_differ": r["differ"].reset_index(),
                          "strict_winner_by_shortage": strict_winner_by_shortage(data)}}


def strict_winner_by_shortage(data: Path) -> pd.DataFrame:
    """The games the strict rule gives another winner, by what the official game's supply
    did: no short roll; short rolls, none with one player alone owed; a short roll with
    one player alone owed (the only rolls the two rules pay differently). A player that
    looks ahead meets the rule in its rollouts too, so it can change a game whose supply
    never ran short. Wilson intervals."""
    cols = ["game", "variant", "winner"] + [f"{k}_{r}" for k in ("shortage", "sole_recipient")
                                            for r in RESOURCE_NAMES]
    g = pd.read_parquet(data / OFFICIAL / "games", columns=cols,
                        filters=[("variant", "in", ["baseline", "strict"])])
    base = g[g["variant"] == "baseline"].set_index("game").sort_index()
    strict = g[g["variant"] == "strict"].set_index("game").sort_index()
    short = base[[f"shortage_{r}" for r in RESOURCE_NAMES]].sum(axis=1) > 0
    sole = base[[f"sole_recipient_{r}" for r in RESOURCE_NAMES]].sum(axis=1) > 0
    other = strict["winner"].reindex(base.index) != base["winner"]
    groups = {"no short roll in the official game": ~short,
              "short rolls, none with one player alone owed": short & ~sole,
              "a short roll with one player alone owed": sole}
    frame = pd.DataFrame([{"official_game": name, "n": int(m.sum()),
                           "other_winner": int((other & m).sum())}
                          for name, m in groups.items()])
    return ST.rate_table(frame, "other_winner", rate="share")


def switch(data: Path) -> dict[str, pd.DataFrame]:
    """The robber study's ``switch_effects`` rows at turn 40 (``robber.switch_outcomes``,
    arm ``off_after_40`` against ``baseline``): the kept arm is ``official-search50``'s
    baseline, the switched arm ``switch-search50``'s games, joined in memory after
    checking that the two runs are one design (seed, deals, players, board layout, the
    rules before the switch) and that every game is the same up to the end of the
    switch turn (each seat's victory points at every checkpoint to it)."""
    kept_path, off_path = data / OFFICIAL, data / SWITCH
    kept, off = D.read_manifest(kept_path), D.read_manifest(off_path)
    k_key, o_key = kept["result_key"], off["result_key"]
    kb, ob = k_key["variants"]["baseline"], o_key["variants"]["baseline"]
    same = ("players", "seed", "layout", "board", "rotate", "batch_size")
    want = dict(kb["rules"], switch_turn=SWITCH_TURN,
                rules_after=dict(kb["rules"], robber="off"))
    if any(k_key.get(f) != o_key.get(f) for f in same) or kept["games"] != off["games"] \
            or ob["rules"] != want or any(ob.get(f) != kb.get(f) for f in (
                "strategies", "strategy_params", "openings")):
        raise CatansimError(f"{off_path}: not {kept_path.name}'s baseline with the robber "
                            f"off from turn {SWITCH_TURN + 1} (its seed, deals, players, "
                            "layout or rules differ); allowed: the run of "
                            f"experiments/strength/{SWITCH}.toml")
    checkpoints = [c for c in R.CHECKPOINTS if c <= SWITCH_TURN]
    frames = []
    for path, arm in ((kept_path, "baseline"), (off_path, "off_after_40")):
        games = pd.read_parquet(path / "games", filters=[("variant", "==", "baseline")])
        players = pd.read_parquet(path / "players", filters=[("variant", "==", "baseline")])
        for f in (games, players):
            f["variant"] = arm
        frames.append((games, players))
    cols = ["game", "seat"] + [f"vp_turn_{c}" for c in checkpoints]
    before = [p[cols].sort_values(["game", "seat"]).reset_index(drop=True)
              for _, p in frames]
    if not before[0].equals(before[1]):
        bad = (before[0] != before[1]).any(axis=1)
        n_bad = before[0].loc[bad, "game"].nunique()
        raise CatansimError(f"{off_path}: {n_bad} games differ from {kept_path.name}'s "
                            f"baseline before the end of turn {SWITCH_TURN}; allowed: the "
                            "same games up to the switch (players not told of it)")
    games = pd.concat([g for g, _ in frames], ignore_index=True)
    players = pd.concat([p for _, p in frames], ignore_index=True)
    effects = C.Plan().add("switch", C.contrasts_analysis(
        [("off_after_40", "baseline")], R.switch_outcomes(SWITCH_TURN),
        name=f"switch_{SWITCH_TURN}")).run((games, players))["switch"]
    return {"switch_effects": effects.reset_index()}


def openings(data: Path) -> dict[str, pd.DataFrame]:
    """Seat 0's win rate at the study's best node less its win rate with the chooser's
    node, game by game on the same 4,000 games (``paired_contrasts``: paired t
    interval), as the row of ``beginner4_seat_best`` its headline reads."""
    path = data / CHOOSER
    best = C.paired_contrasts(path, [(f"node{BEST_NODE}", "baseline")],
                              [C.seat_win(0)]).reset_index().iloc[0]
    first = pd.read_parquet(path / "players", columns=["start_node_1"],
                            filters=[("variant", "==", "baseline"), ("seat", "==", 0)])
    picked = first["start_node_1"].value_counts(normalize=True)
    print(f"the chooser's first settlement, share of {len(first):,} games: "
          + ", ".join(f"node {k} {v:.1%}" for k, v in picked.head(4).items()))
    table = pd.DataFrame([{"seat": 0, "best_node": str(BEST_NODE),
                           "best_diff": float(best["diff"]), "best_ci_low": float(best["ci_low"]),
                           "best_ci_high": float(best["ci_high"]), "n": int(best["n"])}])
    return {"beginner4_seat_best": table}


def study_tables(data: Path) -> dict[str, dict[str, pd.DataFrame]]:
    """Each study's tables above (study -> table name -> frame), from the complete runs
    in ``data``."""
    tables: dict[str, dict[str, pd.DataFrame]] = {}
    if complete(data / ORDER):
        tables["seats-and-boards"] = seats_and_boards(data)
    if complete(data / OFFICIAL):
        tables.update(official(data))
        if complete(data / SWITCH):
            tables["robber"].update(switch(data))
    if complete(data / CHOOSER):
        tables["openings"] = openings(data)
    return tables


def headlines(data: Path, tables: dict | None = None) -> dict[str, pd.DataFrame]:
    """Each study's search headlines, as ``H.read`` gives them from ``study_tables``
    (NaN where a headline has no table here), of the complete runs in ``data`` (or of
    ``tables``, already read from them)."""
    tables = study_tables(data) if tables is None else tables
    return {name: H.read(name, t) for name, t in tables.items()}


def parts_done(path: Path) -> tuple[int, int]:
    """(parts written, parts planned) of the run at ``path``; (0, 0) without one."""
    if not (path / D.MANIFEST).is_file():
        return 0, 0
    m = D.read_manifest(path)
    return (len(D.read_records(path)),
            D.count_parts(len(m["variants"]), m["games"], m["batch_size"]))


def complete(path: Path) -> bool:
    """Whether the run at ``path`` holds every part its manifest plans."""
    done, planned = parts_done(path)
    return planned > 0 and done == planned


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data", type=Path, help="the folder holding the runs' datasets")
    ap.add_argument("--paired-with", type=Path, default=None, metavar="DATASET",
                    help="the seats-and-boards study's order-4p dataset, to compare the "
                         "seat decomposition deal by deal")
    ap.add_argument("--write", action="store_true",
                    help="write catansim/studies/search/<study>.csv (complete datasets only)")
    a = ap.parse_args(argv)
    if not a.data.is_dir():
        raise CatansimError(f"data: {a.data} is not a folder; allowed: the folder the "
                            "runs of experiments/strength wrote into")
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True,
                            text=True).stdout.strip() or "unknown"
    for name in (ORDER, OFFICIAL, SWITCH, CHOOSER):
        done, planned = parts_done(a.data / name)
        if not planned:
            print(f"{name}: no run in {a.data}")
        elif done < planned:
            print(f"{name}: {done} of {planned} parts; not read until complete")
    tables = study_tables(a.data)
    found = headlines(a.data, tables)
    if a.paired_with is not None:
        if not (a.paired_with / D.MANIFEST).is_file():
            raise CatansimError(f"paired-with: {a.paired_with} holds no dataset; allowed: "
                                "the order-4p dataset of catansim study seats-and-boards")
        if "seats-and-boards" not in tables:
            raise CatansimError(f"paired-with: {ORDER} is not complete in {a.data}")
        paired = paired_seat_order(a.data, a.paired_with)
        tables["seats-and-boards"]["order_paired_4p"] = paired
        print("\nthe seat decomposition, deal by deal")
        print(paired.set_index("contrast")[["n", "estimate", "ci_low", "ci_high",
                                             "p_adjusted"]].to_string())
    pd.set_option("display.width", 160)
    for name, h in found.items():
        print(f"\n{name} ({WHO[name]})")
        print(h[["estimate", "ci_low", "ci_high", "n", "detail"]].dropna(subset=["n"]))
    if a.write:
        for name, h in found.items():
            h = h[np.isfinite(h["n"].to_numpy(dtype=float))].copy()
            played = []
            for run in RUNS_OF[name]:
                m = D.read_manifest(a.data / run)
                played.append(f"experiments/strength/{run}.toml ({WHO[name]}), played by "
                              f"engine {m['engine_fingerprint']} (games digest "
                              f"{m['games_digest']})")
            h["source"] = [f"{'; '.join(played)}, read at commit {commit}"] * len(h)
            H.write_search(name, h)
            print(f"wrote {H.SEARCH / (name + '.csv')}")
        RESULTS.mkdir(parents=True, exist_ok=True)
        for frames in tables.values():
            for table, frame in frames.items():
                path = RESULTS / f"{table}.csv"
                atomic_write_text(path, frame.to_csv(index=False))
                print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except CatansimError as e:
        print(f"strength: error: {e}", file=sys.stderr)
        sys.exit(2)
