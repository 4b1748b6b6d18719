"""Checking the tables of an input file: experiment files and tuning specs read alike.

``InFile(path)`` names the file in front of every one-line error (``catansim.checks``
wording: ``PATH: KEY: PROBLEM; allowed: ...``) and checks what both kinds of file hold:
the keys of a table, a ``[rules]`` table, strategy definitions. A file's own keys are
checked where the file is read (``runs.experiment``, ``tuning.spec``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import NoReturn

from ..checks import did_you_mean, type_name
from ..errors import CatansimError
from ..rules import Rules
from ..strategies import PRESETS, StrategySet


class InFile:
    """The one-line errors of the file at ``path`` (None: a mapping given in code)."""

    def __init__(self, path: Path | None):
        self.prefix = f"{path}: " if path is not None else ""

    def fail(self, key: str, msg: str) -> NoReturn:
        raise CatansimError(f"{self.prefix}{key}: {msg}")

    def reraise(self, key: str, exc: CatansimError) -> NoReturn:
        """A check's error under ``key`` (not repeated when the message names it already)."""
        msg = str(exc)
        if msg.startswith(key):
            raise CatansimError(f"{self.prefix}{msg}") from None
        self.fail(key, msg)

    def check(self, fn, *args, **kw):
        """Call a check from ``catansim.checks`` (or any validator), naming the file."""
        try:
            return fn(*args, **kw)
        except CatansimError as exc:
            raise CatansimError(f"{self.prefix}{exc}") from None

    def known_keys(self, mapping: Mapping, allowed: Iterable[str], key: str = "") -> None:
        """Every key of ``mapping`` (the table at ``key``; "" for the file's top) is one
        of ``allowed``."""
        allowed = list(allowed)
        for k in mapping:
            if k not in allowed:
                self.fail(f"{key}.{k}" if key else k,
                          f"unknown key; allowed: {', '.join(allowed)}")

    def table(self, raw, key: str, keys: Iterable[str]) -> dict:
        """The table at ``key``, holding only ``keys``."""
        keys = list(keys)
        if not isinstance(raw, dict):
            self.fail(key, f"expected a table, got {type_name(raw)}; allowed: a table of "
                           f"{', '.join(keys)}")
        self.known_keys(raw, keys, key)
        return raw

    def rules(self, mapping, key: str, base: Rules | None = None) -> Rules:
        """The ``Rules`` of a table of rule settings at ``key`` (over ``base``'s)."""
        names = Rules.names()
        if not isinstance(mapping, dict):
            self.fail(key, f"expected a table, got {type_name(mapping)}; allowed: a table of "
                           f"rule settings ({', '.join(names)})")
        for name in mapping:
            if name not in names:
                self.fail(f"{key}.{name}", f"unknown rule{did_you_mean(name, names)}; "
                                           f"allowed: {', '.join(names)}")
        try:
            return Rules.from_mapping(mapping, base=base)
        except CatansimError as exc:  # "rule robber: ..." becomes "rules.robber: ..."
            msg = str(exc)
            if msg.startswith("rule "):
                raise CatansimError(f"{self.prefix}{key}.{msg[5:]}") from None
            self.fail(key, msg)

    def strategy_set(self, definitions, key: str) -> StrategySet:
        """The presets and the strategies ``definitions`` defines (``[strategies.NAME]``
        tables, or a TOML file of them), its errors named under ``key``."""
        return self.check(PRESETS.with_definitions, definitions, key)
