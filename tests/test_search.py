"""Search players and players that leave decisions to a preset.

Oracles: a Python player that leaves every decision to its ``base_strategy`` plays,
event for event, the kernel's game of that strategy (``play_game``); the rollout
opener's win counts equal games played one by one with the same forced openings; its
choice reads only public information (the same choice whatever the game's own dice
and deck); with one candidate it is its base strategy, and its held-out difference
against that strategy is exactly zero.
"""

from __future__ import annotations

import numpy as np
import pytest

import catansim
from catansim.board import make_board
from catansim.core import layout as L
from catansim.engine import play_game
from catansim.errors import CatansimError
from catansim.game import Game
from catansim.kernels import free_openings
from catansim.players.search import RolloutOpener
from catansim.settings import GameSettings
from catansim.tuning.heldout import measure_player


class Delegator:
    """Leaves every decision to its base strategy."""

    def __init__(self, base: str = "default"):
        self.base_strategy = base
        self.asked = 0

    def decide(self, observation, options):
        self.asked += 1
        return None


@pytest.mark.parametrize("base", ["default", "army", "trader"])
def test_a_player_that_leaves_every_decision_to_its_base_strategy_plays_the_kernels_game(base):
    for seed in (1, 2, 3):
        seats = ["default", "city", "expander", "builder"]
        seats[seed % 4] = base
        want = play_game(seed, 4, seats, log=False)
        player = Delegator(base)
        seats[seed % 4] = player
        got = play_game(seed, 4, seats, log=False)
        assert player.asked > 50  # it was asked, and left every decision to the preset
        assert (got.winner, got.turns, got.vp) == (want.winner, want.turns, want.vp)
        assert np.array_equal(got.counters, want.counters)


def test_none_from_a_player_without_a_base_strategy_is_a_one_line_error():
    class Silent:
        def decide(self, observation, options):
            return None

    with pytest.raises(CatansimError, match=r"step: None is not an Option"):
        play_game(1, 4, [Silent(), "default", "default", "default"], log=False)


@pytest.mark.parametrize("base, needle", [
    ("nonsense", r"strategies\[0\]\.base_strategy: unknown strategy 'nonsense'"),
    (3, r"strategies\[0\]\.base_strategy: 3 is not a compiled strategy"),
    ("python:catansim.game:RandomPlayer", r"base_strategy: .* is not a compiled strategy"),
])
def test_a_bad_base_strategy_is_refused_before_any_game(base, needle):
    with pytest.raises(CatansimError, match=needle):
        GameSettings(strategies=(Delegator(base), "default", "default", "default"))


def test_one_candidate_is_the_base_strategys_own_game():
    for seed in (4, 5):
        want = play_game(seed, 4, ["default"] * 4, log=False)
        got = play_game(seed, 4, ["default", "default", RolloutOpener(candidates=1),
                                  "default"], log=False)
        assert np.array_equal(got.counters, want.counters)


def _first_pick(seed: int, board) -> Game:
    g = Game(seed, strategies=("default",) * 4, layout="given", board=board, external=[0],
             log=False)
    assert g.decision == "setup settlement" and g.to_move == 0
    return g


def test_the_rollout_wins_are_the_games_played_one_by_one():
    board = make_board("variable", 11)
    g = _first_pick(11, board)
    player = RolloutOpener(candidates=3, rollouts=6)
    obs = g.observation(0)
    nodes = [o.target for o in player.shortlist(obs, g.legal())]
    seeds = [3, 77, 2**40, 5, 912, 64]
    wins = player.rollout_wins(obs, nodes, seeds)
    assert len(nodes) == 3 and wins.sum() > 0
    for node, w in zip(nodes, wins, strict=True):
        forced = free_openings()
        forced[0] = node
        alone = sum(play_game(int(s), 4, ["default"] * 4, layout="given", board=board,
                              openings=forced, log=False).winner == 0 for s in seeds)
        assert w == alone


def test_the_opener_reads_no_hidden_information():
    # Two games on one board whose dice and decks differ (other seeds): the same
    # observation of the set-up, so the same choice for the same player stream.
    board = make_board("variable", 12)
    choices = []
    for seed in (12, 9012):
        g = _first_pick(seed, board)
        player = RolloutOpener(candidates=4, rollouts=20)
        player.new_game(1, 0)
        choices.append(player.decide(g.observation(0), g.legal()))
        assert choices[-1] in g.legal() and len(player.last_rollouts) == 4
    assert choices[0] == choices[1]


def test_the_opener_leaves_every_other_decision_to_its_base_strategy():
    board = make_board("variable", 13)
    g = _first_pick(13, board)
    player = RolloutOpener(candidates=2, rollouts=4)
    player.new_game(13, 0)
    first = player.decide(g.observation(0), g.legal())
    g.step(first)
    assert g.decision == "setup road"
    assert player.decide(g.observation(0), g.legal()) is None


def test_with_one_candidate_the_held_out_difference_is_exactly_zero():
    h = measure_player(RolloutOpener(candidates=1), "default", ["default"], n_deals=6, seed=3)
    row = h.paired.loc["default"]
    assert row["deals"] == 6 and row["diff"] == 0.0 and row["tuned"] == row["start"]


@pytest.mark.parametrize("kwargs, needle", [
    (dict(candidates=0), r"candidates: .*allowed"),
    (dict(rollouts=-1), r"rollouts: .*allowed"),
    (dict(model="nobody"), r"model: unknown strategy 'nobody'"),
    (dict(base_strategy="python:catansim.game:RandomPlayer"),
     r"base_strategy: .* is not a compiled strategy"),
])
def test_bad_opener_settings_are_one_line_errors(kwargs, needle):
    with pytest.raises(CatansimError, match=needle):
        RolloutOpener(**kwargs)


def test_the_opener_is_named_like_any_python_player():
    res = catansim.play_game(6, 4, ["python:catansim.players.search:RolloutOpener", "default",
                                    "default", "default"], log=False)
    assert res.strategies[0] == "python:catansim.players.search:RolloutOpener"
    assert L.counter(res.counters, "c_illegal") == 0


def _opener_script():
    import runpy
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "experiments" / "tuning" / "opener.py"
    return runpy.run_path(str(path))["main"]


def test_the_opener_script_writes_its_summary_and_resumes_from_its_stages(tmp_path):
    import json

    main = _opener_script()
    args = [str(tmp_path), "--deals", "1", "--sweep-deals", "1"]
    assert main(args) == 0
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["heldout"]["games"] == 4 and summary["name"] == "opener"
    assert (tmp_path / "tables" / "opener.csv").exists()
    # A rerun takes every finished stage from stages.json instead of playing it again.
    stages = json.loads((tmp_path / "stages.json").read_text())
    key = next(k for k in stages if k.startswith("sweep_24x160"))
    stages[key]["diff"] = 0.99  # now the best setting: the held-out stage is new
    (tmp_path / "stages.json").write_text(json.dumps(stages))
    assert main(args) == 0
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert (summary["candidates"], summary["rollouts"]) == (24, 160)
    assert summary["sweep"]["24x160"]["diff"] == 0.99


def test_the_opener_script_refuses_a_bad_count_in_one_line(tmp_path):
    main = _opener_script()
    with pytest.raises(CatansimError, match=r"--deals: 0; allowed: an integer of at least 1"):
        main([str(tmp_path), "--deals", "0"])
