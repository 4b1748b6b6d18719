"""Reinforcement-learning environments on the step interface (``catansim.game``).

What lives here: ``spaces`` (the fixed action space, the observation vector and
``Table``, a game seen through them: masks, actions to options, cards picked one at a
time for a discard or Invention), ``aec`` (``CatanAEC``, a PettingZoo AEC environment:
one agent per seat) and ``single`` (``CatanEnv``, a Gymnasium environment: one agent's
seat against compiled strategies). May import: ``game``, ``settings``, ``rules``,
``strategies``, ``checks``, ``core.layout``, the constants and errors, and the optional
``pettingzoo`` and ``gymnasium`` (the ``env`` extra); never the engine's batch API,
the runner, datasets or analyses. Nothing of catansim imports this package.

``CatanAEC`` and ``CatanEnv`` are imported on first use, so that a missing extra is one
clear line. docs/envs.md has the action and observation tables.
"""

from __future__ import annotations

import importlib

from ..errors import CatansimError

_LAZY = {"CatanAEC": "aec", "CatanEnv": "single"}


def __getattr__(name):
    if name in _LAZY:
        try:
            module = importlib.import_module(f"{__name__}.{_LAZY[name]}")
        except ModuleNotFoundError as e:
            if e.name not in ("pettingzoo", "gymnasium"):
                raise
            raise CatansimError(f"catansim.envs.{name} needs {e.name}; install it with "
                                "pip install 'catansim[env]'") from None
        return getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
