"""A game review's tables as the page draws them: checked against the log, made JSON.

``review_view(timeline, moves, n_events, n_players)`` takes the two tables of a game
review (``catansim analyse``; their columns are ``catansim.results.review.TIMELINE``
and ``MOVES``), checks every value the page draws against the game's log (each event
one of the log's, each seat one of its seats, each chance a probability inside its
interval), and returns the page's data: each seat's chance of winning at each position
analysed, with its interval, and the moves flagged. A value the page could not draw
truthfully is a one-line ``CatansimError`` naming the table, the column, the row and
what is allowed.

The tables are pandas frames; ``viewer.page`` imports this module only for a page
with a review.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence

import numpy as np
import pandas as pd

from ..errors import CatansimError
from ..results.review import MOVES, TIMELINE, names

# Room for the rounding of intervals written by another program.
_SLACK = 1e-9
_PROB = "a probability in [0, 1]"


def _frame(table: str, frame, columns: Sequence[str], spec: str):
    if not isinstance(frame, pd.DataFrame):
        raise CatansimError(f"{table}: expected a pandas DataFrame, got "
                            f"{type(frame).__name__}; allowed: a frame with the columns of "
                            f"catansim.results.review.{spec}")
    for c in columns:
        if c not in frame.columns:
            raise CatansimError(f"{table}: no column {c!r}; allowed: a frame with the columns "
                                f"{', '.join(columns)} (catansim.results.review.{spec})")
    return frame.reset_index(drop=True)


def _number(v) -> bool:
    """A finite number, not a truth value (numpy's scalars included)."""
    return (isinstance(v, numbers.Real) and not _truth(v) and math.isfinite(v))


def _truth(v) -> bool:
    return isinstance(v, bool | np.bool_)


def _ints(table: str, frame, column: str, lo: int, hi: int, allowed: str) -> list[int]:
    out = []
    for i, v in enumerate(frame[column].tolist()):
        ok = _number(v) and v == int(v) and lo <= v <= hi
        if not ok:
            raise CatansimError(f"{table}.{column}[{i}]: {v!r}; allowed: {allowed}")
        out.append(int(v))
    return out


def _floats(table: str, frame, column: str, lo: float, hi: float, allowed: str) -> list[float]:
    out = []
    for i, v in enumerate(frame[column].tolist()):
        ok = _number(v) and lo <= v <= hi
        if not ok:
            raise CatansimError(f"{table}.{column}[{i}]: {v!r}; allowed: {allowed}")
        out.append(float(v))
    return out


def _ordered(table: str, low: list[float], mid: list[float], high: list[float],
             names: tuple[str, str, str]) -> None:
    """Each row's interval holds its value: ``low <= mid <= high``."""
    for i, (a, b, c) in enumerate(zip(low, mid, high, strict=True)):
        if not a - _SLACK <= b <= c + _SLACK:
            raise CatansimError(f"{table}[{i}]: {names[0]} {a!r}, {names[1]} {b!r}, "
                                f"{names[2]} {c!r}; allowed: {names[0]} <= {names[1]} <= "
                                f"{names[2]}")


def _texts(table: str, frame, column: str) -> list[str]:
    out = []
    for i, v in enumerate(frame[column].tolist()):
        if not isinstance(v, str) or not v:
            raise CatansimError(f"{table}.{column}[{i}]: {v!r}; allowed: a non-empty string")
        out.append(v)
    return out


def _shared(table: str, frame, spec, n_events: int, n_players: int):
    """The frame and the columns both tables have, checked: ``(frame, event, seat,
    rollouts)``, or None for a frame without rows (it draws nothing: no empty chart or
    list). ``spec``: the table's columns (``results.review.TIMELINE`` or ``MOVES``)."""
    frame = _frame(table, frame, names(spec), table.upper())
    if frame.empty:
        return None
    last = n_events - 1
    event = _ints(table, frame, "event", 0, last, f"an event of the log, 0..{last}")
    seat = _ints(table, frame, "seat", 0, n_players - 1,
                 f"a seat of the game, 0..{n_players - 1}")
    _ints(table, frame, "turn", 0, 2**31 - 1, "a turn, 0 or more")
    rollouts = _ints(table, frame, "rollouts", 1, 2**31 - 1, "a number of games, 1 or more")
    return frame, event, seat, rollouts


def _timeline(frame, event: list[int], seat: list[int], rollouts: list[int],
              n_players: int) -> dict:
    t = "timeline"
    win, low, high = (_floats(t, frame, c, 0.0, 1.0, _PROB) for c in ("win", "win_low",
                                                                      "win_high"))
    _ordered(t, low, win, high, ("win_low", "win", "win_high"))
    observer = _ints(t, frame, "observer", -1, n_players - 1,
                     f"a seat of the game, 0..{n_players - 1}, or -1 (the full state)")
    seen = set()
    for i, key in enumerate(zip(event, seat, strict=True)):
        if key in seen:
            raise CatansimError(f"timeline[{i}]: event {key[0]}, seat {key[1]} again; "
                                "allowed: one row per event and seat")
        seen.add(key)
    if len(set(observer)) > 1:
        raise CatansimError(f"timeline.observer: several observers {sorted(set(observer))}; "
                            "allowed: one observer per review")
    seats: list[list[list[float]]] = [[] for _ in range(n_players)]
    for k, p, w, lo, hi in sorted(zip(event, seat, win, low, high, strict=True)):
        seats[p].append([k, round(w, 4), round(lo, 4), round(hi, 4)])
    return {"seats": seats, "observer": observer[0], "rollouts": [min(rollouts), max(rollouts)]}


def _moves(frame, event: list[int], seat: list[int], _rollouts: list[int],
           _n_players: int) -> dict:
    m = "moves"
    decision, played, best = (_texts(m, frame, c) for c in ("decision", "played", "best"))
    win_played, win_best = (_floats(m, frame, c, 0.0, 1.0, _PROB)
                            for c in ("win_played", "win_best"))
    diff = "a difference of probabilities, in [-1, 1]"
    loss, low, high = (_floats(m, frame, c, -1.0, 1.0, diff)
                       for c in ("loss", "loss_low", "loss_high"))
    _ordered(m, low, loss, high, ("loss_low", "loss", "loss_high"))
    flagged = []
    for i, v in enumerate(frame["flagged"].tolist()):
        if not _truth(v):
            raise CatansimError(f"moves.flagged[{i}]: {v!r}; allowed: true or false")
        v = bool(v)
        if v and not low[i] > 0:
            raise CatansimError(f"moves.flagged[{i}]: flagged with loss_low {low[i]!r}; "
                                "allowed: a flagged move's loss_low above 0 (a cost beyond "
                                "the rollouts' noise)")
        if v:
            flagged.append(i)
    rows = [{"event": event[i], "seat": seat[i], "decision": decision[i],
             "played": played[i], "best": best[i], "win_played": round(win_played[i], 4),
             "win_best": round(win_best[i], 4), "loss": round(loss[i], 4),
             "loss_low": round(low[i], 4), "loss_high": round(high[i], 4)} for i in flagged]
    return {"decisions": len(event), "seats": sorted(set(seat)),
            "flagged": sorted(rows, key=lambda r: (r["event"], r["seat"]))}


def review_view(timeline, moves, n_events: int, n_players: int) -> dict:
    """The page's data of a game review, every value checked against the log.

    Parameters
    ----------
    timeline : pandas.DataFrame or None
        The columns of ``catansim.results.review.TIMELINE`` (more are ignored).
    moves : pandas.DataFrame or None
        The columns of ``catansim.results.review.MOVES`` (more are ignored).
    n_events, n_players : int
        The log's number of events and seats.

    Returns
    -------
    dict
        JSON-able: ``timeline`` (None without rows): ``seats``, per seat its
        positions in event order as ``[event, win, win_low, win_high]``,
        ``observer`` (-1 the full state) and ``rollouts`` (the fewest and most per
        position); ``moves`` (None without rows): ``decisions`` (rows of the table),
        ``seats`` (the seats reviewed) and ``flagged``, the flagged rows in event
        order.

    Raises
    ------
    catansim.errors.CatansimError
        A frame that is not one, a missing column, an event or seat outside the
        log's, a probability outside [0, 1] or outside its interval, a position given
        twice, several observers, a flagged move whose interval reaches 0.
    """
    out = {}
    for table, frame, spec, draw in (("timeline", timeline, TIMELINE, _timeline),
                                     ("moves", moves, MOVES, _moves)):
        checked = None if frame is None else _shared(table, frame, spec, n_events, n_players)
        out[table] = None if checked is None else draw(*checked, n_players)
    return out
