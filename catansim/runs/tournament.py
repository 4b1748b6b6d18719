"""Tournaments between strategies with rotated seats, and the cross-play matrix.

Every deal (a game seed: the board, the dice and the development deck all derive
from it) is played once per seat rotation, so every strategy sits in every seat
equally often on the same boards and dice. Games run through
``catansim.engine.play_batch`` (in parallel on all cores); results are pandas
DataFrames.

``tournament`` plays a field of exactly ``n_players`` strategies;
``cross_play`` plays every strategy against ``n_players - 1`` copies of every
other one, rotating the single strategy through the seats.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..analysis.stats import wilson_ci
from ..core import layout as L
from ..engine import GameSettings, batch_seeds, play_batch
from ..errors import CatansimError
from ..results import counter_field, players_frame
from ..rules import Rules
from ..strategies import resolve

CHUNK_DEALS = 20_000  # deals per play_batch call (progress-bar granularity)


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


def play_seatings(
    seatings,
    n_deals: int,
    n_players: int = 4,
    seed: int = 0,
    rules: Rules | None = None,
    layout: str = "variable",
    n_threads: int | None = None,
    progress=None,
    group: str = "",
) -> pd.DataFrame:
    """Play every deal once with each seating; one row per (game, seat).

    Columns: group, deal, seed, seating, seat, strategy, won, vp, turns, turn_limit,
    trades_player, offers. Deal ``d`` uses game seed ``batch_seeds(seed, n_deals)[d]``
    for every seating. ``progress`` is an optional tqdm bar advanced per game.
    """
    rules = rules or Rules()
    seeds_all = batch_seeds(seed, n_deals)
    settings = [
        GameSettings(n_players=n_players, strategies=tuple(s), layout=layout, rules=rules)
        for s in seatings
    ]
    frames = []
    for start in range(0, n_deals, CHUNK_DEALS):
        seeds = seeds_all[start : start + CHUNK_DEALS]
        deals = np.arange(start, start + seeds.size)
        for k, st in enumerate(settings):
            res = play_batch(seeds, st, n_threads=n_threads)
            per_game = {
                "turns": counter_field(res.counters, "c_turns")[:, 0],
                "turn_limit": counter_field(res.counters, "c_end_reason")[:, 0]
                == L.END_TURN_LIMIT,
            }
            p = players_frame(res, game_index=deals)
            frames.append(pd.DataFrame({
                "group": group,
                "deal": p["game"],
                "seed": p["seed"],
                "seating": k,
                "seat": p["seat"].astype(np.int64),
                "strategy": p["strategy"].astype(str),
                "won": p["won"],
                "vp": p["vp"],
                **{name: np.repeat(v, n_players) for name, v in per_game.items()},
                "trades_player": p["trades_player"],
                "offers": p["offers"],
            }))
            if progress is not None:
                progress.update(seeds.size)
    out = pd.concat(frames, ignore_index=True)
    out["strategy"] = out["strategy"].astype("category")
    return out


@dataclass
class TournamentResult:
    """The games of a tournament (one row per game and seat) and its tables."""

    games: pd.DataFrame
    n_players: int

    def summary(self) -> pd.DataFrame:
        """Per strategy: games, wins, win rate with its 95% Wilson interval, average
        final VP, average game length (all its games, and the games it won), and the
        win rate in each seat."""
        g = self.games
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
        return self.games.pivot_table(
            index="strategy", columns="seat", values="won", aggfunc="mean", observed=True
        )

    def game_stats(self) -> pd.Series:
        """Per game: mean turns, share reaching the turn cap, player trades and offers."""
        per_game = self.games.groupby(["group", "seating", "deal"], observed=True).agg(
            turns=("turns", "first"),
            turn_limit=("turn_limit", "first"),
            trades=("trades_player", "sum"),
            offers=("offers", "sum"),
        )
        per_game["trades"] /= 2  # each trade counts for both sides
        return pd.Series(
            {
                "games": len(per_game),
                "mean_turns": per_game["turns"].mean(),
                "turn_limit_share": per_game["turn_limit"].mean(),
                "trades_per_game": per_game["trades"].mean(),
                "offers_per_game": per_game["offers"].mean(),
            }
        )


def _check(names, n_players, games):
    if n_players not in (3, 4):
        raise CatansimError(f"players: {n_players!r} is not allowed; allowed: 3, 4")
    if games < 1:
        raise CatansimError(f"games: {games!r} is not allowed; allowed: an integer >= 1")
    for name in names:
        resolve(name)


def tournament(
    strategies,
    games: int,
    n_players: int = 4,
    seed: int = 0,
    rules: Rules | None = None,
    layout: str = "variable",
    n_threads: int | None = None,
    progress: bool = False,
) -> TournamentResult:
    """Play ``n_players`` strategies against each other with rotated seats.

    ``games`` is rounded up to a multiple of ``n_players``: each deal is played in all
    ``n_players`` seat rotations with the same seed (same board, dice and deck).
    """
    names = tuple(strategies)
    _check(names, n_players, games)
    seatings = seat_rotations(names, n_players)
    n_deals = -(-games // n_players)
    bar = _bar(progress, n_deals * len(seatings))
    try:
        frame = play_seatings(
            seatings, n_deals, n_players, seed, rules, layout, n_threads, bar, "tournament"
        )
    finally:
        if bar is not None:
            bar.close()
    return TournamentResult(frame, n_players)


@dataclass
class CrossPlayResult:
    """Every strategy against ``n_players - 1`` copies of every other one."""

    games: pd.DataFrame
    n_players: int

    def table(self) -> pd.DataFrame:
        """Per (strategy, opponent, seat): games, wins, win rate and its Wilson interval.

        Seat ``all`` pools the seats. A win rate above ``1 / n_players`` beats the
        average copy of the opponent.
        """
        single = self.games[self.games["strategy"].astype(str) == self.games["group"].str.split(
            " vs ").str[0]]
        single = single.assign(
            opponent=single["group"].str.split(" vs ").str[1],
            strategy=single["strategy"].astype(str),
        )
        rows = []
        for keys, part in single.groupby(["strategy", "opponent", "seat"]):
            rows.append((*keys, len(part), int(part["won"].sum())))
        for keys, part in single.groupby(["strategy", "opponent"]):
            rows.append((*keys, "all", len(part), int(part["won"].sum())))
        out = pd.DataFrame(rows, columns=["strategy", "opponent", "seat", "games", "wins"])
        out["seat"] = out["seat"].astype(str)
        out["win_rate"] = out["wins"] / out["games"]
        out["ci_low"], out["ci_high"] = wilson_ci(out["wins"], out["games"])
        return out.sort_values(["strategy", "opponent", "seat"]).reset_index(drop=True)

    def matrix(self, seat: str = "all") -> pd.DataFrame:
        """Win rate of the row strategy against ``n_players - 1`` copies of the column."""
        t = self.table()
        t = t[t["seat"] == str(seat)]
        return t.pivot(index="strategy", columns="opponent", values="win_rate")

    def dominant(self) -> list[str]:
        """Strategies that beat every other one (win rate > 1/n) from every seat."""
        t = self.table()
        t = t[t["seat"] != "all"]
        fair = 1.0 / self.n_players
        names = sorted(set(t["strategy"]))
        return [
            a for a in names
            if (t[t["strategy"] == a]["win_rate"] > fair).all()
            and set(t[t["strategy"] == a]["opponent"]) == set(names) - {a}
        ]

    def counters(self) -> pd.DataFrame:
        """For each strategy, the opponents it beats and those that beat it (pooled seats)."""
        m = self.matrix()
        fair = 1.0 / self.n_players
        rows = []
        for a in m.index:
            beats = [b for b in m.columns if b != a and m.loc[a, b] > fair]
            loses = [b for b in m.columns if b != a and m.loc[a, b] < fair]
            rows.append((a, ", ".join(beats), ", ".join(loses)))
        return pd.DataFrame(rows, columns=["strategy", "beats", "loses_to"]).set_index(
            "strategy")


def cross_play(
    strategies,
    games: int,
    n_players: int = 4,
    seed: int = 0,
    rules: Rules | None = None,
    layout: str = "variable",
    n_threads: int | None = None,
    progress: bool = False,
) -> CrossPlayResult:
    """Play every strategy A against ``n_players - 1`` copies of every other strategy B.

    For each ordered pair, ``games`` (rounded up to a multiple of ``n_players``) games:
    each deal is played with A in every seat in turn. All pairs use the same deals.
    """
    names = tuple(dict.fromkeys(strategies))
    _check(names, n_players, games)
    if len(names) < 2:
        raise CatansimError("strategies: cross-play needs at least 2 names")
    n_deals = -(-games // n_players)
    pairs = [(a, b) for a in names for b in names if a != b]
    bar = _bar(progress, n_deals * n_players * len(pairs))
    frames = []
    try:
        for a, b in pairs:
            seatings = [tuple(a if seat == r else b for seat in range(n_players))
                        for r in range(n_players)]
            frames.append(
                play_seatings(seatings, n_deals, n_players, seed, rules, layout, n_threads,
                              bar, f"{a} vs {b}")
            )
    finally:
        if bar is not None:
            bar.close()
    frame = pd.concat(frames, ignore_index=True)
    frame["strategy"] = frame["strategy"].astype("category")
    return CrossPlayResult(frame, n_players)


def _bar(progress: bool, total: int):
    if not progress:
        return None
    from tqdm import tqdm

    return tqdm(total=total, unit="game", desc="games", leave=False)
