"""``catansim tournament``: strategies against each other with rotated seats."""

from __future__ import annotations

import click

from ..errors import CatansimError
from . import _options as O

WIDTH = 100  # columns of the text this command prints


def _fmt(frame) -> str:
    import pandas as pd

    from ..analysis.stats import with_p_text

    with pd.option_context("display.width", 200, "display.max_columns", 50):
        return with_p_text(frame).to_string(float_format=lambda v: f"{v:.4f}")


def _say(text: str) -> None:
    """A sentence of the output, wrapped to ``WIDTH`` columns."""
    import textwrap

    click.echo(textwrap.fill(text, WIDTH))


def _rating(rating) -> str:
    """The rating's strategy rows (wins and games as integers) and its seat effects, each
    a table of the columns it has."""
    import textwrap

    from ..analysis.ladder import UNBOUNDED_NOTE, UNBOUNDED_SE
    from ..analysis.stats import with_unbounded_text

    r = rating.xs("tournament", level="variant")
    numbers = ["log_strength", "ci_low", "ci_high", "strength", "p_value"]
    bounded = r["se"].fillna(0) <= UNBOUNDED_SE  # the reference: no se, bounded
    strategies = r.xs("strategy", level="kind")[["games", "wins", *numbers]].astype(
        {"games": "Int64", "wins": "Int64"})  # a strategy without decided games: <NA>
    strategies.index.name = "strategy"
    text = _fmt(with_unbounded_text(strategies, bounded.xs("strategy", level="kind"), 4))
    if "seat" in r.index.get_level_values("kind"):
        seats = r.xs("seat", level="kind")[numbers]
        seats.index = [f"seat {s}" for s in seats.index]
        text += "\n\nSeat effects (log odds of winning relative to seat 0):\n" + _fmt(
            with_unbounded_text(seats, bounded.xs("seat", level="kind"), 4))
    if not bounded.all():
        text += "\n" + textwrap.fill(UNBOUNDED_NOTE, WIDTH)
    return text


@click.command("tournament")
@O.strategies("builder,city,expander,army",
              "Comma-separated strategy names (a Python player: python:module:Class): one "
              "per seat (or any number with --matrix).")
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
def command(strategies, games, players, seed, layout, rule_items, switch_turn, switch_items,
            matrix, config, threads, quiet, debug):
    """Play strategies against each other with rotated seats and print the results.

    Every deal (board, dice, deck) is played once per seat rotation, so each strategy
    sits in every seat equally often on the same boards and dice.
    """
    from ..settings import load_python_player
    from ..strategies import is_python_player

    strategy_set = O.strategy_set(config)
    rules = O.parse_rules(rule_items, switch_turn, switch_items)
    names = [s.strip() for s in strategies.split(",") if s.strip()]
    if not names:
        strategy_set.seat_names(names, players, "--strategies")  # says what is allowed
    for i, name in enumerate(names):
        strategy_set.resolve(name, "--strategies")
        if is_python_player(name):  # importable, and makes a player: said before playing
            load_python_player(name, i, "--strategies")
    if matrix and len(set(names)) < 2:
        raise CatansimError(f"--strategies: --matrix plays each name against copies of the "
                            f"others, {len(set(names))} given; allowed: two or more "
                            "comma-separated names")
    if not matrix and len(names) != players:
        raise CatansimError(f"--strategies: {len(names)} names for {players} players; allowed: "
                            f"exactly {players} (one per seat, seats rotated), or two or more "
                            "with --matrix (each against copies of the others)")
    from ..compile_progress import say_if_compiling
    from ..runs import tournament as T

    # counts accumulated as the games are played: memory flat in the number of games
    common = dict(n_players=players, seed=seed, rules=rules, layout=layout, n_threads=threads,
                  progress=not quiet, strategy_set=strategy_set, debug=debug, keep_games=False)
    say_if_compiling()
    if matrix:
        from ..analysis import crossplay as X

        res = T.cross_play(names, games, **common)
        table = res.table().set_index(["strategy", "opponent", "seat"])
        fair = 1.0 / players
        n_deals = res.n_deals
        _say(f"Cross-play: win rate of the row strategy against {players - 1} copies of "
             f"the column strategy, 95% Wilson interval ({n_deals} deals x {players} "
             f"seats = {n_deals * players} games per cell; fair share {fair:.3f}; "
             f"+/-: significantly above/below it, exact binomial test, Holm over the "
             f"{len(table.xs('all', level='seat'))} cells)")
        click.echo(X.format_crossplay(table))
        per_seat = table[table.index.get_level_values("seat") != "all"]
        per = per_seat.reset_index().assign(
            cell=lambda t: [f"{r:.3f}{dict(beats='+', **{'loses to': '-'}).get(v, ' ')}"
                            for r, v in zip(t["win_rate"], t["verdict"], strict=True)])
        click.echo()
        _say(f"Per seat of the single strategy (n = {n_deals} games per cell; +/-: "
             f"significant after Holm over the {len(per)} per-seat cells)")
        click.echo(per.pivot(index=["strategy", "opponent"], columns="seat",
                             values="cell").to_string())
        click.echo("\nWho counters whom (pooled seats, significant after correction):")
        click.echo(_fmt(X.counters(table)))
        dominant = X.dominant(table)
        click.echo()
        _say("Dominates all others from every seat (significantly): "
             + (", ".join(dominant) if dominant else "none"))
        return
    res = T.tournament(names, games, **common)
    stats = res.game_stats()
    _say(f"Tournament: {int(stats['games'])} games, {players} players, seats rotated; "
         f"mean length {stats['mean_turns']:.1f} turns, "
         f"{stats['trades_per_game']:.2f} player trades per game, "
         f"{100 * stats['turn_limit_share']:.2f}% reached the turn cap")
    click.echo(_fmt(res.summary()))
    if len(set(names)) > 1:
        rating = res.rating()
        if not res.summary()["wins"].sum():
            click.echo()
            _say(f"Rating: left out, no game had a winner (all {int(stats['games'])} "
                 "ended without one, e.g. at the turn cap)")
        elif len(rating):
            click.echo()
            _say(f"Rating (Plackett-Luce top-1 with seat effects; games: decided games played; "
                 f"log odds of winning relative to {rating['reference'].iloc[0]}; 95% Wald "
                 "interval)")
            click.echo(_rating(rating))
