"""A ladder's games: one seating played to the end, the parts, and the output folder.

Every ordered pair of players (A, B) plays every deal once with A in each seat and
copies of B in the others: a deal is a game seed (board, dice, deck), the same for
every pair (``engine.batch_seeds(seed, 1, deal)``). A part is one pair and a block of
deals; its games are one CSV file, ``games/<stem>.csv``, written atomically, so a
file that exists is complete. ``ladder.json`` holds what the games depend on (the
field, the seed, the block, the rules); a resume with other values is refused, naming
the key. More deals than before add parts; a rerun plays only the missing ones.

Parts are played in this process, in local worker processes (``workers``), or on a
Dask cluster (``scheduler``), each making its players from their names.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import json
import time
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from .. import __version__
from ..checks import check_resume
from ..engine import batch_seeds
from ..errors import CatansimError
from ..files import atomic_write_text
from ..game import Game
from ..players.outside import catanatron as CB
from ..rules import Rules
from ..runs.pool import completed
from ..settings import GameSettings
from ..strategies import PRESETS, StrategySet
from .field import is_catanatron, seat_player

MANIFEST = "ladder.json"
GAMES = "games"
FORMAT = "catansim-ladder"
# What a resume must match (the number of deals may grow).
KEYS = ("field", "seed", "block", "n_players", "rules", "strategies", "alone",
        "search_cut")


@dataclass(frozen=True)
class Spec:
    """What a ladder's games depend on."""

    field: tuple[str, ...]
    seed: int = 0
    n_players: int = 4
    block: int = 5
    rules: Rules = dataclasses.field(default_factory=Rules)
    strategy_set: StrategySet = dataclasses.field(default=PRESETS, repr=False)
    alone: tuple[str, ...] | None = None  # the single players played (None: every one)

    def manifest(self, deals: int) -> dict:
        defined = sorted(set(self.field) & set(self.strategy_set) - set(PRESETS))
        return {"format": FORMAT, "version": 1, "field": list(self.field), "seed": self.seed,
                "block": self.block, "n_players": self.n_players,
                "rules": self.rules.to_header(),
                "strategies": {n: self.strategy_set.resolve(n).params.tolist()
                               for n in defined},
                "alone": None if self.alone is None else list(self.alone),
                "deals": deals, "catansim": __version__, "catanatron": _catanatron(self),
                "search_cut": _search_cut(self)}


def _catanatron(spec: Spec) -> str | None:
    return CB.modules().version if any(is_catanatron(n) for n in spec.field) else None


def _search_cut(spec: Spec) -> str | None:
    """``lifted`` when a catanatron bot of the field would cut its search by wall-clock
    time (``CB.lift_search_cut``), else None: games played with the cut and without it
    never share a folder."""
    bots = [CB.parse(n)[0] for n in spec.field if is_catanatron(n)]
    return "lifted" if any(CB.cuts_search(b) for b in bots) else None


@dataclass(frozen=True)
class Part:
    """One ordered pair (``strategy`` alone, ``opponent`` in the other seats) and the
    deals ``start .. stop - 1``."""

    pair: int
    strategy: str
    opponent: str
    start: int
    stop: int

    @property
    def stem(self) -> str:
        return f"p{self.pair:03d}-d{self.start:07d}-{self.stop:07d}"

    def games(self, n_players: int) -> int:
        return (self.stop - self.start) * n_players


def plan(spec: Spec, deals: int) -> list[Part]:
    """Every part of a ladder of ``deals`` deals: pair by pair, block by block (with
    ``spec.alone``, only the pairs whose single player is one of those; a pair keeps its
    number in the list of every ordered pair)."""
    pairs = [(a, b) for a in spec.field for b in spec.field if a != b]
    return [Part(i, a, b, s, min(s + spec.block, deals))
            for s in range(0, deals, spec.block) for i, (a, b) in enumerate(pairs)
            if spec.alone is None or a in spec.alone]


def play_seating(seed: int, seats: tuple[str, ...], spec: Spec) -> dict:
    """Play the game of ``seed`` with the players ``seats`` (names, one per seat):
    winner (-1 for none), final points, turns, seconds (wall-clock), cpu_seconds (this
    thread's CPU time: what the game cost, whatever else the machine ran) and
    longest_ask_cpu_seconds (the CPU seconds of the longest decision of a catanatron bot,
    0 without one: catanatron's alpha-beta would cut a search at 20 s, a cut the bridge
    lifts)."""
    players, strategies = {}, []
    for q, name in enumerate(seats):
        p = seat_player(name, q)
        strategies.append(name if p is None else p)
        if p is not None:
            players[q] = p
    settings = GameSettings(n_players=spec.n_players, strategies=tuple(strategies),
                            rules=spec.rules, strategy_set=spec.strategy_set)
    for q, p in players.items():
        start = getattr(p, "new_game", None)
        if callable(start):
            start(seed, q)
    t, cpu = time.perf_counter(), time.thread_time()
    game = Game(seed, settings=settings, log=any(map(is_catanatron, seats)))
    for p in players.values():
        watch = getattr(p, "watch", None)
        if callable(watch):
            watch(game)
    while not game.over:
        q = game.to_move
        choice = players[q].decide(game.observation(q), game.legal_options())
        if choice is None and getattr(players[q], "base_strategy", None) is not None:
            choice = game.suggest(q)
        try:
            game.step(choice)
        except CatansimError as e:
            raise CatansimError(f"game {seed}, seat {q} ({seats[q]}): {e}") from None
    winner = game.winner
    return {"winner": -1 if winner is None else winner, "turns": game.turns,
            "seconds": round(time.perf_counter() - t, 4),
            "cpu_seconds": round(time.thread_time() - cpu, 4),
            "longest_ask_cpu_seconds": round(max((getattr(p, "longest_ask", 0.0)
                                              for p in players.values()), default=0.0), 4),
            **{f"vp_{q}": v for q, v in enumerate(game.vp)}}


def play_part(spec: Spec, part: Part) -> pd.DataFrame:
    """The games of one part, one row each (deal by deal, the single player in seat 0,
    1, ...)."""
    n = spec.n_players
    seeds = batch_seeds(spec.seed, part.stop - part.start, part.start)
    rows = []
    for deal, seed in zip(range(part.start, part.stop), seeds.tolist(), strict=True):
        for r in range(n):
            seats = tuple(part.strategy if q == r else part.opponent for q in range(n))
            try:
                out = play_seating(seed, seats, spec)
            except CatansimError as e:
                raise CatansimError(f"part {part.stem} ({part.strategy} alone against "
                                    f"{part.opponent}), deal {deal}: {e}") from None
            rows.append({"pair": part.pair, "deal": deal, "seed": seed,
                         "strategy": part.strategy, "opponent": part.opponent,
                         "single_seat": r, **{f"seat_{q}": s for q, s in enumerate(seats)},
                         **out})
    return pd.DataFrame(rows)


# --- the output folder ---------------------------------------------------------------------


def open_folder(out: Path, spec: Spec, deals: int) -> None:
    """Create ``out`` with its manifest, or check that the one there is this ladder's
    (every key of ``KEYS``); the manifest is rewritten with the number of deals."""
    out.mkdir(parents=True, exist_ok=True)
    (out / GAMES).mkdir(exist_ok=True)
    path = out / MANIFEST
    new = spec.manifest(deals)
    check_resume(out, MANIFEST, new, KEYS, "ladder")
    atomic_write_text(path, json.dumps(new, indent=1) + "\n")


def read_manifest(out: Path) -> dict:
    path = Path(out) / MANIFEST
    if not path.exists():
        raise CatansimError(f"{out}: no {MANIFEST}; allowed: the folder of a ladder")
    return json.loads(path.read_text())


def part_path(out: Path, part: Part) -> Path:
    return out / GAMES / f"{part.stem}.csv"


def write_part(out: Path, part: Part, games: pd.DataFrame) -> None:
    buf = io.StringIO()
    games.to_csv(buf, index=False)
    atomic_write_text(part_path(out, part), buf.getvalue())


def done(out: Path, parts: list[Part], n_players: int) -> set[str]:
    """The stems of the parts whose file is there and holds all its games."""
    have = set()
    for part in parts:
        path = part_path(out, part)
        if path.exists():
            with contextlib.suppress(OSError, ValueError, pd.errors.ParserError):
                if len(pd.read_csv(path, usecols=["deal"])) == part.games(n_players):
                    have.add(part.stem)
    return have


def load_games(out: Path, parts: list[Part]) -> pd.DataFrame:
    """Every game of the parts played so far."""
    frames = [pd.read_csv(part_path(out, p)) for p in parts if part_path(out, p).exists()]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


# --- playing the missing parts -----------------------------------------------------------


@dataclass
class Progress:
    """Games played and parts written by this call."""

    parts: int = 0
    games: int = 0
    seconds: float = 0.0


def play_parts(out: Path, spec: Spec, todo: list[Part], workers: int = 1, client=None,
               bar=None) -> Progress:
    """Play ``todo`` and write each part as it comes: here (``workers`` 1), in local
    processes, or on the Dask ``client``. A part that fails stops the ladder with its
    one-line error; the parts written before it stay."""
    got = Progress()
    t = time.perf_counter()

    def landed(part: Part, games: pd.DataFrame):
        write_part(out, part, games)
        got.parts += 1
        got.games += len(games)
        if bar is not None:
            bar.update(len(games))

    if client is not None:
        from dask.distributed import as_completed  # noqa: PLC0415  (the dask extra)

        futures = {client.submit(play_part, spec, p, pure=False): p for p in todo}
        for fut in as_completed(futures):
            landed(futures[fut], fut.result())
    else:
        for p, games in completed(play_part, {p: (spec, p) for p in todo}, workers):
            landed(p, games)
    got.seconds = time.perf_counter() - t
    return got
