"""Players written by others, playing seats of catansim games through a bridge.

What lives here:

- ``catanatron``: ``CatanatronPlayer``, any player of the catanatron project (its
  random, weighted-random and victory-point players from PyPI; its value-function and
  alpha-beta players from its source repository) in a catansim seat. At each decision
  it mirrors the position into a catanatron game, asks the bot, and maps the action it
  chose back to an ``Option``; ``geometry()`` is the map between the two boards.

catanatron is GPL-3 and an optional extra (``pip install 'catansim[catanatron]'``): it is
imported inside the functions that use it, never at import, and none of its code is in
catansim. docs/ladder.md says how the bridge mirrors a position and where the rules of
the two games differ.

May import: ``game`` (``Game``, ``Option``, ``Observation``), ``constants``, ``topology``
and ``errors``. Unlike the players of ``catansim.players``, a bridged bot reads every
seat's cards (catanatron's bots are written for the full state): it reads them from the
``Game`` it is given with ``watch(game)``, through that game's public observations.
"""
