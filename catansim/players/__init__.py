"""Python players: strategies written in plain Python against the step interface.

What lives here:

- ``greedy``: ``GreedyBuilder``, the worked example of ``docs/players.md``: it reads
  only its ``Observation`` and picks among the options (cities, then settlements, then
  development cards, then roads; maritime trades that complete the build it aims at;
  the robber on the leader's best hex).

- ``reference``: the scripted player of the compiled core (``core/scripted/``) said
  plainly, module for module and one function per decision, from the deciding seat's
  observation and the strategy's parameters; ``tests/test_reference_players.py``
  checks that the kernel decides as it does.

- ``search``: players that look ahead by playing games in the engine
  (``RolloutOpener``, its first settlement by rollouts).

Name one in an experiment file or on the command line as
``python:catansim.players.greedy:GreedyBuilder``, or pass the object to ``play_game``.

May import: ``game`` (``Option``, ``Observation``), ``rules``, ``strategies`` (the
parameters' names), ``constants`` and ``topology``: a player sees the game through its
observation only, never the engine, the kernels or the state. A search player
(``search``) plays its rollouts in the engine, and may import it (its docstring says
what else).
"""

from .greedy import GreedyBuilder

__all__ = ["GreedyBuilder"]
