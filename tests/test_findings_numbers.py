"""Every interval in docs/findings.md (and in the README's table of studies) comes from a
table a study wrote, and its table of headlines is the studies' ``headlines.csv``.

An estimate with its interval, ``x [lo, hi]`` (a percentage, points, turns or a plain
number), must stand in a committed study README (``results/*/README.md``, written from
its tables) or in one row of a committed table (``results/*/tables/*.csv``), as a
rate or as a percentage, at the precision printed. The few numbers of earlier builds
that findings.md quotes for comparison are listed in ``EARLIER`` with where they come
from; each must still be in the text, so the list shrinks as they are replaced.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
INTERVAL = re.compile(r"([+\-−]?\d[\d,]*\.?\d*)\s*(?:%|pp| points| turns)?\s*"
                      r"\[([+\-−]?\d[\d,]*\.?\d*),\s*([+\-−]?\d[\d,]*\.?\d*)\]")

# Numbers of earlier builds, quoted beside today's ("before"): (estimate, low, high).
EARLIER = {
    ("1.37", "1.11", "1.63"): "issue #33's review: seat 0's points from seat-index robber ties",
    ("-0.57", "-0.77", "-0.38"): "issue #33's review: seat 0's points from the trade order",
    ("+36.5", "+32.4", "+40.6"): "openings before the honest players: seat 0's best pair",
    ("+24.2", "+21.4", "+27.1"): "openings before the honest players: catansim openings",
    ("+27.1", "+25.1", "+29.1"): "openings before the honest players: seat 0's best node",
    ("-20.9", "-21.1", "-20.7"): "robber before the switch design (its before column)",
    ("39.7", "39.5", "39.8"): "robber before the switch design (its before column)",
    ("60.6", "60.5", "60.8"): "robber before the switch design (its before column)",
    ("+6.3", "6.2", "6.4"): "robber before the switch design (its before column)",
    ("+20.0", "19.5", "20.4"): "robber before the switch design (its before column)",
    ("2.08", "2.06", "2.09"): "robber before the switch design (its before column)",
    ("+8.59", "8.56", "8.62"): "robber before the switch design (its before column)",
    ("95.4", "95.3", "95.4"): "robber before the switch design (its before column)",
    ("-3.8", "-4.1", "-3.5"): "robber switch before issue #49 (the frozen robber)",
    ("-1.7", "-2.1", "-1.4"): "robber switch before issue #49 (the frozen robber)",
    ("+1.7", "1.5", "1.9"): "robber switch before issue #49 (the frozen robber)",
    ("+1.85", "1.80", "1.89"): "robber switch before issue #49 (the frozen robber)",
    ("+0.2", "-0.1", "0.4"): "robber switch before issue #49 (the frozen robber)",
    ("-3.96", "-4.35", "-3.57"): "players-information switch before issue #49",
    ("-3.93", "-4.33", "-3.54"): "players-information switch before issue #49",
    ("-3.41", "-3.80", "-3.02"): "players-strength switch before issue #49",
    ("-3.14", "-3.52", "-2.76"): "players-strength switch before issue #49",
    ("29.4", "29.2", "29.6"): "classic: seat 0, the robber study's discard baseline (#54)",
    ("40.0", "39.9", "40.1"): "classic: robber whole-game rows before the default rebuild",
    ("60.7", "60.6", "60.8"): "classic: robber whole-game rows before the default rebuild",
    ("2.04", "2.02", "2.05"): "classic: robber whole-game rows before the default rebuild",
    ("8.07", "8.01", "8.12"): "shortages before the honest players",
    ("8.6", "8.4", "8.8"): "shortages before the honest players",
}


def _number(text: str) -> float:
    return float(text.replace("−", "-").replace("+", "").replace(",", ""))


def _decimals(text: str) -> int:
    return len(text.split(".")[1]) if "." in text else 0


def _intervals(text: str) -> list[tuple[str, str, str]]:
    return INTERVAL.findall(text)


def _table_cells(paths=None) -> tuple[np.ndarray, np.ndarray]:
    """Every number of the committed tables (``paths``, default the studies'
    ``results/*/tables/*.csv``), and the row (across tables) it stands in."""
    values, rows, first = [], [], 0
    for path in sorted(ROOT.glob("results/*/tables/*.csv") if paths is None else paths):
        numbers = pd.read_csv(path).select_dtypes("number").to_numpy(dtype=float)
        ids = np.repeat(np.arange(first, first + len(numbers)), numbers.shape[1])
        values.append(numbers.ravel())
        rows.append(ids)
        first += len(numbers)
    values, rows = np.concatenate(values), np.concatenate(rows)
    keep = ~np.isnan(values)
    return values[keep], rows[keep]


def _in_a_row(cells, numbers, decimals) -> bool:
    # All three in one row of a table, as printed: a rate, a percentage, or negated.
    values, rows = cells
    for scale in (1, 100, -1, -100):
        scaled = values * scale
        candidates = None
        for v, k in zip(numbers, decimals, strict=True):
            # as printed: within half a unit of the last place (a half rounds either way)
            hit = np.abs(scaled - v) <= 0.5 * 10.0 ** -k * (1 + 1e-9)
            if candidates is not None:
                hit &= np.isin(rows, candidates)
            candidates = np.unique(rows[hit])
            if candidates.size == 0:
                break
        if candidates is not None and candidates.size:
            return True
    return False


def _unsupported(text: str) -> list[tuple[str, str, str]]:
    readmes = "\n".join(p.read_text() for p in sorted(ROOT.glob("results/*/README.md")))
    written = {tuple(_number(x) for x in t) for t in _intervals(readmes)}
    cells = _table_cells()
    out = []
    for t in _intervals(text):
        if t in EARLIER:
            continue
        values = tuple(_number(x) for x in t)
        if values in written:
            continue
        if not _in_a_row(cells, values, [_decimals(x) for x in t]):
            out.append(t)
    return out


def test_every_interval_in_the_findings_comes_from_a_study_table():
    text = (ROOT / "docs" / "findings.md").read_text()
    assert len(_intervals(text)) > 100
    assert _unsupported(text) == []


def test_every_interval_in_the_readmes_table_of_studies_comes_from_a_study_table():
    text = (ROOT / "README.md").read_text()
    studies = text[text.index("\n## Studies\n"):text.index("\n## Strategies\n")]
    assert len(_intervals(studies)) >= 8
    assert _unsupported(studies) == []


def _headline_rows(text: str) -> list[list[str]]:
    """The rows of the findings' table of headlines: study, headline, each kind of player,
    verdict."""
    part = text[text.index("\n## Headlines: classic, default and the search player\n"):]
    part = part[:part.index("\n## ", 1)]
    rows = [[c.strip() for c in line.strip("|").split("|")]
            for line in part.splitlines() if line.startswith("| ")]
    assert rows[0] == ["study", "headline", "`classic`", "`default`", "`search`", "verdict"]
    return rows[1:]


def test_the_findings_table_of_headlines_is_each_studys_headlines_csv():
    """Row by row as ``studies._headlines.shown`` prints each committed
    ``results/NAME/tables/headlines.csv`` (every study that has one, in order)."""
    from catansim.studies import MODULES
    from catansim.studies import _headlines as H

    expected = []
    for name in MODULES:
        path = ROOT / "results" / name / "tables" / "headlines.csv"
        if not path.exists():
            continue
        details = [f"{who}_detail" for who in H.PLAYERS]
        cmp = pd.read_csv(path, index_col="key", dtype=dict.fromkeys(details, str))
        found = [c for c in details if c in cmp.columns]  # search: where it was measured
        cmp[found] = cmp[found].fillna("")
        expected += [[name, label, *(r[who] for who in H.PLAYERS), r["verdict"]]
                     for label, r in H.shown(name, cmp).iterrows()]
    got = _headline_rows((ROOT / "docs" / "findings.md").read_text())
    assert expected and got == expected


def test_the_earlier_numbers_listed_are_still_quoted():
    found = set(_intervals((ROOT / "docs" / "findings.md").read_text()))
    assert set(EARLIER) <= found, sorted(set(EARLIER) - found)


def test_a_number_no_table_holds_is_caught():
    text = (ROOT / "docs" / "findings.md").read_text()
    first = next(t for t in _intervals(text) if t not in EARLIER)
    assert _unsupported(f"{first[0]} [{first[1]}, {first[2]}]") == []
    changed = f"777.777 [{first[1]}, {first[2]}]"  # an estimate no table has
    assert _unsupported(changed) == [("777.777", first[1], first[2])]
