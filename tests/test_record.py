"""The public record (``core.record_nb``): what each player can know of every hand.

- A plain replay of the game log (``logs.record``, written from the record's definition)
  gives the kernel's record at the end of every game, observer by observer, over rule settings
  and strategies (the oracle, as the log checker is for the rules).
- The record never contradicts a hand: ``count_violations_nb`` checks it after every
  step of the random-play and strategy invariant suites (``test_invariants.py``,
  ``test_strategy_invariants.py``); here also at the end of games of every setting.
- Without a steal every record is exact; a steal is seen exactly by thief and victim
  only, and the hand sizes narrow what the others know (hand-built positions).
"""

from __future__ import annotations

import pytest
from helpers import BRICK, ORE, WOOL, Game, bundle, seen_record

from catansim.core import layout as L
from catansim.core.record_nb import seen_steal_nb
from catansim.engine import play_game
from catansim.logs import event_rows_to_dicts
from catansim.logs.record import PlainRecord
from catansim.rules import Rules


def kernel_record(state, n):
    """The engine's record as [observer][seat][resource] lists of low and high ends."""
    pairs = [[seen_record(state, o, q) for q in range(n)] for o in range(n)]
    return ([[lo for lo, _ in row] for row in pairs], [[hi for _, hi in row] for row in pairs])


SETTINGS = [
    (4, ["random"], {}),
    (4, ["default"], {}),
    (3, ["army", "trader", "default"], {}),
    (4, ["default", "random", "city", "trader"], {"robber": "friendly"}),
    (4, ["default"], {"bank_per_resource": 4, "shortage": "strict"}),
    (3, ["random"], {"discard_limit": 3, "first_pick": 1}),
    (4, ["army"], {"robber": "off"}),
    (4, [{"base": "default", "information": "omniscient"}], {"bank_per_resource": None}),
]


def _strategies(spec):
    from catansim.strategies import PRESETS

    if isinstance(spec[0], dict):
        return ["custom"], PRESETS.with_definitions({"custom": spec[0]})
    return spec, PRESETS


@pytest.mark.parametrize("n, spec, rules", SETTINGS)
def test_the_record_equals_a_plain_replay_of_the_log(n, spec, rules):
    strategies, strategy_set = _strategies(spec)
    steals = 0
    for seed in range(40):
        g = play_game(seed, n, strategies=strategies, rules=Rules(**rules), log=True,
                      strategy_set=strategy_set)
        events = event_rows_to_dicts(g.events, n)
        plain = PlainRecord(n)
        for ev in events:
            plain.apply(ev)
        steals += sum(1 for ev in events if ev["e"] == "robber" and ev["stolen"] is not None)
        low, high = kernel_record(g.state, n)
        assert (low, high) == (plain.low, plain.high), seed
        hands = g.field("hand").reshape(4, 5)[:n].tolist()
        assert plain.hands == hands
        for o in range(n):
            for q in range(n):
                for r in range(5):
                    assert low[o][q][r] <= hands[q][r] <= high[o][q][r]
                if o == q:
                    assert low[o][q] == hands[q] == high[o][q]
    if rules.get("robber") != "off":
        assert steals > 0  # the settings exercise the hidden steals


def test_without_a_steal_every_record_is_exact():
    exact = 0
    for seed in range(30):
        g = play_game(seed, 4, strategies=["default"], rules=Rules(robber="off"), log=False)
        low, high = kernel_record(g.state, 4)
        assert low == high
        exact += 1
    assert exact == 30


def test_a_steal_is_seen_by_thief_and_victim_only():
    g = Game(n_players=4)
    g.set_hand(1, bundle(wood=2, ore=1))
    g.set_hand(0, bundle(wheat=1))
    g.s[L.S_HAND + 5 * 1 + ORE] -= 1
    g.s[L.S_HAND + 5 * 0 + ORE] += 1
    seen_steal_nb(g.s, 0, 1, ORE)
    assert g.violations() == 0
    for o in (0, 1):  # thief and victim: exact
        assert g.seen(o, 1) == ([2, 0, 0, 0, 0], [2, 0, 0, 0, 0])
        assert g.seen(o, 0) == ([0, 0, 0, 1, 1], [0, 0, 0, 1, 1])
    for o in (2, 3):
        # the victim kept 2 of its 3 cards (wood 2, ore 1): at least 1 wood, at most 2
        # wood and at most 1 ore; the thief's new card was wood or ore
        assert g.seen(o, 1) == ([1, 0, 0, 0, 0], [2, 0, 0, 0, 1])
        assert g.seen(o, 0) == ([0, 0, 0, 1, 0], [1, 0, 0, 1, 1])


def test_hand_sizes_fix_a_stolen_card_when_the_victim_held_one_kind():
    g = Game(n_players=3)
    g.set_hand(2, bundle(brick=3))
    g.s[L.S_HAND + 5 * 2 + BRICK] -= 1
    g.s[L.S_HAND + 5 * 1 + BRICK] += 1
    seen_steal_nb(g.s, 1, 2, BRICK)
    assert g.violations() == 0
    # seat 0 did not see the card, but the victim held only brick
    assert g.seen(0, 1) == ([0, 1, 0, 0, 0], [0, 1, 0, 0, 0])
    assert g.seen(0, 2) == ([0, 2, 0, 0, 0], [0, 2, 0, 0, 0])


def test_public_events_keep_the_record_of_every_observer():
    g = Game(n_players=4)
    g.set_hand(0, bundle(wood=1, brick=1, wool=1, wheat=1, ore=4))
    g.set_hand(2, bundle(wool=2))
    g.apply(g.action(7, 2, give=bundle(ore=1), get=bundle(wool=1)))  # player trade
    if g.hand(0)[WOOL] == 2:  # the random partner accepted
        for o in range(4):
            assert g.seen(o, 2) == ([0, 0, 1, 0, 1], [0, 0, 1, 0, 1])
    g.apply(g.action(4))  # a development card: wool, wheat and ore to the supply
    for o in range(4):
        low, high = g.seen(o, 0)
        assert low == high == g.hand(0)
    assert g.violations() == 0
