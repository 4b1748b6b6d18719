"""``catansim board``: draw a board layout to a PNG, optionally with its metrics, or play it
to measure how fair it is (``--fairness``)."""

from __future__ import annotations

from pathlib import Path

import click
import numpy as np

from ..board import beginner_openings, make_board, parse_board, pieces_from_openings
from ..constants import seat_colours
from ..errors import CatansimError
from . import _options as O


@click.command("board")
@O.layout("Board layout (ignored with --file).", default="beginner")
@click.option("--seed", type=O.SEED, default=None,
              help=f"Game seed for {O.SEEDED} (random if omitted; printed).")
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
@click.option("--fairness", is_flag=True,
              help="Play the board (--games games, seats rotated when the strategies differ) "
                   "and print each seat's win rate with its 95% interval beside the fairness "
                   "index's prediction; the PNG shows the board's reference draft and the "
                   "seats.")
@O.games("With --fairness: games to play on the board.", 2000, lo=10, hi=10**7)
@O.strategies("default", "With --fairness: one strategy for every seat, or one per seat "
                         "(rotated through the seats game by game).")
@click.option("--game-seed", type=O.SEED, default=0, show_default=True,
              help="With --fairness: base seed of the games' dice (batch seeds).")
@O.threads()
def command(layout, seed, board_file, out, indices, players, show_metrics, dpi, fairness,
            games, strategies, game_seed, threads):
    """Draw a board (terrains, numbers, harbors; beginner: starting pieces) to a PNG, or
    measure how fair it is (--fairness)."""
    if not fairness:  # the fairness options mean nothing without it: refuse, not ignore
        ctx = click.get_current_context()
        for name, flag in (("games", "--games"), ("strategies", "--strategies"),
                           ("game_seed", "--game-seed"), ("threads", "--threads")):
            if ctx.get_parameter_source(name) is not click.core.ParameterSource.DEFAULT:
                raise CatansimError(f"{flag}: it only applies when the board is played; "
                                    "allowed: add --fairness, or leave it out")

    n_players = players
    if board_file is not None:
        board = parse_board(Path(board_file))
        label = f"user board {board_file}"
    else:
        if layout == "beginner" and seed is not None:
            raise CatansimError("--seed: the beginner layout is fixed; allowed: a seed with "
                                f"--layout {O.SEEDED}")
        board = make_board(layout, seed)
        label = layout if board.seed is None else f"{layout}, seed {board.seed}"

    if fairness:
        _fairness(board, label, players, strategies, games, game_seed, threads, out, dpi)
        return

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


def play_on_board(board, n_players: int = 4, strategies=("default",), games: int = 2000,
                  seed: int = 0, n_threads=None):
    """Play ``games`` games on one board (each with its own dice: ``batch_seeds(seed,
    games)``), the strategies' seats rotated game by game when they differ; returns the
    board's row of ``analysis.board_balance.per_board`` (seat win rates with Wilson
    intervals, chi-square, spread)."""
    import pandas as pd

    from ..analysis.board_balance import board_table
    from ..core import layout as L
    from ..engine import batch_seeds, play_batch
    from ..settings import GameSettings

    names = list(strategies)
    if len(names) == 1:
        names = names * n_players
    shifts = n_players if len(set(names)) > 1 else 1
    seeds = batch_seeds(seed, games)
    idx = np.arange(games)
    winner = np.full(games, -1)
    turns = np.zeros(games, dtype=np.int64)
    for shift in range(shifts):
        sel = idx % shifts == shift
        seats = tuple(names[(s - shift) % n_players] for s in range(n_players))
        res = play_batch(seeds[sel], GameSettings(n_players=n_players, strategies=seats,
                                                  layout="given", board=board),
                         n_threads=n_threads)
        winner[sel] = L.counter(res.counters, "c_winner")
        turns[sel] = L.counter(res.counters, "c_turns")
    half = idx % 2 == 0
    row = {"board_id": board.board_id, "first_game": 0, "n_players": n_players,
           "games": games, "decided": int((winner >= 0).sum()),
           "turns_sum": int(turns.sum()), "turns_sq": int((turns * turns).sum()),
           "games_h0": int(half.sum()), "turns_sum_h0": int(turns[half].sum())}
    for s in range(n_players):
        row[f"wins_{s}"] = int((winner == s).sum())
        row[f"wins_{s}_h0"] = int(((winner == s) & half).sum())
    t = pd.DataFrame([row]).assign(variant="board").set_index(["variant", "board_id"])
    return board_table(t).iloc[0]


def _fairness(board, label, n_players, strategies, games, game_seed, threads, out, dpi):
    import pandas as pd

    from .. import strategies as ST
    from ..analysis.stats import format_p
    from ..board.fairness import BALANCED_MAX_SPREAD, fairness
    from ..files import atomic_path
    from ..plotting.seats_boards import board_fairness_figure

    names = ST.PRESETS.seat_names(strategies, n_players, "--strategies")
    fair = fairness(board, n_players)
    row = play_on_board(board, n_players, names, games, game_seed, threads)
    rates = pd.DataFrame({"win_rate": [row[f"win_rate_{s}"] for s in range(n_players)],
                          "ci_low": [row[f"ci_low_{s}"] for s in range(n_players)],
                          "ci_high": [row[f"ci_high_{s}"] for s in range(n_players)],
                          "games": games})
    rotated = len(set(names)) > 1
    click.echo(f"{label} (board_id {board.board_id}), {n_players} players "
               f"({', '.join(dict.fromkeys(names))}{', seats rotated' if rotated else ''}), "
               f"{games:,} games:")
    click.echo(f"  {'seat':<6}{'win rate [95% CI]':<26}{'predicted by the index':>22}")
    for s in range(n_players):
        r = rates.iloc[s]
        click.echo(f"  {s:<6}{r['win_rate']:.3f} [{r['ci_low']:.3f}, {r['ci_high']:.3f}]"
                   f"{'':<6}{fair.predicted[s]:>14.3f}")
    spread = float(np.sqrt(max(row["rms2"], 0.0)))
    click.echo(f"  fair share {1 / n_players:.3f}; equal seats: chi-square "
               f"{format_p(row['p_value'])}; mean game {row['turns_mean']:.1f} turns")
    click.echo(f"  seat spread (RMS distance from the fair share): observed {spread:.3f}, "
               f"predicted by the index {fair.index:.3f}"
               + (f" (the balanced layout keeps boards <= {BALANCED_MAX_SPREAD:.2f})"
                  if n_players == 4 else ""))
    fig = board_fairness_figure(board, fair.draft, rates, fair.predicted,
                                f"How fair is this board? {label}")
    with O.writing("--out", out), atomic_path(out) as part:
        fig.savefig(part, dpi=dpi, bbox_inches="tight", facecolor="white", format="png")
    click.echo(f"wrote {out}")
