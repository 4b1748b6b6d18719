"""Trade answers that weigh both sides, and trading down before a 7, on hand-built positions.

Oracles: the chance of the first 7 in closed form (``discard_risk``); hands chosen so
that the old answer and the weighed one must differ, and a hand whose 7 costs more
than the development card that saves it; ``plan_nb``'s own scores for the value a
weighed answer computes without writing a plan. ``tests/test_reference_players.py`` checks
the same decisions against the reference in played games.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import TOPO, Game, H, hex_nodes, trade_position

from catansim.constants import N_DEV_CARDS
from catansim.core import layout as L
from catansim.core.actions_nb import ACT_BUY_DEV, ACT_END, ACT_SIZE, ACT_TRADE_PLAYER
from catansim.core.policy_nb import accept_trade_nb, choose_action_nb
from catansim.core.scripted.decisions_nb import discard_risk_nb
from catansim.core.scripted.plan_nb import build_weights_nb, plan_nb
from catansim.core.scripted.trade_nb import plan_value_nb
from catansim.core.scripted.work_nb import WORK_SIZE, X_SCORE
from catansim.engine import play_game
from catansim.rules import Rules
from catansim.strategies import make_strategy, resolve

WEIGHER = dict(answer_weigh=1.0, answer_cards=0.4, answer_lead=0.0)


def prm(**over):
    """A row of ``classic`` (none of issue #51's decisions on) with ``over`` set."""
    return make_strategy("t", {"base": "classic", **over}).params


def sid():
    return resolve("classic").sid


@pytest.mark.parametrize("n_players", [3, 4])
def test_discard_risk_is_the_first_sevens_chance_times_half_the_hand(n_players):
    g = Game(n_players)  # no buildings: no production, the hand stays as it is
    first = [(5 / 6) ** j / 6 for j in range(n_players)]
    for cards in range(0, 16):
        want = sum(first) * (cards // 2) if cards > 7 else 0.0
        assert discard_risk_nb(g.s, g.rules, 0, cards) == pytest.approx(want, abs=1e-12)
    no_limit = Rules(discard_limit=None).to_array()
    assert discard_risk_nb(g.s, no_limit, 0, 15) == 0.0


def test_discard_risk_counts_the_cards_production_brings_before_the_seven():
    g = Game()
    g.settle(0, hex_nodes(H(0, 1))[0], city=True)
    g.settle(0, hex_nodes(H(1, -1))[3], city=True)
    per_roll = int(g["prod_pips"][:5].sum()) / 36.0
    assert per_roll > 1 / 3
    cards = 7
    want = sum((5 / 6) ** j / 6 * (int(cards + j * per_roll) // 2)
               for j in range(4) if int(cards + j * per_roll) > 7)
    assert want > 0  # 7 cards now, over the limit by the later rolls
    assert discard_risk_nb(g.s, g.rules, 0, cards) == pytest.approx(want, abs=1e-12)


def _partner_lacking_wool():
    # Seat 0 (whose turn it is) offers to seat 1, which lacks only wool for a settlement.
    g = trade_position()
    g.set_hand(0, [0, 0, 1, 1, 0])
    return g


def _answer(g, params, give, get):
    act = Game.action(ACT_TRADE_PLAYER, 1, give=give, get=get)
    return accept_trade_nb(sid(), params, g.s, TOPO, g.rules, g.rng, g.work, 1, 0, act)


def test_the_weighed_answer_refuses_one_card_for_two_that_the_old_one_accepts():
    g = _partner_lacking_wool()
    wool, two_ore = [0, 0, 1, 0, 0], [0, 0, 0, 0, 2]
    assert _answer(g, prm(), wool, two_ore)  # its settlement comes closer: yes
    # Weighed: the settlement (+0.5) does not pay for the net card it loses (0.4) and
    # the net card the offerer gains (0.4).
    assert not _answer(g, prm(**WEIGHER), wool, two_ore)
    # One for one, or two for one, it pays.
    assert _answer(g, prm(**WEIGHER), wool, [0, 0, 0, 0, 1])
    assert _answer(g, prm(**WEIGHER), [0, 0, 1, 1, 0], [0, 0, 0, 0, 1])


def test_the_weighed_answer_counts_the_offerers_plan_and_points():
    g = _partner_lacking_wool()
    wool, ore = [0, 0, 1, 0, 0], [0, 0, 0, 0, 1]
    assert _answer(g, prm(**WEIGHER), wool, ore)
    # The offerer, one ore from a city by the public record, gains as much as the
    # partner (each +0.5): accepted only while the offerer's gain weighs less ...
    g.settle(0, hex_nodes(H(1, 0))[0])
    g.set_hand(0, [0, 0, 1, 2, 2])
    assert _answer(g, prm(**{**WEIGHER, "answer_weigh": 0.9}), wool, ore)
    assert not _answer(g, prm(**WEIGHER), wool, ore)
    # ... and the offerer's visible point (its settlement) makes it weigh more.
    assert not _answer(g, prm(**{**WEIGHER, "answer_weigh": 0.9, "answer_lead": 0.5}),
                       wool, ore)


def test_a_hands_value_from_its_seats_weights_is_the_top_score_plan_nb_writes():
    # A weighed answer makes each seat's build weights once and values two hands with
    # them (``plan_value_nb``); ``plan_nb`` makes the weights for every plan and writes
    # every build's score. Both on mid-game states, every seat, random hands and Knights.
    rng = np.random.default_rng(51)
    x = np.zeros(WORK_SIZE)
    rows = [resolve(name).params for name in ("default", "classic", "city", "army")]
    compared = wanted_none = 0
    for i in range(9):
        s = play_game(700 + i, 4, strategies=["default"], log=False,
                      rules=Rules(max_turns=(6, 20, 45)[i % 3])).state.copy()
        for row in rows:
            for p in range(4):
                for _ in range(8):
                    s[L.S_VIEW:L.S_VIEW + 5] = rng.integers(0, 5, 5)
                    knights = int(rng.integers(0, 3))
                    top = plan_nb(s, TOPO, row, p, x, L.S_VIEW, knights)
                    want = x[X_SCORE + top] if top >= 0 else 0.0
                    weights = build_weights_nb(s, row, p, knights)
                    assert plan_value_nb(s, row, L.S_VIEW, *weights) == want
                    compared += 1
                    wanted_none += top < 0
    assert compared == 9 * 4 * 4 * 8 and wanted_none == 0


def test_the_weighed_answer_refuses_when_the_partner_wants_no_build():
    # Two cards for one pay the partner a card (answer_cards), but with no road piece
    # left, no settlement spot, no settlement to make a city of and an empty deck it
    # wants no build at all, and the rule refuses every offer then (its own plan's top
    # is None), as the unweighed answer does.
    g = _partner_lacking_wool()
    two, ore = [0, 0, 1, 1, 0], [0, 0, 0, 0, 1]
    assert _answer(g, prm(**WEIGHER), two, ore)
    g.s[L.S_ROADS_LEFT + 1] = 0
    g.s[L.S_OPEN_SPOTS + 1] = 0
    g.s[L.S_CITIES_LEFT + 1] = 0
    assert _answer(g, prm(**WEIGHER), two, ore)  # a development card is still wanted
    g.s[L.S_DECK_POS] = N_DEV_CARDS
    assert not _answer(g, prm(**WEIGHER), two, ore)
    assert not _answer(g, prm(), two, ore)


def _sitting_on_eight():
    # Seat 0 holds 8 cards: its city lacks one ore and nobody holds ore; a development
    # card is in reach only with the city's wheat and ore, and no maritime trade helps.
    g = Game()
    g.settle(0, hex_nodes(H(1, 0))[0])
    g.set_hand(0, [0, 0, 3, 3, 2])
    for q in (1, 2, 3):
        g.set_hand(q, [1, 1, 1, 0, 0])
    return g


def _action(g, params):
    act = np.zeros(ACT_SIZE, dtype=np.int32)
    choose_action_nb(sid(), params, g.s, TOPO, g.rules, g.rng, g.work, 0, act,
                     np.zeros(512, dtype=np.int32))
    return int(act[0])


def test_a_hand_exposed_to_a_seven_buys_a_card_with_the_citys_cards():
    g = _sitting_on_eight()
    risk = discard_risk_nb(g.s, g.rules, 0, 8)
    assert risk > 2.0 and discard_risk_nb(g.s, g.rules, 0, 5) == 0.0
    assert _action(g, prm()) == ACT_END  # classic sits on its cards
    # The card saves `risk` cards and sets the city back by one (its ore): bought
    # when hand_guard x risk > 1.
    assert _action(g, prm(hand_guard=1.0)) == ACT_BUY_DEV
    assert _action(g, prm(hand_guard=0.9 / risk)) == ACT_END
    # Without the 7's threat (no discard limit) it keeps its cards.
    g.rules = Rules(discard_limit=None).to_array(check=True)
    assert _action(g, prm(hand_guard=1.0)) == ACT_END


def test_trading_down_keeps_the_cards_it_needs_when_the_hand_is_safe():
    g = _sitting_on_eight()
    g.set_hand(0, [0, 0, 1, 2, 2])  # 5 cards: no 7 can take any before its next turn
    assert discard_risk_nb(g.s, g.rules, 0, 5) == 0.0
    assert _action(g, prm(hand_guard=5.0)) == ACT_END
