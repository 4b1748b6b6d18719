"""``catansim tune``: common random numbers, a known optimum, the budget, resuming after
kill -9, Dask workers, and the outputs (small budgets throughout)."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import time
from contextlib import closing

import numpy as np
import pytest
from cli_harness import popen_cli, run_cli

from catansim.core import layout as L
from catansim.engine import batch_seeds, play_batch
from catansim.errors import CatansimError
from catansim.settings import GameSettings
from catansim.strategies import PRESETS

optuna = pytest.importorskip("optuna")

from catansim.tuning.arena import play_deals, seatings  # noqa: E402
from catansim.tuning.run import tune  # noqa: E402
from catansim.tuning.spec import parse_spec  # noqa: E402
from catansim.tuning.study import full_trials, games_used, open_study  # noqa: E402

# A start whose maritime trading is off: the search must turn it back on.
NO_BANK = {
    "name": "banker",
    "strategy": "no_bank",
    "strategies": {"no_bank": {"base": "default", "bank_trade": "never"}},
    "params": {"bank_trade": "full"},
    "field": {"tables": [["default", "default", "default"]]},
    "sampler": "random",
    "seed": 3,
    "budget": {"trials": 6},
    "evaluation": {"deals": 40, "instance": 10, "p_threshold": 1.0},
    "heldout": {"deals": 60, "presets": ["default", "army"]},
}


def test_seatings_put_the_candidate_in_every_seat_with_the_whole_table():
    table = ("army", "city", "trader")
    rows = seatings(table, 4)
    assert [r.index("candidate") for r in rows] == [0, 1, 2, 3]
    for r in rows:
        assert sorted(n for n in r if n != "candidate") == sorted(table)
    # each opponent of a mixed table sits in more than one seat
    assert len({r.index("army") for r in rows}) > 1
    assert [r.index("candidate") for r in seatings(("a", "b"), 3)] == [0, 1, 2]


def test_a_candidate_equal_to_its_field_wins_exactly_one_seat_of_each_deal():
    """Four identical rows play the same game in every rotation: the candidate wins in
    exactly the rotation that seats it where the game's winner sits (oracle: the same
    seeds played by four `default` players)."""
    spec = parse_spec({**NO_BANK, "strategy": "default", "strategies": {}})
    wins = play_deals(spec, {}, np.arange(30), n_threads=1)
    seeds = batch_seeds(spec.seed, 30)
    batch = play_batch(seeds, GameSettings(strategies=("default",) * 4), n_threads=1)
    has_winner = L.counter(batch.counters, "c_winner") >= 0
    np.testing.assert_array_equal(wins, has_winner.astype(np.int32))


def test_deals_are_common_random_numbers_whatever_the_order_or_batch():
    spec = parse_spec(NO_BANK)
    row = {"bank_trade": 2.0, "dev_weight": 1.2}
    whole = play_deals(spec, row, np.arange(20), n_threads=1)
    order = np.random.default_rng(0).permutation(20)
    shuffled = play_deals(spec, row, order, n_threads=1)
    np.testing.assert_array_equal(shuffled, whole[order])
    halves = np.concatenate([play_deals(spec, row, np.arange(10), n_threads=1),
                             play_deals(spec, row, np.arange(10, 20), n_threads=1)])
    np.testing.assert_array_equal(halves, whole)
    assert whole.min() >= 0 and whole.max() <= spec.games_per_deal


@pytest.fixture(scope="module")
def banker(tmp_path_factory):
    out = tmp_path_factory.mktemp("banker")
    return tune(NO_BANK, out, n_threads=1), out


def test_the_search_finds_the_known_optimum(banker):
    """Maritime trades off ("never") is the start; a sweep of the three settings on the
    same training and selection deals (an independent oracle) says which is best, and the
    search, which evaluates the same deals, returns it."""
    result, _ = banker
    spec = result.spec
    n = spec.deals + spec.selection_deals
    sweep = {w: play_deals(spec, {"bank_trade": v}, np.arange(n), n_threads=1)
             for w, v in (("never", 0.0), ("complete", 1.0), ("progress", 2.0))}
    rates = {w: s[:spec.deals].sum() / (spec.deals * spec.games_per_deal)
             for w, s in sweep.items()}
    combined = {w: s.sum() / (n * spec.games_per_deal) for w, s in sweep.items()}
    seen = {t.params["bank_trade"] for t in full_trials(result.study)}
    assert seen == {"never", "complete", "progress"}
    best = max(combined, key=combined.get)
    assert result.row["bank_trade"] == {"never": 0.0, "complete": 1.0, "progress": 2.0}[best]
    assert result.selection.loc[result.best_trial, "combined"] == pytest.approx(combined[best])
    assert rates["never"] < rates[best] - 0.05  # trading matters: a large, known effect
    # each full trial's value is the sweep's rate of its setting (the same deals)
    for t in full_trials(result.study):
        assert t.value == pytest.approx(rates[t.params["bank_trade"]])


def test_the_outputs_load_and_agree(banker):
    result, out = banker
    defs = PRESETS.with_definitions({"strategies": {"no_bank": {"base": "default",
                                                                "bank_trade": 0}}})
    tuned = defs.with_definitions(out / "banker.toml")["banker"]
    assert tuned.param_dict() == result.params()
    summary = json.loads((out / "summary.json").read_text())
    assert summary["trials"] == 6 and summary["training_games"] == games_used(result.study)
    cell = summary["heldout_vs_copies"]["default"]
    assert cell["games"] == 60 * 4 and cell["ci_low"] <= cell["win_rate"] <= cell["ci_high"]
    paired = result.heldout.paired
    h = result.heldout
    for o in ("default", "army"):  # the paired mean is the difference of the two cells
        diff = h.cell("banker", o)["win_rate"] - h.cell("no_bank", o)["win_rate"]
        assert paired.loc[o, "diff"] == pytest.approx(diff)
        assert paired.loc[o, "ci_low"] < paired.loc[o, "diff"] < paired.loc[o, "ci_high"]
    # against copies of the start, the start itself wins one seat of each deal (4 identical
    # players): its rate is a quarter of the deals with a winner
    assert 0.24 <= paired.loc["no_bank", "start"] <= 0.25
    assert paired.loc["no_bank", "tuned"] == pytest.approx(h.cell("banker", "no_bank")["win_rate"])
    html = (out / "report.html").read_text()
    for title in ("Convergence", "Tuned against starting parameters", "Head to head"):
        assert title in html
    for png in ("convergence", "parameters", "heldout_matrix"):
        assert (out / "figures" / f"{png}.png").stat().st_size > 1000
    trials = (out / "trials.csv").read_text().splitlines()
    assert len(trials) == 1 + 6


def test_a_rerun_with_the_budget_spent_plays_nothing(banker, tmp_path):
    result, out = banker
    before = games_used(result.study)
    lines = []
    again = tune(NO_BANK, out, n_threads=1, heldout=False, report=False, progress=lines.append)
    assert games_used(again.study) == before and len(again.study.trials) == 6
    url = f"sqlite:///{out.resolve() / 'study.sqlite3'}"
    assert lines == [f"resuming study 'banker' in {url}: 6 trials found (6 complete)"]


def test_p_threshold_one_drops_no_candidate(tmp_path, monkeypatch):
    """p_threshold = 1 is "no racing": Optuna's Wilcoxon pruner drops a candidate whenever
    p < 1, so none is used. One instance per pruning decision, so that it has many."""
    from catansim.tuning import study as S

    monkeypatch.setattr(S, "BATCH_GAMES", 40)
    spec = {**NO_BANK, "name": "all", "strategy": "default", "strategies": {},
            "params": {"dev_weight": [0.1, 3.0], "city_weight": [0.1, 3.0]},
            "budget": {"trials": 8}, "evaluation": {"deals": 80, "instance": 10,
                                                    "p_threshold": 1.0}}
    result = tune(spec, tmp_path, n_threads=1, heldout=False, report=False)
    states = [t.state.name for t in result.study.trials]
    assert states == ["COMPLETE"] * 8
    assert all(t.user_attrs["full"] and t.user_attrs["games"] == 80 * 4
               for t in result.study.trials)


def test_the_games_budget_stops_the_search(tmp_path):
    spec = {**NO_BANK, "name": "g", "budget": {"games": 500}}
    result = tune(spec, tmp_path, n_threads=1, heldout=False, report=False)
    per_trial = 40 * 4
    assert 500 <= result.games < 500 + per_trial


def test_racing_drops_a_clearly_worse_candidate_early(tmp_path):
    """With racing on, `never` (far worse than the best) stops before the last deal."""
    spec = {**NO_BANK, "name": "race", "evaluation": {"deals": 200, "instance": 10,
                                                      "p_threshold": 0.1},
            "strategy": "default", "strategies": {}, "budget": {"trials": 8}}
    result = tune(spec, tmp_path, n_threads=1, heldout=False, report=False)
    never = [t for t in result.study.trials if t.params.get("bank_trade") == "never"]
    assert never and all(not t.user_attrs["full"] for t in never)
    assert all(t.user_attrs["games"] < 200 * 4 for t in never)


def _spec_file(tmp_path, trials: int, deals: int = 80) -> str:
    path = tmp_path / "kill.toml"
    path.write_text(f"""
name = "kill"
strategy = "default"
sampler = "random"
[params]
dev_weight = [0.2, 1.5]
city_weight = [0.5, 2.0]
[budget]
trials = {trials}
[evaluation]
deals = {deals}
instance = 10
p_threshold = 1.0
""")
    return str(path)


def _finished(url: str) -> list:
    try:
        study = optuna.load_study(study_name="kill", storage=url)
    except KeyError:  # the database is there, the study not yet
        return []
    return [t for t in study.get_trials(deepcopy=False) if t.state.is_finished()]


def _finished_count(path) -> int:
    """Finished trials in the database at ``path``, read-only: polling must not race the
    tuning process that is still creating the schema."""
    if not path.exists():
        return 0
    try:
        with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)) as db:
            (count,), = db.execute(
                "SELECT count(*) FROM trials WHERE state IN ('COMPLETE', 'PRUNED', 'FAIL')")
    except sqlite3.OperationalError:  # no trials table yet, or a write in progress
        return 0
    return count


def test_opening_a_database_another_process_is_creating_retries(tmp_path, monkeypatch):
    """The loser of the race to create a new database's tables opens it a moment later."""
    import sqlalchemy.exc

    from catansim.tuning.study import open_storage

    real = optuna.storages.RDBStorage
    calls = []

    def racing(*args, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            raise sqlalchemy.exc.IntegrityError("INSERT INTO alembic_version", {}, Exception(
                "UNIQUE constraint failed: alembic_version.version_num"))
        return real(*args, **kwargs)

    monkeypatch.setattr(optuna.storages, "RDBStorage", racing)
    storage = open_storage(f"sqlite:///{tmp_path / 'race.db'}")
    assert len(calls) == 2 and storage.get_all_studies() == []


def test_a_database_that_never_opens_is_one_line_naming_the_field(tmp_path, monkeypatch):
    import sqlalchemy.exc

    from catansim.tuning.study import open_storage

    def always(*args, **kwargs):
        raise sqlalchemy.exc.IntegrityError("INSERT", {}, Exception("UNIQUE constraint failed"))

    monkeypatch.setattr(optuna.storages, "RDBStorage", always)
    monkeypatch.setattr("time.sleep", lambda s: None)
    with pytest.raises(CatansimError, match=r"^--storage: cannot open .*UNIQUE") as info:
        open_storage("sqlite:///x.db", "--storage")
    assert "\n" not in str(info.value)


def test_a_trial_stopped_by_sigint_is_failed_with_the_games_it_played(tmp_path, monkeypatch):
    """A signal in the middle of a trial: the trial is failed at once (not left running)
    with the games and wins it played, its parameters queued again; trials.csv shows
    those wins (the oracle: the wins play_deals returned for it), and the rerun says what
    it found."""
    import pandas as pd

    from catansim.errors import Interrupted
    from catansim.tuning import study as S

    monkeypatch.setattr(S, "BATCH_GAMES", 40)  # a call of play_deals per instance
    returned, calls = [], []

    def stopped_on_the_sixth(*args, **kwargs):
        calls.append(1)
        if len(calls) == 6:  # trial 1's second instance
            raise Interrupted(signal.SIGINT)
        wins = play_deals(*args, **kwargs)
        returned.append(int(wins.sum()))
        return wins

    monkeypatch.setattr(S, "play_deals", stopped_on_the_sixth)
    spec = {**NO_BANK, "name": "sig", "budget": {"trials": 3}}  # 4 instances a trial
    with pytest.raises(Interrupted):
        tune(spec, tmp_path, n_threads=1, heldout=False)
    study = optuna.load_study(study_name="sig",
                              storage=f"sqlite:///{tmp_path.resolve() / 'study.sqlite3'}")
    stopped = study.trials[1]
    assert stopped.state.name == "FAIL" and stopped.user_attrs["stopped"] == "SIGINT"
    assert (stopped.user_attrs["games"], stopped.user_attrs["wins"]) == (40, returned[4])
    assert [t.state.name for t in study.trials] == ["COMPLETE", "FAIL", "WAITING"]
    assert study.trials[2].params == stopped.params  # queued again
    monkeypatch.setattr(S, "play_deals", play_deals)
    lines = []
    result = tune(spec, tmp_path, n_threads=1, heldout=False, progress=lines.append)
    assert lines[0].endswith(": 2 trials found (1 complete, 1 failed)")
    trials = pd.read_csv(tmp_path / "trials.csv").set_index("trial")
    assert (trials.loc[1, "state"], trials.loc[1, "games"], trials.loc[1, "wins"]) == (
        "FAIL", 40, returned[4])
    assert [t.state.name for t in result.study.trials] == ["COMPLETE", "FAIL", "COMPLETE"]


def _kill_when(proc, ready):
    """SIGKILL the tuning process ``proc`` once ``ready()`` (polled); returns it."""
    try:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            time.sleep(0.2)
            if ready():
                break
            assert proc.poll() is None, proc.communicate()
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    return proc


def _running_played(path) -> int:
    """Running trials of the database at ``path`` that have played a batch (read-only)."""
    try:
        with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)) as db:
            (count,), = db.execute(
                "SELECT count(*) FROM trials t JOIN trial_user_attributes a ON "
                "a.trial_id = t.trial_id WHERE t.state = 'RUNNING' AND a.key = 'games' AND "
                "a.value_json NOT IN ('0', 'null')")
    except sqlite3.OperationalError:
        return 0
    return count


def test_a_trial_killed_mid_way_is_failed_and_counted_when_resumed(tmp_path):
    """kill -9 in the middle of a trial; the rerun at once (well within the heartbeat's
    grace period) finds the trial's process gone: it marks the trial failed, says so,
    and leaves nothing running."""
    spec = _spec_file(tmp_path, 5, deals=400)  # 4 batches a trial: it records games mid-way
    url = f"sqlite:///{tmp_path / 'kill.db'}"
    argv = ["tune", spec, "--out", tmp_path / "out", "--storage", url, "--threads", "1",
            "--no-heldout"]
    db = tmp_path / "kill.db"
    _kill_when(popen_cli([*argv, "--quiet"]),
               lambda: _finished_count(db) >= 2 and _running_played(db))
    killed = [t for t in optuna.load_study(study_name="kill", storage=url).trials
              if t.state.name == "RUNNING"]
    assert len(killed) == 1
    found = len([t for t in optuna.load_study(study_name="kill", storage=url).trials
                 if t.state.name != "WAITING"])
    done = run_cli(argv)
    assert done.returncode == 0, done.stderr
    first = done.stderr.splitlines()[0]
    assert first.startswith(f"resuming study 'kill' in {url}: {found} trials found (")
    assert first.endswith(" complete, 1 failed); 1 of them left running by a stopped "
                          "process, now marked failed and queued again")
    study = optuna.load_study(study_name="kill", storage=url)
    assert study.trials[killed[0].number].state.name == "FAIL"
    assert not [t for t in study.trials if t.state.name == "RUNNING"]
    retried = [t for t in study.trials if t.system_attrs.get("failed_trial")
               == killed[0].number]
    assert len(retried) == 1 and retried[0].params == killed[0].params


def test_a_tuning_killed_with_sigkill_resumes(tmp_path):
    spec = _spec_file(tmp_path, 10)
    url = f"sqlite:///{tmp_path / 'kill.db'}"
    argv = ["tune", spec, "--out", tmp_path / "out", "--storage", url, "--threads", "1",
            "--no-heldout", "--quiet"]
    proc = _kill_when(popen_cli(argv), lambda: _finished_count(tmp_path / "kill.db") >= 3)
    assert proc.returncode == -signal.SIGKILL
    before = {t.number: t.params for t in _finished(url)}
    assert 3 <= len(before) < 10
    done = run_cli(argv)
    assert done.returncode == 0, done.stderr
    after = _finished(url)
    assert len(after) == 10  # the budget, counting the trials before the kill
    assert {t.number: t.params for t in after if t.number in before} == before
    study = optuna.load_study(study_name="kill", storage=url)
    states = {t.state.name for t in study.trials if t.number not in {a.number for a in after}}
    assert states <= {"RUNNING", "FAIL"}  # at most the trial the kill interrupted


def test_games_on_dask_workers_equal_the_local_games(tmp_path):
    distributed = pytest.importorskip("dask.distributed")
    spec = parse_spec({**NO_BANK, "name": "dask", "strategy": "default", "strategies": {},
                       "budget": {"trials": 2}})
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        row = {"bank_trade": 2.0}
        remote = play_deals(spec, row, np.arange(12), client=client)
        local = play_deals(spec, row, np.arange(12), n_threads=1)
        np.testing.assert_array_equal(remote, local)
        result = tune(spec, tmp_path, client=client, heldout=False, report=False)
    local_study = open_study(spec, f"sqlite:///{tmp_path / 'local.db'}")
    assert len(full_trials(result.study)) == 2
    first = full_trials(result.study)[0]
    wins = play_deals(spec, first.user_attrs["row"], np.arange(spec.deals), n_threads=1)
    assert first.value == pytest.approx(wins.sum() / (spec.deals * spec.games_per_deal))
    assert local_study.user_attrs["spec_key"] == result.study.user_attrs["spec_key"]


def test_self_play_and_a_mixed_field_on_two_layouts_with_three_players(tmp_path):
    """`best` in a table plays the best full candidate so far; a deal's layout is
    layouts[i % 2]; three players seat the candidate in every seat of each table."""
    spec = {"name": "mix", "strategy": "default", "players": 3, "seed": 8, "sampler": "random",
            "layouts": ["variable", "random_numbers"],
            "params": {"dev_weight": [0.2, 1.0]},
            "field": {"tables": [["army", "city"], ["best", "best"]]},
            "budget": {"trials": 3},
            "evaluation": {"deals": 20, "instance": 10, "p_threshold": 1.0,
                           "finalists": 2, "selection_deals": 0},
            "heldout": {"deals": 20, "presets": ["army"]}}
    result = tune(spec, tmp_path, n_threads=1, report=False)
    trials = result.study.trials
    assert [t.user_attrs.get("field_best") for t in trials] == [None, 0, trials[2].user_attrs[
        "field_best"]]
    assert trials[2].user_attrs["field_best"] in (0, 1)
    assert all(t.user_attrs["games"] == 20 * 3 * 2 for t in trials)
    # trial 0 (the start) against the start as "best": an independent replay agrees
    parsed = parse_spec(spec)
    wins = play_deals(parsed, {}, np.arange(20), best=None, n_threads=1)
    assert trials[0].user_attrs["wins"] == int(wins.sum())
    assert result.heldout.cell("mix", "army")["games"] == 20 * 3


def test_two_processes_share_one_tuning_through_its_database(tmp_path):
    """Two commands with the same spec and --storage fill one study: the trials of both
    count toward one budget, none lost or numbered twice."""
    spec = _spec_file(tmp_path, 8)
    url = f"sqlite:///{tmp_path / 'shared.db'}"
    run_cli(["tune", spec, "--out", tmp_path / "first", "--storage", url, "--threads", "1",
             "--no-heldout", "--quiet"])  # creates the study (and its trial 0) first
    assert len(optuna.load_study(study_name="kill", storage=url).trials) == 8
    spec16 = _spec_file(tmp_path, 16)  # the same study, a larger budget: both continue it
    argv = ["tune", spec16, "--storage", url, "--threads", "1", "--no-heldout", "--quiet"]
    procs = [popen_cli([*argv, "--out", tmp_path / f"p{i}"]) for i in range(2)]
    outs = [p.communicate(timeout=600) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    finished = _finished(url)
    assert 16 <= len(finished) <= 17  # each stops once the shared budget is spent
    numbers = [t.number for t in finished]
    assert len(set(numbers)) == len(numbers) and set(range(8)) <= set(numbers)


def test_the_search_player_is_a_name_in_a_field_table():
    from catansim.players.search import SearchPlayer
    from catansim.tuning.arena import candidate_set, jobs, play_jobs

    spec = parse_spec({**NO_BANK, "field": {"tables": [["search:8", "default", "default"]]}})
    job_list = jobs(spec, candidate_set(spec.strategy_set, spec.strategy, {}), np.arange(1))
    searchers = [p for j in job_list for _, p in j.settings.players]
    assert len(job_list) == 4 and all(isinstance(p, SearchPlayer) for p in searchers)
    assert len(searchers) == 4  # a search player in every seating
    assert {p.budget for p in searchers} == {8}  # search:8, at 8 rollouts a decision
    assert parse_spec({**NO_BANK, "field": {"tables": [["search", "default", "default"]]}})
    wins = play_jobs(job_list, 1, n_threads=1)
    assert 0 <= wins[0] <= 4 and all(p.decisions_searched > 0 for p in searchers)
    with pytest.raises(CatansimError, match=r"field\.tables\[0\]\[2\]: unknown strategy "
                                            r"'serch'; allowed: .*random, search, trader"):
        parse_spec({**NO_BANK, "field": {"tables": [["search", "default", "serch"]]}})
    with pytest.raises(CatansimError, match=r"field\.tables\[0\]\[0\]: unknown strategy "
                                            r"'search:x'; allowed: .*search:N"):
        parse_spec({**NO_BANK, "field": {"tables": [["search:x", "default", "default"]]}})
