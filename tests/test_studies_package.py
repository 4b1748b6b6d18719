"""The studies' experiment files ship inside the package: found through
``importlib.resources``, named by pyproject's package data, present in a built wheel, and
copied out by ``catansim study NAME --export DIR``."""

from __future__ import annotations

import fnmatch
import importlib
import shutil
import subprocess
import sys
import tomllib
import zipfile
from importlib import resources
from pathlib import Path

import pytest
from cli_harness import run_main

from catansim.runs.experiment import load_experiment
from catansim.studies import MODULES, get, studies, title

ROOT = Path(__file__).resolve().parents[1]
STUDIES = ("openings", "robber", "seats-and-boards", "shortages")


def _package_files() -> dict[str, list[str]]:
    """Each study's experiment files, as paths inside the ``catansim`` package."""
    folder = ROOT / "catansim" / "studies" / "experiments"
    return {name: sorted(p.relative_to(ROOT / "catansim").as_posix()
                         for p in (folder / name).glob("*.toml")) for name in STUDIES}


def test_the_list_of_studies_names_each_study_module_and_its_title():
    """``studies.MODULES`` (what ``catansim study`` lists and checks without importing a
    study) holds every module of the package that defines a study, under the study's
    name, and each title read from the text file is the study's own."""
    package = ROOT / "catansim" / "studies"
    public = sorted(p.stem for p in package.glob("*.py") if not p.stem.startswith("_"))
    assert sorted(MODULES.values()) == public
    assert tuple(sorted(MODULES)) == STUDIES
    for name, module in MODULES.items():
        study = importlib.import_module(f"catansim.studies.{module}").STUDY
        assert study.name == name and get(name) is study
        assert study.title == title(name) and study.title
        assert (package / "experiments" / name).is_dir() and (package / "text" / f"{name}.md"
                                                              ).is_file()
    assert list(studies()) == list(MODULES)


@pytest.mark.parametrize("name", STUDIES)
def test_a_study_finds_its_experiment_files_through_importlib_resources(name):
    study = studies()[name]
    files = study.experiment_files()
    expected = resources.files("catansim.studies") / "experiments" / name
    assert files and all(f.parent == expected for f in files)
    assert [f.name for f in files] == [Path(p).name for p in _package_files()[name]]
    for f in files:
        assert load_experiment(f).games > 0
    assert study.experiment_file(files[0].stem) == files[0]
    # the checkout's experiments/ keeps the user-facing files only
    assert not (ROOT / "experiments" / name).exists()


def test_the_package_data_names_every_experiment_file():
    globs = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"][
        "package-data"]["catansim"]
    for name, files in _package_files().items():
        assert len(files) >= 4, name
        for f in files:
            assert any(fnmatch.fnmatch(f, g) for g in globs), f


def test_the_wheel_holds_every_experiment_file(tmp_path):
    """``pip wheel`` of a copy of the source (a build in place would leave build/ in the
    checkout): the wheel lists each study's files."""
    src = tmp_path / "src"
    shutil.copytree(ROOT / "catansim", src / "catansim",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for f in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / f, src / f)
    run = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w",
                          str(tmp_path / "dist"), str(src)], capture_output=True, text=True)
    if run.returncode and any(w in run.stderr for w in (
            "No matching distribution", "Could not find a version", "NewConnectionError")):
        pytest.skip("pip cannot fetch the build backend (setuptools) from the index")
    assert run.returncode == 0, run.stderr
    (wheel,) = (tmp_path / "dist").glob("catansim-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for files in _package_files().values():
        assert {f"catansim/{f}" for f in files} <= names
    # the classic players' headlines each study's report shows beside its own
    assert {f"catansim/studies/classic/{name}.csv" for name in STUDIES} <= names


def test_export_copies_a_studys_files_and_refuses_to_overwrite(tmp_path, capsys):
    out = tmp_path / "mine"
    code, stdout, _ = run_main(["study", "robber", "--export", out], capsys)
    assert code == 0
    src = studies()["robber"].experiment_files()
    assert sorted(p.name for p in out.iterdir()) == [f.name for f in src]
    for f in src:
        assert (out / f.name).read_bytes() == f.read_bytes()
        assert f"wrote {out / f.name}" in stdout
    assert load_experiment(out / "rule.toml").variant_names == ["baseline", "off", "friendly"]
    (out / "rule.toml").write_text("# mine\n")
    code, _, err = run_main(["study", "robber", "--export", out], capsys)
    assert code == 2 and err.count("\n") == 1
    assert err.startswith(f"catansim: error: --export: {out / 'discard.toml'} exists; allowed: ")
    assert (out / "rule.toml").read_text() == "# mine\n"  # left alone
    code, _, err = run_main(["study", "--export", tmp_path / "other"], capsys)
    assert code == 2 and "--export: needs a study NAME; allowed: openings, robber" in err
    assert not (tmp_path / "other").exists()
