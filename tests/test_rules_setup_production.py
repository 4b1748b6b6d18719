"""Rules of the set-up and of production (summary sections 2, 3; FAQ 1, 33, 34, 43, 51, 64, 65).

Positions are built by hand on the beginner board (``tests/helpers.py``); the
expected cards are read off the printed board, never off the engine.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import BRICK, ORE, WHEAT, WOOD, Game, H, N, bundle, hex_nodes

from catansim import topology as T
from catansim.board.beginner import _beginner_data
from catansim.constants import RESOURCE_NAMES, TERRAIN_RESOURCE
from catansim.core import layout as L
from catansim.engine import play_game
from catansim.rules import Rules

ADJ = {n: {int(m) for m in T.NODE_NEIGHBOURS[n] if m >= 0} for n in range(54)}


def setup_events(result):
    evs = [e for e in _dicts(result) if e["e"] in ("setup_settlement", "setup_road",
                                                   "starting_resources")]
    return evs


def _dicts(result):
    from catansim.logs import event_rows_to_dicts
    return event_rows_to_dicts(result.events, result.n_players)


# --- set-up ---------------------------------------------------------------------------


@pytest.mark.parametrize("n_players", [3, 4])
def test_setup_snake_order_distance_rule_and_road_next_to_new_settlement(n_players):
    """Round one in seat order, round two reversed; every starting settlement obeys the
    Distance Rule (FAQ 51) and its road touches it."""
    order = list(range(n_players)) + list(range(n_players))[::-1]
    for seed in range(60):
        r = play_game(seed, n_players=n_players, rules=Rules(max_turns=1))
        evs = [e for e in setup_events(r) if e["e"] != "starting_resources"]
        assert [e["p"] for e in evs[::2]] == order
        assert [e["p"] for e in evs[1::2]] == order
        nodes = [e["node"] for e in evs[::2]]
        for i, a in enumerate(nodes):
            for b in nodes[i + 1:]:
                assert a != b and b not in ADJ[a], (seed, a, b)
        for st, rd in zip(evs[::2], evs[1::2], strict=True):
            assert st["node"] in T.EDGE_NODES[rd["edge"]].tolist()


@pytest.mark.parametrize("n_players", [3, 4])
def test_starting_resources_from_second_settlement_only(n_players):
    """One card per producing hex next to the second settlement; the first pays nothing
    (summary section 2; FAQ 1)."""
    for seed in range(40):
        r = play_game(seed, n_players=n_players, rules=Rules(max_turns=1))
        evs = setup_events(r)
        second = {}
        seen = set()
        for e in evs:
            if e["e"] == "setup_settlement":
                if e["p"] in seen:
                    second[e["p"]] = e["node"]
                seen.add(e["p"])
        starts = {e["p"]: e["cards"] for e in evs if e["e"] == "starting_resources"}
        assert sorted(starts) == list(range(n_players))
        terrain = r.board.vector[: 19]
        for p, node in second.items():
            want = [0] * 5
            for h in T.NODE_HEXES[node]:
                if h >= 0 and TERRAIN_RESOURCE[terrain[h]] >= 0:
                    want[TERRAIN_RESOURCE[terrain[h]]] += 1
            assert starts[p] == want
            assert r.state[L.C_START_CARDS + 5 * p : L.C_START_CARDS + 5 * p + 5].tolist() == want


@pytest.mark.parametrize("n_players", [3, 4])
def test_beginner_setup_pays_the_printed_star_resources(n_players):
    """The beginner set-up's starred settlements pay what the rulebook prints."""
    from catansim.constants import SEAT_COLOURS_3, SEAT_COLOURS_4

    data = _beginner_data()
    colours = SEAT_COLOURS_4 if n_players == 4 else SEAT_COLOURS_3
    r = play_game(5, n_players=n_players, layout="beginner", rules=Rules(max_turns=1))
    for seat, colour in enumerate(colours):
        want = [0] * 5
        for name in data["start"][colour]["star_resources"]:
            want[RESOURCE_NAMES.index(name)] += 1
        got = r.state[L.C_START_CARDS + 5 * seat : L.C_START_CARDS + 5 * seat + 5].tolist()
        assert got == want, colour


# --- production -----------------------------------------------------------------------

HILLS6 = H(0, -1)  # h4 hills 6
FIELDS6 = H(-1, 2)  # h17 fields 6
MOUNT8 = H(2, 0)  # h11 mountains 8
FOREST8 = H(-2, 1)  # h12 forest 8


def test_production_one_per_settlement_two_per_city_and_same_number_elsewhere():
    g = Game()
    a, _, b, _, c, _ = hex_nodes(HILLS6)
    g.settle(0, a)
    g.settle(1, b, city=True)
    g.settle(2, hex_nodes(FIELDS6)[0])
    g.produce(6)
    assert g.hand(0) == bundle(brick=1)
    assert g.hand(1) == bundle(brick=2)
    assert g.hand(2) == bundle(wheat=1)
    assert g.hand(3) == bundle()
    assert g.violations() == 0


def test_robber_hex_produces_nothing_other_hex_with_same_number_does():
    """FAQ 64, 65."""
    g = Game()
    a, _, b, _, _, _ = hex_nodes(HILLS6)
    g.settle(0, a)
    g.settle(1, b, city=True)
    g.settle(2, hex_nodes(FIELDS6)[0])
    g.s[L.S_ROBBER] = HILLS6
    g.produce(6)
    assert g.hand(0) == bundle() and g.hand(1) == bundle()
    assert g.hand(2) == bundle(wheat=1)
    assert g["c_blocked"][:2].tolist() == [1, 2]


def test_new_settlement_produces_nothing_until_a_roll():
    """FAQ 43: building gives no cards."""
    g = Game()
    g.road(0, T.NODE_EDGES[hex_nodes(HILLS6)[0]][0])
    g.set_hand(0, bundle(1, 1, 1, 1, 0))
    g.apply(g.action(2, hex_nodes(HILLS6)[0]))
    assert g.hand(0) == bundle()


def _shortage_position(rules, ore_in_bank, owed):
    """Ore owed on an 8 (h11 mountains) by seats per ``owed`` = {seat: 1 or 2}; seat 3
    holds the ore missing from the supply; seat 0 also has wood owed from h12."""
    g = Game(rules=rules)
    corners = hex_nodes(MOUNT8)
    spots = [corners[0], corners[2], corners[4]]
    for i, (p, amount) in enumerate(sorted(owed.items())):
        g.settle(p, spots[i], city=amount == 2)
    g.settle(0, hex_nodes(FOREST8)[0])
    g.set_bank(ORE, ore_in_bank, sink=3)
    return g


def test_official_shortage_nobody_paid_when_short_other_resources_still_paid():
    """FAQ 34: two players owed 3 ore, supply 2 -> both 0; wood is paid normally."""
    g = _shortage_position(Rules(), 2, {0: 2, 1: 1})
    g.produce(8)
    assert g.hand(0) == bundle(wood=1)
    assert g.hand(1) == bundle()
    assert g.bank()[ORE] == 2
    ev = [e for e in g.events() if e["e"] == "production"][-1]
    assert ev["withheld"] == bundle(ore=3)
    assert g["c_shortage_events"][ORE] == 1
    assert g.violations() == 0


def test_official_shortage_single_recipient_takes_what_is_left():
    """FAQ 33: one player owed 2 ore, supply 1 -> gets 1."""
    g = _shortage_position(Rules(), 1, {1: 2})
    g.produce(8)
    assert g.hand(1) == bundle(ore=1)
    assert g.bank()[ORE] == 0
    ev = [e for e in g.events() if e["e"] == "production"][-1]
    assert ev["gains"][1] == bundle(ore=1) and ev["withheld"] == bundle(ore=1)


def test_official_no_shortage_when_supply_exactly_enough():
    g = _shortage_position(Rules(), 3, {0: 2, 1: 1})
    g.produce(8)
    assert g.hand(0) == bundle(wood=1, ore=2) and g.hand(1) == bundle(ore=1)
    assert g.bank()[ORE] == 0 and g["c_shortage_events"][ORE] == 0


def test_strict_shortage_pays_nobody_not_even_a_single_recipient():
    g = _shortage_position(Rules(shortage="strict"), 1, {1: 2})
    g.produce(8)
    assert g.hand(1) == bundle()
    assert g.bank()[ORE] == 1


@pytest.mark.parametrize("roller, want0, want1", [(0, 2, 0), (1, 1, 1), (2, 2, 0), (3, 2, 0)])
def test_shortage_off_pays_in_turn_order_from_the_roller(roller, want0, want1):
    """Supply 2 ore, seat 0 owed 2, seat 1 owed 1: the roller's order decides."""
    g = _shortage_position(Rules(shortage="off"), 2, {0: 2, 1: 1})
    g.cur = roller
    g.produce(8)
    # seats are paid roller, roller+1, ...: seat 1 comes before seat 0 only for roller 1
    assert g.hand(0)[ORE] == want0 and g.hand(1)[ORE] == want1
    assert g.bank()[ORE] == 0


def test_unlimited_supply_always_pays():
    g = Game(rules=Rules(bank_per_resource=None))
    corners = hex_nodes(MOUNT8)
    g.settle(0, corners[0], city=True)
    g.settle(1, corners[2], city=True)
    for _ in range(30):
        g.produce(8)
    assert g.hand(0)[ORE] == 60 and g.hand(1)[ORE] == 60
    assert g["c_shortage_events"].sum() == 0
    assert g.bank()[ORE] == L.UNLIMITED_BANK - 120
    assert g.violations() == 0


def test_small_bank_setting_fills_the_supply():
    g = Game(rules=Rules(bank_per_resource=6))
    assert g.bank() == [6] * 5


def test_roll_without_buildings_or_on_desert_number_pays_nothing():
    g = Game()
    g.settle(0, hex_nodes(HILLS6)[2])  # node 18: h4 (6), h5 (4), h9 desert
    g.produce(2)  # h1 pasture 2: nobody there
    g.produce(12)
    assert g.hand(0) == bundle()
    assert sum(g.bank()) == 95


def test_three_player_production_ignores_the_empty_seat():
    g = Game(n_players=3)
    g.settle(2, hex_nodes(HILLS6)[0], city=True)
    g.produce(6)
    assert g.hand(2) == bundle(brick=2)
    assert g.violations() == 0


def test_node_names_read_like_the_board():
    """The helper's hex naming agrees with the picture (docs/topology.png)."""
    assert N((0, -2), (1, -2), (0, -1)) == 8
    assert hex_nodes(HILLS6)[0] == 8
    assert np.array_equal(sorted(hex_nodes(H(0, 0))), [18, 23, 24, 29, 30, 35])
    assert WOOD == 0 and BRICK == 1 and WHEAT == 3
