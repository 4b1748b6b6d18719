"""Boards: the ``Board`` value, the layouts, the beginner set-up, user boards, board metrics.

What lives here:

- ``layouts``: ``Board`` (terrains, numbers, harbors in our numbering), the seeded
  layouts ``variable`` and ``random_numbers`` drawn by the compiled core,
  ``make_board``, stable ``board_ids``;
- ``beginner``: the "Starting Set-up for Beginners" map and its starting pieces;
- ``userboard``: reading a user's board (JSON, TOML, compact text), writing compact text;
- ``metrics``: board metrics as pandas tables and vectorised ``board_features``
  (imported on its own: ``catansim.board.metrics``, it needs pandas).

May import: ``constants``, ``topology``, ``checks``, ``errors`` and the compiled
core (``core.board_nb``, ``core.layout``). Never the engine, results or plotting.
"""

from .beginner import beginner_board, beginner_openings, pieces_from_openings
from .layouts import (
    HARBOR_CODES,
    LAYOUTS,
    SEEDED_LAYOUTS,
    Board,
    board_ids,
    generate_vectors,
    make_board,
    resource_of_terrain,
    validate_board,
)
from .userboard import TERRAIN_LETTERS, compact_text, parse_board

__all__ = [
    "HARBOR_CODES", "LAYOUTS", "SEEDED_LAYOUTS", "TERRAIN_LETTERS", "Board", "beginner_board",
    "beginner_openings", "board_ids", "compact_text", "generate_vectors", "make_board",
    "parse_board", "pieces_from_openings", "resource_of_terrain", "validate_board",
]
