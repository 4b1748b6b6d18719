"""Runs: determinism across threads and batch sizes, atomic parts, resume, the CLI."""

import json
import os
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pandas as pd
import pytest

import catansim
from catansim.cli import main
from catansim.engine import batch_seeds, play_game
from catansim.errors import CatansimError
from catansim.results import read_manifest
from catansim.runs.experiment import load_experiment, parse_experiment
from catansim.runs.runner import n_parts, plan, run_experiment

ROOT = Path(__file__).resolve().parent.parent

EXP = """
name = "small"
games = 60
players = 4
seed = 17
strategies = ["default", "random", "builder", "city"]
rotate = true
batch_size = 25
[variants.friendly]
rules = { robber = "friendly" }
"""


@pytest.fixture
def exp_file(tmp_path):
    path = tmp_path / "small.toml"
    path.write_text(EXP)
    return path


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """An uninterrupted run with 2 threads."""
    tmp = tmp_path_factory.mktemp("ref")
    path = tmp / "small.toml"
    path.write_text(EXP)
    exp = load_experiment(path)
    run_experiment(exp, out=tmp / "out", n_threads=2, progress=False)
    return catansim.load(tmp / "out")


def _same(a, b):
    for x, y in zip(a, b, strict=True):
        pd.testing.assert_frame_equal(x, y)


def test_dataset_shape_and_manifest(reference, tmp_path, exp_file):
    games, players = reference
    assert len(games) == 2 * 60 and len(players) == 2 * 60 * 4
    assert not games.duplicated(["variant", "game"]).any()
    assert games.groupby("variant", observed=True).game.apply(list).map(
        lambda g: g == list(range(60))).all()
    # common random numbers: both variants play the same seeds and boards
    base = games[games.variant == "baseline"].reset_index(drop=True)
    friendly = games[games.variant == "friendly"].reset_index(drop=True)
    assert (base.seed == friendly.seed).all() and (base.board_id == friendly.board_id).all()
    assert (base.seed.to_numpy() == batch_seeds(17, 60)).all()
    # rotation: game i shifts the seats by i % 4
    g5 = base.iloc[5]
    assert (g5.strategy_1, g5.strategy_2) == ("default", "random")
    assert isinstance(games.variant.dtype, pd.CategoricalDtype)
    assert isinstance(players.strategy.dtype, pd.CategoricalDtype)


def test_one_thread_and_other_batch_sizes_give_identical_tables(reference, tmp_path, exp_file):
    exp = load_experiment(exp_file).with_overrides(batch_size=60)
    run_experiment(exp, out=tmp_path / "one", n_threads=1, progress=False)
    _same(catansim.load(tmp_path / "one"), reference)


def test_metadata_in_manifest_and_parts(tmp_path, exp_file):
    import pyarrow.parquet as pq

    exp = load_experiment(exp_file).with_overrides(games=30)
    run_experiment(exp, out=tmp_path / "o", progress=False)
    m = read_manifest(tmp_path / "o")
    assert m["experiment_text"] == EXP and m["base_seed"] == 17
    assert m["catansim_version"] == catansim.__version__
    assert m["result_hash"] == exp.result_hash()
    part = tmp_path / "o" / "games" / "part-friendly-000000000025-000000000030.parquet"
    meta = json.loads(pq.read_schema(part).metadata[b"catansim"])
    assert (meta["variant"], meta["start"], meta["stop"], meta["base_seed"]) == (
        "friendly", 25, 30, 17)
    assert meta["experiment_text"] == EXP


def test_interrupted_run_resumes_without_gap_or_duplicate(reference, tmp_path, exp_file):
    exp = load_experiment(exp_file)
    out = tmp_path / "out"
    seen = []

    def stop_after_three(task):
        seen.append(task)
        if len(seen) == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_experiment(exp, out=out, progress=False, on_part=stop_after_three)
    # the write in flight (the part after the third) completes before the interrupt ends the run
    n_done = len(list((out / "games").glob("part-*.parquet")))
    assert 3 <= n_done <= 4
    report = run_experiment(exp, out=out, progress=False)
    assert report.parts_skipped == n_done and report.parts_written == n_parts(exp) - n_done
    assert n_parts(exp) == len(list(plan(exp))) == 6
    assert report.warmup_seconds > 0  # the kernels were readied before the timed games
    _same(catansim.load(out), reference)
    again = run_experiment(exp, out=out, progress=False)
    assert again.parts_written == 0 and again.warmup_seconds == 0.0  # nothing to play


def test_killed_cli_run_resumes(reference, tmp_path, exp_file):
    """SIGKILL the CLI after its first part appears, rerun it, compare."""
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "catansim.cli", "run", str(exp_file), "--out", str(out),
           "--batch-size", "5", "--no-progress"]
    # batch size 5 changes the parts but not the games: rerun with the same option
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.time() + 600
    while time.time() < deadline and proc.poll() is None:
        if list((out / "games").glob("part-*.parquet")):
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    n_before = len(list((out / "games").glob("part-*.parquet")))
    assert n_before >= 1
    subprocess.run(cmd, check=True, capture_output=True)
    assert not list(out.rglob("*.tmp"))
    _same(catansim.load(out), reference)


def test_partial_part_files_are_not_read(tmp_path, exp_file):
    exp = load_experiment(exp_file).with_overrides(games=25)
    out = tmp_path / "o"
    run_experiment(exp, out=out, progress=False)
    # what a kill between the two renames leaves: a players file without its games file
    # and without its record, and a temporary file
    log = out / "parts.jsonl"
    lines = log.read_text().splitlines(keepends=True)
    assert len(lines) == 2 and '"variant":"friendly"' in lines[1]
    log.write_text(lines[0])
    (out / "games" / "part-friendly-000000000000-000000000025.parquet").unlink()
    (out / "games" / ".part-x.parquet.123.tmp").write_bytes(b"garbage")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an unrecorded part is not complete: no warning
        games, players = catansim.load(out)
    assert set(games.variant) == {"baseline"} and set(players.variant) == {"baseline"}
    report = run_experiment(exp, out=out, progress=False)  # redoes the part, cleans up
    assert (report.parts_skipped, report.parts_written) == (1, 1)
    games, players = catansim.load(out)
    assert len(games) == 50 and len(players) == 200
    assert not list(out.rglob("*.tmp"))
    assert len(log.read_text().splitlines()) == 2


def test_resume_refuses_changed_settings(tmp_path, exp_file):
    exp = load_experiment(exp_file).with_overrides(games=25)
    out = tmp_path / "o"
    run_experiment(exp, out=out, progress=False)
    with pytest.raises(CatansimError, match="different settings .changed: seed"):
        run_experiment(exp.with_overrides(seed=1), out=out, progress=False)
    exp_file.write_text(EXP.replace('"friendly"', '"off"'))
    with pytest.raises(CatansimError, match="changed: variants.friendly.rules.robber: "
                                            "'friendly' -> 'off'"):
        run_experiment(load_experiment(exp_file).with_overrides(games=25), out=out,
                       progress=False)
    with pytest.raises(CatansimError, match="does not fit games=20"):
        run_experiment(exp.with_overrides(games=20), out=out, progress=False)
    # more games extend the run when the earlier parts still fit
    report = run_experiment(exp.with_overrides(games=50), out=out, progress=False)
    assert report.parts_skipped == 2 and report.parts_written == 2
    with pytest.raises(CatansimError, match="part-baseline-000000000025-000000000050 does not fit"):
        run_experiment(exp.with_overrides(games=40), out=out, progress=False)


def test_a_loaded_game_replays_through_play_game(reference, exp_file):
    games, players = reference
    exp = load_experiment(exp_file)
    row = games[(games.variant == "friendly") & (games.game == 42)].iloc[0]
    settings = exp.settings("friendly", shift=42 % 4)
    res = play_game(int(row.seed), settings=settings, log=False)
    assert res.winner == (None if pd.isna(row.winner) else int(row.winner))
    assert res.turns == row.turns
    p = players[(players.variant == "friendly") & (players.game == 42)]
    assert list(p.vp) == res.vp
    assert list(p.strategy.astype(str)) == list(settings.strategies)


def test_cli_run_end_to_end_and_errors(tmp_path, exp_file, capsys):
    out = tmp_path / "cli"
    main(["run", str(exp_file), "--games", "10", "--seed", "4", "--out", str(out),
          "--no-progress"])
    assert "2 parts written" in capsys.readouterr().out
    games, players = catansim.load(out)
    assert len(games) == 20 and (games.seed.iloc[:10].to_numpy() == batch_seeds(4, 10)).all()
    main(["run", str(exp_file), "--games", "10", "--seed", "4", "--out", str(out),
          "--no-progress"])
    assert "0 parts written, 2 already done" in capsys.readouterr().out
    bad = tmp_path / "bad.toml"
    bad.write_text("games = 5\nplayers = 6\n")
    with pytest.raises(SystemExit) as err:
        main(["run", str(bad)])
    assert err.value.code == 2
    assert capsys.readouterr().err.strip() == (
        f"catansim: error: {bad}: players: 6 is not allowed; allowed: 3, 4")


def test_cli_simulate_prints_the_summary(capsys):
    main(["simulate", "--games", "40", "--strategies", "default,random,default,random",
          "--rotate", "--rule", "robber=friendly", "--threads", "1"])
    text = capsys.readouterr().out
    for heading in ("Win rate by strategy", "Win rate by seat", "Game length", "VP sources"):
        assert heading in text
    with pytest.raises(SystemExit):
        main(["simulate", "--games", "5", "--strategies", "default,random"])
    assert "strategies: 2 strategies for 4 players" in capsys.readouterr().err


def test_memory_is_bounded_by_the_batch(tmp_path):
    """The runner keeps at most two batches of frames: more games, same peak frames."""
    import catansim.runs.runner as R

    sizes = []
    real = R.write_part

    def spy(root, exp, task, games, players):
        sizes.append(len(games))
        return real(root, exp, task, games, players)

    R.write_part = spy
    try:
        exp = parse_experiment({"games": 40, "batch_size": 10, "strategies": "random"})
        run_experiment(exp, out=tmp_path / "m", progress=False)
    finally:
        R.write_part = real
    assert sizes == [10, 10, 10, 10]


def test_quickstart_is_runnable_shortened(tmp_path):
    exp = load_experiment(ROOT / "experiments" / "quickstart.toml").with_overrides(games=8)
    report = run_experiment(exp, out=tmp_path / "q", progress=False)
    assert report.games_written == 8
    assert os.path.exists(tmp_path / "q" / "manifest.json")


def test_summary_read_part_by_part_equals_the_summary_of_the_loaded_dataset(tmp_path, exp_file):
    from catansim.analysis import summarize, summarize_dataset

    exp = load_experiment(exp_file)
    out = tmp_path / "o"
    run_experiment(exp, out=out, progress=False)  # 3 parts per variant, the last one short
    by_part = summarize_dataset(out)
    assert list(by_part) == ["baseline", "friendly"]
    games, players = catansim.load(out)
    for variant, tables in by_part.items():
        whole = summarize(games[games.variant == variant], players[players.variant == variant])
        for name, table in whole.items():
            pd.testing.assert_frame_equal(tables[name], table)
    assert list(summarize_dataset(out, ["friendly"])) == ["friendly"]
    with pytest.raises(CatansimError, match="not a catansim dataset"):
        summarize_dataset(tmp_path)
