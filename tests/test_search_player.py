"""The search player (``catansim.players.search.SearchPlayer``, named ``search``).

Oracles: whole games it plays pass the independent log checker, every decision kind
met; the same game, seed and budget give the same decisions; its search keeps its
budget and its shortlist (the rollout strategy's own choice first, at most
``candidates``); a candidate that wins every rollout is the one taken; its name works
wherever a strategy is named; bad settings are one-line errors. Its honesty (decisions
unchanged when only hidden cards change) is in ``tests/test_honest_players.py``.
"""

from __future__ import annotations

import numpy as np
import pytest

from catansim.core import layout as L
from catansim.engine import play_game
from catansim.errors import CatansimError
from catansim.game import Game
from catansim.logs import game_log, replay
from catansim.players.search import SearchPlayer
from catansim.settings import GameSettings
from catansim.strategies import PRESETS


class Recording(SearchPlayer):
    """A search player that keeps every decision it was asked and what it chose."""

    def __init__(self, **kw):
        super().__init__(**kw)
        self.asked = []

    def decide(self, observation, options):
        choice = super().decide(observation, options)
        self.asked.append((observation.decision, len(options), choice,
                           dict(self.last) if len(options) > 1 else None))
        self.last = {}
        return choice


def test_it_plays_whole_games_that_pass_the_log_checker_meeting_every_decision_kind():
    kinds = set()
    for seed in range(4):
        player = Recording(budget=24, candidates=4)
        res = play_game(seed, 4, [player, "default", "army", "trader"])
        replay(*game_log(res))  # raises on a broken rule
        kinds |= {d for d, n, _, _ in player.asked if n > 1}
        for _, _, _, last in player.asked:
            if last:  # searched: its budget kept, its shortlist at most `candidates`
                assert 0 < last["rollouts"] <= 24 and len(last["candidates"]) <= 4
    assert {"setup settlement", "setup road", "action", "robber hex"} <= kinds
    assert len(kinds) >= 6, kinds


def test_the_same_game_seed_and_budget_give_the_same_decisions():
    runs = []
    for _ in range(2):
        player = Recording(budget=16, seed=3)
        res = play_game(11, 4, ["default", player, "default", "default"], log=False)
        runs.append(([(d, str(c)) for d, _, c, _ in player.asked], res.counters.tobytes()))
    assert runs[0] == runs[1]
    other = Recording(budget=16, seed=4)  # another seed of its own: other rollouts
    play_game(11, 4, ["default", other, "default", "default"], log=False)
    assert [(d, str(c)) for d, _, c, _ in other.asked] != runs[0][0]


def _paused(seed, turn, options=3):
    """A game of four ``default`` players paused, after ``turn``, at a decision of one
    seat with at least ``options`` options."""
    game = Game(seed, strategies=("default",) * 4, external=[seed % 4], log=False)
    while not game.over and (game.observation(0).turn < turn or len(game.legal()) < options):
        game.step(game.suggest())
    return game


def test_its_shortlist_starts_with_the_rollout_strategys_choice():
    met = 0
    for seed in range(10):
        game = _paused(seed, 4 + 3 * seed)
        if game.over or len(game.legal()) < 2:
            continue
        seat = game.to_move
        want = game.fork().suggest(seat)
        player = SearchPlayer(budget=8, candidates=3)
        player.watch(game)
        short = player.shortlist(game.observation(seat), game.legal())
        assert short[0][1] == want and len(short) <= 3
        assert all(i == -1 or game.legal()[i] == o for i, o in short)
        met += 1
    assert met >= 5


def test_an_option_that_wins_every_rollout_is_taken():
    class Rigged(SearchPlayer):  # the rollouts say the last candidate always wins
        def halve(self, seat, shortlist):
            self.game = _Fixed(self.game, seat, shortlist[-1][0])
            return super().halve(seat, shortlist)

    for turn in range(10, 40, 3):  # a decision with three candidates or more
        game = _paused(2, turn)
        seat = game.to_move
        player = Rigged(budget=40, candidates=5)
        player.watch(game.fork())  # the same random streams: the same shortlist
        short = player.shortlist(game.observation(seat), game.legal())
        if len(short) >= 3:
            break
    assert len(short) >= 3
    player.watch(game)
    assert player.decide(game.observation(seat), game.legal()) == short[-1][1]


class _Fixed:
    """A game whose rollouts are won by ``seat`` exactly when they took choice ``win``."""

    def __init__(self, game, seat, win):
        self.game, self.seat, self.win = game, seat, win
        self.n_players, self.rules = game.n_players, game.rules

    def rollouts(self, seat, choices, seeds, strategies, information, strategy_set):
        out = self.game.rollouts(seat, choices, seeds, strategies, information, strategy_set)
        won = np.asarray(choices) == self.win
        out[:, L.COUNTER_OFFSETS["c_winner"]] = np.where(won, seat, (seat + 1) % 4)
        return out


def test_search_is_a_name_wherever_a_strategy_is_named(tmp_path):
    settings = GameSettings(n_players=4, strategies=("search", "default", "default", "default"))
    player = dict(settings.players)[0]
    assert isinstance(player, SearchPlayer) and settings.strategies[0] == "search"
    assert PRESETS.resolve("search").name == "random"  # the stand-in row of a Python seat
    with pytest.raises(CatansimError, match=r"^strategies\.search: names a Python player"):
        PRESETS.with_definitions({"search": {"base": "default"}})
    with pytest.raises(CatansimError, match=r"is not a compiled strategy"):
        PRESETS.compiled("search", "model")


def test_search_with_a_number_is_the_search_player_at_that_budget(tmp_path):
    settings = GameSettings(n_players=4, strategies=("search:30", "default", "search", "army"))
    players = dict(settings.players)
    assert settings.strategies == ("search:30", "default", "search", "army")
    assert isinstance(players[0], SearchPlayer) and players[0].budget == 30
    assert isinstance(players[2], SearchPlayer) and players[2].budget == 200
    from catansim.ladders.field import check_field, seat_player

    assert check_field("search:30,search:60,default") == ("search:30", "search:60", "default")
    assert seat_player("search:60", 1).budget == 60
    with pytest.raises(CatansimError, match=r"^strategies\[1\]: search:1: budget: 1 is out "
                                            r"of range; allowed: an integer in 2\.\.100000$"):
        GameSettings(n_players=4, strategies=("default", "search:1", "default", "default"))
    for bad in ("search:", "search:-5", "search:1e3", "serch:50"):
        with pytest.raises(CatansimError, match=r"unknown strategy .*allowed: .*search:N"):
            GameSettings(n_players=4, strategies=(bad, "default", "default", "default"))


@pytest.mark.parametrize(("kw", "message"), [
    ({"budget": 1}, r"^budget: 1 is out of range; allowed: an integer in 2\.\.100000$"),
    ({"candidates": 1.5}, r"^candidates: expected an integer"),
    ({"model": "nobody"}, r"^model: unknown strategy 'nobody'"),
    ({"rollout": "search"}, r"^rollout: 'search' is not a compiled strategy"),
    ({"information": "all"}, r"^information: 'all' is not allowed"),
    ({"vp_weight": 2}, r"^vp_weight: 2 is out of range; allowed: a number in 0\.\.1$"),
    ({"vp_weight": True}, r"^vp_weight: expected a number"),
])
def test_bad_settings_are_one_line_errors(kw, message):
    with pytest.raises(CatansimError, match=message):
        SearchPlayer(**kw)


def test_a_search_player_without_its_game_is_a_one_line_error():
    game = _paused(1, 6)
    with pytest.raises(CatansimError, match=r"^SearchPlayer: it needs the game it plays in"):
        SearchPlayer().decide(game.observation(game.to_move), game.legal())


class _Faithful(SearchPlayer):
    """A search player that searches every decision but keeps its rollout strategy's
    choice (the first candidate), whatever the rollouts say."""

    def halve(self, seat, shortlist):
        super().halve(seat, shortlist)
        return shortlist[0][1]


def test_a_search_that_never_leaves_its_rollout_strategy_plays_that_strategys_game():
    # every choice is the strategy's own, as Game.suggest gives it, drawn from the seat's
    # random stream as the kernel draws it: the kernel's game, event for event
    for seed in (1, 2, 3, 4):
        want = play_game(seed, 4, ["default", "army", "default", "trader"], log=False)
        player = _Faithful(budget=16)
        got = play_game(seed, 4, [player, "army", "default", "trader"], log=False)
        assert player.decisions_searched > 20
        assert np.array_equal(got.counters, want.counters)


def test_a_rollout_strategy_of_your_own_is_its_first_candidate_and_its_rollouts_seat():
    mine = PRESETS.with_definitions({"cautious": {"base": "default", "offers": 0}})
    for seed in (3, 4):
        want = play_game(seed, 4, ["cautious", "default", "army", "default"], log=False,
                         strategy_set=mine)
        player = _Faithful(budget=16, rollout="cautious", strategy_set=mine)
        got = play_game(seed, 4, [player, "default", "army", "default"], log=False,
                        strategy_set=mine)
        assert player.decisions_searched > 20
        assert np.array_equal(got.counters, want.counters)
        assert got.state[L.STATE_OFFSETS["c_offers"]] == 0  # seat 0 never offered


def test_an_experiment_file_names_the_search_player():
    from catansim.runs.experiment import parse_experiment

    exp = parse_experiment({"name": "s", "games": 4, "rotate": True,
                            "strategies": ["search", "default", "default", "default"]})
    assert exp.variants[0].strategies == ("search", "default", "default", "default")
    with pytest.raises(CatansimError, match=r"strategies\[0\]: unknown strategy 'serch' "
                                            r"\(did you mean 'search'\?\)"):
        parse_experiment({"name": "s", "games": 4,
                          "strategies": ["serch", "default", "default", "default"]})
