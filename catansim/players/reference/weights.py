"""A scripted strategy's parameters by name (``docs/strategies.md``, Parameters)."""

from __future__ import annotations

from collections.abc import Mapping
from types import SimpleNamespace

from ...constants import RESOURCE_NAMES
from ...errors import CatansimError
from ...strategies import PARAM_WORDS, Strategy

RESOURCE_TARGETS = tuple(f"{r}_target" for r in RESOURCE_NAMES)


class Weights(SimpleNamespace):
    """Every parameter of a scripted strategy as an attribute (``w.pips_weight``), plus
    ``target``: the five resource targets, wood to ore."""


def weights(strategy: Strategy | Mapping[str, float]) -> Weights:
    """The parameters of ``strategy`` (a ``Strategy`` or a name -> value mapping; the
    words of ``PARAM_WORDS``, such as ``robber_policy = "production"``, are allowed)."""
    if not isinstance(strategy, Strategy | Mapping):
        raise CatansimError(f"strategy: {strategy!r} is not a Strategy or a mapping of "
                            "parameters; allowed: PRESETS.resolve(name), or {name: value}")
    values = strategy.param_dict() if isinstance(strategy, Strategy) else dict(strategy)
    for name, words in PARAM_WORDS.items():
        if isinstance(values.get(name), str):
            values[name] = words[values[name]]
    w = Weights(**{k: float(v) for k, v in values.items()})
    w.target = tuple(getattr(w, name) for name in RESOURCE_TARGETS)
    return w
