"""Development cards, the bonus tiles and winning (summary sections 7-9; FAQ 2-14, 20-29,
72-75 and project decision D1).

Roads used below (docs/topology.png): the top coast 3-0-4-1-5-2-6-10 (7 roads), the
bottom coast 47-51-48-52-49-53-50-46 and the left coast 11-16-21-27-33-38-43.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import (
    INVENTION,
    KNIGHT,
    MONOPOLY,
    ORE,
    ROAD_BUILDING,
    VICTORY_POINT,
    WOOD,
    WOOL,
    Game,
    bundle,
    edge_of,
    path_edges,
    ring_edges,
)

from catansim.constants import RESOURCE_NAMES
from catansim.core import layout as L
from catansim.core.actions_nb import (
    ACT_BUY_DEV,
    ACT_PLAY_DEV,
    ACT_ROAD,
    ACT_SETTLEMENT,
    ACT_TRADE_BANK,
)
from catansim.core.rules_nb import visible_vp_nb
from catansim.engine import play_game
from catansim.rules import Rules

A = Game.action
TOP = [3, 0, 4, 1, 5, 2, 6, 10]
BOTTOM = [47, 51, 48, 52, 49, 53, 50, 46]
LEFT = [11, 16, 21, 27, 33, 38, 43]


def play(card):
    return A(ACT_PLAY_DEV, card)


def stack_deck(g, card):
    """Put a card of kind ``card`` on top of the deck (the next one bought)."""
    pos = g.s[L.S_DECK_POS]
    deck = g.s[L.S_DECK : L.S_DECK + 25]
    idx = pos + int(np.flatnonzero(deck[pos:] == card)[0])
    deck[pos], deck[idx] = deck[idx], deck[pos]


# --- buying and playing ------------------------------------------------------------------------


def test_buy_several_cards_none_playable_this_turn():
    """FAQ 3: as many as you can pay for; not playable in the turn bought."""
    g = Game()
    g.set_hand(0, bundle(wool=3, wheat=3, ore=3))
    for _ in range(3):
        assert g.legal(A(ACT_BUY_DEV))
        g.apply(A(ACT_BUY_DEV))
    assert sum(g.dev_hand(0)) == 3 and g.s[L.S_DECK_POS] == 3
    for card in range(5):
        assert not g.legal(play(card))
    # next turn (the engine clears dev_new at the turn's end) they are playable
    g.s[L.S_DEV_NEW : L.S_DEV_NEW + 5] = 0
    g.s[L.S_DEV_PLAYED] = 0
    for card in range(5):
        assert g.legal(play(card)) == (g.dev_hand(0)[card] > 0 and card != VICTORY_POINT)


def test_one_card_per_turn_before_the_roll_allowed():
    """FAQ 5, 7: a Knight before rolling; a second non-VP card that turn is rejected."""
    g = Game()
    g.s[L.S_ROLLED] = 0
    g.give_dev(0, KNIGHT, 2)
    g.give_dev(0, MONOPOLY)
    assert g.legal(play(KNIGHT))
    g.play_dev(KNIGHT)
    assert not g.legal(play(KNIGHT)) and not g.legal(play(MONOPOLY))
    g.s[L.S_ROLLED] = 1
    assert not g.legal(play(MONOPOLY))
    assert g.violations() == 0


def test_victory_point_cards_are_never_played_and_stay_hidden():
    """Section 7; FAQ 14: VP cards are not 'played' and count as hidden points."""
    g = Game()
    g.settle(0, 12)
    g.give_dev(0, VICTORY_POINT, 2)
    assert not g.legal(play(VICTORY_POINT))
    assert visible_vp_nb(g.s, 0) == 1 and g.vp(0) == 3


def test_empty_deck_sells_nothing():
    g = Game()
    for card, count in enumerate((14, 5, 2, 2, 2)):
        g.give_dev(3, card, count)
    assert g.s[L.S_DECK_POS] == 25
    g.set_hand(0, bundle(wool=1, wheat=1, ore=1))
    assert not g.legal(A(ACT_BUY_DEV))
    assert g.violations() == 0


def test_played_cards_leave_the_game():
    """FAQ 6: progress cards never return to the deck; knights stay in front of you."""
    g = Game()
    g.give_dev(0, INVENTION)
    g.play_dev(INVENTION)
    assert g.s[L.S_DECK_POS] == 1 and g.dev_hand(0) == [0] * 5
    assert g["c_dev_played"][INVENTION] == 1
    assert g.violations() == 0


def test_knight_counts_and_gives_largest_army_at_three():
    """FAQ 6, 9, 21: only played knights count; 3 played -> Largest Army (+2 VP)."""
    g = Game()
    g.give_dev(0, KNIGHT, 5)
    for k in range(1, 4):
        g.s[L.S_DEV_PLAYED] = 0
        g.play_dev(KNIGHT)
        assert g.s[L.S_KNIGHTS] == k
        assert g.army == (0 if k >= 3 else -1)
    assert g.vp(0) == 2
    assert g.dev_hand(0)[KNIGHT] == 2
    assert [e for e in g.events() if e["e"] == "largest_army"] == [
        {"e": "largest_army", "p": 0, "knights": 3}]
    assert g.violations() == 0


def test_unplayed_knights_do_not_count():
    g = Game()
    g.give_dev(1, KNIGHT, 5)
    g.update_army(1)
    assert g.army == -1


def test_largest_army_moves_only_to_strictly_more_knights():
    """FAQ 20: Q's knights exceed holder P's -> the tile moves at once (P -2, Q +2)."""
    g = Game()
    g.set_knights(0, 3)
    g.update_army(0)
    assert g.army == 0
    g.set_knights(1, 2)
    g.cur = 1
    g.give_dev(1, KNIGHT, 2)
    g.play_dev(KNIGHT)  # 3 = 3: holder keeps
    assert g.army == 0 and g.vp(0) == 2 and g.vp(1) == 0
    g.s[L.S_DEV_PLAYED] = 0
    g.play_dev(KNIGHT)  # 4 > 3
    assert g.army == 1 and g.vp(0) == 0 and g.vp(1) == 2
    assert g.violations() == 0


def test_road_building_two_free_roads():
    g = Game()
    g.settle(0, 12)
    g.give_dev(0, ROAD_BUILDING)
    g.play_dev(ROAD_BUILDING)
    roads = [e for e in g.events() if e["e"] == "build_road"]
    assert len(roads) == 2 and all(e["free"] for e in roads)
    assert g.hand(0) == bundle() and g.s[L.S_ROADS_LEFT] == 13
    assert g.violations() == 0


def test_road_building_with_one_piece_left_builds_one():
    g = Game()
    g.settle(0, 0)
    g.road(0, *path_edges([0, 4, 8, 12, 7, 3, 0]), *path_edges([12, 17, 22, 16, 11]),
           *path_edges([17, 23, 18, 13, 9]))
    g.give_dev(0, ROAD_BUILDING)
    g.play_dev(ROAD_BUILDING)
    assert len([e for e in g.events() if e["e"] == "build_road"]) == 1
    assert g.s[L.S_ROADS_LEFT] == 0


def test_road_building_without_a_legal_edge_builds_none():
    g = Game()
    g.settle(0, 50)  # coastal corner with two sides, both taken by seat 1
    g.road(1, edge_of(46, 50), edge_of(50, 53))
    g.give_dev(0, ROAD_BUILDING)
    g.play_dev(ROAD_BUILDING)
    assert not [e for e in g.events() if e["e"] == "build_road"]
    assert g.s[L.S_ROADS_LEFT] == 15 and g.s[L.S_DEV_PLAYED] == 1


@pytest.mark.parametrize("seed", range(6))
def test_invention_takes_two_cards_from_the_supply(seed):
    g = Game(seed=seed)
    g.give_dev(0, INVENTION)
    g.play_dev(INVENTION)
    assert sum(g.hand(0)) == 2 and sum(g.bank()) == 93
    ev = [e for e in g.events() if e["e"] == "play_dev"][0]
    assert ev["cards"] == g.hand(0)


@pytest.mark.parametrize("left, want", [([0, 0, 0, 0, 1], [0, 0, 0, 0, 1]),
                                        ([0, 0, 0, 0, 0], [0, 0, 0, 0, 0]),
                                        ([0, 2, 0, 0, 0], [0, 2, 0, 0, 0])])
def test_invention_takes_fewer_only_when_the_supply_has_fewer(left, want):
    g = Game()
    for r in range(5):
        g.set_bank(r, left[r], sink=2)
    g.give_dev(0, INVENTION)
    g.play_dev(INVENTION)
    assert g.hand(0) == want and g.bank() == [0] * 5
    assert g["c_illegal"][0] == 0


@pytest.mark.parametrize("seed", range(5))
def test_monopoly_takes_every_card_of_the_named_resource(seed):
    """FAQ 10."""
    g = Game(seed=seed)
    g.set_hand(1, bundle(2, 1, 3, 0, 1))
    g.set_hand(2, bundle(0, 4, 1, 2, 2))
    g.set_hand(3, bundle(1, 0, 0, 5, 0))
    g.set_hand(0, bundle(wool=1))
    before = [g.hand(p) for p in range(4)]
    g.give_dev(0, MONOPOLY)
    g.play_dev(MONOPOLY)
    ev = [e for e in g.events() if e["e"] == "play_dev"][0]
    r = RESOURCE_NAMES.index(ev["resource"])
    assert ev["taken"] == [0] + [before[q][r] for q in (1, 2, 3)]
    for q in (1, 2, 3):
        assert g.hand(q)[r] == 0
        assert [x for i, x in enumerate(g.hand(q)) if i != r] == [
            x for i, x in enumerate(before[q]) if i != r]
    assert g.hand(0)[r] == before[0][r] + sum(before[q][r] for q in (1, 2, 3))
    assert g.violations() == 0


def test_card_between_trades_and_builds():
    """FAQ 12 (D3): roll -> trade -> Monopoly -> trade -> build, all in one turn."""
    g = Game()
    g.settle(0, 12)
    g.set_hand(0, bundle(wood=4, brick=1))
    g.give_dev(0, MONOPOLY)
    g.apply(A(ACT_TRADE_BANK, WOOD, ORE))
    assert g.legal(play(MONOPOLY))
    g.apply(play(MONOPOLY))
    g.set_hand(0, bundle(wood=5, brick=1, ore=g.hand(0)[ORE]))
    g.apply(A(ACT_TRADE_BANK, WOOD, WOOL))
    assert g.legal(A(ACT_ROAD, edge_of(12, 17)))
    g.apply(A(ACT_ROAD, edge_of(12, 17)))


# --- Longest Route: lengths ----------------------------------------------------------------------


def test_ring_of_six_counts_six():
    """FAQ 22."""
    g = Game()
    g.road(0, *ring_edges(9))
    assert g.route(0) == 6


def test_own_settlement_does_not_cut_opponent_settlement_does():
    """FAQ 23, 24."""
    g = Game()
    g.road(0, *path_edges(TOP))
    assert g.route(0) == 7
    g.settle(0, 4)
    assert g.route(0) == 7
    g2 = Game()
    g2.road(0, *path_edges(TOP))
    g2.settle(1, 1)
    assert g2.route(0) == 4  # 3-0-4-1 | 1-5-2-6-10
    g2.settle(2, 10)  # a building at the end of the road does not shorten it
    assert g2.route(0) == 4


def test_branches_count_only_the_longest_trail():
    """FAQ 26: a Y of arms 3, 2 and 1 from node 17 counts 5."""
    g = Game()
    g.road(0, *path_edges([17, 22, 16, 11]), *path_edges([17, 12, 7]), edge_of(17, 23))
    assert g.route(0) == 5


def test_detour_rejoins_a_cut_road():
    """FAQ 25: cut at node 8, then a bypass around hex h4 rejoins the pieces."""
    g = Game()
    g.road(0, *path_edges([3, 7, 12, 8, 13, 9]))
    g.settle(1, 8)
    assert g.route(0) == 3
    g.road(0, *path_edges([12, 17, 23, 18, 13]))
    # 3-7-12-17-23-18-13-9 (7); a trail may end at 8 but not pass it, so 8 is not reached
    assert g.route(0) == 7


# --- Longest Route: who holds the tile (FAQ 27-29, D1) -----------------------------------------


def lengths_position(holder, lengths):
    g = Game()
    for p, length in enumerate(lengths):
        g.s[L.S_ROUTE_LEN + p] = length
    g.s[L.S_LONGEST] = -1 if holder is None else holder
    return g


@pytest.mark.parametrize("holder, lengths, expected", [
    (None, [4, 0, 0, 0], -1),  # 4 roads -> no tile (29)
    (None, [5, 0, 0, 0], 0),  # 5 -> tile
    (None, [5, 5, 0, 0], -1),  # tie in the supply stays there
    (None, [5, 6, 5, 0], 1),
    (0, [6, 6, 0, 0], 0),  # equal -> holder keeps (27)
    (0, [6, 7, 0, 0], 1),  # strictly longer takes it
    (0, [5, 5, 0, 0], 0),  # D1: holder 7 -> 5, Q 5 -> holder keeps
    (0, [4, 6, 6, 0], -1),  # D1: holder 7 -> 4, Q 6, R 6 -> supply
    (0, [4, 6, 3, 0], 1),  # D1: holder 7 -> 4, Q alone 6 -> Q
    (0, [4, 4, 3, 0], -1),  # D1: nobody at 5 -> supply
    (0, [5, 6, 6, 0], -1),  # holder no longer among the longest, tie -> supply
    (2, [3, 3, 5, 0], 2),
])
def test_longest_route_holder_rules(holder, lengths, expected):
    g = lengths_position(holder, lengths)
    g.update_longest()
    assert g.longest == expected


def d1_position(q_roads, r_roads):
    """Seat 0 holds the tile with the 7-road top coast; seat 1 has the first ``q_roads``
    of the bottom coast, seat 3 the first ``r_roads`` of the left coast. Seat 2, whose
    turn it is, owns roads 8-4 and 9-5 and the cards for one settlement."""
    g = Game()
    g.road(0, *path_edges(TOP))
    g.road(1, *path_edges(BOTTOM)[:q_roads])
    g.road(3, *path_edges(LEFT)[:r_roads])
    g.road(2, edge_of(8, 4), edge_of(9, 5))
    g.settle(2, 29)
    g.update_longest()
    assert g.longest == 0
    g.cur = 2
    g.set_hand(2, bundle(1, 1, 1, 1, 0))
    return g


def test_d1_holder_cut_to_five_tied_keeps():
    g = d1_position(5, 0)
    g.apply(A(ACT_SETTLEMENT, 4))  # 3-0-4 | 4-1-5-2-6-10
    assert g.route(0) == 5 and g.longest == 0
    assert g.violations() == 0


def test_d1_holder_cut_to_five_shorter_than_q_loses_to_q():
    g = d1_position(6, 0)
    g.apply(A(ACT_SETTLEMENT, 4))
    assert g.longest == 1
    assert [e for e in g.events() if e["e"] == "longest_route"][-1] == {
        "e": "longest_route", "p": 1, "length": 6}


def test_d1_holder_cut_to_four_two_tied_at_six_goes_to_supply():
    g = d1_position(6, 6)
    g.apply(A(ACT_SETTLEMENT, 5))  # 3-0-4-1-5 | 5-2-6-10
    assert g.route(0) == 4 and g.longest == -1
    ev = [e for e in g.events() if e["e"] == "longest_route"][-1]
    assert ev["p"] is None
    assert g.violations() == 0


def test_d1_holder_cut_to_four_q_alone_at_six_takes_it():
    g = d1_position(6, 3)
    g.apply(A(ACT_SETTLEMENT, 5))
    assert g.longest == 1 and g.vp(1) == 2 and g.vp(0) == 0


def test_d1_nobody_qualifies_then_a_later_builder_alone_at_five_gets_it():
    g = d1_position(4, 3)
    g.apply(A(ACT_SETTLEMENT, 5))
    assert g.longest == -1
    g.cur = 1
    g.s[L.S_DEV_PLAYED] = 0
    g.set_hand(1, bundle(wood=1, brick=1))
    g.apply(A(ACT_ROAD, path_edges(BOTTOM)[4]))
    assert g.route(1) == 5 and g.longest == 1


def test_equal_route_does_not_take_the_tile_longer_does():
    """FAQ 27, 29."""
    g = Game()
    g.road(0, *path_edges(TOP)[:5])
    g.update_longest()
    assert g.longest == 0
    g.road(1, *path_edges(BOTTOM)[:4])
    g.cur = 1
    g.set_hand(1, bundle(wood=2, brick=2))
    g.apply(A(ACT_ROAD, path_edges(BOTTOM)[4]))
    assert g.route(1) == 5 and g.longest == 0
    g.apply(A(ACT_ROAD, path_edges(BOTTOM)[5]))
    assert g.longest == 1


def test_four_roads_no_tile_fifth_road_tile():
    """FAQ 29."""
    g = Game()
    g.road(0, *path_edges(TOP)[:3])
    g.set_hand(0, bundle(wood=2, brick=2))
    g.apply(A(ACT_ROAD, path_edges(TOP)[3]))
    assert g.route(0) == 4 and g.longest == -1
    g.apply(A(ACT_ROAD, path_edges(TOP)[4]))
    assert g.longest == 0 and g.vp(0) == 2


# --- winning ---------------------------------------------------------------------------------


def test_no_win_on_another_players_turn_win_at_own_turn_start():
    """FAQ 72, 73: seat 2 cuts seat 3's road, Longest Route goes to seat 0 who then has
    10 VP; play continues, and seat 0 wins when its own turn starts."""
    g = Game()
    g.road(3, *path_edges(TOP))
    g.road(0, *path_edges(BOTTOM)[:6])
    for n in (47, 52):
        g.settle(0, n)
    g.settle(0, 50, city=True)
    g.give_dev(0, VICTORY_POINT, 4)
    g.road(2, edge_of(9, 5))
    g.s[L.S_LONGEST] = 3
    g.cur = 2
    g.set_hand(2, bundle(1, 1, 1, 1, 0))
    assert g.vp(0) == 8
    over = g.apply(A(ACT_SETTLEMENT, 5))
    assert g.longest == 0 and g.vp(0) == 10
    assert not over and g.s[L.S_END] == L.END_RUNNING and g.s[L.S_WINNER] == -1
    assert g.violations() == 0
    g.clear_log()
    g.cur = 0
    g.s[L.S_TURN] = 2
    g.play_turn()
    assert g.s[L.S_END] == L.END_WIN and g.s[L.S_WINNER] == 0
    assert [e["e"] for e in g.events()] == ["turn_start", "game_end"]


@pytest.mark.parametrize("card, wins", [(VICTORY_POINT, True), (KNIGHT, False)])
def test_buying_the_tenth_point_wins_at_once(card, wins):
    """FAQ 14, 74, 75: 8 visible VP + an old VP card + a VP card bought now -> win."""
    g = Game()
    for n in (0, 2, 13, 27):
        g.settle(0, n)
    g.settle(0, 44, city=True)
    g.set_knights(0, 3)
    g.update_army(0)
    g.give_dev(0, VICTORY_POINT)
    assert visible_vp_nb(g.s, 0) == 8 and g.vp(0) == 9
    g.set_hand(0, bundle(wool=1, wheat=1, ore=1))
    stack_deck(g, card)
    over = g.apply(A(ACT_BUY_DEV))
    assert over == wins
    assert (g.s[L.S_WINNER] == 0) == wins
    if wins:
        assert g.events()[-1]["e"] == "game_end" and g.events()[-1]["winner"] == 0


def test_lower_vp_to_win_ends_at_that_total():
    g = Game(rules=Rules(vp_to_win=5))
    for n in (0, 2, 13):
        g.settle(0, n)
    g.road(0, edge_of(44, 48))
    g.set_hand(0, bundle(1, 1, 1, 1, 0))
    assert g.vp(0) == 3 and not g.check_win()
    g.give_dev(0, VICTORY_POINT)
    assert not g.check_win()
    assert g.apply(A(ACT_SETTLEMENT, 44))
    assert g.s[L.S_WINNER] == 0


def test_knight_that_brings_largest_army_and_the_win_ends_the_game():
    g = Game()
    for n in (0, 2, 13, 27):
        g.settle(0, n)
    g.settle(0, 44, city=True)
    g.set_knights(0, 2)
    g.give_dev(0, VICTORY_POINT, 2)
    g.give_dev(0, KNIGHT)
    assert g.vp(0) == 8
    g.play_dev(KNIGHT)
    assert g.army == 0 and g.s[L.S_WINNER] == 0
    assert not [e for e in g.events() if e["e"] == "robber"]


@pytest.mark.parametrize("n_players", [3, 4])
def test_turn_cap_ends_without_a_winner(n_players):
    for seed in range(10):
        r = play_game(seed, n_players=n_players, rules=Rules(max_turns=9, vp_to_win=20))
        assert r.winner is None and r.turns == 9
        evs = r.events
        assert evs[-1][0] == L.EV_GAME_END and evs[-1][2] == -1 and evs[-1][4] == 2
        starts = [row for row in evs if row[0] == L.EV_TURN_START]
        assert [int(row[1]) for row in starts] == [t % n_players for t in range(9)]
