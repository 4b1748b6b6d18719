"""The data path holds: what each package imports is what its docstring's "May import"
paragraph allows (every import, at the top of a module or inside a function).

The paragraph names what may be imported in double backticks (``results``,
``core.layout``, ``catansim.constants``) or says "anything"/"everything"; what
follows "Never" is forbidden (in backticks or as the words below). So the layers the
README and the docstrings describe are checked, not only stated.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "catansim"
UNITS = sorted(p.stem if p.is_file() else p.name for p in ROOT.iterdir()
               if (p.suffix == ".py" and p.stem != "__init__") or (p / "__init__.py").exists())
# how the "Never" prose names a unit
WORDS = {"engine": "engine", "runner": "runs", "analysis": "analysis", "plotting": "plotting",
         "reports": "reports", "results": "results", "matplotlib": "matplotlib",
         "kernels": "kernels"}


def _unit(dotted: str) -> str:
    parts = dotted.split(".")
    return parts[1] if parts[0] == "catansim" and len(parts) > 1 else parts[0]


def imports_of(unit: str) -> set[str]:
    """The catansim units and the top-level outside packages ``unit`` imports."""
    path = ROOT / unit
    files = sorted(path.rglob("*.py")) if path.is_dir() else [ROOT / f"{unit}.py"]
    found = set()
    for f in files:
        package = ["catansim", *f.relative_to(ROOT).parts[:-1]]
        for node in ast.walk(ast.parse(f.read_text())):
            if isinstance(node, ast.Import):
                found |= {_unit(a.name) for a in node.names}
            elif isinstance(node, ast.ImportFrom):
                if node.level == 0:
                    found.add(_unit(node.module))
                    continue
                base = package[:len(package) - (node.level - 1)]
                if node.module:
                    found.add(_unit(".".join([*base, node.module])))
                else:  # from .. import strategies
                    found |= {_unit(".".join([*base, a.name])) for a in node.names}
    return found - {unit, "__future__", "__version__", "catansim"}


def rule_of(unit: str):
    """(allowed, forbidden) from the docstring, allowed None for "anything"."""
    path = ROOT / unit / "__init__.py" if (ROOT / unit).is_dir() else ROOT / f"{unit}.py"
    doc = ast.get_docstring(ast.parse(path.read_text())) or ""
    if "May import" not in doc:
        return None
    para = doc[doc.index("May import"):].split("\n\n")[0]
    allowed_text, _, never_text = para.partition("Never")
    named = {_unit(t) for t in re.findall(r"``([\w.]+)``", allowed_text)}
    anything = re.search(r"\b(anything|everything)\b", allowed_text) is not None
    never = {_unit(t) for t in re.findall(r"``([\w.]+)``", never_text)}
    never |= {unit_ for word, unit_ in WORDS.items() if re.search(rf"\b{word}\b", never_text)}
    return (None if anything else named), never


RULED = [u for u in UNITS if rule_of(u) is not None]


def test_the_packages_of_the_data_path_state_their_rule():
    assert {"analysis", "board", "core", "logs", "plotting", "reports", "results", "runs",
            "files", "kernels"} <= set(RULED)


@pytest.mark.parametrize("unit", RULED)
def test_imports_follow_the_docstring(unit):
    allowed, never = rule_of(unit)
    got = imports_of(unit)
    ours = got & set(UNITS)
    assert not (got & never), f"catansim.{unit} imports what it never may: {got & never}"
    if allowed is not None:
        extra = ours - allowed
        assert not extra, f"catansim.{unit} imports {sorted(extra)}, not in its May import"


def test_the_compiled_core_imports_numpy_numba_and_the_game_facts_only():
    """Beyond the standard library the kernels' modules import numpy and numba only
    (``core/__init__`` places the cache with the standard library)."""
    import sys

    outside = imports_of("core") - set(UNITS) - set(sys.stdlib_module_names)
    assert outside == {"numpy", "numba"}, outside


def test_the_rule_reader_sees_a_breach():
    """The checks above can fail: a module importing what its package never may."""
    allowed, never = rule_of("analysis")
    assert "runs" in never and "engine" in never and "matplotlib" in never
    assert "results" in allowed and "plotting" not in allowed
    assert {"numpy", "scipy"} <= imports_of("analysis")
