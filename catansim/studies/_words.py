"""A study's words: the text of its report and README, kept in ``text/<study>.md``.

The code of a study says what its report shows and where (``reports.Part``, ``Table``,
``Figure``); the words it shows live beside it in a text file of package data, read
through ``importlib.resources``, so they are read and changed as text.

A text file is a list of named texts, after a preamble that says what the file is (not
a text). A line ``## NAME`` starts one; the lines after it, up to the next ``## `` line,
are joined by single spaces (blank lines are left out, so a text is wrapped as is
convenient). A text may hold fields ``$name`` or
``${name}``, filled by ``Words.fill`` (``string.Template``; ``$$`` is a dollar sign).
By convention a section's title and method note are ``part NAME`` and ``note NAME``,
a table's caption ``table NAME``, a figure's ``figure NAME``.
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from string import Template

from ..errors import CatansimError
from ..reports import Figure, Part, Table

TEXT = resources.files(__package__) / "text"  # text/<study>.md
_HEADER = "## "


def parse(text: str, where: str) -> dict[str, str]:
    """The named texts of a text file's content (see the module docstring)."""
    out: dict[str, str] = {}
    name, lines = None, []
    for line in text.splitlines() + [_HEADER]:
        if line.startswith(_HEADER):
            if name is not None:
                if name in out:
                    raise CatansimError(f"{where}: text {name!r} is named twice; allowed: "
                                        "each name once")
                out[name] = " ".join(x.strip() for x in lines if x.strip())
            name, lines = line[len(_HEADER):].strip(), []
        else:  # before the first name: the preamble
            lines.append(line)
    return out


@cache
def _texts(study: str) -> dict[str, str]:
    path = TEXT / f"{study}.md"
    return parse(path.read_text(encoding="utf-8"), str(path))


class Words:
    """The named texts of study ``study`` (``text/<study>.md``)."""

    def __init__(self, study: str):
        self.study = study

    def __getitem__(self, name: str) -> str:
        texts = _texts(self.study)
        if name not in texts:
            raise CatansimError(f"text/{self.study}.md: no text {name!r}; allowed: one of "
                                f"its {len(texts)} names")
        return texts[name]

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
        return Figure(name, draw, _texts(self.study).get("figure " + name, ""), **kw)
