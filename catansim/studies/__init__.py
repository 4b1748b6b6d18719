"""Studies: experiments, analyses and a report that answer one question, rebuilt by one command.

``MODULES`` names every study and the module that defines it; ``title`` reads a study's
title from its text file and ``check_study`` refuses a name that is not a study, neither
importing the study (``catansim study --help`` and a mistyped name stay quick); ``get``
imports one study, ``studies()`` all.

Each module here (not starting with ``_``) defines ``STUDY``, a ``Study``: its name
(the folder ``results/<name>/`` that holds its committed outputs), a title, and a
``build(out, scale, scheduler, progress)`` that runs the study's experiments
(``experiments/<name>/*.toml`` in this package, package data read through
``importlib.resources``, so an installed catansim has them; resumable datasets under
``out/data/``, never committed) and writes its report (``report.html``), tables (``tables/*.csv``),
figures (``figures/*.png``) and ``README.md`` into ``out``. ``catansim study NAME``
calls it; ``scale="small"`` plays few games (tests and CI), ``"full"`` the games of
the experiment files. Only the full scale writes into ``results/<name>/`` by default
(``Study.out_for``): any other scale goes to a scratch folder, so a quick look never
overwrites the committed results.

The robber and shortage studies are data, a ``_rule_study.RuleStudy`` each (their
experiments, the analysis plan of a dataset, the answer, the report spec, the README's
power lines and notebook) built by its one ``build``. Every study declares its report
as a spec (``reports.spec``: sections of tables, figures and text naming the analysis
results they show), built by ``reports.sections_of`` and written by
``reports.write_study_report``. The words of a report and its README live beside the
code, in ``text/<study>.md`` (package data, read by ``_texts``): the code places them
(``_words``) and fills in the numbers.

May import everything: studies sit at the end of the data path, beside the
commands (runs, analysis, plotting, reports).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from ..checks import did_you_mean, fail
from ..errors import CatansimError
from ..files import atomic_write_text
from ._texts import texts

SCALES = ("small", "full")
# Every study: its name (its folder in experiments/, text/ and results/) -> the module
# here that defines its STUDY. ``catansim study`` lists, checks and titles the studies
# from this and their text files (``title``), and imports a study only to build it.
MODULES = {"openings": "openings", "robber": "robber", "seats-and-boards": "seats_and_boards",
           "shortages": "shortages"}
EXPERIMENTS = resources.files(__name__) / "experiments"  # experiments/<study>/*.toml
_CHECKOUT = Path(__file__).resolve().parents[2]
# the committed results of a checkout; an installed catansim writes under the working folder
RESULTS = (_CHECKOUT / "results" if (_CHECKOUT / "pyproject.toml").is_file()
           else Path("results"))
SCRATCH = Path("catansim-scratch")  # under the working folder: builds at a scale not full


@dataclass(frozen=True)
class Study:
    """One study: ``build(out, scale, scheduler, progress) -> Path`` of its report."""

    name: str
    title: str
    build: Callable[..., Path]
    description: str = ""

    @property
    def experiments(self) -> Path:
        """The folder of the study's experiment files, inside the installed package."""
        folder = EXPERIMENTS / self.name
        if not isinstance(folder, Path):  # a zipped install: the runner needs real files
            raise CatansimError(f"study {self.name}: its experiment files are not on disk "
                                f"({folder}); allowed: catansim installed as files "
                                "(pip install), not zipped")
        return folder

    def experiment_files(self) -> list[Path]:
        """The study's experiment files (``*.toml``), by name."""
        files = sorted(self.experiments.glob("*.toml"))
        if not files:
            raise CatansimError(f"study {self.name}: no experiment files in "
                                f"{self.experiments}; allowed: a catansim installed with "
                                "its package data")
        return files

    def experiment_file(self, name: str) -> Path:
        """The experiment file ``NAME.toml`` of the study."""
        path = self.experiments / f"{name}.toml"
        if not path.is_file():
            raise CatansimError(f"study {self.name}: no experiment file {path}; allowed: "
                                + ", ".join(p.stem for p in self.experiment_files()))
        return path

    def export(self, folder) -> list[Path]:
        """Copy the study's experiment files into ``folder`` (created if missing), to read
        or adapt and run with ``catansim run``; a file already there is left alone and
        refused. Returns the files written."""
        folder = Path(folder)
        files = self.experiment_files()
        there = [folder / f.name for f in files if (folder / f.name).exists()]
        if there:
            raise CatansimError(f"--export: {there[0]} exists; allowed: a folder without "
                                f"the study's files ({', '.join(f.name for f in files)})")
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise CatansimError(f"--export: cannot create {folder} ({exc.strerror or exc}); "
                                "allowed: a writable folder") from None
        out = []
        for f in files:
            atomic_write_text(folder / f.name, f.read_text())
            out.append(folder / f.name)
        return out

    @property
    def default_out(self) -> Path:
        """The committed results of the full scale: ``results/<name>``."""
        return RESULTS / self.name

    def out_for(self, scale: str) -> Path:
        """Where a build at ``scale`` goes without ``--out``: ``results/<name>`` at the full
        scale, ``./catansim-scratch/<name>-<scale>`` at any other."""
        return self.default_out if scale == "full" else SCRATCH / f"{self.name}-{scale}"


def title(name: str) -> str:
    """The title of study ``name`` (``text/<name>.md``'s ``title``), read without importing
    the study."""
    return texts(check_study(name))["title"]


def check_study(name) -> str:
    """``name`` if it names a study, else the one-line error naming the nearest."""
    if not isinstance(name, str) or name not in MODULES:
        fail("study", f"{name!r} is not a study{did_you_mean(name, MODULES)}",
             ", ".join(MODULES))
    return name


def get(name: str) -> Study:
    """Study ``name``: its module imported."""
    return importlib.import_module(f"{__name__}.{MODULES[check_study(name)]}").STUDY


def studies() -> dict[str, Study]:
    """Every study, by name (each module imported)."""
    return {name: get(name) for name in MODULES}
