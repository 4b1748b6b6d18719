"""``catansim run``: run an experiment file into a Parquet dataset (resumable)."""

from __future__ import annotations

import click

from . import _options as O


@click.command("run")
@click.argument("experiment", type=O.InFile("a TOML experiment file (docs/experiments.md)"))
@click.option("--games", type=O.IntIn(1), default=None,
              help="Games per variant (overrides the file).")
@click.option("--seed", type=O.SEED, default=None, help="Base seed (overrides the file).")
@click.option("--scheduler", default=None, metavar="ADDR",
              help="Dask scheduler address, e.g. tcp://10.0.0.1:8786 (overrides the file).")
@O.threads()
@click.option("--out", type=O.OutDir("a folder path (created if missing)", writable=False),
              default=None,
              help="Dataset folder (default: the file's output, results/NAME).")
@click.option("--batch-size", type=O.IntIn(1), default=None,
              help="Games per Parquet part (overrides the file).")
@click.option("--no-progress", is_flag=True, help="Hide the progress bar.")
@click.option("--summary/--no-summary", default=True, show_default=True,
              help="Print win rates and game length per variant after the run.")
@click.option("--force", is_flag=True,
              help="Start even if the dataset's estimated size exceeds the free disk space.")
@O.debug()
def command(experiment, games, seed, scheduler, threads, out, batch_size, no_progress, summary,
            force, debug):
    """Run EXPERIMENT (a TOML file, see docs/experiments.md) into results/NAME/.

    Rerunning the same command resumes: complete parts are kept, the rest is played.
    """
    from ..runs.experiment import load_experiment
    from ..runs.runner import run_experiment

    exp = load_experiment(experiment).with_overrides(
        games=games, seed=seed, output=out, scheduler=scheduler, batch_size=batch_size)
    report = run_experiment(exp, n_threads=threads, progress=not no_progress, debug=debug,
                            force=force)
    rate = report.games_written / report.seconds if report.seconds > 0 else 0.0
    skipped = f", {report.parts_skipped} already done" if report.parts_skipped else ""
    compiled = (f"; the kernels took {report.warmup_seconds:.0f} s to compile first"
                if report.warmup_seconds >= 5 else "")
    click.echo(f"{report.root}: {report.parts_written} parts written{skipped} "
               f"({report.parts_total} in all); {report.games_written} games in "
               f"{report.seconds:.1f} s ({rate:,.0f} games/s){compiled}")
    if summary:
        _print_summary(report.root, exp)


def _print_summary(root, exp) -> None:
    from ..analysis.summary import format_paired, format_summary, summarize_run
    from ..results.arms import parse_arm

    # the arms of a sweep get one table of opening values, not a summary each
    names = [v for v in exp.variant_names if parse_arm(v) is None]
    by_variant, paired = summarize_run(root, names)
    for variant, tables in by_variant.items():
        n = int(tables["length"]["games"].iloc[0])
        label = f"[{variant}] " if len(exp.variant_names) > 1 else ""
        click.echo(f"\n{label}{n:,} games\n{format_summary(tables)}")
    if not paired.empty:
        click.echo("\n" + format_paired(paired))
    if len(names) < len(exp.variant_names):
        _print_arms(root)


def _print_arms(root, top: int = 5) -> None:
    from ..analysis.openings import opening_values
    from ..analysis.stats import with_p_text

    arms = opening_values(root)["arms"]
    t = arms.sort_values(["seat", "kind", "diff"], ascending=[True, True, False])
    t = t.groupby(["seat", "kind"], sort=False).head(top)
    t = t[["seat", "kind", "node", "node_2", "n", "win_rate", "diff", "ci_low", "ci_high",
           "p_adjusted", "legal_share"]]
    with pd_options():
        click.echo(f"\nThe best {top} arms of each seat of the sweep ({len(arms)} arms; win rate "
                   "of the forced seat; diff = arm - baseline, same games, 95% paired t CI; p "
                   "Benjamini-Hochberg over the seat's arms; legal_share: games in which the "
                   "node was free at the seat's turn; all arms: catansim.analysis.openings)\n"
                   + with_p_text(t).to_string(float_format=lambda v: f"{v:.3f}"))


def pd_options():
    import pandas as pd

    return pd.option_context("display.width", 140, "display.max_columns", 20)
