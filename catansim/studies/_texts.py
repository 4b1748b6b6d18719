"""The studies' text files, ``text/<name>.md``: read as named texts, importing nothing
beyond the standard library, so ``catansim study --help`` reads the studies' titles
without importing a study.

A text file is a list of named texts, after a preamble that says what the file is (not
a text). A line ``## NAME`` starts one; the lines after it, up to the next ``## `` line,
are joined by single spaces (blank lines are left out, so a text is wrapped as is
convenient). A text may hold fields ``$name`` or
``${name}``, filled by ``_words.Words.fill`` (``string.Template``; ``$$`` is a dollar sign).
By convention a study's title is ``title``, a section's title and method note are
``part NAME`` and ``note NAME``, a table's caption ``table NAME``, a figure's ``figure NAME``.
"""

from __future__ import annotations

from functools import cache
from importlib import resources

from ..errors import CatansimError

TEXT = resources.files(__package__) / "text"  # text/<name>.md
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
def texts(name: str) -> dict[str, str]:
    """The named texts of ``text/<name>.md``."""
    path = TEXT / f"{name}.md"
    return parse(path.read_text(encoding="utf-8"), str(path))
