"""``catansim study all``: every study, one after the other, each into its own folder,
each with its headlines beside ``classic``'s."""

from __future__ import annotations

import contextlib
import io
import re

import pandas as pd
import pytest
from cli_harness import run_main

import catansim.commands.study as S
from catansim.cli import main
from catansim.studies import MODULES, Study, get
from catansim.studies import _headlines as H


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """``catansim study all --scale small --out OUT``, and what it printed."""
    out = tmp_path_factory.mktemp("all")
    text = io.StringIO()
    with contextlib.redirect_stdout(text), contextlib.redirect_stderr(io.StringIO()):
        main(["study", "all", "--scale", "small", "--out", str(out), "--no-progress"])
    return out, text.getvalue()


def test_all_builds_every_study_into_its_own_folder_in_order(built):
    out, printed = built
    wrote = re.findall(r"^wrote (\S+) \(([\d,]+) s, ([\d,]+) CPU s\)$", printed, re.M)
    assert [p for p, _, _ in wrote] == [str(out / name / "report.html") for name in MODULES]
    for name in MODULES:
        folder = out / name
        assert (folder / "report.html").is_file() and (folder / "README.md").is_file()
        assert "<section id='headlines'>" in (folder / "report.html").read_text()
        readme = (folder / "README.md").read_text()
        assert "## Headlines: `classic`, `default` and the search player" in readme


@pytest.mark.parametrize("name", list(MODULES))
def test_each_headline_is_its_tables_row_beside_classics(built, name):
    """The comparison's default columns are the rows of this build's own tables (read
    again here from the CSVs it wrote), its classic columns the package's frozen ones."""
    out, _ = built
    cmp = pd.read_csv(out / name / "tables" / "headlines.csv", index_col="key",
                      dtype={"classic_detail": str, "default_detail": str})
    assert list(cmp.index) == [h.key for h in H.HEADLINES[name]]
    again = H.read(name, H.tables_in(out / name / "tables"))
    for col in H.COLUMNS:
        mine = "default" if col == "estimate" else f"default_{col}"
        pd.testing.assert_series_equal(cmp[mine], again[col], check_names=False)
    frozen = H.classic(name)
    pd.testing.assert_series_equal(cmp["classic"], frozen["estimate"], check_names=False)
    # the README shows each figure with its n, in the headline's unit
    readme = (out / name / "README.md").read_text()
    h0 = H.HEADLINES[name][0]
    r0 = cmp.iloc[0]
    assert H.cell(h0, r0["default"], r0["default_ci_low"], r0["default_ci_high"],
                  r0["default_n"], "" if pd.isna(r0["default_detail"])
                  else str(r0["default_detail"])) in readme


def test_all_refuses_export_and_names_itself_among_the_studies(tmp_path, capsys):
    code, _, err = run_main(["study", "all", "--export", tmp_path / "x"], capsys)
    assert code == 2 and err.count("\n") == 1
    assert "--export: needs one study NAME, not all; allowed: openings" in err
    assert not (tmp_path / "x").exists()
    code, _, err = run_main(["study", "alll"], capsys)
    assert code == 2 and "study: 'alll' is not a study (did you mean 'all'?); allowed: " \
        "openings, robber, seats-and-boards, shortages, all" in err


def test_a_build_stopped_in_one_study_resumes_from_the_done_ones(tmp_path, monkeypatch,
                                                                 capsys):
    """``all`` calls each study's own (resumable) build in order, into OUT/NAME: after a
    stop in the third study the same command calls every build again, each of which
    resumes its own datasets (each study's tests check that a build resumes)."""
    calls = []

    def fake(name):
        def build(out, scale, scheduler, progress):
            calls.append((name, out, scale))
            if name == list(MODULES)[2] and len(calls) == 3:
                raise KeyboardInterrupt
            return out / "report.html"
        return build

    studies = {name: Study(name, get(name).title, fake(name)) for name in MODULES}
    monkeypatch.setattr(S, "get", studies.__getitem__)
    code, _, _ = run_main(["study", "all", "--scale", "small", "--out", tmp_path], capsys)
    assert code == 130 and [c[0] for c in calls] == list(MODULES)[:3]  # stopped, as Ctrl-C
    code, stdout, _ = run_main(["study", "all", "--scale", "small", "--out", tmp_path], capsys)
    assert code == 0 and [c[0] for c in calls[3:]] == list(MODULES)
    assert all(c[1] == tmp_path / c[0] and c[2] == "small" for c in calls)
    assert stdout.count("wrote ") == len(MODULES)
