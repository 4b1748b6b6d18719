"""User boards: JSON, TOML or compact text (format in ``docs/boards.md``).

``parse_board`` reads a file or a string into a validated ``Board``; every mistake
raises a one-line ``CatansimError`` naming the field and what is allowed.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from ..checks import parse_toml, read_text
from ..constants import HARBOR_KIND_NAMES, N_HARBORS, N_HEXES, TERRAIN_NAMES
from ..errors import CatansimError, parse_problem
from .beginner import beginner_board
from .value import ALLOWED_HARBORS, ALLOWED_NUMBERS, HARBOR_CODES, Board, validate_board

# One-letter terrain codes of the beginner map notation (G = grain fields).
TERRAIN_LETTERS = {"F": "forest", "H": "hills", "P": "pasture", "G": "fields", "M": "mountains",
                   "D": "desert"}
_TERRAIN_CODE = {name: i for i, name in enumerate(TERRAIN_NAMES)}
_TERRAIN_CODE.update({k.lower(): _TERRAIN_CODE[v] for k, v in TERRAIN_LETTERS.items()})
_ALLOWED_TERRAINS = "forest (F), hills (H), pasture (P), fields (G), mountains (M), desert (D)"
_NO_NUMBER = (None, 0, "-", "")


def _fail(msg: str) -> None:
    raise CatansimError(msg)


def _parse_terrain(tok, where: str) -> int:
    key = str(tok).strip().lower()
    if key not in _TERRAIN_CODE:
        _fail(f"{where}: unknown terrain {tok!r}; allowed: {_ALLOWED_TERRAINS}")
    return _TERRAIN_CODE[key]


def _parse_number(tok, where: str) -> int:
    if tok in _NO_NUMBER:
        return 0
    if isinstance(tok, bool | float) or not re.fullmatch(r"\d+", str(tok).strip()):
        _fail(f"{where}: {tok!r} is not a number disc; allowed: {ALLOWED_NUMBERS}")
    n = int(str(tok).strip())
    if n != 0 and not (2 <= n <= 12 and n != 7):
        _fail(f"{where}: {n} is not a number disc; allowed: {ALLOWED_NUMBERS}")
    return n


def _parse_harbor(tok, where: str) -> int:
    key = str(tok).strip().lower()
    if key not in HARBOR_CODES:
        _fail(f"{where}: unknown harbor kind {tok!r}; allowed: {ALLOWED_HARBORS}")
    return HARBOR_CODES[key]


def _board_from_lists(terrains, numbers, harbors, where: str) -> Board:
    if not isinstance(terrains, list) or len(terrains) != N_HEXES:
        n = len(terrains) if isinstance(terrains, list) else type(terrains).__name__
        _fail(f"{where}.terrains: expected a list of {N_HEXES} hexes, got {n}; allowed: "
              f"{N_HEXES} terrain names or letters ({_ALLOWED_TERRAINS})")
    if not isinstance(numbers, list) or len(numbers) != N_HEXES:
        n = len(numbers) if isinstance(numbers, list) else type(numbers).__name__
        _fail(f"{where}.numbers: expected a list of {N_HEXES} numbers (one per hex), got {n}; "
              "allowed: 2-6, 8-12, and null for the desert")
    terrain = [_parse_terrain(t, f"{where}.terrains[{i}]") for i, t in enumerate(terrains)]
    number = [_parse_number(n, f"{where}.numbers[{i}]") for i, n in enumerate(numbers)]
    if harbors is None:
        harbor = beginner_board().harbor
    else:
        if not isinstance(harbors, list) or len(harbors) != N_HARBORS:
            n = len(harbors) if isinstance(harbors, list) else type(harbors).__name__
            _fail(f"{where}.harbors: expected a list of {N_HARBORS} harbor kinds, got {n}; "
                  f"allowed: {ALLOWED_HARBORS}")
        harbor = [_parse_harbor(k, f"{where}.harbors[{i}]") for i, k in enumerate(harbors)]
    validate_board(terrain, number, harbor, where=where)
    return Board(terrain, number, harbor, layout="user")


_TOKEN = re.compile(r"([A-Za-z]+)(-|\d+)?")


def _parse_compact(text: str, where: str) -> Board:
    hex_part, _, harbor_part = text.partition("|")
    terrains, numbers = [], []
    for i, tok in enumerate(hex_part.replace("/", " ").split()):
        m = _TOKEN.fullmatch(tok)
        if m is None:
            _fail(f"{where}.terrains[{i}]: cannot read {tok!r}; allowed: a terrain letter and "
                  f"a number such as M10 (D for the desert), letters {_ALLOWED_TERRAINS}")
        terrains.append(m.group(1))
        numbers.append(m.group(2))
    harbors = harbor_part.split() if harbor_part.strip() else None
    return _board_from_lists(terrains, numbers, harbors, where)


def _is_file(text: str) -> bool:
    if "\n" in text or text.lstrip().startswith("{"):
        return False
    try:
        return Path(text).is_file()
    except OSError:  # e.g. a board string too long to be a file name
        return False


_BOARD_ALLOWED = "a board file (JSON, TOML or compact text; docs/boards.md)"


def parse_board(source) -> Board:
    """Read a user board from a file or a string.

    Accepted forms (``docs/boards.md``):

    - a JSON or TOML object (file ending ``.json``/``.toml``, or a string starting
      with ``{``) with ``terrains`` (19 names or letters), ``numbers`` (19; null,
      0 or ``"-"`` for the desert) and optional ``harbors`` (9 kinds: ``any`` or
      ``3:1``, ``wood``, ``brick``, ``wool``, ``wheat``, ``ore``), all in hex /
      harbor-slot index order;
    - a compact string (or text file) of 19 tokens, letter + number, rows
      optionally separated by ``/``, e.g. ``"M10 P2 F9 / G12 H6 P4 H10 / ..."``
      with ``D`` for the desert, optionally followed by ``|`` and 9 harbor kinds.

    Without harbors the beginner map's harbors are used.

    Raises
    ------
    CatansimError
        One line naming the field and the allowed values, for each kind of mistake.
    """
    where = "board"
    text = None
    if isinstance(source, Path) or (isinstance(source, str) and _is_file(source)):
        path = Path(source)
        text = read_text(path, "board file", _BOARD_ALLOWED)
        where = path.name
        if path.suffix.lower() == ".toml":
            return _board_from_obj(parse_toml(text, where, _BOARD_ALLOWED), where)
    elif isinstance(source, str):
        text = source
    else:
        _fail(f"board: expected a file path or a board string, got {type(source).__name__}; "
              f"allowed: {_BOARD_ALLOWED}")
    if text.lstrip().startswith("{"):
        try:
            obj = json.loads(text)
        except (ValueError, RecursionError) as exc:  # the digit limit, nested too deep
            raise CatansimError(f"{where}: invalid JSON ({parse_problem(exc)}); allowed: "
                                f"{_BOARD_ALLOWED}") from None
        return _board_from_obj(obj, where)
    lines = [ln.split("#", 1)[0] for ln in text.splitlines()]
    return _parse_compact(" ".join(lines), where)


def _board_from_obj(obj, where: str) -> Board:
    if not isinstance(obj, dict) or "terrains" not in obj or "numbers" not in obj:
        _fail(f"{where}: expected an object with keys terrains, numbers and optional harbors; "
              f"allowed: {_BOARD_ALLOWED}")
    unknown = set(obj) - {"terrains", "numbers", "harbors"}
    if unknown:
        _fail(f"{where}: unknown key {sorted(unknown)[0]!r}; allowed: terrains, numbers, harbors")
    return _board_from_lists(obj["terrains"], obj["numbers"], obj.get("harbors"), where)


_ROWS = (3, 4, 5, 4, 3)  # hexes per row, top to bottom (our hex order)


def compact_text(board: Board) -> str:
    """The board as compact text, which ``parse_board`` reads back to the same board.

    Rows of 3, 4, 5, 4 and 3 hexes separated by ``/`` (a terrain letter and the number,
    ``D`` for the desert), then ``|`` and the 9 harbor kinds, e.g.
    ``"M10 P2 F9 / G12 H6 P4 H10 / ... | any wool any any brick wood any wheat ore"``.
    """
    letter = {name: k for k, name in TERRAIN_LETTERS.items()}
    tokens = [letter[TERRAIN_NAMES[t]] + (str(int(n)) if n else "")
              for t, n in zip(board.terrain, board.number, strict=True)]
    rows, start = [], 0
    for size in _ROWS:
        rows.append(" ".join(tokens[start:start + size]))
        start += size
    return " / ".join(rows) + " | " + " ".join(HARBOR_KIND_NAMES[h] for h in board.harbor)
