"""Each study's headlines (``studies._headlines``): the row of a table each names, read
with its interval and n; ``classic``'s, frozen as package data, are what that reading
gives on the tables committed at the commit they name."""

from __future__ import annotations

import io
import re
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from catansim.errors import CatansimError
from catansim.studies import MODULES
from catansim.studies import _headlines as H

ROOT = Path(__file__).resolve().parents[1]


def test_every_study_has_headlines_each_with_its_words():
    assert set(H.HEADLINES) == set(MODULES)
    for name, specs in H.HEADLINES.items():
        keys = [h.key for h in specs]
        assert len(set(keys)) == len(keys) >= 8, name
        assert all(h.label for h in specs)


def _git_show(commit: str, path: str) -> str | None:
    run = subprocess.run(["git", "-C", str(ROOT), "show", f"{commit}:{path}"],
                         capture_output=True, text=True)
    return run.stdout if run.returncode == 0 else None


@pytest.mark.parametrize("name", list(MODULES))
def test_classics_headlines_are_the_rows_of_the_tables_at_their_commit(name, tmp_path):
    """Read again from ``git show COMMIT:results/NAME/tables/T.csv`` (an independent
    copy of the tables classic's builds committed): the same numbers."""
    frozen = H.classic(name)
    assert list(frozen.index) == [h.key for h in H.HEADLINES[name]]
    found = frozen["source"].str.extract(r"^(results/[^ ]+\.csv) at commit ([0-9a-f]{40})$")
    assert found.notna().all().all(), frozen["source"].tolist()
    for (path, commit) in set(map(tuple, found.to_numpy())):
        text = _git_show(commit, path)
        if text is None:
            pytest.skip(f"no git history with {commit[:12]} here")
        (tmp_path / Path(path).name).write_text(text)
    again = H.read(name, H.tables_in(tmp_path))
    for col in H.COLUMNS:
        np.testing.assert_allclose(again[col], frozen[col], rtol=1e-12)


def _table():
    return pd.DataFrame({"variant": ["a", "a", "b"], "outcome": ["x", "y", "x"],
                         "diff": [0.1, -0.2, 0.3], "ci_low": [0.05, -0.25, 0.2],
                         "ci_high": [0.15, -0.15, 0.4], "n": [100, 200, 300],
                         "best_node": [28, 31, 7]})


def test_a_headline_is_its_row_negated_or_square_rooted_as_it_says(monkeypatch):
    specs = (H.Headline("plain", "t", {"variant": "a", "outcome": "y"}, "diff", detail="best_node"),
             H.Headline("neg", "t", {"variant": "b"}, "diff", negate=True),
             H.Headline("root", "t", {"variant": "a", "outcome": "x"}, "diff", sqrt=True),
             H.Headline("none", "t", {"variant": "c"}, "diff"),
             H.Headline("other", "elsewhere", {"variant": "a"}, "diff"))
    monkeypatch.setitem(H.HEADLINES, "toy", specs)
    monkeypatch.setattr(H.Headline, "label", property(lambda h: h.key))
    got = H.read("toy", {"t": _table()})
    assert got.loc["plain", H.COLUMNS].tolist() == [-0.2, -0.25, -0.15, 200]
    assert got.loc["plain", "detail"] == "31"  # the node as the table has it, not 31.0
    assert got.loc["neg", H.COLUMNS].tolist() == [-0.3, -0.4, -0.2, 300]
    np.testing.assert_allclose(got.loc["root", ["ci_low", "ci_high"]].astype(float),
                               [np.sqrt(0.05), np.sqrt(0.15)])
    assert got.loc[["none", "other"], H.COLUMNS].isna().all().all()
    # the figures as shown, in each headline's unit; an absent one says so
    assert H.cell(specs[0], -0.2, -0.25, -0.15, 200, "31") == \
        "-20.0 points [-25.0, -15.0] (node 31; n = 200)"
    rate = H.Headline("r", "t", unit="%", signed=False)
    assert H.cell(rate, 0.292425, 0.287987, 0.296902, 40000) == \
        "29.2% [28.8, 29.7] (n = 40,000)"
    assert H.cell(rate, np.nan, np.nan, np.nan, np.nan) == "not measured"


def test_a_headline_that_names_several_rows_is_refused(monkeypatch):
    monkeypatch.setitem(H.HEADLINES, "toy", (H.Headline("two", "t", {"variant": "a"}),))
    monkeypatch.setattr(H.Headline, "label", property(lambda h: h.key))
    with pytest.raises(CatansimError, match=r"^headline two: 2 rows of t match "
                                            r"\{'variant': 'a'\}; allowed: "):
        H.read("toy", {"t": _table()})


def test_tables_read_back_from_a_reports_sections_as_their_csv_files_read():
    from catansim.reports import Section

    s = Section("k", "t", "n")
    frame = _table().set_index(["variant", "outcome"])
    s.table("t", frame.head(1), "caption", frame)
    got = H.tables_of([s])["t"]
    pd.testing.assert_frame_equal(got, pd.read_csv(io.StringIO(frame.to_csv())))
    assert re.fullmatch(r"[\w-]+", H.KEY)


@pytest.mark.parametrize("a, b, expected", [
    # overlapping intervals, the same sign: holds
    ((0.050, 0.056), (0.044, 0.051), H.HOLDS),
    # touching at one end counts as sharing a point
    ((0.10, 0.20), (0.20, 0.30), H.HOLDS),
    # overlapping across zero with estimates of opposite signs (seat index): holds
    ((-0.0005, 0.0014), (-0.0015, 0.0006), H.HOLDS),
    # both wholly above zero but disjoint: changes size
    ((0.955, 0.9555), (0.941, 0.942), H.CHANGES_SIZE),
    # both wholly below zero, disjoint: changes size
    ((-0.12, -0.11), (-0.10, -0.09), H.CHANGES_SIZE),
    # disjoint, one of them holding zero: changes size, not sign
    ((0.02, 0.05), (-0.01, 0.01), H.CHANGES_SIZE),
    # wholly above against wholly below: changes sign, either way round
    ((0.01, 0.03), (-0.04, -0.02), H.CHANGES_SIGN),
    ((-0.04, -0.02), (0.01, 0.03), H.CHANGES_SIGN),
    # an interval ending exactly at zero excludes nothing on that side: not a sign change
    ((0.0, 0.03), (-0.04, -0.02), H.CHANGES_SIZE),
    # a zero-width interval (n in the millions) inside the other: holds
    ((0.5, 0.5), (0.4, 0.6), H.HOLDS),
])
def test_the_verdict_reads_two_intervals_as_its_rule_says(a, b, expected):
    assert H.verdict(*a, *b) == expected


def test_the_verdict_against_an_independent_reading_of_the_rule():
    """On random interval pairs, the verdict agrees with the rule as sets: the shared
    points of [a] and [b], and the signs each interval excludes."""
    rng = np.random.default_rng(5)
    seen = set()
    for _ in range(2000):
        ends = np.round(rng.uniform(-1, 1, 4), 1)
        a, b = sorted(ends[:2]), sorted(ends[2:])
        grid = np.round(np.arange(-10, 11) / 10, 1)
        shared = [x for x in grid if a[0] <= x <= a[1] and b[0] <= x <= b[1]]
        signs = [1 if lo > 0 else -1 if hi < 0 else 0 for lo, hi in (a, b)]
        want = (H.CHANGES_SIGN if signs[0] * signs[1] == -1
                else H.HOLDS if shared else H.CHANGES_SIZE)
        assert H.verdict(*a, *b) == want, (a, b)
        seen.add(want)
    assert seen == set(H.VERDICTS)


def test_the_verdict_of_a_missing_interval_is_none_and_a_reversed_one_an_error():
    assert H.verdict(np.nan, np.nan, 0.1, 0.2) is None
    assert H.verdict(0.1, 0.2, 0.1, np.nan) is None
    with pytest.raises(CatansimError, match=r"^verdict: an interval with its low end above "
                                            r"its high end .*; allowed: lo <= hi$"):
        H.verdict(0.3, 0.2, 0.1, 0.2)


def test_a_headline_shows_each_kind_of_player_and_its_verdict(monkeypatch):
    specs = (H.Headline("up", "t"), H.Headline("flip", "t"), H.Headline("gone", "t"))
    monkeypatch.setitem(H.HEADLINES, "toy", specs)
    cmp = pd.DataFrame({
        "headline": ["up", "flip", "gone"],
        "classic": [0.05, 0.02, 0.01], "classic_ci_low": [0.04, 0.01, 0.0],
        "classic_ci_high": [0.06, 0.03, 0.02], "classic_n": [100, 100, 100],
        "classic_detail": ["", "", ""],
        "default": [0.08, -0.02, np.nan], "default_ci_low": [0.07, -0.03, np.nan],
        "default_ci_high": [0.09, -0.01, np.nan], "default_n": [100, 100, np.nan],
        "default_detail": ["", "", ""]}, index=["up", "flip", "gone"])
    got = H.shown("toy", cmp)
    assert got["verdict"].tolist() == [H.CHANGES_SIZE, H.CHANGES_SIGN, "not measured"]
    assert (got["search"] == "not measured").all()
    assert got.loc["flip", "default"] == "-2.0 points [-3.0, -1.0] (n = 100)"
    # a search column, once measured, is read against classic too: the furthest verdict
    cmp = cmp.assign(search=[0.05, 0.02, 0.01], search_ci_low=[0.045, 0.015, -0.03],
                     search_ci_high=[0.055, 0.025, -0.01], search_n=[50, 50, 50],
                     search_detail=["", "", ""])
    got = H.shown("toy", cmp)
    assert got["verdict"].tolist() == [H.CHANGES_SIZE, H.CHANGES_SIGN, H.CHANGES_SIZE]
    assert got.loc["up", "search"] == "+5.0 points [+4.5, +5.5] (n = 50)"


def test_the_search_players_headlines_join_the_comparison_where_measured(monkeypatch,
                                                                          tmp_path):
    """``search/<study>.csv`` (rows of the headlines measured) becomes the ``search``
    columns of ``compare``: its figures where it has a row, NaN (not measured) where not;
    without the file there is no search column."""
    name = "openings"
    this = H.classic(name)  # any frame of read()'s form serves as this build's
    monkeypatch.setattr(H, "SEARCH", tmp_path)
    assert "search" not in H.compare(name, this).columns
    key = this.index[0]
    row = this.loc[[key]].assign(estimate=0.001, ci_low=-0.002, ci_high=0.004, n=4000.0,
                                 detail="28", source="a run")
    H.write_search(name, row)
    assert (tmp_path / f"{name}.csv").is_file()
    cmp = H.compare(name, this)
    assert cmp.loc[key, ["search", "search_ci_low", "search_ci_high", "search_n"]].tolist() \
        == [0.001, -0.002, 0.004, 4000.0]
    assert cmp.loc[key, "search_detail"] == "28"
    others = cmp.index != key
    assert cmp.loc[others, "search"].isna().all()
    shown = H.shown(name, cmp)
    assert shown.iloc[0]["search"].startswith("+0.1 points [-0.2, +0.4] (")
    assert (shown.iloc[1:]["search"] == "not measured").all()
    # read against classic's interval (+29.4 [+27.4, +31.4]) the search figure changes size
    assert shown.iloc[0]["verdict"] == H.CHANGES_SIZE


@pytest.mark.parametrize("name", list(MODULES))
def test_the_search_players_headlines_name_a_run_this_history_holds(name):
    """Each row of ``search/<study>.csv`` names the experiment file it was played from
    (and the engine that played it) and a commit; that commit holds the file as it is
    today."""
    found = H.search(name)
    if found is None:
        pytest.skip(f"no search headlines of {name} yet")
    assert set(found.index) <= {h.key for h in H.HEADLINES[name]}
    # one run or several ("; "), each naming its engine, then the commit it was read at
    run = (r"experiments/strength/[\w.-]+\.toml \(.+?\)(?:, played by engine [0-9a-f]{16} "
           r"\(games digest [0-9a-f]+\))?")
    where = found["source"].str.extract(rf"^({run}(?:; {run})*),? (?:read )?at commit "
                                        r"([0-9a-f]{40})$")
    assert where.notna().all().all(), found["source"].tolist()
    files = {(f, commit) for runs, commit in where.to_numpy()
             for f in re.findall(r"experiments/strength/[\w.-]+\.toml", runs)}
    for path, commit in files:
        text = _git_show(commit, path)
        if text is None:
            pytest.skip(f"no git history with {commit[:12]} here")
        assert text == (ROOT / path).read_text()
