"""``catansim replay``: check a game log, tell it turn by turn, optionally draw or view it."""

from __future__ import annotations

import click

from ..board import Board
from ..constants import seat_colours
from ..errors import CatansimError
from ..logs import LogError, narrative, outcome_line, read_log, replay, standings
from ..viewer import write_viewer
from . import _options as O


@click.command("replay")
@click.argument("log_file", metavar="GAME.jsonl",
                type=O.InFile("a game log (JSON Lines, docs/game-log.md)"))
@click.option("--png", "png_path", default=None,
              type=O.OutFile("a .png file path in an existing folder", ".png"),
              help="Draw the final board with its pieces and the robber to this PNG.")
@O.html()
@click.option("--no-check", is_flag=True, help="Replay without checking the rules.")
@click.option("--quiet", is_flag=True, help="Print only the result and the final standings.")
@click.option("--narrative", "tell", is_flag=True,
              help="Also print the narrative when --png or --html writes a file.")
def command(log_file, png_path, html_path, no_check, quiet, tell):
    """Print a game log as a turn-by-turn narrative and the final standings.

    Every rule is checked first (unless --no-check); a log that breaks one is
    reported as a one-line error naming the event and the rule. With --png or --html
    only the result is printed before the files written (--narrative: the whole story).
    """
    header, events = read_log(log_file)
    try:
        result = replay(header, events, check=not no_check)
    except LogError as exc:  # a rule or the format broken: name the file
        allowed = "" if "; allowed: " in str(exc) else (
            "; allowed: a log that follows the rules and the format (docs/game-log.md)")
        raise CatansimError(f"{log_file}: {exc}{allowed}") from None
    if result.reason is None:  # checking reports it as a broken rule; --no-check here
        raise CatansimError(f"{log_file}: incomplete game log: it ends after {len(events)} "
                            "events without game_end; allowed: a complete game log "
                            "(docs/game-log.md)")
    drawing = png_path is not None or html_path is not None
    if quiet:
        if result.reason is not None:
            click.echo(outcome_line(result))
        click.echo("Final standings:")
        for line in standings(result):
            click.echo("  " + line)
    elif tell or not drawing:
        click.echo(narrative(header, events))
    else:
        click.echo(outcome_line(result))
    if not no_check:
        click.echo(f"checked: {len(events)} events follow the rules")
    if png_path is not None:
        from ..plotting.board import save_board_png

        board = Board.from_header(result.board)
        title = f"{log_file}: final position (turn {result.turns})"
        with O.writing("--png", png_path):
            path = save_board_png(board, png_path, pieces=result.pieces(), robber=result.robber,
                                  colours=seat_colours(result.n_players), title=title)
        click.echo(f"wrote {path}")
    if html_path is not None:
        with O.writing("--html", html_path):
            path = write_viewer(html_path, header, events)
        click.echo(f"wrote {path}")
