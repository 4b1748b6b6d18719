"""``catansim play``: play one game (or N games) and write the event log(s)."""

from __future__ import annotations

from pathlib import Path

import click

from ..board import parse_board
from ..checks import SEED_MAX
from ..constants import seat_colours
from ..errors import CatansimError
from ..logs import game_log, write_log
from ..viewer import write_viewer
from . import _options as O


def result_line(game) -> str:
    """One line: seed, winner (or the turn limit), turns and every seat's VP."""
    colours = seat_colours(game.n_players)
    vp = "/".join(str(v) for v in game.vp)
    if game.winner is None:
        outcome = f"turn limit after {game.turns} turns, no winner"
    else:
        outcome = f"{colours[game.winner]} (seat {game.winner}) wins on turn {game.turns}"
    return f"seed {game.seed}: {outcome}; VP {vp}"


@click.command("play")
@O.seed("Game seed, an integer in [0, 2**63) (with --games: the first seed).")
@O.players()
@O.strategies("default")
@O.layout(f"Board layout: beginner, {O.SEEDED} (ignored with --board).")
@click.option("--board", "board_file", default=None,
              type=O.InFile("a board file (JSON, TOML or compact text; docs/boards.md)"),
              help="A user board file (JSON, TOML or compact text; see docs/boards.md).")
@O.rules()
@click.option("--opening", "opening_items", multiple=True, metavar="SEAT=NODE,EDGE[,NODE,EDGE]",
              help="Force a seat's starting settlements and roads ('-' = free), e.g. "
                   "0=12,17,40,55 (repeatable; node/edge numbers in docs/topology.md).")
@click.option("--log", "log_path", default=None,
              type=O.OutFile("a file path in an existing folder"),
              help="Write the game's log to this file.")
@O.html()
@O.games("Play N games with seeds SEED..SEED+N-1.", 1)
@click.option("--log-dir", default=None, type=O.OutDir("a folder path (created if missing)"),
              help="With --games: write one log per game, DIR/game-<seed>.jsonl.")
@O.config()
@O.debug()
def command(seed, players, strategies, layout, board_file, rule_items, switch_turn,
            switch_items, opening_items, log_path, html_path, games, log_dir, config, debug):
    """Play one game (or N games) with the engine and write the event log(s)."""
    strategy_set = O.strategy_set(config)
    names = strategy_set.seat_names(strategies, players, "--strategies")
    if seed + games - 1 > SEED_MAX:
        raise CatansimError(f"--games: seeds would pass {SEED_MAX}; allowed: at most "
                            f"{SEED_MAX - seed + 1} games from this seed")
    if log_path is not None and games > 1:
        raise CatansimError("--log: one file holds one game; allowed: --games 1 (use "
                            "--log-dir DIR for several games)")
    if html_path is not None and games > 1:
        raise CatansimError("--html: one page shows one game; allowed: --games 1 (then "
                            "catansim replay LOG --html PAGE for each log of --log-dir)")
    rules = O.parse_rules(rule_items, switch_turn, switch_items)

    from ..engine import play_game
    from ..game import PlayerError
    from ..settings import GameSettings, openings_from_strings

    openings = openings_from_strings(opening_items, players) if opening_items else None
    if openings is not None and board_file is None and layout == "beginner":
        raise CatansimError("--opening: the beginner layout fixes every opening; allowed: "
                            f"--layout {O.SEEDED}, or --board")
    board = None
    if board_file is not None:
        board, layout = parse_board(Path(board_file)), "given"
    settings = GameSettings(n_players=players, strategies=names, layout=layout, board=board,
                            rules=rules, openings=openings, strategy_set=strategy_set)

    want_log = log_path is not None or log_dir is not None or html_path is not None
    option = "--log" if log_path is not None else "--log-dir"
    if log_dir is not None:
        with O.writing("--log-dir", log_dir):
            Path(log_dir).mkdir(parents=True, exist_ok=True)
    from ..compile_progress import say_if_compiling

    say_if_compiling()
    written = 0
    for s in range(seed, seed + games):
        try:
            game = play_game(s, settings=settings, log=want_log, debug=debug)
        except PlayerError as exc:  # the logs of the games before it are kept
            if log_dir is None:
                raise
            raise PlayerError(f"{exc}; {log_dir}: {written} of {games} logs written"
                              ) from exc.__cause__
        click.echo(result_line(game))
        if not want_log:
            continue
        header, events = game_log(game)
        if html_path is not None:
            with O.writing("--html", html_path):
                click.echo(f"  wrote {write_viewer(html_path, header, events)}")
        if log_path is None and log_dir is None:
            continue
        path = Path(log_path) if log_path is not None else Path(log_dir) / f"game-{s}.jsonl"
        done = f"{written} logs written" if written else "nothing written"
        with O.writing(option, path, done):  # atomic: a log at path is always complete
            write_log(path, header, events)
        written += 1
        click.echo(f"  wrote {path}")
