"""The opening study end to end: ``catansim openings`` on a board, ``catansim study openings
--scale small`` into a folder, its report rendered by headless Chromium."""

from __future__ import annotations

import re
import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest

from catansim.cli import main

H2_RGB = (31, 78, 121)


def test_the_openings_tool_prints_the_best_openings_and_writes_the_map(tmp_path, capsys):
    png, csv, data = tmp_path / "map.png", tmp_path / "map.csv", tmp_path / "data"
    args = ["openings", "--layout", "variable", "--seed", "7", "--seat", "0,3", "--games", "30",
            "--top", "4", "--png", str(png), "--csv", str(csv), "--data", str(data),
            "--no-progress"]
    main(args)
    out = capsys.readouterr().out
    assert "seat 0 (red), first settlement: the strategy's own choice is node" in out
    assert "seat 3 (orange)" in out and "seat 1 (blue)" not in out
    assert out.count("own choice\n") + out.count("own choice") >= 2
    assert png.read_bytes()[:4] == b"\x89PNG"
    t = pd.read_csv(csv)
    assert len(t) == 2 * 54 and set(t["seat"]) == {0, 3} and (t["n"] == 30).all()
    assert "3,270 games played" in out  # 1 + 108 variants x 30
    main(args)  # a second time: the dataset is there, nothing to play
    again = capsys.readouterr().out
    assert "0 games played" in again and "parts already in" in again
    assert pd.read_csv(csv).equals(t)
    # The map names a seat by the colour it has with the number playing: seat 0 alone is
    # red with four players, blue with three (red sits out), and rows of seat 0 alone
    # cannot say which (its title used to call four players' seat 0 blue).
    import matplotlib.pyplot as plt

    from catansim.board import make_board
    from catansim.errors import CatansimError
    from catansim.plotting.openings import value_map_figure

    seat0 = t[t["seat"] == 0]
    for n, colour in ((4, "red"), (3, "blue")):
        fig = value_map_figure(seat0, make_board("variable", 7), n_players=n)
        assert fig.axes[0].get_title().startswith(f"seat 0 ({colour}): own choice node")
        plt.close(fig)
    with pytest.raises(CatansimError, match="n_players: these rows have seats up to 0"):
        value_map_figure(seat0, make_board("variable", 7))



def test_the_openings_api_gives_the_tools_numbers(tmp_path, capsys):
    """``catansim openings`` is a shell over ``studies.openings.measure_openings``: the
    same board, seats and games through the API give the command's CSV and its best
    openings, and the dataset the API keeps is read back without playing again."""
    from catansim.studies.openings import measure_openings

    csv = tmp_path / "map.csv"
    main(["openings", "--layout", "variable", "--seed", "5", "--seat", "1", "--games", "20",
          "--top", "3", "--png", str(tmp_path / "map.png"), "--csv", str(csv),
          "--no-progress"])
    out = capsys.readouterr().out
    m = measure_openings("variable:5", players=4, seats=[1], games=20,
                         data=tmp_path / "data", progress=False)
    pd.testing.assert_frame_equal(pd.read_csv(csv, index_col=0), m.arms,
                                  check_dtype=False, check_index_type=False,
                                  check_categorical=False)
    assert m.run.games_written == 55 * 20 and m.kind == "first"
    best = m.best(1, top=3)
    assert len(best) == 3 and best["node"].tolist() == m.arms.sort_values(
        "diff", ascending=False)["node"].head(3).tolist()
    for row in best.itertuples(index=False):
        assert f"{row.node}" in out and row._5 in out  # the "vs own choice" cell, printed
    s = m.summary(1)
    assert (f"own choice is node {s['own_node']}, which wins {100 * s['base_win_rate']:.1f}% "
            f"of 20 games") in out
    again = measure_openings("variable:5", seats=[1], games=20, data=tmp_path / "data",
                             progress=False)
    assert again.run.games_written == 0
    pd.testing.assert_frame_equal(again.arms, m.arms)


@pytest.mark.parametrize("args, message", [
    (["--seat", "4"], "--seat: '4' is not allowed; allowed: 'all' or seats 0..3"),
    (["--seat", "0,0"], "--seat: '0,0' is not allowed"),
    (["--layout", "beginner", "--seed", "3"], "--seed: the beginner map is fixed"),
    (["--file", "nowhere.json"], "--file: nowhere.json is not a file"),
    (["--settlement", "3"], "--settlement: '3' is not allowed; allowed: 1, 2"),
    (["--games", "0"], "--games: 0 is not allowed"),
    (["--strategies", "nobody"], "--strategies"),
])
def test_the_openings_tool_errors_are_one_line(args, message, capsys, tmp_path):
    with pytest.raises(SystemExit) as err:
        main(["openings", "--png", str(tmp_path / "x.png"), *args])
    assert err.value.code == 2
    line = capsys.readouterr().err.strip().splitlines()[-1]
    assert line.startswith("catansim: error: ") and message in line
    assert not (tmp_path / "x.png").exists()


@pytest.fixture(scope="module")
def small_study(tmp_path_factory):
    out = tmp_path_factory.mktemp("study") / "openings"
    main(["study", "openings", "--scale", "small", "--out", str(out), "--no-progress"])
    return out


def _sections(html: str) -> list[str]:
    return re.findall(r"<section id='(\w+)'>", html)


def test_the_small_study_writes_its_report_tables_figures_and_readme(small_study):
    html = (small_study / "report.html").read_text()
    assert _sections(html) == ["question", "headlines", "beginner4", "second", "beginner3", "seats",
                               "boards", "model", "runs"]
    assert "<script" not in html and "catansim study: openings" in html
    assert "SCALE SMALL" in html
    tables = {p.stem for p in (small_study / "tables").glob("*.csv")}
    assert {"beginner4_top", "beginner4_placement", "boards_summary", "boards_value_maps",
            "model_coefficients", "model_calibration", "published_comparison", "runs",
            "model_choice", "model_picks"} <= tables
    figures = list((small_study / "figures").glob("*.png"))
    assert len(figures) >= 10 and all(p.read_bytes()[:4] == b"\x89PNG" for p in figures)
    readme = (small_study / "README.md").read_text()
    assert "catansim study openings --scale small" in readme and "## Runs" in readme
    runs = pd.read_csv(small_study / "tables" / "runs.csv", index_col=0)
    assert list(runs.index) == ["beginner4", "beginner3", "beginner4_second", "beginner4_pairs",
                                "boards"]
    from study_checks import assert_provenance

    assert_provenance(html, [p.parent for p in small_study.glob("data/**/manifest.json")])
    assert (runs["games"] > 0).all() and runs.loc["boards", "datasets"] == 3
    maps = pd.read_csv(small_study / "tables" / "boards_value_maps.csv")
    assert set(maps["board"]) == {1, 2, 3} and (maps["n"] == 40).all()
    pub = pd.read_csv(small_study / "tables" / "published_comparison.csv", index_col=0)
    assert set(pub.index) == {"min_income", "same_hex", "harbor_any"}
    # the win model's picks on the held-out board (3) are scored by that board's own arms
    picks = pd.read_csv(small_study / "tables" / "model_picks.csv")
    assert set(picks["board"]) == {3} and set(picks["seat"]) == {0, 1, 2, 3}
    assert (picks["predicted"] >= picks["predicted_own"]).all()
    own = picks["pick"] == "baseline"
    assert (picks.loc[own, "diff"] == 0).all()
    m = picks[~own].merge(maps, on=["board", "seat", "node"], suffixes=("", "_map"))
    assert len(m) == (~own).sum() and np.allclose(m["diff"], m["diff_map"])
    choice = pd.read_csv(small_study / "tables" / "model_choice.csv", index_col=0)
    assert np.allclose(choice["mean_diff"], picks.groupby("seat")["diff"].mean())


def test_rerunning_the_study_plays_nothing_and_gives_the_same_tables(small_study, capsys):
    before = pd.read_csv(small_study / "tables" / "beginner4_top.csv")
    runs = pd.read_csv(small_study / "tables" / "runs.csv", index_col=0)
    main(["study", "openings", "--scale", "small", "--out", str(small_study), "--no-progress"])
    pd.testing.assert_frame_equal(pd.read_csv(small_study / "tables" / "beginner4_top.csv"),
                                  before)
    again = pd.read_csv(small_study / "tables" / "runs.csv", index_col=0)
    assert (again["games_played_timed"] == runs["games_played_timed"]).all()


def _chromium():
    return shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(_chromium() is None, reason="chromium is not installed (.ci/run installs it)")
def test_the_study_report_renders_in_chromium(small_study, tmp_path):
    import matplotlib.image as mpimg

    html = small_study / "report.html"
    shot = tmp_path / "study.png"
    cmd = [_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
           "--no-first-run", "--disable-background-networking", "--disable-component-update",
           "--disable-sync", f"--user-data-dir={tmp_path / 'profile'}", "--hide-scrollbars",
           "--window-size=1280,24000", f"--screenshot={shot}", html.as_uri()]
    subprocess.run(cmd, check=True, capture_output=True, timeout=180)
    img = (mpimg.imread(shot)[..., :3] * 255).round().astype(np.int16)
    is_h2 = (np.abs(img - np.array(H2_RGB)).sum(axis=2) <= 6).sum(axis=1) > 600
    # the heading bars are about 38 px tall; a line of navigation links in the same colour
    # can fill a few rows too
    edges = np.flatnonzero(np.diff(np.r_[0, is_h2.astype(int), 0]))
    heights = edges[1::2] - edges[::2]
    assert (heights >= 20).sum() == len(_sections(html.read_text()))
    # the value maps were decoded: the sea of the board drawings
    sea = (np.abs(img - np.array((79, 143, 201))).sum(axis=2) <= 12).sum()
    assert sea > 50_000
    last = np.flatnonzero(is_h2)[-1]
    assert last < img.shape[0] - 1000


def test_a_placement_line_says_when_the_cross_fitted_choice_is_the_strategys_own():
    """Picked on both halves, the strategy's own node gains exactly 0 on every game: the
    line says so instead of printing a zero-width interval."""
    from catansim.studies._openings_report import _placement_lines

    row = {"choice_node": 28, "base_win_rate": 0.33, "rank": 1, "alternatives": 42,
           "n_better": 0, "best_node": 8, "best_diff": -0.03, "best_ci_low": -0.048,
           "best_ci_high": -0.011, "gain": 0.0, "gain_ci_low": 0.0, "gain_ci_high": 0.0,
           "selected_nodes": "strategy/strategy"}
    other = dict(row, selected_nodes="strategy/31", gain=0.012, gain_ci_low=-0.004,
                 gain_ci_high=0.028)
    place = pd.DataFrame([row, other], index=pd.MultiIndex.from_tuples(
        [(3, "first"), (2, "first")], names=["seat", "kind"]))
    kept, gained = _placement_lines(place, 4)
    assert kept.startswith("seat 3 (orange): own choice node 28 wins 33.0%")
    assert kept.endswith("keeps the strategy's own node on both halves")
    assert "[+0.0, +0.0]" not in kept
    assert gained.endswith("gains +1.2 [-0.4, +2.8] on the other half")
