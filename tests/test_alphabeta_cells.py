"""``experiments/ladder/alphabeta_cells.py``: the three alpha-beta cells read together,
checked on small hand-made ladder folders whose counts are known."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from catansim.errors import CatansimError

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "experiments" / "ladder" / "alphabeta_cells.py"
spec = importlib.util.spec_from_file_location("alphabeta_cells", SCRIPT)
cells_mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(cells_mod)

AB = "catanatron:AlphaBetaPlayer:2"


def _cell(single: str, other: str, wins_by_deal: dict[int, set[int]], seed0: int = 100):
    """A cell's games: in deal d the single player wins in the seats wins_by_deal[d] and
    a copy of the other (the next seat) wins elsewhere."""
    rows = []
    for deal, won in wins_by_deal.items():
        for seat in range(4):
            seats = [other] * 4
            seats[seat] = single
            rows.append({"pair": 0, "deal": deal, "seed": seed0 + deal, "strategy": single,
                         "opponent": other, "single_seat": seat,
                         **{f"seat_{i}": seats[i] for i in range(4)},
                         "winner": seat if seat in won else (seat + 1) % 4})
    return pd.DataFrame(rows)


def _folder(tmp_path: Path, name: str, games: pd.DataFrame, parts: bool = False) -> Path:
    folder = tmp_path / name
    if parts:  # a ladder's --out while it runs: one part file a deal
        (folder / "games").mkdir(parents=True)
        for deal, g in games.groupby("deal"):
            g.to_csv(folder / "games" / f"p000-d{deal:07d}.csv", index=False)
    else:
        folder.mkdir()
        games.to_csv(folder / "games.csv", index=False)
    return folder


@pytest.fixture
def folders(tmp_path):
    ab = _cell(AB, "default", {0: set(), 1: {2}, 2: set()})
    default = _cell("default", AB, {0: {0, 1}, 1: {0, 1, 2}, 2: {3}})
    # the search player: deal 2 is not complete yet (three seats played)
    search = _cell("search:200", AB, {0: {0, 1, 2}, 1: {1}, 2: {0}})
    search = search[~((search["deal"] == 2) & (search["single_seat"] == 3))]
    return [_folder(tmp_path, "ab", ab), _folder(tmp_path, "default", default),
            _folder(tmp_path, "search", search, parts=True)]


def test_the_cells_counted_on_the_deals_all_hold(folders, tmp_path):
    out = tmp_path / "out"
    assert cells_mod.main([*map(str, folders), "--out", str(out)]) == 0
    cells = pd.read_csv(out / "cells.csv").set_index("single")
    # deals 0 and 1 only: deal 2 is incomplete in the search folder
    assert cells["games"].tolist() == [8, 8, 8]
    assert cells.loc[AB, "wins"] == 1
    assert cells.loc["default", "wins"] == 5
    assert cells.loc["search:200", "wins"] == 4
    assert cells.loc["search:200", "win_rate"] == 0.5
    assert (cells["ci_low"] < cells["win_rate"]).all()
    assert (cells["win_rate"] < cells["ci_high"]).all()
    # 4 of 8 against a half, one-sided: P(X >= 4) under Binomial(8, 0.5)
    assert cells.loc["search:200", "p_above_half"] == pytest.approx(163 / 256)


def test_the_two_players_paired_seat_by_seat(folders, tmp_path):
    out = tmp_path / "out"
    cells_mod.main([*map(str, folders), "--out", str(out)])
    paired = pd.read_csv(out / "paired.csv").iloc[0]
    # deal 0: search wins seats 0-2, default 0-1 -> search alone in seat 2
    # deal 1: search wins seat 1, default 0-2 -> default alone in seats 0 and 2
    assert paired["seatings"] == 8
    assert paired["only_first_won"] == 1
    assert paired["only_second_won"] == 2
    # per deal: (3 - 2) / 4 = 0.25 and (1 - 3) / 4 = -0.5
    assert paired["difference"] == pytest.approx(-0.125)
    assert paired["deals"] == 2


def test_the_terminal_prints_small_p_values_as_numbers(folders, tmp_path, capsys):
    cells_mod.main([*map(str, folders), "--out", str(tmp_path / "out")])
    out = capsys.readouterr().out
    row = next(line.split() for line in out.splitlines() if line.lstrip().startswith("default"))
    assert row[-1] == cells_mod.p_text(93 / 256)  # 5 of 8 against a half, one-sided
    cells = pd.DataFrame({"p_value": [1.8e-15], "p_adjusted": [3.5e-15],
                          "p_above_half": [1.0], "win_rate": [0.03646]})
    shown = cells_mod.shown(cells, cells_mod.P_OF_CELLS).iloc[0]
    assert (shown["p_value"], shown["p_adjusted"], shown["win_rate"]) == ("1.8e-15", "3.5e-15",
                                                                        0.0365)


def test_the_rating_puts_the_weaker_player_below(folders, tmp_path):
    out = tmp_path / "out"
    cells_mod.main([*map(str, folders), "--out", str(out)])
    rating = pd.read_csv(out / "rating.csv")
    strat = rating[rating["kind"] == "strategy"].set_index("name")
    assert strat.loc["default", "log_strength"] == 0
    assert strat.loc[AB, "log_strength"] < 0


def test_a_deal_of_another_seed_is_refused(folders, tmp_path):
    games = pd.read_csv(folders[1] / "games.csv")
    games.loc[games["deal"] == 1, "seed"] += 1
    games.to_csv(folders[1] / "games.csv", index=False)
    with pytest.raises(CatansimError, match="deal 1 has different seeds"):
        cells_mod.main([*map(str, folders), "--out", str(tmp_path / "out")])


def test_a_folder_without_games_is_one_line(tmp_path):
    (tmp_path / "empty").mkdir()
    run = subprocess.run([sys.executable, str(SCRIPT), str(tmp_path / "empty"),
                          "--out", str(tmp_path / "out")], capture_output=True, text=True)
    assert run.returncode == 2
    assert run.stderr.count("\n") == 1
    assert "no games.csv and no games/*.csv" in run.stderr
    assert not (tmp_path / "out").exists()


def test_a_cell_given_twice_is_refused(folders, tmp_path):
    with pytest.raises(CatansimError, match="is in two of them"):
        cells_mod.main([*map(str, folders), str(folders[1]), "--out", str(tmp_path / "out")])


def test_the_field_rating_places_the_bot_among_the_field(folders, tmp_path):
    # a field of default and builder: builder never wins alone, default always does
    field = pd.concat([_cell("default", "builder", {0: {0, 1, 2, 3}, 1: {0, 1, 2}}),
                       _cell("builder", "default", {0: {1}, 1: set()})])
    field["pair"] = [0] * 8 + [1] * 8
    out = tmp_path / "out"
    assert cells_mod.main([*map(str, folders), "--out", str(out), "--field",
                           str(_folder(tmp_path, "field", field))]) == 0
    rating = pd.read_csv(out / "field-rating.csv")
    strat = rating[rating["kind"] == "strategy"].set_index("name")
    assert set(strat.index) == {"default", "builder", AB, "search:200"}
    assert strat.loc["default", "log_strength"] == 0
    assert strat.loc["builder", "log_strength"] < 0
    # n: the games each sat in, the field's and the cells' (deals 0 and 1 of each cell)
    assert strat.loc["default", "games"] == 16 + 8 + 8
    assert strat.loc["builder", "games"] == 16
    # the cells' own rating is the same as without --field
    alone = tmp_path / "alone"
    cells_mod.main([*map(str, folders), "--out", str(alone)])
    pd.testing.assert_frame_equal(pd.read_csv(out / "rating.csv"),
                                  pd.read_csv(alone / "rating.csv"))


def test_a_field_without_the_reference_is_refused(folders, tmp_path):
    field = _folder(tmp_path, "field", _cell("builder", "city", {0: {0}}))
    with pytest.raises(CatansimError, match="--field: 'default' is not in its field"):
        cells_mod.main([*map(str, folders), "--out", str(tmp_path / "out"), "--field",
                        str(field)])
