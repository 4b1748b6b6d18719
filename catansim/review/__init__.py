"""The review of a game log: each seat's chance of winning through the game, and the
value of a seat's every decision beside its best alternative (``catansim analyse``).

What lives here:

- ``choices``: the decisions a log's events record, as the game's options;
- ``values``: the numbers of one position (the seats' chances of winning, by rollouts
  with Wilson intervals) and of one decision (the move played against the best
  alternative the search player finds, paired on the same rollout seeds);
- ``run``: ``analyse`` (``catansim.analyse``): the positions and decisions of a log cut
  into chunks, computed on every core, each written atomically and resumed; the tables
  of ``results.review``, the settings and the viewer page.

Sits beside ``studies``, ``tuning`` and ``ladders`` at the end of the data path.

May import ``game`` (``Game.from_position``, rollouts), ``logs`` (the log, its positions
and geometry), ``players`` (the search player's candidates and search), ``results``
(``results.review``, the tables' columns), ``analysis`` (its statistics), ``runs`` (the
process pool), ``viewer`` (the page), ``strategies``, ``core.layout`` (the result
counters), ``checks``, ``errors``, ``files``, ``constants``. Never ``commands`` or
``cli``.
"""

from .run import Review, analyse

__all__ = ["Review", "analyse"]
