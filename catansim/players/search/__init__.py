"""Search players: Python players that look ahead by playing games in the engine.

What lives here:

- ``openings``: ``RolloutOpener``, a player that chooses its first settlement by
  rollouts (games played from the set-up as it stands, one batch per candidate node)
  and leaves every other decision to its base strategy.

A search player still decides from its observation only: the board, the pieces
placed, the rules and its own cards. Its rollouts draw their dice and development
deck from the player's own generator, never from the game's, and play every seat by a
model strategy it is given, never by the strategies the other seats really hold.

May import: ``engine`` (``play_batch``), ``kernels`` (the forced openings), ``settings``,
``game`` (``Observation``, ``Option``), ``players.reference`` (the plain scripted
player's placement score), ``board``, ``strategies``, ``checks``, ``errors``,
``constants`` and ``core.layout`` (the result counters); never the runner, datasets,
analyses or reports.
"""

from .openings import RolloutOpener

__all__ = ["RolloutOpener"]
