"""``catansim ladder``: the field's checks, the plan (shared deals, every seat), the
resumable folder, and the numbers against independent ones: the matrix equals the
tournament runner's cross-play on the same deals (played by ``play_batch``, not by the
ladder's ``Game`` loop), and the rating is ``fit_rating`` on the games' seatings."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from cli_harness import run_main

from catansim.analysis.ladder import ladder_matrix, ladder_rating, seating_counts
from catansim.analysis.strategies import fit_rating
from catansim.engine import batch_seeds
from catansim.errors import CatansimError
from catansim.ladders import ladder
from catansim.ladders import play as P
from catansim.ladders.field import check_field
from catansim.runs.tournament import cross_play

FIELD = ("default", "builder", "random")
# what a replay of the same games may change
TIMES = ("seconds", "cpu_seconds", "longest_ask_cpu_seconds")


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    out = tmp_path_factory.mktemp("ladder") / "l"
    return ladder(FIELD, 6, out, seed=4, block=4), out


def test_the_plan_is_every_ordered_pair_on_shared_deals_in_every_seat(small):
    res, _ = small
    g = res.games
    assert len(g) == 6 * 4 * 6  # pairs x deals x seats
    per = g.groupby(["strategy", "opponent"])
    assert per.size().eq(24).all() and len(per) == 6
    assert (per["single_seat"].value_counts().eq(6)).all()  # each seat once per deal
    seeds = batch_seeds(4, 6)
    for (_, _), part in per:  # the same deals (seeds) for every pair
        assert sorted(set(part["seed"])) == sorted(seeds.tolist())
        assert (part["seed"].to_numpy() == seeds[part["deal"].to_numpy()]).all()
    for _, r in g.iterrows():
        seats = [r[f"seat_{q}"] for q in range(4)]
        assert seats[r["single_seat"]] == r["strategy"]
        assert seats.count(r["opponent"]) == 3


def test_the_matrix_is_the_cross_play_of_the_same_deals(small):
    res, _ = small
    cp = cross_play(list(FIELD), 24, seed=4).table().set_index(["strategy", "opponent", "seat"])
    cols = ["games", "wins", "win_rate", "ci_low", "ci_high", "p_value", "verdict"]
    pd.testing.assert_frame_equal(res.matrix[cols].sort_index(), cp[cols].sort_index(),
                                  check_dtype=False)


def test_the_rating_is_the_plackett_luce_fit_of_the_games(small):
    res, _ = small
    g = res.games
    counts = {}
    for _, r in g.iterrows():  # wins per (seating, winning seat), counted by hand
        key = (*(r[f"seat_{q}"] for q in range(4)), int(r["winner"]))
        counts[key] = counts.get(key, 0) + 1
    index = pd.MultiIndex.from_tuples(list(counts), names=[*(f"seat_{q}" for q in range(4)),
                                                           "winner"])
    by_hand = pd.Series(list(counts.values()), index=index).sort_index()
    pd.testing.assert_series_equal(seating_counts(g).sort_index(), by_hand, check_names=False)
    fit = fit_rating(by_hand, "default")
    got = res.rating.xs("ladder", level="variant")
    np.testing.assert_allclose(got["log_strength"], fit["log_strength"])
    assert (res.table["games"] == [int(fit.loc[("strategy", n), "games"])
                                   for n in res.table.index]).all()
    # the table lists every player, strongest first, with its pooled alone rate
    assert list(res.table.index) == list(res.table.sort_values("log_strength",
                                                               ascending=False).index)
    for name, row in res.table.iterrows():
        mine = g[g["strategy"] == name]
        assert row["games_alone"] == len(mine)
        assert row["wins_alone"] == int((mine["winner"] == mine["single_seat"]).sum())


def test_the_report_and_tables_are_written(small):
    res, out = small
    page = (out / "report.html").read_text()
    for name in FIELD:
        assert name in page
    for f in ("tables/ladder.csv", "tables/matrix.csv", "tables/rating.csv",
              "tables/pairs.csv", "figures/rating.png", "figures/matrix.png"):
        assert (out / f).stat().st_size > 0, f
    assert json.loads((out / "ladder.json").read_text())["field"] == list(FIELD)
    # random never wins here: the page says its interval is unbounded, the CSV keeps it
    assert not res.table.loc["random", "bounded"] and res.table["bounded"].sum() == 2
    assert page.count(">unbounded<") == 2 and "Unbounded: the games give" in page
    table = pd.read_csv(out / "tables/ladder.csv", index_col="player")
    assert table.loc["random", "ci_low"] < -1000 and table.loc["random", "ci_high"] > 1000
    # the page's matrix is pooled over the seats; its CSV has every seat as well
    cells = pd.read_csv(out / "tables/matrix.csv", dtype={"seat": str})
    assert sorted(cells.groupby(["strategy", "opponent"])["seat"].apply(tuple).map(sorted)
                  .map(tuple).unique()) == [("0", "1", "2", "3", "all")]
    assert len(cells) == len(FIELD) * (len(FIELD) - 1) * 5


def test_a_rerun_resumes_and_replays_a_lost_part_identically(tmp_path):
    out = tmp_path / "l"
    first = ladder(("default", "random"), 3, out, seed=9, block=2)
    assert first.played.parts == 4
    again = ladder(("default", "random"), 3, out, seed=9, block=2)
    assert again.played.parts == 0  # nothing to play
    lost = sorted((out / "games").glob("*.csv"))[1]
    before = pd.read_csv(lost)
    lost.unlink()
    third = ladder(("default", "random"), 3, out, seed=9, block=2)
    assert third.played.parts == 1
    after = pd.read_csv(lost)
    pd.testing.assert_frame_equal(before.drop(columns=list(TIMES)),
                                  after.drop(columns=list(TIMES)))
    more = ladder(("default", "random"), 6, out, seed=9, block=2)  # more deals: new parts
    # blocks of 2 deals from deal 0: the partial block [2, 3) is played again whole
    assert more.played.parts == 4 and len(more.games) == 2 * 6 * 4


def test_each_game_records_its_cpu_seconds_and_the_pairs_table_their_mean(tmp_path):
    out = tmp_path / "l"
    res = ladder(("default", "random"), 2, out, seed=5, block=1)
    cpu = res.games["cpu_seconds"]
    assert cpu.notna().all() and (cpu >= 0).all()
    pairs = pd.read_csv(out / "tables/pairs.csv", index_col=["strategy", "opponent"])
    by_hand = res.games.groupby(["strategy", "opponent"])["cpu_seconds"].mean()
    np.testing.assert_allclose(pairs["cpu_seconds_per_game"], by_hand.reindex(pairs.index))
    # parts written before games recorded their CPU time: the mean of those that did
    old = sorted((out / "games").glob("*.csv"))[0]
    pd.read_csv(old).drop(columns="cpu_seconds").to_csv(old, index=False)
    again = ladder(("default", "random"), 2, out, seed=5, block=1)
    assert again.played.parts == 0 and again.games["cpu_seconds"].isna().sum() == 4
    pairs = pd.read_csv(out / "tables/pairs.csv", index_col=["strategy", "opponent"])
    kept = again.games.dropna(subset=["cpu_seconds"])
    np.testing.assert_allclose(pairs["cpu_seconds_per_game"], kept.groupby(
        ["strategy", "opponent"])["cpu_seconds"].mean().reindex(pairs.index))


def test_a_folder_of_another_ladder_is_refused(tmp_path):
    out = tmp_path / "l"
    ladder(("default", "random"), 1, out, seed=1)
    with pytest.raises(CatansimError, match=r"another ladder \(seed: 1 there, 2 now\)"):
        ladder(("default", "random"), 1, out, seed=2)
    with pytest.raises(CatansimError, match="another ladder .field"):
        ladder(("default", "builder"), 1, out, seed=1)


def _same_games(a, b):
    cols = [c for c in a.games.columns if c not in TIMES]
    key = ["pair", "deal", "single_seat"]
    pd.testing.assert_frame_equal(a.games[cols].sort_values(key).reset_index(drop=True),
                                  b.games[cols].sort_values(key).reset_index(drop=True))


def test_worker_processes_and_a_dask_cluster_play_the_same_games(tmp_path):
    field = ("default", "random")
    a = ladder(field, 2, tmp_path / "a", seed=3, block=1)
    _same_games(a, ladder(field, 2, tmp_path / "b", seed=3, block=1, workers=2))
    distributed = pytest.importorskip("dask.distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address=None) as cluster:
        c = ladder(field, 2, tmp_path / "c", seed=3, block=1,
                   scheduler=cluster.scheduler_address)
    assert c.played.parts == 4
    _same_games(a, c)


@pytest.mark.parametrize("names, message", [
    ("default", "1 player given"),
    ("default,default", "default is named twice"),
    ("default,nope", r"field\[1\]: unknown strategy 'nope'"),
    ("default,python:no_such_module:X", r"field\[1\]: cannot import module"),
    ("default,catanatron:Nope", r"field\[1\]: catanatron:Nope: catanatron has no player"),
    (["default", 3], r"field\[1\]: 3 is not a name"),
])
def test_a_bad_field_is_one_line(names, message):
    with pytest.raises(CatansimError, match=message) as e:
        check_field(names)
    assert "\n" not in str(e.value)


def test_a_python_player_plays_in_the_ladder(tmp_path):
    res = ladder(("default", "python:catansim.players.greedy:GreedyBuilder"), 1, tmp_path,
                 seed=5)
    assert len(res.games) == 8 and set(res.table.index) == {
        "default", "python:catansim.players.greedy:GreedyBuilder"}


def test_the_command_prints_the_rating_and_the_matrix(tmp_path, capsys):
    code, out, err = run_main(["ladder", "--field", "default,random", "--deals", "2",
                               "--out", tmp_path / "l", "--quiet"], capsys)
    assert code == 0, err
    assert "Rating (Plackett-Luce" in out and "One alone against 3 copies" in out
    assert "default" in out and (tmp_path / "l" / "report.html").exists()
    # random never wins against default: its rating has no finite interval to print
    random_row = next(line for line in out.splitlines() if line.startswith("random "))
    assert random_row.split()[2:4] == ["unbounded", "unbounded"]
    assert "unbounded: the games give no finite rating" in out


def test_the_plan_cuts_deals_into_blocks():
    spec = P.Spec(("a", "b", "c"), block=4)
    parts = P.plan(spec, 10)
    assert [(p.start, p.stop) for p in parts[::6]] == [(0, 4), (4, 8), (8, 10)]
    assert len({p.stem for p in parts}) == len(parts) == 18


def test_a_ladder_with_catanatron_bots(tmp_path):
    pytest.importorskip("catanatron")
    res = ladder(("default", "catanatron:WeightedRandomPlayer"), 1, tmp_path, seed=2)
    assert len(res.games) == 8 and (res.games["winner"] >= 0).all()
    page = (tmp_path / "report.html").read_text()
    assert "catanatron:WeightedRandomPlayer" in page and "catanatron</dt>" in page
    cell = res.cell("catanatron:WeightedRandomPlayer", "default")
    assert cell["games"] == 4
    assert ladder_matrix(res.games).equals(res.matrix)
    assert ladder_rating(res.games, "default").equals(res.rating)
    # every game has a bot: its longest decision took some CPU time, less than the game
    longest = res.games["longest_ask_cpu_seconds"]
    assert ((longest > 0) & (longest <= res.games["cpu_seconds"])).all()
    assert P.read_manifest(tmp_path)["search_cut"] is None  # no bot here cuts a search
    pairs = pd.read_csv(tmp_path / "tables/pairs.csv", index_col=["strategy", "opponent"])
    by_hand = res.games.groupby(["strategy", "opponent"])["longest_ask_cpu_seconds"].max()
    np.testing.assert_allclose(pairs["longest_ask_cpu_seconds"], by_hand.reindex(pairs.index))


CUTTING_BOT = """
from catanatron.players.weighted_random import WeightedRandomPlayer

MAX_SEARCH_TIME_SECS = 20  # as catanatron's alpha-beta module has it


class Bot(WeightedRandomPlayer):
    pass
"""


def test_a_bot_that_cuts_its_search_by_the_clock_plays_with_the_cut_lifted(
        tmp_path, monkeypatch):
    """A bot whose module has catanatron's wall-clock cut (``MAX_SEARCH_TIME_SECS``, as
    its alpha-beta players): the bridge lifts it, the folder says so, and a folder of
    games played with the cut (no ``search_cut`` in its manifest) is not resumed."""
    pytest.importorskip("catanatron")
    from catansim.players.outside import catanatron as CB

    package = tmp_path / "fakebots"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "cutting.py").write_text(CUTTING_BOT)
    monkeypatch.syspath_prepend(str(tmp_path))
    name = "catanatron:fakebots.cutting:Bot"
    assert CB.cuts_search("fakebots.cutting:Bot")
    assert not CB.cuts_search("WeightedRandomPlayer")
    import fakebots.cutting as module

    assert module.MAX_SEARCH_TIME_SECS == 20
    out = tmp_path / "l"
    res = ladder(("default", name), 1, out, seed=2)
    assert module.MAX_SEARCH_TIME_SECS == float("inf")
    assert P.read_manifest(out)["search_cut"] == "lifted"
    assert (res.games.query("strategy == @name")["longest_ask_cpu_seconds"] > 0).all()
    manifest = json.loads((out / P.MANIFEST).read_text())
    del manifest["search_cut"]  # as the folders of games played with the cut
    (out / P.MANIFEST).write_text(json.dumps(manifest))
    with pytest.raises(CatansimError, match=r"this folder holds another ladder \(search_cut: "
                                            r"None there, 'lifted' now\)"):
        ladder(("default", name), 1, out, seed=2)


def test_a_game_without_a_catanatron_bot_records_no_bot_decision(tmp_path):
    res = ladder(("default", "random"), 1, tmp_path, seed=2)
    assert (res.games["longest_ask_cpu_seconds"] == 0).all()


def test_catansim_ladder_is_the_ladder():
    import catansim
    import catansim.ladders

    assert catansim.ladder is catansim.ladders.ladder


def test_alone_plays_only_the_pairs_of_those_players(tmp_path):
    res = ladder(FIELD, 2, tmp_path, seed=4, alone=["random"])
    assert set(res.games["strategy"]) == {"random"} and len(res.games) == 2 * 2 * 4
    assert set(res.games["pair"]) == {4, 5}  # numbered as among every ordered pair
    t = res.table
    assert t.loc["random", "games_alone"] == 16 and t.loc["default", "games_alone"] == 0
    assert np.isnan(t.loc["default", "win_rate_alone"])
    with pytest.raises(CatansimError, match="another ladder .alone"):
        ladder(FIELD, 2, tmp_path, seed=4)
    with pytest.raises(CatansimError, match="alone: 'army' is not in the field"):
        ladder(FIELD, 2, tmp_path / "x", seed=4, alone=["army"])
