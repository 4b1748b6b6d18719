"""``catansim study robber`` and ``catansim study shortages`` at the small scale: every
experiment file played, the report, tables, figures and README written, the report
rendered by a real browser (headless Chromium) with one heading bar per section."""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest

from catansim.cli import main
from catansim.runs.experiment import load_experiment
from catansim.studies import get

H2_RGB = (31, 78, 121)  # the section headings' background (reports.html.CSS)
STUDIES = {
    "robber": ["answer", "headlines", "switch", "rule", "catch_up", "policy", "discard",
               "tables", "seats", "runs"],
    "shortages": ["answer", "headlines", "rule19", "when", "supply", "rule9", "who", "mixes",
                  "runs"],
}


def test_study_help_lists_every_study_with_its_question(capsys):
    from cli_harness import run_main

    from catansim.studies import studies

    code, out, _ = run_main(["study", "--help"], capsys)
    assert code == 0
    listed = out[out.index("Studies:"):]
    found = studies()
    assert set(found) >= {"openings", "robber", "seats-and-boards", "shortages"}
    for study in found.values():
        assert re.search(rf"^  {re.escape(study.name)}\s+{re.escape(study.title[:30])}",
                         listed, re.M), study.name


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = {}
    for name in STUDIES:
        d = tmp_path_factory.mktemp(name)
        main(["study", name, "--scale", "small", "--out", str(d), "--no-progress"])
        out[name] = d
    return out


def _sections(html: str) -> list[str]:
    return re.findall(r"<section id='(\w+)'>", html)


@pytest.mark.parametrize("name", sorted(STUDIES))
def test_the_experiment_files_are_valid_and_large_enough(name):
    files = get(name).experiment_files()
    assert len(files) >= 4
    exps = {f.stem: load_experiment(f) for f in files}
    # the largest arms, at least 10^6 games each: the three robber rules over whole
    # games; the official and strict shortage rules and an unlimited bank at the official
    # supply
    h, arms = {"robber": ("rule", {"baseline", "off", "friendly"}),
               "shortages": ("rule19", {"baseline", "strict", "unlimited"})}[name]
    assert exps[h].games >= 10**6 and set(exps[h].variant_names) == arms
    # every other arm is sized by power, below those
    assert all(e.games < exps[h].games for k, e in exps.items() if k != h)
    total = sum(e.games * len(e.variants) for e in exps.values())
    # the study's share of the CPU budget (the robber's switch dataset adds 1.2 x 10^6)
    assert 4 * 10**6 <= total <= (7.5 if name == "robber" else 7) * 10**6
    if name == "robber":  # the headline: the robber switched off after turn 20 or 40
        sw = exps["switch"]
        assert sw.games >= 2 * 10**5
        rules = {v.name: v.rules for v in sw.variants}
        assert rules["baseline"].switch_turn is None
        for T in (20, 40):
            for arm in (f"off_after_{T}", f"random_off_after_{T}"):
                assert rules[arm].switch_turn == T and rules[arm].rules_after.robber == "off"


@pytest.mark.parametrize("name", sorted(STUDIES))
def test_small_scale_writes_report_tables_figures_and_readme(built, name):
    d = built[name]
    html = (d / "report.html").read_text()
    assert _sections(html) == STUDIES[name]
    assert "<script" not in html and not re.search(r"(src|href)=['\"]?(https?:)?//", html)
    assert html.count("<p class='note'><b>Method.</b>") == len(STUDIES[name])
    imgs = re.findall(r"<img [^>]*src='([^']*)'", html)
    pngs = sorted((d / "figures").glob("*.png"))
    assert len(imgs) == len(pngs) >= 6
    assert all(p.read_bytes()[:4] == b"\x89PNG" for p in pngs)
    csv = {p.stem for p in (d / "tables").glob("*.csv")}
    readme = (d / "README.md").read_text()
    assert f"catansim study {name} --scale small" in readme
    for stem in csv | {p.stem for p in pngs}:
        assert f"`{stem}." in readme, stem  # every table and figure is described
    # datasets of the small scale live apart from the full ones
    runs = json.loads((d / "runs.json").read_text())
    assert set(runs) == {"small"}
    for ds, rec in runs["small"].items():
        assert (d / "data" / "small" / ds / "manifest.json").exists()
        assert rec["games"] == 400 and rec["total_games"] == 400 * len(rec["variants"])
    # the header says what made the numbers: seeds, engine, rules, strategies
    from study_checks import assert_provenance

    assert_provenance(html, [d / "data" / "small" / ds for ds in runs["small"]])
    # the answer names its numbers with intervals and n
    answer = html.split("<section id='answer'>")[1].split("</section>")[0]
    assert answer.count("[") >= 6 and "n = " in answer


def test_the_switch_arms_are_the_same_games_up_to_the_switch_turn(built):
    # the standing at T (so its sole leader) is the same in both arms of each pair, and
    # the pairs differ after T: the design behind the robber study's headline
    from catansim.results.dataset import load

    _, players = load(built["robber"] / "data" / "small" / "switch")
    p = players.set_index(["game", "seat"])
    for arm, ref, T in (("off_after_40", "baseline", 40), ("off_after_20", "baseline", 20),
                        ("random_off_after_40", "random", 40)):
        a, b = p[p.variant == arm], p[p.variant == ref]
        assert len(a) == len(b) > 0
        assert (a[f"vp_turn_{T}"] == b[f"vp_turn_{T}"]).all()
        assert (a["vp"] != b["vp"]).any()
    t = pd.read_csv(built["robber"] / "tables" / "switch_effects.csv")
    lw = t[t.outcome == "leader_won_40"]
    assert set(lw.variant) == {"off_after_40", "random_off_after_40"}
    assert lw["method"].str.startswith("McNemar").all() and (lw["n"] <= 400).all()
    # the answer's first line is the switch's numbers, as the table holds them
    readme = (built["robber"] / "README.md").read_text()
    r = lw[lw.variant == "off_after_40"].iloc[0]
    assert (f"wins {r['base_mean'] * 100:.1f}% with the robber kept and "
            f"{r['mean'] * 100:.1f}% with it off") in readme.split("\n- ")[1]
    assert "a longer game alone would leave them at 1" not in readme
    assert "paired on the games where both arms" not in readme


def test_robber_tables_hold_paired_contrasts_with_their_method(built):
    t = pd.read_csv(built["robber"] / "tables" / "rule_contrasts.csv")
    assert {"variant", "reference", "outcome", "n", "diff", "ci_low", "ci_high",
            "p_adjusted", "significant", "method", "correction"} <= set(t.columns)
    assert set(t["variant"]) == {"off", "friendly"} and set(t["reference"]) == {"baseline"}
    assert (t["n"] <= 400).all()
    off = t[(t.variant == "off") & (t.outcome == "stolen")].iloc[0]
    assert off["mean"] == 0 and off["diff"] < 0  # no robber, nothing stolen


def test_shortages_tables_show_more_shortages_with_a_smaller_supply(built):
    a = pd.read_csv(built["shortages"] / "tables" / "supply_arms.csv")
    a = a[a.outcome == "any_shortage"].set_index("variant")["mean"]
    assert a["official_9"] > a["official_12"] > a["baseline"]
    assert a["unlimited"] == 0


def test_shortages_count_games_that_differ_in_any_outcome_and_word_the_headline(built):
    """The official and strict rules 'differ' in the games where any seat's production,
    any seat's final VP, the winner or the length differs (not the length alone), each
    with its Wilson interval and n; the headline's words come from that table."""
    from catansim.studies._rule_study import how_often

    t = pd.read_csv(built["shortages"] / "tables" / "rule19_differ.csv").set_index(
        ["variant", "reference", "facet"])
    facets = ["production", "final_vp", "winner", "length", "any"]
    for v in ("strict", "unlimited"):
        rows = t.loc[(v, "baseline")]
        assert list(rows.index) == facets and (rows["n"] == 400).all()
        # statsmodels' Wilson bound at 0 events is 0 up to rounding (~1e-18)
        assert (rows["ci_low"] <= rows["share"] + 1e-12).all()
        assert (rows["share"] <= rows["ci_high"]).all()
        assert rows.loc["any", "games_differ"] >= rows["games_differ"].max()
    readme = (built["shortages"] / "README.md").read_text()
    s, u = t.loc[("strict", "baseline", "any")], t.loc[("unlimited", "baseline", "any")]
    assert (f"At the official supply the sole-recipient exception "
            f"{how_often(s['ci_low'], s['ci_high'])} and the limit of the supply "
            f"{how_often(u['ci_low'], u['ci_high'])}.") in readme
    assert "rarely matters" not in readme or how_often(s["ci_low"], s["ci_high"]) == (
        "rarely matters") or how_often(u["ci_low"], u["ci_high"]) == "rarely matters"
    t9 = pd.read_csv(built["shortages"] / "tables" / "rule9_differ.csv")
    assert set(t9["variant"]) == {"strict", "off"} and set(t9["facet"]) == set(facets)


@pytest.mark.parametrize("lo, hi, words", [
    (0.0, 0.0095, "rarely matters"), (0.011, 0.05, "sometimes matters"),
    (0.10, 0.2, "often matters"), (0.005, 0.013, "matters in 0.50-1.30% of games"),
    (0.08, 0.12, "matters in 8.0-12.0% of games"), (np.nan, np.nan, "cannot be judged")])
def test_how_often_words_a_share_only_when_its_interval_lies_in_one_band(lo, hi, words):
    from catansim.studies._rule_study import how_often

    assert how_often(lo, hi).startswith(words)


def test_rebuilding_resumes_and_plays_nothing_new(built, capsys):
    d = built["robber"]
    before = json.loads((d / "runs.json").read_text())
    main(["study", "robber", "--scale", "small", "--out", str(d), "--no-progress"])
    assert json.loads((d / "runs.json").read_text()) == before
    assert re.search(r"report\.html \(\d[\d,]* s, \d[\d,]* CPU s\)$",
                     capsys.readouterr().out.strip())


@pytest.mark.parametrize("scale, expected", [("small", "catansim-scratch/shortages-small"),
                                              ("full", None)])
def test_only_the_full_scale_writes_into_results_by_default(scale, expected, monkeypatch,
                                                            tmp_path, capsys):
    """``catansim study NAME --scale small`` without --out must not touch the committed
    results/NAME: it goes to a scratch folder under the working folder, and says so."""
    import catansim.studies.shortages as mod
    from catansim.studies import RESULTS, Study

    got = []

    def build(out, scale, scheduler, progress):
        got.append(out)
        return out / "report.html"

    monkeypatch.setattr(mod, "STUDY", Study(mod.STUDY.name, mod.STUDY.title, build))
    monkeypatch.chdir(tmp_path)
    main(["study", "shortages", "--scale", scale, "--no-progress"])
    out, err = capsys.readouterr()
    if expected is None:
        assert got == [RESULTS / "shortages"]
    else:
        assert got == [type(got[0])(expected)] and not got[0].is_absolute()
        assert RESULTS not in got[0].resolve().parents
        assert f"writing to {expected}" in err
    # an explicit --out is obeyed at any scale
    main(["study", "shortages", "--scale", scale, "--out", str(tmp_path / "x"),
          "--no-progress"])
    assert got[-1] == tmp_path / "x"


def test_unknown_study_and_scale_are_one_line_errors(capsys):
    with pytest.raises(SystemExit):
        main(["study", "robbers"])
    err = capsys.readouterr().err.strip()
    assert err.startswith("catansim: error: study: 'robbers' is not a study (did you mean "
                          "'robber'?); allowed: ")
    assert "robber" in err and "shortages" in err and "\n" not in err
    assert get("shortages").title.startswith("The supply-shortage rule")


def _chromium():
    return shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(_chromium() is None, reason="chromium is not installed (.ci/run installs it)")
@pytest.mark.parametrize("name", sorted(STUDIES))
def test_the_report_renders_in_chromium_with_every_section(built, name, tmp_path):
    import matplotlib.image as mpimg

    html = built[name] / "report.html"
    shot = tmp_path / f"{name}.png"
    cmd = [_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
           "--no-first-run", "--disable-background-networking", "--disable-component-update",
           "--disable-sync", f"--user-data-dir={tmp_path / 'profile'}", "--hide-scrollbars",
           "--window-size=1280,30000", f"--screenshot={shot}", html.as_uri()]
    subprocess.run(cmd, check=True, capture_output=True, timeout=240)
    img = (mpimg.imread(shot)[..., :3] * 255).round().astype(np.int16)
    is_h2 = (np.abs(img - np.array(H2_RGB)).sum(axis=2) <= 6).sum(axis=1) > 600
    # a heading bar is a run of rows; the underlines of the (wrapped) links are not
    edges = np.flatnonzero(np.diff(np.r_[0, is_h2.astype(int), 0]))
    runs = edges[1::2] - edges[::2]
    assert int((runs >= 12).sum()) == len(STUDIES[name])
    blue = (np.abs(img - np.array((0, 114, 178))).sum(axis=2) <= 30).sum()
    # the figures were decoded (a page of broken images has none of the first series'
    # blue; the small build of default players draws about 4,800 such pixels)
    assert blue > 2000
    assert np.flatnonzero(is_h2)[-1] < img.shape[0] - 600  # the whole page was captured
