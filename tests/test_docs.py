"""The documentation tables generated from the code are in sync with it."""

from pathlib import Path

from catansim.core.layout import rule_fields_markdown, state_fields_markdown

DOCS = Path(__file__).resolve().parents[1] / "docs"


def test_engine_doc_lists_every_state_field():
    assert state_fields_markdown() in (DOCS / "engine.md").read_text()


def test_engine_doc_lists_every_rule_field():
    assert rule_fields_markdown() in (DOCS / "engine.md").read_text()


def test_results_doc_is_generated_from_the_schema():
    from catansim.results import render_docs

    assert (DOCS / "results.md").read_text() == render_docs()
