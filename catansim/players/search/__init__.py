"""Search players: Python players that look ahead by playing games in the engine.

What lives here:

- ``openings``: ``RolloutOpener``, a player that chooses its first settlement by
  rollouts (games played from the set-up as it stands, one batch per candidate node)
  and leaves every other decision to its base strategy.
- ``player``: ``SearchPlayer`` (named ``search``), every decision by determinized
  flat Monte Carlo with sequential halving, its rollouts played by ``Game.rollouts``.
- ``belief``: ``deal``, what a seat cannot see dealt anew from its observation: the
  plain twin of ``core.determinize_nb`` (``Game.determinize``), drawing the same deal
  from the same seed.

A search player still decides from what its seat may know: the board, the pieces
placed, the rules, the public record and its own cards. Its rollouts draw their dice
and development deck from the player's own generator, never from the game's, and play
every seat by a model strategy it is given, never by the strategies the other seats
really hold. ``SearchPlayer`` reads the game it plays in only through ``Game.rollouts``,
which deals anew what the seat cannot see (unless it is made ``omniscient``, to measure
what seeing the cards is worth), and ``Game.suggest`` (its rollout strategy's choice, a
public strategy's).

May import: ``engine`` (``play_batch``), ``settings``,
``game`` (``Observation``, ``Option``, ``Game``: its determinizations and rollouts),
``players.reference`` (the plain scripted player's scores), ``board``, ``strategies``,
``checks``, ``errors``, ``constants``, ``topology`` and ``core.layout`` (the result
counters, the forced openings); never the runner, datasets, analyses or reports.
"""

from .openings import RolloutOpener
from .player import SearchPlayer

__all__ = ["RolloutOpener", "SearchPlayer"]
