"""A study's words: the text of its report and README, kept in ``text/<study>.md``.

The code of a study says what its report shows and where (``reports.Part``, ``Table``,
``Figure``); the words it shows live beside it in a text file of package data, read
through ``importlib.resources`` (``_texts`` says how), so they are read and changed as
text. ``Words`` hands them to the report: a text by name, its fields filled, a section,
table or figure with its title or caption.
"""

from __future__ import annotations

from string import Template

from ..errors import CatansimError
from ..reports import Figure, Part, Table
from ._texts import texts


class Words:
    """The named texts of study ``study`` (``text/<study>.md``)."""

    def __init__(self, study: str):
        self.study = study

    def __getitem__(self, name: str) -> str:
        found = texts(self.study)
        if name not in found:
            raise CatansimError(f"text/{self.study}.md: no text {name!r}; allowed: one of "
                                f"its {len(found)} names")
        return found[name]

    def fill(self, name: str, /, **fields) -> str:
        """Text ``name`` with its ``$fields`` filled (``string.Template.substitute``: a field
        not given is an error)."""
        return Template(self[name]).substitute(fields)

    def part(self, name: str, items, /, of: str | None = None, when=None, **fields) -> Part:
        """The report section ``name``: its title ``part NAME``, its note ``note NAME``
        (its ``$fields`` filled)."""
        return Part(name, self["part " + name], self.fill("note " + name, **fields),
                    tuple(items), of=of, when=when)

    def table(self, name: str, of, **kw) -> Table:
        """Table ``name`` captioned by ``table NAME``."""
        return Table(name, of, self["table " + name], **kw)

    def figure(self, name: str, draw, **kw) -> Figure:
        """Figure ``name`` captioned by ``figure NAME`` ("" without one)."""
        return Figure(name, draw, texts(self.study).get("figure " + name, ""), **kw)
