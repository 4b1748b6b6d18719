"""catansim: Monte Carlo simulation and analytics for CATAN (base game, 6th-edition rules)."""

import importlib

__version__ = "0.1.0"

# Names at the top level, imported on first use so that ``import catansim`` stays cheap.
_LAZY = {
    "load": ("results.dataset", "load"),
    "play_game": ("engine", "play_game"),
    "play_batch": ("engine", "play_batch"),
    "batch_seeds": ("engine", "batch_seeds"),
    "GameSettings": ("engine", "GameSettings"),
    "Game": ("game", "Game"),
    "Option": ("game", "Option"),
    "Player": ("game", "Player"),
    "RandomPlayer": ("game", "RandomPlayer"),
    "Rules": ("rules", "Rules"),
    "tune": ("tuning", "tune"),
    "ladder": ("ladders", "ladder"),
}


def __getattr__(name):
    if name in _LAZY:
        module, attr = _LAZY[name]
        return getattr(importlib.import_module(f"{__name__}.{module}"), attr)
    raise AttributeError(f"module 'catansim' has no attribute {name!r}")
