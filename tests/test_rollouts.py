"""Rollouts (``Game.rollouts``, ``core.engine_nb.rollouts_nb``): many games played on from
one paused position in one compiled call.

Oracles: each rollout is the game the step interface plays from
``Game.determinize(seat, seed)`` (or, omniscient, from a fork with its streams
reseeded) when the option is stepped and every seat is then played by the rollout
strategies; the invariant checker finds nothing in thousands of rollouts; and a rollout
of the public kind reads nothing the seat cannot see (positions that differ only in
hidden cards give the same games), while an omniscient one does.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_determinize import _paused_games
from test_honest_players import hidden_twins

from catansim.core import layout as L
from catansim.core.rng_nb import seed_streams_nb
from catansim.errors import CatansimError
from catansim.game import Game
from catansim.strategies import PRESETS


def _stepped(game, seat, choice, seed, strategies, information):
    """The rollout played through the step interface."""
    if information == "public":
        fork = game.determinize(seat, seed)
    else:
        fork = game.fork()
        seed_streams_nb(seed, fork._rng)
        fork.s[L.S_LOG_ON] = 0
    fork.s[L.S_EXTERNAL : L.S_EXTERNAL + 4] = 0
    fork._strat[:], fork._params[:] = PRESETS.seat_arrays(strategies)
    fork.step(fork.legal()[choice])
    assert fork.over
    return fork.s[L.S_COUNTERS :]


@pytest.mark.parametrize("information", ["public", "omniscient"])
def test_a_rollout_is_the_game_the_step_interface_plays_from_the_same_fork(information):
    decisions = set()
    for game in _paused_games(4, ("default", "army", "trader", "random"), games=16):
        seat = game.to_move
        k = len(game.legal())
        choices = np.arange(min(k, 4))
        seeds = 1000 + choices
        rollout = ("default", "city", "random", "trader")
        out = game.rollouts(seat, choices, seeds, rollout, information)
        for j, (c, seed) in enumerate(zip(choices, seeds, strict=True)):
            want = _stepped(game, seat, int(c), int(seed), rollout, information)
            assert np.array_equal(out[j], want), (game, c)
        decisions.add(game.decision)
    assert len(decisions) >= 3


def test_a_rollout_depends_on_its_seed_and_choice_only():
    for game in _paused_games(games=8):
        seat = game.to_move
        k = len(game.legal())
        choices = np.array([0, k - 1, 0, 0, k - 1])
        out = game.rollouts(seat, choices, [5, 6, 7, 5, 6], "default")
        assert np.array_equal(out[0], out[3]) and np.array_equal(out[1], out[4])
        again = game.rollouts(seat, [0], [7], "default")
        assert np.array_equal(out[2], again[0])


def test_rollouts_break_no_invariant_and_make_no_illegal_choice():
    played = 0
    for game in _paused_games(3, ("random",), games=8) + _paused_games(games=8):
        game._rules[L.R_CHECK] = 1  # the invariant checker after every step
        seat = game.to_move
        k = len(game.legal())
        out = game.rollouts(seat, np.arange(200) % k, np.arange(200), "default")
        assert (L.counter(out, "c_violations") == 0).all()
        assert (L.counter(out, "c_illegal") == 0).all()
        assert (L.counter(out, "c_end_reason") == 1).mean() > 0.95  # won, not capped
        played += len(out)
    assert played >= 2000


def test_a_rollout_reads_nothing_the_seat_cannot_see():
    rng = np.random.default_rng(2)
    differed = 0
    for game in _paused_games(games=14):
        seat = game.to_move
        twins = hidden_twins(game, seat, rng)
        outs = {}
        for info in ("public", "omniscient"):
            for name, twin in zip("ab", twins, strict=True):
                k = len(twin.legal())
                outs[info, name] = twin.rollouts(seat, np.arange(40) % k, np.arange(40),
                                                 "default", info)
        assert np.array_equal(outs["public", "a"], outs["public", "b"])
        differed += not np.array_equal(outs["omniscient", "a"], outs["omniscient", "b"])
    assert differed >= 5  # seeing the cards changes the games: the test has teeth


def test_minus_one_leaves_the_decision_to_the_rollout_strategy():
    for game in _paused_games(games=6):
        seat = game.to_move
        out = game.rollouts(seat, [-1], [9], "default", "omniscient")
        fork = game.fork()
        seed_streams_nb(9, fork._rng)
        fork.s[L.S_EXTERNAL : L.S_EXTERNAL + 4] = 0
        fork._strat[:], fork._params[:] = PRESETS.seat_arrays(("default",) * 4)
        fork.step(fork.suggest())
        assert np.array_equal(out[0], fork.s[L.S_COUNTERS :])


def test_rollouts_from_a_card_being_played_in_a_logged_game_equal_an_unlogged_games():
    # a card's effect writes into the log row of the card: a rollout plays unlogged
    met = set()
    for seed in range(40):
        games = [Game(seed, strategies=("army", "city", "default", "trader"),
                      external=[seed % 4], log=log) for log in (True, False)]
        while not games[0].over and games[0].decision not in (
                "Invention", "Monopoly", "Road Building road"):
            choice = games[0].suggest()
            assert games[1].suggest() == choice
            for g in games:
                g.step(choice)
        if games[0].over:
            continue
        met.add(games[0].decision)
        seat = games[0].to_move
        k = len(games[0].legal())
        for info in ("public", "omniscient"):
            a, b = (g.rollouts(seat, np.arange(30) % k, np.arange(30), "default", info)
                    for g in games)
            assert np.array_equal(a, b)
    assert len(met) == 3


def test_bad_rollout_arguments_are_one_line_errors():
    game = _paused_games(games=2)[0]
    seat = game.to_move
    k = len(game.legal())
    with pytest.raises(CatansimError, match=rf"^rollouts: a choice is out of range; allowed: "
                                            rf"-1\.\.{k - 1}$"):
        game.rollouts(seat, [k], [1], "default")
    with pytest.raises(CatansimError, match=r"^rollouts: \(2,\) choices for \(1,\) seeds"):
        game.rollouts(seat, [0, 0], [1], "default")
    with pytest.raises(CatansimError, match=r"^rollouts: information: 'seen' is not allowed"):
        game.rollouts(seat, [0], [1], "default", information="seen")
    with pytest.raises(CatansimError, match=r"^rollouts: strategies: unknown strategy"):
        game.rollouts(seat, [0], [1], "nobody")
    with pytest.raises(CatansimError, match=r"is not a compiled strategy"):
        game.rollouts(seat, [0], [1], "python:catansim.game:RandomPlayer")
    with pytest.raises(CatansimError, match=r"^rollouts: a seed is negative"):
        game.rollouts(seat, [0], [-1], "default")
    done = Game(1, strategies=("default",), log=False)
    with pytest.raises(CatansimError, match=r"^rollouts: no decision is pending$"):
        done.rollouts(0, [0], [1], "default")
