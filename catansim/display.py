"""How a result shows itself in a notebook: views registered from above.

A played game (``settings.GameResult``) and a replayed log (``logs.ReplayResult``)
know nothing of the game viewer that draws them: their ``_repr_html_`` asks this
registry for the view of their kind (``GAME``, ``REPLAY``). The package ``catansim``
registers the viewer's pages, which import the viewer when a result is first shown;
without a view registered, a result shows as text.

May import: nothing of catansim (every layer may import it).
"""

from __future__ import annotations

from collections.abc import Callable

GAME = "game"  # a played game (``settings.GameResult``)
REPLAY = "replay"  # a replayed log (``logs.ReplayResult``)

_HTML_VIEWS: dict[str, Callable[[object], str | None]] = {}


def register_html(kind: str, view: Callable[[object], str | None]) -> None:
    """Show results of ``kind`` (``GAME`` or ``REPLAY``) in a notebook as ``view(result)``
    (HTML, or None for text); a later registration replaces an earlier one."""
    _HTML_VIEWS[kind] = view


def html(kind: str, result) -> str | None:
    """The HTML of ``result`` by the view registered for ``kind``; None without one."""
    view = _HTML_VIEWS.get(kind)
    return None if view is None else view(result)
