"""A position of a game log as a game (``Game.from_log``), against the game that wrote it.

- At the last event the loaded state is the final state of the game that wrote the log,
  field by field (every named state field a log determines), over rule settings,
  strategies and player counts; the state comes from the checker's replay of the log,
  not from the engine.
- At positions through a game (set-up, mid-turn, between turns), the loaded game stands
  at the decision the writing game stood at, with the same state; given the writing
  game's random streams (and the order of its undrawn cards and its refused offers,
  which a log cannot say), it plays the rest of the logged game event for event.
- At every event between decisions too (the first 500 and last 30 of random players'
  games), the loaded game stands where the writing game stood at its next decision.
- A hand-written log in another writer's numbering loads the same position as ours; a
  hand-written position has the hands and public records worked out by hand.
- A malformed or illegal log is the checker's one-line ``LogError``; ``at`` out of range
  a one-line error naming it and what is allowed; ``at=-1`` is the game's start.
- ``positions`` (several positions in one replay) gives what ``from_log`` loads.
- A loaded game passes the kernel's invariant checker (rules ``check=1``), and can be
  determinized and played to the end.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest
from helpers import reversed_numbering
from test_invariants import CONFIGS
from test_replay import LOG_A, RULES_A
from test_replay import header as beginner_header

from catansim.core import layout as L
from catansim.core.checker_nb import count_violations_nb
from catansim.core.rules_nb import route_length_nb
from catansim.errors import CatansimError
from catansim.game import FROM_LOG_UNCOUNTED, Game
from catansim.logs import LogError, game_log, write_log
from catansim.logs.position import positions
from catansim.rules import Rules
from catansim.settings import GameSettings
from catansim.topology import TOPO

# Fields a log cannot say: the log buffer, the external seats, scratch, the first
# illegal choice, the offers refused and the actions of a turn (its engine bound), and
# the log row of the card being played; the undrawn deck's order is compared as a count.
NOT_IN_A_LOG = {"log_len", "log_on", "log_overflow", "external", "offers", "actions",
                "dev_event", "route_stack", "route_marks", "view", "illegal_turn",
                "illegal_seat", "illegal_decision", "illegal_value", "deck",
                *FROM_LOG_UNCOUNTED}
SETTINGS = [  # (CONFIGS name, strategies)
    ("official-4", ("default",)),
    ("official-3", ("default", "trader", "army")),
    ("friendly-3", ("builder", "expander", "city")),
    ("first-pick-1-turn-0-3", ("random",)),
    ("strict-bank6-4", ("default", "trader", "army", "random")),
    ("unlimited-nodiscard-4", ("city",)),
    ("beginner-vp6-3", ("default",)),
    ("vp3-cap20-3", ("random",)),
    ("cap1-4", ("default",)),
    ("switch-4", ("default", "trader")),
]


# A rule switch mid-game (its after-rules turn the robber off and lower the target).
SWITCHED = Rules().switched(12, robber="off", vp_to_win=8)


def settings_of(name, strategies):
    n, layout, rules, _ = CONFIGS[name] if name != "switch-4" else (4, "variable", {}, 0)
    names = (strategies * 4)[:n]
    rules = SWITCHED if name == "switch-4" else Rules(**rules)
    return GameSettings(n_players=n, strategies=names, layout=layout, rules=rules)


def differences(ours: np.ndarray, theirs: np.ndarray) -> list[str]:
    """The named state fields a log determines in which two states differ."""
    out = []
    for name, width, _ in L.STATE_FIELDS:
        if name in NOT_IN_A_LOG:
            continue
        off = L.STATE_OFFSETS[name]
        if not np.array_equal(ours[off : off + width], theirs[off : off + width]):
            out.append(f"{name}: {ours[off : off + width].tolist()} != "
                       f"{theirs[off : off + width].tolist()}")
    drawn = int(ours[L.S_DECK_POS])
    a, b = ours[L.S_DECK : L.S_DECK + 25], theirs[L.S_DECK : L.S_DECK + 25]
    if not (np.array_equal(a[:drawn], b[:drawn])
            and sorted(a[drawn:].tolist()) == sorted(b[drawn:].tolist())):
        out.append("deck: the cards drawn, or the undrawn ones' kinds, differ")
    return out


def suggested_game(seed, settings, keep):
    """The game of ``seed`` with every seat external taking its strategy's suggestion
    (``play_game``'s game), and at its i-th decision for each i that ``keep(i)`` its
    events so far and a fork of it: the decisions that come first after an event (not
    a robber's victim after its hex, an answer to an offer or the action after a
    refused one, nor Invention's cards or Monopoly's resource, which its ``play_dev``
    event gives: a log does not stand there)."""
    game = Game(seed, settings=settings, external=range(settings.n_players))
    stops, i, last = [], 0, 0
    while not game.over:
        m = int(game.s[L.S_LOG_LEN])
        if m > last and keep(i) and game.decision not in ("Invention", "Monopoly"):
            stops.append((m, game.fork()))
        last = m
        game.step(game.suggest())
        i += 1
    return game, stops


@pytest.mark.parametrize("name, strategies", SETTINGS)
def test_the_last_event_gives_the_final_state_of_the_game(name, strategies):
    from catansim.engine import play_game

    settings = settings_of(name, strategies)
    for seed in range(3):
        played = play_game(seed, settings=settings, log=True)
        header, events = game_log(played)
        loaded = Game.from_log((header, events), seed=1000 + seed)
        assert loaded.over and loaded.at == len(events) - 1
        assert differences(loaded.s, played.state) == [], (name, seed)
        assert (loaded.winner, loaded.turns, loaded.vp) == (played.winner, played.turns,
                                                           played.vp)


@pytest.mark.parametrize("name, strategies", SETTINGS)
def test_a_position_plays_the_rest_of_the_logged_game_with_its_streams(name, strategies):
    settings = settings_of(name, strategies)
    n = settings.n_players
    seed = 7
    # the set-up's decisions, then positions spread through the game
    whole, stops = suggested_game(seed, settings, lambda i: i <= 4 * n or i % 13 == 0)
    events = whole.events
    header = game_log(whole.result())[0]
    assert len(stops) > 2 * n + 2  # the set-up and positions after it
    for i, (m, there) in enumerate(stops):
        loaded = Game.from_log((header, events), at=m - 1, seed=99)
        assert loaded.at == m - 1
        assert (loaded.decision, loaded.to_move) == (there.decision, there.to_move), (i, m)
        assert differences(loaded.s, there.s) == [], (i, m, events[m - 1])
        # what the log cannot say, copied from the writing game: its streams, the order
        # of its undrawn cards, this turn's offers and actions (refused offers count) and
        # its strategies' work array (where this turn's offers start asking was drawn at
        # the first)
        loaded._rng[:] = there._rng
        loaded._work[:] = there._work
        loaded.s[L.S_DECK : L.S_DECK + 25] = there.s[L.S_DECK : L.S_DECK + 25]
        loaded.s[L.S_OFFERS] = there.s[L.S_OFFERS]
        loaded.s[L.S_ACTIONS] = there.s[L.S_ACTIONS]
        loaded._options = None
        assert loaded.legal() == there.legal()
        while not loaded.over:
            loaded.step(loaded.suggest())
        assert loaded.events == events[m:], (i, m)
        assert differences(loaded.s, whole.s) == [], (i, m)


def test_without_the_streams_a_position_plays_on_from_its_seed():
    settings = settings_of("official-4", ("default",))
    whole, stops = suggested_game(3, settings, lambda i: i == 300)
    header, events = game_log(whole.result())
    m = stops[0][0]
    a = Game.from_log((header, events), at=m - 1, seed=5)
    b = Game.from_log((header, events), at=m - 1, seed=5)
    c = Game.from_log((header, events), at=m - 1, seed=6)
    for g in (a, b, c):
        while not g.over:
            g.step(g.suggest())
    assert a.events == b.events  # the same seed: the same future
    assert a.events != c.events  # another seed: other dice


def violations(game) -> int:
    """The kernel's invariant checker on a game's state (in the set-up, where the engine
    measures no route until its end, with the routes measured)."""
    s = game.s.copy()
    if s[L.S_TURN] == 0:
        for q in range(game.n_players):
            s[L.S_ROUTE_LEN + q] = route_length_nb(s, TOPO, q)
    return count_violations_nb(s, TOPO, game._rules)


def test_another_writers_numbering_loads_the_same_position():
    settings = settings_of("official-4", ("default",))
    from catansim.engine import play_game

    header, events = game_log(play_game(11, settings=settings, log=True))
    theirs = reversed_numbering(header, events)
    for at in (5, 17, len(events) // 3, len(events) // 2, len(events) - 1):
        ours = Game.from_log((header, events), at=at, seed=2)
        other = Game.from_log(theirs, at=at, seed=2)
        assert np.array_equal(ours.s, other.s), at


def test_a_hand_written_log_loads_at_every_event():
    hdr = beginner_header(**RULES_A)
    with pytest.raises(CatansimError, match=r"^from_log: the header's strategies\[0\]: "
                       r".*scripted.*\(or pass strategies=\.\.\.") as err:
        Game.from_log((hdr, LOG_A), seed=0)  # "scripted": not a strategy of ours
    assert "\n" not in str(err.value)
    seen = set()
    for at in range(len(LOG_A)):
        game = Game.from_log((hdr, LOG_A), at=at, seed=at, strategies=("default",) * 4)
        assert violations(game) == 0, at
        seen.add(game.decision or "over")
    assert {"setup settlement", "setup road", "development card before the roll",
            "action", "robber hex", "over"} <= seen


def test_a_log_file_loads(tmp_path):
    from catansim.engine import play_game

    header, events = game_log(play_game(4, strategies=("default",), log=True))
    write_log(tmp_path / "g.jsonl", header, events)
    a = Game.from_log(tmp_path / "g.jsonl", at=40, seed=1)
    b = Game.from_log((header, events), at=40, seed=1)
    assert np.array_equal(a.s, b.s)


@pytest.mark.parametrize("name", ["official-4", "friendly-3", "strict-bank6-4",
                                  "beginner-vp6-3"])
def test_a_loaded_game_keeps_the_invariants_determinized_and_played_out(name):
    from catansim.engine import play_game

    settings = settings_of(name, ("default", "trader", "army", "random"))
    header, events = game_log(play_game(21, settings=settings, log=True))
    for k, at in enumerate(range(3, len(events) - 1, max(1, len(events) // 9))):
        game = Game.from_log((header, events), at=at, seed=k)
        game._rules[L.R_CHECK] = game._rules[L.R_AFTER + L.R_CHECK] = 1
        assert violations(game) == 0, at
        if game.over:
            continue
        fork = game.determinize(game.to_move, seed=k)
        while not fork.over:
            fork.step(fork.suggest())
        assert fork.s[L.C_VIOLATIONS] == 0, at
        counters = game.rollouts(game.to_move, [-1, 0], [1, 2], "default")
        assert (L.counter(counters, "c_violations") == 0).all()
        assert (L.counter(counters, "c_end_reason") > 0).all()


def edited(events, index, **changes):
    out = copy.deepcopy(events)
    out[index].update(changes)
    return out


@pytest.fixture(scope="module")
def logged():
    from catansim.engine import play_game

    return game_log(play_game(2, strategies=("default",), log=True))


def test_an_illegal_log_is_the_checkers_one_line_error(logged):
    header, events = logged
    prod = next(i for i, ev in enumerate(events) if ev["e"] == "production")
    gains = copy.deepcopy(events[prod]["gains"])
    gains[0][0] += 1  # a wood the roll does not pay
    bad = edited(events, prod, gains=gains)
    with pytest.raises(LogError, match=rf"^event {prod} .*production: expected gains") as err:
        Game.from_log((header, bad), seed=0)
    assert "\n" not in str(err.value)
    settle = next(i for i, ev in enumerate(events) if ev["e"] == "setup_settlement" and i > 0)
    bad = edited(events, settle, node=events[0]["node"])  # on the first settlement
    with pytest.raises(LogError, match=rf"^event {settle} .*distance rule"):
        Game.from_log((header, bad), at=len(events) - 1, seed=0)


def test_a_malformed_log_is_the_checkers_one_line_error(logged):
    header, events = logged
    bad = copy.deepcopy(events)
    assert bad[3]["e"] == "setup_road"
    del bad[3]["edge"]
    with pytest.raises(LogError, match=r"^event 3 .*missing field 'edge'"):
        Game.from_log((header, bad), seed=0)
    with pytest.raises(LogError, match=r"^header\.n_players"):
        Game.from_log(({**header, "n_players": 5}, events), seed=0)
    with pytest.raises(CatansimError, match=r"^from_log: log int is not allowed; allowed"):
        Game.from_log(7, seed=0)


def test_only_the_events_up_to_the_position_are_read(logged):
    header, events = logged
    at = next(i for i in range(len(events) // 2, len(events)) if events[i]["e"] == "turn_end")
    cut = events[: at + 1]  # a game still being played: no game_end
    bad_later = edited(events, len(events) - 1, vp=[99] * len(header["strategies"]))
    a = Game.from_log((header, cut), at=at, seed=3)
    b = Game.from_log((header, bad_later), at=at, seed=3)
    assert np.array_equal(a.s, b.s)
    assert not a.over


@pytest.mark.parametrize("at", [-2, "3", 1.0, True, 10**6])
def test_at_out_of_range_names_at_and_what_is_allowed(logged, at):
    header, events = logged
    for load in (lambda: Game.from_log((header, events), at=at, seed=0),
                 lambda: list(positions(header, events, [0, at]))):
        with pytest.raises(CatansimError) as err:
            load()
        assert str(err.value) == (
            f"from_log: at {at!r} is not an event of the log; allowed: an event index in "
            f"-1..{len(events) - 1} (-1: the start, before the first event; None: the last)")


def test_at_minus_one_is_the_games_start(logged):
    """Before the first event: the writing game at its first decision (the first
    settlement of the set-up), every field a log determines as it was."""
    from catansim.engine import play_game

    for name, strategies in SETTINGS[:4]:
        settings = settings_of(name, strategies)
        header, events = game_log(play_game(3, settings=settings, log=True))
        start = Game(3, settings=settings, external=range(settings.n_players))
        loaded = Game.from_log((header, events), at=-1, seed=9)
        assert loaded.at == -1 and loaded.decision == "setup settlement"
        assert loaded.to_move == start.to_move
        assert differences(loaded.s, start.s) == [], name


def test_positions_of_one_replay_are_those_from_log_loads(logged):
    """``positions`` (one replay) gives at each event asked for the position
    ``from_log`` loads (which replays from the start), in any order asked, twice asked
    once given; the state of one does not move with the replay after it."""
    header, events = logged
    last = len(events) - 1
    roll = next(i for i, ev in enumerate(events) if ev["e"] == "roll" and i > 150
                and events[i + 1]["e"] == "production")
    ats = [last, 300, -1, 0, 17, roll, 17, 100, None]
    asked = sorted({last if a is None else a for a in ats})
    got = list(positions(header, events, ats))
    assert len(got) == len(asked) == 7
    assert got[asked.index(roll)].at == roll + 1  # with the production the roll makes
    for at, pos in zip(asked, got, strict=True):
        a = Game.from_position(pos, seed=at + 5)
        b = Game.from_log((header, events), at=at, seed=at + 5)
        assert np.array_equal(a.s, b.s), at
        assert a.at == b.at and pos.events == events[: pos.at + 1]


def test_a_position_includes_the_events_the_rules_make_at_once(logged):
    header, events = logged
    roll = next(i for i, ev in enumerate(events) if ev["e"] == "roll"
                and sum(ev["dice"]) != 7)
    game = Game.from_log((header, events), at=roll, seed=0)
    assert events[roll + 1]["e"] == "production" and game.at == roll + 1
    assert game.decision == "action"
    road = next(i for i, ev in enumerate(events) if ev["e"] == "setup_road" and i > 8)
    game = Game.from_log((header, events), at=road, seed=0)
    assert events[road + 1]["e"] == "starting_resources" and game.at == road + 1


@pytest.mark.parametrize("name", ["official-3", "friendly-bank8-4", "robber-off-4"])
def test_every_event_loads_as_the_writing_game_stood_at_its_next_decision(name):
    """Positions between decisions too (after a turn's end, a card before the roll, a
    robber's steal, ...): at each event of the first 500 and the last 30 of a game of
    random players (every card and decision kind) the loaded game stands where the
    writing game stood at its first decision after that event, when nothing left to
    chance lies between (a roll, a steal or a card drawn)."""
    settings = settings_of(name, ("random",))
    game = Game(12, settings=settings, external=range(settings.n_players))
    decisions = []  # (events so far, decision, seat, state) at every decision
    while not game.over:
        decisions.append((int(game.s[L.S_LOG_LEN]), game.decision, game.to_move,
                          game.s.copy()))
        game.step(game.suggest())
    header, events = game_log(game.result())
    chance, compared, j = {"roll", "robber", "buy_dev"}, 0, 0
    last = len(events) - 1
    for at in [*range(min(500, last - 30)), *range(last - 30, last + 1)]:  # start and end
        loaded = Game.from_log((header, events), at=at, seed=at)
        assert violations(loaded) == 0, at
        while j < len(decisions) and decisions[j][0] <= loaded.at:
            j += 1
        if j == len(decisions):  # after the last decision: the game's end
            assert loaded.over and loaded.at == last, at
            continue
        k = j + (decisions[j][1] in ("Invention", "Monopoly"))  # its event has its choice
        m, decision, seat, state = decisions[k]
        if any(ev["e"] in chance for ev in events[loaded.at + 1 : m]):
            continue
        assert (loaded.decision, loaded.to_move) == (decision, seat), at
        assert differences(loaded.s, state) == [], (at, events[at])
        compared += 1
    assert compared > 300


def test_a_hand_written_position_has_the_hands_and_records_worked_out_by_hand():
    # LOG_A after blue's robber (event 30): blue rolled a 7, orange discarded 2 wheat and
    # blue stole orange's wheat (test_replay's comments give every hand)
    hdr = beginner_header(**RULES_A)
    assert LOG_A[30] == {"e": "robber", "p": 1, "hex": LOG_A[30]["hex"], "victim": 3,
                         "stolen": "wheat"}
    game = Game.from_log((hdr, LOG_A), at=30, seed=0, strategies="default")
    assert (game.decision, game.to_move, game.s[L.S_TURN]) == ("action", 1, 2)
    hands = game.s[L.S_HAND : L.S_HAND + 20].reshape(4, 5).tolist()
    assert hands[1] == [1, 1, 0, 1, 1] and hands[3] == [0, 0, 0, 0, 1]
    for seat in (1, 3):  # thief and victim saw the card
        seen = game.observation(seat)
        assert seen.known_low[1].tolist() == seen.known_high[1].tolist() == hands[1]
        assert seen.known_low[3].tolist() == seen.known_high[3].tolist() == hands[3]
    for seat in (0, 2):  # the others: one of orange's wheat and ore went to blue
        seen = game.observation(seat)
        assert seen.known_low[1].tolist() == [1, 1, 0, 0, 1]
        assert seen.known_high[1].tolist() == [1, 1, 0, 1, 2]
        assert seen.known_low[3].tolist() == [0, 0, 0, 0, 0]
        assert seen.known_high[3].tolist() == [0, 0, 0, 1, 1]
