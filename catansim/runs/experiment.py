"""Experiment files: a study described once in TOML (format in ``docs/experiments.md``).

``load_experiment(path)`` reads and validates a file into an ``Experiment``.
Every mistake (unknown key, wrong type, bad value, inconsistent settings) raises
a one-line ``CatansimError`` naming the file and the key, e.g.
``experiments/x.toml: players: 5 is not allowed; allowed: 3, 4``.

The games of an experiment are a pure function of the file: game ``i`` has seed
``sim.batch_seeds(seed, 1, i)`` in every variant (common random numbers: all
variants play the same boards and dice), and with ``rotate = true`` its seats
are the strategy list shifted by ``i % players``.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import json
import re
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from .. import __version__
from .. import board as B
from ..board import LAYOUTS as BOARD_LAYOUTS
from ..board import SEEDED_LAYOUTS, generate_vectors
from ..checks import (
    SCHEDULER_ALLOWED,
    SEED_ALLOWED,
    SEED_MAX,
    check_bool,
    check_choice,
    check_int,
    check_path,
    check_players,
    check_scheduler,
    check_seed,
    check_str,
    did_you_mean,
    parse_toml,
    read_text,
    type_name,
)
from ..constants import N_NODES
from ..engine import batch_seeds
from ..errors import CatansimError
from ..kernels import free_openings, opening_slot
from ..results.arms import arm_name
from ..results.schema import DEFAULT_VARIANT as BASELINE
from ..rules import Rules
from ..settings import GameSettings, load_python_player, openings_from_seats, validate_openings
from ..strategies import PRESETS, StrategySet, is_python_player
from ..topology import NODE_EDGES, NODE_NEIGHBOURS
from ..tunables import DEFAULT_BATCH_SIZE

LAYOUTS = tuple(BOARD_LAYOUTS)
NAME_RE = re.compile(r"^[A-Za-z0-9_]+$")
DATASET_NAME_RE = re.compile(r"^[A-Za-z0-9_.-]+$")
MAX_GAMES = 10**12
# A part's memory is about 2.5 KB per game (runner.MEMORY_PER_GAME): 2.8 GB at the cap.
MAX_BATCH_SIZE = 10**6

TOP_KEYS = {
    "name": "dataset name (letters, digits, _ . -); default: the file name",
    "description": "free text",
    "games": "number of games per variant (>= 1)",
    "players": "3 or 4",
    "seed": "base seed, an integer in [0, 2**63); default 0",
    "layout": f"{', '.join(SEEDED_LAYOUTS)} (a new board per game) or beginner",
    "board": "one fixed board for all games: a seed of the layout, "
             + ", ".join(f"'{name}:SEED'" for name in SEEDED_LAYOUTS)
             + ", 'beginner' (the beginner map, openings free) or a board file "
             "(docs/boards.md)",
    "strategies": "one strategy name, or one per seat",
    "rotate": "true: game i shifts the seats by i % players (every strategy through every seat)",
    "batch_size": f"games per Parquet part, 1..{MAX_BATCH_SIZE:,} (default {DEFAULT_BATCH_SIZE})",
    "output": "dataset folder (default results/NAME)",
    "scheduler": "Dask scheduler address, e.g. tcp://10.0.0.1:8786",
    "strategy_defs": "strategies config: a TOML file or an inline table "
                     "(catansim.strategies.load_strategies)",
    "boards": "table games_per_board, seed, dice: a set of boards dealt ahead, each "
              "played games_per_board times",
    "rules": "table of rule settings (catansim.rules.Rules)",
    "openings": "table seat0..seat3 = [[node, edge], [node, edge]] of forced openings",
    "switch": "table turn = T and rule settings: the rules change to these when turn T "
              "is over (same seeds, same dice); variants inherit it",
    "variants": "tables [variants.NAME] with rules / switch / strategies / openings "
                "overrides",
    "sweep": "a table (or an array of tables) of forced-opening arms: seat, settlement, "
             "nodes, roads (docs/experiments.md)",
}
SWEEP_KEYS = {
    "seat": 'a seat, a list of seats or "all"',
    "settlement": "1 (the first), 2 (the second) or [1, 2] (both: every pair)",
    "nodes": '"all" or a list of nodes 0..53',
    "roads": '"free" (left to the strategy, the default) or "all" (every road at the node)',
}
MAX_ARMS = 20_000
VARIANT_KEYS = ("description", "rules", "switch", "strategies", "openings")
BOARD_SET_KEYS = {
    "games_per_board": "games played on each board (>= 1); games must be a multiple",
    "seed": "base seed of the boards: board k is dealt from batch_seeds(seed, 1, k)",
    "dice": "independent (every game its own seed) or shared (game j of every board "
            "has the same seed: the same dice on other boards)",
}
DICE = ("independent", "shared")


@dataclass(frozen=True)
class BoardSet:
    """Boards dealt ahead of the games, each played ``games_per_board`` times.

    Game ``i`` plays board ``k = i // games_per_board``, the board the experiment's
    layout deals from the seed ``batch_seeds(seed, 1, k)``; its own seed (dice,
    deck, decisions) is ``batch_seeds(experiment seed, 1, i)`` with ``dice =
    "independent"``, or ``batch_seeds(experiment seed, 1, i % games_per_board)``
    with ``dice = "shared"``: the j-th game of every board then rolls the same dice
    (a crossed design of boards and dice).
    """

    games_per_board: int
    seed: int = 0
    dice: str = "independent"

    def board_index(self, games: np.ndarray) -> np.ndarray:
        return np.asarray(games, dtype=np.int64) // self.games_per_board

    def seed_index(self, games: np.ndarray) -> np.ndarray:
        """The index into the experiment's seeds of each game's own seed."""
        g = np.asarray(games, dtype=np.int64)
        return g % self.games_per_board if self.dice == "shared" else g

    def to_key(self) -> dict:
        return {"games_per_board": self.games_per_board, "seed": self.seed, "dice": self.dice}


@dataclass(frozen=True)
class Variant:
    """One variant: the full settings it overrides the baseline with."""

    name: str
    rules: object  # Rules
    strategies: tuple[str, ...]
    openings: np.ndarray | None = field(default=None, compare=False, repr=False)
    description: str = ""


@dataclass(frozen=True)
class Experiment:
    """A validated experiment file.

    Attributes
    ----------
    name : str
        Dataset name.
    path : Path or None
        The file read (None for experiments built in code).
    text : str
        The file's text (recorded in the run's metadata).
    games, players, seed, batch_size : int
    layout : str
        ``variable``, ``random_numbers``, ``beginner`` or ``given`` (``board`` set).
    board : Board or None
        The fixed board of ``given``.
    board_spec : str or None
        The ``board`` value as written.
    rotate : bool
    output : Path
        Dataset folder.
    scheduler : str or None
    strategy_defs : dict or None
        The parsed strategies config, as written (recorded in the manifest).
    strategy_set : StrategySet
        The strategies the names resolve in: ``PRESETS`` plus ``strategy_defs``.
    variants : tuple of Variant
        ``baseline`` first, then the file's variants in order.
    """

    name: str
    path: Path | None
    text: str
    games: int
    players: int
    seed: int
    layout: str
    board: object
    board_spec: str | None
    rotate: bool
    batch_size: int
    output: Path
    scheduler: str | None
    strategy_defs: dict | None
    variants: tuple[Variant, ...]
    description: str = ""
    strategy_set: StrategySet = field(default=PRESETS, repr=False)
    board_set: BoardSet | None = None

    @property
    def n_boards(self) -> int | None:
        """Boards of a board set (None without one)."""
        if self.board_set is None:
            return None
        return -(-self.games // self.board_set.games_per_board)

    def board_vectors(self, start: int, stop: int) -> np.ndarray:
        """The vectors (int32[stop - start, 47]) of boards ``start .. stop-1`` of the board set."""
        return generate_vectors(self.layout, batch_seeds(self.board_set.seed, stop - start,
                                                         start))

    @property
    def variant_names(self) -> list[str]:
        return [v.name for v in self.variants]

    @property
    def strategy_names(self) -> list[str]:
        """Every strategy name used by any variant, sorted (the categories)."""
        return sorted({s for v in self.variants for s in v.strategies})

    def variant(self, name: str) -> Variant:
        for v in self.variants:
            if v.name == name:
                return v
        raise CatansimError(f"variant {name!r}: unknown; allowed: {', '.join(self.variant_names)}")

    def n_shifts(self, variant: str) -> int:
        """Distinct seat shifts the variant uses (1 without rotation or equal strategies)."""
        v = self.variant(variant)
        return self.players if self.rotate and len(set(v.strategies)) > 1 else 1

    def seat_strategies(self, variant: str, shift: int) -> tuple[str, ...]:
        """Strategies by seat for games with ``game % players == shift``."""
        s = self.variant(variant).strategies
        n = self.players
        return tuple(s[(seat - shift) % n] for seat in range(n))

    @functools.cached_property
    def _settings(self) -> dict:
        layout = "given" if self.board is not None else self.layout
        out = {}
        for v in self.variants:
            for shift in range(self.n_shifts(v.name)):
                out[v.name, shift] = GameSettings(
                    n_players=self.players, strategies=self.seat_strategies(v.name, shift),
                    layout=layout, board=self.board, rules=v.rules, openings=v.openings,
                    strategy_set=self.strategy_set)
        return out

    def settings(self, variant: str = BASELINE, shift: int = 0):
        """The ``GameSettings`` of the variant's games with seat shift ``shift`` (built once)."""
        self.variant(variant)
        return self._settings[variant, shift % self.n_shifts(variant)]

    def __getstate__(self) -> dict:
        # Sent to Dask workers without the settings built here: a worker makes its own
        # (a Python player is made there from its name, not pickled with its state).
        state = dict(self.__dict__)
        state.pop("_settings", None)
        return state

    def with_overrides(self, games: int | None = None, seed: int | None = None,
                       output: str | Path | None = None, scheduler: str | None = None,
                       batch_size: int | None = None) -> Experiment:
        """A copy with command-line overrides (``--games``, ``--seed``, ``--out``, ...)."""
        kw: dict = {}
        if games is not None:
            kw["games"] = check_int(games, "--games", 1, MAX_GAMES)
            if self.board_set is not None and kw["games"] % self.board_set.games_per_board:
                raise CatansimError(
                    f"--games: {kw['games']} is not a multiple of boards.games_per_board "
                    f"({self.board_set.games_per_board}); allowed: a multiple of it")
        if seed is not None:
            kw["seed"] = check_int(seed, "--seed", 0, SEED_MAX, SEED_ALLOWED)
        if output is not None:
            kw["output"] = Path(check_path(output, "--out"))
        if scheduler is not None:
            kw["scheduler"] = check_scheduler(scheduler, "--scheduler")
        if batch_size is not None:
            kw["batch_size"] = check_int(batch_size, "--batch-size", 1, MAX_BATCH_SIZE)
        return replace(self, **kw)

    def result_key(self) -> dict:
        """Everything that determines the games' results (not: games, output, scheduler)."""
        variants = {}
        for v in self.variants:
            strat, params = self.strategy_set.seat_arrays(v.strategies)
            variants[v.name] = {
                "rules": v.rules.to_header(),
                "strategies": list(v.strategies),
                "strategy_ids": strat[: self.players].tolist(),
                "strategy_params": params[: self.players].tolist(),
                "openings": None if v.openings is None else np.asarray(v.openings).tolist(),
            }
        key = {
            "catansim_version": __version__,
            "players": self.players,
            "seed": self.seed,
            "layout": self.layout,
            "board": None if self.board is None else self.board.vector.tolist(),
            "rotate": self.rotate,
            "batch_size": self.batch_size,
            "variants": variants,
        }
        if self.board_set is not None:  # only then: older datasets keep their hash
            key["boards"] = self.board_set.to_key()
        return key

    def result_hash(self) -> str:
        """SHA-256 of ``result_key()``: a run resumes only into a dataset with the same hash."""
        return self._result_hash

    @functools.cached_property
    def _result_hash(self) -> str:
        # once per experiment: every part's metadata carries it, and a sweep's key holds
        # hundreds of variants
        blob = json.dumps(self.result_key(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(blob.encode()).hexdigest()


# --- reading ------------------------------------------------------------------------


class _Ctx:
    """Names the file in front of every message (``catansim.checks`` wording)."""

    def __init__(self, path: Path | None):
        self.prefix = f"{path}: " if path is not None else ""

    def fail(self, key: str, msg: str):
        raise CatansimError(f"{self.prefix}{key}: {msg}")

    def reraise(self, key: str, exc: CatansimError):
        """A check's error under ``key`` (not repeated when the message names it already)."""
        msg = str(exc)
        if msg.startswith(key):
            raise CatansimError(f"{self.prefix}{msg}") from None
        self.fail(key, msg)

    def check(self, fn, *args, **kw):
        """Call a check from ``catansim.checks`` (or any validator), naming the file."""
        try:
            return fn(*args, **kw)
        except CatansimError as exc:
            raise CatansimError(f"{self.prefix}{exc}") from None


def _strategies(value, key, ctx: _Ctx, players: int, strategy_set: StrategySet
                ) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not value:
        ctx.fail(key, f"expected a strategy name or a list of names, got {type_name(value)}; "
                      f"allowed: one or one per seat of {strategy_set.allowed}")
    for i, name in enumerate(value):
        if not isinstance(name, str):
            ctx.fail(f"{key}[{i}]", f"expected a strategy name, got {type_name(name)}; "
                                    f"allowed: {strategy_set.allowed}")
    # a list always names its items by index: strategies[0]
    for i, name in enumerate(value):
        ctx.check(strategy_set.resolve, name, f"{key}[{i}]")
        if is_python_player(name):  # importable, and makes a player: said here, by key
            ctx.check(load_python_player, name, i, f"{key}[{i}]")
    return ctx.check(strategy_set.seat_names, value, players, key)


def _rules(mapping, key, ctx: _Ctx, base=None):
    if not isinstance(mapping, dict):
        ctx.fail(key, f"expected a table, got {type_name(mapping)}; allowed: a table of rule "
                      f"settings ({', '.join(Rules.names())})")
    for name in mapping:
        if name not in Rules.names():
            ctx.fail(f"{key}.{name}", f"unknown rule{did_you_mean(name, Rules.names())}; "
                                      f"allowed: {', '.join(Rules.names())}")
    try:
        return Rules.from_mapping(mapping, base=base)
    except CatansimError as exc:  # "rule robber: ..." becomes "rules.robber: ..."
        msg = str(exc)
        if msg.startswith("rule "):
            raise CatansimError(f"{ctx.prefix}{key}.{msg[5:]}") from None
        ctx.fail(key, msg)


def _switch(mapping, key, ctx: _Ctx, rules):
    """``rules`` with the switch of a ``[switch]`` table (``turn`` and the settings after
    it); ``"none"`` for no switch."""
    allowed = (f"a table with turn (>= 1) and rule settings after it "
               f"({', '.join(Rules.names())}), or \"none\"")
    if isinstance(mapping, str) and mapping.lower() == "none":
        return rules.before
    if not isinstance(mapping, dict):
        ctx.fail(key, f"expected a table, got {type_name(mapping)}; allowed: {allowed}")
    if "turn" not in mapping:
        ctx.fail(f"{key}.turn", f"missing; allowed: {allowed}")
    after = {k: v for k, v in mapping.items() if k != "turn"}
    for name in after:
        if name not in Rules.names():
            ctx.fail(f"{key}.{name}", f"unknown rule{did_you_mean(name, Rules.names())}; "
                                      "allowed: turn, "
                                      f"{', '.join(Rules.names())}")
    try:
        return rules.before.switched(mapping["turn"], **after)
    except CatansimError as exc:  # "rule switch_turn: ..." becomes "switch.turn: ..."
        ctx.fail(*_switch_message(str(exc), key))


def _switch_message(msg: str, key: str) -> tuple[str, str]:
    """(field, message) of a ``Rules`` switch error, named as the ``[switch]`` table's:
    "rule switch_turn: ..." is ``turn``'s, "rule switch: rule robber: ..." ``robber``'s."""
    msg = msg.removeprefix("rule switch: ")
    if msg.startswith("rule "):
        field, _, rest = msg[len("rule "):].partition(": ")
        return f"{key}.{'turn' if field == 'switch_turn' else field}", rest
    return key, msg


def _openings(mapping, key, ctx: _Ctx, players: int) -> np.ndarray:
    if not isinstance(mapping, dict):
        ctx.fail(key, f"expected a table, got {type_name(mapping)}; allowed: a table "
                      f"seat0..seat{players - 1}")
    seat_keys = [f"seat{p}" for p in range(players)]
    shape_msg = ("expected [[node, edge]] or [[node, edge], [node, edge]]; allowed: integer "
                 "pairs, node 0..53, edge 0..71 or -1 (free)")
    seats = {}
    for seat_key, pairs in mapping.items():
        k = f"{key}.{seat_key}"
        if seat_key not in seat_keys:
            ctx.fail(k, f"unknown seat; allowed: {', '.join(seat_keys)}")
        if not isinstance(pairs, list) or not 1 <= len(pairs) <= 2:
            ctx.fail(k, shape_msg)
        for j, pair in enumerate(pairs):
            if (not isinstance(pair, list) or len(pair) != 2
                    or any(isinstance(x, bool) or not isinstance(x, int) for x in pair)):
                ctx.fail(f"{k}[{j}]", shape_msg)
        seats[seat_keys.index(seat_key)] = pairs
    try:
        return openings_from_seats(seats, players, key)
    except CatansimError as exc:
        ctx.reraise(key, exc)


def _sweep_seats(value, key, ctx: _Ctx, players: int) -> list[int]:
    allowed = f'a seat 0..{players - 1}, a list of them or "all"'
    if value == "all":
        return list(range(players))
    items = value if isinstance(value, list) else [value]
    if not items or len(set(map(repr, items))) != len(items):
        ctx.fail(key, f"{value!r} is not allowed; allowed: {allowed}, each seat once")
    for x in items:
        if isinstance(x, bool) or not isinstance(x, int) or not 0 <= x < players:
            ctx.fail(key, f"{x!r} is not allowed; allowed: {allowed}")
    return sorted(items)


def _sweep_nodes(value, key, ctx: _Ctx) -> list[int] | None:
    """The listed nodes, or None for "all"."""
    allowed = f'"all" or a list of nodes 0..{N_NODES - 1}, each once'
    if value == "all":
        return None
    if not isinstance(value, list) or not value:
        ctx.fail(key, f"expected \"all\" or a list of nodes, got {type_name(value)} "
                      f"({value!r}); allowed: {allowed}")
    for j, x in enumerate(value):
        if isinstance(x, bool) or not isinstance(x, int) or not 0 <= x < N_NODES:
            ctx.fail(f"{key}[{j}]", f"{x!r} is not a node; allowed: 0..{N_NODES - 1}")
    if len(set(value)) != len(value):
        ctx.fail(key, f"a node is listed twice; allowed: {allowed}")
    return list(value)


def _sweep(raw, ctx: _Ctx, players: int, base: np.ndarray | None
           ) -> list[tuple[str, np.ndarray, str]]:
    """The arms of ``[sweep]`` (a table or an array of tables), as variants forcing one
    seat's settlement(s) on top of the baseline's openings (``results.arms`` names)."""
    tables = raw if isinstance(raw, list) else [raw]
    if not tables:
        ctx.fail("sweep", "an empty array; allowed: a table, or an array of tables, of "
                          + ", ".join(SWEEP_KEYS))
    base = free_openings() if base is None else np.asarray(base, dtype=np.int32)
    arms: dict[str, tuple[np.ndarray, str, str]] = {}
    for i, t in enumerate(tables):
        key = f"sweep[{i}]" if isinstance(raw, list) else "sweep"
        if not isinstance(t, dict):
            ctx.fail(key, f"expected a table, got {type_name(t)}; allowed: a table of "
                          + ", ".join(SWEEP_KEYS))
        for k in t:
            if k not in SWEEP_KEYS:
                ctx.fail(f"{key}.{k}", f"unknown key; allowed: {', '.join(SWEEP_KEYS)}")
        seats = _sweep_seats(t.get("seat", "all"), f"{key}.seat", ctx, players)
        settlement = t.get("settlement", 1)
        kinds = {1: "first", 2: "second"}
        if settlement in ([1, 2], [2, 1]):
            kind = "pair"
        elif not isinstance(settlement, bool) and settlement in kinds:
            kind = kinds[settlement]
        else:
            ctx.fail(f"{key}.settlement", f"{settlement!r} is not allowed; allowed: "
                                          f"{SWEEP_KEYS['settlement']}")
        listed = _sweep_nodes(t.get("nodes", "all"), f"{key}.nodes", ctx)
        roads = t.get("roads", "free")
        if roads not in ("free", "all"):
            ctx.fail(f"{key}.roads", f"{roads!r} is not allowed; allowed: {SWEEP_KEYS['roads']}")
        nodes = list(range(N_NODES)) if listed is None else listed
        if kind == "pair":
            candidates = [(a, b) for a in nodes for b in nodes
                          if a != b and b not in NODE_NEIGHBOURS[a]]
            if not candidates:
                ctx.fail(f"{key}.nodes", "no two of these nodes obey the Distance Rule; "
                                         "allowed: at least two nodes apart")
        else:
            candidates = [(n,) for n in nodes]
        slots = {"first": (0,), "second": (1,), "pair": (0, 1)}[kind]
        for p in seats:
            for k in slots:
                if base[opening_slot(p, k)] >= 0:
                    ctx.fail(f"{key}.settlement", f"seat {p}'s {('first', 'second')[k]} "
                                                  "settlement is forced by [openings]; allowed: "
                                                  "another seat or settlement")
            for cand in candidates:
                road_sets = [[-1]] * len(cand) if roads == "free" else [
                    [int(e) for e in NODE_EDGES[n] if e >= 0] for n in cand]
                for road in _product(road_sets):
                    arr = base.copy()
                    for k, n, e in zip(slots, cand, road, strict=True):
                        arr[opening_slot(p, k)] = n
                        arr[opening_slot(p, k) + 1] = e
                    try:
                        validate_openings(arr, players)
                    except CatansimError as exc:
                        if listed is not None and kind != "pair" and roads == "free":
                            ctx.fail(f"{key}.nodes", f"seat {p} on node {cand[0]}: {exc}")
                        continue  # "all": a node the baseline's openings rule out
                    name = arm_name(p, kind, cand, road)
                    if name in arms:
                        ctx.fail(key, f"arm {name} is already in {arms[name][2]}; allowed: "
                                      "each arm once")
                    what = " and ".join(
                        f"{('first', 'second')[k]} settlement on node {n}"
                        + (f" with road {e}" if e >= 0 else "")
                        for k, n, e in zip(slots, cand, road, strict=True))
                    arms[name] = (arr, f"seat {p}: {what}", key)
                    if len(arms) > MAX_ARMS:
                        ctx.fail("sweep", f"more than {MAX_ARMS:,} arms; allowed: at most "
                                          f"{MAX_ARMS:,} (fewer seats, nodes or roads)")
        if not any(v[2] == key for v in arms.values()):
            ctx.fail(key, "no legal arm: every node is ruled out by [openings]; allowed: "
                          "nodes that obey the Distance Rule with the forced openings")
    return [(name, arr, desc) for name, (arr, desc, _) in arms.items()]


def _product(lists):
    return itertools.product(*lists)


def _board(value, ctx: _Ctx, layout: str, base_dir: Path):
    key = "board"
    if isinstance(value, bool) or not isinstance(value, int | str):
        ctx.fail(key, f"expected a seed or a string, got {type_name(value)}; "
                      f"allowed: {TOP_KEYS['board']}")
    if isinstance(value, int):
        gen, seed = layout, value
    elif value.strip() == "beginner":  # the beginner map without its fixed pieces
        return B.beginner_board()
    else:
        m = re.fullmatch(rf"({'|'.join(SEEDED_LAYOUTS)}):(\d+)", value.strip())
        if m:
            gen, seed = m.group(1), int(m.group(2))
        else:
            path = Path(value)
            if not path.is_absolute():
                path = base_dir / path
            if not path.is_file():
                near = did_you_mean(value.strip().partition(":")[0], (*SEEDED_LAYOUTS,
                                                                      "beginner"))
                ctx.fail(key, f"{value!r} is neither LAYOUT:SEED nor 'beginner' nor an "
                              f"existing board file (looked for {path}){near}; "
                              f"allowed: {TOP_KEYS['board']}")
            try:
                return B.parse_board(path)
            except CatansimError as exc:
                ctx.reraise(key, exc)
    if gen not in SEEDED_LAYOUTS:
        ctx.fail(key, f"a seed needs a seeded layout, not {gen!r}"
                      f"{did_you_mean(gen, SEEDED_LAYOUTS)}; allowed: layout "
                      f"{', '.join(SEEDED_LAYOUTS)}")
    ctx.check(check_seed, seed, key)
    return B.make_board(gen, seed)


def _board_set(value, ctx: _Ctx, layout: str, games: int, seed: int) -> BoardSet:
    key = "boards"
    if not isinstance(value, dict):
        ctx.fail(key, f"expected a table, got {type_name(value)}; allowed: a table of "
                      f"{', '.join(BOARD_SET_KEYS)}")
    for k in value:
        if k not in BOARD_SET_KEYS:
            ctx.fail(f"{key}.{k}", f"unknown key; allowed: {', '.join(BOARD_SET_KEYS)}")
    if "games_per_board" not in value:
        ctx.fail(f"{key}.games_per_board", "missing; allowed: an integer >= 1")
    if layout not in SEEDED_LAYOUTS:
        ctx.fail(key, f"boards are dealt by a seeded layout, not {layout!r}"
                      f"{did_you_mean(layout, SEEDED_LAYOUTS)}; allowed: layout "
                      f"{', '.join(SEEDED_LAYOUTS)}")
    per = ctx.check(check_int, value["games_per_board"], f"{key}.games_per_board", 1,
                    MAX_GAMES)
    if games % per:
        ctx.fail("games", f"{games} is not a multiple of boards.games_per_board ({per}); "
                          "allowed: a multiple of it")
    bseed = ctx.check(check_int, value.get("seed", seed), f"{key}.seed", 0, SEED_MAX,
                      SEED_ALLOWED)
    dice = ctx.check(check_choice, value.get("dice", "independent"), f"{key}.dice", DICE)
    return BoardSet(per, bseed, dice)


def load_experiment(path, text: str | None = None) -> Experiment:
    """Read and validate an experiment file.

    Parameters
    ----------
    path : str or Path
        The TOML file (also used to name it in errors and to resolve relative paths).
    text : str, optional
        The file's content, if already read.

    Returns
    -------
    Experiment

    Raises
    ------
    CatansimError
        One line naming the file and the key, for each kind of mistake.
    """
    path = Path(path)
    if text is None:
        text = read_text(path, "experiment file", "a TOML experiment file "
                                                        "(docs/experiments.md)")
    data = parse_toml(text, path, "a TOML experiment file (docs/experiments.md)")
    return parse_experiment(data, path=path, text=text)



def parse_experiment(data: dict, path: Path | None = None, text: str = "") -> Experiment:
    """Validate an experiment's parsed TOML table (see ``load_experiment``)."""
    ctx = _Ctx(path)
    for key in data:
        if key not in TOP_KEYS:
            ctx.fail(key, f"unknown key; allowed: {', '.join(TOP_KEYS)}")
    base_dir = path.parent if path is not None else Path.cwd()

    name = data.get("name", path.stem if path is not None else "experiment")
    ctx.check(check_str, name, "name", "letters, digits, _ . -")
    if not DATASET_NAME_RE.match(name):
        ctx.fail("name", f"{name!r} is not allowed; allowed: letters, digits, _ . -")
    description = data.get("description", "")
    ctx.check(check_str, description, "description", "free text")
    if "games" not in data:
        ctx.fail("games", "missing; allowed: an integer >= 1")
    games = ctx.check(check_int, data["games"], "games", 1, MAX_GAMES, "an integer >= 1")
    players = ctx.check(check_players, data.get("players", 4))
    seed = ctx.check(check_int, data.get("seed", 0), "seed", 0, SEED_MAX, SEED_ALLOWED)
    layout = ctx.check(check_choice, data.get("layout", "variable"), "layout", LAYOUTS)
    board = board_spec = None
    if "board" in data:
        if layout == "beginner":
            ctx.fail("board", "layout 'beginner' already fixes the board; allowed: one of "
                              "layout = 'beginner' or board")
        board_spec = str(data["board"])
        board = _board(data["board"], ctx, layout, base_dir)
        layout = "given"
    board_set = None
    if "boards" in data:
        if board is not None:
            ctx.fail("boards", "board already fixes one board for every game; allowed: board "
                               "(one board) or boards (a board set), not both")
        board_set = _board_set(data["boards"], ctx, layout, games, seed)
    rotate = ctx.check(check_bool, data.get("rotate", False), "rotate", "true, false")
    batch_size = ctx.check(check_int, data.get("batch_size", DEFAULT_BATCH_SIZE), "batch_size",
                           1, MAX_BATCH_SIZE, f"an integer in 1..{MAX_BATCH_SIZE:,} (a part's "
                           "memory: about 2.5 KB per game)")
    output = data.get("output", f"results/{name}")
    ctx.check(check_str, output, "output", "a folder path")
    ctx.check(check_path, output, "output")
    scheduler = data.get("scheduler")
    if scheduler is not None:
        ctx.check(check_str, scheduler, "scheduler", SCHEDULER_ALLOWED)
        scheduler = ctx.check(check_scheduler, scheduler, "scheduler")

    strategy_defs = None
    strategy_set = PRESETS
    if "strategy_defs" in data:
        raw = data["strategy_defs"]
        defs_allowed = "a TOML file of [strategies.NAME] tables, or an inline table"
        if isinstance(raw, str):
            p = Path(raw) if Path(raw).is_absolute() else base_dir / raw
            text = ctx.check(read_text, p, "strategies file", defs_allowed, "strategy_defs")
            strategy_defs = ctx.check(parse_toml, text, f"strategy_defs: {p}", defs_allowed)
        elif isinstance(raw, dict):
            strategy_defs = raw
        else:
            ctx.fail("strategy_defs", f"expected a file path or a table, got {type_name(raw)}; "
                                      f"allowed: {defs_allowed}")
        strategy_set = ctx.check(PRESETS.with_definitions, strategy_defs, "strategy_defs")

    strategies = _strategies(data.get("strategies", ["default"]), "strategies", ctx,
                             players, strategy_set)
    rules = _rules(data.get("rules", {}), "rules", ctx)
    switch = data.get("switch")
    if switch is not None:
        rules = _switch(switch, "switch", ctx, rules)
    openings = _openings(data["openings"], "openings", ctx, players) if "openings" in data \
        else None
    if openings is not None and layout == "beginner":
        ctx.fail("openings", "layout 'beginner' has its own fixed openings; allowed: openings "
                             "with board = \"beginner\" (the beginner map with free openings) "
                             "or another fixed board")

    variants = [Variant(BASELINE, rules, strategies, openings, "baseline")]
    raw_variants = data.get("variants", {})
    if not isinstance(raw_variants, dict):
        ctx.fail("variants", f"expected tables [variants.NAME], got {type_name(raw_variants)}"
                             "; allowed: [variants.NAME] tables")
    for vname, vdata in raw_variants.items():
        key = f"variants.{vname}"
        if not NAME_RE.match(vname) or vname == BASELINE:
            ctx.fail(key, f"{vname!r} is not allowed; allowed: a name of letters, digits and _ "
                          "other than 'baseline'")
        if not isinstance(vdata, dict):
            ctx.fail(key, f"expected a table, got {type_name(vdata)}; allowed: a table of "
                          f"{', '.join(VARIANT_KEYS)}")
        for k in vdata:
            if k not in VARIANT_KEYS:
                ctx.fail(f"{key}.{k}", f"unknown key; allowed: {', '.join(VARIANT_KEYS)}")
        if not any(k in vdata for k in ("rules", "switch", "strategies", "openings")):
            ctx.fail(key, "changes nothing; allowed: a variant that sets rules, switch, "
                          "strategies or openings")
        vdesc = vdata.get("description", "")
        ctx.check(check_str, vdesc, f"{key}.description", "free text")
        v_rules = _rules(vdata["rules"], f"{key}.rules", ctx, base=rules) if "rules" in vdata \
            else rules
        v_switch = vdata.get("switch", switch)
        if v_switch is not None:  # its own switch, or the experiment's on its own rules
            v_rules = _switch(v_switch, f"{key}.switch", ctx, v_rules)
        v_strat = (_strategies(vdata["strategies"], f"{key}.strategies", ctx, players,
                               strategy_set)
                   if "strategies" in vdata else strategies)
        v_open = (_openings(vdata["openings"], f"{key}.openings", ctx, players)
                  if "openings" in vdata else openings)
        variants.append(Variant(vname, v_rules, v_strat, v_open, vdesc))
    if "sweep" in data:
        if layout == "beginner":
            ctx.fail("sweep", "layout 'beginner' fixes every opening; allowed: board = "
                              "\"beginner\" (the beginner map with free openings)")
        taken = {v.name for v in variants}
        for aname, arr, adesc in _sweep(data["sweep"], ctx, players, openings):
            if aname in taken:
                ctx.fail("sweep", f"arm {aname} has the name of a variant; allowed: "
                                  "variant names that are not arm names")
            variants.append(Variant(aname, rules, strategies, arr, adesc))

    exp = Experiment(name=name, path=path, text=text, games=games, players=players, seed=seed,
                     layout=layout, board=board, board_spec=board_spec, rotate=rotate,
                     batch_size=batch_size, output=Path(output), scheduler=scheduler,
                     strategy_defs=strategy_defs, variants=tuple(variants),
                     description=description, strategy_set=strategy_set,
                     board_set=board_set)
    for v in exp.variants:  # let GameSettings check the combination once
        try:
            exp.settings(v.name)
        except CatansimError as exc:
            key = "rules" if v.name == BASELINE else f"variants.{v.name}"
            ctx.fail(key, str(exc))
    return exp
