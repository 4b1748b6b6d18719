"""The report spec builder: items and parts name results by path; what is missing is left out."""

import pandas as pd
import pytest

from catansim.errors import CatansimError
from catansim.reports import Figure, Part, Results, Table, Text, sections_of

FRAME = pd.DataFrame({"x": [1, 2]})


def _results(**data):
    return Results(data, scale="small")


def test_paths_resolve_through_nested_results():
    r = _results(rule={"catch": {"lead": FRAME}})
    assert r["rule.catch.lead"] is FRAME
    assert "rule.catch" in r and "rule.stage" not in r and "three" not in r
    with pytest.raises(CatansimError, match="rule.stage"):
        r["rule.stage"]
    assert r.scale == "small"


def test_items_in_order_with_missing_ones_left_out():
    spec = [Part("a", "A", lambda r: f"scale {r.scale}", (
        Table("t1", "rule.arms", "arms", view=lambda t, r: t.head(1)),
        Table("t2", "three.arms", "absent: no such result"),
        Figure("f1", lambda r: None),  # nothing to draw
        Figure("f2", lambda r: "fig", "drawn"),
        Text("<p>never</p>", when=lambda r: False),
        Text(lambda r: f"<p>{len(r['rule.arms'])}</p>"),
        Table("t3", lambda r: r["rule.arms"] * 2, "computed", csv="rule.arms"))),
        Part("b", "B", "", (Text("x"),), of="three")]
    [s] = sections_of(spec, _results(rule={"arms": FRAME}))
    assert (s.key, s.note) == ("a", "scale small")
    kinds = [(b[0], b[1]) for b in s.blocks]
    assert kinds == [("table", "t1"), ("figure", "f2"), ("text", "<p>2</p>"), ("table", "t3")]
    t1, t3 = s.blocks[0], s.blocks[3]
    assert len(t1[2]) == 1 and t1[4] is FRAME  # the page's view; the CSV the whole result
    assert t3[2]["x"].tolist() == [2, 4] and t3[4] is FRAME
