"""The counters for who leads when and for shortages, against the independent checker.

Games with small supplies are logged and replayed by ``catansim.logs.replay``; an
observer reads the checker's own state after every event and derives, without the
engine, each player's visible VP after the checkpoint turns, the turn of the first
roll each resource could not be paid in full and the rolls on which one player alone
was owed a short resource, the robber moves made while an opponent led alone and
those that robbed that leader, and the cards withheld from the sole leader. The
engine's counters must match exactly. The first-turn
rule is checked the same way: turn 1 is the given seat's, and turns go round.
"""

from __future__ import annotations

import numpy as np
import pytest

from catansim.constants import RESOURCE_NAMES
from catansim.core import layout as L
from catansim.engine import play_game
from catansim.errors import CatansimError
from catansim.logs import event_rows_to_dicts, make_header, replay
from catansim.logs.checker import TERRAIN_RESOURCE
from catansim.rules import Rules
from catansim.settings import GameSettings

SETTINGS = [
    (4, {"bank_per_resource": 4}),
    (4, {"bank_per_resource": 6, "shortage": "strict", "first_turn": 2}),
    (3, {"bank_per_resource": 5, "shortage": "off", "first_turn": 1}),
    (4, {"bank_per_resource": 6, "first_pick": 3}),
    (4, {"bank_per_resource": 3, "robber": "off", "max_turns": 60}),
    (4, {"bank_per_resource": 7, "robber": "friendly", "discard_limit": None}),
]
GAMES = 25


class Observer:
    """What the checker's state says after each event."""

    def __init__(self, n: int):
        self.vp_at: dict[int, list[int]] = {}
        self.first_shortage = [-1] * 5
        self.sole = [0] * 5
        self.turn_seats: list[int] = []
        self.n = n
        self.leader_chances = self.robbed_leader = self.withheld_leader = 0

    def sole_leader(self, game) -> int:
        vp = [game.visible_vp(q) for q in range(self.n)]
        top = max(vp)
        return vp.index(top) if vp.count(top) == 1 else -1

    def __call__(self, game, ev):
        e = ev["e"]
        if e == "turn_start":
            self.turn_seats.append(ev["p"])
        if e in ("turn_end", "game_end") and game.turn in L.VP_CHECKPOINTS:
            self.vp_at[game.turn] = [game.visible_vp(q) for q in range(self.n)]
        if e == "robber":  # a robbery changes no VP: the state after it is the one before
            leader = self.sole_leader(game)
            if leader >= 0 and leader != ev["p"]:
                self.leader_chances += 1
                self.robbed_leader += ev["victim"] == leader
        if e == "production":
            total = sum(game.last_dice)
            leader = self.sole_leader(game)
            if leader >= 0:
                for h in range(19):
                    name = TERRAIN_RESOURCE[game.geo.hex_terrain[h]]
                    if game.geo.hex_number[h] != total or h == game.robber or name is None:
                        continue
                    r = RESOURCE_NAMES.index(name)
                    for node in game.geo.hex_nodes[h]:
                        b = game.buildings.get(node)
                        if b is not None and b[0] == leader:
                            self.withheld_leader += b[1]  # owed to the leader ...
                self.withheld_leader -= sum(ev["gains"][leader])  # ... minus what was paid
            for r, name in enumerate(RESOURCE_NAMES):
                if ev["withheld"][r] == 0:
                    continue  # paid in full (withheld > 0 exactly on a short roll)
                if self.first_shortage[r] < 0:
                    self.first_shortage[r] = game.turn
                owed_to = set()
                for h in range(19):
                    if (game.geo.hex_number[h] == total and h != game.robber
                            and TERRAIN_RESOURCE[game.geo.hex_terrain[h]] == name):
                        owed_to |= {game.buildings[node][0] for node in game.geo.hex_nodes[h]
                                    if node in game.buildings}
                if len(owed_to) == 1:
                    self.sole[r] += 1


@pytest.mark.parametrize("n, rules", SETTINGS)
def test_new_counters_match_the_checker(n, rules):
    r = Rules(**rules)
    short_games = checkpoints = sole = chances = on_leader = withheld = 0
    for seed in range(GAMES):
        g = play_game(seed, n, strategies=["default", "city", "random", "army"][:n], rules=r)
        header = make_header(g.seed, n, g.strategies, g.rules, g.board)
        obs = Observer(n)
        replay(header, event_rows_to_dicts(g.events, n), observer=obs)
        assert obs.turn_seats == [(r.first_mover + t) % n for t in range(g.turns)]
        vp_at = g.field("c_vp_at").reshape(4, L.N_VP_CHECKPOINTS)[:n]
        for k, t in enumerate(L.VP_CHECKPOINTS):
            want = obs.vp_at.get(t, [-1] * n)
            assert vp_at[:, k].tolist() == want, (seed, t)
        assert g.field("c_first_shortage").tolist() == obs.first_shortage, seed
        assert g.field("c_sole_recipient").tolist() == obs.sole, seed
        assert g.field("c_leader_chances").tolist() == [obs.leader_chances], seed
        assert g.field("c_robbed_leader").tolist() == [obs.robbed_leader], seed
        assert g.field("c_withheld_leader").tolist() == [obs.withheld_leader], seed
        short_games += max(obs.first_shortage) >= 0
        checkpoints += len(obs.vp_at)
        sole += sum(obs.sole)
        chances += obs.leader_chances
        on_leader += obs.robbed_leader
        withheld += obs.withheld_leader
    # the games exercise what they check
    assert short_games >= GAMES // 2 and checkpoints >= GAMES and sole > 0
    assert withheld > 0
    if r.robber != "off":
        assert 0 < on_leader < chances
    else:
        assert chances == 0


def test_first_turn_must_be_a_seat_that_plays():
    with pytest.raises(CatansimError, match="rule first_turn: seat 3 does not play with 3"):
        GameSettings(n_players=3, rules=Rules(first_turn=3))
    with pytest.raises(CatansimError, match="rule first_turn: 4 is out of range"):
        Rules(first_turn=4)


def test_first_turn_keeps_the_setup_and_moves_only_the_turns():
    base = play_game(21, 4, strategies=["default"], log=True)
    moved = play_game(21, 4, strategies=["default"], rules=Rules(first_turn=1), log=True)
    # same board and the same set-up (seat 0 places first in both)
    assert np.array_equal(base.field("c_start_nodes"), moved.field("c_start_nodes"))
    first = [e for e in event_rows_to_dicts(moved.events, 4) if e["e"] == "turn_start"][0]
    assert first["p"] == 1


@pytest.mark.parametrize("n, pick", [(4, 0), (4, 2), (3, 1), (3, 2)])
def test_first_pick_starts_the_snake_and_takes_turn_1(n, pick):
    g = play_game(33, n, strategies=["default"], rules=Rules(first_pick=pick), log=True)
    events = event_rows_to_dicts(g.events, n)
    placers = [e["p"] for e in events if e["e"] == "setup_settlement"]
    order = [(pick + i) % n for i in range(n)]
    assert placers == order + order[::-1]
    first = [e for e in events if e["e"] == "turn_start"][0]
    assert first["p"] == pick  # first_turn follows the first pick unless set


def test_first_turn_set_apart_from_first_pick():
    r = Rules(first_pick=2, first_turn=0)
    assert (r.first_pick, r.first_mover) == (2, 0)
    assert Rules(first_pick=3).first_mover == 3
    assert Rules.from_mapping({"first_pick": 1}, base=Rules(first_pick=2)).first_mover == 1
    assert Rules.from_strings(["first_pick=2", "first_turn=none"]).first_mover == 2
    g = play_game(33, 4, strategies=["default"], rules=r, log=True)
    events = event_rows_to_dicts(g.events, 4)
    assert [e["p"] for e in events if e["e"] == "setup_settlement"][0] == 2
    assert [e for e in events if e["e"] == "turn_start"][0]["p"] == 0


def test_first_pick_must_be_a_seat_that_plays():
    with pytest.raises(CatansimError, match="rule first_pick: seat 3 does not play with 3"):
        GameSettings(n_players=3, rules=Rules(first_pick=3))
    with pytest.raises(CatansimError, match="rule first_pick: 4 is out of range"):
        Rules(first_pick=4)


def test_the_pick_and_turn_analysis_refuses_a_moved_first_pick():
    from catansim.analysis.seat_order import first_turns

    variants = {"baseline": {"rules": {"first_pick": 0, "first_turn": 0}},
                "turn_1": {"rules": {"first_pick": 0, "first_turn": 1}}}
    assert first_turns({"result_key": {"variants": variants}}) == {"baseline": 0, "turn_1": 1}
    variants["pick_2"] = {"rules": {"first_pick": 2, "first_turn": 2}}
    with pytest.raises(CatansimError, match=r"variants.pick_2.rules.first_pick: 2; allowed: 0"):
        first_turns({"result_key": {"variants": variants}})


def test_first_pick_on_the_command_line(tmp_path, capsys):
    from cli_harness import run_main

    from catansim.logs import read_log

    log = tmp_path / "g.jsonl"
    code, _, err = run_main(["play", "--seed", "5", "--players", "3", "--strategies",
                             "default", "--rule", "first_pick=2", "--log", log], capsys)
    assert code == 0, err
    header, events = read_log(log)
    assert header["rules"]["first_pick"] == 2 and header["rules"]["first_turn"] == 2
    assert [e["p"] for e in events if e["e"] == "setup_settlement"] == [2, 0, 1, 1, 0, 2]
