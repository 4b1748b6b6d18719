"""``catansim ladder``: every player alone against copies of every other, and a rating
(docs/ladder.md)."""

from __future__ import annotations

import click

from ..errors import CatansimError, Interrupted
from . import _options as O


@click.command("ladder")
@click.option("--field", "field_", required=True, metavar="NAMES",
              help="Comma-separated players: strategy names, python:module:Class, "
                   "catanatron:Class[:arg...] (e.g. catanatron:AlphaBetaPlayer:2).")
@click.option("--deals", type=O.IntIn(1), default=25, show_default=True,
              help="Deals per pair of players; each is played in every seat rotation.")
@click.option("--out", type=O.OutDir("a folder for the games and the report"),
              required=True, help="Output folder; rerunning with it resumes the ladder.")
@O.seed("Base seed of the deals, an integer in [0, 2**63).")
@O.players()
@click.option("--block", type=O.IntIn(1), default=5, show_default=True,
              help="Deals per part (a part is written, resumed and sent to a worker whole).")
@click.option("--reference", default=None, metavar="NAME",
              help="The player rated 0 (default: the first of --field).")
@click.option("--alone", default=None, metavar="NAMES",
              help="Play only the pairs whose single player is one of these (comma-"
                   "separated; default: every player alone).")
@click.option("--workers", type=O.IntIn(1), default=1, show_default=True,
              help="Local processes playing parts.")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="Dask scheduler tcp://HOST:PORT: the parts run on its workers.")
@O.rules()
@O.config()
@click.option("--quiet", is_flag=True, help="No progress bar.")
def command(field_, deals, out, seed, players, block, reference, alone, workers, scheduler,
            rule_items, switch_turn, switch_items, config, quiet):
    """Play every player alone against copies of every other on shared deals, in every
    seat, and print a rating for every player and the one-against-the-rest matrix.

    The games go to --out part by part (each written whole): rerunning the same command
    resumes, and more --deals add games. The report page is --out/report.html.
    """
    from ..analysis.crossplay import format_crossplay
    from ..analysis.ladder import UNBOUNDED_NOTE
    from ..analysis.stats import with_p_text, with_unbounded_text
    from ..ladders import ladder
    from ..ladders.field import check_field

    strategy_set = O.strategy_set(config)
    rules = O.parse_rules(rule_items, switch_turn, switch_items)
    names = check_field(field_, strategy_set, "--field")  # said in the options' words
    if reference is not None and reference not in names:
        raise CatansimError(f"--reference: {reference!r} is not in --field; allowed: "
                            f"{', '.join(names)}")
    if alone is not None:
        alone = [x.strip() for x in alone.split(",") if x.strip()]
        outside = [a for a in alone if a not in names] if alone else ["(none)"]
        if outside:
            raise CatansimError(f"--alone: {outside[0]!r} is not in --field; allowed: one or "
                                f"more of {', '.join(names)}")
    try:
        res = ladder(names, deals, out, seed=seed, n_players=players, block=block,
                     rules=rules, strategy_set=strategy_set, reference=reference,
                     workers=workers, scheduler=scheduler, alone=alone, progress=not quiet)
    except Interrupted as exc:
        raise Interrupted(exc.signum, f"{out}: the parts written are kept; rerun the same "
                                      "command to resume") from None
    import pandas as pd

    ref = res.rating["reference"].iloc[0]
    click.echo(f"Ladder: {len(res.games):,} games ({res.deals:,} deals per pair, every seat; "
               f"{res.played.games:,} played now in {res.played.seconds:,.0f} s)")
    click.echo(f"\nRating (Plackett-Luce top-1 with seat effects; log odds of winning "
               f"relative to {ref}, 95% Wald interval; games = n), and the win rate alone "
               f"against all others (95% Wilson):")
    shown = with_unbounded_text(with_p_text(res.table), res.table["bounded"])
    with pd.option_context("display.width", 200, "display.max_columns", 50):
        click.echo(shown.to_string(float_format=lambda v: f"{v:.3f}"))
    if not res.table["bounded"].all():
        click.echo(UNBOUNDED_NOTE)
    click.echo(f"\nOne alone against {players - 1} copies of another (row alone; 95% "
               "Wilson; +/-: significantly above/below the fair share, Holm):")
    click.echo(format_crossplay(res.matrix))
    click.echo(f"\nwrote {res.report}")
