"""Fault injection: faults of the machine, of the data and of the cluster.

For each fault: a non-zero exit, exactly one line on stderr naming the path (or the
scheduler) and what state the data is in, no traceback, nothing half-written (no
temporary file, no part file without its record, no torn record), the dataset
still loads, and rerunning the same command resumes to exactly the games asked
for (compared with an uninterrupted run).

Real faults where the machine allows: a 2 MB tmpfs (disk full), read-only bind
mounts, a process without CAP_DAC_OVERRIDE (root meets file permissions),
truncated and corrupted files, kill -9, SIGINT and SIGTERM sent to a real
``catansim run``, a Dask scheduler killed mid-run, a Dask worker running a copy of
catansim whose core differs. Simulated where they cannot be made to happen on
cue: ENOSPC while a part's record is appended, a MemoryError, little available
memory, a signal swallowed by a library that then fails (as Numba's compiler does),
an engine change on resume (the manifest edited), a format-1 dataset.

FAULT_CASES (asserted below) counts the test cases of this module: 31.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pandas as pd
import pytest
from cli_harness import (
    ENV,
    ROOT,
    assert_clean,
    fill,
    kept,
    n_records,
    needs_mount,
    needs_setpriv,
    one_line,
    popen_cli,
    read_only,
    remount,
    run_cli,
    run_main,
    tmpfs,
    tree,
)

import catansim
from catansim import files as FILES
from catansim.errors import CatansimError, CatansimWarning
from catansim.results import dataset as D
from catansim.runs.experiment import load_experiment
from catansim.runs.runner import n_parts, run_experiment

FAULT_CASES = 31

EXP = """
name = "faults"
games = 40
players = 4
seed = 11
strategies = ["default", "random", "builder", "city"]
rotate = true
batch_size = 5
[variants.friendly]
rules = { robber = "friendly" }
"""
PARTS = 16  # 8 batches x 2 variants

# a run long enough to be stopped while it plays (several seconds of small parts)
LONG = """
name = "long"
games = 1500
players = 4
seed = 5
strategies = ["random", "default", "random", "default"]
batch_size = 25
"""


def _same(a, b):
    for x, y in zip(a, b, strict=True):
        pd.testing.assert_frame_equal(x, y)


def _load_quietly(root):
    """``catansim.load`` that fails on any warning (a bad part would warn)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", CatansimWarning)
        return catansim.load(root)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("faults")
    (tmp / "exp.toml").write_text(EXP)
    (tmp / "long.toml").write_text(LONG)
    return tmp


class _References(dict):
    """Uninterrupted runs, made on first use: ``exp``, ``long``, ``exp200`` (EXP, 200 games)."""

    def __init__(self, files):
        super().__init__()
        self.files = files

    def __missing__(self, name):
        path, games = {"exp": ("exp.toml", None), "long": ("long.toml", None),
                       "exp200": ("exp.toml", 200)}[name]
        exp = load_experiment(self.files / path).with_overrides(games=games)
        run_experiment(exp, out=self.files / f"ref-{name}", progress=False)
        self[name] = catansim.load(self.files / f"ref-{name}")
        return self[name]


@pytest.fixture(scope="module")
def reference(files):
    return _References(files)


@pytest.fixture
def complete(files, reference, tmp_path):
    """A complete copy of the EXP dataset in tmp_path/ds."""
    reference["exp"]
    shutil.copytree(files / "ref-exp", tmp_path / "ds")
    return tmp_path / "ds"


def _exp_args(files, out, *more):
    return ["run", files / "exp.toml", "--out", out, "--no-progress", "--no-summary", *more]


def _partial(files, out, n: int):
    """A run of EXP stopped after ``n`` parts (what Ctrl-C leaves)."""
    seen = []

    def stop(task):
        seen.append(task)
        if len(seen) == n:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_experiment(load_experiment(files / "exp.toml"), out=out, progress=False,
                       on_part=stop)
    return n_records(out)


def test_the_case_count_is_what_the_docstring_says():
    import inspect

    mod = sys.modules[__name__]
    n = 0
    for name, fn in inspect.getmembers(mod, inspect.isfunction):
        if name.startswith("test_") and fn.__module__ == __name__ and name != \
                "test_the_case_count_is_what_the_docstring_says":
            marks = [m for m in getattr(fn, "pytestmark", []) if m.name == "parametrize"]
            n += len(marks[0].args[1]) if marks else 1
    assert n == FAULT_CASES
    assert f"this module: {FAULT_CASES}." in __doc__


# --- disk full (a real 2 MB tmpfs) --------------------------------------------------


@needs_mount
def test_disk_full_mid_run_keeps_the_parts_written_and_resumes(files, reference, tmp_path,
                                                              capsys):
    with tmpfs(tmp_path / "small", "2m") as fs:
        out = fs / "ds"
        code, _, err = run_main(_exp_args(files, out, "--games", "200"), capsys)
        assert code == 1
        line = one_line(err, str(out), "no space left on device",
                        "free some space and rerun the same command to resume")
        n, m = kept(line)
        assert m == 80 and 0 < n < m and n == n_records(out)
        assert_clean(out)
        games, _ = _load_quietly(out)
        assert len(games) == 5 * n
        remount(fs, "64m")
        code, _, err = run_main(_exp_args(files, out, "--games", "200"), capsys)
        assert code == 0 and err == ""
        _same(_load_quietly(out), reference["exp200"])
        assert_clean(out)


@needs_mount
def test_a_disk_already_full_leaves_no_half_written_manifest(files, reference, tmp_path,
                                                             capsys):
    with tmpfs(tmp_path / "full", "2m") as fs:
        filler = fill(fs)
        out = fs / "ds"
        code, _, err = run_main(_exp_args(files, out), capsys)
        assert code == 1
        one_line(err, "space left on device", "nothing written")  # refused before writing
        assert not list(fs.rglob("*.tmp"))  # the manifest's temporary file is gone
        assert not (out / "manifest.json").exists()
        filler.unlink()
        code, _, err = run_main(_exp_args(files, out), capsys)
        assert code == 0
        _same(_load_quietly(out), reference["exp"])


@needs_mount
def test_disk_full_while_a_report_is_written_leaves_no_report_html(complete, tmp_path,
                                                                   capsys):
    """Every report file is written whole or not at all, report.html last: a disk that
    fills up half way leaves complete figures and tables but no report.html."""
    whole = tmp_path / "whole"
    code, _, err = run_main(["report", complete, "--out", whole, "--no-progress"], capsys)
    assert code == 0, err
    size = sum(p.stat().st_size for p in whole.rglob("*") if p.is_file())
    with tmpfs(tmp_path / "small", f"{size // 2048}k") as fs:
        out = fs / "rep"
        code, _, err = run_main(["report", complete, "--out", out, "--no-progress"], capsys)
        assert code == 1
        one_line(err, f"--out: {out}", "no space left on device", "report.html not written",
                 "rerun the same command")
        assert not (out / "report.html").exists()
        assert not list(fs.rglob("*.tmp"))
        for p in out.rglob("*.png"):  # the figures there are whole
            assert p.read_bytes() == (whole / p.relative_to(out)).read_bytes()
        remount(fs, "64m")
        code, _, err = run_main(["report", complete, "--out", out, "--no-progress"], capsys)
        assert code == 0 and err == ""
        assert (out / "report.html").stat().st_size > 0
        assert sorted(p.relative_to(out) for p in out.rglob("*")) == sorted(
            p.relative_to(whole) for p in whole.rglob("*"))


def test_no_space_while_a_record_is_appended_leaves_no_torn_record(files, reference, tmp_path,
                                                                  capsys, monkeypatch):
    """Simulated: the part's files fit, its record line does not (ENOSPC after half)."""
    out = tmp_path / "ds"
    real = FILES._write_all  # the record log's append (files.append_bytes)
    calls = {"records": 0}

    def write(fd, data):
        if bytes(data[:9]) == b'{"part":"':
            calls["records"] += 1
            if calls["records"] == 3:
                os.write(fd, bytes(data[: len(data) // 2]))
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(fd, data)

    monkeypatch.setattr(FILES, "_write_all", write)
    code, _, err = run_main(_exp_args(files, out), capsys)
    assert code == 1
    line = one_line(err, f"{out / 'parts.jsonl'}", "no space left on device")
    n = n_records(out)  # 2, or 3 if the part after the fault was already being written
    assert kept(line) == (n, PARTS) and n in (2, 3)
    assert (out / "parts.jsonl").read_bytes().endswith(b"}\n")  # cut back, not torn
    monkeypatch.setattr(FILES, "_write_all", real)
    assert run_main(_exp_args(files, out), capsys)[0] == 0
    _same(_load_quietly(out), reference["exp"])
    assert_clean(out)


# --- read-only and unwritable folders -----------------------------------------------


@needs_mount
def test_a_complete_dataset_on_a_read_only_mount_reads_and_summarises(complete, tmp_path,
                                                                     files, capsys):
    with read_only(complete, tmp_path / "ro") as ro:
        before = tree(ro)
        games, players = _load_quietly(ro)
        assert len(games) == 80 and len(players) == 320
        assert D.verify(ro).complete
        code, out, err = run_main(["run", files / "exp.toml", "--out", ro, "--no-progress"],
                                  capsys)
        assert code == 0 and err == ""
        assert f"0 parts written, {PARTS} already done" in out and "Win rate by strategy" in out
        code, out, _ = run_main(["verify", ro], capsys)
        assert code == 0 and "complete: 16 of 16 parts verified" in out
        assert tree(ro) == before


@needs_mount
def test_an_incomplete_dataset_on_a_read_only_mount_says_what_is_kept(files, tmp_path, capsys):
    src = tmp_path / "src"
    n = _partial(files, src, 3)
    with read_only(src, tmp_path / "ro") as ro:
        before = tree(ro)
        code, _, err = run_main(_exp_args(files, ro), capsys)
        assert code == 1
        line = one_line(err, str(ro), "read-only file system",
                        "rerun the same command where the folder is writable to resume")
        assert kept(line) == (n, PARTS)
        assert len(_load_quietly(ro)[0]) == 5 * n
        assert tree(ro) == before


@needs_mount
def test_a_new_dataset_on_a_read_only_mount_writes_nothing(files, tmp_path, capsys):
    (tmp_path / "src").mkdir()
    with read_only(tmp_path / "src", tmp_path / "ro") as ro:
        code, _, err = run_main(_exp_args(files, ro / "new"), capsys)
        assert code == 1
        one_line(err, str(ro / "new"), "cannot create the dataset folder",
                 "read-only file system", "nothing written")
        assert tree(ro) == {}


@needs_setpriv
def test_unwritable_folders_without_root_override(files, reference, tmp_path):
    """A real EACCES: the command runs without CAP_DAC_OVERRIDE, the folders are 0555."""
    part = tmp_path / "part"
    n = _partial(files, part, 2)
    whole = tmp_path / "whole"
    reference["exp"]
    shutil.copytree(files / "ref-exp", whole)
    locked = tmp_path / "locked"
    locked.mkdir()
    dirs = [part, part / "games", part / "players", whole, whole / "games",
            whole / "players", locked]
    try:
        for d in dirs:
            d.chmod(0o555)
        before = {d: tree(d) for d in (part, whole, locked)}
        r = run_cli(_exp_args(files, part), drop_root_override=True)
        assert r.returncode == 1
        line = one_line(r.stderr, str(part), "permission denied", "folder is writable")
        assert kept(line) == (n, PARTS)
        r = run_cli(_exp_args(files, locked / "new"), drop_root_override=True)
        assert r.returncode == 1
        one_line(r.stderr, str(locked / "new"), "cannot create the dataset folder",
                 "permission denied", "nothing written")
        r = run_cli(["run", files / "exp.toml", "--out", whole, "--no-progress"],
                    drop_root_override=True)
        assert r.returncode == 0 and r.stderr == "", r.stderr
        assert "already done" in r.stdout and "Win rate by seat" in r.stdout
        assert {d: tree(d) for d in (part, whole, locked)} == before
    finally:
        for d in dirs:
            d.chmod(0o755)
    assert len(_load_quietly(part)[0]) == 5 * n


def test_the_dataset_path_is_a_file(files, tmp_path, capsys):
    target = tmp_path / "a-file"
    target.write_text("x")
    exp = tmp_path / "to_file.toml"
    exp.write_text(f'output = "{target}"\n' + EXP)
    code, _, err = run_main(["run", exp, "--no-progress"], capsys)
    assert code == 2
    one_line(err, str(target), "is a file, not a folder; allowed: a dataset folder")
    assert target.read_text() == "x"


# --- damaged parts: truncated, corrupted, missing, torn records ----------------------


def _first_games_file(root: Path) -> Path:
    return sorted((root / "games").glob("part-*.parquet"))[0]


def test_a_truncated_part_is_left_out_on_load_and_played_again(complete, reference, files,
                                                              capsys):
    victim = _first_games_file(complete)
    size = victim.stat().st_size
    with open(victim, "r+b") as fh:
        fh.truncate(size // 2)
    with pytest.warns(CatansimWarning, match=f"{victim.name}: {size // 2} bytes, its record "
                                             f"says {size}; part left out"):
        games, _ = catansim.load(complete)
    assert len(games) == 75
    code, out, err = run_main(["run", files / "exp.toml", "--out", complete, "--no-progress"],
                              capsys)
    assert code == 0
    one_line(err, victim.name, "playing the part again", prefix="catansim: warning: ")
    assert "1 parts written, 15 already done" in out and "Win rate by seat" in out
    _same(_load_quietly(complete), reference["exp"])


def test_a_part_with_other_rows_than_recorded_is_left_out(complete, capsys):
    """Simulated: the record says 21 players rows, the file (intact) has 20."""
    log = complete / "parts.jsonl"
    lines = log.read_text().splitlines(keepends=True)
    rec = json.loads(lines[-1])
    rec["players"]["rows"] = 21
    lines[-1] = json.dumps(rec) + "\n"
    log.write_text("".join(lines))
    with pytest.warns(CatansimWarning, match=f"{rec['part']}.parquet: 20 rows, expected 21; "
                                             "part left out"):
        games, players = catansim.load(complete)
    assert len(games) == 75 and len(players) == 300
    code, _, err = run_main(["verify", complete], capsys)
    assert code == 1
    one_line(err, f"{rec['part']}.parquet: 20 rows, its record says 21",
             "incomplete: 15 of 16 parts verified", "rerun the run's command")


def test_a_corrupted_part_of_the_same_size_is_found_by_verify_and_replayed(complete, reference,
                                                                         files, capsys):
    victim = sorted((complete / "players").glob("part-*.parquet"))[3]
    data = bytearray(victim.read_bytes())
    data[len(data) // 3] ^= 0xFF  # one flipped byte: same size, same footer
    victim.write_bytes(bytes(data))
    code, _, err = run_main(["verify", complete], capsys)
    assert code == 1
    one_line(err, f"{victim}: contents differ from its record (SHA-256)", "1 bad")
    code, _, err = run_main(_exp_args(files, complete), capsys)
    assert code == 0
    one_line(err, victim.name, "contents differ", "playing the part again",
             prefix="catansim: warning: ")
    _same(_load_quietly(complete), reference["exp"])
    assert D.verify(complete).complete


def test_a_deleted_part_file_is_named_and_played_again(complete, reference, files, capsys):
    victim = sorted((complete / "games").glob("part-friendly-*.parquet"))[0]
    victim.unlink()
    with pytest.warns(CatansimWarning, match=f"{victim.name}: missing; part left out"):
        games, _ = catansim.load(complete)
    assert len(games) == 75
    code, _, err = run_main(_exp_args(files, complete), capsys)
    assert code == 0
    one_line(err, f"{victim}: missing; playing the part again", prefix="catansim: warning: ")
    _same(_load_quietly(complete), reference["exp"])
    assert_clean(complete)


def test_a_record_torn_by_a_kill_is_ignored_and_its_part_played_again(complete, reference,
                                                                     files, capsys):
    log = complete / "parts.jsonl"
    lines = log.read_text().splitlines(keepends=True)
    log.write_text("".join(lines[:-1]) + lines[-1][: len(lines[-1]) // 2])  # no newline
    games, _ = _load_quietly(complete)  # a torn last line: silently not complete
    assert len(games) == 75
    code, out, err = run_main(_exp_args(files, complete), capsys)
    assert code == 0 and err == "" and "1 parts written, 15 already done" in out
    assert n_records(complete) == PARTS and log.read_bytes().endswith(b"}\n")
    _same(_load_quietly(complete), reference["exp"])


def test_a_garbled_record_in_the_middle_is_named(complete, reference, files, capsys):
    log = complete / "parts.jsonl"
    lines = log.read_text().splitlines(keepends=True)
    lines[4] = "this is not a record\n"
    log.write_text("".join(lines))
    with pytest.warns(CatansimWarning, match="parts.jsonl:5: not a part record"):
        games, _ = catansim.load(complete)
    assert len(games) == 75
    code, _, err = run_main(_exp_args(files, complete), capsys)
    assert code == 0
    one_line(err, "parts.jsonl:5: not a part record", prefix="catansim: warning: ")
    _same(_load_quietly(complete), reference["exp"])
    assert_clean(complete)


def test_a_garbled_manifest_is_one_line_for_load_and_run(complete, files, capsys):
    (complete / "manifest.json").write_bytes(b"\x00\xffnot json")
    before = tree(complete)
    with pytest.raises(CatansimError, match="manifest.json: unreadable manifest .not JSON.; "
                                            "allowed: the manifest catansim run wrote"):
        catansim.load(complete)
    code, _, err = run_main(_exp_args(files, complete), capsys)
    assert code == 2
    one_line(err, "manifest.json: unreadable manifest")
    assert tree(complete) == before


def test_part_files_without_a_manifest_are_refused(complete, files, capsys):
    (complete / "manifest.json").unlink()
    before = tree(complete)
    code, _, err = run_main(_exp_args(files, complete), capsys)
    assert code == 2
    one_line(err, f"{complete}: has parts but no manifest.json; allowed: a new --out")
    assert tree(complete) == before


# --- kill -9 and signals on a real catansim run -------------------------------------


def _wait(pred, proc, limit=300.0, step=0.002):
    end = time.monotonic() + limit
    while time.monotonic() < end and proc.poll() is None:
        if pred():
            return True
        time.sleep(step)
    return False


def test_kill_9_during_writes_then_resume(files, reference, tmp_path):
    """Three kill -9, each while a part's temporary Parquet file exists (the first
    before any part is complete, the others after 2 and 5 more), then an
    uninterrupted rerun: exactly the requested games, no gap, no duplicate."""
    out = tmp_path / "ds"
    args = ["run", files / "long.toml", "--out", out, "--no-progress", "--no-summary"]
    for more in (0, 2, 5):
        target = n_records(out) + more
        proc = popen_cli(args)
        try:
            assert _wait(lambda t=target: n_records(out) >= t
                         and list(out.glob("*/.part-*.tmp")), proc), "no temporary file seen"
        finally:
            proc.kill()
            proc.wait()
        assert n_records(out) >= target
        games, _ = _load_quietly(out)  # temporary files and unrecorded parts are ignored
        assert len(games) == 25 * n_records(out)
    r = run_cli(args)
    assert r.returncode == 0, r.stderr
    _same(_load_quietly(out), reference["long"])
    assert_clean(out)


@pytest.mark.parametrize("sig, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)],
                         ids=["SIGINT", "SIGTERM"])
def test_a_signal_keeps_the_parts_and_says_how_to_resume(files, reference, tmp_path, sig, code):
    out = tmp_path / "ds"
    args = ["run", files / "long.toml", "--out", out, "--no-progress", "--no-summary"]
    proc = popen_cli(args)
    try:
        assert _wait(lambda: n_records(out) >= 2, proc), "the run ended before the signal"
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=300)
    finally:
        proc.kill()
        proc.wait()
    assert proc.returncode == code
    line = one_line(err, f"aborted by {sig.name}", str(out),
                    "rerun the same command to resume", prefix="catansim: ")
    n, m = kept(line)
    assert m == 60 and 2 <= n < m and n == n_records(out)
    assert len(_load_quietly(out)[0]) == 25 * n
    assert_clean(out)
    r = run_cli(args)
    assert r.returncode == 0 and f"{n} already done" in r.stdout
    _same(_load_quietly(out), reference["long"])


def test_another_run_writing_the_dataset_is_refused(complete, files, capsys):
    import fcntl

    before = tree(complete)
    with open(complete / ".lock", "a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        code, _, err = run_main(_exp_args(files, complete), capsys)
    assert code == 2
    one_line(err, f"{complete}: another run is writing this dataset; allowed: one run")
    assert tree(complete) == before


# --- the engine ----------------------------------------------------------------------


def test_a_resume_across_engines_is_refused_naming_both(complete, files, capsys):
    """Simulated: the dataset says another engine made it."""
    from catansim.core import engine_fingerprint

    m = json.loads((complete / "manifest.json").read_text())
    m["engine_fingerprint"] = "0123456789abcdef"
    (complete / "manifest.json").write_text(json.dumps(m))
    before = tree(complete)
    code, _, err = run_main(_exp_args(files, complete), capsys)
    assert code == 2
    one_line(err, "made by engine 0123456789abcdef",
             f"this catansim is engine {engine_fingerprint()}", "cannot resume across engines")
    assert tree(complete) == before
    assert len(_load_quietly(complete)[0]) == 80


def test_a_part_played_by_another_engine_is_played_again(complete, reference, files, capsys):
    log = complete / "parts.jsonl"
    lines = log.read_text().splitlines(keepends=True)
    rec = json.loads(lines[2])
    rec["engine"] = "fedcba9876543210"
    lines[2] = json.dumps(rec) + "\n"
    log.write_text("".join(lines))
    code, _, err = run_main(_exp_args(files, complete), capsys)
    assert code == 0
    one_line(err, f"{rec['part']}.parquet: played by engine fedcba9876543210; playing the part "
                  "again", prefix="catansim: warning: ")
    _same(_load_quietly(complete), reference["exp"])


def _alt_catansim(tmp_path: Path) -> Path:
    """A copy of catansim whose core differs by one line of code: another engine."""
    alt = tmp_path / "alt"
    shutil.copytree(ROOT / "catansim", alt / "catansim",
                    ignore=shutil.ignore_patterns("__pycache__"))
    with open(alt / "catansim" / "core" / "rng_nb.py", "a") as fh:
        fh.write("\nANOTHER_ENGINE = 1\n")
    return alt


def test_a_task_on_a_worker_of_another_engine_refuses_to_play():
    from catansim.core import engine_fingerprint
    from catansim.runs.experiment import parse_experiment
    from catansim.runs.runner import compute_tables, plan

    exp = parse_experiment({"games": 2})
    task = next(plan(exp))
    with pytest.raises(CatansimError, match=f"runs engine {engine_fingerprint()}, the run's "
                                            "engine is 0000000000000000; allowed: workers"):
        compute_tables(exp, task, engine="0" * 16)
    games, players = compute_tables(exp, task, engine=engine_fingerprint())
    assert games.num_rows == 2 and players.num_rows == 8


# --- Dask: a worker of another engine, a scheduler that goes away -------------------

try:
    from dask import distributed
except ImportError:  # the dask extra is not installed
    distributed = None
DASK = str(Path(sys.executable).with_name("dask"))
needs_dask = pytest.mark.skipif(distributed is None or not Path(DASK).exists(),
                                reason="needs dask.distributed and its dask command")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class _Cluster:
    """A real ``dask scheduler`` and workers, as separate processes."""

    def __init__(self):
        self.port = _free_port()
        self.address = f"tcp://127.0.0.1:{self.port}"
        self.procs = [subprocess.Popen(
            [DASK, "scheduler", "--host", "127.0.0.1", "--port", str(self.port),
             "--no-dashboard"], env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]

    @property
    def scheduler(self):
        return self.procs[0]

    def worker(self, env=ENV):
        self.procs.append(subprocess.Popen(
            [DASK, "worker", self.address, "--nworkers", "1", "--nthreads", "1",
             "--no-dashboard"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))

    def wait(self, n_workers: int):
        end = time.monotonic() + 120
        while time.monotonic() < end:
            try:
                with distributed.Client(self.address, timeout="2s") as c:
                    c.wait_for_workers(n_workers, timeout=60)
                    return
            except (OSError, TimeoutError):
                time.sleep(0.3)
        raise AssertionError("the cluster did not start")

    def close(self):
        for p in reversed(self.procs):
            if p.poll() is None:
                p.kill()
            p.wait()


@needs_dask
def test_a_worker_running_another_engine_is_refused_before_anything_is_written(files, tmp_path,
                                                                              capsys):
    from catansim.core import engine_fingerprint

    cluster = _Cluster()
    try:
        cluster.worker(dict(ENV, PYTHONPATH=str(_alt_catansim(tmp_path)),
                            NUMBA_CACHE_DIR=str(tmp_path / "numba")))
        cluster.wait(1)
        out = tmp_path / "ds"
        code, _, err = run_main(_exp_args(files, out, "--scheduler", cluster.address), capsys)
    finally:
        cluster.close()
    assert code == 2
    line = one_line(err, f"--scheduler {cluster.address}: worker tcp://127.0.0.1:",
                    f"this catansim is engine {engine_fingerprint()}", "allowed: workers with "
                    "the same catansim")
    theirs = line.split("runs engine ")[1].split(",")[0]
    assert len(theirs) == 16 and theirs != engine_fingerprint()
    assert not out.exists()


@needs_dask
def test_a_lost_scheduler_keeps_the_parts_and_a_local_rerun_resumes(files, reference, tmp_path):
    cluster = _Cluster()
    out = tmp_path / "ds"
    args = ["run", files / "long.toml", "--out", out, "--no-progress", "--no-summary"]
    try:
        cluster.worker()
        cluster.wait(1)
        proc = popen_cli([*args, "--scheduler", cluster.address])
        try:
            assert _wait(lambda: n_records(out) >= 2, proc), "the run ended first"
            cluster.scheduler.kill()
            _, err = proc.communicate(timeout=300)
        finally:
            proc.kill()
            proc.wait()
    finally:
        cluster.close()
    assert proc.returncode == 1
    line = one_line(err, f"--scheduler {cluster.address}: lost the scheduler", str(out),
                    "rerun the same command to resume")
    n, m = kept(line)
    assert m == 60 and n == n_records(out) and n >= 2
    assert_clean(out)
    r = run_cli(args)  # the scheduler is not part of the settings: resume locally
    assert r.returncode == 0, r.stderr
    _same(_load_quietly(out), reference["long"])


# --- memory ---------------------------------------------------------------------------


def test_a_batch_too_big_for_the_available_memory_is_refused_up_front(files, tmp_path, capsys,
                                                                    monkeypatch):
    """Simulated: the machine reports 512 MiB available."""
    monkeypatch.setattr("catansim.runs.runner.available_memory", lambda: 512 * 2**20)
    out = tmp_path / "ds"
    code, _, err = run_main(_exp_args(files, out, "--batch-size", "500000"), capsys)
    assert code == 1
    one_line(err, "batch_size: 500,000 games per part need about 1.5 GiB of memory, 0.5 GiB is "
                  "available; allowed: batch_size <= 85,499 on this machine; nothing written")
    assert not out.exists()


def test_out_of_memory_mid_run_keeps_the_parts(files, reference, tmp_path, capsys, monkeypatch):
    """Simulated: the kernel's third part cannot get its memory."""
    import catansim.runs.runner as R

    real, calls = R.play_task, []

    def play(exp, task, *args, **kw):
        calls.append(task)
        if len(calls) == 3:
            raise MemoryError
        return real(exp, task, *args, **kw)

    monkeypatch.setattr(R, "play_task", play)
    out = tmp_path / "ds"
    code, _, err = run_main(_exp_args(files, out), capsys)
    assert code == 1
    line = one_line(err, f"{out}: out of memory", "smaller batch_size to resume")
    assert kept(line) == (2, PARTS) == (n_records(out), PARTS)
    monkeypatch.setattr(R, "play_task", real)
    assert run_main(_exp_args(files, out), capsys)[0] == 0
    _same(_load_quietly(out), reference["exp"])


def test_a_signal_a_library_swallowed_is_still_named(files, tmp_path, capsys, monkeypatch):
    """Simulated: SIGTERM lands in a ctypes callback (as in LLVM's, during Numba's cold
    compile), where the handler's exception is only printed, and the library then fails."""
    import ctypes

    import catansim.errors as E
    import catansim.runs.runner as R

    reached = []

    def compile_then_fail(*args, **kw):
        def callback():
            os.kill(os.getpid(), signal.SIGTERM)
            for _ in range(1000):  # the handler runs here, inside the callback
                pass
        ctypes.CFUNCTYPE(None)(callback)()
        reached.append(True)  # the Interrupted did not get out of the callback
        raise RuntimeError("no compiled object yet")

    monkeypatch.setattr(R, "_warm_up", compile_then_fail)
    out = tmp_path / "ds"
    code, _, err = run_main(_exp_args(files, out), capsys)
    assert reached and code == 143
    one_line(err, "aborted by SIGTERM", str(out), "nothing written", prefix="catansim: ")
    assert not out.exists()  # stopped in the compile, before the folder was made
    assert E.swallowed_interrupt() is None  # forgotten when the command ended
    monkeypatch.undo()
    assert run_main(_exp_args(files, out), capsys)[0] == 0  # and it resumes


# --- datasets of format 1 -----------------------------------------------------------


def test_a_format_1_dataset_reads_and_refuses_to_resume(complete, reference, files, capsys):
    """Simulated: what catansim wrote before part records (no parts.jsonl, version 1)."""
    m = json.loads((complete / "manifest.json").read_text())
    m["format_version"] = 1
    for key in ("engine_fingerprint", "parts", "players"):
        m.pop(key)
    (complete / "manifest.json").write_text(json.dumps(m))
    (complete / "parts.jsonl").unlink()
    _same(_load_quietly(complete), reference["exp"])
    v = D.verify(complete)
    assert v.complete and v.format_version == 1
    before = tree(complete)
    code, _, err = run_main(_exp_args(files, complete), capsys)
    assert code == 2
    one_line(err, "written by an older catansim (dataset format 1", "cannot resume it",
             "allowed: a new --out")
    assert tree(complete) == before
    # a truncated part of a format-1 dataset is found by its rows
    victim = _first_games_file(complete)
    with open(victim, "r+b") as fh:
        fh.truncate(victim.stat().st_size - 10)
    with pytest.warns(CatansimWarning, match=f"{victim.name}: not a readable Parquet file"):
        assert len(catansim.load(complete)[0]) == 75


# --- planning -------------------------------------------------------------------------


def test_a_trillion_games_plan_and_resume_in_flat_memory(tmp_path):
    """games = 10**12 (allowed): the plan is a generator; a run stopped after two parts
    and resumed for one more holds a few MB of Python objects, not 10**11 parts."""
    import tracemalloc

    from catansim.runs.experiment import parse_experiment

    exp = parse_experiment({"games": 10**12, "batch_size": 10, "strategies": "default"})
    assert n_parts(exp) == 10**11
    out = tmp_path / "huge"
    for stop_after in (2, 1):
        seen = []

        def stop(task, seen=seen, n=stop_after):
            seen.append(task)
            if len(seen) == n:
                raise KeyboardInterrupt

        tracemalloc.start()
        try:
            with pytest.raises(KeyboardInterrupt):  # force: 130 TB would not fit
                run_experiment(exp, out=out, progress=False, on_part=stop, force=True)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert peak < 64 * 2**20, peak
    assert 3 <= n_records(out) <= 5
    games, _ = _load_quietly(out)
    assert sorted(games.game)[:30] == list(range(30))
