"""A ladder's field: players by name, checked before any game, made seat by seat.

A name is one of

- a compiled strategy of the strategy set (``default``, ``builder``, ..., or one a
  ``--config`` file defines, such as ``allrounder``);
- ``python:module:Class``: a Python player (``Class()``); ``search`` and ``search:N``,
  the search player at its default budget or at N rollouts a decision;
- ``catanatron:Class[:arg...]``: a catanatron bot through the bridge
  (``players.outside.catanatron``), e.g. ``catanatron:AlphaBetaPlayer:2``.

Each seat gets its own player object, made from the name in the process that plays the
game (a Dask worker makes its own), so a player need not be picklable.
"""

from __future__ import annotations

from ..errors import CatansimError
from ..players.outside import catanatron as CB
from ..settings import load_python_player
from ..strategies import PRESETS, StrategySet, is_python_player

ALLOWED = ("a strategy name, python:module:Class, or catanatron:Class[:arg...] "
           "(e.g. catanatron:AlphaBetaPlayer:2)")


def is_catanatron(name) -> bool:
    return isinstance(name, str) and name.startswith(CB.PREFIX)


def check_field(names, strategy_set: StrategySet = PRESETS, where: str = "field"
                ) -> tuple[str, ...]:
    """The field's names (a sequence, or one comma-separated string), each checked: a
    strategy of ``strategy_set``, a Python player that can be made, a catanatron bot that
    can be made. Two or more, each once; a bad one is a one-line error naming it."""
    if isinstance(names, str):
        names = [x.strip() for x in names.split(",") if x.strip()]
    if not isinstance(names, list | tuple):
        raise CatansimError(f"{where}: expected names, got {type(names).__name__}; "
                            f"allowed: {ALLOWED}, two or more")
    names = list(names)
    for i, name in enumerate(names):
        field = f"{where}[{i}]"
        if not isinstance(name, str) or not name.strip():
            raise CatansimError(f"{field}: {name!r} is not a name; allowed: {ALLOWED}")
        if is_catanatron(name):
            check_bot(name, field)
        elif is_python_player(name):
            load_python_player(name, i, field)
        else:
            strategy_set.resolve(name, field)
    seen = set()
    for name in names:
        if name in seen:
            raise CatansimError(f"{where}: {name} is named twice; allowed: each player once")
        seen.add(name)
    if len(names) < 2:
        raise CatansimError(f"{where}: {len(names)} player given; allowed: two or more "
                            f"({ALLOWED})")
    return tuple(names)


def check_bot(name: str, field: str) -> None:
    """A catanatron bot's name: its class imports and takes its arguments."""
    try:
        p = CB.player(name)
        p.new_game(0, 0)
        p.make_bot()
    except CatansimError as e:
        raise CatansimError(f"{field}: {e}") from None


def seat_player(name: str, seat: int):
    """The player object of a Python or catanatron seat (None for a compiled strategy)."""
    if is_catanatron(name):
        return CB.player(name)
    if is_python_player(name):
        return load_python_player(name, seat)
    return None
