"""Game logs: the public JSON Lines format of ``docs/game-log.md`` (version 1).

The engine writes events as ``int32`` rows (``core.layout``, ``EV_*``); this module
turns them into the spec's JSON objects, builds the header (``game_log``: the log of a
played game), and reads and writes log files. Writing is atomic: a log at ``path`` is
always complete.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from ..checks import check_players, check_seed, is_int, read_text, type_name
from ..constants import DEV_CARD_NAMES, RESOURCE_NAMES
from ..core import layout as L
from ..errors import CatansimError, parse_problem
from ..files import atomic_path
from ..rules import Rules

LOG_FORMAT = "catansim-log"
LOG_VERSION = 1
# The header's rules object has exactly the rule settings of ``catansim.rules.Rules``.
RULE_KEYS = tuple(Rules.names())
# Rule keys that came after the format's first version; a reader takes a missing one
# as the official rule (first_pick 0; first_turn the first pick).
LATER_RULE_KEYS = ("first_pick", "first_turn")
# Event names of the format, in the order of the engine's event codes (``core.layout``).
EVENT_NAMES = tuple(L.EVENT_NAMES.values())
_LOG_ALLOWED = "a catansim game log (JSON Lines, docs/game-log.md)"
# A seat's name in a header, as a page or a terminal shows it: text (a page escapes it),
# never a control character that moves a terminal's cursor or sets its title.
NAME_MAX = 200
NAME_ALLOWED = f"a name of 1..{NAME_MAX} printable characters"


def make_header(seed, n_players, strategies, rules, board) -> dict:
    """Build the header object (line 1 of a log).

    Parameters
    ----------
    seed : int
        The game's seed.
    n_players : int
        Number of seats (3 or 4).
    strategies : sequence of str
        Strategy name of each seat.
    rules : catansim.rules.Rules
        Rule settings; every key is written, ``null`` for unlimited / none. With a
        switch, ``switch_turn`` and ``rules_after`` (an object with the same keys)
        follow ``rules``.
    board : catansim.board.Board
        The board; written as ``board.to_header()``.

    Returns
    -------
    dict
        Keys in the spec's order: ``e, format, version, seed, n_players,
        strategies, rules, [switch_turn, rules_after,] board``.
    """
    rules_obj = rules.to_header()
    header = {
        "e": "header",
        "format": LOG_FORMAT,
        "version": LOG_VERSION,
        "seed": int(seed),
        "n_players": int(n_players),
        "strategies": [str(s) for s in strategies],
        "rules": {key: rules_obj[key] for key in RULE_KEYS},
    }
    if rules.switch_turn is not None:
        header["switch_turn"] = int(rules.switch_turn)
        header["rules_after"] = {key: rules_obj["rules_after"][key] for key in RULE_KEYS}
    header["board"] = board.to_header()
    return header


def game_log(game) -> tuple[dict, list[dict]]:
    """The log (header, events) of a game played with its events (a
    ``settings.GameResult`` of ``play_game(log=True)``).

    Raises
    ------
    catansim.errors.CatansimError
        The game was played without its events.
    """
    if game.events is None:
        raise CatansimError("game: played without its events; allowed: a game of "
                            "play_game(..., log=True)")
    header = make_header(game.seed, game.n_players, game.strategies, game.rules, game.board)
    return header, event_rows_to_dicts(game.events, game.n_players)


def _opt(v: int):
    # -1 is the engine's "none".
    return None if v < 0 else int(v)


def _bundle(row, start: int) -> list[int]:
    return [int(x) for x in row[start : start + 5]]


def _resource(v: int):
    return None if v < 0 else RESOURCE_NAMES[v]


def event_row_to_dict(row, n_players: int) -> dict:
    """Convert one engine event row (``int32[LOG_WIDTH]``) to the spec's JSON object."""
    code = int(row[L.LOG_CODE])
    p = int(row[L.LOG_SEAT])
    a, b, c = int(row[L.LOG_A]), int(row[L.LOG_B]), int(row[L.LOG_C])
    n = int(n_players)
    if code == L.EV_SETUP_SETTLEMENT:
        return {"e": "setup_settlement", "p": p, "node": a}
    if code == L.EV_SETUP_ROAD:
        return {"e": "setup_road", "p": p, "edge": a}
    if code == L.EV_STARTING_RESOURCES:
        return {"e": "starting_resources", "p": p, "cards": _bundle(row, L.LOG_CARDS)}
    if code == L.EV_TURN_START:
        return {"e": "turn_start", "p": p, "turn": a}
    if code == L.EV_ROLL:
        return {"e": "roll", "p": p, "dice": [a, b]}
    if code == L.EV_PRODUCTION:
        return {
            "e": "production",
            "gains": [_bundle(row, L.LOG_GAINS + 5 * i) for i in range(n)],
            "withheld": _bundle(row, L.LOG_WITHHELD),
        }
    if code == L.EV_DISCARD:
        return {"e": "discard", "p": p, "cards": _bundle(row, L.LOG_CARDS)}
    if code == L.EV_ROBBER:
        return {"e": "robber", "p": p, "hex": a, "victim": _opt(b), "stolen": _resource(c)}
    if code == L.EV_TRADE_BANK:
        return {"e": "trade_bank", "p": p, "give": _bundle(row, L.LOG_CARDS),
                "get": _bundle(row, L.LOG_BANK_GET)}
    if code == L.EV_TRADE_PLAYER:
        return {
            "e": "trade_player",
            "p": p,
            "partner": a,
            "give": _bundle(row, L.LOG_GIVE),
            "get": _bundle(row, L.LOG_GET),
        }
    if code == L.EV_BUILD_ROAD:
        return {"e": "build_road", "p": p, "edge": a, "free": bool(b)}
    if code == L.EV_BUILD_SETTLEMENT:
        return {"e": "build_settlement", "p": p, "node": a}
    if code == L.EV_BUILD_CITY:
        return {"e": "build_city", "p": p, "node": a}
    if code == L.EV_BUY_DEV:
        return {"e": "buy_dev", "p": p, "card": DEV_CARD_NAMES[a]}
    if code == L.EV_PLAY_DEV:
        out = {"e": "play_dev", "p": p, "card": DEV_CARD_NAMES[a]}
        if DEV_CARD_NAMES[a] == "invention":
            out["cards"] = _bundle(row, L.LOG_INVENTION)
        elif DEV_CARD_NAMES[a] == "monopoly":
            out["resource"] = RESOURCE_NAMES[b]
            out["taken"] = [int(row[L.LOG_TAKEN + i]) for i in range(n)]
        return out
    if code == L.EV_LONGEST_ROUTE:
        return {"e": "longest_route", "p": _opt(p), "length": a}
    if code == L.EV_LARGEST_ARMY:
        return {"e": "largest_army", "p": _opt(p), "knights": a}
    if code == L.EV_TURN_END:
        return {"e": "turn_end", "p": p}
    if code == L.EV_GAME_END:
        return {
            "e": "game_end",
            "winner": _opt(a),
            "turn": b,
            "vp": [int(row[L.LOG_FINAL_VP + i]) for i in range(n)],
            "reason": {L.END_WIN: "win", L.END_TURN_LIMIT: "turn_limit"}[c],
        }
    raise CatansimError(f"event row: unknown event code {code}")


def event_rows_to_dicts(rows: np.ndarray, n_players: int) -> list[dict]:
    """Convert the engine's event rows to the spec's JSON objects.

    Parameters
    ----------
    rows : numpy.ndarray
        ``int32`` array of shape ``(n_events, LOG_WIDTH)`` (``core.layout``).
    n_players : int
        Number of seats; sets the length of ``gains``, ``taken`` and ``vp``.

    Returns
    -------
    list of dict
        One object per row, keys in the spec's order (``e`` first, then ``p``).
    """
    rows = np.asarray(rows)
    if rows.ndim != 2 or rows.shape[1] < L.LOG_WIDTH:
        raise CatansimError(f"event rows: expected shape (n, {L.LOG_WIDTH}), got {rows.shape}")
    return [event_row_to_dict(row, n_players) for row in rows]


def write_log(path, header: dict, events) -> None:
    """Write a log as JSON Lines, atomically.

    The lines go to a temporary file in the same folder, which then replaces ``path``
    (``catansim.files.atomic_path``), so a half-written log never exists at ``path``.

    Parameters
    ----------
    path : str or os.PathLike
        Target file.
    header : dict
        The header object (``make_header``).
    events : iterable of dict
        The events (``event_rows_to_dicts``).
    """
    with atomic_path(Path(path)) as tmp, open(tmp, "w", encoding="utf-8") as f:
        f.write(json.dumps(header, separators=(", ", ": ")) + "\n")
        for ev in events:
            f.write(json.dumps(ev, separators=(", ", ": ")) + "\n")


def read_log(path) -> tuple[dict, list[dict]]:
    """Read a log written in the spec's format.

    Parameters
    ----------
    path : str or os.PathLike
        A JSON Lines game log.

    Returns
    -------
    header : dict
    events : list of dict

    Raises
    ------
    CatansimError
        One line naming the file, the line number and the problem: unreadable
        file, a line that is not a JSON object with an ``"e"`` key, a missing
        header, or an unknown format or version.
    """
    path = Path(path)
    text = read_text(path, "game log", _LOG_ALLOWED)
    objs = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except (ValueError, RecursionError) as exc:  # the digit limit, nested too deep
            raise CatansimError(f"{path}:{lineno}: not JSON ({parse_problem(exc)}); allowed: "
                                f"{_LOG_ALLOWED}") from None
        if not isinstance(obj, dict) or not isinstance(obj.get("e"), str):
            raise CatansimError(f"{path}:{lineno}: not an event object with an \"e\" key; "
                                f"allowed: {_LOG_ALLOWED}")
        objs.append((lineno, obj))
    if not objs:
        raise CatansimError(f"{path}: empty game log (no header); allowed: {_LOG_ALLOWED}")
    lineno, header = objs[0]
    if header["e"] != "header":
        raise CatansimError(
            f"{path}:{lineno}: missing header (first line is a {header['e']!r} event); "
            f"allowed: {_LOG_ALLOWED}"
        )
    if header.get("format") != LOG_FORMAT:
        raise CatansimError(f"{path}:{lineno}: header.format: {header.get('format')!r} is "
                            f"not allowed; allowed: {LOG_FORMAT!r}")
    if header.get("version") != LOG_VERSION:
        raise CatansimError(f"{path}:{lineno}: header.version: {header.get('version')!r} is "
                            f"not a version this reader knows; allowed: {LOG_VERSION}")
    try:
        check_header(header)
    except CatansimError as exc:
        raise CatansimError(f"{path}:{lineno}: {exc}") from None
    for lineno, obj in objs[1:]:
        if obj["e"] == "header":
            raise CatansimError(f"{path}:{lineno}: a second header; allowed: one header, on "
                                "the first line")
    return header, [obj for _, obj in objs[1:]]


def check_name(name, field: str) -> str:
    """A seat's name in a header: 1..NAME_MAX printable characters (``str.isprintable``: no
    control, format or separator character but the space); one line naming it escaped."""
    if not isinstance(name, str):
        raise CatansimError(f"{field}: expected a string, got {type_name(name)}; allowed: "
                            f"{NAME_ALLOWED}")
    if not 1 <= len(name) <= NAME_MAX:
        raise CatansimError(f"{field}: {len(name)} characters; allowed: {NAME_ALLOWED}")
    bad = next((c for c in name if not c.isprintable()), None)
    if bad is not None:
        raise CatansimError(f"{field}: {name!r} holds the unprintable character {bad!r}; "
                            f"allowed: {NAME_ALLOWED}")
    return name


def check_header(header: dict) -> None:
    """Check a header's fields (seed, seats, strategies, rules, board); one-line errors."""
    check_seed(header.get("seed"), "header.seed")
    n = check_players(header.get("n_players"), "header.n_players")
    strategies = header.get("strategies")
    if not isinstance(strategies, list) or len(strategies) != n:
        raise CatansimError(f"header.strategies: {strategies!r} is not allowed; allowed: "
                            f"{n} strategy names, one per seat")
    for q, name in enumerate(strategies):
        check_name(name, f"header.strategies[{q}]")
    rules = header.get("rules")
    required = set(RULE_KEYS) - set(LATER_RULE_KEYS)
    if not isinstance(rules, dict) or not required <= set(rules) <= set(RULE_KEYS):
        have = sorted(rules) if isinstance(rules, dict) else type_name(rules)
        raise CatansimError(f"header.rules: {have} is not allowed; allowed: an object with "
                            f"the keys {', '.join(RULE_KEYS)} ({' and '.join(LATER_RULE_KEYS)} "
                            "may be left out)")
    switch = header.get("switch_turn")
    if switch is not None or "rules_after" in header:
        after = header.get("rules_after")
        if not is_int(switch) or switch < 1:
            raise CatansimError(f"header.switch_turn: {switch!r} is not allowed; allowed: a "
                                "turn >= 1, given with rules_after")
        if not isinstance(after, dict) or not set(RULE_KEYS) == set(after):
            have = sorted(after) if isinstance(after, dict) else type_name(after)
            raise CatansimError(f"header.rules_after: {have} is not allowed; allowed: an "
                                f"object with the keys {', '.join(RULE_KEYS)}")
    if not isinstance(header.get("board"), dict):
        raise CatansimError(f"header.board: {type_name(header.get('board'))} is not allowed; "
                            "allowed: a board object (docs/game-log.md)")
