"""Strategy registry: names -> (integer strategy id, parameter row) for the kernels.

The compiled core chooses a seat's decisions by its integer strategy id and a
float64 parameter row (``core.policy_nb``). ``random`` is strategy 0; every
other preset is the scripted player (``core.scripted``) with its own row,
so new strategies need no compiled code: a base preset plus overrides, in
Python or in a TOML file::

    [strategies.my_city]
    base = "city"
    dev_weight = 1.5
    robber_policy = "production"

A set of strategies is a value (``StrategySet``): ``PRESETS`` holds the built-in
ones, ``PRESETS.with_definitions(...)`` (or ``load_strategies``) gives a new set
with a study's own strategies, and that set is passed to whatever resolves names
(``GameSettings``, experiments, tournaments). ``docs/strategies.md`` lists every
parameter.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .checks import check_name, did_you_mean, parse_toml, read_text
from .constants import MAX_PLAYERS
from .core.scripted.weights_nb import (
    N_PARAMS,
    PARAM_FIELDS,
    PARAM_INDEX,
    STRATEGY_RANDOM,
    STRATEGY_SCRIPTED,
)
from .errors import CatansimError

# Parameters that also take words; the numbers are what the kernels see.
PARAM_WORDS: dict[str, dict[str, float]] = {
    "robber_policy": {"leader": 0.0, "production": 1.0, "random": 2.0},
    "bank_trade": {"never": 0.0, "complete": 1.0, "progress": 2.0},
    "information": {"public": 0.0, "omniscient": 1.0},
}


@dataclass(frozen=True)
class Strategy:
    """A named strategy: the kernel's id and its parameter row (float64[N_PARAMS])."""

    name: str
    sid: int
    params: np.ndarray = field(repr=False)
    base: str | None = None

    def param_dict(self) -> dict[str, float]:
        """The named parameters of the row (empty for ``random``)."""
        if self.sid == STRATEGY_RANDOM:
            return {}
        return {name: float(self.params[i]) for name, i in PARAM_INDEX.items()}


def _row(**values: float) -> np.ndarray:
    row = np.zeros(N_PARAMS)
    for name, value in values.items():
        row[PARAM_INDEX[name]] = value
    return row


# The balanced player; the other archetypes change a few of its values.
BUILDER = dict(
    pips_weight=1.0,
    diversity_weight=1.0,
    scarcity_weight=1.0,
    harbor_weight=0.5,
    complement_weight=1.5,
    wood_target=1.0,
    brick_target=1.0,
    wool_target=1.0,
    wheat_target=1.0,
    ore_target=1.0,
    road_weight=0.0,
    settlement_weight=1.0,
    city_weight=1.0,
    dev_weight=0.4,
    missing_penalty=1.0,
    reach_weight=0.9,
    bank_trade=1.0,
    offers=3.0,
    accept=1.0,
    accept_vp_limit=8.0,
    robber_policy=0.0,
    knight_eager=0.0,
    monopoly_min=4.0,
    block_weight=0.3,
    route_weight=0.2,
    army_weight=0.3,
)
ARCHETYPES: dict[str, dict[str, float]] = {
    "builder": {},
    "expander": dict(
        wood_target=1.2,
        brick_target=1.2,
        wheat_target=1.2,
        road_weight=0.3,
        city_weight=1.1,
        reach_weight=0.7,
        route_weight=2.0,
        block_weight=0.6,
        scarcity_weight=0.5,
        complement_weight=2.0,
        harbor_weight=1.0,
    ),
    "city": dict(
        wheat_target=1.6,
        ore_target=1.3,
        city_weight=1.2,
        dev_weight=0.6,
        reach_weight=0.7,
        complement_weight=2.0,
        harbor_weight=1.0,
        monopoly_min=6.0,
    ),
    # Knights at once, each one on the leader: three of them gang up on whoever leads.
    "army": dict(
        wheat_target=1.4,
        ore_target=1.4,
        settlement_weight=0.8,
        city_weight=1.2,
        dev_weight=0.8,
        army_weight=0.6,
        knight_eager=1.0,
        robber_policy=0.0,
        monopoly_min=6.0,
        diversity_weight=0.5,
        scarcity_weight=0.5,
        complement_weight=1.0,
        harbor_weight=1.0,
    ),
    "trader": dict(
        harbor_weight=2.0,
        diversity_weight=0.5,
        scarcity_weight=0.5,
        wheat_target=1.2,
        ore_target=1.2,
        settlement_weight=0.8,
        reach_weight=0.6,
        missing_penalty=1.5,
        bank_trade=2.0,
        offers=5.0,
        monopoly_min=6.0,
    ),
    # ``default`` without the decisions of issue #51: its trade answers look at its own
    # plan only. The numbers published with it are rebuilt under this name. Tuned by
    # hill-climbing against three copies of each other archetype; plays its knights at
    # once (with knight_eager 1 it won 28.6% against three copies with 0; seed 5, 8,000
    # games).
    "classic": dict(
        pips_weight=1.0,
        diversity_weight=1.15,
        scarcity_weight=0.45,
        harbor_weight=0.55,
        complement_weight=2.1,
        wool_target=0.9,
        wheat_target=1.25,
        ore_target=1.15,
        reach_weight=0.6,
        route_weight=0.25,
        dev_weight=0.5,
        army_weight=0.35,
        knight_eager=1.0,
    ),
}
# The strongest all-round row: ``classic`` with trade answers that weigh both sides, a
# hand kept from 7s, and offers that ask three more cards in a turn's first offer and
# two spare cards for one when no partner lacks one (issue #51; the figures in
# docs/strategies.md, Presets).
ARCHETYPES["default"] = dict(
    ARCHETYPES["classic"],
    answer_weigh=0.7,
    answer_cards=0.35,
    answer_lead=0.05,
    hand_guard=2.5,
    offer_ask=3.0,
    offer_two=1.0,
    offer_haggle=1.0,
)


class StrategySet(Mapping):
    """An immutable set of named strategies: a value, passed wherever names are resolved.

    ``PRESETS`` holds the built-in archetypes and ``random``; a study's own
    strategies make a new set (``with_definitions``) and never change ``PRESETS``.
    """

    def __init__(self, strategies):
        self._by_name = dict(strategies)

    def __getitem__(self, name: str) -> Strategy:
        return self._by_name[name]

    def __iter__(self):
        return iter(self._by_name)

    def __len__(self) -> int:
        return len(self._by_name)

    def __repr__(self) -> str:
        return f"StrategySet({', '.join(self._by_name)})"

    def __eq__(self, other):
        if not isinstance(other, StrategySet):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def _key(self):
        return tuple((n, st.sid, st.params.tobytes()) for n, st in self._by_name.items())

    @property
    def allowed(self) -> str:
        return ", ".join(sorted(self._by_name))

    @property
    def allowed_seats(self) -> str:
        """What a seat may be named: the strategies and the Python players' names (each
        also as ``NAME:N``)."""
        return (", ".join(sorted([*self._by_name, *PLAYER_NAMES]))
                + "".join(f", {n}:N" for n in sorted(PLAYER_NAMES)))

    def resolve(self, name: str, field: str = "strategy") -> Strategy:
        """The strategy called ``name``; an unknown name is a one-line CatansimError.

        A Python player's name (``python:module:Class``, see ``python_player_name``)
        resolves to ``PYTHON_STAND_IN``: the compiled row its seat carries, which only
        ``Game.suggest`` reads.
        """
        if is_python_player(name):
            check_python_player_name(name, field)
            return PYTHON_STAND_IN
        if not isinstance(name, str) or name not in self._by_name:
            raise CatansimError(f"{field}: unknown strategy {name!r}"
                                f"{did_you_mean(name, [*self._by_name, *PLAYER_NAMES])}; "
                                f"allowed: {self.allowed_seats}, or {PYTHON_PREFIX}module:Class "
                                "for a Python player")
        return self._by_name[name]

    def compiled(self, name, field: str = "strategy") -> Strategy:
        """The compiled strategy called ``name``; a Python player's name or a value that is
        no name is a one-line CatansimError, as an unknown name is (``resolve``)."""
        if not isinstance(name, str) or is_python_player(name):
            raise CatansimError(f"{field}: {name!r} is not a compiled strategy; allowed: "
                                f"{self.allowed}")
        return self.resolve(name, field)

    def seat_names(self, names, n_players: int, field: str = "strategies") -> tuple[str, ...]:
        """Strategy names for the seats: one name for every seat, or one per seat.

        ``names`` is a sequence of names or one string of comma-separated names (the
        command line's ``--strategies``). Every name must be in the set.
        """
        if isinstance(names, str):
            names = [x.strip() for x in names.split(",") if x.strip()]
        names = list(names)
        if not names:
            raise CatansimError(f"{field}: no strategy given; allowed: one name, or one per "
                                f"seat, from {self.allowed}")
        for i, name in enumerate(names):
            self.resolve(name, field if len(names) == 1 else f"{field}[{i}]")
        if len(names) == 1:
            names = names * n_players
        if len(names) != n_players:
            raise CatansimError(f"{field}: {len(names)} strategies for {n_players} players; "
                                f"allowed: one name, or one per seat ({n_players})")
        return tuple(names)

    def seat_arrays(self, names) -> tuple[np.ndarray, np.ndarray]:
        """The kernel's ``strat`` (int32[4]) and ``params`` (float64[4, N_PARAMS]) for seats."""
        strat = np.zeros(MAX_PLAYERS, dtype=np.int32)
        params = np.zeros((MAX_PLAYERS, N_PARAMS), dtype=np.float64)
        for seat, name in enumerate(names):
            st = self.resolve(name)
            strat[seat] = st.sid
            params[seat] = st.params
        return strat, params

    def with_definitions(self, source, where: str = "strategies") -> StrategySet:
        """A new set: this one plus the strategies defined in ``source``.

        ``source`` is a TOML file (path) or a mapping: ``[strategies.<name>]`` tables
        (a mapping without a ``strategies`` key is taken to be those tables itself),
        each a base strategy plus parameter overrides (``make_strategy``). A name
        already in the set (a built-in preset, or defined before) is refused; a
        definition may use one defined before it as its base.
        """
        tables = _definition_tables(source)
        out = dict(self._by_name)
        for name, spec in tables.items():
            check_name(name, f"{where}: a strategy's name")
            if name in PLAYER_NAMES:
                raise CatansimError(f"{where}.{name}: names a Python player "
                                    f"({PLAYER_NAMES[name]}); allowed: any other name")
            if name in out:
                what = "a built-in preset" if name in PRESETS else "a strategy defined before"
                raise CatansimError(f"{where}.{name}: redefines {what}; allowed: any other name")
            out[name] = make_strategy(name, spec, f"{where}.{name}", StrategySet(out))
        return StrategySet(out)

    def params_frame(self):
        """Every parameter of every scripted strategy as a DataFrame (rows: parameters)."""
        import pandas as pd  # noqa: PLC0415  (pandas: +0.2 s to every game played alone)

        cols = {
            name: [float(st.params[i]) for i in range(len(PARAM_FIELDS))]
            for name, st in self._by_name.items()
            if st.sid != STRATEGY_RANDOM
        }
        frame = pd.DataFrame(cols, index=[f[0] for f in PARAM_FIELDS])
        frame.insert(0, "range", [f"{lo:g}..{hi:g}" for _, lo, hi, _ in PARAM_FIELDS])
        return frame


def _builtin() -> StrategySet:
    out = {"random": Strategy("random", STRATEGY_RANDOM, np.zeros(N_PARAMS))}
    for name, over in ARCHETYPES.items():
        out[name] = Strategy(name, STRATEGY_SCRIPTED, _row(**{**BUILDER, **over}))
    return StrategySet(out)


# The built-in strategies: ``random`` and the archetypes.
PRESETS: StrategySet = _builtin()

# A seat played by a Python player (``catansim.game``) is named ``python:module:Class``:
# ``Class()`` in importable ``module`` makes the player. Its compiled row is random.
PYTHON_PREFIX = "python:"
# The Python players catansim ships, named as presets are: each name stands for its
# ``python:module:Class`` (``search``: determinized rollouts, docs/players.md).
PLAYER_NAMES = {"search": "python:catansim.players.search:SearchPlayer"}
# One of those names with a number, ``search:N``: the player made with N as its first
# argument (the search player's budget, rollouts a decision).
_PLAYER_WITH_NUMBER = re.compile(r"^(\w+):(\d{1,9})$")
PYTHON_STAND_IN = Strategy("random", STRATEGY_RANDOM, np.zeros(N_PARAMS))
_PYTHON_NAME = re.compile(r"^python:([A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)*):"
                          r"([A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)*)$")


def _shipped_player(name) -> tuple[str, tuple[int, ...]] | None:
    """(``python:module:Class``, its arguments) of a name of ``PLAYER_NAMES``, alone or
    as ``NAME:N``; None for any other name."""
    if not isinstance(name, str):
        return None
    if name in PLAYER_NAMES:
        return PLAYER_NAMES[name], ()
    m = _PLAYER_WITH_NUMBER.match(name)
    if m is not None and m.group(1) in PLAYER_NAMES:
        return PLAYER_NAMES[m.group(1)], (int(m.group(2)),)
    return None


def is_shipped_player(name) -> bool:
    """Whether ``name`` names a Python player catansim ships (``search``, ``search:N``)."""
    return _shipped_player(name) is not None


def python_player_arguments(name: str) -> tuple[int, ...]:
    """The arguments a Python player's name gives its class: ``(N,)`` for ``search:N``,
    else none."""
    shipped = _shipped_player(name)
    return shipped[1] if shipped is not None else ()


def check_python_player_name(name: str, field: str = "strategy") -> tuple[str, str]:
    """The (module, attribute) of a Python player's name (or of a name of
    ``PLAYER_NAMES``, alone or with a number); a malformed one is a one-line
    CatansimError."""
    shipped = _shipped_player(name)
    m = _PYTHON_NAME.match(shipped[0] if shipped is not None else name)
    if m is None:
        raise CatansimError(f"{field}: {name!r} is not a Python player's name; allowed: "
                            f"{PYTHON_PREFIX}module.path:Class (e.g. "
                            f"{PYTHON_PREFIX}catansim.game:RandomPlayer)")
    return m.group(1), m.group(2)


def is_python_player(name) -> bool:
    """Whether a seat's name names a Python player (``python:module:Class``, or a name
    of ``PLAYER_NAMES``, alone or as ``NAME:N``)."""
    return isinstance(name, str) and (name.startswith(PYTHON_PREFIX)
                                      or _shipped_player(name) is not None)


def python_player_name(player) -> str:
    """The name a Python player object is labelled by: ``python:module:Class``."""
    cls = type(player)
    # A class defined in a function has "<locals>" in its qualified name: its own name
    # then (the label is not reloaded: the object plays).
    name = cls.__qualname__ if "<" not in cls.__qualname__ else cls.__name__
    return f"{PYTHON_PREFIX}{cls.__module__}:{name}"


def resolve(name: str, strategies: StrategySet = PRESETS) -> Strategy:
    """Look up a strategy by name; unknown names raise a one-line CatansimError."""
    return strategies.resolve(name)


def seat_arrays(names, strategies: StrategySet = PRESETS) -> tuple[np.ndarray, np.ndarray]:
    """The kernel's ``strat`` and ``params`` arrays for seats (``StrategySet.seat_arrays``)."""
    return strategies.seat_arrays(names)


def _param_value(where: str, name: str, raw) -> float:
    _, lo, hi, _ = PARAM_FIELDS[PARAM_INDEX[name]]
    allowed = f"{lo:g}..{hi:g}"
    words = PARAM_WORDS.get(name)
    if words:
        allowed += f" or one of {', '.join(words)}"
    if isinstance(raw, str) and words and raw in words:
        return words[raw]
    if isinstance(raw, bool) or not isinstance(raw, int | float):
        raise CatansimError(f"{where}.{name}: {raw!r} is not a number; allowed: {allowed}")
    value = float(raw)
    if not lo <= value <= hi:
        raise CatansimError(f"{where}.{name}: {raw!r} is out of range; allowed: {allowed}")
    return value


def make_strategy(name: str, spec: dict, where: str | None = None,
                  bases: StrategySet = PRESETS) -> Strategy:
    """Build a strategy from ``{"base": name, <parameter>: value, ...}``.

    ``base`` defaults to ``default``; it may name any scripted strategy of ``bases``.
    Unknown keys, bases or out-of-range values raise CatansimError.
    """
    where = where or f"strategies.{name}"
    if not isinstance(spec, dict):
        raise CatansimError(f"{where}: expected a table of parameters, got {spec!r}; allowed: "
                            "a table with base = PRESET and parameter overrides")
    base_name = spec.get("base", "default")
    base = bases.get(base_name) if isinstance(base_name, str) else None
    if base is None or base.sid == STRATEGY_RANDOM:
        scripted = sorted(n for n, st in bases.items() if st.sid != STRATEGY_RANDOM)
        raise CatansimError(f"{where}.base: unknown preset {base_name!r}"
                            f"{did_you_mean(base_name, scripted)}; allowed: "
                            f"{', '.join(scripted)}")
    row = base.params.copy()
    for key, raw in spec.items():
        if key == "base":
            continue
        if key not in PARAM_INDEX:
            raise CatansimError(
                f"{where}.{key}: unknown parameter; allowed: base, {', '.join(PARAM_INDEX)}"
            )
        row[PARAM_INDEX[key]] = _param_value(where, key, raw)
    return Strategy(name, STRATEGY_SCRIPTED, row, base=base_name)


def _definition_tables(source) -> dict:
    """The ``[strategies.<name>]`` tables of a TOML file (path) or a mapping."""
    if isinstance(source, str | Path):
        path = Path(source)
        allowed = "a TOML file of [strategies.NAME] tables (docs/strategies.md)"
        doc = parse_toml(read_text(path, "strategy config", allowed), path, allowed)
    elif isinstance(source, Mapping):
        doc = dict(source)
    else:
        raise CatansimError(f"strategies: expected a TOML file or a table, got "
                            f"{type(source).__name__}; allowed: a path or a mapping")
    tables = doc.get("strategies", doc) if "strategies" in doc else doc
    if not isinstance(tables, dict):
        raise CatansimError("strategies: expected a table of strategy tables; allowed: "
                            "[strategies.NAME] tables")
    return tables


def load_strategies(source, base: StrategySet = PRESETS) -> StrategySet:
    """``base`` plus the strategies of a TOML file or mapping (``with_definitions``)."""
    return base.with_definitions(source)
