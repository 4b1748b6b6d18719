"""The notebook widgets (``catansim.widgets``), driven from Python as a notebook's front end
would: set their values, click their buttons, read what they show."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from test_viewer import public_counts

from catansim.board import beginner_board, compact_text, make_board, parse_board
from catansim.board.fairness import fairness
from catansim.engine import play_game
from catansim.logs import game_log
from catansim.settings import GameSettings

pytest.importorskip("ipywidgets")
from catansim.widgets import BoardExplorer, GameStepper  # noqa: E402

PNG = b"\x89PNG"


@pytest.mark.parametrize("board", [beginner_board(), make_board("variable", 5),
                                   make_board("random_numbers", 8), make_board("balanced", 3)],
                         ids=["beginner", "variable", "random_numbers", "balanced"])
def test_compact_text_reads_back_to_the_same_board(board):
    again = parse_board(compact_text(board))
    assert again == board and list(again.harbor) == list(board.harbor)


def test_the_module_imports_without_ipywidgets_and_says_what_is_missing():
    code = ("import sys; sys.modules['ipywidgets'] = None\n"
            "import catansim.widgets as w\n"
            "try:\n    w.BoardExplorer()\nexcept w.CatansimError as exc:\n    print(exc)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == ("catansim.widgets: ipywidgets is not installed; allowed: "
                                  "pip install 'catansim[notebooks]'")


def test_the_explorer_shows_the_chosen_boards_fairness():
    x = BoardExplorer(layout="variable", seed=5)
    assert x.board == make_board("variable", 5)
    assert x.fairness.index == fairness(make_board("variable", 5), 4).index
    assert f"{x.fairness.index:.3f}" in x.fairness_html.value
    assert x.board_out.value.tobytes().startswith(PNG)  # the board is drawn
    x.seed.value = 6
    assert x.board == make_board("variable", 6)
    x.players.value = 3
    assert x.fairness.index == fairness(make_board("variable", 6), 3).index
    assert x.fairness_html.value.count("<tr>") == 1 + 3
    x.layout.value = "beginner"
    assert x.board == beginner_board() and x.seed.disabled
    assert x.text.value == compact_text(beginner_board())


def test_an_edited_board_is_drawn_and_a_bad_one_is_one_line_in_red():
    x = BoardExplorer(layout="beginner")
    edited = make_board("balanced", 9)
    x.text.value = compact_text(edited)
    x.use_text.click()
    assert x.board == edited and x.layout.value == "edit" and x.message.value == ""
    assert x.fairness.index == fairness(edited, 4).index
    x.text.value = x.text.value.replace("D", "X", 1)
    x.use_text.click()
    assert x.board == edited  # kept
    assert re.fullmatch(r"<span style='color:#c62828'>board\.terrains\[\d+\]: unknown terrain "
                        r".*; allowed: .*</span>", x.message.value)


def test_the_value_map_runs_the_openings_with_its_progress_bar():
    x = BoardExplorer(layout="variable", seed=5, games=10)
    x.seat.value = 1
    seen = []
    x.progress.observe(lambda change: seen.append(change["new"]), names="value")
    values = x.value_map()
    arms = values["arms"]
    assert set(arms["seat"]) == {1} and (arms["n"] == 10).all()
    assert x.progress.value == x.progress.max == 10 * (len(arms) + 1)
    assert seen == [10 * k for k in range(1, len(arms) + 2)]  # a step per part played
    assert x.value_out.value.tobytes().startswith(PNG) and not x.value_button.disabled


def test_the_stepper_shows_each_events_state():
    game = play_game(7, settings=GameSettings(n_players=4, strategies=("default",) * 4,
                                              layout="variable"), log=True)
    h, e = game_log(game)
    expected = public_counts(4, e, h["board"]["robber"])
    g = GameStepper(h, e)
    for k in (0, 30, len(e) // 2, len(e) - 1):
        g.slider.value = k
        cells = re.findall(r"<tr><td>(\w+)</td><td><b>(\d+)</b></td><td>(\d+)</td><td>(\d+)</td>",
                           g.seats_html.value)
        assert [c[0] for c in cells] == ["red", "blue", "white", "orange"]
        assert [int(c[1]) for c in cells] == expected[k]["vp_visible"]
        assert [int(c[2]) for c in cells] == expected[k]["hand"]
        assert [int(c[3]) for c in cells] == expected[k]["dev"]
        assert g.line.value == f"<b>{g.view['text'][k]}</b>"
    g.show_all.value = True
    assert re.findall(r"<td><b>(\d+)</b>", g.seats_html.value) == [
        str(v) for v in expected[-1]["vp_total"]]
    g.prev.click()
    assert g.slider.value == len(e) - 2
    assert g.board_out.value.tobytes().startswith(PNG)
