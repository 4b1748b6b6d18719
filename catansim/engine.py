"""Python API of the engine: validate settings, call the kernels, return results.

``play_game`` plays one game (optionally with its full event log);
``play_batch`` plays many games in parallel. Both call the same compiled
``play_batch_nb``, so a game is identical whichever way it is played.
"""

from __future__ import annotations

import functools
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from . import board as B
from .checks import (
    SEED_ALLOWED,
    check_bool,
    check_choice,
    check_instance,
    check_int,
    check_players,
    check_seed,
    checked_fields,
    is_int,
)
from .constants import MAX_PLAYERS, N_EDGES, N_NODES
from .core import layout as L
from .errors import CatansimError, IllegalActionError
from .kernels import OPENINGS_SIZE, free_openings, game_arrays, opening_slot
from .rules import Rules
from .strategies import PRESETS, StrategySet
from .topology import EDGE_NODES, NODE_EDGES, NODE_NEIGHBOURS, TOPO
from .tunables import DEFAULT_LOG_ROWS, THREAD_CHUNK_MAX, THREAD_CHUNK_MIN

# Every layout a game can be played on: the layouts of ``board.LAYOUTS``, or
# ``given`` (one fixed board for every game).
GAME_LAYOUTS = (*B.LAYOUTS, "given")
@checked_fields
@dataclass(frozen=True)
class GameSettings:
    """Everything except the seed that determines a game.

    Attributes
    ----------
    n_players : int
        3 or 4.
    strategies : tuple of str
        Strategy name of each seat, resolved in ``strategy_set``.
    layout : str
        ``variable`` or ``random_numbers`` (a new board from each game's seed),
        ``beginner`` (the fixed map with its fixed starting pieces) or ``given``
        (the same ``board`` for every game).
    board : Board or None
        The board for ``given`` (and ``beginner``, filled in automatically).
    rules : Rules
    openings : int32[16] or None
        Forced openings (node1, edge1, node2, edge2) per seat, -1 = free choice.
    strategy_set : StrategySet
        Where the names are resolved (default: the built-in ``PRESETS``).
    """

    n_players: int = 4
    strategies: tuple[str, ...] = ("random",)
    layout: str = "variable"
    board: B.Board | None = None
    rules: Rules = field(default_factory=Rules)
    openings: np.ndarray | None = field(default=None, repr=False, compare=False)
    strategy_set: StrategySet = field(default=PRESETS, repr=False)

    def __post_init__(self):
        check_players(self.n_players)
        check_instance(self.rules, "rules", Rules, "a catansim.Rules")
        check_instance(self.strategy_set, "strategy_set", StrategySet,
                       "a catansim.strategies.StrategySet")
        if self.board is not None:
            check_instance(self.board, "board", B.Board,
                           "a catansim.board.Board (catansim.board.parse_board reads a file)")
        for name in ("first_pick", "first_turn"):
            seat = getattr(self.rules, name)
            if seat is not None and seat >= self.n_players:
                raise CatansimError(f"rule {name}: seat {seat} does not play with "
                                    f"{self.n_players} players; allowed: "
                                    f"0..{self.n_players - 1}")
        object.__setattr__(self, "strategies",
                           self.strategy_set.seat_names(self.strategies, self.n_players))
        if self.layout == "given":
            if self.board is None:
                raise CatansimError("board: layout 'given' needs a board")
        elif self.layout == "beginner":
            object.__setattr__(self, "board", B.beginner_board())
            if self.openings is None:
                object.__setattr__(self, "openings", B.beginner_openings(self.n_players))
        else:
            check_choice(self.layout, "layout", GAME_LAYOUTS)
        openings = free_openings() if self.openings is None else self.openings
        openings = np.array(openings, dtype=np.int32).reshape(-1)
        if openings.shape != (OPENINGS_SIZE,):
            raise CatansimError(f"openings: expected {OPENINGS_SIZE} values (node1, edge1, "
                                "node2, edge2 per seat)")
        validate_openings(openings, self.n_players)
        object.__setattr__(self, "openings", openings)

    @property
    def layout_code(self) -> int:
        return B.LAYOUTS.get(self.layout, L.LAYOUT_GIVEN)

    @functools.cached_property
    def _kernel_args(self):
        strat, params = self.strategy_set.seat_arrays(self.strategies)
        board = (self.board.vector.astype(np.int32) if self.board is not None
                 else np.zeros(L.BOARD_SIZE, dtype=np.int32))
        return (self.n_players, self.layout_code, board, self.openings, TOPO,
                self.rules.to_array(), strat, params)

    def kernel_args(self):
        """(n_players, layout code, board vector, openings, topo, rules, strat, params)."""
        return self._kernel_args


def validate_openings(openings: np.ndarray, n_players: int) -> None:
    """Check forced openings: int32[16], (node1, edge1, node2, edge2) per seat, -1 free.

    Each forced settlement is on a node 0..53, forced settlements obey the Distance
    Rule among themselves, each forced road is an edge 0..71 touching its own forced
    settlement, and no edge is forced twice. Raises CatansimError naming the seat.
    """
    nodes: dict[int, str] = {}
    edges: dict[int, str] = {}
    for p in range(MAX_PLAYERS):
        for k in range(2):
            i = opening_slot(p, k)
            node, edge = int(openings[i]), int(openings[i + 1])
            where = f"openings seat {p} settlement {k + 1}"
            if node < 0 and edge < 0:
                continue
            if p >= n_players:
                raise CatansimError(f"{where}: seat {p} does not play with {n_players} players")
            if not 0 <= node < N_NODES:
                raise CatansimError(f"{where}: node {node} is not a node; allowed: "
                                    f"0..{N_NODES - 1}")
            if edge != -1 and not 0 <= edge < N_EDGES:
                raise CatansimError(f"{where}: edge {edge} is not an edge; allowed: "
                                    f"0..{N_EDGES - 1}, or -1")
            if edge >= 0 and node not in EDGE_NODES[edge]:
                raise CatansimError(
                    f"{where}: road {edge} does not touch node {node}; allowed: "
                    f"{', '.join(str(e) for e in _edges_at(node))}"
                )
            for other, label in nodes.items():
                if other == node or other in NODE_NEIGHBOURS[node]:
                    raise CatansimError(
                        f"{where}: node {node} breaks the Distance Rule with {label} (node "
                        f"{other}); allowed: settlements at least two roads apart")
            if edge >= 0 and edge in edges:
                raise CatansimError(f"{where}: road {edge} is already forced for {edges[edge]}")
            nodes[node] = where
            if edge >= 0:
                edges[edge] = where


def openings_from_seats(seats: dict, n_players: int, where: str = "openings") -> np.ndarray:
    """Forced openings from ``{seat: [(node, edge), (node, edge)]}``: the one parser.

    One pair forces the first settlement only; ``-1`` (or None) leaves a node or an
    edge to the strategy. Experiment files (``[openings]``) and ``--opening`` both
    come here. Returns the validated int32[16] openings array.
    """
    out = free_openings()
    shape = "expected [[node, edge]] or [[node, edge], [node, edge]] (-1: free)"
    for seat, pairs in seats.items():
        if not is_int(seat) or not 0 <= seat < n_players:
            raise CatansimError(f"{where}: seat {seat!r} is not allowed; allowed: "
                                f"0..{n_players - 1}")
        if not isinstance(pairs, list | tuple) or not 1 <= len(pairs) <= 2:
            raise CatansimError(f"{where} seat {seat}: {shape}")
        for k, pair in enumerate(pairs):
            if not isinstance(pair, list | tuple) or len(pair) != 2:
                raise CatansimError(f"{where} seat {seat} settlement {k + 1}: {shape}")
            for j, v in enumerate(pair):
                v = -1 if v is None else v
                if not is_int(v) or v < -1:
                    raise CatansimError(
                        f"{where} seat {seat} settlement {k + 1}: {v!r} is not allowed; "
                        f"allowed: a {('node', 'edge')[j]} number or -1 (free)")
                out[opening_slot(seat, k) + j] = v
            if out[opening_slot(seat, k)] < 0 and out[opening_slot(seat, k) + 1] >= 0:
                raise CatansimError(f"{where} seat {seat} settlement {k + 1}: a forced road "
                                    "needs its forced settlement; allowed: [node, edge] or "
                                    "[node, -1]")
    validate_openings(out, n_players)
    return out


def openings_from_strings(items, n_players: int) -> np.ndarray:
    """Forced openings from ``SEAT=NODE,EDGE[,NODE,EDGE]`` strings (``--opening``).

    ``-`` leaves a value free. Returns the validated int32[16] openings array.
    """
    seats: dict[int, list] = {}
    for item in items:
        seat_raw, sep, values_raw = item.partition("=")
        values = [v.strip() for v in values_raw.split(",")]
        try:
            seat = int(seat_raw)
            numbers = [-1 if v == "-" else int(v) for v in values]
        except ValueError:
            numbers = []
            seat = -1
        if not sep or seat not in range(n_players) or len(numbers) not in (2, 4) \
                or seat in seats:
            raise CatansimError(
                f"--opening {item!r}: expected SEAT=NODE,EDGE[,NODE,EDGE]; allowed: once per "
                f"seat, SEAT in 0..{n_players - 1}, '-' for a free choice, e.g. 0=12,17,40,55"
            )
        seats[seat] = [numbers[i:i + 2] for i in range(0, len(numbers), 2)]
    return openings_from_seats(seats, n_players, "--opening")


def _edges_at(node: int) -> list[int]:
    return [int(e) for e in NODE_EDGES[node] if e >= 0]


@dataclass
class GameResult:
    """One played game: its settings, final state, counters and (optionally) events."""

    seed: int
    settings: GameSettings
    board: B.Board
    state: np.ndarray = field(repr=False)
    events: np.ndarray | None = field(default=None, repr=False)

    @property
    def n_players(self) -> int:
        return self.settings.n_players

    @property
    def strategies(self) -> tuple[str, ...]:
        return self.settings.strategies

    @property
    def rules(self) -> Rules:
        return self.settings.rules

    @property
    def counters(self) -> np.ndarray:
        """The per-game result record (int32[N_COUNTERS]); see ``core.layout``."""
        return self.state[L.S_COUNTERS :]

    @property
    def winner(self) -> int | None:
        w = int(self.state[L.S_WINNER])
        return None if w < 0 else w

    @property
    def turns(self) -> int:
        return int(self.state[L.S_TURN])

    @property
    def vp(self) -> list[int]:
        return [int(v) for v in self.state[L.C_VP : L.C_VP + self.n_players]]

    def field(self, name: str) -> np.ndarray:
        """A named state field (``core.layout.STATE_FIELDS``)."""
        off = L.STATE_OFFSETS[name]
        return self.state[off : off + L.STATE_LENGTHS[name]]

    def header(self) -> dict:
        """The game-log header of this game."""
        from .logs import make_header

        return make_header(self.seed, self.n_players, list(self.strategies), self.rules, self.board)

    def _repr_html_(self) -> str | None:
        """The game viewer in a notebook (``catansim.viewer``); None without events."""
        from .viewer import game_log, inline_html

        return None if self.events is None else inline_html(*game_log(self))


def _compiled():
    from .kernels import batch_kernel

    return batch_kernel()


def _scratch():
    from .core.engine_nb import new_scratch

    return new_scratch()


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
    first one (without it the engine counts them in ``c_illegal`` and plays on).
    """
    seed = check_seed(seed)
    log, debug = check_bool(log, "log"), check_bool(debug, "debug")
    if settings is not None:
        check_instance(settings, "settings", GameSettings, "a catansim.GameSettings")
    max_events = check_int(max_events, "max_events", 1, None, "an integer >= 1 (rows of the "
                           "event log to start with; it grows if a game needs more)")
    if settings is None:
        if board is not None and layout == "variable":
            layout = "given"
        settings = GameSettings(
            n_players=n_players,
            strategies=tuple(strategies or ("random",)),
            layout=layout,
            board=board,
            rules=rules or Rules(),
            openings=openings,
            strategy_set=strategy_set,
        )
    play_batch_nb = _compiled()
    args = settings.kernel_args()
    seeds = np.array([seed], dtype=np.int64)
    counters = np.zeros((1, L.N_COUNTERS), dtype=np.int32)
    boards = np.zeros((1, L.BOARD_SIZE), dtype=np.int32)
    while True:
        s, buf = game_arrays(max_events if log else 0)
        play_batch_nb(seeds, *args, counters, boards, s, buf, _scratch())
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
    seed and the settings, and writes only its own row. With ``debug=True``, the first
    game (in the order of ``seeds``) that counted an illegal action is played again with
    ``play_game(..., debug=True)``, which raises ``IllegalActionError``.
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
    _play_parallel(seeds, settings.kernel_args(), counters, boards, batch_threads(n_threads))
    if debug:
        bad = np.flatnonzero(counters[:, L.C_ILLEGAL - L.S_COUNTERS])
        if bad.size:
            play_game(int(seeds[bad[0]]), settings=settings, log=False, debug=True)
            raise RuntimeError(f"seed {seeds[bad[0]]}: illegal in the batch, legal alone")
    return BatchResult(seeds=seeds, counters=counters, boards=boards, settings=settings)


def batch_threads(n_threads: int | None = None) -> int:
    """Threads a batch plays on: ``n_threads`` capped at ``NUMBA_NUM_THREADS`` (all cores
    unless that environment variable says fewer), all of them by default."""
    import numba

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
    play_batch_nb = _compiled()
    n = seeds.size
    chunk = min(THREAD_CHUNK_MAX, max(THREAD_CHUNK_MIN, n // (16 * threads)))
    starts = iter(range(0, n, chunk))
    lock = threading.Lock()
    failed = []

    def worker():
        s, log = game_arrays()
        scratch = _scratch()
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
