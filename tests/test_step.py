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


# --- the boundary: a player's option, indices and turns are checked (#56) ------------------


def _at_action(seed=8):
    """A game whose seat 0 has an action pending with at least two cards in hand."""
    game = Game(seed, strategies=("default",), external=[0])
    while not (game.to_move == 0 and game.decision == "action"
               and game.observation(0).hand.sum() >= 2):
        game.step(game.suggest())
    return game


@pytest.mark.parametrize("option, needle", [
    (Option("road", True), "step: option target True is not allowed; allowed: the number of "
                           "a node, edge, hex, seat, card or resource, or -1"),
    (Option("road", 3.0), "step: option target 3.0 is not allowed"),
    (Option("road", 2**40), "step: option target 1099511627776 is not allowed"),
    (Option("offer", 1, give=(1,), get=(0, 1, 0, 0, 0)),
     "step: option give (1,) is not allowed; allowed: 5 card counts, integers >= 0 (wood, "
     "brick, wool, wheat, ore)"),
    (Option("offer", 1, give=(10**20, 0, 0, 0, 0), get=(0, 1, 0, 0, 0)),
     "step: option give (100000000000000000000, 0, 0, 0, 0) is not allowed"),
    (Option("offer", 1, give=(1, 0, 0, 0, 0), get=(0, True, 0, 0, 0)),
     "step: option get (0, True, 0, 0, 0) is not allowed"),
    (Option("offer", 1, give=(-1, 0, 0, 0, 0), get=(0, 1, 0, 0, 0)),
     "step: option give (-1, 0, 0, 0, 0) is not allowed"),
    (Option("offer", 1, give="wood", get=(0, 1, 0, 0, 0)), "step: option give 'wood' is not"),
    (Option("trade", 1), "step: option kind 'trade' is not allowed; allowed: settlement, road"),
])
def test_a_malformed_option_is_one_line_before_it_reaches_the_engine(option, needle):
    game = _at_action()
    before = game.s.copy()
    with pytest.raises(CatansimError) as info:
        game.step(option)
    assert str(info.value).startswith(needle) and "\n" not in str(info.value)
    assert np.array_equal(game.s, before)  # nothing applied


def test_numpy_integers_in_an_option_are_taken_as_the_plain_option():
    """A numpy array's values (a learned policy's output) are integers: the same game."""
    plain, arrays = _at_action(), _at_action()
    assert plain.s.tolist() == arrays.s.tolist()
    while not plain.over:
        o = plain.suggest()  # it draws from the seat's stream: both games ask
        assert arrays.suggest() == o
        plain.step(o)
        arrays.step(Option(o.kind, np.int64(o.target), give=np.array(o.give),
                           get=np.array(o.get, dtype=np.int32)))
        assert arrays.s.tolist() == plain.s.tolist()


def test_a_player_s_malformed_option_names_the_game_and_seat():
    class TrueTarget:
        def decide(self, observation, options):
            return Option(options[0].kind, True) if options[0].target == 1 else options[0]

    with pytest.raises(CatansimError, match=r"^game 3, seat 0 \(python:test_step:TrueTarget\): "
                       r"step: option target True is not allowed"):
        play_game(3, 4, [TrueTarget(), "default", "default", "default"], log=False)


def test_a_player_class_given_for_a_player_is_refused_in_one_line():
    from players_example import Thrifty

    with pytest.raises(CatansimError, match=r"^strategies\[2\]: Thrifty is a class, not a "
                       r"player; allowed: a player object, e.g. Thrifty\(\)"):
        play_game(3, 4, ["default", "default", Thrifty, "default"])


def test_observations_take_only_integer_seats_and_games():
    from catansim.game import GameBatch

    game = Game(5, strategies=("default",), external=[0])
    for bad in (True, 1.0, np.float64(1), "1"):
        with pytest.raises(CatansimError, match="observation: seat .* does not play"):
            game.observation(bad)
    assert game.observation(np.int64(1)).seat == 1
    batch = GameBatch([1, 2], strategies=("default",), external=[0])
    for bad, problem in ((99, "99 is out of range"), (2, "2 is out of range"),
                         (-1, "-1 is out of range"),
                         (True, r"expected an integer, got a boolean \(True\)")):
        with pytest.raises(CatansimError, match=rf"^observation: game: {problem}; allowed: a "
                           r"game index in 0..1$"):
            batch.observation(bad, 0)
    assert batch.observation(np.int64(1), 0).as_dict() == \
        Game(2, strategies=("default",), external=[0], log=False).observation(0).as_dict()


def test_play_to_a_turn_already_over_says_so():
    game = Game(5, strategies=("default",), to_turn=20)
    before = game.s.copy()
    with pytest.raises(CatansimError, match=r"^play_to: turn 5 is over \(the game waits at the "
                       r"end of turn 20\); allowed: a turn >= 20$"):
        game.play_to(5)
    assert np.array_equal(game.s, before)
    assert game.play_to(20).s.tolist() == before.tolist()  # where it waits: nothing to play
    assert game.play_to(21).observation(0).turn == 21


def test_a_batch_refuses_a_python_player_it_would_never_ask():
    from players_example import Thrifty

    from catansim.game import GameBatch

    for strategies, external in (((Thrifty(), "default", "default", "default"), ()),
                                 (("default", "python:players_example:Thrifty", "default",
                                   "default"), [1])):
        with pytest.raises(CatansimError, match=r"^strategies\[\d\]: python:players_example:"
                           r"Thrifty is a Python player, which a GameBatch never asks"):
            GameBatch([1, 2], strategies=strategies, external=external)


def _openings(value, dtype=None):
    from catansim.kernels import free_openings

    openings = [int(x) for x in free_openings()]
    openings[0] = value
    return openings if dtype is None else np.array(openings, dtype=dtype)


@pytest.mark.parametrize("value, dtype, needle", [
    (2**40, np.int64, "node 1099511627776 is not a node; allowed: 0..53"),  # wrapped to 0
    (2**40, None, "node 1099511627776 is not a node; allowed: 0..53"),
    (4.7, np.float64, "node 4.7 is not allowed; allowed: 16 integers"),  # became 4
    (4.7, None, "node 4.7 is not allowed; allowed: 16 integers"),
    (True, None, "node True is not allowed"),
    (2**70, None, "node 1180591620717411303424 is not allowed"),
    (2**70, object, "node 1180591620717411303424 is not allowed"),
    ("a", None, "node 'a' is not allowed"),
])
def test_forced_openings_out_of_range_or_not_integers_are_refused(value, dtype, needle):
    """Every form of the openings (a list, an int64, float or object array) is checked
    as the values given, never cast first."""
    with pytest.raises(CatansimError) as info:
        play_game(3, 4, ("default",) * 4, openings=_openings(value, dtype), log=False)
    assert str(info.value).startswith(f"openings seat 0 settlement 1: {needle}")


def test_forced_openings_of_another_size_are_refused():
    with pytest.raises(CatansimError, match="^openings: 15 values given; allowed: 16 integers"):
        play_game(3, 4, ("default",) * 4, openings=_openings(-1)[:15], log=False)
    ok = _openings(12, np.int64)  # an int64 array in range plays as the list does
    ok[1] = 19
    assert play_game(3, 4, ("default",) * 4, openings=ok).events.tolist() == play_game(
        3, 4, ("default",) * 4, openings=[int(x) for x in ok]).events.tolist()
