"""The search player's column of the headlines (``experiments/strength/strength.py``):
each figure it reads from its runs, checked against the same figure counted from the
games' tables by hand. The runs here play the experiment files with ``default`` in
place of the search player and a few games, so that they take seconds."""

from __future__ import annotations

import importlib.util
import re
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from catansim.errors import CatansimError
from catansim.runs.experiment import load_experiment
from catansim.runs.runner import run_experiment

ROOT = Path(__file__).resolve().parents[1]
HERE = ROOT / "experiments" / "strength"
GAMES = 40
OFFICIAL_GAMES = 400  # enough for a few shortages at 19 cards a resource (about 6%)


def _module():
    spec = importlib.util.spec_from_file_location("strength", HERE / "strength.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


S = _module()


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """The four runs, with ``default`` in every seat and GAMES games a variant."""
    root = tmp_path_factory.mktemp("strength")
    for name in (S.ORDER, S.OFFICIAL, S.SWITCH, S.CHOOSER):
        games = OFFICIAL_GAMES if name in (S.OFFICIAL, S.SWITCH) else GAMES
        text = (HERE / f"{name}.toml").read_text()
        text = re.sub(r'"search:50"|"python:catansim\.players\.search:RolloutOpener"',
                      '"default"', text)
        text = re.sub(r"(?m)^games = \d+", f"games = {games}", text)
        text = re.sub(r"(?m)^batch_size = \d+", f"batch_size = {games}", text)
        path = root / f"{name}.toml"
        path.write_text(text)
        run_experiment(load_experiment(path), out=root / name, progress=False)
    return root


def _players(data: Path, name: str) -> pd.DataFrame:
    return pd.read_parquet(data / name / "players",
                           columns=["game", "variant", "seat", "won", "vp_turn_40"])


def _games(data: Path, name: str) -> pd.DataFrame:
    return pd.read_parquet(data / name / "games")


def test_every_run_is_complete_and_every_study_has_its_headlines(data):
    assert all(S.complete(data / name) for name in (S.ORDER, S.OFFICIAL, S.SWITCH, S.CHOOSER))
    found = S.headlines(data)
    assert set(found) == {"seats-and-boards", "robber", "shortages", "openings"}
    measured = {name: sorted(h.index[np.isfinite(h["n"].to_numpy(dtype=float))])
                for name, h in found.items()}
    assert measured == {
        "seats-and-boards": sorted(["seat0_4p", "first_pick_4p", "first_move_4p",
                                    "seat_index_4p"]),
        "robber": sorted(["leader_40", "last_40", "turns_after_40", "hit_leader"]),
        "shortages": sorted(["short_19", "sole_recipient_19", "strict_any_19",
                             "strict_winner_19"]),
        "openings": ["best_first_0_4p"]}


def test_seat_0s_win_rate_is_its_share_of_the_standard_games(data):
    p = _players(data, S.ORDER)
    base = p[(p["variant"] == "baseline") & (p["seat"] == 0)]
    h = S.headlines(data)["seats-and-boards"].loc["seat0_4p"]
    assert h["n"] == GAMES
    assert h["estimate"] == pytest.approx(base["won"].mean())
    assert h["ci_low"] < h["estimate"] < h["ci_high"]


def test_the_best_node_over_the_chooser_is_the_paired_difference_of_seat_0s_wins(data):
    p = _players(data, S.CHOOSER)
    seat0 = p[p["seat"] == 0].pivot(index="game", columns="variant", values="won").astype(int)
    diff = seat0["node28"] - seat0["baseline"]
    h = S.headlines(data)["openings"].loc["best_first_0_4p"]
    assert (h["n"], h["detail"]) == (GAMES, "28")
    assert h["estimate"] == pytest.approx(diff.mean())
    half = 1.96 * diff.std(ddof=1) / np.sqrt(GAMES)  # the t interval, near enough at 40
    assert h["ci_high"] - h["ci_low"] == pytest.approx(2 * half, rel=0.05)


def test_the_robber_switch_is_the_turn_40_sole_leaders_wins_kept_minus_off(data):
    # kept: the official run's baseline; off: the switch run's games
    p = {"baseline": _players(data, S.OFFICIAL), "off_after_40": _players(data, S.SWITCH)}

    def seats(variant, column):  # [game, seat]; -1 where a game ended before turn 40
        arm = p[variant][p[variant]["variant"] == "baseline"]
        return arm.pivot(index="game", columns="seat", values=column).fillna(-1) \
            .to_numpy().astype(int)

    kept = seats("baseline", "vp_turn_40")
    assert np.array_equal(kept, seats("off_after_40", "vp_turn_40"))  # the same to turn 40
    sole = (kept == kept.max(axis=1, keepdims=True)).sum(axis=1) == 1
    sole &= kept.min(axis=1) >= 0  # a game over before turn 40 has no standing there
    rows = np.flatnonzero(sole)
    leader = kept.argmax(axis=1)[rows]
    won_kept = seats("baseline", "won")[rows, leader]
    won_off = seats("off_after_40", "won")[rows, leader]
    h = S.headlines(data)["robber"].loc["leader_40"]
    assert h["n"] == rows.size > 0
    assert h["estimate"] == pytest.approx((won_kept - won_off).mean())


def test_the_robbers_aim_is_the_leaders_robberies_over_the_moves_made_while_one_led(data):
    g = _games(data, S.OFFICIAL)
    base = g[g["variant"] == "baseline"]
    h = S.headlines(data)["robber"].loc["hit_leader"]
    assert h["n"] == base["robber_leader_chances"].sum() > 0
    assert h["estimate"] == pytest.approx(base["robbed_leader"].sum() / h["n"])


def test_the_shortage_rate_and_the_strict_rules_other_winners_counted_by_hand(data):
    g = _games(data, S.OFFICIAL)
    h = S.headlines(data)["shortages"]
    base = g[g["variant"] == "baseline"]
    short = base[[f"shortage_{r}" for r in ("wood", "brick", "wool", "wheat", "ore")]]
    rate = (short.sum(axis=1) > 0).mean()
    assert rate > 0 and h.loc["short_19", "estimate"] == pytest.approx(rate)
    p = _players(data, S.OFFICIAL)
    winner = (p[p["won"] == 1].set_index(["variant", "game"])["seat"]
              .unstack("variant").reindex(range(OFFICIAL_GAMES)).fillna(-1))
    other = (winner["strict"] != winner["baseline"]).mean()
    assert h.loc["strict_winner_19", "estimate"] == pytest.approx(other)
    assert h.loc["strict_winner_19", "n"] == OFFICIAL_GAMES


def test_the_strict_rule_changes_a_scripted_game_only_where_one_player_alone_is_owed(data):
    # Scripted players do not look ahead: the strict rule pays differently only on a short
    # roll with one player alone owed, so no other game can get another winner.
    t = S.strict_winner_by_shortage(data).set_index("official_game")
    assert t["n"].sum() == OFFICIAL_GAMES
    assert t["other_winner"].iloc[:2].tolist() == [0, 0]
    assert t["other_winner"].iloc[2] == pytest.approx(S.headlines(data)["shortages"].loc[
        "strict_winner_19", "estimate"] * OFFICIAL_GAMES)
    assert (t["ci_low"] <= t["share"] + 1e-12).all() and (t["share"] <= t["ci_high"]).all()


def test_the_switch_is_read_only_from_the_same_games_up_to_turn_40(data, tmp_path):
    for name in (S.OFFICIAL, S.SWITCH):
        shutil.copytree(data / name, tmp_path / name)
    part = sorted((tmp_path / S.SWITCH / "players").glob("*.parquet"))[0]
    p = pd.read_parquet(part)
    p.loc[p.index[0], "vp_turn_20"] += 1  # one game that differs before the switch
    p.to_parquet(part)
    with pytest.raises(CatansimError, match=rf"^{re.escape(str(tmp_path / S.SWITCH))}: 1 "
                       r"games differ from official-search50's baseline before the end "
                       r"of turn 40; allowed: the same games up to the switch"):
        S.switch(tmp_path)
    # another switch turn is another design, refused before any game is read
    manifest = tmp_path / S.SWITCH / "manifest.json"
    manifest.write_text(manifest.read_text().replace('"switch_turn": 40', '"switch_turn": 30'))
    with pytest.raises(CatansimError, match=r": not official-search50's baseline with the "
                                            r"robber off from turn 41 .*; allowed: the run "
                                            r"of experiments/strength/switch-search50.toml$"):
        S.switch(tmp_path)


def test_a_run_not_complete_is_not_read_and_its_parts_are_said(data, tmp_path, capsys):
    part = tmp_path / "data"
    shutil.copytree(data / S.ORDER, part / S.ORDER)
    records = part / S.ORDER / "parts.jsonl"
    lines = records.read_text().splitlines(keepends=True)
    records.write_text("".join(lines[:-1]))  # one part's record lost: not complete
    assert S.parts_done(part / S.ORDER) == (15, 16) and not S.complete(part / S.ORDER)
    assert S.parts_done(part / S.OFFICIAL) == (0, 0) and not S.complete(part / S.OFFICIAL)
    assert S.headlines(part) == {}
    assert S.main([str(part)]) == 0
    out = capsys.readouterr().out
    assert f"{S.ORDER}: 15 of 16 parts; not read until complete" in out
    assert f"{S.OFFICIAL}: no run in {part}" in out


def test_a_data_folder_that_is_not_there_is_one_line(tmp_path):
    with pytest.raises(CatansimError, match=r"^data: .*nope is not a folder; allowed: the "
                                            r"folder the runs of experiments/strength "
                                            r"wrote into$"):
        S.main([str(tmp_path / "nope")])


def test_write_puts_each_headline_and_every_table_it_is_read_from_in_place(
        data, tmp_path, monkeypatch, capsys):
    """``--write``: each study's headlines into the search folder (each row naming its
    run, the engine that played it and the commit), and the tables they are read from
    into results/strength/tables, from which the same headlines read again."""
    from catansim.results import dataset as D
    from catansim.studies import _headlines as H

    monkeypatch.setattr(H, "SEARCH", tmp_path / "search")
    monkeypatch.setattr(S, "RESULTS", tmp_path / "tables")
    (tmp_path / "search").mkdir()
    assert S.main([str(data), "--write"]) == 0
    capsys.readouterr()
    found = S.headlines(data)
    for name, h in found.items():
        written = H.search(name)
        measured = h[np.isfinite(h["n"].to_numpy(dtype=float))]
        assert list(written.index) == list(measured.index)
        assert np.allclose(written["estimate"], measured["estimate"])
        for run in S.RUNS_OF[name]:
            engine = D.read_manifest(data / run)["engine_fingerprint"]
            assert written["source"].str.contains(
                f"{run}.toml .*played by engine {engine} ", regex=True).all()
        tables = {t: pd.read_csv(tmp_path / "tables" / f"{t}.csv")
                  for t in S.study_tables(data)[name]}
        again = H.read(name, tables).loc[measured.index]
        assert np.allclose(again["estimate"], measured["estimate"])
        assert np.allclose(again["n"], measured["n"])


@pytest.fixture(scope="module")
def scripted_order(data, tmp_path_factory):
    """The seat decomposition of ``data`` played again by ``classic``, on fewer deals:
    the scripted dataset a paired comparison reads."""
    root = tmp_path_factory.mktemp("scripted")
    text = (data / f"{S.ORDER}.toml").read_text().replace('"default"', '"classic"')
    text = re.sub(r"(?m)^games = \d+", f"games = {GAMES - 10}", text)
    text = re.sub(r"(?m)^batch_size = \d+", f"batch_size = {GAMES - 10}", text)
    path = root / "order-4p.toml"
    path.write_text(text)
    run_experiment(load_experiment(path), out=root / "order-4p", progress=False)
    return root / "order-4p"


def _first_deals(path: Path, deals: int):
    """The dataset's games and players of its first ``deals`` deals, as frames."""
    return tuple(pd.read_parquet(path / part, filters=[("game", "<", deals)])
                 for part in ("games", "players"))


def test_the_paired_seat_order_is_the_difference_of_each_runs_contrasts(data, scripted_order):
    """Deal by deal on the deals both played, each contrast's mean is the search run's
    contrast less the scripted run's (a linear contrast of per-deal cells), and its
    interval is the t interval of the per-deal differences."""
    from catansim.analysis import seat_order as SO
    from catansim.results import dataset as D

    deals = GAMES - 10
    orders = SO.arm_orders(D.read_manifest(data / S.ORDER))
    a = SO.factor_effects(_first_deals(data / S.ORDER, deals), orders=orders)["contrasts"]
    b = SO.factor_effects(_first_deals(scripted_order, deals), orders=orders)["contrasts"]
    paired = S.paired_seat_order(data, scripted_order)
    assert len(paired) == 4 and (paired["n"] == deals).all()
    assert (paired["p_adjusted"] >= paired["p_value"]).all()
    assert paired["contrast"].str.endswith("(search:50 minus classic)").all()
    expected = (a["estimate"] - b["estimate"]).iloc[:4].to_numpy()
    assert np.allclose(paired["estimate"], expected)
    assert (paired["ci_low"] < paired["estimate"]).all()
    assert (paired["estimate"] < paired["ci_high"]).all()
    # a run paired with itself differs in nothing
    same = S.paired_seat_order(data, data / S.ORDER)
    assert np.allclose(same["estimate"], 0) and np.allclose(same["ci_high"], 0)


def test_a_paired_dataset_of_another_design_is_one_line(data):
    with pytest.raises(CatansimError, match=r"^paired-with: .*official-search50 is not the "
                                            r"seat decomposition of order-4p-search50"):
        S.paired_seat_order(data, data / S.OFFICIAL)
    with pytest.raises(CatansimError, match=r"^paired-with: .*nope holds no dataset"):
        S.main([str(data), "--paired-with", str(data / "nope")])


def test_a_paired_dataset_not_complete_is_one_line(data, scripted_order, tmp_path):
    part = tmp_path / "order-4p"
    shutil.copytree(scripted_order, part)
    records = part / "parts.jsonl"
    records.write_text("".join(records.read_text().splitlines(keepends=True)[:-1]))
    with pytest.raises(CatansimError, match=r"^paired-with: .*order-4p holds 15 of its 16 "
                                            r"parts; allowed: a complete dataset"):
        S.paired_seat_order(data, part)
