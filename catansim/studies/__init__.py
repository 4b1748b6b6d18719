"""Studies: experiments, analyses and a report that answer one question, rebuilt by one command.

Each module here (not starting with ``_``) defines ``STUDY``, a ``Study``: its name
(the folder ``results/<name>/`` that holds its committed outputs), a title, and a
``build(out, scale, scheduler, progress)`` that runs the study's experiments
(``experiments/<name>/*.toml``, resumable datasets under ``out/data/``, never
committed) and writes its report (``report.html``), tables (``tables/*.csv``),
figures (``figures/*.png``) and ``README.md`` into ``out``. ``catansim study NAME``
calls it; ``scale="small"`` plays few games (tests and CI), ``"full"`` the games of
the experiment files. Only the full scale writes into ``results/<name>/`` by default
(``Study.out_for``): any other scale goes to a scratch folder, so a quick look never
overwrites the committed results.

May import everything: studies sit at the end of the data path, beside the
commands (runs, analysis, plotting, reports).
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..errors import CatansimError

SCALES = ("small", "full")
ROOT = Path(__file__).resolve().parents[2]  # the checkout: experiments/ and results/
EXPERIMENTS = ROOT / "experiments"
RESULTS = ROOT / "results"
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
        return EXPERIMENTS / self.name

    @property
    def default_out(self) -> Path:
        """The committed results of the full scale: ``results/<name>``."""
        return RESULTS / self.name

    def out_for(self, scale: str) -> Path:
        """Where a build at ``scale`` goes without ``--out``: ``results/<name>`` at the full
        scale, ``./catansim-scratch/<name>-<scale>`` at any other."""
        return self.default_out if scale == "full" else SCRATCH / f"{self.name}-{scale}"


def studies() -> dict[str, Study]:
    """Every study, by name."""
    out = {}
    for m in pkgutil.iter_modules(__path__):
        if m.name.startswith("_"):
            continue
        study = importlib.import_module(f"{__name__}.{m.name}").STUDY
        out[study.name] = study
    return out


def get(name: str) -> Study:
    found = studies()
    if name not in found:
        raise CatansimError(f"study: {name!r} is not a study; allowed: "
                            f"{', '.join(sorted(found)) or 'none yet'}")
    return found[name]
