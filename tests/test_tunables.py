"""The tunables (``catansim.tunables``) have one home: each is defined there and
nowhere else in catansim, and each is imported by a module that uses it."""

from __future__ import annotations

import ast
from pathlib import Path

import catansim.tunables as T

PACKAGE = Path(__file__).resolve().parents[1] / "catansim"
NAMES = {n for n in vars(T) if n.isupper()}


def _modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name != "tunables.py":
            yield path, ast.parse(path.read_text())


def test_no_module_defines_a_tunable_of_its_own():
    defined = []
    for path, tree in _modules():
        for node in tree.body:  # module level
            targets = (node.targets if isinstance(node, ast.Assign) else
                       [node.target] if isinstance(node, ast.AnnAssign) else [])
            defined += [f"{path.relative_to(PACKAGE)}: {t.id}" for t in targets
                        if isinstance(t, ast.Name) and t.id in NAMES]
    assert not defined


def test_every_tunable_is_read_by_a_module():
    imported = set()
    for _, tree in _modules():
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").endswith("tunables"):
                imported |= {a.name for a in node.names}
    assert imported == NAMES
