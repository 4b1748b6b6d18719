"""Issue #38, hardening second pass: the cases an adversarial user found beyond
test_faults.py, test_bad_experiments.py and test_bad_commands.py.

Each case asserts what the issue asks: no traceback, one line naming the field or
path, a non-zero exit where the command cannot do what was asked, nothing lost,
and nothing stale that looks complete.
"""

from __future__ import annotations

import json
import os
import shutil
import tracemalloc
import warnings

import numpy as np
import pandas as pd
import pytest
from cli_harness import ROOT, one_line, run_main

import catansim
from catansim.errors import CatansimError, CatansimWarning
from catansim.results import dataset as D
from catansim.runs import tournament as T
from catansim.runs.experiment import load_experiment
from catansim.runs.runner import run_experiment

EXP = """
name = "hard"
games = 30
players = 3
seed = 4
strategies = ["builder", "default", "random"]
batch_size = 5
[variants.friendly]
rules = { robber = "friendly" }
"""
PARTS = 12  # 6 batches x 2 variants


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("hard")
    (tmp / "exp.toml").write_text(EXP)
    run_experiment(load_experiment(tmp / "exp.toml"), out=tmp / "ref", progress=False)
    return tmp


@pytest.fixture
def ds(files, tmp_path):
    """A complete copy of the EXP dataset (2 variants x 6 parts of 5 games)."""
    shutil.copytree(files / "ref", tmp_path / "ds")
    return tmp_path / "ds"


def _quiet_load(root, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("error", CatansimWarning)
        return catansim.load(root, **kw)


# --- data lost: unbounded tournaments ---------------------------------------------------


def _peak(fn) -> int:
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("matrix", [False, True])
def test_tournament_memory_is_flat_in_the_number_of_games(monkeypatch, matrix):
    """Counts are accumulated chunk by chunk: ten times the games (ten times the chunks)
    peak at about the memory of one chunk, not ten times it."""
    monkeypatch.setattr(T, "CHUNK_DEALS", 25)
    play = T.cross_play if matrix else T.tournament
    names = ["builder", "random"] if matrix else ["builder", "city", "army", "random"]
    play(names, 8, seed=3, keep_games=False)  # imports and kernels loaded before measuring
    small = _peak(lambda: play(names, 200, seed=3, keep_games=False))
    large = _peak(lambda: play(names, 2000, seed=3, keep_games=False))
    assert large < 1.5 * small, (small, large)
    kept = _peak(lambda: play(names, 2000, seed=3))  # the tables kept: what the test detects
    assert kept > 3 * large, (large, kept)


def test_simulate_memory_is_flat_in_the_number_of_games(capsys, monkeypatch):
    """simulate adds each part to a Summary (counts, histograms) and lets it go."""
    from catansim.runs import experiment

    monkeypatch.setattr(experiment, "DEFAULT_BATCH_SIZE", 50)  # parts of 50 games
    run_main(["simulate", "--games", "2000"], capsys)  # imports, kernels, first-use caches
    small = _peak(lambda: run_main(["simulate", "--games", "200"], capsys))
    large = _peak(lambda: run_main(["simulate", "--games", "2000"], capsys))
    assert large < 1.5 * small, (small, large)


def test_tournament_summaries_from_counts_match_the_tables(monkeypatch):
    """The accumulated summary against pandas on the kept tables (an independent oracle)."""
    monkeypatch.setattr(T, "CHUNK_DEALS", 7)
    res = T.tournament(["default", "random", "builder", "trader"], 120, seed=5)
    lean = T.tournament(["default", "random", "builder", "trader"], 120, seed=5,
                        keep_games=False)
    assert lean.games is None and lean.players is None
    pd.testing.assert_frame_equal(res.summary(), lean.summary())
    p = res.players.assign(strategy=res.players["strategy"].astype(str))
    turns = res.games.set_index("game")["turns"].reindex(p["game"]).to_numpy()
    want = p.assign(turns=turns).groupby("strategy").agg(
        games=("won", "size"), wins=("won", "sum"), avg_vp=("vp", "mean"),
        avg_turns=("turns", "mean"))
    got = res.summary().loc[want.index]
    np.testing.assert_allclose(got[want.columns].to_numpy(float), want.to_numpy(float))
    seat = p.pivot_table(index="strategy", columns="seat", values="won", aggfunc="mean")
    np.testing.assert_allclose(res.by_seat().loc[seat.index].to_numpy(), seat.to_numpy())
    stats = res.game_stats()
    assert stats["games"] == len(res.games) == 120
    assert stats["mean_turns"] == pytest.approx(res.games["turns"].mean())
    assert stats["trades_per_game"] == pytest.approx(
        res.players.groupby("game")["trades_player"].sum().mean() / 2)
    from catansim.analysis import strategy_rating

    pd.testing.assert_frame_equal(res.rating(), strategy_rating((res.games, res.players)))


def test_cross_play_cells_from_counts_match_the_tables(monkeypatch):
    monkeypatch.setattr(T, "CHUNK_DEALS", 9)
    from catansim.analysis.crossplay import crossplay_table

    res = T.cross_play(["builder", "random", "city"], 40, seed=2)
    lean = T.cross_play(["builder", "random", "city"], 40, seed=2, keep_games=False)
    want = crossplay_table((res.games, res.players)).reset_index()
    pd.testing.assert_frame_equal(lean.table(), want)
    assert lean.n_deals == 10
    with pytest.raises(CatansimError, match="keep_games=True"):
        lean.single()


# --- data lost: a path that is not UTF-8 ------------------------------------------------


def test_a_dataset_folder_whose_name_is_not_utf8_is_written_read_and_resumed(files, tmp_path,
                                                                              capsys):
    """pyarrow cannot open such a path: the files are opened by Python, so the run's parts
    verify, load and are kept on a rerun (not deleted and played again)."""
    out = os.fsdecode(os.path.join(os.fsencode(tmp_path), b"bad\xffname"))
    args = ["run", files / "exp.toml", "--out", out, "--no-progress", "--no-summary"]
    code, stdout, _ = run_main(args, capsys)
    assert code == 0 and f"{PARTS} parts written" in stdout
    assert run_main(["verify", out], capsys)[0] == 0
    games, players = _quiet_load(out)
    pd.testing.assert_frame_equal(games, _quiet_load(files / "ref")[0])
    before = sorted(p.stat().st_mtime_ns for p in (tmp_path / os.listdir(tmp_path)[0]).rglob(
        "*.parquet"))
    code, stdout, _ = run_main(args, capsys)
    assert code == 0 and "0 parts written" in stdout
    assert before == sorted(p.stat().st_mtime_ns for p in (
        tmp_path / os.listdir(tmp_path)[0]).rglob("*.parquet"))
    code, stdout, err = run_main(["report", out, "--no-progress"], capsys)
    assert code == 0, err


# --- silent wrong results: load and verify of damaged datasets ----------------------------


def _records(root):
    return [json.loads(x) for x in (root / "parts.jsonl").read_text().splitlines()]


def _write_records(root, recs):
    (root / "parts.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))


def test_a_part_swapped_for_another_part_of_the_same_size_is_left_out(ds, capsys):
    """Its record's size matches (load checks sizes only), its games are another part's:
    the footer's game range gives it away, in load, verify and report."""
    recs = _records(ds)
    a, b = recs[0], recs[2]  # baseline 0..4 and baseline 5..9
    shutil.copy(ds / "games" / f"{a['part']}.parquet", ds / "games" / f"{b['part']}.parquet")
    b["games"] = a["games"]
    _write_records(ds, recs)
    victim = ds / "games" / f"{b['part']}.parquet"
    with pytest.warns(CatansimWarning, match=f"{victim.name}: holds games 0..4, its name says "
                                             "5..9"):
        games, players = catansim.load(ds)
    base = games[games.variant == "baseline"]
    assert not base["game"].duplicated().any() and len(base) == 25
    assert sorted(base["game"]) == [g for g in range(30) if not 5 <= g < 10]
    code, _, err = run_main(["verify", ds], capsys)
    assert code == 1
    one_line(err, str(victim), "holds games 0..4")
    code, _, err = run_main(["report", ds, "--no-progress"], capsys)
    assert code != 0 and "Traceback" not in err and str(victim) in err


def _format_1(root):
    m = json.loads((root / "manifest.json").read_text())
    m["format_version"] = 1
    for key in ("engine_fingerprint", "parts"):
        m.pop(key)
    (root / "manifest.json").write_text(json.dumps(m))
    (root / "parts.jsonl").unlink()


def test_format_1_datasets_with_a_cut_players_part_or_a_copied_games_part_fail_verify(ds,
                                                                                     capsys):
    _format_1(ds)
    assert D.verify(ds).complete
    players = sorted((ds / "players").glob("*.parquet"))[0]
    t = pd.read_parquet(players)
    t.iloc[: len(t) // 2].to_parquet(players)
    games = sorted((ds / "games").glob("part-baseline-*.parquet"))
    shutil.copy(games[0], games[1])
    code, _, err = run_main(["verify", ds], capsys)
    assert code == 1
    line = one_line(err, "incomplete: 10 of 12 parts read", "2 bad")
    assert players.name in line or games[1].name in line
    with pytest.warns(CatansimWarning) as got:
        g, p = catansim.load(ds)
    text = " ".join(str(w.message) for w in got)
    assert players.name in text and games[1].name in text
    assert not g.duplicated(["variant", "game"]).any()
    assert len(p) == 3 * len(g)  # no game without its players rows


def test_a_manifest_whose_games_were_cut_says_so(ds, capsys):
    m = json.loads((ds / "manifest.json").read_text())
    m["games"] = 15
    (ds / "manifest.json").write_text(json.dumps(m))
    code, _, err = run_main(["verify", ds], capsys)
    assert code == 1
    one_line(err, "6 recorded parts do not fit its manifest (games 15, batch_size 5")
    with pytest.warns(CatansimWarning, match="6 recorded parts do not fit its manifest"):
        assert len(catansim.load(ds)[0]) == 30


def test_load_takes_one_variant_name_and_refuses_unknown_ones(ds):
    games, players = _quiet_load(ds, variants="friendly")
    assert set(games["variant"]) == {"friendly"} and len(games) == 30
    for bad, match in ((["nope"], "'nope' is not a variant of the dataset; allowed: baseline, "
                                  "friendly"), ("nope", "'nope' is not"), ([], "none given")):
        with pytest.raises(CatansimError, match=match):
            catansim.load(ds, variants=bad)
    with pytest.raises(CatansimError, match="'nope' is not"):
        list(D.iter_parts(ds, variants=["nope"]))


# --- tracebacks: manifest fields and part records ---------------------------------------


@pytest.mark.parametrize("key, value, needle", [
    ("batch_size", 0, "batch_size: 0 is not allowed; allowed: an integer >= 1"),
    ("games", True, "games: True is not allowed"),
    ("variants", [], "variants: [] is not allowed; allowed: a non-empty list"),
    ("variants", [{"a": 1}], "variants: [{'a': 1}] is not allowed"),
    ("result_key", {"players": 7}, "result_key.players: 7 is not allowed; allowed: 3, 4"),
])
def test_a_malformed_manifest_field_is_one_line_everywhere(ds, capsys, key, value, needle):
    m = json.loads((ds / "manifest.json").read_text())
    m[key] = value
    (ds / "manifest.json").write_text(json.dumps(m))
    for argv in (["verify", ds], ["report", ds, "--no-progress"]):
        code, _, err = run_main(argv, capsys)
        assert code != 0
        one_line(err, "manifest.json", needle)
    with pytest.raises(CatansimError, match=needle.replace("[", r"\[").replace("]", r"\]")):
        catansim.load(ds)
    assert not (ds / "report").exists()  # a refused report creates no folders


@pytest.mark.parametrize("line", ['{"part": null}', '{"part": 5}', "[" * 100_000 + "]" * 100_000,
                                  '{"part": 1' + "0" * 5000 + "}"])
def test_a_malformed_part_record_is_a_bad_part_that_is_played_again(ds, files, capsys, line):
    recs = (ds / "parts.jsonl").read_text().splitlines()
    stem = json.loads(recs[3])["part"]
    recs[3] = line
    (ds / "parts.jsonl").write_text("\n".join(recs) + "\n")
    code, _, err = run_main(["verify", ds], capsys)
    assert code == 1 and "Traceback" not in err
    assert "parts.jsonl:4: not a part record" in err and f"{PARTS - 1} of {PARTS}" in err
    with pytest.warns(CatansimWarning, match="parts.jsonl:4: not a part record"):
        assert len(catansim.load(ds)[0]) == 55
    code, _, err = run_main(["report", ds, "--no-progress"], capsys)
    assert code == 0 and "Traceback" not in err and "parts.jsonl:4: not a part record" in err
    code, out, err = run_main(["run", files / "exp.toml", "--out", ds, "--no-progress",
                               "--no-summary"], capsys)
    assert code == 0 and "1 parts written" in out, err
    assert stem in (ds / "parts.jsonl").read_text()
    pd.testing.assert_frame_equal(_quiet_load(ds)[0], _quiet_load(files / "ref")[0])


# --- silent wrong results and tracebacks: reports ---------------------------------------


def _stopped_run(toml, out, n_parts: int, **overrides):
    """A run stopped after ``n_parts`` parts (what Ctrl-C or kill -9 leaves)."""
    from catansim.runs.experiment import parse_experiment

    seen = []

    def stop(task):
        seen.append(task)
        if len(seen) == n_parts:
            raise KeyboardInterrupt

    exp = load_experiment(toml) if not isinstance(toml, dict) else parse_experiment(toml)
    with pytest.raises(KeyboardInterrupt):
        run_experiment(exp.with_overrides(**overrides) if overrides else exp, out=out,
                       progress=False, on_part=stop, force=True)


def test_a_report_of_an_incomplete_dataset_says_so_and_counts_the_games_present(files,
                                                                               tmp_path,
                                                                               capsys):
    out = tmp_path / "part"
    _stopped_run(files / "exp.toml", out, 4)  # 4 parts (and the one in flight) of 12
    games, _ = _quiet_load(out)
    present = games.groupby("variant", observed=True).size().to_dict()
    most = max(present.values())
    assert most < 30
    code, stdout, err = run_main(["report", out, "--no-progress"], capsys)
    assert code == 0
    line = one_line(err, f"incomplete dataset: {most} of 30 games per variant are present",
                    prefix="catansim: warning: ")
    assert str(out) in line
    info = json.loads((out / "report" / "report.json").read_text())
    assert (info["games"], info["games_planned"], info["complete"]) == (most, 30, False)
    assert info["games_present"] == present
    page = (out / "report" / "report.html").read_text()
    assert f"{most} of 30 planned (an incomplete dataset)" in page
    length = pd.read_csv(out / "report" / "tables" / "game_length.csv").set_index("variant")
    assert length["n"].to_dict() == present


def test_an_interrupted_report_keeps_the_old_page_and_a_rerun_leaves_nothing_stale(
        ds, capsys, monkeypatch):
    """Built in a hidden folder and swapped in whole: a report killed while it draws
    changes nothing; a complete one replaces every file (a stale CSV goes)."""
    import catansim.reports.html as H

    assert run_main(["report", ds, "--no-progress"], capsys)[0] == 0
    rep = ds / "report"
    (rep / "tables" / "stale_table.csv").write_text("x\n1\n")
    (rep / "figures" / "stale_figure.png").write_bytes(b"old")
    snapshot = {p.relative_to(rep): p.read_bytes() for p in rep.rglob("*") if p.is_file()}

    def killed(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(H, "table_html", killed)
    code, _, err = run_main(["report", ds, "--no-progress"], capsys)
    assert code == 130 and "Traceback" not in err
    assert {p.relative_to(rep): p.read_bytes() for p in rep.rglob("*") if p.is_file()} \
        == snapshot  # no hidden build folder left, nothing changed
    monkeypatch.undo()
    assert run_main(["report", ds, "--no-progress"], capsys)[0] == 0
    assert not (rep / "tables" / "stale_table.csv").exists()
    assert not (rep / "figures" / "stale_figure.png").exists()
    assert [p.name for p in rep.iterdir() if p.name.startswith(".")] == []
    assert (rep / "report.html").stat().st_mtime_ns >= (rep / "report.json").stat().st_mtime_ns


def test_a_refused_report_creates_no_folders(tmp_path, capsys):
    ds = tmp_path / "empty"
    (ds / "games").mkdir(parents=True)
    # a dataset whose run wrote a manifest and no part yet
    (ds / "manifest.json").write_text(json.dumps({
        "format": D.FORMAT, "format_version": 2, "games": 10, "batch_size": 5,
        "variants": ["baseline"]}))
    code, _, err = run_main(["report", ds, "--no-progress", "--out", tmp_path / "a" / "b"],
                            capsys)
    assert code == 2
    one_line(err, "no complete parts to analyse")
    assert not (tmp_path / "a").exists() and not (ds / "report").exists()


SMALL = """
name = "small"
games = 1
players = 4
strategies = ["default", "random", "builder", "city"]
[variants.friendly]
rules = { robber = "friendly" }
"""


@pytest.mark.parametrize("games, seed", [(1, s) for s in range(1, 5)] + [(10, 1), (3, 2)])
def test_a_report_of_a_tiny_dataset_leaves_out_what_it_cannot_draw_in_one_line(
        tmp_path, capsys, games, seed):
    (tmp_path / "small.toml").write_text(SMALL)
    out = tmp_path / "ds"
    run_experiment(load_experiment(tmp_path / "small.toml").with_overrides(
        games=games, seed=seed), out=out, progress=False)
    code, stdout, err = run_main(["report", out, "--no-progress"], capsys)
    assert code == 0, err
    assert "Traceback" not in err and "Warning:" not in err.replace("catansim: warning:", "")
    for line in err.splitlines():
        assert line.startswith("catansim: warning: report: section"), line
    page = (out / "report" / "report.html").read_text()
    info = json.loads((out / "report" / "report.json").read_text())
    for note in info["notes"]:
        if " left out: " in note:
            assert note in err
    assert "Game anatomy" in page and "Starting position" in page


def test_the_win_model_of_an_interrupted_huge_dataset_samples_the_games_present(tmp_path,
                                                                                capsys):
    """games = 10**12, two or three parts of 100 played: the stride comes from the games
    there (every game), not the 10**12 planned (a stride of 2e7: no game at all)."""
    out = tmp_path / "huge"
    _stopped_run({"games": 10**12, "batch_size": 100, "seed": 3,
                  "strategies": ["default", "random", "builder", "city"]}, out, 2)
    present = D.games_present(out)["baseline"]  # the stopped parts and the one in flight
    assert present in (200, 300)
    code, _, err = run_main(["report", out, "--no-progress"], capsys)
    assert code == 0
    one_line(err, f"incomplete dataset: {present} of 1,000,000,000,000 games",
             prefix="catansim: warning: ")
    coef = pd.read_csv(out / "report" / "tables" / "win_model.csv")
    n_fit = int(coef["n"].iloc[0])  # the seat-games fitted: all but the held-out 30%
    assert 0.6 * 4 * present < n_fit < 0.8 * 4 * present


def test_games_without_a_winner_say_so_in_report_and_tournament(tmp_path, capsys):
    (tmp_path / "mt.toml").write_text(SMALL.replace("games = 1", "games = 40").replace(
        'name = "small"', 'name = "mt"\nrules = { max_turns = 1 }'))
    out = tmp_path / "mt"
    run_experiment(load_experiment(tmp_path / "mt.toml"), out=out, progress=False)
    code, _, err = run_main(["report", out, "--no-progress"], capsys)
    assert code == 0 and err == "", err
    page = (out / "report" / "report.html").read_text()
    assert "The rating is left out: no game had a winner." in page
    code, stdout, err = run_main(["tournament", "--games", "20", "--rule", "max_turns=1",
                                  "--quiet"], capsys)
    assert code == 0 and err == ""
    assert "Rating: left out, no game had a winner (all 20 ended without one" in stdout
    from catansim.analysis.strategies import fit_rating

    counts = pd.Series([5], index=pd.MultiIndex.from_tuples(
        [("a", "b", "a", "b", -1)], names=["seat_0", "seat_1", "seat_2", "seat_3", "winner"]))
    with pytest.raises(CatansimError, match="no game had a winner"):
        fit_rating(counts)


# --- tracebacks: huge integers and deep nesting in input files --------------------------


BIG = "1" + "0" * 5000
DEEP = "[" * 100_000 + "]" * 100_000


@pytest.mark.parametrize("text, reason", [
    (f'name = "x"\ngames = {BIG}\n', "an integer of more than 4300 digits"),
    (f'name = "x"\ngames = 2\nseed = {BIG}\n', "an integer of more than 4300 digits"),
    (f'name = "x"\ngames = 2\nx = {DEEP}\n', "nested too deep"),
])
def test_an_experiment_with_a_huge_integer_or_deep_nesting_is_one_line(tmp_path, capsys, text,
                                                                       reason):
    (tmp_path / "e.toml").write_text(text)
    code, _, err = run_main(["run", tmp_path / "e.toml", "--out", tmp_path / "o"], capsys)
    assert code == 2
    one_line(err, "e.toml: invalid TOML", reason, "allowed: a TOML experiment file")
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("value, reason", [(BIG, "an integer of more than 4300 digits"),
                                           (DEEP, "nested too deep")])
def test_a_strategy_config_with_a_huge_integer_or_deep_nesting_is_one_line(tmp_path, capsys,
                                                                           value, reason):
    (tmp_path / "c.toml").write_text(f'[strategies.x]\nbase = "default"\nfoo = {value}\n')
    code, _, err = run_main(["tournament", "--games", "4", "--config", tmp_path / "c.toml"],
                            capsys)
    assert code == 2
    one_line(err, "--config:", "c.toml: invalid TOML", reason)
    (tmp_path / "e.toml").write_text('name = "x"\ngames = 2\nstrategy_defs = "c.toml"\n')
    code, _, err = run_main(["run", tmp_path / "e.toml", "--out", tmp_path / "o"], capsys)
    assert code == 2
    one_line(err, "e.toml: strategy_defs:", "c.toml: invalid TOML", reason)


@pytest.mark.parametrize("line, reason", [
    ('{"e": "x", "v": 1' + "0" * 5_000_000 + "}", "an integer of more than 4300 digits"),
    (DEEP, "nested too deep")])
def test_a_game_log_with_a_huge_integer_or_deep_nesting_is_one_line(tmp_path, capsys, line,
                                                                    reason):
    log = tmp_path / "g.jsonl"
    assert run_main(["play", "--seed", "3", "--log", log], capsys)[0] == 0
    lines = log.read_text().splitlines()
    log.write_text("\n".join([lines[0], line, *lines[1:]]) + "\n")
    code, _, err = run_main(["replay", log], capsys)
    assert code == 2
    one_line(err, "g.jsonl:2: not JSON", reason)


# --- tracebacks and smaller cases of the commands ---------------------------------------


@pytest.mark.parametrize("value", ["0", "-1", "abc"])
def test_numba_num_threads_that_numba_cannot_take_is_one_line(capsys, monkeypatch, value):
    monkeypatch.setenv("NUMBA_NUM_THREADS", value)
    code, _, err = run_main(["simulate", "--games", "4"], capsys)
    assert code == 2
    one_line(err, f"NUMBA_NUM_THREADS: {value!r} is not allowed; allowed: an integer >= 1")


def test_numba_num_threads_zero_in_a_fresh_process_is_one_line(tmp_path):
    """Numba reads the variable when it is imported: a new process, as a user runs it."""
    import subprocess

    from cli_harness import ENV, PYTHON

    r = subprocess.run([PYTHON, "-m", "catansim.cli", "simulate", "--games", "4"],
                       env=dict(ENV, NUMBA_NUM_THREADS="0"), capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 2
    one_line(r.stderr, "NUMBA_NUM_THREADS: '0' is not allowed")


def test_openings_with_a_billion_games_does_not_name_batch_size(capsys, monkeypatch):
    """--games beyond a part's size: the parts are cut at the default batch size, and
    what is refused (here the disk) names --games' consequence, never batch_size."""
    from catansim.runs import runner

    monkeypatch.setattr(runner, "DISK_PER_GAME", 10**9)  # any disk is too small
    code, _, err = run_main(["openings", "--layout", "beginner", "--games", "1000000000",
                             "--no-progress"], capsys)
    assert code == 1
    line = err.strip().splitlines()[-1]
    assert "batch_size" not in line and "too little space left on device" in line
    assert "Traceback" not in err


def test_a_run_too_big_for_the_disk_is_refused_up_front_unless_forced(files, tmp_path,
                                                                      capsys):
    out = tmp_path / "huge"
    args = ["run", files / "exp.toml", "--out", out, "--no-progress", "--no-summary",
            "--games", str(10**12)]
    code, _, err = run_main(args, capsys)
    assert code == 1
    one_line(err, str(out), "too little space left on device", "TB more",
                    "2,000,000,000,000 games at 130 bytes each", "--force", "nothing written")
    assert not out.exists()
    # a dataset's own parts say how big a game is: here, tiny parts of 5 games
    shutil.copytree(files / "ref", out)
    code, _, err = run_main(args, capsys)
    per_game = sum(f.stat().st_size for f in out.rglob("*.parquet")) / 60
    assert code == 1 and f"at {per_game:,.0f} bytes each" in err
    assert "1,999,999,999,940 games" in err
    # force=True (--force) starts anyway: stopped here after its first new part
    exp = load_experiment(files / "exp.toml").with_overrides(games=10**12)

    def stop(task):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_experiment(exp, out=out, progress=False, force=True, on_part=stop)
    assert len(_quiet_load(out)[0]) > 60


def test_simulate_tournament_and_play_say_when_they_compile(capsys, monkeypatch):
    """A cold kernel cache makes the first game wait about a minute: every command that
    plays says so first, in one line (the cache is warm here: it is made cold)."""
    from catansim.compile_progress import COMPILING
    from catansim.core import compiling

    monkeypatch.setattr(compiling, "kernels_cached", lambda: False)
    for argv in (["simulate", "--games", "4"], ["tournament", "--games", "4", "--quiet"],
                 ["play", "--seed", "1", "--strategies", "default"]):
        code, out, err = run_main(argv, capsys)
        assert code == 0 and out
        lines = err.replace("\r", "\n").splitlines()
        assert lines[0] == COMPILING, err
        # the cold compile's progress line, if this process had not loaded the kernels yet
        assert all(x.startswith("compiling the kernels: ") for x in lines[1:] if x), err
    monkeypatch.setattr(compiling, "kernels_cached", lambda: True)
    assert run_main(["simulate", "--games", "4"], capsys)[2] == ""


def test_run_says_it_compiles_before_any_game_compiles_the_kernels(tmp_path, capsys,
                                                                   monkeypatch):
    """``catansim run`` on a cold cache: the first kernel use (here the manifest's digest
    of the engine's games, made cold too) finds the compile's progress asked for, so the
    compile is not silent."""
    from catansim import engine
    from catansim.compile_progress import COMPILING
    from catansim.core import compiling

    said = []  # at each cold compile: had the command asked for its progress?
    monkeypatch.setattr(compiling, "kernels_cached", lambda: False)
    monkeypatch.setattr(compiling, "_ready", False)
    monkeypatch.setattr(compiling, "_make_progress", None)
    monkeypatch.setattr(compiling, "_cold_compile",
                        lambda: said.append(compiling._make_progress is not None))
    monkeypatch.setattr(engine, "games_digest_file", lambda: tmp_path / "no-digest-kept")
    engine.games_digest.cache_clear()
    try:
        code, out, err = run_main(["run", str(ROOT / "experiments" / "quickstart.toml"),
                                   "--games", "4", "--out", str(tmp_path / "out")], capsys)
    finally:
        engine.games_digest.cache_clear()
    assert code == 0 and out
    assert said == [True]
    assert err.replace("\r", "\n").splitlines()[0] == COMPILING, err


CHILD = ("import os, subprocess, sys, time; "
         "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(300)']); "
         "open(os.environ['HELPER_PID'], 'w').write(str(p.pid)); time.sleep(300)")
BENCH = """
import signal, sys
from catansim.errors import Interrupted, raise_interrupted
from catansim.runs import bench
signal.signal(signal.SIGTERM, raise_interrupted)
bench._COMPILE_SNIPPET = sys.argv[1]
try:
    bench.compile_times()
except Interrupted:
    sys.exit(143)
"""


def test_sigterm_during_the_cold_compile_of_bench_leaves_no_helper_and_no_folder(tmp_path):
    """The compile child starts a helper (as catansim.core.compiling does); a signal to bench
    kills the child's whole process group and removes the temporary cache folder."""
    import signal
    import subprocess
    import time

    from cli_harness import ENV, PYTHON

    pid_file = tmp_path / "helper.pid"
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    proc = subprocess.Popen([PYTHON, "-c", BENCH, CHILD],
                            env=dict(ENV, TMPDIR=str(tmp), HELPER_PID=str(pid_file)))
    try:
        for _ in range(3000):
            if pid_file.exists() and pid_file.read_text():
                break
            time.sleep(0.01)
        helper = int(pid_file.read_text())
        assert [p.name for p in tmp.iterdir()][0].startswith("catansim-numba-")
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=60) == 143
        for _ in range(500):
            try:
                os.kill(helper, 0)
            except ProcessLookupError:
                break
            time.sleep(0.01)
        else:
            os.kill(helper, signal.SIGKILL)
            pytest.fail("the helper outlived bench")
        assert list(tmp.iterdir()) == []
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.mark.parametrize("name, text, reason", [
    ("b.toml", f"x = {BIG}\n", "invalid TOML (an integer of more than 4300 digits)"),
    ("b.json", '{"x": ' + BIG + "}", "invalid JSON (an integer of more than 4300 digits)"),
    ("d.json", "{\"x\": " + DEEP + "}", "invalid JSON (nested too deep)")])
def test_a_board_file_with_a_huge_integer_or_deep_nesting_is_one_line(tmp_path, capsys, name,
                                                                       text, reason):
    (tmp_path / name).write_text(text)
    code, _, err = run_main(["simulate", "--games", "4", "--board", tmp_path / name], capsys)
    assert code == 2
    one_line(err, f"--board: {name}: {reason}")
