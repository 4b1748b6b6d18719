"""Strategy registry: names -> (integer strategy id, parameter row) for the kernels.

The compiled core chooses a seat's decisions by its integer strategy id and a
float64 parameter row (``core.policy_nb``). ``random`` is strategy 0; every
other preset is the scripted player (``core.strategies_nb``) with its own row,
so new strategies need no compiled code: a base preset plus overrides, in
Python or in a TOML file::

    [strategies.my_city]
    base = "city"
    dev_weight = 1.5
    robber_policy = "production"

``load_strategies`` registers them; ``docs/strategies.md`` lists every parameter.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .core.policy_nb import N_PARAMS, STRATEGY_RANDOM, STRATEGY_SCRIPTED
from .core.strategies_nb import PARAM_FIELDS, PARAM_INDEX
from .errors import CatansimError

# Parameters that also take words; the numbers are what the kernels see.
PARAM_WORDS: dict[str, dict[str, float]] = {
    "robber_policy": {"leader": 0.0, "production": 1.0, "random": 2.0},
    "bank_trade": {"never": 0.0, "complete": 1.0, "progress": 2.0},
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
    # Tuned by hill-climbing against three copies of each other archetype; plays its
    # knights at once (a knight-eager copy won 28.6% against three of the old row).
    "default": dict(
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

PRESETS: dict[str, Strategy] = {
    "random": Strategy("random", STRATEGY_RANDOM, np.zeros(N_PARAMS)),
}
for _name, _over in ARCHETYPES.items():
    PRESETS[_name] = Strategy(_name, STRATEGY_SCRIPTED, _row(**{**BUILDER, **_over}))
BUILTIN = frozenset(PRESETS)


def resolve(name: str) -> Strategy:
    """Look up a strategy by name; unknown names raise a one-line CatansimError."""
    try:
        return PRESETS[name]
    except KeyError:
        raise CatansimError(
            f"strategy {name!r}: unknown; allowed: {', '.join(sorted(PRESETS))}"
        ) from None


def seat_arrays(names) -> tuple[np.ndarray, np.ndarray]:
    """The kernel's ``strat`` (int32[4]) and ``params`` (float64[4, N_PARAMS]) for seats."""
    strat = np.zeros(4, dtype=np.int32)
    params = np.zeros((4, N_PARAMS), dtype=np.float64)
    for seat, name in enumerate(names):
        st = resolve(name)
        strat[seat] = st.sid
        params[seat] = st.params
    return strat, params


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


def make_strategy(name: str, spec: dict, where: str | None = None) -> Strategy:
    """Build a strategy from ``{"base": preset, <parameter>: value, ...}``.

    ``base`` defaults to ``default``; it may name a built-in preset or one defined
    earlier. Unknown keys, bases or out-of-range values raise CatansimError.
    """
    where = where or f"strategies.{name}"
    if not isinstance(spec, dict):
        raise CatansimError(f"{where}: expected a table of parameters, got {spec!r}")
    base_name = spec.get("base", "default")
    base = PRESETS.get(base_name) if isinstance(base_name, str) else None
    if base is None or base.sid == STRATEGY_RANDOM:
        allowed = ", ".join(sorted(n for n, st in PRESETS.items() if st.sid != STRATEGY_RANDOM))
        raise CatansimError(f"{where}.base: unknown preset {base_name!r}; allowed: {allowed}")
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


def load_strategies(source) -> list[str]:
    """Register the strategies of a TOML file (path) or mapping; return their names.

    The strategies are the ``[strategies.<name>]`` tables (a mapping without a
    ``strategies`` key is taken to be those tables itself). Built-in presets cannot be
    redefined; a strategy may use one defined before it as its base.
    """
    if isinstance(source, str | Path):
        path = Path(source)
        try:
            with path.open("rb") as fh:
                doc = tomllib.load(fh)
        except FileNotFoundError:
            raise CatansimError(f"strategy config {str(path)!r}: file not found") from None
        except tomllib.TOMLDecodeError as exc:
            raise CatansimError(f"strategy config {str(path)!r}: invalid TOML: {exc}") from None
    else:
        doc = dict(source)
    tables = doc.get("strategies", doc) if "strategies" in doc else doc
    if not isinstance(tables, dict):
        raise CatansimError("strategies: expected a table of strategy tables")
    names = []
    for name, spec in tables.items():
        if name in BUILTIN:
            raise CatansimError(
                f"strategies.{name}: redefines a built-in preset; allowed: any other name"
            )
        st = make_strategy(name, spec)
        PRESETS[name] = st
        names.append(name)
    return names


def params_frame():
    """Every parameter of every preset as a DataFrame (rows: parameters)."""
    import pandas as pd

    cols = {
        name: [float(st.params[i]) for i in range(len(PARAM_FIELDS))]
        for name, st in PRESETS.items()
        if st.sid != STRATEGY_RANDOM
    }
    frame = pd.DataFrame(cols, index=[f[0] for f in PARAM_FIELDS])
    frame.insert(0, "range", [f"{lo:g}..{hi:g}" for _, lo, hi, _ in PARAM_FIELDS])
    return frame
