"""The "Starting Set-up for Beginners": its fixed map and every seat's starting pieces.

The map and the pieces are data (``catansim/data/beginner-board.json``): hexes by
axial coordinates, settlements by the three hexes that meet there, roads by the
two hexes they separate, as the rule book describes them.
"""

from __future__ import annotations

import json
from importlib import resources

import numpy as np

from .. import topology as T
from ..constants import (
    MAX_PLAYERS,
    N_EDGES,
    N_HARBORS,
    N_HEXES,
    N_NODES,
    TERRAIN_NAMES,
    seat_colours,
)
from ..core.layout import OPENING_WIDTH
from ..errors import CatansimError
from .value import HARBOR_CODES, Board


def _beginner_data() -> dict:
    text = resources.files("catansim").joinpath("data/beginner-board.json").read_text()
    return json.loads(text)


def beginner_board() -> Board:
    """The fixed "Starting Set-up for Beginners" map (``catansim/data/beginner-board.json``)."""
    data = _beginner_data()
    terrain = np.zeros(N_HEXES, dtype=np.int32)
    number = np.zeros(N_HEXES, dtype=np.int32)
    for hx in data["hexes"]:
        h = T.hex_index(hx["q"], hx["r"])
        terrain[h] = TERRAIN_NAMES.index(hx["terrain"])
        number[h] = hx["number"] or 0
    harbor = np.zeros(N_HARBORS, dtype=np.int32)
    slot_of = {(tuple(land), tuple(sea)): s for s, (land, sea) in enumerate(T.HARBOR_SLOT_HEXES)}
    for hb in data["harbors"]:
        harbor[slot_of[(tuple(hb["land"]), tuple(hb["sea"]))]] = HARBOR_CODES[hb["kind"]]
    return Board(terrain, number, harbor, layout="beginner")


def beginner_openings(n_players: int = 4) -> np.ndarray:
    """Forced openings of the beginner set-up, int32[16]: (node1, edge1, node2, edge2) per seat.

    Seats are red, blue, white, orange (``SEAT_COLOURS_4``); with 3 players red is
    left out and the seats are blue, white, orange. ``node2`` is the settlement
    with the white star, placed second, so the engine pays its starting
    resources from it. Unused seats are -1.
    """
    if n_players not in (3, 4):
        raise CatansimError(f"n_players: expected 3 or 4, got {n_players!r}")
    colours = seat_colours(n_players)
    start = _beginner_data()["start"]
    out = np.full(MAX_PLAYERS * OPENING_WIDTH, -1, dtype=np.int32)
    for seat, colour in enumerate(colours):
        st = start[colour]
        star = st["star_settlement_index"]
        order = [1 - star, star]  # the starred settlement goes second
        row = []
        for i in order:
            row.append(T.node_of_hexes(st["settlements"][i]))
            row.append(T.edge_between_hexes(*st["roads"][i]))
        out[OPENING_WIDTH * seat : OPENING_WIDTH * (seat + 1)] = row
    return out


def pieces_from_openings(openings) -> dict:
    """Board pieces (``node_owner``, ``node_level``, ``edge_owner``) after forced openings."""
    openings = np.asarray(openings).reshape(-1, OPENING_WIDTH)
    pieces = {"node_owner": np.full(N_NODES, -1, np.int32),
              "node_level": np.zeros(N_NODES, np.int32),
              "edge_owner": np.full(N_EDGES, -1, np.int32)}
    for seat, (n1, e1, n2, e2) in enumerate(openings.tolist()):
        for n in (n1, n2):
            if n >= 0:
                pieces["node_owner"][n] = seat
                pieces["node_level"][n] = 1
        for e in (e1, e2):
            if e >= 0:
                pieces["edge_owner"][e] = seat
    return pieces


