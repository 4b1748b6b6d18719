"""The step interface (``catansim.game``): one engine, paused at Python seats' decisions.

Conformance: seats that take ``suggest()`` replay the batch kernel's games bit for bit
(counters and every event), over every rule setting of the random-play invariant
suite; random Python players' games pass the game-log checker; an observation does not
change when only hidden information does; a fork plays on independently, under other
rules if asked.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from test_honest_players import _deal_hidden
from test_invariants import CONFIGS

from catansim.engine import play_batch, play_game
from catansim.errors import CatansimError
from catansim.game import KINDS, Game, Option, Player, RandomPlayer
from catansim.logs import game_log, replay
from catansim.rules import Rules
from catansim.settings import GameSettings

# Games per rule setting: 60 here (17 settings), 1,000 with CATANSIM_STEP_GAMES=1000.
GAMES = int(os.environ.get("CATANSIM_STEP_GAMES", "60"))
MIXES = (("random",), ("default",), ("default", "trader", "army", "random"),
         ("builder", "expander", "city", "trader"))


def _settings(name, strategies):
    n, layout, rules, _ = CONFIGS[name]
    return GameSettings(n_players=n, strategies=strategies[:n], layout=layout,
                        rules=Rules(**rules))


def _suggested(seed, settings, external):
    """The game of ``seed`` with the ``external`` seats taking every suggestion."""
    game = Game(seed, settings=settings, external=external)
    while not game.over:
        game.step(game.suggest())
    return game


@pytest.mark.parametrize("name", list(CONFIGS))
def test_seats_that_take_the_suggestion_replay_the_kernels_games(name):
    for i in range(GAMES):
        settings = _settings(name, MIXES[i % len(MIXES)])
        n = settings.n_players
        external = range(n) if i % 2 == 0 else [i % n]  # every seat, or one
        seed = 10_000 + i
        game = _suggested(seed, settings, external)
        kernel = play_game(seed, settings=settings)
        assert np.array_equal(game.result().state[kernel.state.size - kernel.counters.size:],
                              kernel.counters), (name, seed)
        assert np.array_equal(game.result().events, kernel.events), (name, seed)
        assert (game.winner, game.turns, game.vp) == (kernel.winner, kernel.turns, kernel.vp)


@pytest.mark.parametrize("name", ["official-4", "friendly-3", "strict-bank6-4",
                                  "unlimited-nodiscard-4", "beginner-vp6-3", "cap1-4"])
def test_random_python_players_games_pass_the_checker(name):
    n, layout, rules, _ = CONFIGS[name]
    for seed in range(8):
        players = [RandomPlayer(seed * 10 + q) for q in range(n)]
        if seed % 2:
            players[seed % n] = "default"  # a compiled seat among Python ones
        res = play_game(seed, n, players, layout=layout, rules=Rules(**rules))
        replay(*game_log(res))  # raises at a broken rule
        assert res.state[res.state.size - res.counters.size:].tolist() == \
            res.counters.tolist()


def test_every_decision_kind_reaches_a_python_seat_with_its_options():
    seen = {}
    for seed in range(40):
        game = Game(seed, strategies=("random",), external=range(4), log=False)
        while not game.over:
            options = game.legal_options()
            assert options and all(o.kind in KINDS for o in options)
            assert len(set(options)) == len(options)
            seen.setdefault(game.decision, options[0])
            game.step(game.suggest())
    assert set(seen) == {"setup settlement", "setup road",
                         "development card before the roll", "action", "discard",
                         "robber hex", "robber victim", "Road Building road", "Invention",
                         "Monopoly", "trade answer"}


def test_an_observation_does_not_change_when_only_hidden_information_does():
    from catansim.core import layout as L

    rng = np.random.default_rng(3)
    compared = hidden_differed = 0
    for seed in range(12):
        game = Game(seed, strategies=("default",), external=[seed % 4])
        while not game.over and game.observation(0).turn < 6 + 4 * (seed % 9):
            game.step(game.suggest())
        if game.over:
            continue
        seat = game.to_move
        s1, s2 = _deal_hidden(game.s, seat, rng)
        views = []
        for s in (s1, s2):
            twin = game.fork()
            twin.s[:] = s
            views.append(twin.observation(seat).as_dict())
        assert views[0] == views[1]
        compared += 1
        hidden = slice(L.S_HAND, L.S_HAND + 20)
        hidden_differed += not np.array_equal(s1[hidden], s2[hidden])
    assert compared >= 10 and hidden_differed >= 6  # the twins do differ in hidden cards


def test_an_observation_shows_the_own_hand_and_only_intervals_of_others():
    game = Game(5, strategies=("default",), external=[1])
    while game.observation(1).turn < 12:
        game.step(game.suggest())
    obs = game.observation(1)
    hands = game.s[L_HAND()].reshape(4, 5)
    assert obs.hand.tolist() == hands[1].tolist()
    assert obs.known_low[1].tolist() == obs.known_high[1].tolist() == hands[1].tolist()
    assert (obs.known_low <= hands).all() and (hands <= obs.known_high).all()
    assert obs.hand_sizes.tolist() == hands.sum(axis=1).tolist()
    assert obs.victory_points >= obs.visible_points[1]


def L_HAND():
    from catansim.core import layout as L

    return slice(L.S_HAND, L.S_HAND + 20)


def test_a_fork_plays_on_independently_and_the_same_choices_give_the_same_game():
    game = Game(21, strategies=("default",), external=[0, 2])
    for _ in range(60):
        game.step(game.suggest())
    assert not game.over
    twin = game.fork()
    for g in (game, twin):
        while not g.over:
            g.step(g.suggest())
    assert twin.result().events.tolist() == game.result().events.tolist()
    assert twin.vp == game.vp == play_game(21, strategies=("default",)).vp


def test_a_fork_can_change_the_rules_from_the_fork_on():
    base = Game(4, strategies=("default",), external=[0])
    while base.observation(0).turn < 20:
        base.step(base.suggest())
    calm = base.fork(rules=Rules(robber="off"))
    forked_at = len(base.events)
    for g in (base, calm):
        while not g.over:
            g.step(g.suggest())
    moves_after = [sum(1 for e in g.events[forked_at:] if e["e"] == "robber")
                   for g in (base, calm)]
    assert moves_after[1] == 0 < moves_after[0]
    with pytest.raises(CatansimError, match="first_pick"):
        Game(4, external=[0]).fork(rules=Rules(first_pick=1))


def test_play_to_waits_at_a_turn_and_forks_go_on_with_the_same_dice():
    # The robber study's design: games identical up to turn T, then with and without
    # the robber, on the same dice after T.
    kernel = play_game(11, strategies=("default",))
    assert Game(11, strategies=("default",)).result().events.tolist() == \
        kernel.events.tolist()  # no Python seat: the constructor plays the whole game
    base = Game(11, strategies=("default",), to_turn=12)
    assert base.waiting and not base.over and base.legal() == [] and base.to_move == -1
    assert base.observation(0).turn == 12
    same, calm = base.fork(), base.fork(rules=Rules(robber="off"))
    waited_at = len(base.events)
    for g in (same, calm):
        g.resume()
        assert g.over
    assert same.result().events.tolist() == kernel.events.tolist()

    def rolls(g):
        return [e["dice"] for e in g.events[waited_at:] if e["e"] == "roll"]

    n = min(len(rolls(same)), len(rolls(calm)))
    assert n > 10 and rolls(same)[:n] == rolls(calm)[:n]
    assert not any(e["e"] == "robber" for e in calm.events[waited_at:])
    assert any(e["e"] == "robber" for e in same.events[waited_at:])
    with pytest.raises(CatansimError, match="no decision is pending"):
        base.step(Option("roll"))
    # play_to in steps lands where one call does
    stepwise = Game(11, strategies=("default",), to_turn=5).play_to(12)
    assert stepwise.s.tolist() == base.s.tolist()


def test_bad_choices_and_calls_are_refused_with_one_line():
    game = Game(1, strategies=("default",), external=[0])
    with pytest.raises(CatansimError, match="not legal"):
        game.step(Option("city", 3))
    with pytest.raises(CatansimError, match="not an Option"):
        game.step("road 3")
    with pytest.raises(CatansimError, match="seat 2"):
        game.suggest(2)
    with pytest.raises(CatansimError, match="does not play"):
        game.observation(7)
    with pytest.raises(CatansimError, match="not over"):
        _ = game.winner
    with pytest.raises(CatansimError, match="external: seat 5"):
        Game(1, external=[5])
    with pytest.raises(CatansimError, match=r"strategies\[1\]: unknown strategy 3"):
        play_game(1, 4, [RandomPlayer(0), 3, "default", "default"])
    with pytest.raises(CatansimError, match=r"strategies\[0\]: cannot import module"):
        play_game(1, 4, ["python:no_such_module:Player", "default", "default", "default"])
    with pytest.raises(CatansimError, match="not a Python player's name"):
        play_game(1, 4, ["python:bad name", "default", "default", "default"])


def test_a_custom_offer_is_taken_when_legal_and_refused_when_not():
    game = Game(8, strategies=("default",), external=[0])
    while not (game.to_move == 0 and game.decision == "action"
               and game.observation(0).hand.sum() >= 2):
        game.step(game.suggest())
    hand = game.observation(0).hand
    r = int(np.argmax(hand))
    give = [0] * 5
    give[r] = 2 if hand[r] >= 2 else 1
    get = [0] * 5
    get[(r + 1) % 5] = 1
    offers = int(game.s[__import__("catansim").core.layout.C_OFFERS])
    game.step(Option("offer", 1, tuple(give), tuple(get)))
    assert int(game.s[__import__("catansim").core.layout.C_OFFERS]) == offers + 1
    with pytest.raises(CatansimError, match="not a legal offer"):
        bad = list(give)
        bad[r] = 99
        while game.to_move != 0 or game.decision != "action":
            game.step(game.suggest())
        game.step(Option("offer", 1, tuple(bad), tuple(get)))


def test_play_game_and_play_batch_mix_python_and_compiled_seats_reproducibly():
    assert isinstance(RandomPlayer(0), Player)
    res = play_game(3, 4, [RandomPlayer(1), "default", "default", "default"])
    assert res.strategies == ("python:catansim.game:RandomPlayer", "default", "default",
                              "default")
    assert res.winner is not None or res.turns == res.rules.max_turns
    again = play_game(3, 4, [RandomPlayer(1), "default", "default", "default"])
    assert again.events.tolist() == res.events.tolist()  # seeded per game and seat
    # by name, as an experiment file gives it; play_batch rows equal single games
    settings = GameSettings(strategies=("python:catansim.game:RandomPlayer", "default",
                                        "default", "default"))
    batch = play_batch(np.array([3, 4, 5]), settings)
    for i, seed in enumerate((3, 4, 5)):
        assert batch.counters[i].tolist() == play_game(seed, settings=settings,
                                                       log=False).counters.tolist()
    same = play_game(3, 4, [RandomPlayer(0), "default", "default", "default"], log=False)
    assert batch.counters[0].tolist() == same.counters.tolist()


def test_a_batch_in_lockstep_plays_the_games_game_plays_option_for_option():
    from catansim.game import GameBatch

    strategies = ("random", "default", "trader", "random")
    seeds = list(range(30))
    batch = GameBatch(seeds, strategies=strategies, external=[0, 2, 3])
    games = [Game(s, strategies=strategies, external=[0, 2, 3], log=False) for s in seeds]
    rng = np.random.default_rng(5)
    kinds = set()
    while not batch.over:
        counts = batch.counts
        pick = np.where(counts > 0, (rng.random(len(batch)) * counts).astype(np.int64), -1)
        for g, game in enumerate(games):
            assert batch.to_move[g] == game.to_move
            if pick[g] >= 0:
                options = game.legal()
                assert len(options) == counts[g]  # the same options, in the same order
                kinds.add(game.decision)
                if g % 7 == 0:
                    assert batch.observation(g, game.to_move).as_dict() == \
                        game.observation(game.to_move).as_dict()
                game.step(options[pick[g]])
        batch.choose(pick)
    assert {"discard", "Invention", "trade answer", "action"} <= kinds
    for g, game in enumerate(games):
        assert batch.counters[g].tolist() == game.result().counters.tolist()


def test_a_batch_refuses_indices_out_of_range_in_one_line():
    from catansim.game import GameBatch

    batch = GameBatch([1, 2], strategies=("default",), external=[0])
    with pytest.raises(CatansimError, match="out of range"):
        batch.choose(batch.counts)
    with pytest.raises(CatansimError, match="expected 2 integer indices"):
        batch.choose([0])


def test_a_fork_with_new_rules_keeps_the_python_player_objects():
    class Needy(RandomPlayer):  # made only with an argument: never rebuilt by name
        def __init__(self, seed):
            super().__init__(seed)

    player = Needy(3)
    settings = GameSettings(strategies=(player, "default", "default", "default"))
    game = Game(6, settings=settings)  # seat 0 is external: its player decides
    assert game.to_move == 0 and game.decision == "setup settlement"
    twin = game.fork(rules=Rules(robber="friendly"))
    assert dict(twin.settings.players)[0] is player
    assert twin.settings.rules.robber == "friendly"
