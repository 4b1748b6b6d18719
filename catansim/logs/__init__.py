"""Game logs: the JSON Lines format, the reference rules checker and the narrative.

What lives here:

- ``format``: the log format (``docs/game-log.md``): the header, engine event rows
  as JSON objects, the log of a played game (``game_log``), reading and writing files;
- ``checker``: an independent, plainly correct rules checker in pure Python that
  replays any log event by event (a test oracle for the engine);
- ``narrative``: the game told turn by turn, and the final standings, from the
  states the checker rebuilds;
- ``record``: each seat's public record of every hand, replayed from the events;
- ``position``: the state after one event of a log, as the checker replays it (what
  ``Game.from_log`` loads).

May import: ``constants``, ``topology``, ``checks``, ``errors``, ``files`` (atomic
writes), ``rules`` (the header's rule keys), ``board`` (headers) and ``core.layout``
(event codes, for ``format`` only) and ``display`` (a replayed log's notebook view,
registered from above). Never the viewer.
The checker never imports the engine or the compiled kernels: it knows the game
only from the log.
"""

from .checker import LogError, ReplayResult, replay
from .format import (
    event_row_to_dict,
    event_rows_to_dicts,
    game_log,
    make_header,
    read_log,
    write_log,
)
from .narrative import narrative, outcome_line, standings

__all__ = [
    "LogError", "ReplayResult", "event_row_to_dict", "event_rows_to_dicts", "game_log",
    "make_header",
    "narrative", "outcome_line", "read_log", "replay", "standings", "write_log",
]
