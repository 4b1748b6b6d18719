"""Render report sections as one self-contained HTML file (and the CSV and PNG beside it).

Figures are PNGs inlined as base64 ``data:`` URIs, the style sheet is inline and
there is no script: the file opens offline in any browser.
"""

from __future__ import annotations

import base64
import html
import io
from pathlib import Path

import numpy as np
import pandas as pd

from ..analysis.stats import CI_COLUMNS, P_COLUMNS, with_p_text
from ..files import atomic_write_bytes, atomic_write_text

CSS = """
body { font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 0;
       color: #1d1d1d; background: #fafafa; }
main { max-width: 1100px; margin: 0 auto; padding: 16px 28px 48px; background: white; }
h1 { font-size: 26px; margin: 12px 0 4px; }
h2 { background: #1f4e79; color: white; padding: 8px 12px; margin: 36px 0 10px;
     font-size: 20px; border-radius: 3px; }
h3 { font-size: 15px; margin: 22px 0 6px; color: #1f4e79; }
p.note { background: #f1f5f9; border-left: 4px solid #1f4e79; padding: 8px 12px;
         font-size: 13px; line-height: 1.45; margin: 6px 0 14px; }
p.power { font-size: 13px; color: #333; }
nav a { margin-right: 14px; font-size: 14px; color: #1f4e79; }
table { border-collapse: collapse; font-size: 12px; margin: 4px 0 4px;
        font-variant-numeric: tabular-nums; }
th, td { border-bottom: 1px solid #e3e3e3; padding: 3px 8px; text-align: right;
         white-space: nowrap; }
td.text { white-space: normal; }
th { background: #f3f3f3; font-weight: 600; }
td.text, th.text { text-align: left; }
tr.sig td { background: #fdecea; }
.caption { font-size: 12px; color: #555; margin: 2px 0 16px; max-width: 1000px; }
.scroll { overflow-x: auto; max-width: 100%; }
figure { margin: 10px 0 18px; }
figure img { max-width: 100%; border: 1px solid #eee; }
dl.info { display: grid; grid-template-columns: max-content auto; gap: 2px 14px;
          font-size: 14px; }
dl.info dt { font-weight: 600; }
"""


def _fig_png(fig) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", bbox_inches="tight", facecolor="white")
    return buf.getvalue()


def _fmt(v) -> str:
    if isinstance(v, bool | np.bool_):
        return "yes" if v else ""
    if isinstance(v, int | np.integer):
        return f"{int(v):,}"
    if isinstance(v, float | np.floating):
        if np.isnan(v):
            return ""
        if np.isinf(v):
            return "inf"
        a = abs(v)
        if a < 1e-12:  # rounding noise of an interval bound at 0 (p-values: with_p_text)
            return "0"
        if a < 1e-3:
            return f"{v:.1e}"
        if a >= 1000:
            return f"{v:,.0f}"
        return f"{v:.3f}" if a < 10 else f"{v:.2f}"
    if v is pd.NA or v is None:
        return ""
    return str(v)


def table_html(frame: pd.DataFrame, max_rows: int = 80) -> str:
    """A DataFrame as a compact HTML table (index levels as the first columns)."""
    t = with_p_text(frame if frame.index.names == [None] else frame.reset_index())
    if len(t) > max_rows:
        t = t.iloc[:max_rows]
        more = f"<p class='caption'>first {max_rows} of {len(frame)} rows (all in the CSV)</p>"
    else:
        more = ""
    def is_text(c) -> bool:  # left-aligned; p-values and interval ends: numbers as text
        return c not in P_COLUMNS and c not in CI_COLUMNS and (t[c].dtype == object
                                       or str(t[c].dtype) in ("category", "str", "string"))

    text = [is_text(c) for c in t.columns]
    head = "".join(f"<th class='{'text' if x else ''}'>{html.escape(str(c))}</th>"
                   for c, x in zip(t.columns, text, strict=True))
    rows = []
    sig = t["significant"].to_numpy() if "significant" in t.columns else None
    for i, r in enumerate(t.itertuples(index=False)):
        cells = []
        for v, x in zip(r, text, strict=True):
            cls = "text" if isinstance(v, str) and x else ""
            cells.append(f"<td class='{cls}'>{html.escape(_fmt(v))}</td>")
        cls = " class='sig'" if sig is not None and bool(sig[i]) else ""
        rows.append(f"<tr{cls}>{''.join(cells)}</tr>")
    return (f"<div class='scroll'><table><thead><tr>{head}</tr></thead><tbody>"
            f"{''.join(rows)}</tbody></table></div>{more}")


def render_html(sections, info: dict, out: Path) -> str:
    """The report's HTML; writes each table's CSV and each figure's PNG under ``out``."""
    out = Path(out)
    body = []
    title = html.escape(str(info.get("title") or f"catansim report: {info.get('experiment')}"))
    body.append(f"<h1>{title}</h1>")
    if info.get("description"):
        body.append(f"<p>{html.escape(info['description'])}</p>")
    items = info.get("items") or [  # a study of several datasets brings its own
        ("dataset", info["dataset"]), ("games per variant", f"{info['games']:,}" + (
            "" if info.get("complete", True) else
            f" of {info['games_planned']:,} planned (an incomplete dataset)")),
        ("variants", ", ".join(info["variants"])), ("players", info.get("players")),
        ("strategies", ", ".join(info.get("strategies", []))),
        ("layout", info.get("layout")), ("catansim", info.get("catansim_version")),
        ("analyses", f"{info['analysis_seconds']} s, one pass over the dataset")]
    body.append("<dl class='info'>" + "".join(
        f"<dt>{html.escape(k)}</dt><dd>{html.escape(str(v))}</dd>" for k, v in items) + "</dl>")
    if info.get("notes"):
        body.append("<p class='note'><b>Notes.</b> " + "<br>".join(
            html.escape(n[:1].upper() + n[1:]) for n in info["notes"]) + "</p>")
    body.append("<nav>" + "".join(f"<a href='#{s.key}'>{html.escape(s.title)}</a>"
                                  for s in sections) + "</nav>")
    for s in sections:
        body.append(f"<section id='{s.key}'><h2>{html.escape(s.title)}</h2>")
        body.append(f"<p class='note'><b>Method.</b> {html.escape(s.note)}</p>")
        for block in s.blocks:
            kind = block[0]
            if kind == "figure":
                _, name, fig, caption = block
                png = _fig_png(fig)
                atomic_write_bytes(out / "figures" / f"{name}.png", png)
                data = base64.b64encode(png).decode()
                cap = f"<figcaption class='caption'>{html.escape(caption)}</figcaption>" \
                    if caption else ""
                body.append(f"<figure><img alt='{html.escape(name)}' "
                            f"src='data:image/png;base64,{data}'>{cap}</figure>")
            elif kind == "table":
                _, name, frame, caption, csv = block
                atomic_write_text(out / "tables" / f"{name}.csv", csv.to_csv())
                body.append(f"<h3>{html.escape(name.replace('_', ' '))}</h3>")
                body.append(table_html(frame))
                body.append(f"<p class='caption'>{html.escape(caption)} "
                            f"(tables/{html.escape(name)}.csv)</p>")
            else:
                body.append(block[1])
        body.append("</section>")
    return ("<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
            f"<title>{title}</title><style>{CSS}</style></head><body><main>"
            + "\n".join(body) + "</main></body></html>\n")
