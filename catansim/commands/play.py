"""``catansim play``: play one game (or N games) and write the event log(s)."""

from __future__ import annotations

from pathlib import Path

import click

from ..errors import CatansimError

LAYOUTS = ("beginner", "variable", "random_numbers")
MAX_SEED = 2**63 - 1


def parse_seed(raw: str) -> int:
    """A seed given on the command line: an integer 0 .. 2**63-1."""
    try:
        seed = int(raw)
    except ValueError:
        seed = -1
    if not 0 <= seed <= MAX_SEED:
        raise CatansimError(f"--seed: {raw!r} is not allowed; allowed: an integer 0..{MAX_SEED}")
    return seed


def parse_strategies(raw: str, n_players: int) -> tuple[str, ...]:
    """Comma-separated strategy names: one for every seat, or one per seat."""
    from ..strategies import PRESETS

    names = tuple(s.strip() for s in raw.split(",") if s.strip())
    for name in names:
        if name not in PRESETS:
            raise CatansimError(f"--strategies: unknown strategy {name!r}; allowed: "
                                f"{', '.join(sorted(PRESETS))}")
    if len(names) == 1:
        names = names * n_players
    if len(names) != n_players:
        raise CatansimError(f"--strategies: {len(names)} names for {n_players} players; allowed: "
                            f"one name, or {n_players} comma-separated names")
    return names


def result_line(game) -> str:
    """One line: seed, winner (or the turn limit), turns and every seat's VP."""
    from ..constants import seat_colours

    colours = seat_colours(game.n_players)
    vp = "/".join(str(v) for v in game.vp)
    if game.winner is None:
        outcome = f"turn limit after {game.turns} turns, no winner"
    else:
        outcome = f"{colours[game.winner]} (seat {game.winner}) wins on turn {game.turns}"
    return f"seed {game.seed}: {outcome}; VP {vp}"


@click.command("play")
@click.option("--seed", "seed_raw", default="0", show_default=True,
              help="Game seed, an integer 0..2**63-1 (with --games: the first seed).")
@click.option("--players", type=int, default=4, show_default=True, help="Seats: 3 or 4.")
@click.option("--strategies", default="random", show_default=True,
              help="Comma-separated strategy per seat, or one name for all.")
@click.option("--layout", default="variable", show_default=True,
              help="Board layout: beginner, variable or random_numbers (ignored with --board).")
@click.option("--board", "board_file", default=None,
              help="A user board file (JSON, TOML or compact text; see docs/boards.md).")
@click.option("--rule", "rule_items", multiple=True, metavar="NAME=VALUE",
              help="A rule setting, e.g. robber=friendly or bank_per_resource=12 (repeatable).")
@click.option("--opening", "opening_items", multiple=True, metavar="SEAT=NODE,EDGE[,NODE,EDGE]",
              help="Force a seat's starting settlements and roads ('-' = free), e.g. "
                   "0=12,17,40,55 (repeatable; node/edge numbers in docs/topology.md).")
@click.option("--log", "log_path", default=None, help="Write the game's log to this file.")
@click.option("--games", type=int, default=1, show_default=True,
              help="Play N games with seeds SEED..SEED+N-1.")
@click.option("--log-dir", default=None,
              help="With --games: write one log per game, DIR/game-<seed>.jsonl.")
def command(seed_raw, players, strategies, layout, board_file, rule_items, opening_items,
            log_path, games, log_dir):
    """Play one game (or N games) with the engine and write the event log(s)."""
    from ..logs import event_rows_to_dicts, make_header, write_log
    from ..rules import Rules

    seed = parse_seed(seed_raw)
    if players not in (3, 4):
        raise CatansimError(f"--players: {players} is not allowed; allowed: 3, 4")
    names = parse_strategies(strategies, players)
    if board_file is None and layout not in LAYOUTS:
        raise CatansimError(f"--layout: {layout!r} is not allowed; allowed: {', '.join(LAYOUTS)}"
                            " (or --board FILE)")
    if games < 1:
        raise CatansimError(f"--games: {games} is not allowed; allowed: an integer >= 1")
    if seed + games - 1 > MAX_SEED:
        raise CatansimError(f"--games: seeds would pass {MAX_SEED}; allowed: at most "
                            f"{MAX_SEED - seed + 1} games from this seed")
    if log_path is not None and games > 1:
        raise CatansimError("--log: one file holds one game; allowed with --games 1 only "
                            "(use --log-dir DIR for several games)")
    rules = Rules.from_strings(list(rule_items))

    from ..engine import GameSettings, openings_from_strings, play_game

    openings = openings_from_strings(opening_items, players) if opening_items else None
    if openings is not None and board_file is None and layout == "beginner":
        raise CatansimError("--opening: the beginner layout fixes every opening; allowed with "
                            "variable, random_numbers or --board")
    if board_file is not None:
        from ..board import parse_board

        settings = GameSettings(n_players=players, strategies=names, layout="given",
                                board=parse_board(board_file), rules=rules, openings=openings)
    else:
        settings = GameSettings(n_players=players, strategies=names, layout=layout, rules=rules,
                                openings=openings)

    want_log = log_path is not None or log_dir is not None
    if log_dir is not None:
        Path(log_dir).mkdir(parents=True, exist_ok=True)
    for s in range(seed, seed + games):
        game = play_game(s, settings=settings, log=want_log)
        click.echo(result_line(game))
        if not want_log:
            continue
        path = Path(log_path) if log_path is not None else Path(log_dir) / f"game-{s}.jsonl"
        header = make_header(game.seed, game.n_players, game.strategies, game.rules, game.board)
        write_log(path, header, event_rows_to_dicts(game.events, game.n_players))
        click.echo(f"  wrote {path}")
