"""``catansim simulate``: a quick batch without an experiment file, summarised."""

from __future__ import annotations

import click

LAYOUTS = ("variable", "random_numbers", "beginner")


@click.command("simulate")
@click.option("--games", type=int, default=1000, show_default=True, help="Games to play.")
@click.option("--players", type=click.Choice(["3", "4"]), default="4", show_default=True)
@click.option("--strategies", default=None,
              help="One strategy name, or one per seat separated by commas "
                   "(default: 'default' if registered, else 'random').")
@click.option("--layout", default="variable", show_default=True,
              help="variable, random_numbers (a new board per game) or beginner.")
@click.option("--board", "board", default=None,
              help="One fixed board for all games: variable:SEED, random_numbers:SEED or a "
                   "board file.")
@click.option("--rule", "rule_items", multiple=True, metavar="NAME=VALUE",
              help="Rule setting, repeatable (e.g. --rule robber=friendly).")
@click.option("--rotate", is_flag=True, help="Rotate seats: game i shifts seats by i % players.")
@click.option("--seed", type=int, default=0, show_default=True, help="Base seed.")
@click.option("--threads", type=click.IntRange(1, 1024), default=None,
              help="Numba threads (default: all cores).")
def command(games, players, strategies, layout, board, rule_items, rotate, seed, threads):
    """Play GAMES games in memory and print win rates (95% Wilson CIs), length, VP sources."""
    import pandas as pd

    from ..analysis.summary import SUMMARY_COLUMNS, format_summary, summarize
    from ..rules import Rules
    from ..runs.experiment import parse_experiment
    from ..runs.runner import compute_task, plan

    data = {"name": "simulate", "games": games, "players": int(players), "seed": seed,
            "layout": layout, "rotate": rotate,
            "rules": Rules.from_strings(list(rule_items)).to_header()}
    if strategies is not None:
        data["strategies"] = [s.strip() for s in strategies.split(",")]
    if board is not None:
        data["board"] = board
    exp = parse_experiment(data)
    keep_g, keep_p = SUMMARY_COLUMNS["games"], SUMMARY_COLUMNS["players"]
    gs, ps = [], []
    for task in plan(exp):
        g, p = compute_task(exp, task, threads)
        gs.append(g[keep_g])
        ps.append(p[keep_p])
    g = pd.concat(gs, ignore_index=True)
    p = pd.concat(ps, ignore_index=True)
    tables = summarize(g, p)
    names = ", ".join(exp.variants[0].strategies)
    click.echo(f"{games} games, {players} players ({names}), layout "
               f"{exp.layout if exp.board is None else exp.board_spec}, seed {seed}"
               + (", seats rotated" if rotate else ""))
    click.echo("\n" + format_summary(tables))
