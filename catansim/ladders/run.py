"""``ladder``: play a field's missing games, then rate every player and write the report.

The report folder (``out``) holds ``ladder.json`` and ``games/`` (the games, part by
part), and after each call ``report.html`` with ``tables/`` (``rating.csv``,
``ladder.csv``, ``matrix.csv``, ``pairs.csv``) and ``figures/`` (``rating.png``,
``matrix.png``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd
from tqdm.auto import tqdm

from .. import __version__
from ..analysis.ladder import UNBOUNDED_NOTE, ladder_matrix, ladder_rating, ladder_table
from ..analysis.stats import with_unbounded_text
from ..checks import check_int, check_players, check_seed
from ..errors import CatansimError
from ..plotting.figures import crossplay_heatmap
from ..plotting.ladder import ladder_figure
from ..reports import Section, write_study_report
from ..rules import Rules
from ..runs.runner import dask_client
from ..strategies import PRESETS, StrategySet
from . import play as P
from .field import check_field, is_catanatron


@dataclass
class LadderResult:
    """A ladder's games and numbers.

    ``games``: one row per game (``analysis.ladder`` names the columns); ``rating``: the
    Plackett-Luce fit (``analysis.ladder.ladder_rating``); ``matrix``: one alone against
    the rest, pooled and per seat (``ladder_matrix``); ``table``: one row per player,
    strongest first (``ladder_table``); ``out``: the folder, with ``report.html``.
    """

    games: pd.DataFrame
    rating: pd.DataFrame
    matrix: pd.DataFrame
    table: pd.DataFrame
    out: Path
    deals: int
    played: P.Progress

    @property
    def report(self) -> Path:
        return self.out / "report.html"

    def cell(self, strategy: str, opponent: str, seat: str = "all") -> pd.Series:
        """One cell of the matrix: ``strategy`` alone against ``opponent``."""
        return self.matrix.loc[(strategy, opponent, str(seat))]


def ladder(field, deals: int, out, seed: int = 0, n_players: int = 4, block: int = 5,
           rules: Rules | None = None, strategy_set: StrategySet = PRESETS,
           reference: str | None = None, workers: int = 1, scheduler: str | None = None,
           alone=None, progress: bool = False) -> LadderResult:
    """Play every player of ``field`` alone against copies of every other on ``deals``
    shared deals (each in every seat rotation: ``deals * n_players`` games per ordered
    pair), resuming in ``out``; then rate every player and write the report there.

    ``field``: names (``catansim.ladders.field``). ``block``: deals per part (a part is
    the unit written, resumed and sent to a worker). ``reference``: the player rated 0
    (default: the first of the field). ``workers``: local processes; ``scheduler``: a
    Dask scheduler's address (its workers need catansim, and catanatron for its bots).
    ``alone``: play only the pairs whose single player is one of these names (default:
    every player alone; the rating then rests on those games only).
    """
    names = check_field(field, strategy_set)
    deals = check_int(deals, "deals", 1)
    seed = check_seed(seed)
    check_players(n_players)
    block = check_int(block, "block", 1)
    workers = check_int(workers, "workers", 1)
    rules = rules or Rules()
    if reference is not None and reference not in names:
        raise CatansimError(f"reference: {reference!r} is not in the field; allowed: "
                            f"{', '.join(names)}")
    if alone is not None:
        alone = tuple([alone] if isinstance(alone, str) else alone)
        outside = [a for a in alone if a not in names] if alone else ["(none)"]
        if outside:
            raise CatansimError(f"alone: {outside[0]!r} is not in the field; allowed: one or "
                                f"more of {', '.join(names)}")
    spec = P.Spec(names, seed, n_players, block, rules, strategy_set, alone)
    out = Path(out)
    P.open_folder(out, spec, deals)
    parts = P.plan(spec, deals)
    have = P.done(out, parts, n_players)
    todo = [p for p in parts if p.stem not in have]
    bar = (tqdm(total=sum(p.games(n_players) for p in todo), unit="game", desc="ladder",
                leave=False) if progress and todo else None)
    try:
        with dask_client(scheduler, kept=f"{out}: the parts written are kept; rerun "
                         "to resume") as client:
            played = P.play_parts(out, spec, todo, workers, client, bar)
    finally:
        if bar is not None:
            bar.close()
    games = P.load_games(out, parts)
    rating = ladder_rating(games, reference or names[0])
    matrix = ladder_matrix(games)
    table = ladder_table(rating, matrix)
    result = LadderResult(games, rating, matrix, table, out, deals, played)
    write_report(result, spec)
    return result


# --- the report -----------------------------------------------------------------------------


def pairs_table(games: pd.DataFrame) -> pd.DataFrame:
    """Per ordered pair: games, deals, wall-clock and CPU seconds per game (means; CPU
    over the games that recorded it), turns (mean), and the longest decision of a
    catanatron bot in any of its games (CPU seconds; over the games that recorded it, 0
    without a bot)."""
    g = games.groupby(["strategy", "opponent"], sort=False)
    nan = pd.Series(float("nan"), index=g.size().index)
    cpu = g["cpu_seconds"].mean() if "cpu_seconds" in games else nan
    longest = g["longest_ask_cpu_seconds"].max() if "longest_ask_cpu_seconds" in games else nan
    return pd.DataFrame({"games": g.size(), "deals": g["deal"].nunique(),
                         "seconds_per_game": g["seconds"].mean(),
                         "cpu_seconds_per_game": cpu, "turns": g["turns"].mean(),
                         "longest_ask_cpu_seconds": longest})


METHOD_RATING = (
    "Every player plays alone against copies of every other, on the same deals, in every "
    "seat. The rating is the top-1 Plackett-Luce model (the winner of each game; "
    "analysis.strategies.fit_rating: a conditional logit with seat effects, fitted as a "
    "Poisson GLM in statsmodels) on all the ladder's games: log_strength is the log odds "
    "of winning against the reference in the same seat, with its 95% Wald interval; "
    "games is n, the decided games the player sat in. A player that never beat (or always "
    "beat) a group of players it met has no finite rating (quasi-separation): bounded is "
    "false and its interval says nothing; the matrix still shows those games.")
METHOD_MATRIX = (
    "Win rate of the row player alone against copies of the column player, all seats "
    "pooled, with its 95% Wilson interval and n; beats / loses to: the exact binomial test "
    "against the fair share (1 / players), Holm-corrected over the matrix.")
METHOD_BRIDGE = (
    "catanatron's bots play through the bridge (catansim.players.outside.catanatron): at "
    "each decision the position is mirrored into a catanatron game with every seat's true "
    "cards (a bot named with view=public gets a state dealt from its seat's public record "
    "instead, Game.determinize), the bot chooses among catanatron's legal actions that are "
    "legal in catansim, "
    "and its action is mapped back. They make no player trades and refuse every offer. "
    "docs/ladder.md has the rules where the two games differ.")


def write_report(result: LadderResult, spec: P.Spec) -> Path:
    """``report.html`` with its tables and figures, in the ladder's folder."""
    fair = 1.0 / spec.n_players
    pooled = result.matrix.xs("all", level="seat")
    bots = [n for n in spec.field if is_catanatron(n)]
    rating = Section("rating", "Rating", METHOD_RATING)
    bounded = result.table["bounded"]
    rating.table("ladder", with_unbounded_text(result.table, bounded),
                 "Players, strongest first: the rating with its interval and n, and the win "
                 "rate alone against all the others together."
                 + ("" if bounded.all() else " " + UNBOUNDED_NOTE[0].upper()
                    + UNBOUNDED_NOTE[1:] + "."), csv=result.table)
    reference = str(result.rating["reference"].iloc[0])
    rating.figure("rating", ladder_figure(result.table, reference), "Plackett-Luce rating, "
                  "95% Wald intervals, n decided games each.")
    fit = result.rating.drop(columns=["method", "reference"])
    rating.table("rating", fit, f"The fit: players and seat effects (relative to "
                 f"{reference} and seat 0). Method: {result.rating['method'].iloc[0]}.",
                 csv=result.rating)
    matrix = Section("matrix", "One against three" if spec.n_players == 4 else
                     "One against the rest", METHOD_MATRIX)
    order = list(result.table.index)  # strongest first
    matrix.figure("matrix", crossplay_heatmap(pooled, fair, order), "Pooled over the seats; "
                  "players strongest first.")
    shown = pooled.drop(columns=["method", "correction", "fair"]).reset_index()
    shown = shown.sort_values(["strategy", "opponent"], key=lambda c: c.map(order.index))
    matrix.table("matrix", shown.set_index(["strategy", "opponent"]),
                 f"Every cell, pooled over the seats of the single player (tables/matrix.csv "
                 f"has each seat too); fair share {fair:.3f}; "
                 f"{result.matrix['correction'].iloc[0]} (pooled cells).", csv=result.matrix)
    games = Section("games", "Games", METHOD_BRIDGE if bots else
                    "Every game is played by catansim's engine through the step interface.")
    games.table("pairs", pairs_table(result.games), "Per ordered pair: seconds per game "
                "of wall-clock time (it grows with the machine's load) and of the game's own "
                "CPU time, and the longest decision of a catanatron bot in its games "
                "(CPU seconds: catanatron's alpha-beta player would cut a search at 20 s "
                "of wall-clock time, a cut the bridge lifts so that a game depends only "
                "on its seed).")
    manifest = P.read_manifest(result.out)
    items = [("field", ", ".join(spec.field)), ("deals", f"{result.deals:,} (each in "
             f"{spec.n_players} seat rotations)"), ("games", f"{len(result.games):,}"),
             ("seed", spec.seed), ("players", spec.n_players),
             ("catansim", __version__)]
    if spec.alone is not None:
        items.append(("alone", "only the games of " + ", ".join(spec.alone) + " alone (the "
                      "rating rests on those games)"))
    if manifest.get("catanatron"):
        items.append(("catanatron", manifest["catanatron"]))
    return write_study_report(result.out, [rating, matrix, games], "catansim ladder", items)
