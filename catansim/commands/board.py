"""``catansim board``: draw a board layout to a PNG, optionally with its metrics."""

from __future__ import annotations

import click

from ..errors import CatansimError
from . import _options as O


@click.command("board")
@O.layout("Board layout (ignored with --file).", default="beginner")
@click.option("--seed", type=O.SEED, default=None,
              help="Game seed for variable / random_numbers (random if omitted; printed).")
@click.option("--file", "board_file", default=None,
              type=O.InFile("a board file (JSON, TOML or compact text; docs/boards.md)"),
              help="Draw a user board (JSON, TOML or compact text; see docs/boards.md).")
@click.option("--out", type=O.OutFile("a .png file path in an existing folder", ".png"),
              default="board.png", show_default=True, help="PNG file to write.")
@click.option("--indices", is_flag=True, help="Label every hex, node and edge with its index.")
@O.players("Seats shown with the beginner set-up's starting pieces.")
@click.option("--metrics", "show_metrics", is_flag=True,
              help="Print the board's metrics and best intersections.")
@click.option("--dpi", type=O.IntIn(50, 600), default=110, show_default=True,
              help="Resolution of the PNG.")
def command(layout, seed, board_file, out, indices, players, show_metrics, dpi):
    """Draw a board (terrains, numbers, harbors; beginner: starting pieces) to a PNG."""
    from ..board import beginner_openings, make_board, parse_board, pieces_from_openings
    from ..constants import seat_colours

    n_players = players
    if board_file is not None:
        from pathlib import Path

        board = parse_board(Path(board_file))
        label = f"user board {board_file}"
    else:
        if layout == "beginner" and seed is not None:
            raise CatansimError("--seed: the beginner layout is fixed; allowed: a seed with "
                                "--layout variable or random_numbers")
        board = make_board(layout, seed)
        label = layout if board.seed is None else f"{layout}, seed {board.seed}"

    pieces = colours = None
    if board.layout == "beginner":
        pieces = pieces_from_openings(beginner_openings(n_players))
        colours = seat_colours(n_players)

    from ..plotting import save_board_png

    title = f"CATAN board: {label}"
    with O.writing("--out", out):
        path = save_board_png(board, out, indices=indices, pieces=pieces, colours=colours,
                              title=title, dpi=dpi)
    click.echo(f"wrote {path} ({label}, board_id {board.board_id})")

    if show_metrics:
        import pandas as pd

        from ..board.metrics import best_nodes, board_metrics, resource_table

        with pd.option_context("display.width", 120, "display.max_columns", 20):
            click.echo("\nmetrics:")
            click.echo(board_metrics(board).to_string())
            click.echo("\nresources:")
            click.echo(resource_table(board).to_string())
            click.echo("\nbest intersections:")
            cols = ["hexes", "resources", "numbers", "pips", "harbor"]
            click.echo(best_nodes(board, 8)[cols].to_string())
