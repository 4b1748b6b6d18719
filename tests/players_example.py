"""Tiny Python players for the tests that name them (``python:players_example:Thrifty``):
the tests folder is on pytest's path, which Dask's worker processes inherit."""

import threading

KINDS = ("city", "settlement", "road", "roll", "end")


class Thrifty:
    """Builds the first city, settlement or road it may (in that order), never buys,
    trades or plays a card when it can end the turn; otherwise the first option."""

    def decide(self, observation, options):
        for kind in KINDS:
            for option in options:
                if option.kind == kind:
                    return option
        return options[0]


class NoDecide:
    """Not a player: it has no ``decide``."""


class Unmakeable:
    """A player whose constructor needs an argument the engine cannot give."""

    def __init__(self, depth):
        self.depth = depth

    def decide(self, observation, options):
        return options[0]


class Unpicklable(Thrifty):
    """Thrifty with state no pickler carries (a lock): the runner must send players'
    names to its workers, never the players."""

    def __init__(self):
        self.lock = threading.Lock()
