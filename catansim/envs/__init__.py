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
clear line. Importing this package registers ``CatanEnv`` with Gymnasium (when it is
installed) as ``ENV_ID``, ``catansim/Catan-v0``: ``gymnasium.make(ENV_ID, **kwargs)`` is
``CatanEnv(illegal="lose", **kwargs)``, which Gymnasium's ``check_env`` passes as it is
(it steps with unmasked samples); ``gymnasium.make("catansim.envs:catansim/Catan-v0")``
imports this package itself. docs/envs.md has the action and observation tables.
"""

from __future__ import annotations

import importlib

from ..errors import CatansimError

try:
    import gymnasium
except ModuleNotFoundError:  # no env extra: nothing to register (CatanEnv says so)
    gymnasium = None

_LAZY = {"CatanAEC": "aec", "CatanEnv": "single"}

# Gymnasium's id of CatanEnv, and what gymnasium.make gives it unless asked otherwise.
ENV_ID = "catansim/Catan-v0"
ENV_KWARGS = {"illegal": "lose"}

if gymnasium is not None and ENV_ID not in gymnasium.registry:
    gymnasium.register(id=ENV_ID, entry_point=f"{__name__}.single:CatanEnv",
                       kwargs=dict(ENV_KWARGS))


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
