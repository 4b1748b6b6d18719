"""``catansim report``: the analysis of a dataset as a self-contained HTML report."""

from __future__ import annotations

import click

from ..checks import check_scheduler
from . import _options as O


@click.command("report")
@click.argument("dataset", type=O.InDir("a dataset folder written by catansim run"))
@click.option("--out", type=O.OutDir("a folder path (created if missing)"), default=None,
              help="Folder for report.html, tables/ and figures/ (default: DATASET/report).")
@click.option("--scheduler", default=None, metavar="ADDR",
              help="Run the analyses on a Dask cluster, e.g. tcp://10.0.0.1:8786.")
@click.option("--no-progress", is_flag=True, help="Hide the progress bar.")
def command(dataset, out, scheduler, no_progress):
    """Analyse DATASET (a folder written by catansim run) into one HTML report.

    Sections appear when the dataset supports them: game anatomy, seats, strategies
    (several strategies), variants against the baseline (paired, game by game) and
    the starting position. Every table has its n and interval method.
    """
    from ..reports import build_report

    if scheduler is not None:  # before anything is read or written
        scheduler = check_scheduler(scheduler, "--scheduler")
    # each file is written whole or not at all; report.html last, so a report.html
    # that exists describes the whole report
    with O.writing("--out", out or f"{dataset}/report",
                   "report.html not written; free some space and rerun the same command"):
        path = build_report(dataset, out, scheduler=scheduler, progress=not no_progress)
    click.echo(f"wrote {path} (tables/*.csv and figures/*.png beside it)")
