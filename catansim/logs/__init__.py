"""Game logs: the JSON Lines format, the reference rules checker and the narrative.

What lives here:

- ``format``: the log format (``docs/game-log.md``): the header, engine event rows
  as JSON objects, reading and writing files;
- ``checker``: an independent, plainly correct rules checker in pure Python that
  replays any log event by event (a test oracle for the engine);
- ``narrative``: the game told turn by turn, and the final standings.

May import: ``constants``, ``topology``, ``errors``, ``board`` (headers) and
``core.layout`` (event codes, for ``format`` only). The checker never imports the
engine or the compiled core: it knows the game only from the log.
"""

from .checker import LogError, ReplayResult, narrative, replay, seat_names, standings
from .format import event_row_to_dict, event_rows_to_dicts, make_header, read_log, write_log

__all__ = [
    "LogError", "ReplayResult", "event_row_to_dict", "event_rows_to_dicts", "make_header",
    "narrative", "read_log", "replay", "seat_names", "standings", "write_log",
]
