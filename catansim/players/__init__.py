"""Python players: strategies written in plain Python against the step interface.

What lives here:

- ``greedy``: ``GreedyBuilder``, the worked example of ``docs/players.md``: it reads
  only its ``Observation`` and picks among the options (cities, then settlements, then
  development cards, then roads; maritime trades that complete the build it aims at;
  the robber on the leader's best hex).

Name one in an experiment file or on the command line as
``python:catansim.players.greedy:GreedyBuilder``, or pass the object to ``play_game``.

May import: ``game`` (``Option``, ``Observation``), ``constants`` and ``topology``:
a player sees the game through its observation only, never the engine, the kernels or
the state.
"""

from .greedy import GreedyBuilder

__all__ = ["GreedyBuilder"]
