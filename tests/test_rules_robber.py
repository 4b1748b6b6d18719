"""Rolling a 7, the robber and its variants (summary section 6; FAQ 2, 8, 53-62, 63).

The robber's hex and victim are chosen by the random strategy from the game's
streams; the tests assert what the rules force whatever the choice, and use
several seeds where the choice matters.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import KNIGHT, TOPO, Game, H, bundle, hex_nodes

from catansim.core import layout as L
from catansim.core.rules_nb import robber_hex_mask_nb, victims_nb
from catansim.rules import Rules

DESERT = H(0, 0)  # h9, where the robber starts
HILLS6 = H(0, -1)  # h4


def mask_of(g):
    mask = np.zeros(19, dtype=np.uint8)
    count = robber_hex_mask_nb(g.s, TOPO, g.rules, mask)
    assert count == mask.sum()
    return mask


def victims_of(g, p, h):
    out = np.zeros(4, dtype=np.int32)
    k = victims_nb(g.s, TOPO, p, h, out)
    return sorted(out[:k].tolist())


# --- discards ----------------------------------------------------------------------------


def _hands_for_seven(rules):
    g = Game(rules=rules)
    g.set_hand(0, bundle(2, 2, 2, 1, 1))  # 8 cards, the roller
    g.set_hand(1, bundle(5, 0, 0, 4, 0))  # 9
    g.set_hand(2, bundle(1, 1, 1, 2, 2))  # 7
    g.set_hand(3, bundle(0, 3, 0, 0, 0))  # 3
    return g


def _sizes(g):
    return [sum(g.hand(p)) for p in range(g.n)]


def _discards(g):
    return {e["p"]: sum(e["cards"]) for e in g.events() if e["e"] == "discard"}


@pytest.mark.parametrize("seed", range(5))
def test_seven_discards_half_rounded_down_above_the_limit_only(seed):
    """9 cards -> discard 4, 8 -> 4, 7 and 3 keep all (the roller too)."""
    g = _hands_for_seven(Rules(robber="off"))
    g.rng[:] = np.arange(8, dtype=np.uint64) * np.uint64(977) + np.uint64(seed)
    before = [g.hand(p) for p in range(4)]
    g.seven()
    assert _discards(g) == {0: 4, 1: 4}
    assert _sizes(g) == [4, 5, 7, 3]
    for p in (0, 1):  # only cards the player held
        assert all(a <= b for a, b in zip(g.hand(p), before[p], strict=True))
    assert g.violations() == 0


def test_discard_limit_none_means_no_discards():
    g = _hands_for_seven(Rules(robber="off", discard_limit=None))
    g.seven()
    assert _discards(g) == {} and _sizes(g) == [8, 9, 7, 3]


def test_other_discard_limit():
    g = _hands_for_seven(Rules(robber="off", discard_limit=3))
    g.seven()
    assert _discards(g) == {0: 4, 1: 4, 2: 3}
    assert _sizes(g) == [4, 5, 4, 3]


def test_knight_never_causes_discards():
    """FAQ 2: Q holds 9 when a knight is played -> Q loses at most the stolen card."""
    for seed in range(10):
        g = _hands_for_seven(Rules())
        g.rng[:] += np.uint64(seed)
        g.give_dev(0, KNIGHT)
        g.play_dev(KNIGHT)
        assert _discards(g) == {}
        sizes = _sizes(g)
        assert sizes[1] >= 8 and sizes[2] >= 6 and sizes[3] >= 2
        assert sum(sizes) == 27 and sizes[0] in (8, 9)
        assert g.violations() == 0


# --- where the robber may go ----------------------------------------------------------------


def test_robber_must_move_to_a_different_hex_desert_and_own_hex_allowed():
    """FAQ 54, 56, 57: any hex but the current one."""
    g = Game()
    g.settle(0, hex_nodes(HILLS6)[0])
    assert mask_of(g).tolist() == [0 if h == DESERT else 1 for h in range(19)]
    g.s[L.S_ROBBER] = HILLS6  # the roller's own hex, now occupied
    m = mask_of(g)
    assert m[HILLS6] == 0 and m[DESERT] == 1 and m.sum() == 18


@pytest.mark.parametrize("seed", range(8))
def test_seven_and_knight_always_move_the_robber(seed):
    """FAQ 8, 54: the robber event names a new hex each time."""
    g = Game(seed=seed)
    g.give_dev(0, KNIGHT)
    start = int(g.s[L.S_ROBBER])
    g.seven()
    after_seven = int(g.s[L.S_ROBBER])
    assert after_seven != start
    g.play_dev(KNIGHT)  # FAQ 59: a knight after a rolled 7 in the same turn
    assert int(g.s[L.S_ROBBER]) != after_seven
    hexes = [e["hex"] for e in g.events() if e["e"] == "robber"]
    assert hexes == [after_seven, int(g.s[L.S_ROBBER])]


def test_victims_are_opponents_with_a_building_on_the_hex():
    """FAQ 58, 61, 63: never the roller, only players touching the hex, each once."""
    g = Game()
    a, b, c, d, e, f = hex_nodes(HILLS6)
    g.settle(0, a)
    g.settle(1, c)
    g.settle(1, e, city=True)
    g.settle(3, hex_nodes(H(2, 0))[0])  # elsewhere
    assert victims_of(g, 0, HILLS6) == [1]
    assert victims_of(g, 1, HILLS6) == [0]
    assert victims_of(g, 2, HILLS6) == [0, 1]
    assert victims_of(g, 0, H(0, 2)) == []


def _steal_until(target_hex, victim_hand, victim_devs=0):
    """Play 7s on fresh positions until the robber lands on ``target_hex``."""
    for seed in range(400):
        g = Game(seed=seed)
        g.settle(1, hex_nodes(HILLS6)[2])
        g.set_hand(1, victim_hand)
        if victim_devs:
            g.give_dev(1, KNIGHT, victim_devs)
        g.set_hand(0, bundle(0, 0, 0, 0, 1))
        g.seven()
        ev = [e for e in g.events() if e["e"] == "robber"][0]
        if ev["hex"] == target_hex:
            return g, ev
    raise AssertionError("robber never landed there")


def test_steal_takes_one_card_from_the_victim():
    g, ev = _steal_until(HILLS6, bundle(wool=2, wheat=1))
    assert ev["victim"] == 1 and ev["stolen"] in ("wool", "wheat")
    assert sum(g.hand(1)) == 2 and sum(g.hand(0)) == 2
    assert g.violations() == 0


def test_empty_handed_victim_yields_nothing():
    """FAQ 62."""
    g, ev = _steal_until(HILLS6, bundle())
    assert ev["victim"] == 1 and ev["stolen"] is None
    assert g.hand(0) == bundle(ore=1)


def test_robber_cannot_steal_development_cards():
    """FAQ 60: the victim holds only development cards."""
    g, ev = _steal_until(HILLS6, bundle(), victim_devs=2)
    assert ev["stolen"] is None and g.dev_hand(1)[KNIGHT] == 2


def test_robber_to_the_desert_steals_nothing():
    """FAQ 56."""
    for seed in range(400):
        g = Game(seed=seed)
        g.s[L.S_ROBBER] = HILLS6
        g.settle(1, hex_nodes(DESERT)[0])
        g.set_hand(1, bundle(wood=3))
        g.seven()
        ev = [e for e in g.events() if e["e"] == "robber"][0]
        if ev["hex"] == DESERT:
            # seat 1 touches the desert, so it may be robbed there too
            assert ev["victim"] in (None, 1)
            return
    raise AssertionError


# --- friendly robber, robber off ----------------------------------------------------------


def test_friendly_robber_avoids_hexes_of_players_with_two_or_fewer_visible_vp():
    g = Game(rules=Rules(robber="friendly"))
    weak = [hex_nodes(HILLS6)[0], hex_nodes(H(2, 0))[0]]  # seat 1: 2 VP
    for n in weak:
        g.settle(1, n)
    strong = [hex_nodes(H(-2, 2))[0], hex_nodes(H(0, 2))[2], hex_nodes(H(-2, 0))[4]]
    for n in strong:  # seat 2: 3 VP
        g.settle(2, n)
    g.give_dev(1, 1, 3)  # hidden VP cards do not protect (visible VP only)
    banned = {int(h) for n in weak for h in TOPO_NODE_HEXES(n)}
    m = mask_of(g)
    for h in range(19):
        assert m[h] == (0 if h in banned or h == DESERT else 1), h
    for seed in range(20):  # the kernel obeys the mask
        g2 = Game(rules=Rules(robber="friendly"), seed=seed)
        g2.s[:] = g.s
        g2.seven()
        assert int(g2.s[L.S_ROBBER]) not in banned


def test_friendly_robber_goes_anywhere_when_every_other_hex_is_protected():
    """'unless no other hex is possible': 8 settlements of 2-VP players touch all 18 hexes
    besides the desert."""
    g = Game(rules=Rules(robber="friendly"))
    nodes = [2, 7, 13, 15, 28, 31, 44, 45]
    for i, n in enumerate(nodes):
        g.settle(i // 2, n)
    assert g.violations() == 0
    touched = {int(h) for n in nodes for h in TOPO_NODE_HEXES(n)} - {DESERT}
    assert len(touched) == 18
    m = mask_of(g)
    assert m.sum() == 18 and m[DESERT] == 0
    # seat 3 reaches 3 VP: the hexes touching only seat 3 become the only targets
    g.settle(3, 51)
    weak_hexes = {h for i, n in enumerate(nodes[:6]) for h in TOPO_NODE_HEXES(n)}
    expected = set(range(19)) - weak_hexes - {DESERT}
    assert expected  # e.g. h16 at the bottom left
    m = mask_of(g)
    assert {h for h in range(19) if m[h]} == expected


def test_robber_off_never_moves_but_sevens_still_discard():
    g = _hands_for_seven(Rules(robber="off"))
    g.seven()
    assert int(g.s[L.S_ROBBER]) == DESERT
    assert not [e for e in g.events() if e["e"] == "robber"]
    assert _discards(g) == {0: 4, 1: 4}


def test_robber_off_knight_counts_but_moves_nothing():
    g = Game(rules=Rules(robber="off"))
    g.give_dev(0, KNIGHT)
    g.set_hand(1, bundle(wood=3))
    g.play_dev(KNIGHT)
    assert g.s[L.S_KNIGHTS] == 1 and int(g.s[L.S_ROBBER]) == DESERT
    assert g.hand(1) == bundle(wood=3)
    assert [e["e"] for e in g.events()] == ["play_dev"]


def TOPO_NODE_HEXES(n):
    from catansim import topology as T

    return [h for h in T.NODE_HEXES[n].tolist() if h >= 0]


def test_topo_helper_consistent():
    assert TOPO.shape[0] > 0
