"""``catansim report``: the sections a dataset supports, self-contained HTML, CSV and PNG,
one-line errors, and the page rendered by a real browser (headless Chromium)."""

from __future__ import annotations

import re
import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest

from catansim.cli import main
from catansim.runs.experiment import parse_experiment
from catansim.runs.runner import run_experiment

VARIANTS = {"name": "rv", "games": 160, "players": 4, "seed": 3, "batch_size": 60,
            "strategies": ["default", "army", "builder", "city"], "rotate": True,
            "variants": {"friendly": {"rules": {"robber": "friendly"}}}}
PLAIN = {"name": "plain", "games": 120, "players": 3, "seed": 1, "batch_size": 50,
         "strategies": ["default"], "board": "variable:42"}
H2_RGB = (31, 78, 121)  # the section headings' background (#1f4e79, html.CSS)


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("rep")
    out = {}
    for spec in (VARIANTS, PLAIN):
        ds = tmp / spec["name"]
        run_experiment(parse_experiment(spec), out=ds, progress=False)
        main(["report", str(ds), "--no-progress"])
        out[spec["name"]] = ds / "report"
    return out


def _sections(html: str) -> list[str]:
    return re.findall(r"<section id='(\w+)'>", html)


def test_sections_follow_what_the_dataset_has(reports):
    rv = (reports["rv"] / "report.html").read_text()
    plain = (reports["plain"] / "report.html").read_text()
    assert _sections(rv) == ["anatomy", "seats", "strategies", "variants", "position"]
    assert _sections(plain) == ["anatomy", "seats", "position"]
    for html in (rv, plain):
        assert html.count("<p class='note'><b>Method.</b>") == len(_sections(html))
        assert "interval:" in html and "n = " in html


def test_the_header_names_the_fixed_board(reports):
    """A dataset played on one given board names it by its board_id (the id
    ``catansim board`` prints); a dataset of dealt boards names its layout."""
    from catansim.board import make_board

    plain = (reports["plain"] / "report.html").read_text()
    board_id = make_board("variable", 42).board_id
    assert f"<dt>layout</dt><dd>given: one board for every game, board_id {board_id}</dd>" \
        in plain
    rv = (reports["rv"] / "report.html").read_text()
    assert "<dt>layout</dt><dd>variable</dd>" in rv


def test_the_html_is_self_contained(reports):
    html = (reports["rv"] / "report.html").read_text()
    assert "<script" not in html
    assert not re.search(r"(src|href)=['\"]?(https?:)?//", html)
    imgs = re.findall(r"<img [^>]*src='([^']*)'", html)
    assert len(imgs) >= 10 and all(s.startswith("data:image/png;base64,") for s in imgs)


def test_tables_and_figures_are_written_beside_it(reports):
    d = reports["rv"]
    csv = {p.stem for p in (d / "tables").glob("*.csv")}
    assert {"game_length", "per_game", "seat_win_rates", "seat_test", "paired_differences",
            "strategy_rating", "win_model", "human_comparison"} <= csv
    png = list((d / "figures").glob("*.png"))
    assert len(png) >= 10 and all(p.read_bytes()[:4] == b"\x89PNG" for p in png)
    paired = pd.read_csv(d / "tables" / "paired_differences.csv")
    assert {"n", "ci_low", "ci_high", "unpaired_ci_low", "width_ratio", "p_adjusted",
            "method"} <= set(paired.columns)
    assert (paired["n"] == 160).all()
    # the fixed board is drawn under the starting-node heat map
    assert (reports["plain"] / "figures" / "start_nodes.png").exists()


def test_errors_are_one_line(tmp_path, capsys, reports):
    with pytest.raises(SystemExit) as err:
        main(["report", str(tmp_path / "missing")])
    assert err.value.code == 2
    assert capsys.readouterr().err.strip() == (
        f"catansim: error: DATASET: {tmp_path / 'missing'}: folder not found; allowed: a "
        "dataset folder written by catansim run")
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(SystemExit):
        main(["report", str(reports["plain"].parent), "--out", str(blocker / "sub"),
              "--no-progress"])
    line = capsys.readouterr().err.strip()
    assert line == (f"catansim: error: --out: {blocker / 'sub'}: {blocker} is a file, not a "
                    "folder; allowed: a folder path (created if missing)")
    assert "\n" not in line


def _chromium():
    return shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(_chromium() is None, reason="chromium is not installed (.ci/run installs it)")
@pytest.mark.parametrize("name", ["rv", "plain"])
def test_the_report_renders_in_chromium_with_every_section(reports, name, tmp_path):
    """Screenshot the whole page; count the section heading bars (their colour) and check
    the inlined figures were decoded (pixels of the figures' first palette colour)."""
    import matplotlib.image as mpimg

    html = reports[name] / "report.html"
    shot = tmp_path / f"{name}.png"
    cmd = [_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
           "--no-first-run", "--disable-background-networking", "--disable-component-update",
           "--disable-sync", f"--user-data-dir={tmp_path / 'profile'}", "--hide-scrollbars",
           "--window-size=1280,16000", f"--screenshot={shot}", html.as_uri()]
    subprocess.run(cmd, check=True, capture_output=True, timeout=180)
    img = (mpimg.imread(shot)[..., :3] * 255).round().astype(np.int16)
    is_h2 = (np.abs(img - np.array(H2_RGB)).sum(axis=2) <= 6).sum(axis=1) > 600
    bands = int(np.sum(is_h2[1:] & ~is_h2[:-1]) + is_h2[0])
    want = len(_sections(html.read_text()))
    assert bands == want, f"{bands} heading bars in the screenshot, {want} sections"
    blue = (np.abs(img - np.array((0, 114, 178))).sum(axis=2) <= 30).sum()
    assert blue > 5000  # bars and lines of the figures
    # the page ends inside the window (all of it was captured): white/grey bottom rows
    last = np.flatnonzero(is_h2)[-1]
    assert last < img.shape[0] - 1000
