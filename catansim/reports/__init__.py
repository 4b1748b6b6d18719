"""Reports: the analyses of a dataset as one self-contained HTML file, CSV tables, PNG figures.

What lives here:

- ``build``: which analyses a report runs (``report_analyses``, one pass over the
  dataset), which sections the results support (anatomy always; seats; strategies
  when several play; variants, paired, when there are variants; starting
  position), ``build_report``; for the studies (several datasets): ``Section`` (a
  title, a method note, tables and figures), the table helpers ``show``, ``caption``,
  ``interval`` and ``wide_table``, and ``write_study_report`` (the page of a study);
- ``spec``: a study's report as data (``Part``s of ``Table``, ``Figure`` and ``Text``
  items naming the results they show) and the one builder of its sections
  (``sections_of`` over ``Results``);
- ``html``: rendering: figures inlined as base64 PNG, inline CSS, no script.

May import: ``analysis``, ``plotting``, ``results`` (the manifest), ``board`` (the
fixed board of a dataset), ``errors``, ``files`` (atomic writes). Never the engine or the runner.
"""

from .build import (
    REPORT_FILE,
    Section,
    build_report,
    caption,
    interval,
    report_analyses,
    show,
    wide_table,
    write_study_report,
)
from .spec import Each, Figure, Part, Results, Table, Text, section_of, sections_of

__all__ = ["REPORT_FILE", "Each", "Figure", "Part", "Results", "Section", "Table", "Text",
           "build_report", "section_of", "sections_of", "caption", "interval",
           "report_analyses", "show", "wide_table", "write_study_report"]
