"""The Python layer of the engine: settings validation and forced openings."""

import numpy as np
import pytest

from catansim.engine import GameSettings, play_game
from catansim.errors import CatansimError
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
    from catansim.engine import openings_from_strings

    with pytest.raises(CatansimError, match=message):
        openings_from_strings(items, 4)
