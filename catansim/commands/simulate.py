"""``catansim simulate``: a quick batch without an experiment file, summarised."""

from __future__ import annotations

import click

from ..errors import CatansimError
from . import _options as O


@click.command("simulate")
@O.games("Games to play, in memory (catansim run writes more to disk).", 1000, 1, 10**6)
@O.players()
@O.strategies(None, "One strategy name, or one per seat separated by commas "
                    "(default: 'default').")
@O.layout()
@click.option("--board", "board", default=None,
              help="One fixed board for all games: LAYOUT:SEED (" + O.SEEDED + ") or a "
                   "board file.")
@O.rules()
@click.option("--rotate", is_flag=True, help="Rotate seats: game i shifts seats by i % players.")
@O.seed("Base seed.")
@O.threads()
@O.debug()
def command(games, players, strategies, layout, board, rule_items, switch_turn, switch_items,
            rotate, seed, threads, debug):
    """Play --games games in memory and print win rates (95% Wilson CIs), length, VP sources."""
    # the arguments are checked before what they do not need is imported: the rules
    # before the strategies (the compiled core's modules), both before the runner and
    # the analyses (seconds)
    data = {"name": "simulate", "games": games, "players": players, "seed": seed,
            "layout": layout, "rotate": rotate,
            **O.rules_data(O.parse_rules(rule_items, switch_turn, switch_items))}

    from ..strategies import PRESETS

    if strategies is not None:
        data["strategies"] = list(PRESETS.seat_names(strategies, players, "--strategies"))
    if board is not None:
        data["board"] = board

    from ..analysis.summary import SUMMARY_COLUMNS, Summary, format_summary
    from ..kernels import say_if_compiling
    from ..runs.experiment import parse_experiment
    from ..runs.runner import compute_task, plan

    try:
        exp = parse_experiment(data)
    except CatansimError as exc:  # "board: ..." names the option it came from
        msg = str(exc)
        raise CatansimError(f"--{msg}" if msg.split(":")[0] in data else msg) from None
    keep_g, keep_p = SUMMARY_COLUMNS["games"], SUMMARY_COLUMNS["players"]
    say_if_compiling()
    summary = Summary()  # counts and histograms only: memory is that of one part
    for task in plan(exp):
        g, p = compute_task(exp, task, threads, debug)
        summary.add(g[keep_g], p[keep_p])
        del g, p
    tables = summary.tables()
    names = ", ".join(exp.variants[0].strategies)
    click.echo(f"{games} games, {players} players ({names}), layout "
               f"{exp.layout if exp.board is None else exp.board_spec}, seed {seed}"
               + (", seats rotated" if rotate else ""))
    click.echo("\n" + format_summary(tables))
