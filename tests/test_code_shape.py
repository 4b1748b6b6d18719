"""``benchmarks/code_shape.py``: long modules and functions counted from the text, import
rings found in a graph whose rings are known."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("code_shape", ROOT / "benchmarks" / "code_shape.py")
CS = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(CS)


def test_rings_are_the_cycles_of_the_graph_and_nothing_else():
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": {"e"}, "e": set(),
             "f": {"g"}, "g": {"f"}, "h": {"h"}}
    assert sorted(CS._rings(edges, edges)) == [["a", "b", "c"], ["f", "g"]]
    assert CS._rings({"x", "y"}, {"x": {"y"}}) == []


def test_long_modules_and_functions_are_counted_by_their_lines(tmp_path):
    pkg = tmp_path / "catansim"
    pkg.mkdir()
    body = "\n".join(f"    x{i} = {i}" for i in range(5))
    (pkg / "a.py").write_text(f"def short():\n{body}\n\n\nclass C:\n    def long(self):\n"
                              + "\n".join(f"        y{i} = {i}" for i in range(9)) + "\n")
    (pkg / "b.py").write_text("x = 1\n" * 3)
    # a.py: 6 + 2 + 11 lines; long() spans 10 lines, short() 6
    assert CS.long_modules(tmp_path, 18) == [("catansim/a.py", 19)]
    assert CS.long_functions(tmp_path, 6) == [("catansim/a.py:long", 10)]


def test_this_checkout_has_no_import_cycle():
    module_rings, sibling_rings = CS.import_cycles(ROOT)
    assert module_rings == [] and sibling_rings == []
