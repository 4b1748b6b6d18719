"""Boards: the ``Board`` value, the layouts, the beginner set-up, user boards, board metrics.

What lives here:

- ``value``: ``Board`` (terrains, numbers, harbors in our numbering; its vector and
  game-log header), ``validate_board``, stable ``board_ids``;
- ``layouts``: the seeded layouts ``variable``, ``random_numbers`` and ``balanced``
  drawn by the compiled core, and ``make_board``;
- ``beginner``: the "Starting Set-up for Beginners" map and its starting pieces;
- ``userboard``: reading a user's board (JSON, TOML, compact text), writing compact text;
- ``metrics``: board metrics as pandas tables and vectorised ``board_features``
  (imported on its own: ``catansim.board.metrics``, it needs pandas);
- ``fairness``: the fairness index of a board (the seats' predicted win rates after a
  reference draft) and the published balance measures (imported on its own).

May import: ``constants``, ``topology``, ``checks``, ``errors`` and the compiled
core (``core.board_nb``, ``core.layout``). Never the engine, results or plotting.
"""

from .beginner import beginner_board, beginner_openings, pieces_from_openings
from .layouts import LAYOUTS, SEEDED_LAYOUTS, generate_vectors, make_board, resource_of_terrain
from .userboard import TERRAIN_LETTERS, compact_text, parse_board
from .value import HARBOR_CODES, Board, board_ids, validate_board

__all__ = [
    "HARBOR_CODES", "LAYOUTS", "SEEDED_LAYOUTS", "TERRAIN_LETTERS", "Board", "beginner_board",
    "beginner_openings", "board_ids", "compact_text", "generate_vectors", "make_board",
    "parse_board", "pieces_from_openings", "resource_of_terrain", "validate_board",
]
