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
%TIMELINE%<div id="controls">
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
%FLAGGED%</div>
</main>"""


# A review's parts of the page (only with a review: a page without one has none).
_TIMELINE = """<section id="review">
<div id="review-caption"></div>
<svg id="timeline" role="img" aria-label="each seat's chance of winning through the game">
</svg>
<div id="review-now"></div>
</section>
"""
_FLAGGED = """<section id="review-moves"><h2 id="flagged-caption"></h2><ol id="flagged"></ol>
</section>
"""


def _static(name: str) -> str:
    return resources.files(__package__).joinpath("static", name).read_text(encoding="utf-8")


def _json_for_script(data) -> str:
    # "<" escaped: the data can never close its <script> element or open a comment.
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False).replace("<", "\\u003c")


def viewer_html(header: dict, events: list[dict], title: str | None = None, *,
                timeline=None, moves=None) -> str:
    """The viewer of one game as a self-contained HTML page.

    Parameters
    ----------
    header, events
        A game log (``catansim.logs.read_log``): any valid log, of any writer.
    title : str, optional
        The page's title (default: the game's seed and seats).
    timeline, moves : pandas.DataFrame, optional
        A review of the game (``catansim analyse``), with the columns of
        ``catansim.results.review.TIMELINE`` and ``MOVES``: the page then draws each
        seat's chance of winning under the board, with its interval and a cursor at
        the step, and lists the flagged moves (``viewer.review`` checks them).

    Returns
    -------
    str
        The page: the board drawn in SVG, a slider and step buttons over every
        event, each seat's cards (hidden ones as counts, all with "show all
        cards"), victory points, pieces and tiles, the narrative of the current
        turn, and dice, production and victory-point charts.

    Raises
    ------
    catansim.errors.CatansimError
        A review's table that the page cannot draw truthfully (``viewer.review``).
    """
    data = game_view(header, events)
    page_title = html.escape(title or f"catansim game viewer: {data['title']}")
    style, body, scripts = _static("viewer.css"), _BODY, ""
    parts = {"%TIMELINE%": "", "%FLAGGED%": ""}
    if timeline is not None or moves is not None:
        from .review import review_view  # noqa: PLC0415  (pandas only for a review)

        review = review_view(timeline, moves, len(events), data["n_players"])
        if review["timeline"] or review["moves"]:  # tables without rows show nothing
            style += _static("review.css")
            parts = {"%TIMELINE%": _TIMELINE if review["timeline"] else "",
                     "%FLAGGED%": _FLAGGED if review["moves"] else ""}
            scripts = (f"<script type=\"application/json\" id=\"review-data\">"
                       f"{_json_for_script(review)}</script>\n<script>{_static('review.js')}"
                       "</script>\n")
    for mark, part in parts.items():
        body = body.replace(mark, part)
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<meta name=\"viewport\" content=\"width=device-width\"><title>{page_title}</title>"
            f"<style>{style}</style></head>\n<body>\n{body}\n"
            f"<script type=\"application/json\" id=\"game-data\">{_json_for_script(data)}"
            f"</script>\n<script>{_static('viewer.js')}</script>\n{scripts}</body></html>\n")


def write_viewer(path, header: dict, events: list[dict], title: str | None = None, *,
                 timeline=None, moves=None) -> Path:
    """Write the viewer page to ``path`` atomically (a page at ``path`` is complete);
    the arguments are ``viewer_html``'s."""
    path = Path(path)
    atomic_write_text(path, viewer_html(header, events, title, timeline=timeline, moves=moves))
    return path


def inline_html(header: dict, events: list[dict], height: int | None = None, *,
                timeline=None, moves=None) -> str:
    """The viewer for a notebook's output: the page in an ``iframe`` (``srcdoc``); the
    frame is ``height`` pixels high (default 940, 1160 with a review's timeline)."""
    page = viewer_html(header, events, timeline=timeline, moves=moves)
    if height is None:
        height = 940 if timeline is None else 1160
    return (f"<iframe srcdoc=\"{html.escape(page, quote=True)}\" style=\"width:100%;"
            f"height:{int(height)}px;border:1px solid #ddd\" "
            "title=\"catansim game viewer\"></iframe>")
