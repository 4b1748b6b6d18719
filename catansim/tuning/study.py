"""The search: an Optuna study of a spec, stored in a database and resumed on rerun.

Optimiser: Optuna's TPE sampler (``multivariate``, ``constant_liar`` so that several
machines sharing one study do not sample the same point). Why TPE and not CMA-ES:
the space mixes continuous weights, integers and word choices (``robber_policy``),
which TPE models natively, and it copes with a noisy objective; docs/tuning.md.

Evaluation: a candidate plays the training deals in racing instances of
``spec.instance`` deals (the same deals for every candidate, every seat, every field
table), in an order shuffled per trial; after each group of instances Optuna's
``WilcoxonPruner`` tests the candidate's instance values against the best trial's on
the same instances (signed-rank test, paired) and drops it once it is this sure
(``p_threshold``) that it is worse. A dropped candidate reports the mean of what it
played (Optuna's advice for this pruner) and is marked ``full = False``; the answer is
the best candidate that played every training deal, re-measured on held-out deals
(``heldout``). With ``p_threshold = 1`` nothing is dropped (no pruner at all: the
Wilcoxon pruner would drop whenever p < 1).

State: every trial, its parameters, its instance values and the games it played live
in the study's database (``sqlite:///.../study.sqlite3`` by default; any SQLAlchemy URL
shares one tuning across machines). A rerun of the same spec continues it: a trial
stopped by a signal is marked failed (with the games it played) and queued again; a
trial killed mid-way (``kill -9``) is found on resuming, when its process (on this
machine) is gone or it stopped sending its heartbeat for its grace period, and is
marked failed and queued again too; the budget counts the games of every finished
trial.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import socket
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import optuna
import optuna.distributions as D
import pandas as pd
import sqlalchemy.exc
from optuna.trial import TrialState

from ..analysis.stats import wilson_ci
from ..errors import CatansimError, FaultError, Interrupted
from ..runs.runner import dask_client as runner_client
from .arena import play_deals
from .spec import TuneSpec

HEARTBEAT = 5  # seconds between a running trial's heartbeats
GRACE = 20  # seconds without a heartbeat after which a running trial counts as dead
SCHEMA_ATTEMPTS = 5  # openings of a database another process is creating
BATCH_GAMES = 400  # games played between two pruning decisions (at least one instance)
STORAGE_ALLOWED = ("a database URL you can open and write, e.g. sqlite:///tune.db "
                   "(the folder must exist) or postgresql://host/db")


def spec_key(spec: TuneSpec) -> str:
    """What a study's trials depend on: a resumed study must have the same."""
    start = spec.strategy_set[spec.strategy].param_dict()
    blob = dict(strategy=spec.strategy, start=start, space=[repr(d) for d in spec.space],
                tables=spec.tables, players=spec.n_players, layouts=spec.layouts,
                rules=spec.rules.to_header(), seed=spec.seed, deals=spec.deals,
                instance=spec.instance, definitions=spec.definitions)
    return hashlib.sha256(json.dumps(blob, sort_keys=True, default=str).encode()).hexdigest()[:16]


def default_storage(out: Path) -> str:
    return f"sqlite:///{Path(out).resolve() / 'study.sqlite3'}"


def quiet_optuna() -> None:
    """Optuna's log lines and its notes on experimental features stay quiet: the command
    prints one line per trial itself."""
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)


def open_storage(url: str, field: str = "storage"):
    """Optuna's database storage at ``url`` with heartbeats; one line if it cannot open.

    Processes that open a new database together race to create its tables; the loser
    sees the winner's rows (a unique-key or lock error) and opens the finished schema
    on a later attempt.
    """
    quiet_optuna()
    for attempt in range(SCHEMA_ATTEMPTS):
        try:
            return optuna.storages.RDBStorage(
                url, heartbeat_interval=HEARTBEAT, grace_period=GRACE,
                heartbeat_stale_trial_callback=optuna.storages.RetryHeartbeatStaleTrialCallback(
                    max_retry=1))
        except (sqlalchemy.exc.IntegrityError, sqlalchemy.exc.OperationalError) as exc:
            racing = isinstance(exc, sqlalchemy.exc.IntegrityError) or "locked" in str(exc)
            if not racing or attempt == SCHEMA_ATTEMPTS - 1:
                error = exc
                break
            time.sleep(0.2 * (attempt + 1))
        except Exception as exc:  # SQLAlchemy's errors for a bad URL, a missing folder
            error = exc
            break
    _read_only(error, url, field)
    raise CatansimError(f"{field}: cannot open {url!r} ({_db_reason(error)}); allowed: "
                        f"{STORAGE_ALLOWED}")


def _db_reason(exc: BaseException) -> str:
    """The database's own words for an error Optuna or SQLAlchemy wrapped (Optuna's
    "exception is raised during the commit" says nothing): the innermost cause's line."""
    while exc.__cause__ is not None or exc.__context__ is not None:
        exc = exc.__cause__ or exc.__context__
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def _read_only(exc: BaseException, url: str, field: str) -> None:
    """Raise a ``FaultError`` saying "read-only" if ``exc`` comes of a database that
    cannot be written (a read-only file or file system)."""
    reason = _db_reason(exc)
    if "readonly" in reason.replace("-", "").replace(" ", "").lower():
        raise FaultError(f"{field}: {url!r} is read-only ({reason}); the study is unchanged; "
                         "rerun where the database can be written") from None


@contextlib.contextmanager
def storage_faults(url: str, field: str = "storage"):
    """A write the study's database refuses, wherever the tuning makes it, is one line."""
    try:
        yield
    except (optuna.exceptions.StorageInternalError, sqlalchemy.exc.OperationalError) as exc:
        _read_only(exc, url, field)
        raise


def open_study(spec: TuneSpec, url: str, field: str = "storage"):
    """The spec's study in the storage at ``url``: created, or loaded to resume."""
    storage = open_storage(url, field)
    sampler = (optuna.samplers.TPESampler(seed=spec.seed, multivariate=True, constant_liar=True,
                                          n_startup_trials=10)
               if spec.sampler == "tpe" else optuna.samplers.RandomSampler(seed=spec.seed))
    pruner = (optuna.pruners.NopPruner() if spec.p_threshold >= 1 else  # 1: no racing
              optuna.pruners.WilcoxonPruner(p_threshold=spec.p_threshold, n_startup_steps=2))
    try:
        study = optuna.create_study(storage=storage, study_name=spec.name, sampler=sampler,
                                    pruner=pruner, direction="maximize", load_if_exists=True)
    except Exception as exc:
        _read_only(exc, url, field)
        raise CatansimError(f"{field}: cannot use {url!r} ({_db_reason(exc)}); allowed: "
                            f"{STORAGE_ALLOWED}") from None
    key = spec_key(spec)
    made_by = study.user_attrs.get("spec_key")
    if made_by is None:
        study.set_user_attr("spec_key", key)
        study.set_user_attr("start", spec.strategy)
        if not study.trials:
            # trial 0 is the starting strategy itself: the first incumbent
            study.enqueue_trial(start_point(spec), user_attrs={"start": True})
    elif made_by != key:
        raise CatansimError(f"{field}: study {spec.name!r} in {url} was made by another spec "
                            f"(key {made_by}, this spec {key}); allowed: the same spec to "
                            "resume it, or another name or storage")
    return study


def _retry(study, trial) -> None:
    """Queue a failed trial's parameters again, as the heartbeat's stale-trial callback
    does (``open_storage``: once)."""
    callback = study._storage.get_heartbeat_stale_trial_callback()
    if callback is not None:
        callback(study, study._storage.get_trial(trial._trial_id))


def _process_gone(trial) -> bool:
    """The trial ran in a process of this machine that is gone (or is this process, which
    runs none of them while it resumes)."""
    host, pid = trial.user_attrs.get("host"), trial.user_attrs.get("pid")
    if host != socket.gethostname() or not isinstance(pid, int):
        return False
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # another user's process of that number: alive
        return False
    return False


def fail_stopped(study) -> int:
    """Mark failed (and queue again) the running trials whose process is gone: killed on
    this machine, or silent for their heartbeat's grace period. Returns how many."""
    def running():
        return study.get_trials(deepcopy=False, states=(TrialState.RUNNING,))

    before = len(running())
    for t in running():
        if _process_gone(t):
            with contextlib.suppress(optuna.exceptions.UpdateFinishedTrialError):
                if study._storage.set_trial_state_values(t._trial_id, state=TrialState.FAIL):
                    _retry(study, t)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        optuna.storages.fail_stale_trials(study)  # other machines': by their heartbeat
    return before - len(running())


def found_line(spec: TuneSpec, url: str, study, stopped: int) -> str | None:
    """What a resumed study holds, in one line (None for a new study)."""
    trials = [t for t in study.get_trials(deepcopy=False) if t.state != TrialState.WAITING]
    if not trials:
        return None
    words = {TrialState.COMPLETE: "complete", TrialState.PRUNED: "dropped by racing",
             TrialState.FAIL: "failed", TrialState.RUNNING: "running elsewhere"}
    counts = {s: sum(t.state == s for t in trials) for s in words}
    parts = [f"{counts[s]} {w}" for s, w in words.items() if counts[s]]
    line = (f"resuming study {spec.name!r} in {url}: {len(trials)} trials found "
            f"({', '.join(parts)})")
    if stopped:
        line += (f"; {stopped} of them left running by a stopped process, now marked failed "
                 "and queued again")
    return line


def start_point(spec: TuneSpec) -> dict:
    """The starting strategy's values as a point of the space (nearest where outside)."""
    row = spec.strategy_set[spec.strategy].param_dict()
    return {d.name: d.nearest(row[d.name]) for d in spec.space}


def suggest(trial, spec: TuneSpec) -> dict[str, float]:
    """Sample every dimension; the parameter values the kernels see."""
    row = {}
    for d in spec.space:
        dist = d.distribution()
        if isinstance(dist, D.CategoricalDistribution):
            v = trial.suggest_categorical(d.name, list(dist.choices))
        elif isinstance(dist, D.IntDistribution):
            v = trial.suggest_int(d.name, dist.low, dist.high, step=dist.step)
        else:
            v = trial.suggest_float(d.name, dist.low, dist.high, log=dist.log, step=dist.step)
        row[d.name] = d.value(v)
    return row


def full_trials(study) -> list:
    """Finished trials that played every training deal, in order."""
    return [t for t in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
            if t.user_attrs.get("full")]


def best_full(study):
    """The best trial that played every training deal (None before the first)."""
    trials = full_trials(study)
    return max(trials, key=lambda t: t.value) if trials else None


def games_used(study) -> int:
    """Games of every finished trial (complete, pruned or failed after playing)."""
    return int(sum(t.user_attrs.get("games", 0) for t in study.get_trials(deepcopy=False)
                   if t.state.is_finished()))


def seconds_used(study) -> float:
    """Seconds of every finished trial (their own start to end, over all invocations)."""
    return float(sum((t.datetime_complete - t.datetime_start).total_seconds()
                     for t in study.get_trials(deepcopy=False)
                     if t.state.is_finished() and t.datetime_start and t.datetime_complete))


def make_objective(spec: TuneSpec, n_threads=None, client=None):
    """The objective: a candidate's mean win rate over the instances it played."""
    n_inst, inst, gpd = spec.instances, spec.instance, spec.games_per_deal
    per_batch = max(1, BATCH_GAMES // (inst * gpd))

    def objective(trial):
        try:
            return evaluate(trial)
        except Interrupted as exc:  # a signal: failed now, not left running
            trial.set_user_attr("stopped", exc.signal_name)
            with contextlib.suppress(Exception):  # the signal's own line matters more
                trial.study.tell(trial, state=TrialState.FAIL)
                _retry(trial.study, trial)
            raise

    def evaluate(trial):
        # what a stopped or killed trial ran where: fail_stopped reads it on resuming
        trial.set_user_attr("host", socket.gethostname())
        trial.set_user_attr("pid", os.getpid())
        for key in ("stopped", "wins", "games"):  # a retry's inherited ones are not its own
            trial.set_user_attr(key, None if key == "stopped" else 0)
        row = suggest(trial, spec)
        best = None
        if spec.uses_best:
            b = best_full(trial.study)
            best = b.user_attrs["row"] if b is not None else None
            trial.set_user_attr("field_best", None if b is None else b.number)
        trial.set_user_attr("row", row)
        order = np.random.default_rng([spec.seed, trial.number]).permutation(n_inst)
        wins = np.zeros(n_inst, dtype=np.int64)
        played = 0
        for i in range(0, n_inst, per_batch):
            ks = order[i:i + per_batch]
            deals = (ks[:, None] * inst + np.arange(inst)).reshape(-1)
            w = play_deals(spec, row, deals, best, n_threads=n_threads, client=client)
            wins[ks] = w.reshape(len(ks), inst).sum(axis=1)
            for k in ks:
                trial.report(float(wins[k]) / (inst * gpd), int(k))
            played += len(ks)
            # wins first: a trial with its games recorded has their wins
            trial.set_user_attr("wins", int(wins[order[:played]].sum()))
            trial.set_user_attr("games", played * inst * gpd)
            if played < n_inst and trial.should_prune():
                break
        trial.set_user_attr("full", played == n_inst)
        return float(wins[order[:played]].sum()) / (played * inst * gpd)

    return objective


class _Budget:
    """Stops the study when the games or trials of the budget are spent."""

    def __init__(self, spec: TuneSpec, progress):
        self.spec, self.progress = spec, progress

    def spent(self, study) -> bool:
        s = self.spec
        if s.budget_games is not None and games_used(study) >= s.budget_games:
            return True
        finished = sum(t.state.is_finished() for t in study.get_trials(deepcopy=False))
        return s.budget_trials is not None and finished >= s.budget_trials

    def __call__(self, study, trial):
        if self.progress is not None:
            b = best_full(study)
            value = trial.value if trial.value is not None else float("nan")
            how = "full" if trial.user_attrs.get("full") else "dropped"
            self.progress(f"trial {trial.number}: {value:.4f} ({how}, "
                          f"{trial.user_attrs.get('games', 0)} games); best "
                          + (f"{b.value:.4f} (trial {b.number})" if b is not None else "none")
                          + f"; {games_used(study):,} games")
        if self.spent(study):
            study.stop()


def search(spec: TuneSpec, study, n_threads=None, client=None, progress=None) -> None:
    """Run trials until the budget is spent (continuing whatever the study holds)."""
    budget = _Budget(spec, progress)
    if budget.spent(study):
        return
    timeout = None
    if spec.budget_minutes is not None:
        timeout = spec.budget_minutes * 60 - seconds_used(study)
        if timeout <= 0:
            return
    study.optimize(make_objective(spec, n_threads, client), timeout=timeout,
                   callbacks=[budget], catch=(), gc_after_trial=False)


def select(spec: TuneSpec, study, n_threads=None, client=None):
    """The finalists: the ``spec.finalists`` best full trials, each also played on
    ``spec.selection_deals`` more deals (indices after the training deals: the same
    deals for each finalist); the answer is the best on all its deals, which shrinks the
    winner's curse of picking the top of many noisy values. The finalists' wins are kept
    in the study's user attributes (``selection_<trial>_<deals>``), so a rerun does not replay
    them. A DataFrame indexed by trial, best first: training and selection win rates,
    combined with its Wilson interval."""
    gpd = spec.games_per_deal
    top = sorted(full_trials(study), key=lambda t: t.value, reverse=True)[:spec.finalists]
    deals = np.arange(spec.deals, spec.deals + spec.selection_deals)
    rows = []
    for t in top:
        key = f"selection_{t.number}_{deals.size}"
        if key not in study.user_attrs:
            t0 = time.monotonic()
            wins = play_deals(spec, t.user_attrs["row"], deals, n_threads=n_threads,
                              client=client) if deals.size else np.zeros(0)
            study.set_user_attr(key, [int(wins.sum()), time.monotonic() - t0])
        sel_wins, sel_seconds = study.user_attrs[key]
        train_games = spec.deals * gpd
        games = train_games + deals.size * gpd
        rows.append(dict(trial=t.number, training=t.value,
                         selection=sel_wins / (deals.size * gpd) if deals.size else np.nan,
                         wins=t.user_attrs["wins"] + sel_wins, games=games,
                         selection_games=deals.size * gpd, selection_seconds=sel_seconds))
    frame = pd.DataFrame(rows).set_index("trial")
    frame["combined"] = frame["wins"] / frame["games"]
    frame["ci_low"], frame["ci_high"] = wilson_ci(frame["wins"], frame["games"])
    return frame.sort_values("combined", ascending=False, kind="stable")


def dask_client(scheduler: str | None, client=None):
    """A Dask client: the one given, one of the scheduler at ``scheduler``, or None."""
    return runner_client(scheduler, client, "the study keeps what it finished; rerun to "
                         "resume")


@dataclass
class TuneResult:
    """A finished tuning: the spec, the study, the tuned row and what it measured."""

    spec: TuneSpec
    study: object
    row: dict[str, float]  # the tuned values of the searched parameters
    start_row: dict[str, float]
    best_trial: int
    games: int  # training games of every finished trial
    seconds: float  # seconds of every finished trial
    heldout: object = None  # heldout.Heldout
    out: Path | None = None
    selection: object = None  # select(): the finalists, best first

    @property
    def selection_games(self) -> int:
        s = self.selection
        return 0 if s is None else int(s["selection_games"].sum())

    @property
    def selection_seconds(self) -> float:
        s = self.selection
        return 0.0 if s is None else float(s["selection_seconds"].sum())

    def params(self) -> dict[str, float]:
        """Every parameter of the tuned strategy (the start's row with the tuned values)."""
        return {**self.spec.strategy_set[self.spec.strategy].param_dict(), **self.row}
