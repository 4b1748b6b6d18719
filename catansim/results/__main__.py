"""``python -m catansim.results [PATH]``: regenerate ``docs/results.md`` from the schema."""

import sys
from pathlib import Path

from .schema import DOCS_PATH, render_docs

target = Path(sys.argv[1]) if len(sys.argv) > 1 else DOCS_PATH
target.write_text(render_docs())
print(f"wrote {target}")
