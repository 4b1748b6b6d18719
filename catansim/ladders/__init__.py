"""Ladders: every player of a field alone against copies of every other, rated together.

What lives here:

- ``field``: a field of players by name (a compiled strategy, ``python:module:Class``,
  ``catanatron:Class[:arg...]``), checked before any game, and each seat's player made
  from its name;
- ``play``: one game of a seating (a ``Game`` played to the end, every Python seat
  deciding through the step interface, a catanatron seat reading the game it plays
  in), the ladder's parts (a pair of players and a block of deals, every deal in every
  seat rotation) and their resumable output folder: each part a CSV written
  atomically, a manifest that a resume must match; parts played in this process, in
  local worker processes, or on a Dask cluster;
- ``run``: ``ladder`` (``catansim.ladder``): plays what is missing, then the rating
  (Plackett-Luce), the one-against-three matrix, the figures and the report page.

Sits beside ``studies`` and ``tuning`` at the end of the data path. May import
``game``, ``engine``, ``settings``, ``strategies``, ``rules``, ``players`` (the
catanatron bridge), ``runs`` (the Dask client's worker check, the process pool), ``analysis``
(``analysis.ladder``), ``plotting``, ``reports`` (the page), ``checks``, ``errors``,
``files``. Never ``commands`` or ``cli``.
"""

from .run import LadderResult, ladder

__all__ = ["LadderResult", "ladder"]
