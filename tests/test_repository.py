"""The repository's own files: the license, what git ignores, what ``make`` prints and
the order ``make test`` runs the suite in."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_the_license_file_is_the_license_pyproject_names():
    license_name = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["license"]
    text = (ROOT / "LICENSE").read_text()
    assert license_name == "MIT" and text.startswith("MIT License\n")
    assert re.search(r"^Copyright \(c\) \d{4} the catansim authors$", text, re.M)
    assert "WITHOUT WARRANTY OF ANY KIND" in text


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_git_ignores_what_the_readme_commands_write():
    paths = ["results/quickstart/report/index.html", "results/quickstart/manifest.json",
             "results/robber_variants/report/index.html", "results/robber_seed8/x.parquet",
             "catansim-scratch/robber-small/README.md"]
    r = subprocess.run(["git", "check-ignore", "--no-index", *paths], cwd=ROOT,
                       capture_output=True, text=True)
    assert r.stdout.split() == paths, r.stderr
    kept = ["results/robber/README.md", "results/robber/tables/runs.csv"]
    r = subprocess.run(["git", "check-ignore", "--no-index", *kept], cwd=ROOT,
                       capture_output=True, text=True)
    assert r.stdout == ""


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_make_asks_its_tools_to_be_quiet():
    r = subprocess.run(["make", "-n", "-B", "test"], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    install = next(x for x in lines if "pip install" in x and " -e " in x)
    assert 'PYTHONWARNINGS="ignore:Editable installation"' in install and "--quiet" in install
    assert any("lint-imports --no-logo" in x for x in lines)
    pytest_line = next(x for x in lines if "-m pytest" in x)
    assert "--dist loadfile" in pytest_line and "--durations=" in pytest_line
    # conftest's longest-first order, which pytest-xdist would re-sort by test count
    assert "--no-loadscope-reorder" in pytest_line


def test_the_editable_notice_filter_matches_the_warning_pip_shows():
    """``PYTHONWARNINGS=ignore:MESSAGE`` matches a warning whose text starts with
    MESSAGE; setuptools' notice reads "Editable installation." first."""
    code = ("import warnings\nclass InformationOnly(UserWarning): pass\n"
            "warnings.warn('Editable installation.\\n!!\\n  Please be careful with folders',"
            " InformationOnly)\nprint('done')")
    env = {"PYTHONWARNINGS": "ignore:Editable installation"}
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert r.stdout == "done\n" and r.stderr == ""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env={})
    assert "Editable installation" in r.stderr  # shown without the filter


def test_the_longest_test_files_are_collected_first():
    import conftest

    r = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q",
                        "-p", "no:cacheprovider", "tests/test_docs.py", "tests/test_bounds.py",
                        "tests/test_analysis.py", "tests/test_kernels.py"],
                       cwd=ROOT, capture_output=True, text=True)
    files = []
    for line in r.stdout.splitlines():
        name = line.split("::")[0]
        if "::" in line and name not in files:
            files.append(name)
    # the longest first, longest to shortest; the others in the order given
    assert files == ["tests/test_bounds.py", "tests/test_kernels.py", "tests/test_docs.py",
                     "tests/test_analysis.py"]
    assert conftest.FIRST[0] == "test_bounds.py"
    # every file it names exists
    assert all((ROOT / "tests" / name).is_file() for name in conftest.FIRST)
