"""The search space: which parameters of a strategy row are searched, and how.

The parameters and their allowed ranges are read from ``PARAM_FIELDS`` (the compiled
core's, through ``catansim.strategies``) when a spec is read, never copied: a
parameter added to the compiled core can be searched at once. A searched parameter is

- a range ``[low, high]`` (uniform), or ``{low, high, log = true}`` (log-uniform),
  or ``{low, high, step = 1}`` (integers, or any step);
- ``{choices = [...]}``: numbers, or the words a parameter takes (``robber_policy``
  ``"leader"``, ``"production"``, ``"random"``; ``bank_trade`` ``"never"`` ..);
- ``"full"``: its whole allowed range (a choice of the words for a parameter with words).
"""

from __future__ import annotations

from dataclasses import dataclass

import optuna.distributions as D

from ..checks import is_int, type_name
from ..errors import CatansimError
from ..strategies import PARAM_FIELDS, PARAM_INDEX, PARAM_WORDS

SPACE_ALLOWED = ("[low, high], {low, high, log = true}, {low, high, step = S}, "
                 "{choices = [...]} or \"full\"")


def param_range(name: str) -> tuple[float, float]:
    """The allowed range of a parameter (``PARAM_FIELDS``)."""
    _, lo, hi, _ = PARAM_FIELDS[PARAM_INDEX[name]]
    return float(lo), float(hi)


@dataclass(frozen=True)
class Dimension:
    """One searched parameter: a float range (``log``, ``step``) or a list of choices."""

    name: str
    low: float = 0.0
    high: float = 0.0
    log: bool = False
    step: float | None = None
    choices: tuple = ()

    def distribution(self):
        """The Optuna distribution of this dimension."""
        if self.choices:
            return D.CategoricalDistribution(self.choices)
        if self.step is not None and float(self.step).is_integer() \
                and float(self.low).is_integer():
            return D.IntDistribution(int(self.low), int(self.high), step=int(self.step))
        return D.FloatDistribution(self.low, self.high, log=self.log, step=self.step)

    def value(self, sampled) -> float:
        """The number the kernels see for a sampled value (a word becomes its number)."""
        words = PARAM_WORDS.get(self.name, {})
        return float(words[sampled]) if isinstance(sampled, str) else float(sampled)

    def nearest(self, value: float):
        """The point of this dimension nearest ``value`` (the start enqueued as trial 0)."""
        if self.choices:
            return min(self.choices, key=lambda c: abs(self.value(c) - value))
        v = min(max(value, self.low), self.high)
        if self.step is not None:
            v = self.low + round((v - self.low) / self.step) * self.step
            v = min(v, self.high)
            if isinstance(self.distribution().low, int):
                return int(round(v))
        return float(v)


def _number(raw, where: str, lo: float, hi: float) -> float:
    if isinstance(raw, bool) or not isinstance(raw, int | float):
        raise CatansimError(f"{where}: expected a number, got {type_name(raw)} ({raw!r}); "
                            f"allowed: a number in {lo:g}..{hi:g}")
    if not lo <= raw <= hi:
        raise CatansimError(f"{where}: {raw!r} is out of range; allowed: {lo:g}..{hi:g}")
    return float(raw)


def _choices(name: str, raw, where: str, lo: float, hi: float) -> tuple:
    words = PARAM_WORDS.get(name, {})
    allowed = f"numbers in {lo:g}..{hi:g}" + (f" or {', '.join(words)}" if words else "")
    if not isinstance(raw, list) or not raw:
        raise CatansimError(f"{where}.choices: expected a non-empty array; allowed: {allowed}")
    out = []
    for i, c in enumerate(raw):
        if isinstance(c, str):
            if c not in words:
                raise CatansimError(f"{where}.choices[{i}]: {c!r} is not allowed; "
                                    f"allowed: {allowed}")
            out.append(c)
        else:
            out.append(_number(c, f"{where}.choices[{i}]", lo, hi))
    if len(set(out)) != len(out):
        raise CatansimError(f"{where}.choices: repeats a value; allowed: distinct {allowed}")
    return tuple(out)


def parse_dimension(name: str, raw, where: str) -> Dimension:
    """A dimension from a spec's ``[params]`` entry; one-line errors name ``where``."""
    if name not in PARAM_INDEX:
        raise CatansimError(f"{where}: unknown parameter; allowed: {', '.join(PARAM_INDEX)}")
    lo, hi = param_range(name)
    if raw == "full":
        words = PARAM_WORDS.get(name)
        return Dimension(name, choices=tuple(words)) if words else Dimension(name, lo, hi)
    if isinstance(raw, list):
        raw = {"low": raw[0], "high": raw[1]} if len(raw) == 2 else {"bad": raw}
    if not isinstance(raw, dict):
        raise CatansimError(f"{where}: expected a range, got {type_name(raw)} ({raw!r}); "
                            f"allowed: {SPACE_ALLOWED}")
    if "choices" in raw:
        extra = set(raw) - {"choices"}
        if extra:
            raise CatansimError(f"{where}.{sorted(extra)[0]}: not allowed with choices; "
                                "allowed: choices alone")
        return Dimension(name, choices=_choices(name, raw["choices"], where, lo, hi))
    extra = set(raw) - {"low", "high", "log", "step"}
    if extra or "low" not in raw or "high" not in raw:
        key = sorted(extra)[0] if extra else ("low" if "low" not in raw else "high")
        raise CatansimError(f"{where}.{key}: {'unknown key' if extra else 'missing'}; "
                            f"allowed: {SPACE_ALLOWED}")
    low = _number(raw["low"], f"{where}.low", lo, hi)
    high = _number(raw["high"], f"{where}.high", lo, hi)
    if not low < high:
        raise CatansimError(f"{where}: empty range {low:g}..{high:g}; allowed: low < high "
                            f"within {lo:g}..{hi:g}")
    log = raw.get("log", False)
    if not isinstance(log, bool):
        raise CatansimError(f"{where}.log: expected true or false, got {log!r}; "
                            "allowed: true, false")
    if log and low <= 0:
        raise CatansimError(f"{where}.low: a log scale needs low > 0, got {low:g}; "
                            f"allowed: a number in (0, {high:g})")
    step = raw.get("step")
    if step is not None:
        if isinstance(step, bool) or not isinstance(step, int | float) or step <= 0 \
                or step > high - low:
            raise CatansimError(f"{where}.step: {step!r} is not allowed; allowed: a number "
                                f"in (0, {high - low:g}]")
        if log:
            raise CatansimError(f"{where}.step: not allowed with log; allowed: one of them")
        step = float(step)
        if is_int(raw["step"]) and not (low.is_integer() and high.is_integer()):
            raise CatansimError(f"{where}: an integer step needs integer bounds, got "
                                f"{low:g}..{high:g}; allowed: integers in {lo:g}..{hi:g}")
    return Dimension(name, low, high, log, step)


def parse_space(raw, where: str = "params") -> tuple[Dimension, ...]:
    """The dimensions of a spec's ``params``: a table, or ``"all"`` (every parameter)."""
    if raw == "all":
        return tuple(parse_dimension(name, "full", f"{where}.{name}") for name in PARAM_INDEX)
    if not isinstance(raw, dict) or not raw:
        raise CatansimError(f"{where}: expected a non-empty table of parameters or \"all\", "
                            f"got {type_name(raw)}; allowed: NAME = {SPACE_ALLOWED}, for NAME "
                            f"in {', '.join(PARAM_INDEX)}")
    return tuple(parse_dimension(name, value, f"{where}.{name}") for name, value in raw.items())
