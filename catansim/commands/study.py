"""``catansim study``: rebuild a study (its experiments, analyses and report) with one command."""

from __future__ import annotations

import resource
import time
from pathlib import Path

import click

from ..checks import check_scheduler, did_you_mean, fail
from ..errors import CatansimError
from ..studies import MODULES, SCALES, get, title
from . import _options as O

ALL = "all"  # NAME for every study, one after the other


class _StudyCommand(click.Command):
    """The help ends with every study, by name and title (read without importing one)."""

    def format_epilog(self, ctx, formatter):
        with formatter.section("Studies"):
            formatter.write_dl([(name, title(name)) for name in MODULES]
                               + [(ALL, "every study above, in this order")])
        super().format_epilog(ctx, formatter)


@click.command("study", cls=_StudyCommand)
@click.argument("name", required=False)
@click.option("--scale", type=O.OneOf(SCALES), default="full", show_default=True,
              help="small: few games (a quick look, the tests); full: the games of the "
                   "experiment files.")
@click.option("--out", type=O.OutDir("a folder path (created if missing)"), default=None,
              help="Folder for the report, tables and figures (default: results/NAME at "
                   "the full scale, ./catansim-scratch/NAME-SCALE at any other); its "
                   "datasets go to OUT/data/.")
@click.option("--scheduler", default=None, metavar="ADDR",
              help="Play and analyse on a Dask cluster, e.g. tcp://10.0.0.1:8786.")
@click.option("--no-progress", is_flag=True, help="Hide the progress bars.")
@click.option("--list", "list_only", is_flag=True, help="List the studies and exit.")
@click.option("--export", type=O.OutDir("a folder path (created if missing)"), default=None,
              metavar="DIR",
              help="Copy the study's experiment files into DIR (to read, or to adapt and "
                   "run with catansim run) and exit; plays nothing.")
def command(name, scale, out, scheduler, no_progress, list_only, export):
    """Run study NAME end to end (resumable) and write its report into results/NAME/;
    NAME all runs every study, one after the other (with --out DIR, each into DIR/NAME).

    Rerunning the same command resumes the experiments where they stopped and
    rebuilds the report. A scale other than full writes to
    ./catansim-scratch/NAME-SCALE unless --out says otherwise, never over the
    committed results. The experiment files ship inside catansim; --export DIR
    copies them out.
    """
    if scheduler is not None:  # before anything is played or written
        scheduler = check_scheduler(scheduler, "--scheduler")
    if export is not None and name is None:
        raise CatansimError("--export: needs a study NAME; allowed: "
                            + ", ".join(MODULES))
    if list_only or name is None:
        for each in MODULES:
            click.echo(f"{each}: {title(each)}")
        return
    names = [*MODULES, ALL]
    if name not in names:
        fail("study", f"{name!r} is not a study{did_you_mean(name, names)}", ", ".join(names))
    if name == ALL:
        if export is not None:
            raise CatansimError("--export: needs one study NAME, not all; allowed: "
                                + ", ".join(MODULES))
        for each in MODULES:
            _build(each, scale, None if out is None else Path(out) / each, scheduler,
                   no_progress)
        return
    _build(name, scale, out, scheduler, no_progress, export)


def _cpu_seconds() -> float:
    """CPU seconds of this process and of its children that have ended."""
    own, kids = (resource.getrusage(w) for w in (resource.RUSAGE_SELF,
                                                 resource.RUSAGE_CHILDREN))
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def _build(name, scale, out, scheduler, no_progress, export=None):
    """Build (or export) study ``name``; says where it wrote and the seconds it took."""
    study = get(name)
    if export is not None:
        for path in study.export(Path(export)):
            click.echo(f"wrote {path}")
        return
    if out is None:
        out = study.out_for(scale)
        if scale != "full":
            click.echo(f"scale {scale}: writing to {out} (results/{name} keeps the full-scale "
                       "results; --out chooses the folder)", err=True)
    wall, cpu = time.perf_counter(), _cpu_seconds()
    path = study.build(Path(out), scale=scale, scheduler=scheduler,
                       progress=not no_progress)
    click.echo(f"wrote {path} ({time.perf_counter() - wall:,.0f} s, "
               f"{_cpu_seconds() - cpu:,.0f} CPU s)")
