"""Reports: the analyses of a dataset as one self-contained HTML file, CSV tables, PNG figures.

What lives here:

- ``build``: which analyses a report runs (``report_analyses``, one pass over the
  dataset), which sections the results support (anatomy always; seats; strategies
  when several play; variants, paired, when there are variants; starting
  position), ``build_report``;
- ``html``: rendering: figures inlined as base64 PNG, inline CSS, no script.

May import: ``analysis``, ``plotting``, ``results`` (the manifest), ``board`` (the
fixed board of a dataset), ``errors``, ``files`` (atomic writes). Never the engine or the runner.
"""

from .build import REPORT_FILE, build_report, report_analyses

__all__ = ["REPORT_FILE", "build_report", "report_analyses"]
