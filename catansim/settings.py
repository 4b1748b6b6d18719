"""A game's settings and its result: what a game is played under and what it leaves.

What lives here: ``GameSettings`` (everything but the seed that determines a game,
validated), the forced openings' parsers and checks, and ``GameResult`` (one played
game). ``catansim.engine`` plays games under these settings, with the batch kernel or
through the step interface (``catansim.game``); this module is their one home.
May import: ``board``, ``rules``, ``strategies``, ``checks``, ``core``
(layout), ``topology``, ``display`` (a result's notebook view, registered from above)
and the constants; never the logs or the viewer.
"""

from __future__ import annotations

import functools
import importlib
from dataclasses import dataclass, field

import numpy as np

from . import board as B
from . import display
from .checks import check_choice, check_instance, check_players, checked_fields, is_int
from .constants import MAX_PLAYERS, N_EDGES, N_NODES
from .core import layout as L
from .core.layout import OPENINGS_SIZE, free_openings, opening_slot
from .errors import CatansimError
from .rules import Rules
from .strategies import (
    PRESETS,
    StrategySet,
    check_python_player_name,
    is_python_player,
    python_player_arguments,
    python_player_name,
)
from .topology import EDGE_NODES, NODE_EDGES, NODE_NEIGHBOURS, TOPO

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
        Strategy name of each seat, resolved in ``strategy_set``. A Python player
        (``catansim.game.Player``) is given as the object, or by its name
        ``python:module:Class`` (``Class()`` makes it); either way its seat is named so,
        and carries the compiled row of the player's ``base_strategy`` (a strategy name,
        for the decisions the player leaves to it), or of ``random`` without one.
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
    players : tuple of (seat, player)
        Set from ``strategies``: the Python players and their seats, which the engine
        plays through the step interface.
    """

    n_players: int = 4
    strategies: tuple[str, ...] = ("random",)
    layout: str = "variable"
    board: B.Board | None = None
    rules: Rules = field(default_factory=Rules)
    openings: np.ndarray | None = field(default=None, repr=False, compare=False)
    strategy_set: StrategySet = field(default=PRESETS, repr=False)
    players: tuple = field(default=(), repr=False, compare=False, init=False)

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
        given = self.strategies
        objects = {}
        if not isinstance(given, str):
            given = list(given)
            for seat, item in enumerate(given):
                if isinstance(item, type) and callable(getattr(item, "decide", None)):
                    raise CatansimError(f"strategies[{seat}]: {item.__name__} is a class, not a "
                                        f"player; allowed: a player object, e.g. "
                                        f"{item.__name__}(), or a strategy name")
                if not isinstance(item, str) and callable(getattr(item, "decide", None)):
                    objects[seat] = item
                    given[seat] = python_player_name(item)
            if len(given) == 1 and objects:  # one player object for every seat
                objects = dict.fromkeys(range(self.n_players), objects[0])
        names = self.strategy_set.seat_names(given, self.n_players)
        object.__setattr__(self, "strategies", names)
        object.__setattr__(self, "players", tuple(
            (seat, objects[seat] if seat in objects else load_python_player(name, seat))
            for seat, name in enumerate(names) if is_python_player(name)))
        for seat, player in self.players:
            base = getattr(player, "base_strategy", None)
            if base is not None:
                self.strategy_set.compiled(base, f"strategies[{seat}].base_strategy")
        if self.layout == "given":
            if self.board is None:
                raise CatansimError("board: layout 'given' needs a board")
        elif self.layout == "beginner":
            object.__setattr__(self, "board", B.beginner_board())
            if self.openings is None:
                object.__setattr__(self, "openings", B.beginner_openings(self.n_players))
        else:
            check_choice(self.layout, "layout", GAME_LAYOUTS)
        openings = free_openings() if self.openings is None else _int_openings(self.openings)
        validate_openings(openings, self.n_players)
        object.__setattr__(self, "openings", openings.astype(np.int32))

    @property
    def python_seats(self) -> tuple[int, ...]:
        """The seats played by Python players."""
        return tuple(seat for seat, _ in self.players)

    @property
    def layout_code(self) -> int:
        return B.LAYOUTS.get(self.layout, L.LAYOUT_GIVEN)

    @functools.cached_property
    def _kernel_args(self):
        names = list(self.strategies)
        for seat, player in self.players:  # a Python seat carries its base strategy's row
            names[seat] = getattr(player, "base_strategy", None) or names[seat]
        strat, params = self.strategy_set.seat_arrays(names)
        board = (self.board.vector.astype(np.int32) if self.board is not None
                 else np.zeros(L.BOARD_SIZE, dtype=np.int32))
        return (self.n_players, self.layout_code, board, self.openings, TOPO,
                self.rules.to_array(), strat, params)

    def kernel_args(self):
        """(n_players, layout code, board vector, openings, topo, rules, strat, params)."""
        return self._kernel_args


def settings_of(settings, n_players: int = 4, strategies=None, layout: str = "variable",
                board: B.Board | None = None, rules: Rules | None = None, openings=None,
                strategy_set: StrategySet = PRESETS) -> GameSettings:
    """``settings`` (checked) if given, else the ``GameSettings`` of the keyword arguments
    ``play_game``, ``Game`` and ``GameBatch`` take (a board with the default layout plays
    on that board: layout ``given``)."""
    if settings is not None:
        check_instance(settings, "settings", GameSettings, "a catansim.GameSettings")
        return settings
    if board is not None and layout == "variable":
        layout = "given"
    return GameSettings(n_players=n_players, strategies=tuple(strategies or ("random",)),
                        layout=layout, board=board, rules=rules or Rules(),
                        openings=openings, strategy_set=strategy_set)


def load_python_player(name: str, seat: int, where: str | None = None):
    """The player ``python:module:Class`` names: ``Class()`` from importable ``module``;
    anything that fails is a one-line CatansimError naming ``where`` (the field that
    gave the name; default ``strategies[seat]``)."""
    where = where or f"strategies[{seat}]"
    module, attr = check_python_player_name(name, where)
    try:
        obj = importlib.import_module(module)
    except Exception as e:  # the user's module: any error in it is theirs to see
        raise CatansimError(f"{where}: cannot import module {module!r} for {name!r} "
                            f"({type(e).__name__}: {e}); allowed: an importable module "
                            "(on PYTHONPATH)") from None
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise CatansimError(f"{where}: module {module!r} has no {attr!r}; allowed: a "
                                "class or function in it that makes a player")
        obj = getattr(obj, part)
    args = python_player_arguments(name)
    try:
        player = obj(*args)
    except CatansimError as e:  # a checked argument (search:1): its own one line
        raise CatansimError(f"{where}: {name}: {e}") from None
    except Exception as e:
        given = f"with {args[0]}" if args else "with no arguments"
        raise CatansimError(f"{where}: {name} could not be made by calling it {given} "
                            f"({type(e).__name__}: {e})") from None
    if not callable(getattr(player, "decide", None)):
        raise CatansimError(f"{where}: {name} made {type(player).__name__}, which has no "
                            "decide(observation, options); allowed: a catansim.game.Player")
    return player


def _int_openings(given) -> np.ndarray:
    """Forced openings as OPENINGS_SIZE integers (int64), before they are checked: a
    number that is not an integer (4.7, True) or beyond int64 is refused, never rounded
    or wrapped into a node."""
    allowed = (f"{OPENINGS_SIZE} integers (node1, edge1, node2, edge2 per seat; -1 = free): "
               f"nodes 0..{N_NODES - 1}, edges 0..{N_EDGES - 1}")
    try:
        flat = np.asarray(given, dtype=object).reshape(-1)  # each value as given (no casting)
    except (ValueError, TypeError) as exc:  # ragged nesting
        raise CatansimError(f"openings: {str(exc).splitlines()[0]}; allowed: {allowed}") from None
    if flat.size != OPENINGS_SIZE:
        raise CatansimError(f"openings: {flat.size} values given; allowed: {allowed}")
    for i, v in enumerate(flat.tolist()):
        if not is_int(v) or not -2**63 <= v < 2**63:
            p, k = divmod(i, L.OPENING_WIDTH)
            what = ("node", "edge")[k % 2]
            raise CatansimError(f"openings seat {p} settlement {k // 2 + 1}: {what} {v!r} is "
                                f"not allowed; allowed: {allowed}")
    return np.array(flat.tolist(), dtype=np.int64)


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

    def _repr_html_(self) -> str | None:
        """Its view in a notebook (``display.GAME``: the game viewer, registered by the
        package ``catansim``); None without one."""
        return display.html(display.GAME, self)
