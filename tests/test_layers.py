"""The data path holds: the import-linter contracts of ``pyproject.toml``
(``[tool.importlinter]``, run by ``make test`` as ``lint-imports``) are kept, and each
kind of breach breaks one of them. Then what contracts cannot say: the compiled core
imports numpy and numba and nothing else outside the standard library, and each
package's docstring names every module that lives there.
"""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "catansim"
LINT = ("import sys; from importlinter.cli import lint_imports_command; "
        "sys.exit(lint_imports_command(['--no-cache']))")


def lint_imports(root: Path) -> subprocess.CompletedProcess:
    """``lint-imports`` over the catansim under ``root`` with its ``pyproject.toml``."""
    env = dict(os.environ, PYTHONPATH=str(root))
    return subprocess.run([sys.executable, "-c", LINT], capture_output=True, text=True,
                          cwd=root, env=env, timeout=300)


@pytest.fixture(scope="module")
def copy_of_catansim(tmp_path_factory):
    """A copy of catansim and its pyproject.toml, to break."""
    root = tmp_path_factory.mktemp("layers")
    shutil.copy(ROOT / "pyproject.toml", root)
    shutil.copytree(PACKAGE, root / "catansim", ignore=shutil.ignore_patterns("__pycache__"))
    return root


def test_every_contract_is_kept():
    r = lint_imports(ROOT)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]
    assert re.search(r"Contracts: (\d+) kept, 0 broken", r.stdout)


BREACHES = {
    "an upward import": ("core/layout.py", "from .. import engine",
                         "Data path: a package imports only the layers below it"),
    "an import cycle": ("board/value.py", "from . import layouts",
                        "No import cycle among the modules of a package"),
    "the engine in an analysis": ("analysis/stats.py", "from ..engine import play_batch",
                                  "Analyses and tables never reach the engine"),
    "the runner in results": ("results/tables.py", "from ..runs import runner",
                              "Analyses and tables never reach the engine, the runner"),
    "an analysis in a figure": ("plotting/style.py", "from ..analysis import stats",
                                "Data path: a package imports only the layers below it"),
    "matplotlib in a report": ("reports/html.py", "import matplotlib",
                               "Only plotting imports matplotlib"),
    "a kernel in the runner": ("runs/bench.py", "from ..core import engine_nb",
                               "Kernels are called by the engine API"),
    "an error in the core": ("core/rng_nb.py", "from ..errors import CatansimError",
                             "The compiled core imports nothing of catansim but"),
    "the rules kernels in the checker": ("logs/checker.py", "from ..core import rules_nb",
                                         "The log checker knows the game only from the log"),
    "the state in a Python player": ("players/greedy.py", "from ..core import layout",
                                     "Python players see the game through their observation"),
    "the viewer under the game": ("settings.py", "from . import viewer",
                                  "A game and its log know nothing of their presentation"),
    "the viewer in a log": ("logs/checker.py", "from ..viewer import inline_html",
                            "A game and its log know nothing of their presentation"),
    "the log writer in a result": ("settings.py", "from .logs import make_header",
                                   "A game's settings and result are not the log writer"),
    "a search player under the plain one": ("players/reference/plan.py",
                                            "from ..search import openings",
                                            "Search players stand on the plain players"),
}


@pytest.mark.parametrize("breach", list(BREACHES))
def test_a_breach_breaks_its_contract(copy_of_catansim, breach):
    file, line, contract = BREACHES[breach]
    path = copy_of_catansim / "catansim" / file
    original = path.read_text()
    try:
        path.write_text(original + f"\n\ndef _breach():\n    {line}\n")  # inside a function
        r = lint_imports(copy_of_catansim)
    finally:
        path.write_text(original)
    assert r.returncode == 1, r.stdout[-2000:] + r.stderr[-2000:]
    broken = re.findall(r"^(.+) BROKEN(?: \(\d+ ignored imports?\))?$", r.stdout, re.M)
    assert any(name.startswith(contract) for name in broken), (contract, broken)


def _imported_packages(path: Path) -> set[str]:
    """Top-level names of what the modules under ``path`` import (absolute imports)."""
    found = set()
    for f in path.rglob("*.py"):
        for node in ast.walk(ast.parse(f.read_text())):
            if isinstance(node, ast.Import):
                found |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                found.add(node.module.split(".")[0])
    return found


def test_the_compiled_core_imports_numpy_numba_and_the_game_facts_only():
    """Beyond the standard library the kernels' modules import numpy and numba only
    (``core/__init__`` places the cache with the standard library); within catansim
    the contracts allow ``constants`` and ``topology``. A contract can forbid a named
    package, not everything but two."""
    outside = _imported_packages(PACKAGE / "core") - set(sys.stdlib_module_names)
    assert outside == {"numpy", "numba"}, outside


def _docstring(package: Path) -> str:
    return ast.get_docstring(ast.parse((package / "__init__.py").read_text())) or ""


PACKAGES = sorted(p.parent for p in PACKAGE.glob("*/__init__.py"))
# the packages that list what lives there (in commands and studies each module is one
# command or study, listed by ``catansim --help`` and ``catansim study --help``)
LISTING = [p for p in PACKAGES if "What lives here" in _docstring(p)]


def test_the_packages_of_the_data_path_list_their_modules_and_what_they_may_import():
    assert {p.name for p in LISTING} >= {"analysis", "board", "core", "logs", "plotting",
                                          "reports", "results", "runs"}
    stated = {p.name for p in PACKAGES if "May import" in _docstring(p)}
    assert stated >= {p.name for p in LISTING} | {"commands", "studies"}


@pytest.mark.parametrize("package", LISTING, ids=lambda p: p.name)
def test_a_package_docstring_names_every_module_that_lives_there(package):
    modules = {p.stem for p in package.glob("*.py") if not p.stem.startswith("_")}
    named = set(re.findall(r"``(\w+)``", _docstring(package)))
    assert not modules - named, f"catansim.{package.name}: not described: {modules - named}"


# An offset into a result row computed by hand: a state offset less the counters' start.
COUNTER_ARITHMETIC = re.compile(r"-\s*(?:\w+\.)?S_COUNTERS\b")


def test_result_rows_are_read_by_counter_name_only():
    """A counter of a result row is read by its name (``core.layout.counter``, or
    ``COUNTER_OFFSETS`` where a table labels every slot), never by subtracting
    ``S_COUNTERS`` from a state offset: ``core/layout.py`` is the one place that knows
    where the counters section starts."""
    home = PACKAGE / "core" / "layout.py"
    found = []
    for folder in ("catansim", "tests", "benchmarks", "experiments"):
        for path in (ROOT / folder).rglob("*.py"):
            if path == home:
                continue
            for i, line in enumerate(path.read_text().splitlines(), 1):
                if COUNTER_ARITHMETIC.search(line):
                    found.append(f"{path.relative_to(ROOT)}:{i}")
    assert not found, f"offsets into result rows by hand (use core.layout.counter): {found}"
    # the pattern sees the arithmetic it forbids; the accessor reads what the state holds
    import numpy as np

    from catansim.core import layout as L

    assert COUNTER_ARITHMETIC.search("w = counters[:, L.C_WINNER - " + "L.S_COUNTERS]")
    s = np.zeros(L.STATE_SIZE, dtype=np.int32)
    s[L.C_WINNER], s[L.C_VP:L.C_VP + 4] = 2, [3, 10, 4, 5]
    rows = np.stack([s[L.S_COUNTERS:], np.zeros(L.N_COUNTERS, dtype=np.int32)])
    assert L.counter(s[L.S_COUNTERS:], "c_winner") == 2
    assert L.counter(rows, "c_winner").tolist() == [2, 0]
    assert L.counter(rows, "c_vp").tolist() == [[3, 10, 4, 5], [0, 0, 0, 0]]
