"""``catansim tune``: search a strategy's parameters against a field (docs/tuning.md)."""

from __future__ import annotations

import click

from ..errors import CatansimError, Interrupted
from . import _options as O


@click.command("tune")
@click.argument("spec", type=O.InFile("a TOML tuning spec (docs/tuning.md)"))
@click.option("--out", type=O.OutDir("a folder for the preset, tables and report"),
              default=None, help="Output folder (default: tuning/<name>); also holds the "
                                 "study's SQLite database unless --storage or the spec's "
                                 "storage names one.")
@click.option("--storage", default=None, metavar="URL",
              help="Database URL of the study (e.g. sqlite:///tune.db, postgresql://host/db): "
                   "every machine running the same spec with it shares one tuning.")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="Dask scheduler tcp://HOST:PORT: the candidates' games run on its workers.")
@O.threads()
@click.option("--no-heldout", is_flag=True,
              help="Search only: no held-out measurement (the report shows the search).")
@click.option("--quiet", is_flag=True, help="No line per trial.")
def command(spec, out, storage, scheduler, threads, no_heldout, quiet):
    """Tune a strategy's parameters against a field and write a preset and a report.

    Every candidate plays the same deals in every seat (common random numbers), is
    dropped early once a paired Wilcoxon test is sure it is worse than the best, and the
    answer is re-measured on held-out deals against the start and every preset. The
    study lives in a database: rerunning the same command resumes it.
    """
    from ..tuning.run import tune
    from ..tuning.spec import load_spec
    from ..tuning.study import default_storage

    tuned = load_spec(spec)
    if storage is not None and "://" not in storage:
        raise CatansimError(f"--storage: {storage!r} is not a database URL; allowed: e.g. "
                            "sqlite:///tune.db or postgresql://host/db")
    echo = None if quiet else (lambda line: click.echo(line, err=True))
    try:
        result = tune(tuned, out, storage=storage, n_threads=threads, scheduler=scheduler,
                      heldout=not no_heldout, progress=echo)
    except Interrupted as exc:
        where = storage or tuned.storage or default_storage(out or f"tuning/{tuned.name}")
        raise Interrupted(exc.signum, f"{where}: the finished trials are kept; rerun the "
                                      "same command to resume") from None
    s = result.spec
    click.echo(f"{s.name}: trial {result.best_trial} of {len(result.study.trials)}, "
               f"{result.games:,} training games, {result.seconds:,.0f} s of trials; "
               f"finalists: {result.selection_games:,} games, "
               f"{result.selection_seconds:,.0f} s")
    for name, value in result.row.items():
        click.echo(f"  {name} = {value:g} (start {result.start_row[name]:g})")
    h = result.heldout
    if h is not None:
        click.echo(f"held out: {h.n_deals:,} deals, every seat; alone against "
                   f"{s.n_players - 1} copies (95% Wilson):")
        for o in (s.strategy, *s.heldout_presets):
            c = h.cell(s.name, o)
            click.echo(f"  vs {o}: {c['win_rate']:.4f} [{c['ci_low']:.4f}, {c['ci_high']:.4f}]"
                       f" of {int(c['games']):,}")
        for o, r in h.paired.iterrows():
            click.echo(f"  {s.name} - {s.strategy} vs {o}: {r['diff']:+.4f} "
                       f"[{r['ci_low']:+.4f}, {r['ci_high']:+.4f}] ({int(r['deals']):,} deals)")
    if result.out is not None:
        click.echo(f"wrote {result.out}/{s.name}.toml and {result.out}/report.html")
