"""Strategy registry: names -> (integer strategy id, parameter row) for the kernels.

The compiled core chooses a seat's decisions by its integer strategy id and a
float64 parameter row (``core.policy_nb``). Presets are named here.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .core.policy_nb import N_PARAMS, STRATEGY_RANDOM
from .errors import CatansimError


@dataclass(frozen=True)
class Strategy:
    """A named strategy: the kernel's id and its parameter row (float64[N_PARAMS])."""

    name: str
    sid: int
    params: np.ndarray = field(repr=False)


PRESETS: dict[str, Strategy] = {
    "random": Strategy("random", STRATEGY_RANDOM, np.zeros(N_PARAMS)),
}


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
