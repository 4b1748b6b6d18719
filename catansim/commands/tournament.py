"""``catansim tournament``: strategies against each other with rotated seats."""

from __future__ import annotations

import click
import pandas as pd

from . import _options as O


def _fmt(frame: pd.DataFrame) -> str:
    with pd.option_context("display.width", 200, "display.max_columns", 50):
        return frame.to_string(float_format=lambda v: f"{v:.4f}")


@click.command("tournament")
@O.strategies("builder,city,expander,army",
              "Comma-separated strategy names: one per seat (or any number with --matrix).")
@O.games("Games (rounded up to a multiple of --players); with --matrix: per pair.", 10_000)
@O.players()
@O.seed("Base seed of the deals, an integer in [0, 2**63).")
@O.layout()
@O.rules()
@click.option("--matrix", is_flag=True,
              help="Play every strategy against copies of every other one (cross-play).")
@O.config()
@O.threads()
@click.option("--quiet", is_flag=True, help="No progress bar.")
@O.debug()
def command(strategies, games, players, seed, layout, rule_items, matrix, config, threads,
            quiet, debug):
    """Play strategies against each other with rotated seats and print the results.

    Every deal (board, dice, deck) is played once per seat rotation, so each strategy
    sits in every seat equally often on the same boards and dice.
    """
    from ..runs import tournament as T

    strategy_set = O.strategy_set(config)
    rules = O.parse_rules(rule_items)
    names = [s.strip() for s in strategies.split(",") if s.strip()]
    if not names:
        strategy_set.seat_names(names, players, "--strategies")  # says what is allowed
    for name in names:
        strategy_set.resolve(name, "--strategies")
    common = dict(n_players=players, seed=seed, rules=rules, layout=layout, n_threads=threads,
                  progress=not quiet, strategy_set=strategy_set, debug=debug)
    if matrix:
        res = T.cross_play(names, games, **common)
        fair = 1.0 / players
        n_deals = res.games["game"].max() // players + 1
        click.echo(f"Cross-play: win rate of the row strategy against {players - 1} copies of "
                   f"the column strategy ({n_deals} deals x {players} "
                   f"seats per pair; fair share {fair:.3f})")
        click.echo(_fmt(res.matrix()))
        click.echo("\nWho counters whom (pooled seats):")
        click.echo(_fmt(res.counters()))
        dominant = res.dominant()
        click.echo("\nDominates all others from every seat: "
                   + (", ".join(dominant) if dominant else "none"))
        return
    res = T.tournament(names, games, **common)
    stats = res.game_stats()
    click.echo(f"Tournament: {int(stats['games'])} games, {players} players, seats rotated; "
               f"mean length {stats['mean_turns']:.1f} turns, "
               f"{stats['trades_per_game']:.2f} player trades per game, "
               f"{100 * stats['turn_limit_share']:.2f}% reached the turn cap")
    click.echo(_fmt(res.summary()))
