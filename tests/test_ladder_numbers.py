"""The published ladder numbers come from the published games.

Every committed ladder folder's cells (``results/ladder/*/tables/matrix.csv``) are counted
anew from its ``games.csv``, and every interval that results/ladder/README.md and the
README's ladder line print stands in one row of a committed ladder table (any CSV under
results/ladder but the games), at the
precision printed (the one figure of catanatron's own engine is computed from the
counts its run wrote).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.proportion import proportion_confint

ROOT = Path(__file__).resolve().parents[1]
LADDER = ROOT / "results" / "ladder"
FOLDERS = sorted(p.parent for p in LADDER.glob("*/games.csv"))

sys.path.insert(0, str(Path(__file__).parent))
import test_findings_numbers as F  # noqa: E402  (the interval parser and row matcher)


def _ladder_cells():
    # every table of results/ladder: each folder's tables/ and the cells read together
    values, rows = F._table_cells(p for p in LADDER.rglob("*.csv") if p.name != "games.csv")
    native = json.loads((LADDER / "fidelity" / "native-vf-wr.json").read_text())
    lo, hi = proportion_confint(native["wins"], native["games"], method="wilson")
    return (np.concatenate([values, [native["wins"] / native["games"], lo, hi]]),
            np.concatenate([rows, np.full(3, rows.max() + 1)]))


def _unsupported(text: str) -> list[tuple[str, str, str]]:
    cells = _ladder_cells()
    return [t for t in F._intervals(text)
            if not F._in_a_row(cells, tuple(F._number(x) for x in t),
                               [F._decimals(x) for x in t])]


def _readme_ladder_line() -> str:
    text = (ROOT / "README.md").read_text()
    start = text.index("- **A strength ladder with outside bots**")
    return text[start:text.index("\n- **", start)]


def test_every_published_folder_is_counted():
    assert {p.name for p in FOLDERS} >= {"field", "alphabeta-alone-1000",
                                         "search-vs-alphabeta-1000"}


@pytest.mark.parametrize("folder", FOLDERS, ids=[p.name for p in FOLDERS])
def test_each_cell_is_its_games_counted_anew(folder):
    games = pd.read_csv(folder / "games.csv")
    games["won"] = games["winner"] == games["single_seat"]
    matrix = pd.read_csv(folder / "tables" / "matrix.csv")
    pooled = matrix[matrix["seat"] == "all"].set_index(["strategy", "opponent"])
    counted = games.groupby(["strategy", "opponent"])["won"].agg(["size", "sum"])
    assert sorted(counted.index) == sorted(pooled.index)
    for key, (n, wins) in counted.iterrows():
        lo, hi = proportion_confint(wins, n, method="wilson")
        row = pooled.loc[key]
        assert (row["games"], row["wins"]) == (n, wins), key
        assert np.allclose([row["win_rate"], row["ci_low"], row["ci_high"]],
                           [wins / n, lo, hi]), key


def test_every_interval_of_the_ladder_readme_comes_from_a_ladder_table():
    text = (LADDER / "README.md").read_text()
    assert len(F._intervals(text)) > 40
    assert _unsupported(text) == []


def test_every_interval_of_the_readmes_ladder_line_comes_from_a_ladder_table():
    line = _readme_ladder_line()
    assert len(F._intervals(line)) >= 5
    assert _unsupported(line) == []


def test_a_ladder_number_no_table_holds_is_caught():
    first = F._intervals(_readme_ladder_line())[0]
    assert _unsupported(f"{first[0]} [{first[1]}, {first[2]}]") == []
    assert _unsupported(f"0.777 [{first[1]}, {first[2]}]") == [("0.777", first[1], first[2])]
