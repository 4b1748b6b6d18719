"""``catansim openings``: the best openings of a board for a seat, measured by forced play."""

from __future__ import annotations

import click

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
    import resource
    import tempfile
    import time
    from pathlib import Path

    from ..errors import CatansimError

    if board_file is not None and seed is not None:
        raise CatansimError(f"--seed: a board seed applies to --layout {O.SEEDED}; "
                            "allowed: --file or --seed, not both")
    if layout == "beginner" and seed is not None and board_file is None:
        raise CatansimError(f"--seed: the beginner map is fixed; allowed: --layout {O.SEEDED} "
                            "with --seed")
    seat_list = _seats(seats, players)
    strategy_set = O.strategy_set(config)
    names = list(strategy_set.seat_names(strategies, players, "--strategies"))
    if board_file is not None:
        from ..board import parse_board

        if not Path(board_file).is_file():
            raise CatansimError(f"--file: {board_file} is not a file; allowed: a board file "
                                "(JSON, TOML or compact text, docs/boards.md)")
        parse_board(Path(board_file))  # its own one-line errors, naming the file
        spec = str(Path(board_file).resolve())
        label = f"board file {board_file}"
    elif layout == "beginner":
        spec, label = "beginner", "the beginner map (openings free)"
    else:
        if seed is None:
            import secrets

            seed = secrets.randbelow(2**31)
        spec, label = f"{layout}:{seed}", f"{layout} board, seed {seed}"

    from ..analysis import openings as AO
    from ..files import atomic_path, atomic_write_text
    from ..runs.runner import run_experiment

    exp = value_map_experiment(spec, label, players, seat_list, int(settlement), games, names,
                               game_seed, config)
    arms = len(exp.variants) - 1
    click.echo(f"{label}: {arms} arms ({len(seat_list)} seats x their nodes) + the baseline, "
               f"{games:,} paired games each", err=True)
    tmp = None
    if data is None:
        tmp = tempfile.TemporaryDirectory(prefix="catansim-openings-")
        root = Path(tmp.name)
    else:
        root = Path(data)
    try:
        cpu0 = _cpu(resource)
        t0 = time.perf_counter()
        rep = run_experiment(exp, out=root, n_threads=threads, progress=not no_progress)
        played = time.perf_counter() - t0
        cpu_played = _cpu(resource) - cpu0
        t1 = time.perf_counter()
        values = AO.opening_values(root)
        analysed = time.perf_counter() - t1
        _print(values, exp, seat_list, top, players)
        from ..plotting.openings import value_map_figure

        kind = "first" if settlement == "1" else "second"
        fig = value_map_figure(values["arms"], exp.board, kind=kind, n_players=players,
                               title=f"Value of each {('first', 'second')[int(settlement) - 1]} "
                                     f"settlement: {label}")
        with O.writing("--png", png), atomic_path(png) as part:
            fig.savefig(part, bbox_inches="tight", facecolor="white", format="png")
        if csv is not None:
            with O.writing("--csv", csv):
                atomic_write_text(csv, values["arms"].to_csv())
    finally:
        if tmp is not None:
            tmp.cleanup()
    total = time.perf_counter() - t0
    n = rep.games_written
    rate = f"{n / rep.seconds:,.0f} games/s" if rep.seconds > 0 and n else "nothing to play"
    click.echo(f"\n{n:,} games played in {played:.1f} s ({rate}, {cpu_played:.1f} CPU s"
               + (f"; {rep.parts_skipped} parts already in {root}" if rep.parts_skipped else "")
               + f"); analysed in {analysed:.1f} s; {total:.1f} s in all")
    click.echo(f"wrote {png}" + (f" and {csv}" if csv else ""))


def value_map_experiment(board: str, label: str, players: int, seats, settlement: int,
                         games: int, strategies, game_seed: int = 0, config=None):
    """The experiment that measures a board's openings: the baseline, then every node of
    every seat in ``seats`` with that seat's ``settlement`` (1 or 2) forced there.

    ``board`` is an experiment's board value (``beginner``, ``LAYOUT:SEED`` or a board
    file); ``label`` describes it; ``config`` is a TOML file of more strategies.
    """
    from pathlib import Path

    from ..runs.experiment import parse_experiment
    from ..tunables import DEFAULT_BATCH_SIZE

    spec_dict = {
        "name": "openings", "games": games, "players": players, "seed": game_seed,
        "board": board, "strategies": list(strategies),
        "batch_size": min(games, DEFAULT_BATCH_SIZE),  # --games may exceed a part's limit
        "description": f"catansim openings: {label}",
        "sweep": {"seat": list(seats), "settlement": int(settlement), "nodes": "all"}}
    if config is not None:
        spec_dict["strategy_defs"] = str(Path(config).resolve())
    return parse_experiment(spec_dict, path=None)


def _cpu(resource) -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _seats(value: str, players: int) -> list[int]:
    from ..errors import CatansimError

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


def _print(values: dict, exp, seats, top: int, players: int) -> None:
    import pandas as pd

    from ..analysis import openings as AO
    from ..analysis.stats import METHOD_NAMES
    from ..board.metrics import node_table
    from ..constants import seat_colours

    arms = AO.verdicts(values)  # the stars and the counts of the summary line, both
    place = AO.placement(values)
    nodes = node_table(exp.board)
    colours = seat_colours(players)
    for seat in seats:
        u = arms[arms["seat"] == seat]
        if not len(u):
            continue
        kind = u["kind"].iloc[0]
        p = place.loc[(seat, kind)] if (seat, kind) in place.index else None
        base = u["base_win_rate"].iloc[0]
        n = int(u["n"].iloc[0])
        own = int(p["choice_node"]) if p is not None else -1
        click.echo(f"\nseat {seat} ({colours[seat]}), {kind} settlement: the strategy's own "
                   f"choice is node {own}, which wins {100 * base:.1f}% of {n:,} games")
        if p is not None:
            taken = u["verdict"].value_counts()
            extra = [f"{int(taken[w])} {w.split(',')[0]}" for w in
                     ("better, not free", "worse, not free") if taken.get(w, 0)]
            click.echo(f"  it ranks {int(p['rank'])} of {int(p['alternatives']) + 1} nodes free "
                       f"at this seat's turn; {int(p['n_better'])} are significantly better, "
                       f"{int(p['n_worse'])} worse (after "
                       f"{METHOD_NAMES[values['correction']]} correction)"
                       + (f"; of the nodes not free at its turn, {' and '.join(extra)} "
                          "(** below)" if extra else ""))
        t = u.sort_values("diff", ascending=False).head(top)
        rows = []
        for _, r in t.iterrows():
            nd = nodes.loc[int(r["node"])]
            rows.append({
                "node": int(r["node"]),
                "hexes": " ".join(f"{res}{num}" for res, num in
                                  zip(nd["resources"].split("+") if nd["resources"] else [],
                                      nd["numbers"], strict=False)) or "-",
                "pips": int(nd["pips"]),
                "harbor": nd["harbor"] if isinstance(nd["harbor"], str) else "",
                "win %": f"{100 * r['win_rate']:.1f} [{100 * r['win_ci_low']:.1f}, "
                         f"{100 * r['win_ci_high']:.1f}]",
                "vs own choice (points)": f"{100 * r['diff']:+.1f} [{100 * r['ci_low']:+.1f}, "
                                          f"{100 * r['ci_high']:+.1f}]"
                                          + {"better": " *", "worse": " *", "": ""}.get(
                                              r["verdict"], " **"),
                "free at turn": "yes" if r["legal_share"] >= 0.5 else "no",
                "": "own choice" if int(r["node"]) == own else ""})
        with pd.option_context("display.width", 160, "display.max_colwidth", 40):
            click.echo(pd.DataFrame(rows).to_string(index=False))
    click.echo("\n95% intervals: Wilson for the win rate, paired t for the difference (same "
               "games); * significant after correction, a node free at the seat's turn; ** "
               "significant, a node not free at its turn: forced openings are reserved, so "
               "the earlier seats had to settle elsewhere, and it is no alternative.")
