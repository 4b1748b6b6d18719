"""``catansim bench``: games per second and compile times on this machine."""

from __future__ import annotations

import click


@click.command("bench")
@click.option("--games", type=click.IntRange(100, 10**8), default=20_000, show_default=True,
              help="Games per throughput measurement.")
@click.option("--players", type=click.Choice(["3", "4"]), default="4", show_default=True)
@click.option("--strategies", default=None,
              help="One name or one per seat, comma-separated (default: 'default').")
@click.option("--e2e-games", type=click.IntRange(100, 10**9), default=None,
              help="Games for the end-to-end Parquet run (default: --games).")
@click.option("--no-compile", is_flag=True, help="Skip the cold/warm compile measurement.")
def command(games, players, strategies, e2e_games, no_compile):
    """Measure games/s on 1 core and all cores, end to end with Parquet, and compile times."""
    from ..engine import GameSettings
    from ..runs import bench

    names = tuple(s.strip() for s in strategies.split(",")) if strategies else None
    GameSettings(n_players=int(players), strategies=names or bench.DEFAULT_STRATEGIES)
    r = bench.run(games=games, players=int(players), strategies=names, e2e_games=e2e_games,
                  compile=not no_compile, echo=lambda m: click.echo(m, err=True))
    click.echo(bench.markdown(r))
