"""The Python layer of the engine: settings validation and forced openings."""

import numpy as np
import pytest

from catansim.engine import play_game
from catansim.errors import CatansimError
from catansim.settings import GameSettings
from catansim.topology import NODE_EDGES


def _openings(**seat_values):
    o = np.full(16, -1, dtype=np.int32)
    for key, (node, edge) in seat_values.items():
        seat, k = int(key[1]), int(key[3])
        o[4 * seat + 2 * k] = node
        o[4 * seat + 2 * k + 1] = edge
    return o


@pytest.mark.parametrize(
    "openings, message",
    [
        (_openings(s0k0=(0, 0), s1k0=(3, -1)), "node 3 breaks the Distance Rule"),
        (_openings(s0k0=(0, 0), s1k0=(0, -1)), "node 0 breaks the Distance Rule"),
        (_openings(s0k0=(0, 5)), "road 5 does not touch node 0; allowed: 0, 1"),
        (_openings(s0k0=(0, 99)), "edge 99 is not an edge; allowed: 0..71"),
        (_openings(s0k0=(-1, 0)), "node -1 is not a node; allowed: 0..53"),
        (_openings(s0k0=(60, -1)), "node 60 is not a node"),
        (_openings(s0k0=(0, 0), s2k1=(20, 0)), "road 0 does not touch node 20"),
    ],
)
def test_bad_openings_are_rejected_with_the_seat_named(openings, message):
    with pytest.raises(CatansimError, match=message):
        GameSettings(openings=openings)


def test_fourth_seat_opening_rejected_in_three_player_game():
    with pytest.raises(CatansimError, match="seat 3 does not play with 3 players"):
        GameSettings(n_players=3, openings=_openings(s3k0=(0, 0)))


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(n_players=5), "players: 5 is not allowed; allowed: 3, 4"),
        (dict(strategies=("random",) * 3), "strategies: 3 strategies for 4 players"),
        (dict(strategies=("nonsense",)), "strategies: unknown strategy 'nonsense'; allowed:"),
        (dict(layout="hexagonal"), "layout: 'hexagonal' is not allowed; allowed: beginner"),
        (dict(layout="given"), "board: layout 'given' needs a board"),
    ],
)
def test_bad_settings_name_the_field(kwargs, message):
    with pytest.raises(CatansimError, match=message):
        GameSettings(**kwargs)


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4])
def test_forced_openings_are_played_and_free_seats_avoid_them(seed):
    # Seats 0 and 2 forced on both rounds (road only for one of them), seats 1 and 3 free.
    node_a, node_b, node_c, node_d = 0, 20, 40, 12
    openings = _openings(
        s0k0=(node_a, int(NODE_EDGES[node_a][0])),
        s0k1=(node_b, -1),
        s2k0=(node_c, int(NODE_EDGES[node_c][1])),
        s2k1=(node_d, int(NODE_EDGES[node_d][0])),
    )
    g = play_game(seed, openings=openings, log=False)
    start = g.field("c_start_nodes").reshape(4, 2)
    assert start[0].tolist() == [node_a, node_b]
    assert start[2].tolist() == [node_c, node_d]
    assert g.field("c_illegal")[0] == 0
    edge_owner = g.field("edge_owner")
    assert edge_owner[NODE_EDGES[node_a][0]] == 0
    assert edge_owner[NODE_EDGES[node_c][1]] == 2


def test_play_game_is_a_pure_function_of_seed_and_settings():
    a = play_game(11, log=True)
    b = play_game(11, log=True)
    np.testing.assert_array_equal(a.state, b.state)
    np.testing.assert_array_equal(a.events, b.events)
    c = play_game(12, log=False)
    assert not np.array_equal(a.counters, c.counters)


def test_play_command_forces_openings(tmp_path):
    import json

    from click.testing import CliRunner

    from catansim.cli import cli

    log = tmp_path / "g.jsonl"
    result = CliRunner().invoke(
        cli, ["play", "--seed", "5", "--opening", "0=0,0,20,-", "--opening", "2=40,-",
              "--log", str(log)]
    )
    assert result.exit_code == 0, result.output
    events = [json.loads(line) for line in log.read_text().splitlines()[1:]]
    settled = [(e["p"], e["node"]) for e in events if e["e"] == "setup_settlement"]
    assert (0, 0) in settled and (0, 20) in settled and (2, 40) in settled
    roads = [(e["p"], e["edge"]) for e in events if e["e"] == "setup_road"]
    assert roads[0] == (0, 0)


@pytest.mark.parametrize(
    "items, message",
    [
        (["0=0,5"], "road 5 does not touch node 0"),
        (["x"], "expected SEAT=NODE,EDGE"),
        (["4=0,0"], "SEAT in 0..3"),
        (["0=0,0", "1=3,-"], "Distance Rule"),
    ],
)
def test_opening_strings_errors(items, message):
    from catansim.settings import openings_from_strings

    with pytest.raises(CatansimError, match=message):
        openings_from_strings(items, 4)


# --- debug=True: the first illegal action raises -------------------------------------


@pytest.fixture
def broken_strategy():
    """A scripted row whose placement scores are all NaN: it can choose no node, so its
    setup settlements are illegal (-1) and the engine substitutes the first legal node.
    A strategy bug on purpose; make_strategy would refuse such a row."""
    from catansim.core.scripted.weights_nb import PARAM_INDEX
    from catansim.strategies import PRESETS, Strategy, StrategySet

    row = PRESETS["default"].params.copy()
    row[PARAM_INDEX["pips_weight"]] = np.nan
    return StrategySet({**PRESETS, "broken": Strategy("broken", PRESETS["default"].sid, row)})


def test_the_first_illegal_action_is_recorded_in_the_state(broken_strategy):
    from catansim.core import layout as L

    g = play_game(3, strategies=("default", "broken", "random", "random"), log=False,
                  strategy_set=broken_strategy)
    assert g.field("c_illegal")[0] >= 2  # both setup settlements, at least
    assert g.field("illegal_turn")[0] == 0
    assert g.field("illegal_seat")[0] == 1
    assert g.field("illegal_decision")[0] == L.D_SETUP_SETTLEMENT
    assert g.field("illegal_value").tolist() == [-1] + [0] * 11
    assert g.field("end_reason")[0] in (L.END_WIN, L.END_TURN_LIMIT)  # the game played on


def test_a_legal_game_records_no_illegal_action():
    g = play_game(3, strategies=("default", "random", "army", "trader"), log=False)
    assert g.field("c_illegal")[0] == 0
    for name in ("illegal_turn", "illegal_seat", "illegal_decision"):
        assert g.field(name)[0] == -1
    assert not g.field("illegal_value").any()
    d = play_game(3, strategies=("default", "random", "army", "trader"), log=False, debug=True)
    np.testing.assert_array_equal(d.state, g.state)


def test_play_game_debug_raises_naming_seed_turn_seat_strategy_decision_and_value(
        broken_strategy):
    from catansim.errors import IllegalActionError

    strategies = ("random", "default", "broken", "random")
    g = play_game(17, strategies=strategies, log=False, strategy_set=broken_strategy)
    with pytest.raises(IllegalActionError) as info:  # without debug it was counted only
        play_game(17, strategies=strategies, log=False, debug=True,
                  strategy_set=broken_strategy)
    err = info.value
    assert str(err).startswith("illegal action: seed 17, setup (turn 0), seat 2 (broken), "
                               "setup settlement: chose node -1; ")
    assert f"{g.field('c_illegal')[0]} illegal actions in this game" in str(err)
    assert "\n" not in str(err)
    assert (err.seed, err.turn, err.seat, err.strategy) == (17, 0, 2, "broken")
    assert isinstance(err, CatansimError)


def test_play_batch_debug_replays_the_first_game_with_an_illegal_action(broken_strategy):
    from catansim.core import layout as L
    from catansim.engine import batch_seeds, play_batch
    from catansim.errors import IllegalActionError

    settings = GameSettings(strategies=("random", "random", "random", "random"))
    seeds = batch_seeds(5, 6)
    assert play_batch(seeds, settings, debug=True).counters.shape[0] == 6  # legal: no error
    settings = GameSettings(strategies=("random", "random", "random", "broken"),
                            strategy_set=broken_strategy)
    res = play_batch(seeds, settings)
    assert (L.counter(res.counters, "c_illegal") > 0).all()
    with pytest.raises(IllegalActionError, match=f"seed {seeds[0]}, setup .*seat 3 .broken."):
        play_batch(seeds, settings, debug=True)


@pytest.mark.parametrize("decision, value, text", [
    ("D_SETUP_ROAD", [70], "setup road: chose edge 70"),
    ("D_PRE_ROLL", [1], "development card before the roll: chose card victory_point"),
    ("D_ACTION", [1, 80], "action: chose road on edge 80"),
    ("D_ACTION", [3, 12], "action: chose city on node 12"),
    ("D_ACTION", [5, 1], "action: chose play development card victory_point"),
    ("D_ACTION", [6, 2, 2], "action: chose maritime trade wool for wool"),
    ("D_ACTION", [7, 0, 0, 0, 2, 0, 0, 0, 0, 0, 1, 0],
     "action: chose player trade with seat 0: gives {wool 2}, gets {wheat 1}"),
    ("D_ACTION", [9, 4], "action: chose 9 (no such code) [9, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]"),
    ("D_DISCARD", [3, 0, 0, 1, 0, 5], "discard: chose cards {wood 3, wheat 1} (5 due)"),
    ("D_ROBBER_HEX", [-1], "robber hex: chose hex -1"),
    ("D_VICTIM", [2], "robber victim: chose seat 2"),
    ("D_FREE_ROAD", [-1], "Road Building road: chose no road"),
    ("D_INVENTION", [0, 0, 0, 0, 3, 2], "Invention: chose cards {ore 3} (2 due)"),
    ("D_MONOPOLY", [5], "Monopoly: chose resource 5 (no such code)"),
])
def test_each_decision_is_named_with_its_value(decision, value, text):
    from catansim.core import layout as L
    from catansim.core.checker_nb import illegal_array_nb, illegal_nb
    from catansim.engine import illegal_action_error

    s = play_game(0, log=False).state.copy()
    s[L.S_TURN] = 41
    choice = np.zeros(12, dtype=np.int32)
    choice[: len(value)] = value
    assert illegal_array_nb(s, 3, getattr(L, decision), choice, 12)
    assert not illegal_nb(s, 1, L.D_MONOPOLY, 4)  # only the first is recorded
    err = illegal_action_error(99, ("a", "b", "c", "d"), s)
    assert str(err) == (f"illegal action: seed 99, turn 41, seat 3 (d), {text}; "
                        "2 illegal actions in this game")


@pytest.mark.parametrize("argv", [
    ["play", "--seed", "17", "--strategies", "random,default,broken,random", "--debug"],
    ["simulate", "--games", "6", "--seed", "5", "--strategies", "random,default,broken,random",
     "--debug"],
    ["tournament", "--games", "4", "--strategies", "random,default,broken,random", "--debug",
     "--quiet"],
])
def test_debug_on_the_command_line_stops_at_the_first_illegal_action(
        argv, broken_strategy, monkeypatch, capsys):
    import catansim.runs.experiment
    import catansim.strategies
    from catansim.cli import main

    # the built-in set, as every module that reads it sees it
    monkeypatch.setattr(catansim.strategies, "PRESETS", broken_strategy)
    monkeypatch.setattr(catansim.runs.experiment, "PRESETS", broken_strategy)
    with pytest.raises(SystemExit) as info:
        main(argv)
    err = capsys.readouterr().err.strip().splitlines()
    assert info.value.code == 2 and len(err) == 1
    assert err[0].startswith("catansim: error: illegal action: seed ") and "(broken)" in err[0]
    main([a for a in argv if a != "--debug"])  # without --debug: counted, the games play on
