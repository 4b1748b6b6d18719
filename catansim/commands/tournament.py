"""``catansim tournament``: strategies against each other with rotated seats."""

from __future__ import annotations

import click
import pandas as pd

from ..errors import CatansimError
from .play import parse_seed


def _names(raw: str) -> list[str]:
    from ..strategies import PRESETS

    names = [s.strip() for s in raw.split(",") if s.strip()]
    for name in names:
        if name not in PRESETS:
            raise CatansimError(
                f"--strategies: unknown strategy {name!r}; allowed: {', '.join(sorted(PRESETS))}"
            )
    if not names:
        raise CatansimError("--strategies: no names given; allowed: comma-separated names")
    return names


def _fmt(frame: pd.DataFrame) -> str:
    with pd.option_context("display.width", 200, "display.max_columns", 50):
        return frame.to_string(float_format=lambda v: f"{v:.4f}")


@click.command("tournament")
@click.option("--strategies", "raw", default="builder,city,expander,army", show_default=True,
              help="Comma-separated strategy names: one per seat (or any number with --matrix).")
@click.option("--games", type=int, default=10_000, show_default=True,
              help="Games (rounded up to a multiple of --players); with --matrix: per pair.")
@click.option("--players", type=click.IntRange(3, 4), default=4, show_default=True,
              help="Seats: 3 or 4.")
@click.option("--seed", "seed_raw", default="0", show_default=True,
              help="Base seed of the deals, an integer 0..2**63-1.")
@click.option("--matrix", is_flag=True,
              help="Play every strategy against copies of every other one (cross-play).")
@click.option("--config", type=click.Path(dir_okay=False), default=None,
              help="TOML file defining more strategies ([strategies.<name>] tables).")
@click.option("--threads", type=click.IntRange(1, None), default=None,
              help="Threads for the games (default: all cores).")
@click.option("--quiet", is_flag=True, help="No progress bar.")
def command(raw, games, players, seed_raw, matrix, config, threads, quiet):
    """Play strategies against each other with rotated seats and print the results.

    Every deal (board, dice, deck) is played once per seat rotation, so each strategy
    sits in every seat equally often on the same boards and dice.
    """
    from ..runs import tournament as T
    from ..strategies import load_strategies

    seed = parse_seed(seed_raw)
    if config:
        load_strategies(config)
    names = _names(raw)
    if matrix:
        res = T.cross_play(names, games, players, seed, n_threads=threads, progress=not quiet)
        fair = 1.0 / players
        click.echo(f"Cross-play: win rate of the row strategy against {players - 1} copies of "
                   f"the column strategy ({res.games['deal'].nunique()} deals x {players} "
                   f"seats per pair; fair share {fair:.3f})")
        click.echo(_fmt(res.matrix()))
        click.echo("\nWho counters whom (pooled seats):")
        click.echo(_fmt(res.counters()))
        dominant = res.dominant()
        click.echo("\nDominates all others from every seat: "
                   + (", ".join(dominant) if dominant else "none"))
        return
    res = T.tournament(names, games, players, seed, n_threads=threads, progress=not quiet)
    stats = res.game_stats()
    click.echo(f"Tournament: {int(stats['games'])} games, {players} players, seats rotated; "
               f"mean length {stats['mean_turns']:.1f} turns, "
               f"{stats['trades_per_game']:.2f} player trades per game, "
               f"{100 * stats['turn_limit_share']:.2f}% reached the turn cap")
    click.echo(_fmt(res.summary()))
