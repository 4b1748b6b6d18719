"""The independent log checker on hand-written logs (beginner board).

Every legal log below was worked out by hand; the hands after each event are in
the comments. Seats: 0 red, 1 blue, 2 white, 3 orange. Resources are bundles
(wood, brick, wool, wheat, ore). Each corruption is a single edit that the
checker must reject, naming the broken rule.
"""

from __future__ import annotations

import copy

import pytest
from helpers import reversed_numbering

from catansim import topology as T
from catansim.board import beginner_board
from catansim.logs import LogError, narrative, replay
from catansim.logs.checker import longest_route_holder, longest_trail
from catansim.topology import edge_between_hexes, node_of_hexes


def N(*hexes):
    """Our node at the corner of three hexes."""
    return node_of_hexes(hexes)


def E(a, b):
    """Our edge between two hexes."""
    return edge_between_hexes(a, b)


def H(q, r):
    return T.hex_index(q, r)


def header(n_players=4, **rules):
    base = {"vp_to_win": 10, "bank_per_resource": 19, "discard_limit": 7,
            "robber": "official", "shortage": "official", "max_turns": 1000}
    base.update(rules)
    return {"e": "header", "format": "catansim-log", "version": 1, "seed": 1,
            "n_players": n_players, "strategies": ["scripted"] * n_players,
            "rules": base, "board": beginner_board().to_header()}


def ss(p, node):
    return {"e": "setup_settlement", "p": p, "node": node}


def sr(p, edge):
    return {"e": "setup_road", "p": p, "edge": edge}


def start(p, cards):
    return {"e": "starting_resources", "p": p, "cards": cards}


def ts(p, turn):
    return {"e": "turn_start", "p": p, "turn": turn}


def roll(p, d1, d2):
    return {"e": "roll", "p": p, "dice": [d1, d2]}


def prod(*gains, withheld=(0, 0, 0, 0, 0)):
    return {"e": "production", "gains": [list(g) for g in gains], "withheld": list(withheld)}


def te(p):
    return {"e": "turn_end", "p": p}


def road(p, edge, free=False):
    return {"e": "build_road", "p": p, "edge": edge, "free": free}


Z = [0, 0, 0, 0, 0]

# --- beginner set-up, snake order ------------------------------------------------
# red    A = M10/P2/H6  road P2|H6,   B* = G9/F11/F8  road F11|F8  -> wheat, wood, wood
# blue   A = G4/P5/P11  road G4|P5,   B* = F8/M3/H5   road M3|H5   -> wood, ore, brick
# white  A = G12/H6/F11 road G12|F11, B* = F3/M8/P5   road F3|M8   -> wood, ore, wool
# orange A = F9/P4/H10  road P4|F9,   B* = M3/G4/G6   road G4|G6   -> ore, wheat, wheat
RED_A, RED_B = N((0, -2), (1, -2), (0, -1)), N((-2, 0), (-1, 0), (-2, 1))
BLUE_A, BLUE_B = N((0, 1), (1, 1), (0, 2)), N((-2, 1), (-1, 1), (-2, 2))
WHITE_A, WHITE_B = N((-1, -1), (0, -1), (-1, 0)), N((1, 0), (2, 0), (1, 1))
ORANGE_A, ORANGE_B = N((2, -2), (1, -1), (2, -1)), N((-1, 1), (0, 1), (-1, 2))
BEGINNER_SETUP = [
    ss(0, RED_A), sr(0, E((1, -2), (0, -1))),
    ss(1, BLUE_A), sr(1, E((0, 1), (1, 1))),
    ss(2, WHITE_A), sr(2, E((-1, -1), (-1, 0))),
    ss(3, ORANGE_A), sr(3, E((1, -1), (2, -2))),
    ss(3, ORANGE_B), sr(3, E((0, 1), (-1, 2))), start(3, [0, 0, 0, 2, 1]),
    ss(2, WHITE_B), sr(2, E((1, 0), (2, 0))), start(2, [1, 0, 1, 0, 1]),
    ss(1, BLUE_B), sr(1, E((-1, 1), (-2, 2))), start(1, [1, 1, 0, 0, 1]),
    ss(0, RED_B), sr(0, E((-1, 0), (-2, 1))), start(0, [2, 0, 0, 1, 0]),
]  # fmt: skip
# Hands: R [2,0,0,1,0]  B [1,1,0,0,1]  W [1,0,1,0,1]  O [0,0,0,2,1]

# --- LOG_A: trades, a VP card, a 7 with a discard and a steal, a knight, a win -----
# Rules: 4 VP to win, discard above 3 cards.
RULES_A = {"vp_to_win": 4, "discard_limit": 3, "max_turns": 50}
LOG_A = BEGINNER_SETUP + [
    ts(0, 1), roll(0, 3, 3),  # 6: H6 -> red, white brick; G6 -> orange wheat
    prod([0, 1, 0, 0, 0], Z, [0, 1, 0, 0, 0], [0, 0, 0, 1, 0]),
    # R [2,1,0,1,0] W [1,1,1,0,1] O [0,0,0,3,1]
    {"e": "trade_player", "p": 0, "partner": 2, "give": [1, 0, 0, 0, 0], "get": [0, 0, 1, 0, 1]},
    # R [1,1,1,1,1] W [2,1,0,0,0]
    {"e": "buy_dev", "p": 0, "card": "victory_point"},  # R [1,1,0,0,0], 3 VP
    road(0, E((0, -1), (1, -1))),  # R [0,0,0,0,0]
    te(0),
    ts(1, 2), roll(1, 3, 4),  # 7: only orange holds more than 3 (4 cards)
    {"e": "discard", "p": 3, "cards": [0, 0, 0, 2, 0]},  # O [0,0,0,1,1]
    {"e": "robber", "p": 1, "hex": H(-1, 2), "victim": 3, "stolen": "wheat"},
    # O [0,0,0,0,1] B [1,1,0,1,1]
    road(1, E((0, 1), (1, 0))),  # B [0,0,0,1,1]
    te(1),
    ts(2, 3), roll(2, 5, 5),  # 10: M10 -> red ore; H10 -> orange brick
    prod([0, 0, 0, 0, 1], Z, Z, [0, 1, 0, 0, 0]),  # R [0,0,0,0,1] O [0,1,0,0,1]
    te(2),
    ts(3, 4), roll(3, 2, 2),  # 4: P4 -> orange wool; G4 -> blue, orange wheat
    prod(Z, [0, 0, 0, 1, 0], Z, [0, 0, 1, 1, 0]),  # B [0,0,0,2,1] O [0,1,1,1,1]
    {"e": "buy_dev", "p": 3, "card": "knight"},  # O [0,1,0,0,0]
    te(3),
    ts(0, 5), roll(0, 4, 5),  # 9: F9 -> orange wood; G9 -> red wheat
    prod([0, 0, 0, 1, 0], Z, Z, [1, 0, 0, 0, 0]),  # R [0,0,0,1,1] O [1,1,0,0,0]
    te(0),
    ts(1, 6), roll(1, 4, 4),  # 8: M8 -> white ore; F8 -> red, blue wood
    prod([1, 0, 0, 0, 0], [1, 0, 0, 0, 0], [0, 0, 0, 0, 1], Z),
    # R [1,0,0,1,1] B [1,0,0,2,1] W [2,1,0,0,1]
    te(1),
    ts(2, 7), roll(2, 1, 4),  # 5: P5 -> blue, white wool; H5 -> blue brick
    prod(Z, [0, 1, 1, 0, 0], [0, 0, 1, 0, 0], Z),  # B [1,1,1,2,1] W [2,1,1,0,1]
    te(2),
    ts(3, 8),
    {"e": "play_dev", "p": 3, "card": "knight"},  # bought in turn 4: playable
    {"e": "robber", "p": 3, "hex": H(2, 0), "victim": 2, "stolen": "wood"},
    # W [1,1,1,0,1] O [2,1,0,0,0]
    roll(3, 1, 2),  # 3: F3 -> white wood; M3 -> blue, orange ore
    prod(Z, [0, 0, 0, 0, 1], [1, 0, 0, 0, 0], [0, 0, 0, 0, 1]),
    # W [2,1,1,0,1] B [1,1,1,2,2] O [2,1,0,0,1]
    te(3),
    ts(0, 9), roll(0, 3, 3),  # 6: H6 -> red, white brick; G6 (robber gone) -> orange wheat
    prod([0, 1, 0, 0, 0], Z, [0, 1, 0, 0, 0], [0, 0, 0, 1, 0]),
    # R [1,1,0,1,1] W [2,2,1,0,1] O [2,1,0,1,1]
    {"e": "trade_player", "p": 0, "partner": 1, "give": [0, 0, 0, 0, 1], "get": [0, 0, 1, 0, 0]},
    # R [1,1,1,1,0] B [1,1,0,2,3]
    {"e": "build_settlement", "p": 0, "node": N((0, -1), (1, -1), (0, 0))},  # 3 + 1 card = 4 VP
    {"e": "game_end", "winner": 0, "turn": 9, "vp": [4, 2, 2, 2], "reason": "win"},
]  # fmt: skip


def find(log, pred, nth=0):
    hits = [i for i, ev in enumerate(log) if pred(ev)]
    return hits[nth]


def turn_index(log, turn):
    return find(log, lambda ev: ev["e"] == "turn_start" and ev["turn"] == turn)


def test_log_a_is_legal_and_final_state_is_right():
    res = replay(header(**RULES_A), LOG_A)
    assert res.winner == 0 and res.reason == "win" and res.turns == 9
    assert [v["total"] for v in res.vp] == [4, 2, 2, 2]
    assert res.vp[0] == {"settlements": 3, "cities": 0, "longest_route": 0,
                         "largest_army": 0, "vp_cards": 1, "total": 4}
    assert res.hands == [[0, 0, 0, 0, 0], [1, 1, 0, 2, 3], [2, 2, 1, 0, 1], [2, 1, 0, 1, 1]]
    assert res.supply == [19 - sum(h[r] for h in res.hands) for r in range(5)]
    assert res.robber == H(2, 0)
    assert res.knights == [0, 0, 0, 1]
    assert res.node_owner[N((0, -1), (1, -1), (0, 0))] == 0
    assert sum(1 for o in res.node_owner if o >= 0) == 9
    assert sum(1 for o in res.edge_owner if o >= 0) == 10
    assert [s["turn"] for s in res.snapshots] == list(range(1, 9))


def test_narrative_tells_the_game():
    text = narrative(header(**RULES_A), LOG_A)
    assert "Turn 1 — red (seat 0) rolls 3+3 = 6" in text
    assert "steals wheat from orange" in text
    assert "red (seat 0) wins on turn 9." in text
    assert "1. red (seat 0, scripted): 4 VP — 3 settlements, 0 cities, 1 VP card" in text


def test_standings_count_in_words_and_name_the_bonus_points():
    from types import SimpleNamespace

    from catansim.constants import seat_colours
    from catansim.logs import standings

    def vp(total, settlements, cities, route=0, army=0, cards=0):
        return dict(total=total, settlements=settlements, cities=2 * cities,
                    longest_route=route, largest_army=army, vp_cards=cards)

    res = SimpleNamespace(n_players=3, strategies=["a", "b", "c"], vp=[
        vp(10, 1, 2, route=2, cards=3), vp(7, 2, 1, army=2), vp(2, 2, 0)])
    c = seat_colours(3)
    assert standings(res) == [
        f"1. {c[0]} (seat 0, a): 10 VP — 1 settlement, 2 cities, Longest Route (2 VP), "
        "3 VP cards",
        f"2. {c[1]} (seat 1, b): 7 VP — 2 settlements, 1 city, Largest Army (2 VP)",
        f"3. {c[2]} (seat 2, c): 2 VP — 2 settlements, 0 cities"]


# --- LOG_B: custom openings; red's road runs up to white's settlement ------------
WHITE_9 = N((1, -2), (2, -2), (1, -1))
SETUP_B = [
    ss(0, RED_A), sr(0, E((1, -2), (0, -1))),  # red road to node P2/H6/P4
    ss(1, BLUE_A), sr(1, E((0, 1), (1, 1))),
    ss(2, WHITE_9), sr(2, E((1, -2), (2, -2))),  # white next to red's road end
    ss(3, ORANGE_B), sr(3, E((0, 1), (-1, 2))),
    ss(3, WHITE_B), sr(3, E((1, 0), (2, 0))), start(3, [1, 0, 1, 0, 1]),
    ss(2, RED_B), sr(2, E((-1, 0), (-2, 1))), start(2, [2, 0, 0, 1, 0]),
    ss(1, BLUE_B), sr(1, E((-1, 1), (-2, 2))), start(1, [1, 1, 0, 0, 1]),
    ss(0, WHITE_A), sr(0, E((-1, -1), (0, -1))), start(0, [1, 1, 0, 1, 0]),
]  # fmt: skip
# Hands: R [1,1,0,1,0]  B [1,1,0,0,1]  W [2,0,0,1,0]  O [1,0,1,0,1]
LOG_B = SETUP_B + [
    ts(0, 1), roll(0, 3, 3),  # 6: H6 -> red 2 brick (two settlements); G6 -> orange wheat
    prod([0, 2, 0, 0, 0], Z, Z, [0, 0, 0, 1, 0]),  # R [1,3,0,1,0] O [1,0,1,1,1]
    {"e": "trade_player", "p": 0, "partner": 1, "give": [0, 1, 0, 0, 0], "get": [1, 0, 0, 0, 0]},
    road(0, E((1, -2), (1, -1))),  # up to white's settlement: legal
    road(0, E((0, -1), (1, -1))),
    te(0),
    {"e": "game_end", "winner": None, "turn": 1, "vp": [2, 2, 2, 2], "reason": "turn_limit"},
]  # fmt: skip

# --- LOG_C: Longest Route decides the game -----------------------------------------
LOG_C = SETUP_B + [
    ts(0, 1), roll(0, 3, 3), prod([0, 2, 0, 0, 0], Z, Z, [0, 0, 0, 1, 0]), te(0),
    # R [1,3,0,1,0]
    ts(1, 2), roll(1, 5, 6),  # 11: F11 -> red, white wood; P11 -> blue wool
    prod([1, 0, 0, 0, 0], [0, 0, 1, 0, 0], [1, 0, 0, 0, 0], Z), te(1),
    ts(2, 3), roll(2, 6, 5), prod([1, 0, 0, 0, 0], [0, 0, 1, 0, 0], [1, 0, 0, 0, 0], Z), te(2),
    ts(3, 4), roll(3, 4, 2), prod([0, 2, 0, 0, 0], Z, Z, [0, 0, 0, 1, 0]), te(3),
    # R [3,5,0,1,0]
    ts(0, 5), roll(0, 1, 1),  # 2: P2 -> red, white wool
    prod([0, 0, 1, 0, 0], Z, [0, 0, 1, 0, 0], Z),
    road(0, E((0, -2), (0, -1))),  # route 12-8-13 + 17-12: 3
    road(0, E((0, -1), (1, -1))),  # 4
    road(0, E((0, -1), (0, 0))),  # 5: Longest Route, 2 + 2 = 4 VP
    {"e": "longest_route", "p": 0, "length": 5},
    {"e": "game_end", "winner": 0, "turn": 5, "vp": [4, 2, 2, 2], "reason": "win"},
]  # fmt: skip
RULES_C = {"vp_to_win": 4, "max_turns": 10}


def test_log_b_and_c_are_legal():
    res = replay(header(max_turns=1), LOG_B)
    assert res.reason == "turn_limit" and res.winner is None
    res = replay(header(**RULES_C), LOG_C)
    assert res.winner == 0 and res.longest_route == 0 and res.route_lengths[0] == 5


# --- LOG_S: one roll hits the supply-shortage rule -----------------------------------
# Bank of 2 per resource. Red has two settlements on forest 9 (sole recipient of 2
# wood, 1 left in the supply); blue and white sit on fields 9 (2 wheat owed, 1 left).
F9_TOP, F9_BOTTOM = N((2, -3), (1, -2), (2, -2)), N((2, -2), (1, -1), (2, -1))
G9_TOP, G9_WEST = N((-2, -1), (-1, -1), (-2, 0)), N((-3, 0), (-2, 0), (-3, 1))
SEA_M10, SEA_M8 = N((0, -3), (1, -3), (0, -2)), N((3, -1), (2, 0), (3, 0))
BLUE_H5 = N((-2, 2), (-3, 3), (-2, 3))
SEA_P11 = N((0, 2), (1, 2), (0, 3))
# Supply after the setup: wood 1, brick 1, wool 0, wheat 1, ore 1.
LOG_S_SETUP = [
    ss(0, F9_TOP), sr(0, E((2, -3), (2, -2))),
    ss(1, BLUE_H5), sr(1, E((-2, 2), (-2, 3))),
    ss(2, G9_TOP), sr(2, E((-2, -1), (-1, -1))),
    ss(3, SEA_M10), sr(3, E((0, -3), (0, -2))),
    ss(3, SEA_M8), sr(3, E((3, -1), (2, 0))), start(3, [0, 0, 0, 0, 1]),  # mountains 8
    ss(2, SEA_P11), sr(2, E((0, 2), (1, 2))), start(2, [0, 0, 1, 0, 0]),  # pasture 11
    ss(1, G9_WEST), sr(1, E((-3, 0), (-2, 0))), start(1, [0, 0, 0, 1, 0]),  # fields 9
    ss(0, F9_BOTTOM), sr(0, E((1, -1), (2, -1))), start(0, [1, 1, 1, 0, 0]),  # F9, H10, P4
]  # fmt: skip


def log_s(gains, withheld):
    return LOG_S_SETUP + [
        ts(0, 1), roll(0, 4, 5), prod(*gains, withheld=withheld), te(0),
        {"e": "game_end", "winner": None, "turn": 1, "vp": [2, 2, 2, 2], "reason": "turn_limit"},
    ]  # fmt: skip


SHORTAGE_ANSWERS = {
    # official: wood has one recipient, who takes the 1 left; wheat has two: nobody.
    "official": (([1, 0, 0, 0, 0], Z, Z, Z), [1, 0, 0, 2, 0]),
    # strict: nobody is paid a short resource.
    "strict": ((Z, Z, Z, Z), [2, 0, 0, 2, 0]),
    # off: paid in turn order from the roller (red): red 1 wood; blue before white.
    "off": (([1, 0, 0, 0, 0], [0, 0, 0, 1, 0], Z, Z), [1, 0, 0, 1, 0]),
}


@pytest.mark.parametrize("rule", ["official", "strict", "off"])
def test_shortage_rule_each_setting(rule):
    gains, withheld = SHORTAGE_ANSWERS[rule]
    res = replay(header(bank_per_resource=2, shortage=rule, max_turns=1), log_s(gains, withheld))
    assert res.supply[0] + sum(h[0] for h in res.hands) == 2
    for other in SHORTAGE_ANSWERS:
        if other == rule:
            continue
        g, w = SHORTAGE_ANSWERS[other]
        with pytest.raises(LogError, match="production: expected"):
            replay(header(bank_per_resource=2, shortage=rule, max_turns=1), log_s(g, w))


# --- LOG_I: Invention when the supply holds fewer than 2 cards ------------------------
# Supply of 1 per resource. The second settlements take all five cards: orange wheat
# (fields 9), white brick (hills 10), blue nothing (fields 12, wheat gone), red wood,
# ore and wool (forest 3, mountains 8, pasture 5).
LOG_I_SETUP = [
    ss(0, N((0, -3), (1, -3), (0, -2))), sr(0, E((1, -3), (0, -2))),  # mountains 10
    ss(1, N((-3, 2), (-2, 2), (-3, 3))), sr(1, E((-3, 2), (-2, 2))),  # hills 5
    ss(2, N((3, -3), (2, -2), (3, -2))), sr(2, E((2, -2), (3, -2))),  # forest 9
    ss(3, N((0, 2), (-1, 3), (0, 3))), sr(3, E((0, 2), (0, 3))),  # pasture 11
    ss(3, N((-3, 0), (-2, 0), (-3, 1))), sr(3, E((-2, 0), (-3, 1))), start(3, [0, 0, 0, 1, 0]),
    ss(2, N((3, -2), (2, -1), (3, -1))), sr(2, E((2, -1), (3, -1))), start(2, [0, 1, 0, 0, 0]),
    ss(1, N((-1, -2), (-2, -1), (-1, -1))), sr(1, E((-1, -2), (-1, -1))), start(1, Z),
    ss(0, N((1, 0), (2, 0), (1, 1))), sr(0, E((1, 0), (2, 0))), start(0, [1, 0, 1, 0, 1]),
]  # fmt: skip
# Supply [0,0,0,0,0]. R [1,0,1,0,1]  B Z  W [0,1,0,0,0]  O [0,0,0,1,0]


def log_i(cards, drain=True):
    """Red plays Invention on turn 5 with 1 ore left in the supply, or (``drain`` False:
    white rolls 2 instead of 9 on turn 3) with 1 wheat and 1 ore left."""
    turn3 = (roll(2, 4, 5), prod(Z, Z, Z, [0, 0, 0, 1, 0], withheld=[1, 0, 0, 0, 0])) if drain \
        else (roll(2, 1, 1), prod(Z, Z, Z, Z))
    return LOG_I_SETUP + [
        ts(0, 1), roll(0, 6, 6),  # 12: fields 12 owes blue 1 wheat, the supply has none
        prod(Z, Z, Z, Z, withheld=[0, 0, 0, 1, 0]),
        {"e": "trade_player", "p": 0, "partner": 3, "give": [1, 0, 0, 0, 0],
         "get": [0, 0, 0, 1, 0]},  # R [0,0,1,1,1] O [1,0,0,0,0]
        {"e": "buy_dev", "p": 0, "card": "invention"},  # R Z; supply [0,0,1,1,1]
        te(0),
        ts(1, 2), roll(1, 5, 6),  # 11: pasture 11 pays orange the one wool
        prod(Z, Z, Z, [0, 0, 1, 0, 0]), te(1),  # supply [0,0,0,1,1]
        # 9: forest 9 owes white wood (none left); fields 9 pays orange the wheat
        ts(2, 3), *turn3, te(2),  # supply [0,0,0,0,1] (with drain)
        ts(3, 4), roll(3, 1, 1), prod(Z, Z, Z, Z), te(3),  # 2: nobody on pasture 2
        ts(0, 5),
        {"e": "play_dev", "p": 0, "card": "invention", "cards": cards},
        roll(0, 1, 1), prod(Z, Z, Z, Z), te(0),
        {"e": "game_end", "winner": None, "turn": 5, "vp": [2, 2, 2, 2], "reason": "turn_limit"},
    ]  # fmt: skip


def test_invention_takes_what_the_supply_holds_when_it_holds_fewer_than_two():
    hdr = header(bank_per_resource=1, max_turns=5)
    res = replay(hdr, log_i([0, 0, 0, 0, 1]))  # the one ore left
    assert res.hands[0] == [0, 0, 0, 0, 1]
    assert res.supply == [0, 0, 0, 0, 0]
    for cards, rule in [
        ([0, 0, 0, 0, 2], "expected 1, got 2"),
        ([0, 0, 0, 0, 0], "expected 1, got 0"),
        ([0, 0, 0, 1, 1], "expected 1, got 2"),
        ([0, 0, 0, 1, 0], "the supply holds 0 wheat, needs 1"),
    ]:
        with pytest.raises(LogError, match=rule):
            replay(hdr, log_i(cards))
    # With a wheat and an ore left, Invention takes both.
    res = replay(hdr, log_i([0, 0, 0, 1, 1], drain=False))
    assert res.hands[0] == [0, 0, 0, 1, 1] and res.supply == [0, 0, 0, 0, 0]
    for cards, rule in [
        ([0, 0, 0, 0, 1], "Invention takes 2 resource cards, or all the supply holds if "
                          "fewer: expected 2, got 1"),
        ([0, 0, 0, 0, 2], "the supply holds 1 ore, needs 2"),
    ]:
        with pytest.raises(LogError, match=rule):
            replay(hdr, log_i(cards, drain=False))


# --- corruptions -------------------------------------------------------------------


def edit(log, index, **changes):
    out = copy.deepcopy(log)
    out[index].update(changes)
    return out


def insert(log, index, *events):
    out = copy.deepcopy(log)
    out[index:index] = [copy.deepcopy(e) for e in events]
    return out


def delete(log, index):
    out = copy.deepcopy(log)
    del out[index]
    return out


A = LOG_A
iA = {name: i for i, name in [
    (turn_index(A, 1) + 2, "t1_prod"),
    (find(A, lambda e: e["e"] == "trade_player"), "t1_trade"),
    (find(A, lambda e: e["e"] == "buy_dev"), "t1_buy"),
    (find(A, lambda e: e["e"] == "discard"), "t2_discard"),
    (find(A, lambda e: e["e"] == "robber"), "t2_robber"),
    (find(A, lambda e: e["e"] == "robber", nth=1), "t8_robber"),
    (find(A, lambda e: e["e"] == "play_dev"), "t8_knight"),
    (find(A, lambda e: e["e"] == "buy_dev", nth=1), "t4_buy"),
    (find(A, lambda e: e["e"] == "build_settlement"), "t9_settle"),
    (find(A, lambda e: e["e"] == "game_end"), "end"),
]}  # fmt: skip

CORRUPTIONS_A = {
    "wrong production amount": (
        lambda: edit(A, iA["t1_prod"], gains=[[0, 2, 0, 0, 0], Z, [0, 1, 0, 0, 0],
                                              [0, 0, 0, 1, 0]]),
        "production: expected gains"),
    "production withheld without shortage": (
        lambda: edit(A, iA["t1_prod"], withheld=[0, 1, 0, 0, 0]), "expected withheld"),
    "dice out of range": (lambda: edit(A, turn_index(A, 1) + 1, dice=[7, 0]), "dice values"),
    "wrong starting resources": (
        lambda: edit(A, find(A, lambda e: e["e"] == "starting_resources" and e["p"] == 0),
                     cards=[1, 0, 0, 1, 0]), "starting resources"),
    "setup out of snake order": (
        lambda: edit(A, 8, p=2, node=N((-2, 2), (-1, 2), (-2, 3))), "snake order"),
    "setup road away from the settlement": (
        lambda: edit(A, 3, edge=E((-2, 2), (-1, 2))), "touch the settlement just placed"),
    "setup settlement too close": (
        lambda: edit(A, 2, node=N((0, -2), (-1, -1), (0, -1))), "distance rule"),
    "discard of wrong size": (
        lambda: edit(A, iA["t2_discard"], cards=[0, 0, 0, 1, 0]), "discard size"),
    "missing discard": (lambda: delete(A, iA["t2_discard"]), "seat 3 must discard first"),
    "robber on the same hex": (
        lambda: edit(A, iA["t8_robber"], hex=H(-1, 2), victim=3, stolen="wheat"),
        "different hex"),
    "steal from a player not on the hex": (
        lambda: edit(A, iA["t2_robber"], victim=2, stolen="wood"), "has no building on hex"),
    "steal a card the victim lacks": (
        lambda: edit(A, iA["t2_robber"], stolen="wood"), "victim holds no wood"),
    "no steal although the victim holds cards": (
        lambda: edit(A, iA["t2_robber"], victim=None, stolen=None), "must steal"),
    "2:1 trade without the harbor": (
        lambda: insert(A, iA["t1_prod"] + 1, {"e": "trade_bank", "p": 0, "give": [2, 0, 0, 0, 0],
                                              "get": [0, 0, 0, 0, 1]}), "maritime rate"),
    "trade before the roll": (
        lambda: insert(A, turn_index(A, 1) + 1, A[iA["t1_trade"]]), "trade before the roll"),
    "trade before the 7 is resolved": (
        lambda: insert(A, iA["t2_discard"], {"e": "trade_player", "p": 1, "partner": 0,
                                             "give": [0, 0, 0, 0, 1], "get": [0, 0, 1, 0, 0]}),
        "before the 7 is resolved"),
    "player trade with the same resource on both sides": (
        lambda: edit(A, iA["t1_trade"], get=[1, 0, 1, 0, 1]), "a resource on both sides"),
    "player trade the partner cannot pay": (
        lambda: edit(A, iA["t1_trade"], get=[0, 0, 2, 0, 1]), "holds 1 wool, needs 2"),
    "trade between two other players": (
        lambda: edit(A, iA["t1_trade"], p=1), "acts on seat 0's turn"),
    "road not connected": (
        lambda: edit(A, iA["t1_buy"] + 1, edge=E((2, 0), (2, 1))), "road not connected"),
    "road without paying": (
        lambda: insert(A, iA["t1_buy"] + 2, road(0, E((0, -1), (0, 0)))), "road cost"),
    "settlement breaking the distance rule": (
        lambda: edit(A, iA["t9_settle"], node=N((1, -2), (0, -1), (1, -1))), "distance rule"),
    "city without a settlement": (
        lambda: edit(A, iA["t9_settle"], e="build_city"), "replace one of the player's"),
    "dev card played in the turn bought": (
        lambda: insert(A, iA["t4_buy"] + 1, {"e": "play_dev", "p": 3, "card": "knight"}),
        "turn it was bought"),
    "two dev cards in one turn": (
        lambda: insert(A, iA["t8_robber"] + 3, {"e": "play_dev", "p": 3, "card": "knight"}),
        "at most one development card per turn"),
    "victory point card played": (
        lambda: insert(A, turn_index(A, 5) + 1, {"e": "play_dev", "p": 0,
                                                 "card": "victory_point"}),
        "never played"),
    "knight without its robber": (lambda: delete(A, iA["t8_robber"]), "followed by its robber"),
    "turn out of order": (lambda: edit(A, turn_index(A, 2), p=2), "turn order"),
    "turn number skipped": (lambda: edit(A, turn_index(A, 2), turn=3), "turn number"),
    "no game_end at the win": (lambda: edit(A, iA["end"], e="turn_end", p=0), "game_end must"),
    "wrong final vp": (lambda: edit(A, iA["end"], vp=[4, 2, 2, 3]), "final vp"),
    "win on another player's turn": (
        lambda: edit(A, iA["end"], winner=1), "only the player whose turn it is"),
    "event after game_end": (lambda: A + [te(0)], "event after game_end"),
}


@pytest.mark.parametrize("case", list(CORRUPTIONS_A))
def test_corruptions_of_log_a_are_rejected(case):
    make, rule = CORRUPTIONS_A[case]
    with pytest.raises(LogError, match=rule) as info:
        replay(header(**RULES_A), make())
    assert info.value.args[0].startswith("event ")
    assert "\n" not in str(info.value)


RULE_CHANGES_A = {
    "friendly robber on a weak player's hex": ({"robber": "friendly"}, "friendly robber"),
    "robber events with the robber off": ({"robber": "off"}, "robber rule is off"),
    "discard with no discard limit": ({"discard_limit": None}, "discard only after"),
    "starting resources beyond a small supply": ({"bank_per_resource": 1}, "starting resources"),
    "a variant the checker cannot check": ({"new_rule": 1}, "cannot check"),
}


@pytest.mark.parametrize("case", list(RULE_CHANGES_A))
def test_log_a_under_other_rules_is_rejected(case):
    change, rule = RULE_CHANGES_A[case]
    with pytest.raises(LogError, match=rule):
        replay(header(**{**RULES_A, **change}), LOG_A)


def test_missing_game_end_is_rejected():
    with pytest.raises(LogError, match="without game_end"):
        replay(header(**RULES_A), LOG_A[:-1])


iB_second_road = find(LOG_B, lambda e: e["e"] == "build_road", nth=1)
iC_end = find(LOG_C, lambda e: e["e"] == "game_end")
iC_tile = find(LOG_C, lambda e: e["e"] == "longest_route")
CORRUPTIONS_BC = {
    "road through an opponent's settlement": (
        "B", lambda: edit(LOG_B, iB_second_road, edge=E((2, -2), (1, -1))), "road not connected"),
    "missing longest_route change": ("C", lambda: delete(LOG_C, iC_tile), "missing longest_route"),
    "longest_route to the wrong player": (
        "C", lambda: edit(LOG_C, iC_tile, p=1), "goes to red"),
    "longest_route with the wrong length": (
        "C", lambda: edit(LOG_C, iC_tile, length=6), "length is 5"),
    "longest_route change the rules do not give": (
        "C", lambda: insert(LOG_C, iC_tile - 1, {"e": "longest_route", "p": 0, "length": 4}),
        "unexpected longest_route"),
    "turn_limit before the cap": (
        "C", lambda: edit(LOG_C, iC_end, winner=None, reason="turn_limit"), "turn_limit only"),
}


@pytest.mark.parametrize("case", list(CORRUPTIONS_BC))
def test_corruptions_of_logs_b_and_c_are_rejected(case):
    which, make, rule = CORRUPTIONS_BC[case]
    hdr = header(max_turns=1) if which == "B" else header(**RULES_C)
    with pytest.raises(LogError, match=rule):
        replay(hdr, make())


def test_check_false_replays_a_corrupt_log():
    bad = edit(LOG_A, iA["t2_discard"], cards=[0, 0, 0, 1, 0])
    res = replay(header(**RULES_A), bad, check=False)
    assert res.winner == 0


def test_foreign_numbering_is_read_through_coordinates():
    """A writer with reversed node and edge numbering replays to the same final state."""
    hdr = header(**RULES_A)
    ours = replay(hdr, LOG_A)
    theirs = replay(*reversed_numbering(hdr, LOG_A))
    assert theirs.node_owner == ours.node_owner
    assert theirs.edge_owner == ours.edge_owner
    assert theirs.robber == ours.robber
    assert theirs.board == ours.board


# --- Longest Route helpers ------------------------------------------------------------

EN = T.EDGE_NODES.tolist()
H6 = (0, -1)
RING_H6 = [int(e) for e in range(72)
           if set(EN[e]) <= set(T.HEX_NODES[T.hex_index(*H6)].tolist())]


def test_ring_of_six_counts_six():
    assert len(RING_H6) == 6
    assert longest_trail(RING_H6, EN) == 6


def test_own_settlement_does_not_cut_but_opponent_settlement_does():
    corners = T.HEX_NODES[T.hex_index(*H6)].tolist()
    path = RING_H6[:]
    # Five roads of the ring (a path), blocked or not at an inner node.
    path5 = [e for e in path if set(EN[e]) != {corners[0], corners[5]}]
    assert longest_trail(path5, EN) == 5
    inner = corners[2]  # an inner node of the path corners[0] .. corners[5]
    assert longest_trail(path5, EN, blocked=set()) == 5  # own building: not passed in
    assert longest_trail(path5, EN, blocked={inner}) == 3  # cut into 2 + 3
    # A blocked end node does not shorten anything.
    assert longest_trail(path5, EN, blocked={corners[0]}) == 5


def test_branch_counts_only_the_longest_trail():
    # A path of 4 along H6, plus a 2-road branch off its second node.
    corners = T.HEX_NODES[T.hex_index(*H6)].tolist()
    path4 = [E2 for E2 in RING_H6 if set(EN[E2]) <= set(corners[:5])]
    assert longest_trail(path4, EN) == 4
    branch_node = corners[1]
    out = [e for e in T.NODE_EDGES[branch_node].tolist() if e >= 0 and e not in RING_H6][0]
    far = [n for n in EN[out] if n != branch_node][0]
    out2 = [e for e in T.NODE_EDGES[far].tolist() if e >= 0 and e != out][0]
    # 2 + 3 through the branch node beats 4: trail out2-out-(branch)-...-end = 2 + 3 = 5.
    assert longest_trail(path4 + [out, out2], EN) == 5
    # A single spur of 1 at the branch: max(4, 1 + 3) = 4.
    assert longest_trail(path4 + [out], EN) == 4


@pytest.mark.parametrize(
    "holder, lengths, expected",
    [
        (0, [5, 5, 0, 0], 0),  # D1: holder cut 7 -> 5, Q has 5: holder keeps
        (0, [4, 6, 6, 0], None),  # holder cut to 4, two at 6: supply
        (0, [4, 6, 0, 0], 1),  # holder cut to 4, Q alone at 6: Q
        (0, [4, 3, 0, 0], None),  # nobody at 5: supply
        (None, [5, 0, 0, 0], 0),  # first to 5
        (None, [4, 0, 0, 0], None),  # 4 is not enough
        (0, [6, 6, 0, 0], 0),  # equal length does not take it
        (0, [6, 7, 0, 0], 1),  # strictly longer does
        (None, [6, 6, 0, 0], None),  # a tie stays in the supply
        (0, [5, 6, 6, 0], None),  # holder no longer among the longest, longest tied
    ],
)
def test_longest_route_holder_rules(holder, lengths, expected):
    assert longest_route_holder(holder, lengths) == expected
