"""``catansim openings``: the best openings of a board for a seat, measured by forced play.

A shell over ``studies.openings.measure_openings`` (the API a notebook calls): it parses
the options, calls, prints the tables and writes the PNG and CSV.
"""

from __future__ import annotations

import secrets
import time
from pathlib import Path

import click

from ..board import parse_board
from ..constants import seat_colours
from ..errors import CatansimError
from ..files import atomic_path, atomic_write_text
from . import _options as O


@click.command("openings")
@O.layout("Board: the beginner map (its printed pieces left out, openings free), or a "
          f"{O.SEEDED} board of --seed (ignored with --file).",
          default="beginner")
@click.option("--seed", type=O.SEED, default=None,
              help=f"Board seed for {O.SEEDED} (random if omitted; printed).")
@click.option("--file", "board_file", type=click.Path(dir_okay=False), default=None,
              help="Your own board (JSON, TOML or compact text; see docs/boards.md).")
@O.players()
@click.option("--seat", "seats", default="all", show_default=True, metavar="SEATS",
              help="Seats to map: 'all' or comma-separated seats, e.g. 0,3.")
@click.option("--settlement", type=O.OneOf(("1", "2")), default="1", show_default=True,
              help="Which starting settlement to force: 1 (the first) or 2 (the second, "
                   "the first left to the strategy).")
@O.games("Paired games per node and seat (every arm replays the baseline's games).", 2000)
@O.strategies("default", help="Strategies of the seats: one name, or one per seat.")
@click.option("--game-seed", type=O.SEED, default=0, show_default=True,
              help="Base seed of the games.")
@click.option("--top", type=O.IntIn(1, 54), default=8, show_default=True,
              help="Openings to print per seat.")
@click.option("--png", "png", type=O.OutFile("a .png file path in an existing folder", ".png"),
              default="openings.png", show_default=True, help="The value-map PNG to write.")
@click.option("--csv", "csv", type=O.OutFile("a .csv file path in an existing folder", ".csv"),
              default=None,
              help="Also write every node's value (one row per node and seat) to this CSV.")
@click.option("--data", type=click.Path(file_okay=False), default=None,
              help="Keep the games in this dataset folder (resumable; rerunning reads them "
                   "back); default: a temporary folder.")
@O.threads()
@O.config()
@click.option("--no-progress", is_flag=True, help="Hide the progress bar.")
def command(layout, seed, board_file, players, seats, settlement, games, strategies,
            game_seed, top, png, csv, data, threads, config, no_progress):
    """Measure what every starting intersection of a board is worth, seat by seat.

    Plays the board with every seat choosing its openings (the baseline), then once
    for every node and seat with that seat's settlement forced there, on the same
    games (same dice, deck and decisions), and prints the best openings with their
    win probability and the paired difference against the strategy's own choice,
    each with its 95% interval. Writes the value map to --png.
    """
    if board_file is not None and seed is not None:
        raise CatansimError(f"--seed: a board seed applies to --layout {O.SEEDED}; "
                            "allowed: --file or --seed, not both")
    if layout == "beginner" and seed is not None and board_file is None:
        raise CatansimError(f"--seed: the beginner map is fixed; allowed: --layout {O.SEEDED} "
                            "with --seed")
    seat_list = _seats(seats, players)
    names = list(O.strategy_set(config).seat_names(strategies, players, "--strategies"))
    if board_file is not None:
        if not Path(board_file).is_file():
            raise CatansimError(f"--file: {board_file} is not a file; allowed: a board file "
                                "(JSON, TOML or compact text, docs/boards.md)")
        parse_board(Path(board_file))  # its own one-line errors, naming the file
        spec, label = str(Path(board_file).resolve()), f"board file {board_file}"
    elif layout == "beginner":
        spec, label = "beginner", "the beginner map (openings free)"
    else:
        if seed is None:
            seed = secrets.randbelow(2**31)
        spec, label = f"{layout}:{seed}", f"{layout} board, seed {seed}"

    from ..studies.openings import play_openings, value_map_experiment

    exp = value_map_experiment(spec, label, players, seat_list, int(settlement), games, names,
                               game_seed, config)
    click.echo(f"{label}: {len(exp.variants) - 1} arms ({len(seat_list)} seats x their "
               f"nodes) + the baseline, {games:,} paired games each", err=True)
    t0 = time.perf_counter()
    result = play_openings(exp, label, data=data, threads=threads, progress=not no_progress)
    _print(result.values, exp.board, seat_list, top, players)
    fig = result.figure()
    with O.writing("--png", png), atomic_path(png) as part:
        fig.savefig(part, bbox_inches="tight", facecolor="white", format="png")
    if csv is not None:
        with O.writing("--csv", csv):
            atomic_write_text(csv, result.arms.to_csv())
    total = time.perf_counter() - t0
    rep = result.run
    n = rep.games_written
    rate = f"{n / rep.seconds:,.0f} games/s" if rep.seconds > 0 and n else "nothing to play"
    click.echo(f"\n{n:,} games played in {result.played_seconds:.1f} s ({rate}, "
               f"{result.played_cpu_seconds:.1f} CPU s"
               + (f"; {rep.parts_skipped} parts already in {rep.root}" if rep.parts_skipped
                  else "")
               + f"); analysed in {result.analysed_seconds:.1f} s; {total:.1f} s in all")
    click.echo(f"wrote {png}" + (f" and {csv}" if csv else ""))


def _seats(value: str, players: int) -> list[int]:
    allowed = f"'all' or seats 0..{players - 1}, comma-separated, each once"
    if value.strip() == "all":
        return list(range(players))
    try:
        out = [int(x) for x in value.split(",")]
    except ValueError:
        raise CatansimError(f"--seat: {value!r} is not allowed; allowed: {allowed}") from None
    if not out or len(set(out)) != len(out) or any(not 0 <= s < players for s in out):
        raise CatansimError(f"--seat: {value!r} is not allowed; allowed: {allowed}")
    return sorted(out)


def _print(values: dict, board, seats, top: int, players: int) -> None:
    """Each seat's summary line and its best openings (``studies.openings``)."""
    import pandas as pd

    from ..studies.openings import best_openings, seat_summary

    colours = seat_colours(players)
    for seat in seats:
        s = seat_summary(values, seat)
        if s is None:
            continue
        click.echo(f"\nseat {seat} ({colours[seat]}), {s['kind']} settlement: the strategy's "
                   f"own choice is node {s['own_node']}, which wins "
                   f"{100 * s['base_win_rate']:.1f}% of {s['games']:,} games")
        if s["placed"]:
            extra = [f"{k} {w}" for w, k in s["not_free"].items()]
            click.echo(f"  it ranks {s['rank']} of {s['free_nodes']} nodes free at this "
                       f"seat's turn; {s['n_better']} are significantly better, "
                       f"{s['n_worse']} worse (after {s['correction']} correction)"
                       + (f"; of the nodes not free at its turn, {' and '.join(extra)} "
                          "(** below)" if extra else ""))
        with pd.option_context("display.width", 160, "display.max_colwidth", 40):
            click.echo(best_openings(values, board, seat, top).to_string(index=False))
    click.echo("\n95% intervals: Wilson for the win rate, paired t for the difference (same "
               "games); * significant after correction, a node free at the seat's turn; ** "
               "significant, a node not free at its turn: forced openings are reserved, so "
               "the earlier seats had to settle elsewhere, and it is no alternative.")
