"""The game viewer: one self-contained HTML page per game, made from its log alone.

What lives here:

- ``frames``: ``game_view``, every step's state as the viewer shows it (each seat's
  cards, victory points, pieces and tiles, the supply, the robber, the board's
  pieces, the event's narrative line), replayed from the log by ``catansim.logs``;
- ``page``: ``viewer_html`` / ``write_viewer`` (the page, with its script, style and
  data inline: no network, works from ``file://``) and ``inline_html`` (the same page
  in a notebook's output), each with an optional review of the game;
- ``review``: a game review's tables (``catansim analyse``) checked against the log
  and made the page's data: the win-probability timeline drawn under the board and
  the moves flagged.

``catansim replay GAME.jsonl --html PAGE`` and ``catansim play ... --html PAGE`` write
the page; a played game and a replayed log show it in a notebook (``_repr_html_``,
through the views the package ``catansim`` registers in ``catansim.display``).
``docs/viewer.md`` describes it.

May import: ``logs`` (reading and replaying logs, the narrative), ``constants``,
``topology``, ``palette``, ``errors``, ``files`` (atomic writes), ``results.review``
(the review's column names). Never the engine, the kernels, plotting or matplotlib: a
log (and a review's tables) is all a page needs.
"""

from .frames import GLOBAL_FIELDS, SEAT_FIELDS, game_view
from .page import inline_html, viewer_html, write_viewer

__all__ = ["GLOBAL_FIELDS", "SEAT_FIELDS", "game_view", "inline_html",
           "viewer_html", "write_viewer"]
