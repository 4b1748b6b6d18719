"""One-line input checks shared by every layer (experiment files, the CLI, the API).

Each check returns the value it accepts or raises a ``CatansimError`` of one line
in one wording, ``FIELD: PROBLEM; allowed: WHAT IS ALLOWED``, e.g.
``players: 5 is not allowed; allowed: 3, 4``.
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import json
import os
import re
import tomllib
from pathlib import Path
from typing import NoReturn

import numpy as np

from .errors import CatansimError, parse_problem

SEED_MAX = 2**63 - 1  # seeds are integers 0 .. 2**63-1 (63 bits, positive int64)
SEED_ALLOWED = "an integer in [0, 2**63)"


def type_name(value) -> str:
    """How a value's type is named in messages (TOML words: a table, an array)."""
    return {bool: "a boolean", int: "an integer", float: "a number", str: "a string",
            list: "an array", dict: "a table"}.get(type(value), type(value).__name__)


def fail(field: str, problem: str, allowed: str | None = None) -> NoReturn:
    """Raise the one-line error ``FIELD: PROBLEM[; allowed: ALLOWED]``."""
    raise CatansimError(f"{field}: {problem}" + (f"; allowed: {allowed}" if allowed else ""))


def did_you_mean(word, choices) -> str:
    """`` (did you mean 'default'?)``: the choice nearest to a mistyped name (difflib's
    ratio, at least 0.6; case ignored), or "" if none is near. Every check of a name
    from a fixed list (strategies, layouts, rules and their words) puts it after the
    problem: ``--strategies: unknown strategy 'defualt' (did you mean 'default'?);
    allowed: ...``."""
    if not isinstance(word, str) or not word.strip():
        return ""
    names = [c for c in choices if isinstance(c, str)]
    by_folded = {c.casefold(): c for c in names}
    near = difflib.get_close_matches(word.strip().casefold(), list(by_folded), n=1, cutoff=0.6)
    return f" (did you mean {by_folded[near[0]]!r}?)" if near else ""


def is_int(value) -> bool:
    """True for Python and NumPy integers, False for booleans."""
    return not isinstance(value, bool) and isinstance(value, int | np.integer)


def checked_fields(cls):
    """Class decorator, above ``@dataclass``: a wrong constructor call is a one-line error.

    Python says only "unexpected keyword argument 'players'"; this names the class, the
    argument and the fields allowed (``GameSettings(players=3)`` in a notebook).
    """
    names = [f.name for f in dataclasses.fields(cls) if f.init]
    required = [f.name for f in dataclasses.fields(cls) if f.init
                and f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING]
    allowed = ", ".join(names)
    init = cls.__init__

    @functools.wraps(init)
    def __init__(self, *args, **kwargs):
        if len(args) > len(names):
            fail(cls.__name__, f"{len(args)} positional arguments given", f"at most {len(names)}"
                 f" ({allowed})")
        given = names[:len(args)]
        for name in kwargs:
            if name not in names:
                fail(f"{cls.__name__}({name}=...)", "unknown field", allowed)
            if name in given:
                fail(f"{cls.__name__}({name}=...)", "given twice, by position and by name",
                     allowed)
        for name in required:
            if name not in given and name not in kwargs:
                fail(f"{cls.__name__}({name}=...)", "missing", allowed)
        init(self, *args, **kwargs)

    cls.__init__ = __init__
    return cls


def check_int(value, field: str, lo: int, hi: int | None = None, allowed: str | None = None
              ) -> int:
    """An integer in ``lo .. hi`` (``hi`` None: no upper bound)."""
    if allowed is None:
        allowed = f"an integer >= {lo}" if hi is None else f"an integer in {lo}..{hi}"
    if not is_int(value):
        fail(field, f"expected an integer, got {type_name(value)} ({value!r})", allowed)
    if int(value) < lo or (hi is not None and int(value) > hi):
        fail(field, f"{value} is out of range", allowed)
    return int(value)


def check_number(value, field: str, lo: float, hi: float) -> float:
    """A real number in ``lo .. hi`` (an int or a float; not a bool, not NaN)."""
    allowed = f"a number in {lo:g}..{hi:g}"
    if isinstance(value, bool) or not isinstance(value, int | float):
        fail(field, f"expected a number, got {type_name(value)} ({value!r})", allowed)
    if not lo <= value <= hi:  # NaN compares False
        fail(field, f"{value!r} is out of range", allowed)
    return float(value)


def check_bool(value, field: str, allowed: str = "True, False") -> bool:
    """True or False (not a string such as "no", which Python would take as true);
    ``allowed`` spells them as the caller's input does (TOML: ``true, false``)."""
    if not isinstance(value, bool | np.bool_):
        fail(field, f"expected a boolean, got {type_name(value)} ({value!r})", allowed)
    return bool(value)


def check_instance(value, field: str, cls, allowed: str):
    """An instance of ``cls`` (a settings object passed where another was expected)."""
    if not isinstance(value, cls):
        fail(field, f"{type(value).__name__} given", allowed)
    return value


def check_str(value, field: str, allowed: str) -> str:
    if not isinstance(value, str):
        fail(field, f"expected a string, got {type_name(value)} ({value!r})", allowed)
    return value


def check_choice(value, field: str, choices) -> str:
    """One of ``choices`` (strings)."""
    choices = tuple(choices)
    if not isinstance(value, str) or value not in choices:
        fail(field, f"{value!r} is not allowed{did_you_mean(value, choices)}",
             ", ".join(choices))
    return value


# A name shown on a page or a terminal (a seat's strategy, a defined strategy): text (a
# page escapes it), never a control character that moves a terminal's cursor or sets its
# title.
NAME_MAX = 200
NAME_ALLOWED = f"a name of 1..{NAME_MAX} printable characters"


def check_name(name, field: str) -> str:
    """A name shown to a person: 1..NAME_MAX printable characters (``str.isprintable``: no
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


def check_players(value, field: str = "players") -> int:
    """3 or 4 seats."""
    if not is_int(value) or int(value) not in (3, 4):
        fail(field, f"{value!r} is not allowed", "3, 4")
    return int(value)


def check_seed(value, field: str = "seed") -> int:
    """A seed: an integer in [0, 2**63)."""
    if not is_int(value) or not 0 <= int(value) <= SEED_MAX:
        fail(field, f"{value!r} is not allowed", SEED_ALLOWED)
    return int(value)


def check_path(value, field: str, allowed: str = "a folder path") -> str:
    """A non-empty path (an empty string would silently mean the current folder)."""
    if not isinstance(value, str | os.PathLike):
        fail(field, f"expected a path, got {type_name(value)} ({value!r})", allowed)
    text = os.fspath(value)
    if not text.strip():
        fail(field, "an empty path is not allowed", allowed)
    if "\0" in text:
        fail(field, f"{text!r} holds a NUL character", allowed)
    return text


SCHEDULER_ALLOWED = "a Dask scheduler address tcp://HOST:PORT, e.g. tcp://10.0.0.1:8786"
_SCHEDULER_RE = re.compile(r"^(?:(tcp|tls|ws|wss|ucx)://)?(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+)"
                           r":(\d{1,5})$")


def check_scheduler(value, field: str = "scheduler") -> str:
    """A Dask scheduler address ``[PROTOCOL://]HOST:PORT`` with a port in 1..65535."""
    if not isinstance(value, str):
        fail(field, f"expected a string, got {type_name(value)} ({value!r})", SCHEDULER_ALLOWED)
    m = _SCHEDULER_RE.match(value.strip())
    if not m:
        problem = "an empty address is not allowed" if not value.strip() \
            else f"{value!r} is not an address"
        fail(field, problem, SCHEDULER_ALLOWED)
    if not 1 <= int(m.group(3)) <= 65535:
        fail(field, f"port {m.group(3)} is out of range", SCHEDULER_ALLOWED)
    return value.strip()


def check_numba_threads(environ=os.environ) -> None:
    """``NUMBA_NUM_THREADS``, if set, is an integer >= 1: Numba raises a ValueError at
    import for 0 or less, and warns and ignores a value it cannot parse."""
    value = environ.get("NUMBA_NUM_THREADS")
    if value is None or value.strip() == "":
        return
    if not value.strip().isdigit() or int(value) < 1:
        fail("NUMBA_NUM_THREADS", f"{value!r} is not allowed",
             "an integer >= 1 (the threads Numba may start), or unset (all cores)")


def parse_toml(text: str, where, allowed: str) -> dict:
    """A TOML document, or the one-line error ``WHERE: invalid TOML (REASON); allowed: ...``
    for a syntax error, an integer of more than 4300 digits (Python's limit on int
    conversion) or tables nested too deep for the parser."""
    try:
        return tomllib.loads(text)
    except (ValueError, RecursionError) as exc:  # TOMLDecodeError, the digit limit
        raise CatansimError(f"{where}: invalid TOML ({parse_problem(exc)}); allowed: "
                            f"{allowed}") from None


def read_text(path: Path, what: str, allowed: str, field: str | None = None) -> str:
    """The text of a UTF-8 file, or a one-line error naming the file (and ``field``)."""
    path = Path(path)
    where = f"{field}: {path}" if field else f"{path}"
    if not path.exists():
        raise CatansimError(f"{where}: {what} not found; allowed: {allowed}")
    if path.is_dir():
        raise CatansimError(f"{where}: is a folder, not a file; allowed: {allowed}")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise CatansimError(f"{where}: cannot read the {what} ({exc.strerror}); allowed: "
                            f"{allowed}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CatansimError(f"{where}: not a text file (byte {data[exc.start]:#04x} at offset "
                            f"{exc.start} is not UTF-8); allowed: {allowed}") from None


def check_resume(out: Path, name: str, new: dict, keys, what: str) -> bool:
    """A resumable folder ``out``: True when its settings file ``name`` is there and is
    ``what``'s (its ``format`` the one of ``new``) with every key of ``keys`` as in
    ``new``; False when there is none; else a one-line error naming the key."""
    path = Path(out) / name
    if not path.exists():
        return False
    allowed = f"allowed: the folder of a {what}, or a new folder"
    try:
        old = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise CatansimError(f"{path}: not a {what}'s manifest ({exc}); {allowed}") from None
    if not isinstance(old, dict) or old.get("format") != new["format"]:
        raise CatansimError(f"{path}: not a {what}'s manifest; {allowed}")
    for key in keys:
        if old.get(key) != new[key]:
            raise CatansimError(f"{out}: this folder holds another {what} ({key}: "
                                f"{old.get(key)!r} there, {new[key]!r} now); allowed: the "
                                f"same {key}, or a new folder")
    return True
