"""The dataset format (version 2): part records against independent recomputation,
the engine fingerprint in the manifest and every part, readers that write nothing,
the key-by-key description of a changed setting, and the kernel-cache pruning rule."""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import subprocess
import sys
import time
import warnings

import pandas as pd
import pyarrow.parquet as pq
import pytest

import catansim
from catansim.core import engine_fingerprint, prune_caches
from catansim.engine import games_digest
from catansim.errors import CatansimError, CatansimWarning
from catansim.results import dataset as D
from catansim.runs.experiment import parse_experiment
from catansim.runs.runner import compute_task, describe_change, plan, run_experiment

SPEC = {"name": "d", "games": 12, "batch_size": 5, "seed": 2, "strategies": "default",
        "variants": {"off": {"rules": {"robber": "off"}}}}


@pytest.fixture(scope="module")
def ds(tmp_path_factory):
    out = tmp_path_factory.mktemp("d") / "ds"
    run_experiment(parse_experiment(SPEC), out=out, progress=False)
    return out


def test_each_record_matches_its_files_recomputed_independently(ds):
    lines = (ds / "parts.jsonl").read_bytes().split(b"\n")
    assert lines[-1] == b"" and len(lines) == 7  # 3 batches x 2 variants, newline-terminated
    stems = set()
    for raw in lines[:-1]:
        rec = json.loads(raw)
        stems.add(rec["part"])
        assert rec["engine"] == engine_fingerprint()
        assert rec["stop"] - rec["start"] == (2 if rec["start"] == 10 else 5)
        for table, per_game in (("games", 1), ("players", 4)):
            path = ds / table / f"{rec['part']}.parquet"
            data = path.read_bytes()
            assert rec[table]["bytes"] == len(data)
            assert rec[table]["sha256"] == hashlib.sha256(data).hexdigest()
            assert rec[table]["rows"] == pq.ParquetFile(path).metadata.num_rows \
                == per_game * (rec["stop"] - rec["start"])
            meta = json.loads(pq.read_schema(path).metadata[b"catansim"])
            assert meta["engine_fingerprint"] == engine_fingerprint()
            assert (meta["variant"], meta["start"], meta["stop"], meta["table"]) == (
                rec["variant"], rec["start"], rec["stop"], table)
    assert stems == {p.stem for p in (ds / "games").glob("part-*.parquet")}
    m = json.loads((ds / "manifest.json").read_text())
    assert (m["format_version"], m["engine_fingerprint"], m["players"]) == (
        2, engine_fingerprint(), 4)
    assert m["games_digest"] == games_digest()


def test_each_column_has_its_encoding_and_reads_back_the_frame(ds):
    import pyarrow.types as pt

    expected = {"game": "DELTA_BINARY_PACKED", "seed": "PLAIN", "board_id": "PLAIN"}
    for table in D.TABLES:
        path = sorted((ds / table).glob("part-*.parquet"))[0]
        meta = pq.ParquetFile(path).metadata
        schema = pq.read_schema(path)
        for i in range(meta.num_columns):
            col = meta.row_group(0).column(i)
            name, kind = col.path_in_schema, schema.field(col.path_in_schema).type
            want = expected.get(name) or (
                "BYTE_STREAM_SPLIT" if pt.is_integer(kind) else "RLE_DICTIONARY")
            data_encodings = set(col.encodings) - {"RLE"}  # RLE: levels and indices
            if want == "RLE_DICTIONARY":
                assert "RLE_DICTIONARY" in col.encodings or "PLAIN_DICTIONARY" in \
                    col.encodings or pt.is_boolean(kind), (table, name, col.encodings)
            else:
                assert data_encodings == {want}, (table, name, col.encodings)
            assert col.compression == "ZSTD"
    # Read back, each table equals the frames the runner made, value for value.
    games, players = D.load(ds)
    exp = parse_experiment(SPEC)
    made = [compute_task(exp, task) for task in plan(exp)]
    for got, frames in ((games, [g for g, _ in made]), (players, [p for _, p in made])):
        want = pd.concat(frames, ignore_index=True).sort_values(
            [c for c in ("variant", "game", "seat") if c in got.columns], kind="stable")
        pd.testing.assert_frame_equal(got.reset_index(drop=True), want.reset_index(drop=True),
                                      check_categorical=False, check_exact=True)


def test_readers_write_nothing_and_take_no_lock(ds, tmp_path):
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(ds, copy)
    (copy / ".lock").unlink()
    before = {p: p.stat().st_mtime_ns for p in copy.rglob("*")}
    fh = open(copy / "parts.jsonl", "rb")  # a writer's exclusive lock would not stop readers
    fcntl.flock(fh, fcntl.LOCK_SH)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            games, players = catansim.load(copy)
            assert [p.stem for p in D.complete_parts(copy)][:2] == [
                "part-baseline-000000000000-000000000005",
                "part-baseline-000000000005-000000000010"]
            assert sum(len(g) for _, g, _ in D.iter_parts(copy, variants=["off"])) == 12
            assert D.verify(copy).complete
    finally:
        fh.close()
    assert len(games) == 24 and len(players) == 96
    assert {p: p.stat().st_mtime_ns for p in copy.rglob("*")} == before
    assert not (copy / ".lock").exists()


def test_records_keep_the_last_of_a_part_and_ignore_a_torn_tail(tmp_path):
    part = D.Part("baseline", 0, 5)
    rec = D.PartRecord(part, "e", {t: D.FileRecord(5, 10, "ab") for t in D.TABLES})
    other = D.PartRecord(part, "f", {t: D.FileRecord(5, 11, "cd") for t in D.TABLES})
    line = rec.to_line()
    (tmp_path / "parts.jsonl").write_text(line + other.to_line() + line[:20])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = D.read_records(tmp_path)
    assert list(got) == [part.stem] and got[part.stem].engine == "f"
    (tmp_path / "parts.jsonl").write_text('{"part": "x"}\n' + line)
    with pytest.warns(CatansimWarning, match=r"parts.jsonl:1: not a part record \(no valid "
                                             r"part name and range\); ignored"):
        assert list(D.read_records(tmp_path)) == [part.stem]


def test_plan_is_lazy_and_parts_fit_it():
    import itertools

    parts = D.plan_parts(["a", "b"], 10**12, 7)
    assert not isinstance(parts, list)
    first = list(itertools.islice(parts, 3))
    assert first == [D.Part("a", 0, 7), D.Part("b", 0, 7), D.Part("a", 7, 14)]
    assert D.count_parts(2, 10**12, 7) == 2 * (10**12 // 7 + 1)
    assert D.part_fits(D.Part("b", 999999999995, 10**12), ["a", "b"], 10**12, 5)
    assert not D.part_fits(D.Part("b", 3, 8), ["a", "b"], 10**12, 5)
    assert not D.part_fits(D.Part("c", 0, 5), ["a", "b"], 10**12, 5)
    assert D.Part.from_stem("part-off-000000000010-000000000012") == D.Part("off", 10, 12)
    assert D.Part.from_stem("part-off-10-12") is None


def test_unknown_columns_are_one_line(ds):
    with pytest.raises(CatansimError, match=r"columns.games: unknown column 'nope'; allowed: "
                                            "the games columns of docs/results.md"):
        catansim.load(ds, columns={"games": ["game", "nope"]})
    with pytest.raises(CatansimError, match=r"columns: expected \{'games'"):
        catansim.load(ds, columns={"gmes": ["game"]})
    games, players = catansim.load(ds, columns={"games": ["game", "turns"],
                                                "players": ["game", "seat", "vp"]})
    assert list(games.columns) == ["game", "turns"] and len(players) == 96


def test_a_changed_setting_is_named_key_by_key():
    base = parse_experiment({"games": 5, "strategies": ["city", "default", "army", "random"]})
    key = base.result_key()
    city = parse_experiment({"games": 5, "strategies": ["mine", "default", "army", "random"],
                             "strategy_defs": {"mine": {"base": "city", "dev_weight": 0.9}}})
    assert describe_change(key, city.result_key()) == (
        "variants.baseline.strategies[0]: 'city' -> 'mine', "
        "variants.baseline.strategy_params[0].dev_weight: 0.6 -> 0.9")
    friendly = parse_experiment({"games": 5, "strategies": ["city", "default", "army", "random"],
                                 "seed": 4, "rules": {"robber": "friendly", "vp_to_win": 12}})
    assert describe_change(key, friendly.result_key()) == (
        "seed: 0 -> 4, variants.baseline.rules.vp_to_win: 10 -> 12, "
        "variants.baseline.rules.robber: 'official' -> 'friendly'")
    new = dict(key, rotate=True, players=3, layout="beginner")
    assert describe_change(key, new) == ("players: 4 -> 3, layout: 'variable' -> 'beginner', "
                                         "rotate: False -> True")
    new["batch_size"] = 7
    assert describe_change(key, new).endswith(" and 1 more")
    assert describe_change(key, {**key, "extra": 1}) == "extra: added"
    assert describe_change(key, key) == "the experiment"


def _cache(base, name, age_days, now):
    d = base / name
    (d / "core_x").mkdir(parents=True)
    (d / "core_x" / "f.nbi").write_bytes(b"x")
    stamp = d / ".in-use"
    stamp.write_text("")
    t = now - age_days * 86400
    os.utime(stamp, (t, t))
    return d


def test_cache_folders_of_other_engines_are_pruned_when_unused_and_not_held(tmp_path):
    now = time.time()
    keep = _cache(tmp_path, "0" * 16, 30, now)  # the current one: never removed
    old = _cache(tmp_path, "1" * 16, 8, now)
    recent = _cache(tmp_path, "2" * 16, 6, now)
    held = _cache(tmp_path, "3" * 16, 30, now)
    other = _cache(tmp_path, "not-a-fingerprint", 30, now)
    unstamped = _cache(tmp_path, "4" * 16, 0, now)
    (unstamped / ".in-use").unlink()
    t = now - 9 * 86400
    for p in (unstamped, unstamped / "core_x", unstamped / "core_x" / "f.nbi"):
        os.utime(p, (t, t))  # an old folder from before stamps: its newest file decides
    with open(held / ".in-use", "a") as fh:  # another process still uses it
        fcntl.flock(fh, fcntl.LOCK_SH)
        removed = prune_caches(tmp_path, keep, now=now)
    assert sorted(removed) == sorted([old, unstamped])
    assert all(p.exists() for p in (keep, recent, held, other))
    assert not old.exists() and not unstamped.exists()


def test_this_process_holds_and_stamps_its_cache_folder():
    import numba

    from catansim import core

    if os.environ.get("NUMBA_CACHE_DIR"):
        pytest.skip("NUMBA_CACHE_DIR set: the cache is not managed")  # tested below
    folder = core.cache_base() / engine_fingerprint()
    assert numba.config.CACHE_DIR == str(folder)
    assert time.time() - (folder / ".in-use").stat().st_mtime < 7 * 86400
    with open(folder / ".in-use", "a") as fh:
        with pytest.raises(BlockingIOError):
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)


def test_a_cache_folder_you_set_still_holds_one_engine_only(tmp_path):
    """With NUMBA_CACHE_DIR set, the kernels cache in a folder of this engine's
    fingerprint under it: another engine's machine code is never loaded."""
    code = ("import numba; from catansim.core import engine_fingerprint as f;"
            "print(numba.config.CACHE_DIR); print(f())")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path)))
    assert r.returncode == 0, r.stderr
    folder, fingerprint = r.stdout.split()
    assert folder == str(tmp_path / fingerprint) and fingerprint == engine_fingerprint()
