"""catansim: Monte Carlo simulation and analytics for CATAN (base game, 6th-edition rules)."""

import importlib

from . import display as _display

__version__ = "0.1.0"

# Names at the top level, imported on first use so that ``import catansim`` stays cheap.
_LAZY = {
    "load": ("results.dataset", "load"),
    "play_game": ("engine", "play_game"),
    "play_batch": ("engine", "play_batch"),
    "batch_seeds": ("engine", "batch_seeds"),
    "GameSettings": ("settings", "GameSettings"),
    "Game": ("game", "Game"),
    "Option": ("game", "Option"),
    "Player": ("game", "Player"),
    "RandomPlayer": ("game", "RandomPlayer"),
    "Rules": ("rules", "Rules"),
    "tune": ("tuning", "tune"),
    "ladder": ("ladders", "ladder"),
    "analyse": ("review", "analyse"),
}


def __getattr__(name):
    if name in _LAZY:
        module, attr = _LAZY[name]
        return getattr(importlib.import_module(f"{__name__}.{module}"), attr)
    raise AttributeError(f"module 'catansim' has no attribute {name!r}")


# The notebook views of results, hooked in from above: a played game and a replayed log
# know nothing of the viewer (``catansim.display``), which is imported when a result is
# first shown.
def _game_page(result) -> str | None:
    from .logs import game_log  # noqa: PLC0415  (on first show: import catansim stays cheap)
    from .viewer import inline_html  # noqa: PLC0415

    return None if result.events is None else inline_html(*game_log(result))


def _replay_page(replay) -> str | None:
    from .viewer import inline_html  # noqa: PLC0415  (on first show)

    return None if replay.log is None else inline_html(*replay.log)


_display.register_html(_display.GAME, _game_page)
_display.register_html(_display.REPLAY, _replay_page)
