"""The independent checker (``catansim.logs``) as an oracle for the engine.

Hundreds of engine games under many rule settings are logged, written, read
back and checked event by event; the replayed final state must equal the
engine's. Single-event corruptions of real engine logs must be rejected, and
``catansim play`` / ``catansim replay`` work end to end.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest
from click.testing import CliRunner

from catansim.cli import cli, main
from catansim.core import layout as L
from catansim.engine import play_game
from catansim.logs import LogError, event_rows_to_dicts, make_header, read_log, replay, write_log
from catansim.rules import Rules

CONFIGS = {
    "official-4": (4, "variable", {}),
    "official-3": (3, "variable", {}),
    "robber-off": (4, "variable", {"robber": "off"}),
    "robber-friendly-3": (3, "variable", {"robber": "friendly"}),
    "strict-bank-8": (4, "variable", {"shortage": "strict", "bank_per_resource": 8}),
    "off-bank-8-3": (3, "random_numbers", {"shortage": "off", "bank_per_resource": 8}),
    "unlimited-no-discard": (4, "variable", {"bank_per_resource": None, "discard_limit": None}),
    "beginner-small-bank": (4, "beginner", {"bank_per_resource": 5, "discard_limit": 4}),
    "turn-limit": (4, "variable", {"max_turns": 40, "vp_to_win": 12}),
    "first-turn-3": (4, "variable", {"first_turn": 3, "bank_per_resource": 9}),
    "first-turn-1-3p": (3, "variable", {"first_turn": 1, "robber": "friendly"}),
    "first-pick-2": (4, "variable", {"first_pick": 2}),
    "first-pick-2-turn-0-3p": (3, "variable", {"first_pick": 2, "first_turn": 0}),
    # Supplies of 1 to 3 cards: shortages on most rolls, Invention with fewer than 2 cards
    # left (bank-2 holds the game of `catansim play --seed 4 --rule bank_per_resource=2`).
    "bank-1": (4, "variable", {"bank_per_resource": 1, "max_turns": 300}),
    "bank-2": (4, "variable", {"bank_per_resource": 2, "max_turns": 300}),
    "bank-3-off-3": (3, "random_numbers", {"bank_per_resource": 3, "shortage": "off",
                                           "max_turns": 300}),
    "bank-2-strict-friendly-3": (3, "variable", {"bank_per_resource": 2, "shortage": "strict",
                                                 "robber": "friendly", "max_turns": 300}),
    "bank-1-robber-off": (4, "beginner", {"bank_per_resource": 1, "robber": "off",
                                          "max_turns": 200}),
    "discard-0": (4, "variable", {"discard_limit": 0}),
    "vp-3": (3, "variable", {"vp_to_win": 3}),
    "vp-20": (4, "variable", {"vp_to_win": 20, "max_turns": 200, "discard_limit": 12}),
    # Scripted players: their trades, Invention and Monopoly choices, friendly robber.
    "scripted": (4, "variable", {}, ("default", "army", "trader", "random")),
    "scripted-friendly-bank-3": (4, "variable", {"robber": "friendly", "bank_per_resource": 3,
                                                 "max_turns": 300},
                                 ("default", "city", "expander", "builder")),
    "scripted-bank-1-3": (3, "random_numbers", {"bank_per_resource": 1, "shortage": "off",
                                                "max_turns": 300}, ("trader", "army", "default")),
}
GAMES_PER_CONFIG = 40
SMALL_SUPPLY = [name for name, c in CONFIGS.items() if (c[2].get("bank_per_resource") or 19) <= 3]


def engine_log(seed, n_players, layout, rules, strategies=("random",)):
    g = play_game(seed, n_players, strategies=strategies, layout=layout, rules=Rules(**rules))
    header = make_header(g.seed, g.n_players, g.strategies, g.rules, g.board)
    return g, header, event_rows_to_dicts(g.events, g.n_players)


@pytest.mark.parametrize("config", list(CONFIGS))
def test_engine_logs_pass_the_checker(config, tmp_path):
    n_players, layout, rules, *strategies = CONFIGS[config]
    for seed in range(GAMES_PER_CONFIG):
        g, header, events = engine_log(seed, n_players, layout, rules, *strategies)
        path = tmp_path / f"game-{seed}.jsonl"
        write_log(path, header, events)
        header2, events2 = read_log(path)
        assert header2 == header and events2 == events
        try:
            res = replay(header2, events2)
        except LogError as exc:  # report the reproduction: seed, settings, event
            pytest.fail(f"{config} seed {seed} ({n_players} players, {layout}, {rules}): {exc}")
        n = g.n_players
        assert res.winner == g.winner
        assert res.turns == g.turns
        assert [v["total"] for v in res.vp] == g.vp
        assert res.hands == g.field("hand").reshape(4, 5)[:n].tolist()
        assert res.node_owner == g.field("node_owner").tolist()
        assert res.node_level == g.field("node_level").tolist()
        assert res.edge_owner == g.field("edge_owner").tolist()
        assert res.robber == int(g.field("robber_hex")[0])
        assert res.knights == g.field("knights")[:n].tolist()
        longest = int(g.field("longest_holder")[0])
        army = int(g.field("army_holder")[0])
        assert res.longest_route == (None if longest < 0 else longest)
        assert res.largest_army == (None if army < 0 else army)
        assert res.route_lengths == g.field("route_len")[:n].tolist()


def test_engine_logs_cover_the_interesting_events():
    """The games above exercise every event kind (else the oracle proves little)."""
    seen = set()
    cards = set()
    reasons = set()
    for seed in range(GAMES_PER_CONFIG):
        for n_players, layout, rules in (CONFIGS["official-4"], CONFIGS["turn-limit"]):
            _, _, events = engine_log(seed, n_players, layout, rules)
            seen |= {ev["e"] for ev in events}
            cards |= {ev["card"] for ev in events if ev["e"] == "play_dev"}
            reasons |= {ev["reason"] for ev in events if ev["e"] == "game_end"}
    assert len(seen) == 19
    assert cards == {"knight", "road_building", "invention", "monopoly"}
    assert reasons == {"win", "turn_limit"}


def test_small_supply_logs_cover_short_inventions_and_shortages():
    """The small-supply games above play Invention with 0 or 1 card left in the supply
    and withhold production, so the oracle checks those rules too."""
    short_inventions = withheld = 0
    for config in SMALL_SUPPLY:
        n_players, layout, rules, *strategies = CONFIGS[config]
        for seed in range(GAMES_PER_CONFIG):
            _, _, events = engine_log(seed, n_players, layout, rules, *strategies)
            short_inventions += sum(1 for ev in events if ev["e"] == "play_dev"
                                    and ev["card"] == "invention" and sum(ev["cards"]) < 2)
            withheld += sum(1 for ev in events if ev["e"] == "production"
                            and any(ev["withheld"]))
    assert len(SMALL_SUPPLY) >= 6
    assert short_inventions >= 5 and withheld >= 10_000


def test_the_reported_small_supply_game_replays(tmp_path):
    # `catansim play --seed 4 --strategies random --rule bank_per_resource=2
    # --rule max_turns=300 --log g.jsonl; catansim replay g.jsonl` failed: its Invention
    # took the 1 card the supply held.
    log = tmp_path / "g.jsonl"
    runner = CliRunner()
    out = runner.invoke(cli, ["play", "--seed", "4", "--strategies", "random",
                              "--rule", "bank_per_resource=2",
                              "--rule", "max_turns=300", "--log", str(log)])
    assert out.exit_code == 0, out.output
    _, events = read_log(log)
    assert [ev["cards"] for ev in events if ev["e"] == "play_dev"
            and ev["card"] == "invention" and sum(ev["cards"]) < 2] == [[0, 0, 0, 0, 1]]
    out = runner.invoke(cli, ["replay", str(log), "--quiet"])
    assert out.exit_code == 0, out.output
    assert f"checked: {len(events)} events" in out.output


# --- corruptions of real engine logs -----------------------------------------------


def _first(events, pred):
    return next(i for i, ev in enumerate(events) if pred(ev))


def _bump_production(events):
    i = _first(events, lambda ev: ev["e"] == "production" and any(map(any, ev["gains"])))
    g = events[i]["gains"]
    q = next(q for q, b in enumerate(g) if any(b))
    r = next(r for r, n in enumerate(g[q]) if n)
    g[q][r] += 1
    return "production: expected gains"


def _drop_tile(events):
    i = _first(events, lambda ev: ev["e"] in ("longest_route", "largest_army"))
    name = events[i]["e"]
    del events[i]
    return f"missing {name}"


def _robber_stays(events):
    robber_moves = [i for i, ev in enumerate(events) if ev["e"] == "robber"]
    i, j = robber_moves[0], robber_moves[1]
    events[j]["hex"] = events[i]["hex"]
    return "different hex"


def _bad_dice(events):
    events[_first(events, lambda ev: ev["e"] == "roll")]["dice"] = [0, 6]
    return "dice values"


def _final_vp(events):
    events[-1]["vp"][0] += 1
    return "final vp"


def _discard_one_more(events):
    i = _first(events, lambda ev: ev["e"] == "discard")
    events[i]["cards"][int(np.argmax(events[i]["cards"]))] += 1
    return "discard size"


def _play_in_turn_bought(events):
    i = _first(events, lambda ev: ev["e"] == "buy_dev" and ev["card"] == "knight")
    events.insert(i + 1, {"e": "play_dev", "p": events[i]["p"], "card": "knight"})
    return "turn it was bought"


def _monopoly_takes_one_more(events):
    i = _first(events, lambda ev: ev["e"] == "play_dev" and ev["card"] == "monopoly")
    q = next(q for q in range(len(events[i]["taken"])) if q != events[i]["p"])
    events[i]["taken"][q] += 1
    return "Monopoly: every opponent hands over"


def _invention_three_cards(events):
    i = _first(events, lambda ev: ev["e"] == "play_dev" and ev["card"] == "invention")
    events[i]["cards"][0] += 1
    return "Invention takes 2 resource cards"


def _road_building_one_road(events):
    # A Road Building followed by two free roads and then a non-tile event: drop the second.
    for i, ev in enumerate(events):
        if ev["e"] == "play_dev" and ev["card"] == "road_building":
            free = [j for j in range(i + 1, min(i + 5, len(events)))
                    if events[j]["e"] == "build_road" and events[j]["free"]]
            if len(free) == 2 and events[free[1] + 1]["e"] not in ("longest_route", "game_end"):
                del events[free[1]]
                return "Road Building built only 1"
    raise StopIteration


def _free_road_without_road_building(events):
    i = _first(events, lambda ev: ev["e"] == "build_road" and not ev["free"])
    events[i]["free"] = True
    return "free road only as one of the two roads of Road Building"


MUTATIONS = [_bump_production, _drop_tile, _robber_stays, _bad_dice, _final_vp,
             _discard_one_more, _play_in_turn_bought, _monopoly_takes_one_more,
             _invention_three_cards, _road_building_one_road, _free_road_without_road_building]


@pytest.mark.parametrize("mutation", MUTATIONS, ids=lambda f: f.__name__.strip("_"))
def test_corrupted_engine_logs_are_rejected(mutation):
    applied = 0
    for seed in range(30):
        _, header, events = engine_log(seed, 4, "variable", {})
        bad = copy.deepcopy(events)
        try:
            rule = mutation(bad)
        except StopIteration:  # this game has no such event
            continue
        replay(header, events)  # the original is legal
        with pytest.raises(LogError, match=rule):
            replay(header, bad)
        applied += 1
        if applied == 3:
            break
    assert applied == 3


# --- the command line ----------------------------------------------------------------


def test_play_and_replay_end_to_end(tmp_path):
    runner = CliRunner()
    log = tmp_path / "game.jsonl"
    out = runner.invoke(cli, ["play", "--seed", "5", "--players", "3", "--rule", "robber=friendly",
                              "--rule", "bank_per_resource=12", "--log", str(log)])
    assert out.exit_code == 0, out.output
    assert out.output.startswith("seed 5: ")
    header, events = read_log(log)
    assert header["seed"] == 5 and header["n_players"] == 3
    assert header["strategies"] == ["default"] * 3  # a watched game is played by default
    assert header["rules"]["robber"] == "friendly" and header["rules"]["bank_per_resource"] == 12
    g = play_game(5, 3, ("default",) * 3, rules=Rules(robber="friendly", bank_per_resource=12))
    assert events == event_rows_to_dicts(g.events, 3)  # the logged game is the engine's game

    png = tmp_path / "final.png"
    out = runner.invoke(cli, ["replay", str(log), "--png", str(png), "--narrative"])
    assert out.exit_code == 0, out.output
    assert "Turn 1 — " in out.output and "Final standings:" in out.output
    assert f"checked: {len(events)} events" in out.output
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    out = runner.invoke(cli, ["replay", str(log), "--quiet", "--no-check"])
    assert out.exit_code == 0
    assert "Turn 1 — " not in out.output and "Final standings:" in out.output


def test_play_many_games_to_a_folder(tmp_path):
    runner = CliRunner()
    out = runner.invoke(cli, ["play", "--seed", "7", "--games", "3", "--layout", "beginner",
                              "--log-dir", str(tmp_path / "logs")])
    assert out.exit_code == 0, out.output
    assert [line.split(":")[0] for line in out.output.splitlines() if line.startswith("seed")] == [
        "seed 7", "seed 8", "seed 9"]
    names = sorted(p.name for p in (tmp_path / "logs").iterdir())
    assert names == ["game-7.jsonl", "game-8.jsonl", "game-9.jsonl"]
    for name in names:
        replay(*read_log(tmp_path / "logs" / name))


@pytest.mark.parametrize(
    "argv, message",
    [
        (["play", "--seed", "-3"], "--seed: -3 is not allowed; allowed: an integer in [0, 2**63)"),
        (["play", "--seed", str(2**63)], "--seed"),
        (["play", "--players", "5"], "--players: 5 is not allowed; allowed: 3, 4"),
        (["play", "--strategies", "random,random"], "--strategies: 2 strategies for 4 players"),
        (["play", "--strategies", "genius"], "--strategies: unknown strategy 'genius'"),
        (["play", "--layout", "hexagon"], "--layout: 'hexagon' is not allowed; allowed: beginner"),
        (["play", "--rule", "robber=nice"], "robber"),
        (["play", "--games", "2", "--log", "x.jsonl"], "--log: one file holds one game"),
    ],
)
def test_play_errors_are_one_line(argv, message, capsys):
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code != 0
    err = capsys.readouterr().err
    assert err.startswith("catansim: error: ") and message in err
    assert err.count("\n") == 1


def test_replay_rejects_a_broken_log_in_one_line(tmp_path, capsys):
    _, header, events = engine_log(0, 4, "variable", {})
    _bump_production(events)
    path = tmp_path / "bad.jsonl"
    write_log(path, header, events)
    with pytest.raises(SystemExit) as info:
        main(["replay", str(path)])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"catansim: error: {path}: event ")
    assert "production: expected gains" in err
    assert err.count("\n") == 1
    (tmp_path / "junk.jsonl").write_text("not json\n")
    with pytest.raises(SystemExit):
        main(["replay", str(tmp_path / "junk.jsonl")])
    assert "junk.jsonl:1: not JSON" in capsys.readouterr().err


def test_a_log_started_too_small_grows_to_the_same_events():
    """``max_events`` is where the log starts: a game that needs more rows is played
    again with a larger log, and its events are those of the default size."""
    g = play_game(11, 4, strategies=("default",))
    small = play_game(11, 4, strategies=("default",), max_events=3)
    assert len(g.events) > 3 * 4 ** 3  # grown more than once
    assert np.array_equal(g.events, small.events)
    assert np.array_equal(g.state, small.state)
    off = play_game(11, 4, strategies=("default",), log=False)
    assert off.events is None
    assert np.array_equal(off.state[L.S_COUNTERS:L.S_COUNTERS + L.N_COUNTERS],
                          g.state[L.S_COUNTERS:L.S_COUNTERS + L.N_COUNTERS])
