"""Tournaments between strategies with rotated seats, and the cross-play matrix.

Every deal (a game seed: the board, the dice and the development deck all derive
from it) is played once per seating, so every strategy sits in every seat equally
often on the same boards and dice. Games run through ``catansim.engine.play_batch``
(in parallel on all cores) and come back as the standard games and players tables
(``catansim.results``), like any run: game ``deal * n_seatings + seating`` of
variant ``group`` has the deal's seed, so every analysis of a dataset applies.

``tournament`` plays a field of exactly ``n_players`` strategies;
``cross_play`` plays every strategy against ``n_players - 1`` copies of every
other one, rotating the single strategy through the seats (one variant per
ordered pair, named ``A_vs_B``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from tqdm import tqdm

from ..analysis import crossplay as X
from ..analysis.driver import Accumulator, Analysis, Chunk, Context
from ..analysis.stats import wilson_ci
from ..analysis.strategies import RATING
from ..analysis.table import result_table
from ..checks import check_int, check_players
from ..engine import batch_seeds, play_batch
from ..errors import CatansimError
from ..results import games_frame, players_frame
from ..rules import Rules
from ..settings import GameSettings
from ..strategies import PRESETS, StrategySet, python_player_name
from ..tunables import CHUNK_DEALS

TOURNAMENT = "tournament"  # the variant name of a tournament's games


def seat_rotations(names, n_players: int) -> list[tuple[str, ...]]:
    """The seatings of one deal: rotation r puts ``names[(seat + r) % n]`` in each seat.

    Over the ``n_players`` rotations every strategy sits in every seat exactly once.
    """
    names = tuple(names)
    if len(names) != n_players:
        raise CatansimError(
            f"strategies: {len(names)} names for {n_players} players; "
            f"allowed: exactly {n_players} names"
        )
    return [tuple(names[(seat + r) % n_players] for seat in range(n_players))
            for r in range(n_players)]


@dataclass(frozen=True)
class Deals:
    """What every group of a tournament shares: deals, players, rules, layout, strategies."""

    n_deals: int
    n_players: int = 4
    seed: int = 0
    rules: Rules = field(default_factory=Rules)
    layout: str = "variable"
    strategy_set: StrategySet = field(default=PRESETS, repr=False)
    debug: bool = False  # stop at the first illegal action (IllegalActionError)
    # Python player objects by the name that labels them (``python:module:Class``)
    players: tuple = field(default=(), repr=False, compare=False)


def iter_seatings(deals: Deals, seatings, group: str, groups, strategy_names,
                  n_threads: int | None = None, progress=None
                  ) -> Iterator[tuple[pd.DataFrame, pd.DataFrame]]:
    """Play every deal once with each seating, ``CHUNK_DEALS`` deals at a time: yields
    the ``(games, players)`` tables of ``group`` chunk by chunk.

    Game ``deal * len(seatings) + k`` is deal ``deal`` with seating ``k``; deal ``d``
    uses game seed ``batch_seeds(seed, 1, d)`` in every seating. ``groups``
    and ``strategy_names`` are the categories of the ``variant`` and strategy
    columns (every group's, so that the tables of all groups concatenate).
    ``progress`` is an optional tqdm bar advanced per game.
    """
    objects = dict(deals.players)
    settings = [GameSettings(n_players=deals.n_players,
                             strategies=tuple(objects.get(name, name) for name in s),
                             layout=deals.layout, rules=deals.rules,
                             strategy_set=deals.strategy_set)
                for s in seatings]
    k = len(settings)
    labels = dict(variant=group, variants=list(groups), strategy_names=list(strategy_names))
    for start in range(0, deals.n_deals, CHUNK_DEALS):
        seeds = batch_seeds(deals.seed, min(CHUNK_DEALS, deals.n_deals - start), start)
        deal = np.arange(start, start + seeds.size, dtype=np.int64)
        batches = []
        for st in settings:
            batches.append(play_batch(seeds, st, n_threads=n_threads, debug=deals.debug))
            if progress is not None:
                progress.update(seeds.size)
        index = [deal * k + i for i in range(k)]
        yield games_frame(batches, index, **labels), players_frame(batches, index, **labels)


def play_seatings(deals: Deals, seatings, group: str, groups, strategy_names,
                  n_threads: int | None = None, progress=None
                  ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``iter_seatings`` concatenated: the ``(games, players)`` tables of ``group``."""
    chunks = list(iter_seatings(deals, seatings, group, groups, strategy_names, n_threads,
                                progress))
    return (_concat([g for g, _ in chunks]), _concat([p for _, p in chunks]))


def _concat(frames) -> pd.DataFrame:
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


# --- the summary of a tournament, accumulated chunk by chunk ------------------------------


def _summary_map(chunk: Chunk) -> dict:
    """Sums per strategy, per (strategy, seat) and per game (integers: they add up)."""
    g, p = chunk.games, chunk.players
    turns = np.zeros(len(p), dtype=np.int64)
    for v in chunk.variants:  # each seat row gets the turns of its game
        rows = chunk.player_rows(v)
        turns[rows] = g["turns"].to_numpy()[chunk.game_rows(v)][chunk.game_of_player(v)]
    won = p["won"].to_numpy().astype(bool)
    rows = pd.DataFrame({"strategy": chunk.labels("players", "strategy").astype(str),
                         "seat": p["seat"].to_numpy().astype(np.int64),
                         "won": won.astype(np.int64), "vp": p["vp"].to_numpy(np.int64),
                         "turns": turns, "turns_won": np.where(won, turns, 0)})
    by_strategy = rows.groupby("strategy").agg(
        games=("won", "size"), wins=("won", "sum"), vp=("vp", "sum"), turns=("turns", "sum"),
        turns_won=("turns_won", "sum")).astype(np.int64)
    by_seat = rows.groupby(["strategy", "seat"])["won"].agg(["size", "sum"]).astype(np.int64)
    per_game = np.array([len(g), int(g["turns"].sum()),
                         int((g["end_reason"].astype(str) == "turn_limit").sum()),
                         int(p["trades_player"].sum()), int(p["offers"].sum())], dtype=np.int64)
    return {"by_strategy": by_strategy, "by_seat": by_seat, "per_game": per_game}


SUMMARY = Analysis("tournament_summary",
                   {"games": ("turns", "end_reason"),
                    "players": ("seat", "strategy", "won", "vp", "trades_player", "offers")},
                   _summary_map, lambda stats, ctx: stats)


def _results(deals: Deals, groups: dict, strategy_names, analyses, n_threads, progress: bool,
             keep_games: bool):
    """Play every group's seatings, folding each chunk into ``analyses`` as it comes;
    returns the accumulator and (``keep_games``) the concatenated tables, else None."""
    acc = Accumulator(list(analyses))
    kept: tuple[list, list] = ([], [])
    bar = _bar(progress, deals.n_deals * sum(len(s) for s in groups.values()))
    try:
        for group, seatings in groups.items():
            for g, p in iter_seatings(deals, seatings, group, groups, strategy_names,
                                      n_threads, bar):
                acc.add(g, p)
                if keep_games:
                    kept[0].append(g)
                    kept[1].append(p)
                del g, p
    finally:
        if bar is not None:
            bar.close()
    if not keep_games:
        return acc, None, None
    return acc, _concat(kept[0]), _concat(kept[1])


@dataclass
class TournamentResult:
    """The summary tables of a tournament and, if kept, its games as the standard tables.

    ``games`` and ``players`` are ``catansim.results`` tables (variant ``tournament``;
    None with ``keep_games=False``); the seating of a game is ``game % n_players`` and
    its deal ``game // n_players``. The summaries come from counts accumulated as the
    games were played, so they need no tables.
    """

    games: pd.DataFrame | None
    players: pd.DataFrame | None
    n_players: int
    stats: dict = field(repr=False, default_factory=dict)  # SUMMARY's sums
    ratings: pd.DataFrame = field(repr=False, default_factory=pd.DataFrame)

    def summary(self) -> pd.DataFrame:
        """Per strategy: games, wins, win rate with its 95% Wilson interval, average
        final VP, average game length (all its games, and the games it won), and the
        win rate in each seat (printed compactly: ``analysis.table.ResultTable``)."""
        s = self.stats["by_strategy"]
        out = pd.DataFrame({"games": s["games"], "wins": s["wins"],
                            "avg_vp": s["vp"] / s["games"],
                            "avg_turns": s["turns"] / s["games"],
                            "avg_turns_won": (s["turns_won"] / s["wins"]).where(s["wins"] > 0)})
        out.index = out.index.astype(str)
        out.index.name = "strategy"
        out["win_rate"] = out["wins"] / out["games"]
        out["ci_low"], out["ci_high"] = wilson_ci(out["wins"], out["games"])
        by_seat = self.by_seat()
        by_seat.columns = [f"seat_{c}" for c in by_seat.columns]
        out = out.join(by_seat)
        cols = ["games", "wins", "win_rate", "ci_low", "ci_high", "avg_vp", "avg_turns",
                "avg_turns_won"] + list(by_seat.columns)
        return result_table(out[cols].sort_values("win_rate", ascending=False))

    def by_seat(self) -> pd.DataFrame:
        """Win rate of each strategy (rows) in each seat (columns)."""
        s = self.stats["by_seat"]
        out = (s["sum"] / s["size"]).unstack("seat")
        out.index = out.index.astype(str)
        out.index.name, out.columns.name = "strategy", "seat"
        return out

    def game_stats(self) -> pd.Series:
        """Per game: mean turns, share reaching the turn cap, player trades and offers."""
        n, turns, limit, trades, offers = (int(x) for x in self.stats["per_game"])
        return pd.Series({"games": n, "mean_turns": turns / n, "turn_limit_share": limit / n,
                          "trades_per_game": trades / 2 / n,  # a trade is counted by both
                          "offers_per_game": offers / n})

    def rating(self) -> pd.DataFrame:
        """The Plackett-Luce rating of the strategies (``analysis.strategy_rating``);
        empty with fewer than two strategies or no decided game. Printed, the numbers
        come first and the method once below (``analysis.table.ResultTable``)."""
        return result_table(self.ratings)


def _check(names, n_players, games, strategy_set: StrategySet):
    check_players(n_players)
    check_int(games, "games", 1)
    for name in names:
        strategy_set.resolve(name)


def _named(strategies) -> tuple[tuple[str, ...], tuple]:
    """The names of ``strategies`` (a Python player object by ``python:module:Class``)
    and the ``(name, object)`` pairs of the objects."""
    names, objects = [], {}
    for item in strategies:
        if isinstance(item, str) or not callable(getattr(item, "decide", None)):
            names.append(item)
            continue
        name = python_player_name(item)
        if objects.setdefault(name, item) is not item:
            raise CatansimError(f"strategies: two {name} objects; allowed: one object of "
                                "each class (its name labels its seats)")
        names.append(name)
    return tuple(names), tuple(objects.items())


def tournament(
    strategies,
    games: int,
    n_players: int = 4,
    seed: int = 0,
    rules: Rules | None = None,
    layout: str = "variable",
    n_threads: int | None = None,
    progress: bool = False,
    strategy_set: StrategySet = PRESETS,
    debug: bool = False,
    keep_games: bool = True,
) -> TournamentResult:
    """Play ``n_players`` strategies against each other with rotated seats.

    ``strategies`` are names, or Python players (``catansim.game.Player`` objects,
    labelled ``python:module:Class``; one object plays every seat its class sits in).

    ``games`` is rounded up to a multiple of ``n_players``: each deal is played in all
    ``n_players`` seat rotations with the same seed (same board, dice and deck).
    ``keep_games=False`` keeps only the summaries (memory flat in the number of games;
    ``games`` and ``players`` are then None).
    """
    names, players = _named(strategies)
    _check(names, n_players, games, strategy_set)
    seatings = seat_rotations(names, n_players)
    deals = Deals(-(-games // n_players), n_players, seed, rules or Rules(), layout,
                  strategy_set, debug, players)
    acc, g, p = _results(deals, {TOURNAMENT: seatings}, sorted(set(names)), [SUMMARY, RATING],
                         n_threads, progress, keep_games)
    summary, ratings = acc.results()
    return TournamentResult(g, p, n_players, summary, ratings)


@dataclass
class CrossPlayResult:
    """Every strategy against ``n_players - 1`` copies of every other one.

    ``games`` and ``players`` are the standard tables with one variant per ordered
    pair (``pairs``: variant -> (strategy, opponent); None with ``keep_games=False``);
    in each game of variant ``A_vs_B`` the single ``A`` sits in seat
    ``game % n_players``. The tables of cells come from counts accumulated as the
    games were played.
    """

    games: pd.DataFrame | None
    players: pd.DataFrame | None
    n_players: int
    pairs: dict[str, tuple[str, str]]
    n_deals: int = 0
    counts: object = field(default=None, repr=False)  # the cross-play analysis' statistics
    context: Context | None = field(default=None, repr=False)

    def single(self) -> pd.DataFrame:
        """The players rows of the single strategy of each game, with its opponent
        (needs the games: ``keep_games=True``)."""
        if self.players is None:
            raise CatansimError("single: the games were not kept; allowed: "
                                "cross_play(..., keep_games=True)")
        p = self.players
        pair = p["variant"].astype(str).map(self.pairs)
        strategy = p["strategy"].astype(str)
        mask = strategy == pair.str[0]
        return p[mask].assign(strategy=strategy[mask], opponent=pair[mask].str[1])

    def table(self, correction: str = "holm") -> pd.DataFrame:
        """Per (strategy, opponent, seat): games, wins, win rate with its Wilson interval,
        the exact binomial test against the fair share 1 / n_players, corrected within
        the pooled and within the per-seat cells, and the verdict (``beats``,
        ``loses to``, ``not significant``); seat ``all`` pools the seats
        (``catansim.analysis.crossplay.crossplay_table``, one row per cell)."""
        return X.crossplay_analysis(correction).finish(self.counts, self.context).reset_index()

    def matrix(self, seat: str = "all") -> pd.DataFrame:
        """Win rate of the row strategy against ``n_players - 1`` copies of the column."""
        return X.crossplay_matrix(self.table().set_index(["strategy", "opponent", "seat"]),
                                seat)

    def dominant(self) -> list[str]:
        """Strategies that significantly beat every other one from every seat (after
        correction)."""
        return X.dominant(self.table().set_index(["strategy", "opponent", "seat"]))

    def counters(self) -> pd.DataFrame:
        """For each strategy, the opponents it beats and those it loses to, significant
        after correction (pooled seats), and those it is even with."""
        return X.counters(self.table().set_index(["strategy", "opponent", "seat"]))


def pair_name(a: str, b: str) -> str:
    """The variant name of strategy ``a`` against copies of ``b``."""
    return f"{a}_vs_{b}"


def cross_play(
    strategies,
    games: int,
    n_players: int = 4,
    seed: int = 0,
    rules: Rules | None = None,
    layout: str = "variable",
    n_threads: int | None = None,
    progress: bool = False,
    strategy_set: StrategySet = PRESETS,
    debug: bool = False,
    keep_games: bool = True,
) -> CrossPlayResult:
    """Play every strategy A against ``n_players - 1`` copies of every other strategy B.

    For each ordered pair, ``games`` (rounded up to a multiple of ``n_players``) games:
    each deal is played with A in every seat in turn. All pairs use the same deals.
    ``keep_games=False`` keeps only the counts of the cells (memory flat in the number
    of games; ``games`` and ``players`` are then None).
    """
    names, players = _named(strategies)
    names = tuple(dict.fromkeys(names))
    _check(names, n_players, games, strategy_set)
    if len(names) < 2:
        raise CatansimError("strategies: cross-play needs at least 2 names; allowed: 2 or "
                            "more comma-separated names")
    deals = Deals(-(-games // n_players), n_players, seed, rules or Rules(), layout,
                  strategy_set, debug, players)
    pairs = {pair_name(a, b): (a, b) for a in names for b in names if a != b}
    groups = {group: [tuple(a if seat == r else b for seat in range(n_players))
                      for r in range(n_players)] for group, (a, b) in pairs.items()}
    acc, g, p = _results(deals, groups, sorted(names), [X.crossplay_analysis()], n_threads,
                         progress, keep_games)
    return CrossPlayResult(g, p, n_players, pairs, deals.n_deals, acc.stats[0], acc.context())


def _bar(progress: bool, total: int):
    if not progress:
        return None

    return tqdm(total=total, unit="game", desc="games", leave=False)
