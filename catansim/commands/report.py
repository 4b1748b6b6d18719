"""``catansim report``: the analysis of a dataset as a self-contained HTML report."""

from __future__ import annotations

import click


@click.command("report")
@click.argument("dataset", type=click.Path(file_okay=False))
@click.option("--out", type=click.Path(file_okay=False), default=None,
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

    path = build_report(dataset, out, scheduler=scheduler, progress=not no_progress)
    click.echo(f"wrote {path} (tables/*.csv and figures/*.png beside it)")
