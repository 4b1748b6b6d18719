"""A study's words (``catansim/studies/text/*.md``, read by ``studies._texts``): named
texts whose lines join with single spaces, every file well formed, each text the code
asks for there, and the fields of a text filled or refused."""

from __future__ import annotations

import re

import pytest

from catansim.errors import CatansimError
from catansim.studies import _words
from catansim.studies._texts import TEXT, parse
from catansim.studies._words import Words


def test_a_text_is_its_lines_joined_by_single_spaces_after_a_preamble():
    text = ("# words\n\nwhat the file is\n\n## title\nThe robber:\n  catch-up or\n\n"
            "a longer game?\n## note x\n$n games\n")
    assert parse(text, "f.md") == {"title": "The robber: catch-up or a longer game?",
                                   "note x": "$n games"}


def test_a_name_given_twice_is_refused():
    with pytest.raises(CatansimError, match=r"f\.md: text 'a' is named twice"):
        parse("## a\none\n## a\ntwo\n", "f.md")


def test_fields_are_filled_and_a_missing_one_is_an_error(monkeypatch):
    monkeypatch.setattr(_words, "texts", lambda study: {"n": "$n games, $$1 each"})
    w = Words("any")
    assert w.fill("n", n="1,000") == "1,000 games, $1 each"
    with pytest.raises(KeyError):
        w.fill("n")
    with pytest.raises(CatansimError, match=r"text/any\.md: no text 'x'"):
        w["x"]


FILES = sorted(p.name for p in TEXT.iterdir() if p.name.endswith(".md"))


@pytest.mark.parametrize("name", FILES)
def test_every_text_file_parses_and_every_text_the_code_names_is_there(name):
    texts = parse((TEXT / name).read_text(encoding="utf-8"), name)
    assert texts and all(texts.values()), name
    # the names the study's code asks for, written out as literals
    study = name.removesuffix(".md")
    modules = {"rule-studies": ["_rule_study"], "openings": ["openings", "_openings_report"],
               "headlines": ["_headlines"],
               "seats-and-boards": ["seats_and_boards"]}.get(study, [study])
    source = "\n".join((TEXT.parent / f"{m}.py").read_text() for m in modules)
    var = "WORDS" if study == "rule-studies" else "W"
    asked = set(re.findall(rf'\b{var}(?:\.fill\(|\[)\s*"([^"]+)"', source))
    asked |= {f"{kind} {n}" for kind, n in re.findall(
        rf'\b{var}\.(part|table)\("(\w+)"', source)}
    asked |= {f"note {n}" for n in re.findall(rf'\b{var}\.part\("(\w+)"', source)}
    # a name ending in a space is a prefix the code completes ("who verdict " + ...)
    missing = {n for n in asked if not (any(k.startswith(n) for k in texts)
                                        if n.endswith(" ") else n in texts)}
    assert asked and not missing, sorted(missing)
