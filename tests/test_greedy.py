"""The worked example, ``catansim.players.GreedyBuilder``: its stated rules hold at every
decision of real games, it reads only what its observation shows, its games pass the
game-log checker, and it beats three random players from every seat.
"""

from __future__ import annotations

import numpy as np
from statsmodels.stats.proportion import proportion_confint
from test_honest_players import _deal_hidden

from catansim.constants import COST_CITY, COST_SETTLEMENT, PIPS, TERRAIN_RESOURCE
from catansim.engine import play_game
from catansim.game import Game
from catansim.logs import game_log, replay
from catansim.players import GreedyBuilder
from catansim.players.greedy import missing
from catansim.runs.tournament import tournament
from catansim.topology import HEX_NODES

NAME = "python:catansim.players.greedy:GreedyBuilder"


class Recorder:
    """GreedyBuilder, keeping every (observation, options, choice) it made."""

    def __init__(self):
        self.player = GreedyBuilder()
        self.seen = []

    def new_game(self, seed, seat):
        self.player.new_game(seed, seat)

    def decide(self, observation, options):
        choice = self.player.decide(observation, options)
        self.seen.append((observation, tuple(options), choice))
        return choice


def _decisions(games=12):
    out = []
    for seed in range(games):
        rec = Recorder()
        seats = ["default", "trader", "random"]
        seats.insert(seed % 4, rec)
        res = play_game(seed, 4, seats)
        replay(*game_log(res))  # raises at a broken rule
        out += rec.seen
    return out


def test_its_stated_rules_hold_at_every_decision_of_real_games():
    seen = _decisions()
    kinds = {}
    firsts = 0
    for obs, options, choice in seen:
        assert choice in options or choice.kind == "offer"
        kinds[choice.kind] = kinds.get(choice.kind, 0) + 1
        offered = {o.kind for o in options}
        if obs.decision == "action":
            assert choice.kind != "offer"  # it never offers a trade
            if "city" in offered:
                assert choice.kind == "city"
            elif "settlement" in offered:
                assert choice.kind == "settlement"
            if choice.kind == "maritime":  # only surplus leaves, only a lacking card comes
                give, get = int(np.argmax(choice.give)), int(np.argmax(choice.get))
                cost = {"city": COST_CITY, "settlement": COST_SETTLEMENT}.get(
                    GreedyBuilder().aim(obs))
                if cost is not None:
                    assert obs.hand[get] < cost[get]
                    assert obs.hand[give] - choice.give[give] >= cost[give]
                    assert missing(obs.hand - np.array(choice.give) + np.array(choice.get),
                                   cost) == missing(obs.hand, cost) - 1
        if obs.decision == "robber hex":
            own = {h for h in range(19) if (obs.node_owner[HEX_NODES[h]] == obs.seat).any()}
            if any(o.target not in own for o in options):
                assert choice.target not in own
        if obs.decision == "robber victim":
            assert obs.hand_sizes[choice.target] == max(obs.hand_sizes[o.target]
                                                        for o in options)
        if obs.decision == "setup settlement" and obs.turn == 0 and not (
                obs.node_owner >= 0).any():
            # the first settlement of the game: every resource is new, worth 0.5 + 2
            worth = []
            for o in options:
                hexes = [h for h in range(19) if o.target in HEX_NODES[h]]
                resources = {TERRAIN_RESOURCE[obs.hex_terrain[h]] for h in hexes} - {-1}
                worth.append(sum(PIPS[obs.hex_number[h]] for h in hexes)
                             + 2.5 * len(resources))
            assert worth[options.index(choice)] == max(worth)
            firsts += 1
    # the rules above were exercised: every kind of choice it makes came up
    assert firsts >= 2
    assert {"settlement", "road", "city", "buy", "play", "maritime", "roll", "end",
            "robber", "steal", "discard", "accept", "refuse"} <= set(kinds)


def test_it_reads_only_what_its_observation_shows():
    rng = np.random.default_rng(9)
    compared = 0
    for seed in range(16):
        game = Game(seed, strategies=("default",), external=[seed % 4])
        while not game.over and game.observation(0).turn < 8 + 3 * seed:
            game.step(game.suggest())
        if game.over:
            continue
        seat = game.to_move
        choices = []
        for s in _deal_hidden(game.s, seat, rng):
            twin = game.fork()
            twin.s[:] = s
            player = GreedyBuilder()
            player.new_game(seed, seat)
            choices.append(player.decide(twin.observation(seat), twin.legal()))
        assert choices[0] == choices[1]
        compared += 1
    assert compared >= 12


def test_a_game_depends_only_on_its_seed_and_it_plays_by_name():
    a = play_game(77, 4, [GreedyBuilder(), "default", "default", "default"])
    b = play_game(77, 4, [NAME, "default", "default", "default"])
    assert a.strategies == b.strategies == (NAME, "default", "default", "default")
    assert a.events.tolist() == b.events.tolist()


def test_it_beats_three_random_players_from_every_seat():
    res = tournament([NAME, "random", "random", "random"], 40, 4, seed=2)
    row = res.summary().loc[NAME]
    low, _ = proportion_confint(int(row["wins"]), int(row["games"]), method="wilson")
    assert row["games"] == 40 and low > 0.5  # the fair share is 0.25
    assert (res.by_seat().loc[NAME] > 0.5).all()
