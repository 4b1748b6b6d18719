"""Trading and building (summary sections 4, 5; FAQ 30, 37, 39-48, 50-53, 55, 66-71).

Beginner board harbors (docs/topology.png): 3:1 at nodes 0/3, 2:1 wheat at 1/5,
2:1 ore at 10/15, 2:1 wool at 42/46, 2:1 wood at 11/16.
"""

from __future__ import annotations

import pytest
from helpers import (
    BRICK,
    ORE,
    TOPO,
    WHEAT,
    WOOD,
    WOOL,
    Game,
    bundle,
    edge_of,
    path_edges,
)

from catansim.core import layout as L
from catansim.core.actions_nb import (
    ACT_BUY_DEV,
    ACT_CITY,
    ACT_END,
    ACT_ROAD,
    ACT_SETTLEMENT,
    ACT_TRADE_BANK,
    ACT_TRADE_PLAYER,
)
from catansim.core.rules_nb import setup_road_ok_nb

A = Game.action


def bank_trade(give, get):
    return A(ACT_TRADE_BANK, give, get)


def offer(partner, give, get):
    return A(ACT_TRADE_PLAYER, partner, give=give, get=get)


# --- maritime trade ----------------------------------------------------------------------


def test_four_to_one_without_a_harbor():
    g = Game()
    g.settle(0, 12)
    g.set_hand(0, bundle(wood=4))
    assert not g.legal(bank_trade(WOOD, WOOD))  # FAQ 71: never the same resource
    assert g.legal(bank_trade(WOOD, ORE))
    g.apply(bank_trade(WOOD, ORE))
    assert g.hand(0) == bundle(ore=1)
    assert g.bank() == [19, 19, 19, 19, 18]
    g.set_hand(0, bundle(wood=3))
    assert not g.legal(bank_trade(WOOD, ORE))
    assert g.violations() == 0


def test_three_to_one_with_own_generic_harbor():
    g = Game()
    g.settle(0, 0)
    g.set_hand(0, bundle(brick=3))
    assert g.legal(bank_trade(BRICK, WHEAT))
    g.apply(bank_trade(BRICK, WHEAT))
    assert g.hand(0) == bundle(wheat=1)
    g.set_hand(0, bundle(brick=2))
    assert not g.legal(bank_trade(BRICK, WHEAT))


def test_two_to_one_only_for_the_harbor_resource():
    """FAQ 71: 2 wool -> 1 non-wool; other resources stay at 4:1."""
    g = Game()
    g.settle(0, 42)
    g.set_hand(0, bundle(wood=3, wool=2))
    assert g.legal(bank_trade(WOOL, ORE))
    assert not g.legal(bank_trade(WOOL, WOOL))
    assert not g.legal(bank_trade(WOOD, ORE))
    g.apply(bank_trade(WOOL, ORE))
    assert g.hand(0) == bundle(wood=3, ore=1)


def test_a_harbor_of_another_player_does_not_help():
    """FAQ 69."""
    g = Game()
    g.settle(1, 42)
    g.settle(1, 0)
    g.set_hand(0, bundle(wool=3))
    assert not g.legal(bank_trade(WOOL, ORE))


def test_harbor_usable_in_the_turn_it_is_built():
    """FAQ 68 (D3, combined trade/build phase)."""
    g = Game()
    g.settle(0, 41)
    g.road(0, edge_of(41, 46), edge_of(46, 42))
    g.set_hand(0, bundle(1, 1, 3, 1, 0))
    assert not g.legal(bank_trade(WOOL, ORE))
    g.apply(A(ACT_SETTLEMENT, 42))
    assert g.legal(bank_trade(WOOL, ORE))
    g.apply(bank_trade(WOOL, ORE))
    assert g.hand(0) == bundle(wool=0, ore=1)


def test_bank_trade_needs_the_card_in_the_supply():
    g = Game()
    g.set_hand(0, bundle(wood=4))
    g.set_bank(ORE, 0, sink=2)
    assert not g.legal(bank_trade(WOOD, ORE))
    assert g.legal(bank_trade(WOOD, WHEAT))


# --- player trades -----------------------------------------------------------------------


def test_player_trade_bundles_both_sides_nonempty_no_same_resource():
    """FAQ 30, 67: no gifts, no matching cards."""
    g = Game()
    g.set_hand(0, bundle(wood=2, ore=3))
    g.set_hand(1, bundle(wheat=2, ore=1))
    assert g.legal(offer(1, bundle(wood=1), bundle(wheat=1)))
    assert g.legal(offer(1, bundle(wood=2, ore=1), bundle(wheat=2)))
    assert not g.legal(offer(1, bundle(wood=1), bundle()))
    assert not g.legal(offer(1, bundle(), bundle(wheat=1)))
    assert not g.legal(offer(1, bundle(ore=3), bundle(ore=1)))
    assert not g.legal(offer(1, bundle(wood=1, ore=1), bundle(ore=1)))
    assert not g.legal(offer(1, bundle(wood=3), bundle(wheat=1)))  # more than held
    assert not g.legal(offer(1, bundle(wood=-1), bundle(wheat=1)))


def test_player_trade_partner_is_another_seat_in_the_game():
    """FAQ 66, 70: every trade involves the active player and one other seat."""
    g = Game(n_players=3)
    g.set_hand(0, bundle(wood=1))
    assert not g.legal(offer(0, bundle(wood=1), bundle(ore=1)))
    assert not g.legal(offer(3, bundle(wood=1), bundle(ore=1)))
    assert g.legal(offer(2, bundle(wood=1), bundle(ore=1)))


def test_only_the_active_player_acts():
    """FAQ 13, 66, 70: seat 1 may not trade, build or play a card on seat 0's turn."""
    g = Game()
    g.set_hand(1, bundle(wood=4, brick=1))
    g.settle(1, 12)
    g.give_dev(1, 0)
    assert not g.legal(offer(2, bundle(wood=1), bundle(ore=1)), p=1)
    assert not g.legal(bank_trade(WOOD, ORE), p=1)
    assert not g.legal(A(ACT_ROAD, edge_of(12, 17)), p=1)
    assert not g.legal(A(5, 0), p=1)
    g.cur = 1
    assert g.legal(A(ACT_ROAD, edge_of(12, 17)))
    assert g.legal(A(5, 0))


def test_no_trade_or_build_before_the_roll():
    """FAQ 53 and section 3: trading and building come after the roll (and after a 7
    is resolved: the engine rolls and resolves it before the action phase)."""
    g = Game()
    g.settle(0, 12)
    g.set_hand(0, bundle(4, 4, 4, 4, 4))
    g.s[L.S_ROLLED] = 0
    for act in (offer(1, bundle(wood=1), bundle(ore=1)), bank_trade(WOOD, ORE),
                A(ACT_ROAD, edge_of(12, 17)), A(ACT_BUY_DEV)):
        assert not g.legal(act)
    assert g.legal(A(ACT_END))
    g.s[L.S_ROLLED] = 1
    assert g.legal(bank_trade(WOOD, ORE)) and g.legal(A(ACT_ROAD, edge_of(12, 17)))


def test_accepted_player_trade_moves_both_bundles():
    done = 0
    for seed in range(30):
        g = Game(seed=seed)
        g.set_hand(0, bundle(wood=2, wool=1))
        g.set_hand(2, bundle(ore=2, wheat=1))
        g.apply(offer(2, bundle(wood=2), bundle(ore=1, wheat=1)))
        evs = [e for e in g.events() if e["e"] == "trade_player"]
        if evs:
            done += 1
            assert g.hand(0) == bundle(wool=1, wheat=1, ore=1)
            assert g.hand(2) == bundle(wood=2, ore=1)
            assert evs[0] == {"e": "trade_player", "p": 0, "partner": 2,
                              "give": bundle(wood=2), "get": bundle(ore=1, wheat=1)}
        else:
            assert g.hand(0) == bundle(wood=2, wool=1)
        assert g.violations() == 0
    assert 0 < done < 30


def test_partner_who_cannot_pay_never_trades():
    for seed in range(10):
        g = Game(seed=seed)
        g.set_hand(0, bundle(wood=1))
        g.set_hand(1, bundle(ore=1))
        g.apply(offer(1, bundle(wood=1), bundle(ore=2)))
        assert g.hand(0) == bundle(wood=1) and g.hand(1) == bundle(ore=1)


# --- building --------------------------------------------------------------------------------

COSTS = {
    ACT_ROAD: bundle(wood=1, brick=1),
    ACT_SETTLEMENT: bundle(1, 1, 1, 1, 0),
    ACT_CITY: bundle(wheat=2, ore=3),
    ACT_BUY_DEV: bundle(wool=1, wheat=1, ore=1),
}


@pytest.mark.parametrize("kind", list(COSTS))
def test_building_costs(kind):
    """Exactly the printed cost; one card short of any resource is not enough."""
    def position():
        g = Game()
        g.settle(0, 12)
        g.road(0, edge_of(12, 17), edge_of(17, 22))
        return g

    target = {ACT_ROAD: edge_of(22, 16), ACT_SETTLEMENT: 22, ACT_CITY: 12, ACT_BUY_DEV: 0}[kind]
    cost = COSTS[kind]
    for r in range(5):
        if cost[r]:
            g = position()
            short = list(cost)
            short[r] -= 1
            g.set_hand(0, short)
            assert not g.legal(A(kind, target))
    g = position()
    g.set_hand(0, cost)
    bank = g.bank()
    assert g.legal(A(kind, target))
    g.apply(A(kind, target))
    assert g.hand(0) == bundle()
    assert g.bank() == [b + c for b, c in zip(bank, cost, strict=True)]
    assert g.violations() == 0


def test_road_must_connect_to_own_road_or_building():
    g = Game()
    g.settle(0, 12)
    g.set_hand(0, bundle(5, 5, 0, 0, 0))
    assert g.legal(A(ACT_ROAD, edge_of(12, 17)))
    assert not g.legal(A(ACT_ROAD, edge_of(17, 22)))  # not connected yet
    assert not g.legal(A(ACT_ROAD, edge_of(46, 50)))  # far away
    g.apply(A(ACT_ROAD, edge_of(12, 17)))
    assert g.legal(A(ACT_ROAD, edge_of(17, 22)))
    assert not g.legal(A(ACT_ROAD, edge_of(12, 17)))  # taken
    g.road(1, edge_of(17, 23))
    assert not g.legal(A(ACT_ROAD, edge_of(17, 23)))  # opponent's road


def test_no_road_through_an_opponent_building_own_side_still_open():
    """FAQ 39, 40: seat 0's road 12-17-22 ends at seat 1's settlement on 22."""
    g = Game()
    g.settle(0, 12)
    g.road(0, edge_of(12, 17), edge_of(17, 22))
    g.settle(1, 22)
    g.set_hand(0, bundle(5, 5, 0, 0, 0))
    assert not g.legal(A(ACT_ROAD, edge_of(22, 16)))
    assert not g.legal(A(ACT_ROAD, edge_of(22, 28)))
    assert g.legal(A(ACT_ROAD, edge_of(17, 23)))  # from own road, own side
    assert g.legal(A(ACT_ROAD, edge_of(12, 7)))
    assert g.violations() == 0


def test_many_roads_in_one_turn():
    """FAQ 37: no per-turn cap."""
    g = Game()
    g.settle(0, 12)
    g.set_hand(0, bundle(5, 5, 0, 0, 0))
    for e in path_edges([12, 17, 22, 16, 11, 7]):
        g.apply(A(ACT_ROAD, e))
    assert g.hand(0) == bundle() and g.route(0) == 5


def test_piece_limits_and_city_returns_the_settlement():
    """FAQ 45, 52: 5 settlements, 4 cities, 15 roads."""
    g = Game()
    for n in (0, 2, 13, 27, 44):
        g.settle(0, n)
    g.road(0, edge_of(44, 48), edge_of(48, 51))
    assert g.violations() == 0
    g.set_hand(0, bundle(1, 1, 1, 3, 3))
    assert g.s[L.S_SETTLEMENTS_LEFT] == 0
    assert not g.legal(A(ACT_SETTLEMENT, 51))
    g.apply(A(ACT_CITY, 0))
    assert g.s[L.S_SETTLEMENTS_LEFT] == 1 and g.s[L.S_CITIES_LEFT] == 3
    assert g.legal(A(ACT_SETTLEMENT, 51))
    g.apply(A(ACT_SETTLEMENT, 51))
    assert g.vp(0) == 7
    # cities: three more, then none left
    for n in (2, 13, 27):
        g.set_hand(0, bundle(wheat=2, ore=3))
        g.apply(A(ACT_CITY, n))
    g.set_hand(0, bundle(wheat=2, ore=3))
    assert g.s[L.S_CITIES_LEFT] == 0
    assert not g.legal(A(ACT_CITY, 44))
    assert g.violations() == 0


def test_fifteen_roads_then_no_more():
    g = Game()
    g.settle(0, 0)
    ring = [0, 4, 8, 12, 7, 3, 0]
    chain = path_edges(ring) + path_edges([12, 17, 22, 16, 11]) + path_edges(
        [17, 23, 18, 13, 9])
    assert len(chain) == 14
    g.road(0, *chain)
    g.set_hand(0, bundle(2, 2, 0, 0, 0))
    assert g.legal(A(ACT_ROAD, edge_of(22, 28)))
    g.apply(A(ACT_ROAD, edge_of(22, 28)))
    assert g.s[L.S_ROADS_LEFT] == 0
    assert not g.legal(A(ACT_ROAD, edge_of(28, 34)))
    assert g.violations() == 0


def test_city_only_on_own_settlement():
    """FAQ 41."""
    g = Game()
    g.settle(0, 12)
    g.settle(0, 2, city=True)
    g.settle(1, 44)
    g.set_hand(0, bundle(wheat=2, ore=3))
    assert not g.legal(A(ACT_CITY, 44))
    assert not g.legal(A(ACT_CITY, 29))
    assert not g.legal(A(ACT_CITY, 2))
    assert g.legal(A(ACT_CITY, 12))


def test_settlement_needs_own_road_distance_rule_and_empty_node():
    """FAQ 50, 51: after the set-up a settlement needs an adjacent own road."""
    g = Game()
    g.settle(0, 12)
    g.road(0, edge_of(12, 17))
    g.road(1, edge_of(23, 29))
    g.set_hand(0, bundle(1, 1, 1, 1, 0))
    assert not g.legal(A(ACT_SETTLEMENT, 17))  # next to own settlement on 12
    assert not g.legal(A(ACT_SETTLEMENT, 29))  # only an opponent's road there
    assert not g.legal(A(ACT_SETTLEMENT, 44))  # unconnected
    g.road(0, edge_of(17, 22))
    assert g.legal(A(ACT_SETTLEMENT, 22))
    g.settle(2, 16)
    assert not g.legal(A(ACT_SETTLEMENT, 22))  # next to seat 2's settlement


def test_settlement_on_an_intersection_of_own_road_keeps_its_length():
    """FAQ 23, 46, 47: the route runs through the player's own new settlement."""
    g = Game()
    g.settle(0, 12)
    g.road(0, *path_edges([12, 17, 22, 16, 11]))
    g.set_hand(0, bundle(1, 1, 1, 1, 0))
    assert g.route(0) == 4
    g.apply(A(ACT_SETTLEMENT, 22))
    assert g.route(0) == 4 and g.s[L.S_ROUTE_LEN] == 4


def test_coastal_node_and_next_to_the_robber_are_buildable():
    """FAQ 48, 55."""
    g = Game()
    g.settle(0, 8)
    g.road(0, edge_of(8, 4), edge_of(4, 0))
    g.s[L.S_ROBBER] = 0  # robber on h0, next to node 0
    g.set_hand(0, bundle(1, 1, 1, 1, 0))
    assert g.legal(A(ACT_SETTLEMENT, 0))


def test_no_other_action_kinds_exist():
    """FAQ 30, 42, 44: no discard, move, remove, reserve or gift actions."""
    g = Game()
    g.set_hand(0, bundle(5, 5, 5, 5, 5))
    for kind in range(8, 40):
        assert not g.legal(A(kind, 1, 1))


def test_setup_road_must_touch_the_settlement_just_placed():
    g = Game()
    g.settle(0, 12)
    assert setup_road_ok_nb(g.s, TOPO, edge_of(12, 17), 12)
    assert not setup_road_ok_nb(g.s, TOPO, edge_of(17, 22), 12)
    g.road(1, edge_of(12, 7))
    assert not setup_road_ok_nb(g.s, TOPO, edge_of(12, 7), 12)
