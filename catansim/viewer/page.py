"""The viewer's page: one self-contained HTML file (inline CSS, script and data; no network).

The script (``static/viewer.js``) and style (``static/viewer.css``) are written into
the page with the game's data (``frames.game_view``) as a JSON script element, so
the file works from ``file://``, offline, and inside a notebook (``inline_html``: the
page in an ``iframe``'s ``srcdoc``, so that several viewers in one notebook do not
share ids or styles).
"""

from __future__ import annotations

import html
import json
from importlib import resources
from pathlib import Path

from ..files import atomic_write_text
from .frames import game_view

_BODY = """<header><h1 id="title"></h1><p id="outcome"></p></header>
<main>
<div id="left">
<svg id="board" viewBox="-5.4 -5.0 10.8 10.0" role="img" aria-label="the board"></svg>
<div id="controls">
<button id="first" title="first event">|◀</button>
<button id="prev-turn" title="previous turn (Page Up)">◀◀ turn</button>
<button id="prev" title="previous event (←)">◀ step</button>
<button id="next" title="next event (→)">step ▶</button>
<button id="next-turn" title="next turn (Page Down)">turn ▶▶</button>
<button id="last" title="last event">▶|</button>
<button id="play">▶ play</button>
<select id="speed" title="playback speed"><option value="600">slow</option>
<option value="250" selected>normal</option><option value="60">fast</option></select>
<label><input type="checkbox" id="show-all"> show all cards</label>
<input type="range" id="slider" min="0" max="0" value="0" aria-label="event">
<span id="position"></span>
</div>
<div id="current-line"></div>
<ul id="narrative"></ul>
</div>
<div id="right">
<div id="seats"></div>
<div id="supply"></div>
<div id="legend"></div>
<div id="charts"><svg id="dice-chart"></svg><svg id="production-chart"></svg>
<svg id="vp-chart"></svg></div>
</div>
</main>"""


def _static(name: str) -> str:
    return resources.files(__package__).joinpath("static", name).read_text(encoding="utf-8")


def _json_for_script(data) -> str:
    # "<" escaped: the data can never close its <script> element or open a comment.
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False).replace("<", "\\u003c")


def viewer_html(header: dict, events: list[dict], title: str | None = None) -> str:
    """The viewer of one game as a self-contained HTML page.

    Parameters
    ----------
    header, events
        A game log (``catansim.logs.read_log``): any valid log, of any writer.
    title : str, optional
        The page's title (default: the game's seed and seats).

    Returns
    -------
    str
        The page: the board drawn in SVG, a slider and step buttons over every
        event, each seat's cards (hidden ones as counts, all with "show all
        cards"), victory points, pieces and tiles, the narrative of the current
        turn, and dice, production and victory-point charts.
    """
    data = game_view(header, events)
    page_title = html.escape(title or f"catansim game viewer: {data['title']}")
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<meta name=\"viewport\" content=\"width=device-width\"><title>{page_title}</title>"
            f"<style>{_static('viewer.css')}</style></head>\n<body>\n{_BODY}\n"
            f"<script type=\"application/json\" id=\"game-data\">{_json_for_script(data)}"
            f"</script>\n<script>{_static('viewer.js')}</script>\n</body></html>\n")


def write_viewer(path, header: dict, events: list[dict], title: str | None = None) -> Path:
    """Write the viewer page to ``path`` atomically (a page at ``path`` is complete)."""
    path = Path(path)
    atomic_write_text(path, viewer_html(header, events, title))
    return path


def inline_html(header: dict, events: list[dict], height: int = 940) -> str:
    """The viewer for a notebook's output: the page in an ``iframe`` (``srcdoc``)."""
    page = viewer_html(header, events)
    return (f"<iframe srcdoc=\"{html.escape(page, quote=True)}\" style=\"width:100%;"
            f"height:{int(height)}px;border:1px solid #ddd\" "
            "title=\"catansim game viewer\"></iframe>")
