"""Game-log format: engine rows -> spec objects, header, atomic write, reading errors."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from catansim.board import beginner_board
from catansim.core import layout as L
from catansim.errors import CatansimError
from catansim.logs import event_rows_to_dicts, make_header, read_log, write_log
from catansim.rules import Rules


def row(code, p, *payload):
    """An engine event row: code, seat, then the payload from column 2."""
    r = np.zeros(L.LOG_WIDTH, dtype=np.int32)
    r[0], r[1] = code, p
    r[2 : 2 + len(payload)] = payload
    return r


ROWS_AND_DICTS = [
    (row(L.EV_SETUP_SETTLEMENT, 1, 17), {"e": "setup_settlement", "p": 1, "node": 17}),
    (row(L.EV_SETUP_ROAD, 1, 25), {"e": "setup_road", "p": 1, "edge": 25}),
    (row(L.EV_STARTING_RESOURCES, 2, 1, 0, 1, 0, 1),
     {"e": "starting_resources", "p": 2, "cards": [1, 0, 1, 0, 1]}),
    (row(L.EV_TURN_START, 3, 12), {"e": "turn_start", "p": 3, "turn": 12}),
    (row(L.EV_ROLL, 3, 4, 4), {"e": "roll", "p": 3, "dice": [4, 4]}),
    (row(L.EV_PRODUCTION, -1,
         1, 0, 0, 0, 0,  # seat 0
         0, 0, 0, 0, 2,  # seat 1
         0, 0, 0, 0, 0,  # seat 2
         0, 0, 1, 0, 0,  # seat 3
         0, 0, 0, 0, 3),  # withheld
     {"e": "production", "gains": [[1, 0, 0, 0, 0], [0, 0, 0, 0, 2], [0, 0, 0, 0, 0],
                                   [0, 0, 1, 0, 0]], "withheld": [0, 0, 0, 0, 3]}),
    (row(L.EV_DISCARD, 0, 2, 0, 1, 1, 0), {"e": "discard", "p": 0, "cards": [2, 0, 1, 1, 0]}),
    (row(L.EV_ROBBER, 1, 7, 2, 4),
     {"e": "robber", "p": 1, "hex": 7, "victim": 2, "stolen": "ore"}),
    (row(L.EV_ROBBER, 1, 9, -1, -1),
     {"e": "robber", "p": 1, "hex": 9, "victim": None, "stolen": None}),
    (row(L.EV_ROBBER, 1, 9, 3, -1),
     {"e": "robber", "p": 1, "hex": 9, "victim": 3, "stolen": None}),
    (row(L.EV_TRADE_BANK, 2, 0, 0, 3, 0, 0, 0, 1, 0, 0, 0),
     {"e": "trade_bank", "p": 2, "give": [0, 0, 3, 0, 0], "get": [0, 1, 0, 0, 0]}),
    (row(L.EV_TRADE_PLAYER, 2, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 1),
     {"e": "trade_player", "p": 2, "partner": 0, "give": [1, 0, 0, 0, 0],
      "get": [0, 0, 0, 1, 1]}),
    (row(L.EV_BUILD_ROAD, 0, 40, 0), {"e": "build_road", "p": 0, "edge": 40, "free": False}),
    (row(L.EV_BUILD_ROAD, 0, 41, 1), {"e": "build_road", "p": 0, "edge": 41, "free": True}),
    (row(L.EV_BUILD_SETTLEMENT, 3, 50), {"e": "build_settlement", "p": 3, "node": 50}),
    (row(L.EV_BUILD_CITY, 3, 50), {"e": "build_city", "p": 3, "node": 50}),
    (row(L.EV_BUY_DEV, 1, 1), {"e": "buy_dev", "p": 1, "card": "victory_point"}),
    (row(L.EV_PLAY_DEV, 1, 0), {"e": "play_dev", "p": 1, "card": "knight"}),
    (row(L.EV_PLAY_DEV, 1, 2), {"e": "play_dev", "p": 1, "card": "road_building"}),
    (row(L.EV_PLAY_DEV, 1, 3, 0, 0, 1, 1, 0),
     {"e": "play_dev", "p": 1, "card": "invention", "cards": [0, 0, 1, 1, 0]}),
    (row(L.EV_PLAY_DEV, 1, 4, 3, 2, 0, 1, 4),
     {"e": "play_dev", "p": 1, "card": "monopoly", "resource": "wheat",
      "taken": [2, 0, 1, 4]}),
    (row(L.EV_LONGEST_ROUTE, 2, 6), {"e": "longest_route", "p": 2, "length": 6}),
    (row(L.EV_LONGEST_ROUTE, -1, 5), {"e": "longest_route", "p": None, "length": 5}),
    (row(L.EV_LARGEST_ARMY, 0, 3), {"e": "largest_army", "p": 0, "knights": 3}),
    (row(L.EV_TURN_END, 3), {"e": "turn_end", "p": 3}),
    (row(L.EV_GAME_END, -1, 2, 88, L.END_WIN, 7, 5, 10, 4),
     {"e": "game_end", "winner": 2, "turn": 88, "vp": [7, 5, 10, 4], "reason": "win"}),
    (row(L.EV_GAME_END, -1, -1, 1000, L.END_TURN_LIMIT, 7, 5, 9, 4),
     {"e": "game_end", "winner": None, "turn": 1000, "vp": [7, 5, 9, 4],
      "reason": "turn_limit"}),
]  # fmt: skip


@pytest.mark.parametrize("r, expected", ROWS_AND_DICTS, ids=lambda x: str(x)[:40])
def test_row_to_dict(r, expected):
    (got,) = event_rows_to_dicts(r[None, :], 4)
    assert got == expected
    assert list(got) == list(expected)  # key order as in the spec's table
    json.dumps(got)  # plain JSON types only (no numpy ints)
    assert all(type(v) is not np.int32 for v in got.values())


def test_every_event_code_is_covered():
    assert {int(r[0]) for r, _ in ROWS_AND_DICTS} == set(L.EVENT_NAMES)


def test_three_players_size_per_player_lists():
    prod = row(L.EV_PRODUCTION, -1, *range(1, 26))
    mono = row(L.EV_PLAY_DEV, 0, 4, 1, 0, 2, 3, 9)
    end = row(L.EV_GAME_END, -1, 1, 40, L.END_WIN, 3, 10, 6, 9)
    got = event_rows_to_dicts(np.stack([prod, mono, end]), 3)
    assert got[0]["gains"] == [[1, 2, 3, 4, 5], [6, 7, 8, 9, 10], [11, 12, 13, 14, 15]]
    assert got[0]["withheld"] == [21, 22, 23, 24, 25]
    assert got[1]["taken"] == [0, 2, 3]
    assert got[2]["vp"] == [3, 10, 6]


def test_unknown_event_code_is_an_error():
    with pytest.raises(CatansimError, match="unknown event code 99"):
        event_rows_to_dicts(row(99, 0)[None, :], 4)


def test_header_keys_and_rule_nulls():
    board = beginner_board()
    rules = Rules(bank_per_resource=None, discard_limit=None, robber="friendly")
    h = make_header(7, 3, ("random", "random", "builder"), rules, board)
    assert list(h) == ["e", "format", "version", "seed", "n_players", "strategies", "rules",
                       "board"]
    assert h["e"] == "header" and h["format"] == "catansim-log" and h["version"] == 1
    assert h["seed"] == 7 and h["n_players"] == 3
    assert h["strategies"] == ["random", "random", "builder"]
    assert h["rules"] == {"vp_to_win": 10, "bank_per_resource": None, "discard_limit": None,
                          "robber": "friendly", "shortage": "official", "max_turns": 1000,
                          "first_pick": 0, "first_turn": 0}
    assert h["board"] == board.to_header()
    assert "null" in json.dumps(h["rules"])


def test_write_then_read_round_trip(tmp_path):
    board = beginner_board()
    h = make_header(1, 4, ["random"] * 4, Rules(), board)
    events = [d for _, d in ROWS_AND_DICTS]
    path = tmp_path / "game.jsonl"
    write_log(path, h, events)
    lines = path.read_text().splitlines()
    assert len(lines) == 1 + len(events)
    assert all(isinstance(json.loads(line), dict) for line in lines)
    h2, ev2 = read_log(path)
    assert h2 == h and ev2 == events
    assert [p.name for p in tmp_path.iterdir()] == ["game.jsonl"]  # no temp file left


def test_failed_write_leaves_no_file(tmp_path):
    h = make_header(1, 4, ["random"] * 4, Rules(), beginner_board())
    path = tmp_path / "game.jsonl"
    with pytest.raises(TypeError):
        write_log(path, h, [{"e": "turn_end", "p": 0}, {"e": "bad", "p": object()}])
    assert list(tmp_path.iterdir()) == []


def test_failed_write_keeps_the_old_log(tmp_path):
    h = make_header(1, 4, ["random"] * 4, Rules(), beginner_board())
    path = tmp_path / "game.jsonl"
    write_log(path, h, [{"e": "turn_end", "p": 0}])
    before = path.read_text()
    with pytest.raises(TypeError):
        write_log(path, h, [{"e": "bad", "p": {1, 2}}])
    assert path.read_text() == before
    assert [p.name for p in tmp_path.iterdir()] == ["game.jsonl"]


GOLDEN = Path(__file__).parent / "golden" / "variable-4p-official.jsonl"
HEADER_LINE = GOLDEN.read_text().splitlines()[0]


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "empty game log"),
        (HEADER_LINE + "\n{not json\n", r":2: not JSON"),
        ('{"e": "turn_start", "p": 0, "turn": 1}\n', r":1: missing header"),
        ('[1, 2]\n', r":1: not an event object"),
        ('{"e": "header", "format": "other", "version": 1}\n',
         "header.format: 'other' is not allowed; allowed: 'catansim-log'"),
        ('{"e": "header", "format": "catansim-log", "version": 2}\n',
         "header.version: 2 is not a version this reader knows; allowed: 1"),
        (HEADER_LINE + "\n\n" + HEADER_LINE + "\n", r":3: a second header"),
        (HEADER_LINE.replace('"seed": 20260101', '"seed": "abc"', 1) + "\n",
         r":1: header.seed: 'abc' is not allowed; allowed: an integer in \[0, 2\*\*63\)"),
        (HEADER_LINE.replace('"n_players": 4', '"n_players": 5', 1) + "\n",
         r"header.n_players: 5 is not allowed; allowed: 3, 4"),
        (HEADER_LINE.replace('"strategies": [', '"strategies": [7, ', 1) + "\n",
         r"header.strategies: .* allowed: 4 strategy names"),
        (HEADER_LINE.replace('"rules": {', '"rules": {"extra": 1, ', 1) + "\n",
         r"header.rules: .* allowed: an object with the keys vp_to_win"),
        ("\xff\xfe binary\n",
         r"not a text file \(byte 0xff at offset 0 is not UTF-8\)"),
    ],
)
def test_read_errors_are_one_line(tmp_path, text, message):
    path = tmp_path / "bad.jsonl"
    path.write_bytes(text.encode("latin-1") if "\xff" in text else text.encode())
    with pytest.raises(CatansimError, match=message) as info:
        read_log(path)
    assert "\n" not in str(info.value)
    assert "bad.jsonl" in str(info.value)


def test_read_missing_file(tmp_path):
    with pytest.raises(CatansimError, match="game log not found; allowed: a catansim game log"):
        read_log(tmp_path / "nope.jsonl")


def test_a_version_1_header_without_first_pick_and_turn_is_read_as_seat_0(tmp_path):
    from catansim.engine import play_game
    from catansim.logs import replay

    g = play_game(3, 4, strategies=["default"])
    header = make_header(g.seed, 4, g.strategies, g.rules, g.board)
    del header["rules"]["first_turn"]  # as written before the setting existed
    del header["rules"]["first_pick"]
    res = replay(header, event_rows_to_dicts(g.events, 4))
    assert res.winner == g.winner and res.turns == g.turns
