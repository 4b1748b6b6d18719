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
