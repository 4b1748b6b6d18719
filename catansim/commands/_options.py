"""Options shared by the commands: one type, one default and one wording each.

A bad value is reported by ``cli.main`` as one line in the wording of
``catansim.checks``: ``catansim: error: --players: 5 is not allowed; allowed: 3, 4``.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import click

from ..board import LAYOUTS, SEEDED_LAYOUTS
from ..checks import SEED_ALLOWED, SEED_MAX, did_you_mean, parse_toml, read_text
from ..errors import FaultError, os_reason
from ..rules import Rules


class OneOf(click.ParamType):
    """One of a fixed list of words."""

    name = "word"

    def __init__(self, choices):
        self.choices = tuple(choices)

    def get_metavar(self, param, ctx=None):
        return "[" + "|".join(self.choices) + "]"

    def convert(self, value, param, ctx):
        if value in self.choices:
            return value
        self.fail(f"{value!r} is not allowed{did_you_mean(value, self.choices)}; allowed: "
                  f"{', '.join(self.choices)}", param, ctx)


class IntIn(click.ParamType):
    """An integer in ``lo .. hi`` (``hi`` None: no upper bound)."""

    name = "integer"

    def __init__(self, lo: int, hi: int | None = None, allowed: str | None = None):
        self.lo, self.hi = lo, hi
        self.allowed = allowed or (f"an integer >= {lo}" if hi is None
                                   else f"an integer in {lo}..{hi}")

    def convert(self, value, param, ctx):
        try:
            n = value if isinstance(value, int) else int(str(value).strip())
        except ValueError:
            self.fail(f"{value!r} is not allowed; allowed: {self.allowed}", param, ctx)
        if n < self.lo or (self.hi is not None and n > self.hi):
            self.fail(f"{n} is not allowed; allowed: {self.allowed}", param, ctx)
        return n


class NumberIn(click.ParamType):
    """A real number in ``lo .. hi``."""

    name = "number"

    def __init__(self, lo: float, hi: float):
        self.lo, self.hi = lo, hi
        self.allowed = f"a number in {lo:g}..{hi:g}"

    def convert(self, value, param, ctx):
        try:
            x = value if isinstance(value, float) else float(str(value).strip())
        except ValueError:
            self.fail(f"{value!r} is not allowed; allowed: {self.allowed}", param, ctx)
        if not self.lo <= x <= self.hi:  # NaN compares False
            self.fail(f"{value} is not allowed; allowed: {self.allowed}", param, ctx)
        return x


class InFile(click.ParamType):
    """An existing, readable file (not a folder); ``what`` names it in messages."""

    name = "file"

    def __init__(self, what: str = "a file"):
        self.what = what

    def convert(self, value, param, ctx):
        text = str(value)
        if not text.strip():
            self.fail(f"an empty path is not allowed; allowed: {self.what}", param, ctx)
        path = Path(text)
        if not path.exists():
            self.fail(f"{text}: file not found; allowed: {self.what}", param, ctx)
        if path.is_dir():
            self.fail(f"{text}: is a folder; allowed: {self.what}", param, ctx)
        if not os.access(path, os.R_OK):
            self.fail(f"{text}: not readable (permission denied); allowed: {self.what}",
                      param, ctx)
        return text


class InDir(click.ParamType):
    """An existing folder."""

    name = "folder"

    def __init__(self, what: str = "a folder"):
        self.what = what

    def convert(self, value, param, ctx):
        text = str(value)
        if not text.strip():
            self.fail(f"an empty path is not allowed; allowed: {self.what}", param, ctx)
        path = Path(text)
        if not path.exists():
            self.fail(f"{text}: folder not found; allowed: {self.what}", param, ctx)
        if not path.is_dir():
            self.fail(f"{text}: is a file, not a folder; allowed: {self.what}", param, ctx)
        return text


class OutFile(click.ParamType):
    """A file to write: in an existing folder, not a folder itself, with ``suffix``."""

    name = "file"

    def __init__(self, what: str, suffix: str | None = None):
        self.what, self.suffix = what, suffix

    def convert(self, value, param, ctx):
        text = str(value)
        if not text.strip():
            self.fail(f"an empty path is not allowed; allowed: {self.what}", param, ctx)
        path = Path(text)
        if path.is_dir():
            self.fail(f"{text}: is a folder; allowed: {self.what}", param, ctx)
        if self.suffix and path.suffix.lower() != self.suffix:
            self.fail(f"{text}: not a {self.suffix} file name; allowed: {self.what}", param, ctx)
        folder = path.parent
        if not folder.is_dir():
            problem = "is not a folder" if folder.exists() else "does not exist"
            self.fail(f"{text}: folder {folder} {problem}; allowed: {self.what}", param, ctx)
        if not os.access(folder, os.W_OK | os.X_OK):
            self.fail(f"{text}: folder {folder} is not writable ({_why(folder)}); allowed: "
                      f"{self.what}", param, ctx)
        return text


class OutDir(click.ParamType):
    """A folder to write into (created with its parents if missing)."""

    name = "folder"

    def __init__(self, what: str = "a folder path", writable: bool = True):
        self.what, self.writable = what, writable

    def convert(self, value, param, ctx):
        text = str(value)
        if not text.strip():
            self.fail(f"an empty path is not allowed; allowed: {self.what}", param, ctx)
        path = Path(text)
        if path.exists() and not path.is_dir():
            self.fail(f"{text}: is a file, not a folder; allowed: {self.what}", param, ctx)
        for up in (path, *path.parents):
            if up.exists():
                if not up.is_dir():
                    self.fail(f"{text}: {up} is a file, not a folder; allowed: {self.what}",
                              param, ctx)
                if self.writable and not os.access(up, os.W_OK | os.X_OK):
                    self.fail(f"{text}: folder {up} is not writable ({_why(up)}); allowed: "
                              f"{self.what}", param, ctx)
                break
        return text


def _why(folder: Path) -> str:
    """Why ``os.access`` refused to write in ``folder``: read-only or permissions."""
    try:
        if os.statvfs(folder).f_flag & os.ST_RDONLY:
            return "read-only file system"
    except (OSError, AttributeError):
        pass
    return "permission denied"


@contextlib.contextmanager
def writing(option: str, path, done: str = "nothing written"):
    """Turn an ``OSError`` while writing ``path`` into one line naming the option and
    the path (``--out: /x/b.png: read-only file system; nothing written``)."""
    try:
        yield
    except OSError as exc:
        raise FaultError(f"{option}: {exc.filename or path}: {os_reason(exc)}; {done}") from None


PLAYERS = IntIn(3, 4, "3, 4")
SEED = IntIn(0, SEED_MAX, SEED_ALLOWED)
THREADS = IntIn(1, 1024)


def players(help: str = "Seats: 3 or 4."):
    return click.option("--players", type=PLAYERS, default=4, show_default=True, help=help)


def seed(help: str = "Seed, an integer in [0, 2**63).", default: int = 0):
    return click.option("--seed", type=SEED, default=default, show_default=True, help=help)


# The seeded layouts, as a message lists them: "variable, random_numbers or balanced".
SEEDED = ", ".join(SEEDED_LAYOUTS[:-1]) + " or " + SEEDED_LAYOUTS[-1]


def layout(help: str = f"Board layout: a new board per game ({SEEDED}) or the fixed "
                       "beginner map.", default: str = "variable"):
    return click.option("--layout", type=OneOf(LAYOUTS), default=default, show_default=True,
                        help=help)


def games(help: str, default: int, lo: int = 1, hi: int | None = None):
    return click.option("--games", type=IntIn(lo, hi), default=default, show_default=True,
                        help=help)


def strategies(default: str | None, help: str = "One strategy name for every seat, or one "
                                                "per seat, comma-separated."):
    # Names are checked once the strategy set is known (--config may add names).
    return click.option("--strategies", default=default, show_default=default is not None,
                        help=help)


def rules():
    """``--rule``, and the switch at a turn: ``--switch-turn`` and ``--switch-rule``."""
    options = (
        click.option("--rule", "rule_items", multiple=True, metavar="NAME=VALUE",
                     help="A rule setting, e.g. robber=friendly or bank_per_resource=12 "
                          "(repeatable; docs/experiments.md lists them)."),
        click.option("--switch-turn", "switch_turn", type=int, default=None, metavar="T",
                     help="Switch to the --switch-rule settings when turn T is over (the "
                          "same dice after it)."),
        click.option("--switch-rule", "switch_items", multiple=True, metavar="NAME=VALUE",
                     help="A rule setting from turn T + 1 on, e.g. robber=off (repeatable; "
                          "needs --switch-turn)."),
    )

    def apply(fn):
        for option in reversed(options):
            fn = option(fn)
        return fn

    return apply


def threads():
    return click.option("--threads", type=THREADS, default=None,
                        help="Numba threads (default: all cores).")


def debug():
    return click.option("--debug", is_flag=True,
                        help="Stop at the first illegal action a strategy chooses, naming the "
                             "game's seed, turn, seat, decision and value (a strategy bug); "
                             "show a Python player's exception with its traceback.")


def html():
    return click.option("--html", "html_path", default=None,
                        type=OutFile("an .html file path in an existing folder", ".html"),
                        help="Write the game viewer to this file: one self-contained page "
                             "(docs/viewer.md).")


def config():
    return click.option("--config", type=InFile("a TOML file of strategy tables"), default=None,
                        help="TOML file defining more strategies ([strategies.<name>] tables, "
                             "docs/strategies.md).")


def strategy_set(config_path):
    """The built-in strategies plus those of ``--config`` (a new set; nothing global)."""
    from ..strategies import PRESETS  # noqa: PLC0415  (the compiled core: +0.3 s to --help)

    if config_path is None:
        return PRESETS
    allowed = "a TOML file of [strategies.NAME] tables (docs/strategies.md)"
    # parsed here, so that a 5,000-digit integer or tables nested 100,000 deep are one line
    parse_toml(read_text(config_path, "strategy config", allowed), f"--config: {config_path}",
               allowed)
    return PRESETS.with_definitions(config_path, "--config")


def parse_rules(rule_items, switch_turn=None, switch_items=()):
    return Rules.from_cli(list(rule_items), switch_turn, list(switch_items))


def rules_data(rules) -> dict:
    """An experiment's ``rules`` and ``switch`` tables for ``rules`` (a ``Rules``)."""
    data = {"rules": rules.before.to_header()}
    if rules.switch_turn is not None:
        data["switch"] = {"turn": rules.switch_turn, **rules.rules_after.to_header()}
    return data
