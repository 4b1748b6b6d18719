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


class Fragile(Thrifty):
    """Thrifty until its ``fail_at``-th game in this process (counted by ``new_game`` over
    every instance): from then on ``decide`` raises on turn 3. Tests set the counts."""

    games = 0
    fail_at = 1

    def new_game(self, seed, seat):
        type(self).games += 1
        self.failing = type(self).games >= type(self).fail_at

    def decide(self, observation, options):
        if self.failing and observation.turn >= 3:
            raise ZeroDivisionError("division by zero")
        return super().decide(observation, options)


class NoTable(Thrifty):
    """A player whose ``new_game`` raises."""

    def new_game(self, seed, seat):
        raise RuntimeError("no table\nsecond line")
