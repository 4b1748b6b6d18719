"""A rule switch at a turn: one rule set up to the end of turn T, another from T + 1 on.

Oracle: the step interface's fork. A game switched at T (``Rules.switched``) must be
the game played to T (``Game(..., to_turn=T)``), forked with the after-rules and
resumed: the same counters and the same events, whether the switched game is played
by the batch kernel, the logged single game, the step interface or ``GameBatch``. Up to
T it is the unswitched game, event for event. The log checker reads the switch from the
header: it accepts the switched logs and rejects a log whose events after T break the
after-rules (or whose header leaves the switch out). Bad switches are one-line errors.

Every rule that can switch is switched between every pair of its values (the robber's
and the shortage's six pairs, the discard limit, the target up and down, the turn cap),
each game checked by the plain checker and by what the new value means: a robber
switched off rests on the desert and blocks nothing, a lowered target is won on the
winner's own turn, the cap ends the game at the later of T and the new cap.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from cli_harness import run_main

from catansim.constants import DESERT, N_HEXES, TERRAIN_RESOURCE
from catansim.core import layout as L
from catansim.engine import batch_seeds, play_batch, play_game
from catansim.errors import CatansimError
from catansim.game import Game, GameBatch
from catansim.logs import LogError, event_rows_to_dicts, make_header, replay
from catansim.players.search import SearchPlayer
from catansim.rules import Rules
from catansim.runs.experiment import parse_experiment
from catansim.settings import GameSettings
from catansim.topology import T_HEX_NODES, TOPO

# (strategies, rules before, turn, settings after): every setting a switch may change.
CASES = [
    (("default",), Rules(), 30, {"robber": "off"}),
    (("default",), Rules(robber="off"), 20, {"robber": "official"}),
    (("default", "trader", "army", "random"), Rules(), 25, {"robber": "friendly",
                                                            "discard_limit": None}),
    (("builder", "expander", "city", "trader"), Rules(bank_per_resource=10), 15,
     {"shortage": "strict", "vp_to_win": 8}),
    (("random",), Rules(discard_limit=9), 40, {"discard_limit": 3, "shortage": "off"}),
    (("default",), Rules(), 30, {"max_turns": 35}),
    (("default",), Rules(max_turns=60), 12, {"max_turns": 12, "vp_to_win": 12}),
]
SEEDS = [int(s) for s in batch_seeds(36, 6)]


def _events(game) -> list:
    return game.result().events.tolist()


def _forked(seed, strategies, rules: Rules):
    """The oracle: played to the switch turn under the before-rules, forked, resumed."""
    before = Game(seed, strategies=strategies, rules=rules.before, to_turn=rules.switch_turn)
    return before.fork(rules=rules.rules_after).resume()


@pytest.mark.parametrize("strategies, before, turn, after", CASES)
def test_a_switched_game_is_the_game_forked_at_the_turn_with_the_after_rules(
        strategies, before, turn, after):
    rules = before.switched(turn, **after)
    settings = GameSettings(n_players=4, strategies=strategies, rules=rules)
    batch = play_batch(np.array(SEEDS, dtype=np.int64), settings, n_threads=1)
    changed = 0
    for i, seed in enumerate(SEEDS):
        oracle = _forked(seed, strategies, rules)
        logged = play_game(seed, settings=settings)
        stepped = Game(seed, settings=settings)
        assert logged.events.tolist() == _events(oracle) == _events(stepped)
        assert logged.counters.tolist() == oracle.result().counters.tolist() \
            == batch.counters[i].tolist()
        plain = play_game(seed, settings=GameSettings(n_players=4, strategies=strategies,
                                                      rules=before))
        # up to the end of the switch turn: the game under the before-rules, event for event
        cut = next(k for k, e in enumerate(plain.events.tolist())
                   if e[L.LOG_CODE] == L.EV_TURN_START and e[L.LOG_A] == turn + 1) \
            if plain.turns > turn else None
        if cut is not None:
            assert logged.events.tolist()[:cut] == plain.events.tolist()[:cut]
            changed += logged.events.tolist() != plain.events.tolist()
    assert changed > 0  # the switch changes games (the after-rules are in force)


def test_the_switch_turn_is_where_the_rules_change_and_the_dice_stay():
    rules = Rules().switched(30, robber="off")
    seed = SEEDS[0]
    switched = Game(seed, strategies=("default",), rules=rules)
    official = Game(seed, strategies=("default",))
    ev_s, ev_o = switched.events, official.events
    start = next(k for k, e in enumerate(ev_s) if e["e"] == "turn_start" and e["turn"] == 31)
    assert ev_s[:start] == ev_o[:start]
    assert any(e["e"] == "robber" for e in ev_s[:start])
    assert not any(e["e"] == "robber" for e in ev_s[start:])
    rolls = [[e["dice"] for e in ev[start:] if e["e"] == "roll"] for ev in (ev_s, ev_o)]
    n = min(map(len, rolls))
    assert n > 10 and rolls[0][:n] == rolls[1][:n]
    # the rules a player sees are the ones in force
    game = Game(seed, strategies=("default",), rules=rules, to_turn=30)
    assert game.observation(0).rules == Rules()
    assert game.fork().play_to(31).observation(0).rules == Rules(robber="off")


def test_a_batch_in_lockstep_switches_each_game_on_its_own():
    rules = Rules().switched(20, robber="off", vp_to_win=9)
    batch = GameBatch(SEEDS[:4], strategies=("default",), rules=rules, external=[1])
    while not batch.over:
        batch.choose(np.where(batch.counts > 0, 0, -1))
    for g, seed in enumerate(SEEDS[:4]):
        game = Game(seed, strategies=("default",), rules=rules, external=[1])
        while not game.over:
            game.step(game.legal()[0])
        assert batch.counters[g].tolist() == game.result().counters.tolist()


def _log(seed, rules, strategies=("default",)):
    g = play_game(seed, settings=GameSettings(n_players=4, strategies=strategies, rules=rules),
                  log=True)
    return (make_header(g.seed, g.n_players, g.strategies, g.rules, g.board),
            event_rows_to_dicts(g.events, g.n_players))


def test_the_checker_applies_the_after_rules_from_the_switch_on():
    for strategies, before, turn, after in CASES:
        rules = before.switched(turn, **after)
        for seed in SEEDS[:3]:
            header, events = _log(seed, rules, strategies)
            assert header["switch_turn"] == turn
            assert header["rules_after"] == rules.rules_after.to_header()
            json.dumps(header)
            result = replay(header, events, check=True)
            assert result.turns == play_game(seed, settings=GameSettings(
                n_players=4, strategies=strategies, rules=rules)).turns
    # a header without the switch keys is a game without a switch
    header, events = _log(SEEDS[0], Rules())
    assert "switch_turn" not in header and "rules_after" not in header
    replay(header, events, check=True)


def test_the_checker_rejects_events_that_break_the_after_rules():
    off = Rules().switched(30, robber="off")
    seed = next(s for s in SEEDS if Game(s, strategies=("default",)).turns > 40)
    header, events = _log(seed, off)
    # the switched game's events under a header without the switch: no robber after 30
    plain = {k: v for k, v in header.items() if k not in ("switch_turn", "rules_after")}
    with pytest.raises(LogError, match="robber"):
        replay(plain, events, check=True)
    # the official game's events under the switched header: robber moves after 30
    official_header, official_events = _log(seed, Rules())
    switched_header = {**official_header, "switch_turn": 30,
                       "rules_after": header["rules_after"]}
    with pytest.raises(LogError, match="robber"):
        replay(switched_header, official_events, check=True)
    # and the switch must be whole and keep the set-up's rules
    for bad, needle in [({"switch_turn": 30}, "rules_after"),
                        ({"switch_turn": 0, "rules_after": header["rules_after"]},
                         "switch_turn"),
                        ({"switch_turn": 30, "rules_after": {**header["rules_after"],
                                                             "first_pick": 1}},
                         "first_pick")]:
        with pytest.raises(LogError, match=needle):
            replay({**plain, **bad}, events, check=True)


def test_bad_switches_are_one_line_errors():
    cases = [
        (lambda: Rules(switch_turn=30), "rule rules_after: missing"),
        (lambda: Rules(rules_after=Rules()), "rule switch_turn: missing"),
        (lambda: Rules().switched(0, robber="off"), "rule switch_turn: 0 is out of range"),
        (lambda: Rules(max_turns=40).switched(40), "not before max_turns"),
        (lambda: Rules().switched(30, first_pick=1), "first_pick: cannot change mid-game"),
        (lambda: Rules().switched(30, first_turn=2), "first_turn: cannot change mid-game"),
        (lambda: Rules().switched(30, bank_per_resource=None), "bank_per_resource: cannot"),
        (lambda: Rules().switched(30, robbers="off"), "unknown rule"),
        (lambda: Rules(switch_turn=5, rules_after=Rules().switched(9)), "without a switch"),
        (lambda: Game(3, strategies=("default",), to_turn=5).fork(rules=Rules(first_turn=1)),
         "fork: rule first_turn: cannot change mid-game"),
        (lambda: Rules.from_cli([], None, ["robber=off"]), "--switch-rule: needs --switch-turn"),
        (lambda: Rules.from_cli([], 10, ["robber=x"]), "--switch-rule robber: 'x' is not"),
    ]
    for make, needle in cases:
        with pytest.raises(CatansimError, match=needle) as info:
            make()
        assert "\n" not in str(info.value)


def test_experiment_files_and_the_cli_carry_the_switch(tmp_path, capsys):
    exp = parse_experiment({
        "name": "x", "games": 4, "players": 4, "rules": {"discard_limit": 9},
        "switch": {"turn": 40, "robber": "off"},
        "variants": {"friendly": {"rules": {"robber": "friendly"}},
                     "own": {"switch": {"turn": 20, "vp_to_win": 8}},
                     "none": {"switch": "none"}}})
    rules = {v.name: v.rules for v in exp.variants}
    assert rules["baseline"] == Rules(discard_limit=9).switched(40, robber="off")
    assert rules["friendly"] == Rules(discard_limit=9, robber="friendly").switched(
        40, robber="off")
    assert rules["own"] == Rules(discard_limit=9).switched(20, vp_to_win=8)
    assert rules["none"] == Rules(discard_limit=9)
    assert exp.result_key()["variants"]["baseline"]["rules"]["switch_turn"] == 40
    assert "switch_turn" not in exp.result_key()["variants"]["none"]["rules"]
    log = tmp_path / "g.jsonl"
    code, out, err = run_main(["play", "--seed", SEEDS[1], "--strategies", "default",
                               "--switch-turn", 25, "--switch-rule", "robber=off",
                               "--log", log], capsys)
    assert code == 0, err
    header = json.loads(log.read_text().splitlines()[0])
    assert header["switch_turn"] == 25 and header["rules_after"]["robber"] == "off"
    code, out, err = run_main(["replay", log, "--quiet"], capsys)
    assert code == 0, err
    game = play_game(SEEDS[1], strategies=("default",),
                     rules=Rules().switched(25, robber="off"))
    written = [json.loads(line) for line in log.read_text().splitlines()[1:]]
    assert written == json.loads(json.dumps(event_rows_to_dicts(game.events, 4)))


# --- every rule that can switch, every pair of its values --------------------------------
#
# The reference for each pair is the plain log checker (catansim.logs), which replays the
# switched game's log under the header's switch with its own Python rules: production and
# the robber, the shortage modes, who discards, who wins and when, the turn cap. Beside it
# the fork of the game at the end of turn T under the after-rules (the definition of a
# switch) and a plain check of what each rule's new value means.

_ROBBERS = ("official", "off", "friendly")
_SHORTAGES = ("official", "strict", "off")
# (rule, value before, value after, strategies, other rules, switch turn)
PAIRS = (
    [("robber", a, b, ("default", "army", "trader", "city"), {}, 25)
     for a in _ROBBERS for b in _ROBBERS if a != b]
    + [("shortage", a, b, ("city", "builder", "default", "expander"),
        {"bank_per_resource": 8}, 20)
       for a in _SHORTAGES for b in _SHORTAGES if a != b]
    + [("discard_limit", a, b, ("default", "random", "trader", "city"), {}, 20)
       for a, b in ((7, None), (None, 7), (7, 3), (3, 12))]
    + [("vp_to_win", a, b, ("default",), {}, 30)
       for a, b in ((10, 7), (10, 12), (8, 10), (12, 9))]
    + [("max_turns", a, b, ("default",), {}, 30)
       for a, b in ((1000, 33), (40, 30), (40, 90))]
)
PAIR_SEEDS = [int(s) for s in batch_seeds(60, 12)]


def _pair_id(case):
    rule, a, b = case[:3]
    return f"{rule}-{a}-to-{b}"


def _seat_of_turn(rules: Rules, n: int, turn: int) -> int:
    return (rules.first_mover + turn - 1) % n


@pytest.mark.parametrize("case", PAIRS, ids=_pair_id)
def test_every_switch_pair_plays_the_state_at_the_turn_under_the_new_rule(case):
    rule, a, b, strategies, other, turn = case
    before = Rules.from_mapping({**other, rule: a})
    rules = before.switched(turn, **{rule: b})
    after = rules.rules_after
    settings = GameSettings(n_players=4, strategies=strategies, rules=rules)
    batch = play_batch(np.array(PAIR_SEEDS, dtype=np.int64), settings, n_threads=1)
    for i, seed in enumerate(PAIR_SEEDS):
        at_turn = Game(seed, strategies=strategies, rules=before, to_turn=turn)
        oracle = at_turn.fork(rules=after).resume()
        header, events = _log(seed, rules, strategies)
        assert [e for e in events] == oracle.events  # the switch is the fork at T
        assert batch.counters[i].tolist() == oracle.result().counters.tolist()
        game = replay(header, events, check=True)  # the plain rules, switch included
        if game.turns <= turn:
            continue  # over before the switch: nothing to compare after it
        snap = next(s for s in game.snapshots if s["turn"] == turn)
        ends = [e for e in events if e["e"] == "game_end"][-1]
        if rule == "robber" and b == "off":
            # the robber rests on the desert and blocks nothing from turn T + 1 on
            desert = int(np.flatnonzero(
                at_turn.s[L.S_HEX_TERRAIN:L.S_HEX_TERRAIN + N_HEXES] == DESERT)[0])
            assert snap["robber"] == desert
            blocked = at_turn.s[L.C_BLOCKED:L.C_BLOCKED + 4].tolist()
            assert oracle.s[L.C_BLOCKED:L.C_BLOCKED + 4].tolist() == blocked, seed
        if rule == "vp_to_win" and ends["reason"] == "win":
            # a win is always on the winner's own turn, under the rule in force then
            assert ends["winner"] == _seat_of_turn(rules, 4, ends["turn"])
            target = (b if ends["turn"] > turn else a)
            assert ends["vp"][ends["winner"]] >= target
            # whoever holds the new target at the end of turn T wins by their next turn
            at_target = [q for q in range(4) if snap["vp"][q] >= b]
            if at_target:
                first = min((q - _seat_of_turn(rules, 4, turn + 1)) % 4 for q in at_target)
                assert ends["turn"] <= turn + 1 + first
        if rule == "max_turns":
            cap = max(turn, b)
            assert ends["turn"] <= cap
            if ends["reason"] == "turn_limit":
                assert ends["turn"] == cap


def test_a_robber_switched_off_pays_the_hex_it_stood_on():
    # The symptom of the frozen robber: after the switch, a roll of the number of the
    # hex the robber held at the end of turn T pays its buildings (a plain count over
    # the log: the production event's gains include that hex's cards).
    rules = Rules().switched(30, robber="off")
    paid = 0
    for seed in PAIR_SEEDS + SEEDS:
        at_turn = Game(seed, strategies=("default",), rules=Rules(), to_turn=30)
        if at_turn.over:
            continue
        h = int(at_turn.s[L.S_ROBBER])
        number = int(at_turn.s[L.S_HEX_NUMBER + h])
        nodes = TOPO[T_HEX_NODES + 6 * h:T_HEX_NODES + 6 * h + 6]
        owners = [(int(at_turn.s[L.S_NODE_OWNER + n]), int(at_turn.s[L.S_NODE_LEVEL + n]))
                  for n in nodes]
        owners = [(q, lv) for q, lv in owners if lv > 0]
        if number == 0 or not owners:
            continue
        res = TERRAIN_RESOURCE[int(at_turn.s[L.S_HEX_TERRAIN + h])]
        header, events = _log(seed, rules)
        turn_now = 0
        for k, e in enumerate(events):
            if e["e"] == "turn_start":
                turn_now = e["turn"]
            if turn_now > 30 and e["e"] == "roll" and sum(e["dice"]) == number:
                prod = next(x for x in events[k:] if x["e"] == "production")
                if any(prod["withheld"]):
                    continue  # a shortage, not the robber, may withhold
                for q, level in owners:
                    assert prod["gains"][q][res] >= level, (seed, k)
                paid += 1
    assert paid > 0


def test_a_fork_turning_the_robber_off_rests_it_on_the_desert_and_not_mid_move():
    seed = SEEDS[2]
    game = Game(seed, strategies=("default",), to_turn=30)
    desert = int(np.flatnonzero(game.s[L.S_HEX_TERRAIN:L.S_HEX_TERRAIN + N_HEXES]
                                == DESERT)[0])
    calm = game.fork(rules=Rules(robber="off"))
    assert calm.observation(0).robber == desert
    assert game.fork(rules=Rules(robber="friendly")).observation(0).robber \
        == game.observation(0).robber  # only turning it off moves it
    # paused while the robber moves (an external seat at a robber decision)
    moving = Game(seed, strategies=("default",), external=[0, 1, 2, 3])
    while not moving.over and moving.decision != "robber hex":
        moving.step(moving.suggest())
    assert moving.decision == "robber hex"
    with pytest.raises(CatansimError, match="fork: rule robber: cannot turn off while") as e:
        moving.fork(rules=Rules(robber="off"))
    assert "\n" not in str(e.value)


def test_a_lowered_target_is_won_at_the_start_of_the_holders_next_turn():
    # vp_to_win lowered to 6 after turn 35: a player already at 6 (the checker's count,
    # hidden VP cards included) wins at the start of their own next turn, before any
    # other event of it, and nobody wins during another player's turn.
    rules = Rules().switched(35, vp_to_win=6)
    held = 0
    for seed in [int(s) for s in batch_seeds(61, 40)]:
        header, events = _log(seed, rules)
        game = replay(header, events, check=True)
        end = events[-1]
        assert end["e"] == "game_end"
        if game.turns <= 35:
            continue
        snap = next(s for s in game.snapshots if s["turn"] == 35)
        holders = [q for q in range(4) if snap["vp"][q] >= 6]
        assert end["reason"] == "win" and end["winner"] == _seat_of_turn(rules, 4, end["turn"])
        if not holders:
            continue
        held += 1
        first = min(holders, key=lambda q: (q - _seat_of_turn(rules, 4, 36)) % 4)
        assert end["turn"] <= 36 + (first - _seat_of_turn(rules, 4, 36)) % 4
        if end["winner"] in holders:
            assert events[-2] == {"e": "turn_start", "p": end["winner"], "turn": end["turn"]}
    assert held >= 10  # the case is exercised


def _paused_at(seed, rules, turn, seat=0):
    """A game of four ``default`` paused at seat's first decision after ``turn`` starts."""
    game = Game(seed, strategies=("default",), rules=rules, external=[seat], log=False)
    while game.observation(seat).turn <= turn:
        game.step(game.suggest())
    return game


def _finished(game):
    """The game played to its end, every seat's suggestion taken: its counters."""
    while not game.over:
        game.step(game.suggest())
    return game.result().counters.tolist()


def test_rollouts_and_determinize_play_under_the_rules_in_force():
    # A player's look-ahead knows the rules as its observation shows them: a pending
    # switch is the experimenter's, not announced. Oracle: the same position in a game
    # with no switch at all (before it, the unswitched game; after it, a fork with the
    # after-rules).
    rules = Rules().switched(20, robber="off")
    seeds = np.arange(8, dtype=np.int64)
    choices = np.full(8, -1, dtype=np.int64)
    for seed in SEEDS[:2]:
        switched, plain = (_paused_at(seed, r, 10) for r in (rules, Rules()))
        assert switched.s.tolist() == plain.s.tolist()
        for information in ("public", "omniscient"):
            assert switched.rollouts(0, choices, seeds, "default", information).tolist() \
                == plain.rollouts(0, choices, seeds, "default", information).tolist()
        told = switched.determinize(0, 5)
        assert told.rules == Rules()
        assert _finished(told) == _finished(plain.determinize(0, 5))
        later = _paused_at(seed, rules, 25)
        after = later.fork(rules=Rules(robber="off"))
        assert later.rollouts(0, choices, seeds, "default").tolist() \
            == after.rollouts(0, choices, seeds, "default").tolist()
        assert later.determinize(0, 5).rules == Rules(robber="off")
    # and the switch is still played by the game itself, after the rollouts
    assert _finished(switched) != _finished(plain)


def test_a_search_player_plays_a_switched_game_as_the_unswitched_one_up_to_the_switch():
    # The search player looks ahead by rollouts to the game's end; told of a switch it
    # would play otherwise before it, and a switched experiment's arms would not be the
    # same games up to the switch turn (docs/experiments.md).
    turn = 12
    differ = 0
    for seed in SEEDS[:2]:
        events = []
        for r in (Rules().switched(turn, robber="off"), Rules()):
            seats = (SearchPlayer(budget=8, seed=1), "default", SearchPlayer(budget=8, seed=2),
                     "default")
            events.append(play_game(seed, settings=GameSettings(
                n_players=4, strategies=seats, rules=r)).events.tolist())
        cut = next(k for k, e in enumerate(events[1])
                   if e[L.LOG_CODE] == L.EV_TURN_START and e[L.LOG_A] == turn + 1)
        assert events[0][:cut] == events[1][:cut]
        differ += events[0] != events[1]
    assert differ > 0
