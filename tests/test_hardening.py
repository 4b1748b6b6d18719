"""Issue #38, hardening second pass: the cases an adversarial user found beyond
test_faults.py, test_bad_experiments.py and test_bad_commands.py.

Each case asserts what the issue asks: no traceback, one line naming the field or
path, a non-zero exit where the command cannot do what was asked, nothing lost,
and nothing stale that looks complete.
"""

from __future__ import annotations

import shutil
import tracemalloc
import warnings

import numpy as np
import pandas as pd
import pytest

import catansim
from catansim.errors import CatansimError, CatansimWarning
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
