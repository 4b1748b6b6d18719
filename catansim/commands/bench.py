"""``catansim bench``: games per second and compile times on this machine."""

from __future__ import annotations

import click

from . import _options as O


@click.command("bench")
@O.games("Games per throughput measurement.", 20_000, 100, 10**8)
@O.players()
@O.strategies(None, "One name or one per seat, comma-separated (default: 'default').")
@click.option("--e2e-games", type=O.IntIn(100, 10**9), default=None,
              help="Games for the end-to-end Parquet run (default: --games).")
@click.option("--no-compile", is_flag=True, help="Skip the cold/warm compile measurement.")
def command(games, players, strategies, e2e_games, no_compile):
    """Measure games/s on 1 core and all cores, end to end with Parquet, and compile times."""
    from ..runs import bench
    from ..strategies import PRESETS

    names = PRESETS.seat_names(strategies or bench.DEFAULT_STRATEGIES, players, "--strategies")
    r = bench.run(games=games, players=players, strategies=names, e2e_games=e2e_games,
                  compile=not no_compile, echo=lambda m: click.echo(m, err=True))
    click.echo(bench.markdown(r))
