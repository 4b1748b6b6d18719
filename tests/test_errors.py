"""Every error a user can cause below the commands is a one-line ``CatansimError``
saying what is allowed (so ``cli.main`` reports it without a traceback), and no
module outside the compiled core raises a bare ValueError, KeyError or TypeError."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import catansim
from catansim.analysis import seat_win_rates, wilson_ci
from catansim.board import beginner_board
from catansim.board.metrics import board_features
from catansim.checks import check_scheduler
from catansim.engine import batch_seeds, play_batch
from catansim.errors import CatansimError
from catansim.logs import read_log
from catansim.plotting.board import draw_board  # the plotting package selects Agg
from catansim.results import games_frame
from catansim.settings import GameSettings
from catansim.topology import edge_between_hexes, node_of_hexes

ROOT = Path(__file__).resolve().parents[1] / "catansim"


def _batch():
    return play_batch(batch_seeds(1, 3), GameSettings(n_players=4, strategies=["default"] * 4))


CALLS = {
    "games_frame-no-batch": lambda: games_frame([]),
    "games_frame-index-shape": lambda: games_frame(_batch(), game_index=[1, 2]),
    "games_frame-categories": lambda: games_frame(_batch(), strategy_names=["city"]),
    "board_features-shape": lambda: board_features(np.zeros((2, 3), dtype=np.int32)),
    "draw_board-robber": lambda: draw_board(beginner_board(), robber=99),
    "draw_board-values": lambda: draw_board(beginner_board(), node_values=[1, 2]),
    "edge_between_hexes": lambda: edge_between_hexes((0, 0), (3, 3)),
    "node_of_hexes": lambda: node_of_hexes([(0, 0), (3, 3), (1, 1)]),
    "load-missing": lambda: catansim.load("/nonexistent/dataset"),
    "read_log-missing": lambda: read_log("/nonexistent/game.jsonl"),
    "Rules-range": lambda: catansim.Rules(vp_to_win=99),
    # Python's own TypeError named neither the class nor the fields allowed
    "Rules-unknown-field": lambda: catansim.Rules(victory_points=12),
    "Rules-too-many-positional": lambda: catansim.Rules(*range(8)),
    "Rules-twice": lambda: catansim.Rules(12, vp_to_win=12),
    "GameSettings-unknown-field": lambda: catansim.GameSettings(players=3),
    "play_game-players": lambda: catansim.play_game(1, n_players=5),
    "play_game-max_events": lambda: catansim.play_game(1, max_events=0),  # used to hang
    "play_game-board": lambda: catansim.play_game(1, board="board.json"),
    "play_game-rules": lambda: catansim.play_game(1, rules={"vp_to_win": 5}),
    "play_game-log": lambda: catansim.play_game(1, log="no"),  # was taken as true
    "play_game-debug": lambda: catansim.play_game(1, debug="yes"),
    "play_game-settings": lambda: catansim.play_game(1, settings=catansim.Rules()),
    "play_game-strategy_set": lambda: catansim.play_game(1, strategy_set="default"),
    "play_batch-float-seeds": lambda: catansim.play_batch([1.5, 2.0], catansim.GameSettings()),
    "play_batch-2d-seeds": lambda: catansim.play_batch(np.zeros((2, 2), dtype=np.int64),
                                                       catansim.GameSettings()),
    "play_batch-big-seeds": lambda: catansim.play_batch(np.array([2**63], dtype=np.uint64),
                                                        catansim.GameSettings()),
    "play_batch-settings": lambda: catansim.play_batch([1, 2], None),
    "play_batch-n_threads": lambda: catansim.play_batch([1], catansim.GameSettings(), n_threads=0),
    "play_batch-n_threads-str": lambda: catansim.play_batch([1], catansim.GameSettings(),
                                                            n_threads="2"),
    "batch_seeds-n_games": lambda: catansim.batch_seeds(0, -1),
    "batch_seeds-start": lambda: catansim.batch_seeds(0, 2, -5),
    "board_ids-shape": lambda: catansim.board.board_ids(np.zeros((2, 3), dtype=np.int32)),
    "wilson_ci-more-than-n": lambda: wilson_ci([3, 11], [10, 10]),
    "wilson_ci-negative": lambda: wilson_ci(-1, 10),
    "analysis-source": lambda: seat_win_rates(5),
    "check_scheduler": lambda: check_scheduler("tcp://h:70000"),
}


@pytest.mark.parametrize("call", list(CALLS.values()), ids=list(CALLS))
def test_a_library_mistake_is_a_one_line_catansim_error(call):
    with pytest.raises(CatansimError) as err:
        call()
    msg = str(err.value)
    assert "\n" not in msg and "; allowed: " in msg, msg


def test_checked_fields_names_the_class_and_the_field():
    with pytest.raises(CatansimError, match=r"^GameSettings\(players=\.\.\.\): unknown field; "
                       r"allowed: n_players, strategies, layout, "):
        catansim.GameSettings(players=3)


def test_checked_fields_keeps_the_dataclass_behaviour():
    import dataclasses
    import inspect
    import pickle

    r = catansim.Rules(12, robber="off")
    assert (r.vp_to_win, r.robber) == (12, "off")
    assert dataclasses.replace(r, robber="friendly").robber == "friendly"
    assert pickle.loads(pickle.dumps(r)) == r
    from catansim.rules import SWITCH_FIELDS

    assert list(inspect.signature(catansim.Rules).parameters) == \
        [*catansim.Rules.names(), *SWITCH_FIELDS]
    assert catansim.GameSettings(3, ("default",)).n_players == 3


def test_checked_fields_reports_a_missing_required_field():
    from dataclasses import dataclass

    from catansim.checks import checked_fields

    @checked_fields
    @dataclass
    class Spec:
        name: str
        size: int = 1

    assert Spec("a").size == 1
    with pytest.raises(CatansimError, match=r"^Spec\(name=\.\.\.\): missing; allowed: name, size$"):
        Spec(size=2)


def test_no_bare_value_key_or_type_errors_outside_the_core():
    """The compiled core raises nothing a user can cause (settings are checked first);
    the dataset's record parser raises ValueError internally and turns it into a
    warning; the schema's RuntimeError is a developer's mistake found at import."""
    pattern = re.compile(r"raise (ValueError|KeyError|TypeError)\(")
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith("core/"):
            continue
        for i, line in enumerate(path.read_text().splitlines(), 1):
            if pattern.search(line):
                found.append(f"{rel}:{i}")
    assert all(f.startswith("results/dataset.py:") for f in found), found
    assert len(found) == 3  # PartRecord.from_obj, caught by read_records
