"""Python API of the engine: validate settings, call the kernels, return results.

``play_game`` plays one game (optionally with its full event log);
``play_batch`` plays many games in parallel. Both call the same compiled
``play_batch_nb``, so a game is identical whichever way it is played. Seats played by
Python players (``catansim.game``) go through the step interface of the same engine.
"""

from __future__ import annotations

import functools
import hashlib
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numba
import numpy as np

from . import board as B
from .checks import (
    SEED_ALLOWED,
    check_bool,
    check_instance,
    check_int,
    check_seed,
)
from .core import layout as L
from .core.compiling import batch_kernel
from .core.engine_nb import game_arrays, new_scratch
from .errors import CatansimError, IllegalActionError
from .game import play_settings
from .rules import Rules
from .settings import (
    GameResult,
    GameSettings,
    settings_of,
)
from .strategies import PRESETS, StrategySet
from .tunables import DEFAULT_LOG_ROWS, THREAD_CHUNK_MAX, THREAD_CHUNK_MIN


def illegal_action_error(seed: int, strategies, s: np.ndarray) -> IllegalActionError:
    """The error for the first illegal action recorded in a final state ``s`` (the
    state fields ``illegal_*``, ``core.layout``); ``strategies`` names the seats."""
    seat = int(s[L.S_ILLEGAL_SEAT])
    decision = int(s[L.S_ILLEGAL_DECISION])
    value = s[L.S_ILLEGAL_VALUE : L.S_ILLEGAL_VALUE + L.ACT_SIZE]
    return IllegalActionError(seed, int(s[L.S_ILLEGAL_TURN]), seat, strategies[seat],
                              L.DECISION_NAMES[decision], L.describe_choice(decision, value),
                              int(s[L.C_ILLEGAL]))


def play_game(
    seed: int,
    n_players: int = 4,
    strategies=None,
    layout: str = "variable",
    board: B.Board | None = None,
    rules: Rules | None = None,
    openings=None,
    log: bool = True,
    settings: GameSettings | None = None,
    max_events: int = DEFAULT_LOG_ROWS,
    debug: bool = False,
    strategy_set: StrategySet = PRESETS,
) -> GameResult:
    """Play one game; with ``log=True`` also record its events.

    The game is a pure function of ``seed`` and the settings: the batch kernel
    plays exactly the same game for the same seed. With ``debug=True``, a game in
    which a strategy chose an illegal action raises ``IllegalActionError`` naming the
    first one (without it the engine counts them in ``c_illegal`` and plays on), and a
    Python player's exception comes through as it is (without it: a one-line
    ``catansim.game.PlayerError``).
    """
    seed = check_seed(seed)
    log, debug = check_bool(log, "log"), check_bool(debug, "debug")
    if settings is not None:
        check_instance(settings, "settings", GameSettings, "a catansim.GameSettings")
    max_events = check_int(max_events, "max_events", 1, None, "an integer >= 1 (rows of the "
                           "event log to start with; it grows if a game needs more)")
    settings = settings_of(settings, n_players, strategies, layout, board, rules, openings,
                           strategy_set)
    if settings.players:
        res = play_settings(seed, settings, log=log, debug=debug)
        if debug and res.state[L.C_ILLEGAL]:
            raise illegal_action_error(seed, settings.strategies, res.state)
        return res
    play_batch_nb = batch_kernel()
    args = settings.kernel_args()
    seeds = np.array([seed], dtype=np.int64)
    counters = np.zeros((1, L.N_COUNTERS), dtype=np.int32)
    boards = np.zeros((1, L.BOARD_SIZE), dtype=np.int32)
    while True:
        s, buf = game_arrays(max_events if log else 0)
        play_batch_nb(seeds, *args, counters, boards, s, buf, new_scratch())
        if not (log and s[L.S_LOG_OVERFLOW]):
            break
        max_events *= 4
    code = settings.layout_code
    vec = boards[0].copy()
    played_board = (
        settings.board
        if code == L.LAYOUT_GIVEN
        else B.Board.from_vector(vec, layout=settings.layout, seed=seed)
    )
    events = buf[: s[L.S_LOG_LEN]].copy() if log else None
    if debug and s[L.C_ILLEGAL]:
        raise illegal_action_error(seed, settings.strategies, s)
    return GameResult(seed=seed, settings=settings, board=played_board, state=s, events=events)


@dataclass
class BatchResult:
    """Raw output of ``play_batch``: one row per game."""

    seeds: np.ndarray  # int64[n]
    counters: np.ndarray  # int32[n, N_COUNTERS]
    boards: np.ndarray  # int32[n, BOARD_SIZE]
    settings: GameSettings


def play_batch(
    seeds, settings: GameSettings, n_threads: int | None = None, debug: bool = False
) -> BatchResult:
    """Play one game per seed in parallel on ``n_threads`` (default: all cores).

    Results do not depend on the number of threads: each game depends only on its
    seed and the settings, and writes only its own row. Games with Python players
    (``settings.players``) are played one after another in this thread. With
    ``debug=True``, the first game (in the order of ``seeds``) that counted an illegal
    action is played again with ``play_game(..., debug=True)``, which raises
    ``IllegalActionError``.
    """
    check_instance(settings, "settings", GameSettings, "a catansim.GameSettings")
    debug = check_bool(debug, "debug")
    given = np.asarray(seeds)
    if given.ndim != 1 or (given.size and given.dtype.kind not in "iu"):
        raise CatansimError(f"seeds: expected a 1-D array of integers, got {given.ndim}-D "
                            f"{given.dtype}; allowed: {SEED_ALLOWED} each")
    if given.dtype.kind == "u" and given.size and given.max() > np.iinfo(np.int64).max:
        raise CatansimError(f"seeds: {given.max()} is too large; allowed: {SEED_ALLOWED} each")
    seeds = np.ascontiguousarray(given, dtype=np.int64)
    if seeds.size and (seeds.min() < 0):
        raise CatansimError(f"seeds: negative seeds are not allowed; allowed: {SEED_ALLOWED}")
    if not seeds.flags.writeable:  # one compiled signature: writable arrays only
        seeds = seeds.copy()
    counters = np.zeros((seeds.size, L.N_COUNTERS), dtype=np.int32)
    boards = np.zeros((seeds.size, L.BOARD_SIZE), dtype=np.int32)
    if settings.players:  # Python seats: one game after another, through the step interface
        for i, seed in enumerate(seeds.tolist()):
            res = play_settings(seed, settings, log=False, debug=debug)
            counters[i] = res.counters
            boards[i] = res.board.vector if res.board is not None else 0
    else:
        _play_parallel(seeds, settings.kernel_args(), counters, boards,
                       batch_threads(n_threads))
    if debug:
        bad = np.flatnonzero(L.counter(counters, "c_illegal"))
        if bad.size:
            play_game(int(seeds[bad[0]]), settings=settings, log=False, debug=True)
            raise RuntimeError(f"seed {seeds[bad[0]]}: illegal in the batch, legal alone")
    return BatchResult(seeds=seeds, counters=counters, boards=boards, settings=settings)


def batch_threads(n_threads: int | None = None) -> int:
    """Threads a batch plays on: ``n_threads`` capped at ``NUMBA_NUM_THREADS`` (all cores
    unless that environment variable says fewer), all of them by default."""
    cap = numba.config.NUMBA_NUM_THREADS
    if n_threads is None:
        return cap
    return min(check_int(n_threads, "n_threads", 1, None, "an integer >= 1 (more than the "
                         f"cores, {cap}, plays on {cap}), or None for all"), cap)


def _play_parallel(seeds, args, counters, boards, threads: int) -> None:
    """Play ``seeds`` into the rows of ``counters`` and ``boards`` on ``threads`` threads.

    Each thread takes the next chunk of consecutive games and plays it with
    ``play_batch_nb`` (which releases the GIL); small chunks balance the threads when
    games differ in length. A game depends only on its seed, so the rows are the same
    for any number of threads.
    """
    play_batch_nb = batch_kernel()
    n = seeds.size
    chunk = min(THREAD_CHUNK_MAX, max(THREAD_CHUNK_MIN, n // (16 * threads)))
    starts = iter(range(0, n, chunk))
    lock = threading.Lock()
    failed = []

    def worker():
        s, log = game_arrays()
        scratch = new_scratch()
        while not failed:
            with lock:
                lo = next(starts, None)
            if lo is None:
                return
            hi = min(n, lo + chunk)
            try:
                play_batch_nb(seeds[lo:hi], *args, counters[lo:hi], boards[lo:hi], s, log,
                              scratch)
            except BaseException:
                failed.append(True)
                raise

    threads = min(threads, -(-n // chunk)) if n else 1
    if threads <= 1:
        worker()
        return
    with ThreadPoolExecutor(max_workers=threads, thread_name_prefix="catansim") as pool:
        futures = [pool.submit(worker) for _ in range(threads)]
        for f in futures:
            f.result()


SEED_BLOCK = 1 << 16
_SEED_CACHE_MIN = 1024  # requests of at least this many seeds of a block use the cache


def _block_seeds(base_seed: int, block: int, stop: int) -> np.ndarray:
    """Seeds ``0 .. stop-1`` of a block (int64; a read-only view when cached)."""
    if stop < _SEED_CACHE_MIN:
        words = np.random.SeedSequence(base_seed, spawn_key=(block,)).generate_state(
            stop, dtype=np.uint64)
        return (words >> np.uint64(1)).astype(np.int64)
    return _full_block_seeds(base_seed, block)[:stop]


@functools.lru_cache(maxsize=8)
def _full_block_seeds(base_seed: int, block: int) -> np.ndarray:
    # a whole block costs ~10 ms; a run's parts (and its variants, which play the same
    # seeds) reuse it instead of regenerating the block's prefix for every part
    words = np.random.SeedSequence(base_seed, spawn_key=(block,)).generate_state(
        SEED_BLOCK, dtype=np.uint64)
    out = (words >> np.uint64(1)).astype(np.int64)
    out.flags.writeable = False
    return out


def batch_seeds(base_seed: int, n_games: int, start: int = 0) -> np.ndarray:
    """Game seeds of games ``start .. start+n_games-1`` of a run with base seed ``base_seed``.

    Game ``i`` takes word ``i % 65536`` of ``SeedSequence(base_seed, spawn_key=(i // 65536,))``
    cut to 63 bits: any game can be found without generating the seeds before it, the
    seeds do not depend on how games are split into batches, and any game of a run can
    be replayed alone with ``catansim play --seed``.
    """
    base_seed = check_seed(base_seed, "base seed")
    n_games = check_int(n_games, "n_games", 0)
    start = check_int(start, "start", 0, None, "an integer >= 0 (the index of the first game)")
    out = np.empty(n_games, dtype=np.int64)
    i = start
    while i < start + n_games:
        block, offset = divmod(i, SEED_BLOCK)
        take = min(SEED_BLOCK - offset, start + n_games - i)
        out[i - start : i - start + take] = _block_seeds(base_seed, block, offset + take)[offset:]
        i += take
    return out


# The games behind ``games_digest``: (players, strategies, layout, rules, games), each
# set on its own seeds. They touch every preset, 3 and 4 players, the fixed and the
# variable map, the robber and shortage rules and a rule switch.
DIGEST_GAMES = (
    (4, ("default",), "variable", Rules(), 120),
    (4, ("builder", "expander", "city", "army"), "variable", Rules(), 60),
    (4, ("trader", "random", "default", "city"), "random_numbers",
     Rules(robber="friendly", shortage="strict", bank_per_resource=9), 60),
    (3, ("default", "army", "trader"), "beginner", Rules(discard_limit=9), 40),
    (4, ("default",), "variable", Rules().switched(30, robber="off", vp_to_win=9), 40),
)
GAMES_DIGEST_FILE = "games-digest"


def games_digest_file() -> Path:
    """Where ``games_digest`` is kept: the kernel cache's folder (one per engine
    fingerprint), under a name that also holds the rows of the strategies the digest's
    games play. Those rows live outside the engine's code (``catansim.strategies``), so a
    preset given a new row plays other games under the same fingerprint, and finds no
    kept digest of the old ones."""
    h = hashlib.sha256()
    for n, strategies, _, _, _ in DIGEST_GAMES:
        names = GameSettings(n_players=n, strategies=strategies).strategies
        for arr in PRESETS.seat_arrays(names):
            h.update(arr.tobytes())
    return Path(numba.config.CACHE_DIR) / f"{GAMES_DIGEST_FILE}-{h.hexdigest()[:12]}"


def digest_of_games(sets) -> str:
    """12 hex digits of a SHA-256 of the counters and boards of the games ``sets``
    (rows as ``DIGEST_GAMES``; set ``i`` plays the seeds ``batch_seeds(7100 + i, games)``)."""
    h = hashlib.sha256()
    for i, (n, strategies, layout, rules, games) in enumerate(sets):
        settings = GameSettings(n_players=n, strategies=strategies, layout=layout,
                                rules=rules)
        res = play_batch(batch_seeds(7100 + i, games), settings)
        h.update(res.counters.tobytes())
        h.update(res.boards.tobytes())
    return h.hexdigest()[:12]


@functools.cache
def games_digest() -> str:
    """What this installation's games are: 12 hex digits of a SHA-256 of the results
    (every counter and the board) of the fixed games ``DIGEST_GAMES``.

    The engine fingerprint names the code; this names its behaviour. Two installations
    with the same games digest play those games identically, so a dataset, README or
    report that records both tells "the same games, newer code" (equal digests,
    different fingerprints) from "other games". Played once per engine and kept beside
    its kernel cache (about a second of play after the compile).
    """
    path = games_digest_file()
    try:
        kept = path.read_text(encoding="ascii").strip()
        if len(kept) == 12 and all(c in "0123456789abcdef" for c in kept):
            return kept
    except OSError:
        pass
    digest = digest_of_games(DIGEST_GAMES)
    try:
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        tmp.write_text(digest + "\n", encoding="ascii")
        os.replace(tmp, path)
    except OSError:
        pass  # an unwritable cache: computed again in the next process
    return digest
