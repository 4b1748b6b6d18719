"""A study's report as data: sections of tables, figures and text that name the analysis
results they show, turned into ``Section``s by one builder.

A report spec is a sequence of ``Part``s (a section: key, title, method note, items).
An item is a ``Table``, a ``Figure`` or a ``Text`` (``Each``: items that depend on the
results, a figure per seat). Each names what it shows by a path into the study's
results (``of="rule.contrasts"``: ``results["rule"]["contrasts"]``); an item or a part
whose path is missing, or whose ``when`` is false, is left out. What cannot be a path (a display
view of a frame, a figure, a caption or answer with numbers in it) is a small named
function of the ``Results`` the builder passes: ``results["rule.arms"]``, the study's
context as attributes (``results.datasets``, ``results.scale``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from ..errors import CatansimError
from .build import Section

_MISSING = object()


class Results:
    """A study's analysis results by path (``results["rule.contrasts"]``), with the
    study's context (its datasets, scale, answer...) as attributes."""

    def __init__(self, results: Mapping, **context):
        self.data = results
        self.__dict__.update(context)

    def get(self, path: str, default=None):
        """The result at a dotted ``path``, ``default`` if any step is missing."""
        value = self.data
        for step in path.split("."):
            if not isinstance(value, Mapping) or step not in value:
                return default
            value = value[step]
        return value

    def __getitem__(self, path: str):
        value = self.get(path, _MISSING)
        if value is _MISSING:
            raise CatansimError(f"report spec: no result at {path!r}; allowed: a path of "
                                "the study's results, or an item with when= to leave it out")
        return value

    def __contains__(self, path: str) -> bool:
        return self.get(path, _MISSING) is not _MISSING


Text_ = str | Callable[[Results], str]


def _text(value: Text_, results: Results) -> str:
    return value(results) if callable(value) else value


@dataclass(frozen=True)
class Table:
    """A table: the frame at ``of`` (a path, or a function of the results), shown through
    ``view`` (``view(frame, results)``; the frame itself if None); its CSV is ``csv`` (a
    path or function; the frame at ``of`` if None)."""

    name: str
    of: str | Callable[[Results], pd.DataFrame]
    caption: Text_ = ""
    view: Callable[[pd.DataFrame, Results], pd.DataFrame] | None = None
    csv: str | Callable[[Results], pd.DataFrame] | None = None
    when: Callable[[Results], bool] | None = None


@dataclass(frozen=True)
class Figure:
    """A figure drawn by ``draw(results)`` (left out when it returns None); ``of`` names
    the result it needs (left out without it)."""

    name: str
    draw: Callable[[Results], Any]
    caption: Text_ = ""
    of: str | None = None
    when: Callable[[Results], bool] | None = None


@dataclass(frozen=True)
class Text:
    """A block of HTML: a string or a function of the results."""

    html: Text_
    of: str | None = None
    when: Callable[[Results], bool] | None = None


@dataclass(frozen=True)
class Each:
    """Items that depend on the results' contents (a figure per seat, a table per map):
    ``items(results)`` gives them, each then built like any other."""

    items: Callable[[Results], Sequence[Table | Figure | Text]]
    of: str | None = None
    when: Callable[[Results], bool] | None = None


@dataclass(frozen=True)
class Part:
    """One section of a study's report: its items in order. ``of`` (a path) or ``when``
    decides whether the section is there at all."""

    key: str
    title: Text_
    note: Text_
    items: Sequence[Table | Figure | Text | Each] = field(default_factory=tuple)
    of: str | None = None
    when: Callable[[Results], bool] | None = None


def _present(item, results: Results) -> bool:
    of = getattr(item, "of", None)
    if isinstance(of, str) and of not in results:
        return False
    return item.when is None or bool(item.when(results))


def _frame(source, results: Results) -> pd.DataFrame:
    return source(results) if callable(source) else results[source]


def section_of(part: Part, results: Results) -> Section:
    """The ``Section`` of one part: its items that are there, in order."""
    s = Section(part.key, _text(part.title, results), _text(part.note, results))
    _add(s, part.items, results)
    return s


def _add(s: Section, items, results: Results) -> None:
    for item in items:
        if not _present(item, results):
            continue
        if isinstance(item, Each):
            _add(s, item.items(results), results)
        elif isinstance(item, Table):
            frame = _frame(item.of, results)
            shown = frame if item.view is None else item.view(frame, results)
            csv = frame if item.csv is None else _frame(item.csv, results)
            s.table(item.name, shown, _text(item.caption, results), csv)
        elif isinstance(item, Figure):
            fig = item.draw(results)
            if fig is not None:
                s.figure(item.name, fig, _text(item.caption, results))
        else:
            s.text(_text(item.html, results))


def sections_of(spec: Sequence[Part], results: Results) -> list[Section]:
    """The sections of a report spec that are there, in order."""
    return [section_of(p, results) for p in spec if _present(p, results)]
