"""The Dask path: a real LocalCluster with 2 worker processes gives the local run's tables."""

import pandas as pd
import pytest

import catansim
from catansim.runs.experiment import parse_experiment
from catansim.runs.runner import run_experiment

distributed = pytest.importorskip("dask.distributed")

SPEC = {"name": "dask", "games": 300, "players": 4, "seed": 99, "batch_size": 60,
        "strategies": ["default", "random", "builder", "city"], "rotate": True,
        "variants": {"friendly": {"rules": {"robber": "friendly"}}}}


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address=None) as c:
        yield c


def test_dask_run_equals_local_run(cluster, tmp_path):
    exp = parse_experiment(SPEC)
    run_experiment(exp, out=tmp_path / "local", n_threads=2, progress=False)
    report = run_experiment(exp, out=tmp_path / "dask", n_threads=1,
                            scheduler=cluster.scheduler_address, progress=False)
    assert report.parts_written == 10 and report.games_written == 600
    local, remote = catansim.load(tmp_path / "local"), catansim.load(tmp_path / "dask")
    for a, b in zip(local, remote, strict=True):
        pd.testing.assert_frame_equal(a, b)
    assert len(remote[0]) == 600 and len(remote[1]) == 2400


def test_dask_run_resumes_a_local_run(cluster, tmp_path):
    exp = parse_experiment(SPEC)
    out = tmp_path / "mixed"
    run_experiment(exp.with_overrides(games=120), out=out, progress=False)
    report = run_experiment(exp, out=out, scheduler=cluster.scheduler_address, progress=False)
    assert report.parts_skipped == 4 and report.parts_written == 6
    games, _ = catansim.load(out)
    assert not games.duplicated(["variant", "game"]).any() and len(games) == 600


def test_a_python_player_by_name_plays_on_the_workers_as_locally(cluster, tmp_path):
    """The workers make the player from its name (tests/players_example.py, on the path
    the worker processes inherit) and play its games as the local run does."""
    spec = dict(SPEC, name="python", games=40, batch_size=20, variants={},
                strategies=["python:players_example:Unpicklable", "default", "random",
                            "default"])
    exp = parse_experiment(spec)
    run_experiment(exp, out=tmp_path / "local", progress=False)
    report = run_experiment(exp, out=tmp_path / "dask", scheduler=cluster.scheduler_address,
                            progress=False)
    assert report.parts_written == 2 and report.games_written == 40
    local, remote = catansim.load(tmp_path / "local"), catansim.load(tmp_path / "dask")
    for a, b in zip(local, remote, strict=True):
        pd.testing.assert_frame_equal(a, b)
    python_rows = remote[1]["strategy"].astype(str) == "python:players_example:Unpicklable"
    assert python_rows.sum() == 40 and remote[1].loc[python_rows, "seat"].nunique() == 4


def test_analyses_on_the_cluster_equal_the_local_ones(cluster, tmp_path):
    """The report's analyses, one task per range of games on the workers, give the local
    results bit for bit."""
    from catansim import analysis as A
    from catansim.analysis.driver import run_many
    from catansim.reports.build import report_analyses

    out = tmp_path / "ds"
    run_experiment(parse_experiment(SPEC), out=out, n_threads=1, progress=False)
    analyses = report_analyses(out)
    local = run_many(analyses, out)
    remote = run_many(analyses, out, scheduler=cluster.scheduler_address)
    assert len(local) == len(analyses) >= 10
    for a, b in zip(local, remote, strict=True):
        if isinstance(a, dict):
            assert a.keys() == b.keys()
            for k in a:
                pd.testing.assert_frame_equal(a[k], b[k], check_exact=True)
        else:
            pd.testing.assert_frame_equal(a, b, check_exact=True)
    with distributed.Client(cluster.scheduler_address) as client:  # a Client works too
        pd.testing.assert_frame_equal(A.paired_differences(out, scheduler=client), local[
            [a.name for a in analyses].index("paired")])


def test_unreachable_scheduler_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setattr("catansim.runs.runner.CONNECT_TIMEOUT", "1s")
    exp = parse_experiment({"games": 5})
    with pytest.raises(catansim.errors.CatansimError, match="cannot connect"):
        run_experiment(exp, out=tmp_path / "x", scheduler="tcp://127.0.0.1:1", progress=False)
