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

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..analysis.stats import wilson_ci
from ..checks import check_int, check_players
from ..engine import GameSettings, batch_seeds, play_batch
from ..errors import CatansimError
from ..results import games_frame, players_frame
from ..rules import Rules
from ..strategies import PRESETS, StrategySet
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


def play_seatings(deals: Deals, seatings, group: str, groups, strategy_names,
                  n_threads: int | None = None, progress=None
                  ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Play every deal once with each seating: the ``(games, players)`` tables of ``group``.

    Game ``deal * len(seatings) + k`` is deal ``deal`` with seating ``k``; deal ``d``
    uses game seed ``batch_seeds(seed, n_deals)[d]`` in every seating. ``groups``
    and ``strategy_names`` are the categories of the ``variant`` and strategy
    columns (every group's, so that the tables of all groups concatenate).
    ``progress`` is an optional tqdm bar advanced per game.
    """
    seeds_all = batch_seeds(deals.seed, deals.n_deals)
    settings = [GameSettings(n_players=deals.n_players, strategies=tuple(s), layout=deals.layout,
                             rules=deals.rules, strategy_set=deals.strategy_set)
                for s in seatings]
    k = len(settings)
    labels = dict(variant=group, variants=list(groups), strategy_names=list(strategy_names))
    games, players = [], []
    for start in range(0, deals.n_deals, CHUNK_DEALS):
        seeds = seeds_all[start : start + CHUNK_DEALS]
        deal = np.arange(start, start + seeds.size, dtype=np.int64)
        batches = []
        for st in settings:
            batches.append(play_batch(seeds, st, n_threads=n_threads, debug=deals.debug))
            if progress is not None:
                progress.update(seeds.size)
        index = [deal * k + i for i in range(k)]
        games.append(games_frame(batches, index, **labels))
        players.append(players_frame(batches, index, **labels))
    return pd.concat(games, ignore_index=True), pd.concat(players, ignore_index=True)


def _concat(frames) -> pd.DataFrame:
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


@dataclass
class TournamentResult:
    """The games of a tournament as the standard tables, and its summary tables.

    ``games`` and ``players`` are ``catansim.results`` tables (variant ``tournament``);
    the seating of a game is ``game % n_players`` and its deal ``game // n_players``.
    """

    games: pd.DataFrame
    players: pd.DataFrame
    n_players: int

    def _seat_rows(self) -> pd.DataFrame:
        turns = self.games.set_index("game")["turns"]
        p = self.players
        return p.assign(turns=turns.reindex(p["game"]).to_numpy())

    def summary(self) -> pd.DataFrame:
        """Per strategy: games, wins, win rate with its 95% Wilson interval, average
        final VP, average game length (all its games, and the games it won), and the
        win rate in each seat."""
        g = self._seat_rows()
        grouped = g.groupby("strategy", observed=True)
        out = pd.DataFrame(
            {
                "games": grouped.size(),
                "wins": grouped["won"].sum(),
                "avg_vp": grouped["vp"].mean(),
                "avg_turns": grouped["turns"].mean(),
                "avg_turns_won": g[g["won"]].groupby("strategy", observed=True)["turns"].mean(),
            }
        )
        out.index = out.index.astype(str)
        out["win_rate"] = out["wins"] / out["games"]
        out["ci_low"], out["ci_high"] = wilson_ci(out["wins"], out["games"])
        by_seat = self.by_seat()
        by_seat.columns = [f"seat_{c}" for c in by_seat.columns]
        out = out.join(by_seat)
        cols = ["games", "wins", "win_rate", "ci_low", "ci_high", "avg_vp", "avg_turns",
                "avg_turns_won"] + list(by_seat.columns)
        return out[cols].sort_values("win_rate", ascending=False)

    def by_seat(self) -> pd.DataFrame:
        """Win rate of each strategy (rows) in each seat (columns)."""
        p = self.players.assign(strategy=self.players["strategy"].astype(str),
                                seat=self.players["seat"].astype(np.int64))
        return p.pivot_table(index="strategy", columns="seat", values="won", aggfunc="mean")

    def game_stats(self) -> pd.Series:
        """Per game: mean turns, share reaching the turn cap, player trades and offers."""
        per_game = self.players.groupby("game")[["trades_player", "offers"]].sum()
        g = self.games
        return pd.Series(
            {
                "games": len(g),
                "mean_turns": g["turns"].mean(),
                "turn_limit_share": (g["end_reason"] == "turn_limit").mean(),
                "trades_per_game": (per_game["trades_player"] / 2).mean(),  # counted by both
                "offers_per_game": per_game["offers"].mean(),
            }
        )


def _check(names, n_players, games, strategy_set: StrategySet):
    check_players(n_players)
    check_int(games, "games", 1)
    for name in names:
        strategy_set.resolve(name)


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
) -> TournamentResult:
    """Play ``n_players`` strategies against each other with rotated seats.

    ``games`` is rounded up to a multiple of ``n_players``: each deal is played in all
    ``n_players`` seat rotations with the same seed (same board, dice and deck).
    """
    names = tuple(strategies)
    _check(names, n_players, games, strategy_set)
    seatings = seat_rotations(names, n_players)
    deals = Deals(-(-games // n_players), n_players, seed, rules or Rules(), layout,
                  strategy_set, debug)
    bar = _bar(progress, deals.n_deals * len(seatings))
    try:
        g, p = play_seatings(deals, seatings, TOURNAMENT, [TOURNAMENT], sorted(set(names)),
                             n_threads, bar)
    finally:
        if bar is not None:
            bar.close()
    return TournamentResult(g, p, n_players)


@dataclass
class CrossPlayResult:
    """Every strategy against ``n_players - 1`` copies of every other one.

    ``games`` and ``players`` are the standard tables with one variant per ordered
    pair (``pairs``: variant -> (strategy, opponent)); in each game of variant
    ``A_vs_B`` the single ``A`` sits in seat ``game % n_players``.
    """

    games: pd.DataFrame
    players: pd.DataFrame
    n_players: int
    pairs: dict[str, tuple[str, str]]

    def single(self) -> pd.DataFrame:
        """The players rows of the single strategy of each game, with its opponent."""
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
        from ..analysis.crossplay import crossplay_table

        return crossplay_table((self.games, self.players), correction).reset_index()

    def matrix(self, seat: str = "all") -> pd.DataFrame:
        """Win rate of the row strategy against ``n_players - 1`` copies of the column."""
        from ..analysis.crossplay import crossplay_matrix

        return crossplay_matrix(self.table().set_index(["strategy", "opponent", "seat"]),
                                seat)

    def dominant(self) -> list[str]:
        """Strategies that significantly beat every other one from every seat (after
        correction)."""
        from ..analysis.crossplay import dominant

        return dominant(self.table().set_index(["strategy", "opponent", "seat"]))

    def counters(self) -> pd.DataFrame:
        """For each strategy, the opponents it beats and those it loses to, significant
        after correction (pooled seats), and those it is even with."""
        from ..analysis.crossplay import counters

        return counters(self.table().set_index(["strategy", "opponent", "seat"]))


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
) -> CrossPlayResult:
    """Play every strategy A against ``n_players - 1`` copies of every other strategy B.

    For each ordered pair, ``games`` (rounded up to a multiple of ``n_players``) games:
    each deal is played with A in every seat in turn. All pairs use the same deals.
    """
    names = tuple(dict.fromkeys(strategies))
    _check(names, n_players, games, strategy_set)
    if len(names) < 2:
        raise CatansimError("strategies: cross-play needs at least 2 names; allowed: 2 or "
                            "more comma-separated names")
    deals = Deals(-(-games // n_players), n_players, seed, rules or Rules(), layout,
                  strategy_set, debug)
    pairs = {pair_name(a, b): (a, b) for a in names for b in names if a != b}
    bar = _bar(progress, deals.n_deals * n_players * len(pairs))
    games_out, players_out = [], []
    try:
        for group, (a, b) in pairs.items():
            seatings = [tuple(a if seat == r else b for seat in range(n_players))
                        for r in range(n_players)]
            g, p = play_seatings(deals, seatings, group, pairs, sorted(names), n_threads, bar)
            games_out.append(g)
            players_out.append(p)
    finally:
        if bar is not None:
            bar.close()
    return CrossPlayResult(_concat(games_out), _concat(players_out), n_players, pairs)


def _bar(progress: bool, total: int):
    if not progress:
        return None
    from tqdm import tqdm

    return tqdm(total=total, unit="game", desc="games", leave=False)
