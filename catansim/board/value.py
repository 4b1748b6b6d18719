"""The ``Board`` value: terrains, number discs and harbors over our numbering.

A board is three small arrays over our numbering (``catansim.topology``):
``terrain[19]`` (``constants.Terrain`` codes), ``number[19]`` (0 for the desert)
and ``harbor[9]`` (kind per harbor slot: 0-4 a 2:1 harbor of that resource, 5 a
generic 3:1). The engine takes it as one int32 vector (``Board.vector``, layout
``B_*`` in ``catansim.core.layout``). ``validate_board`` checks a board's
composition, ``board_ids`` gives stable ids of board vectors, and a board reads and
writes the game-log header's ``board`` object.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass

import numpy as np

from .. import topology as T
from ..constants import (
    HARBOR_ANY,
    HARBOR_KIND_NAMES,
    HARBOR_KINDS_STANDARD,
    N_EDGES,
    N_HARBORS,
    N_HEXES,
    N_NODES,
    NUMBER_DISCS_AR,
    TERRAIN_COUNTS,
    TERRAIN_NAMES,
    Terrain,
)
from ..core.layout import B_HARBOR, B_NUMBER, B_TERRAIN, BOARD_SIZE
from ..errors import CatansimError

# Harbor kind names (and "3:1") -> harbor kind code.
HARBOR_CODES = {name: i for i, name in enumerate(HARBOR_KIND_NAMES)}
HARBOR_CODES["3:1"] = HARBOR_ANY
_NUMBER_DISCS = Counter(NUMBER_DISCS_AR)
ALLOWED_HARBORS = "any (3:1), wood, brick, wool, wheat, ore"
ALLOWED_NUMBERS = "2-6 or 8-12 (none for the desert)"


def _fail(msg: str) -> None:
    raise CatansimError(msg)


def _terrain_counts_text(counts) -> str:
    return ", ".join(f"{c} {TERRAIN_NAMES[t]}" for t, c in enumerate(counts))


def validate_board(terrain, number, harbor, where: str = "board") -> None:
    """Check a board's composition; raise a one-line ``CatansimError`` naming the field.

    Parameters
    ----------
    terrain, number : array-like of int, length 19
        Terrain codes and number discs (0 = no number) in hex index order.
    harbor : array-like of int, length 9
        Harbor kind per slot.
    where : str
        Prefix for the field names in messages (e.g. the file name).
    """
    terrain = np.asarray(terrain)
    number = np.asarray(number)
    harbor = np.asarray(harbor)
    if terrain.shape != (N_HEXES,):
        _fail(f"{where}.terrains: expected {N_HEXES} hexes, got {terrain.size}; allowed: "
              f"{N_HEXES} terrains, one per hex")
    if number.shape != (N_HEXES,):
        _fail(f"{where}.numbers: expected {N_HEXES} numbers (one per hex), got {number.size}; "
              f"allowed: {N_HEXES} numbers, 0 for the desert")
    for h, t in enumerate(terrain.tolist()):
        if not 0 <= t < len(TERRAIN_NAMES):
            _fail(f"{where}.terrains[{h}]: unknown terrain code {t}; allowed: 0-5 "
                  f"({', '.join(TERRAIN_NAMES)})")
    counts = np.bincount(terrain, minlength=len(TERRAIN_NAMES))
    if tuple(counts.tolist()) != TERRAIN_COUNTS:
        _fail(f"{where}.terrains: got {_terrain_counts_text(counts)}; allowed: "
              f"{_terrain_counts_text(TERRAIN_COUNTS)}")
    for h, (t, n) in enumerate(zip(terrain.tolist(), number.tolist(), strict=True)):
        if n != 0 and not (2 <= n <= 12 and n != 7):
            _fail(f"{where}.numbers[{h}]: {n} is not a number disc; allowed: {ALLOWED_NUMBERS}")
        if t == Terrain.desert and n != 0:
            _fail(f"{where}.numbers[{h}]: hex {h} is the desert and takes no number, got {n}; "
                  "allowed: none (null, 0 or '-')")
        if t != Terrain.desert and n == 0:
            _fail(f"{where}.numbers[{h}]: hex {h} is {TERRAIN_NAMES[t]} and needs a number, "
                  "got none; allowed: 2-6 or 8-12")
    got = Counter(number[number != 0].tolist())
    if got != _NUMBER_DISCS:
        extra = sorted((got - _NUMBER_DISCS).elements())
        missing = sorted((_NUMBER_DISCS - got).elements())
        _fail(f"{where}.numbers: extra {extra}, missing {missing}; allowed: the 18 standard "
              "discs (2 and 12 once, 3-6 and 8-11 twice)")
    if harbor.shape != (N_HARBORS,):
        _fail(f"{where}.harbors: expected {N_HARBORS} harbors (one per slot), got "
              f"{harbor.size}; allowed: {N_HARBORS} harbor kinds")
    for s, k in enumerate(harbor.tolist()):
        if not 0 <= k <= HARBOR_ANY:
            _fail(f"{where}.harbors[{s}]: unknown harbor kind code {k}; allowed: 0-5 "
                  f"({ALLOWED_HARBORS})")
    if sorted(harbor.tolist()) != sorted(HARBOR_KINDS_STANDARD):
        got_h = Counter(HARBOR_KIND_NAMES[k] for k in harbor.tolist())
        _fail(f"{where}.harbors: got {dict(sorted(got_h.items()))}; allowed: one 2:1 harbor "
              "per resource and 4 'any' (3:1)")


@dataclass(frozen=True, eq=False)
class Board:
    """One board: terrains, number discs and harbor kinds in our numbering.

    Two boards are equal when they lay out the same board (same ``vector``);
    ``layout`` and ``seed`` only record where it came from.

    Attributes
    ----------
    terrain : int32[19]
        Terrain code per hex (``constants.Terrain``).
    number : int32[19]
        Number disc per hex, 0 for the desert.
    harbor : int32[9]
        Harbor kind per slot (``topology.HARBOR_SLOT_HEXES`` order): 0-4 a 2:1
        harbor of that resource, 5 a generic 3:1 harbor.
    layout : str
        ``beginner``, ``variable``, ``random_numbers``, ``user`` or ``header``.
    seed : int or None
        The game seed the board was drawn from (seeded layouts only).
    """

    terrain: np.ndarray
    number: np.ndarray
    harbor: np.ndarray
    layout: str = "user"
    seed: int | None = None

    def __post_init__(self):
        for name in ("terrain", "number", "harbor"):
            arr = np.array(getattr(self, name), dtype=np.int32)
            arr.setflags(write=False)
            object.__setattr__(self, name, arr)
        validate_board(self.terrain, self.number, self.harbor)

    def __eq__(self, other):
        if not isinstance(other, Board):
            return NotImplemented
        return bool(np.array_equal(self.vector, other.vector))

    def __hash__(self):
        return hash(self.board_id)

    def __repr__(self):
        return (f"Board(layout={self.layout!r}, seed={self.seed}, "
                f"board_id={self.board_id}, robber_hex={self.robber_hex})")

    @property
    def vector(self) -> np.ndarray:
        """The int32[47] board vector the engine takes (``B_*`` layout)."""
        v = np.empty(BOARD_SIZE, dtype=np.int32)
        v[B_TERRAIN : B_TERRAIN + N_HEXES] = self.terrain
        v[B_NUMBER : B_NUMBER + N_HEXES] = self.number
        v[B_HARBOR : B_HARBOR + N_HARBORS] = self.harbor
        return v

    @property
    def robber_hex(self) -> int:
        """Index of the desert, where the robber starts."""
        return int(np.flatnonzero(self.terrain == Terrain.desert)[0])

    @property
    def board_id(self) -> int:
        """A stable 63-bit id of the board (same on every machine); see ``board_ids``."""
        return int(board_ids(self.vector[None, :])[0])

    @property
    def node_harbor(self) -> np.ndarray:
        """int32[54]: harbor kind usable from each node, -1 none."""
        out = np.full(N_NODES, -1, dtype=np.int32)
        for s, kind in enumerate(self.harbor):
            out[T.HARBOR_NODES[s]] = kind
        return out

    @classmethod
    def from_vector(cls, vec, layout: str = "user", seed: int | None = None) -> Board:
        """Build a board from an int[47] board vector (validated)."""
        vec = np.asarray(vec)
        if vec.shape != (BOARD_SIZE,):
            _fail(f"board vector: expected {BOARD_SIZE} integers, got shape {vec.shape}")
        return cls(vec[B_TERRAIN : B_TERRAIN + N_HEXES], vec[B_NUMBER : B_NUMBER + N_HEXES],
                   vec[B_HARBOR : B_HARBOR + N_HARBORS], layout=layout, seed=seed)

    def to_header(self) -> dict:
        """The game-log header ``board`` object (``docs/game-log.md``).

        Hexes, nodes and edges use our numbering; every value is a plain Python
        type, ready for ``json.dumps``.
        """
        hexes = [
            {"q": int(q), "r": int(r), "terrain": TERRAIN_NAMES[t],
             "number": int(n) if n else None}
            for (q, r), t, n in zip(T.HEX_COORDS, self.terrain, self.number, strict=True)
        ]
        return {
            "hexes": hexes,
            "nodes": T.NODE_HEX_COORDS.tolist(),
            "edges": T.EDGE_NODES.tolist(),
            "harbors": [{"edge": int(e), "kind": HARBOR_KIND_NAMES[k]}
                        for e, k in zip(T.HARBOR_EDGES, self.harbor, strict=True)],
            "robber": self.robber_hex,
        }

    @classmethod
    def from_header(cls, board_obj: dict) -> Board:
        """Read a header ``board`` object written by any program.

        Hexes are matched by their axial ``(q, r)``; harbors by geometry: the
        header's edge index gives its two nodes, and the header's own node
        coordinates give our node and edge numbers. The result is validated.

        Raises
        ------
        CatansimError
            One line naming the offending field.
        """
        try:
            return cls._from_header(board_obj)
        except CatansimError:
            raise
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise CatansimError(f"header.board: malformed board object "
                                f"({type(exc).__name__}: {exc})") from None

    @classmethod
    def _from_header(cls, board_obj: dict) -> Board:
        try:
            hexes, nodes, edges = board_obj["hexes"], board_obj["nodes"], board_obj["edges"]
            harbors, robber = board_obj["harbors"], board_obj["robber"]
        except (KeyError, TypeError) as exc:
            raise CatansimError(f"header.board: missing key {exc}; required: hexes, nodes, "
                                "edges, harbors, robber") from None
        if len(hexes) != N_HEXES:
            _fail(f"header.board.hexes: expected {N_HEXES} land hexes, got {len(hexes)}")
        terrain = np.full(N_HEXES, -1, dtype=np.int32)
        number = np.zeros(N_HEXES, dtype=np.int32)
        theirs_to_ours = []
        for i, hx in enumerate(hexes):
            h = T.hex_index(int(hx["q"]), int(hx["r"]))
            if h < 0 or terrain[h] >= 0:
                _fail(f"header.board.hexes[{i}]: ({hx['q']}, {hx['r']}) is not a distinct "
                      "land hex; allowed: axial (q, r) with max(|q|, |r|, |q+r|) <= 2")
            if hx["terrain"] not in TERRAIN_NAMES:
                _fail(f"header.board.hexes[{i}].terrain: unknown terrain {hx['terrain']!r}; "
                      f"allowed: {', '.join(TERRAIN_NAMES)}")
            terrain[h] = TERRAIN_NAMES.index(hx["terrain"])
            number[h] = 0 if hx["number"] is None else int(hx["number"])
            theirs_to_ours.append(h)
        if len(nodes) != N_NODES or len(edges) != N_EDGES:
            _fail(f"header.board: expected {N_NODES} nodes and {N_EDGES} edges, "
                  f"got {len(nodes)} and {len(edges)}")
        node_map = []
        for i, trio in enumerate(nodes):
            key = frozenset(tuple(int(c) for c in hx) for hx in trio)
            if key not in T.NODE_BY_HEXES:
                _fail(f"header.board.nodes[{i}]: {trio} is not three hexes meeting at a corner")
            node_map.append(T.NODE_BY_HEXES[key])
        harbor = np.full(N_HARBORS, -1, dtype=np.int32)
        if len(harbors) != N_HARBORS:
            _fail(f"header.board.harbors: expected {N_HARBORS} harbors, got {len(harbors)}")
        for i, hb in enumerate(harbors):
            a, b = edges[int(hb["edge"])]
            e = T.EDGE_BY_NODES.get(frozenset((node_map[a], node_map[b])), -1)
            slot = T.SLOT_BY_EDGE.get(e, -1)
            if slot < 0 or harbor[slot] >= 0:
                _fail(f"header.board.harbors[{i}]: edge {hb['edge']} is not a free harbor slot; "
                      "allowed: the 9 standard harbor positions")
            if hb["kind"] not in HARBOR_CODES:
                _fail(f"header.board.harbors[{i}].kind: unknown harbor kind {hb['kind']!r}; "
                      f"allowed: {ALLOWED_HARBORS}")
            harbor[slot] = HARBOR_CODES[hb["kind"]]
        board = cls(terrain, number, harbor, layout="header")
        if not 0 <= int(robber) < N_HEXES or theirs_to_ours[int(robber)] != board.robber_hex:
            _fail(f"header.board.robber: hex {robber} is not the desert")
        return board


def board_ids(vectors) -> np.ndarray:
    """Stable 63-bit ids of board vectors (int[n, 47] -> int64[n]).

    The id is the first 8 bytes (little-endian, top bit cleared) of the BLAKE2b
    hash of the vector as little-endian int32, so it is identical on every machine.
    """
    v = np.asarray(vectors)
    if v.ndim != 2 or v.shape[1] != BOARD_SIZE or (v.size and v.dtype.kind not in "iu"):
        raise CatansimError(f"board vectors: got shape {v.shape} of {v.dtype}; allowed: "
                            f"integers of shape (n, {BOARD_SIZE}), one board vector a row")
    v = np.ascontiguousarray(v, dtype="<i4")
    blake2b = hashlib.blake2b
    digests = b"".join([blake2b(row, digest_size=8).digest() for row in v])
    return (np.frombuffer(digests, dtype="<u8") >> np.uint64(1)).astype(np.int64)
