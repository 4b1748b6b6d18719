"""Notebook widgets (ipywidgets) to explore boards and games in JupyterLab.

- ``BoardExplorer``: pick a layout and seed, or edit a board as compact text; see the
  board with its reference draft and fairness index (``catansim.board.fairness``); ask
  for its value map, which plays the ``catansim openings`` experiment with a progress
  bar and draws every node's value;
- ``GameStepper``: step through a game's log (slider, play and step buttons), the
  board with its pieces and robber, each seat's cards, points and pieces, and the
  event's narrative line, from the log alone (``catansim.viewer.game_view``).

Each is displayed by leaving it as a cell's last value (``widget`` is the
ipywidgets box). ipywidgets is imported when a widget is made, so importing this
module needs only catansim; without ipywidgets, making a widget is a one-line error.

May import anything of catansim: widgets sit at the end of the data path, beside the
commands (boards, fairness, the runner, analyses, figures, the viewer).
"""

from __future__ import annotations

import html
import tempfile
from pathlib import Path

from .board import (
    LAYOUTS,
    SEEDED_LAYOUTS,
    Board,
    beginner_board,
    compact_text,
    make_board,
    parse_board,
)
from .board.fairness import fairness
from .checks import did_you_mean
from .constants import RESOURCE_NAMES, seat_colours
from .errors import CatansimError
from .logs.checker import Geometry
from .plotting import draw_board
from .plotting.openings import value_map_figure
from .plotting.style import figure_png
from .viewer import GLOBAL_FIELDS, SEAT_FIELDS, game_view

EDIT = "edit"  # the layout choice of a board typed as compact text


def _ipywidgets():
    try:
        import ipywidgets  # noqa: PLC0415  (the notebooks extra: a missing one is one line)
    except ImportError:
        raise CatansimError("catansim.widgets: ipywidgets is not installed; allowed: "
                            "pip install 'catansim[notebooks]'") from None
    return ipywidgets


def _show_figure(image, fig) -> None:
    """Show a matplotlib figure in an Image widget, as a PNG (the figure is then closed)."""
    image.value = figure_png(fig, dpi=100)


class _Shown:
    """Displayed as its ``widget`` (an ipywidgets box)."""

    widget = None

    def _repr_mimebundle_(self, **kwargs):
        return self.widget._repr_mimebundle_(**kwargs)


class BoardExplorer(_Shown):
    """Pick or edit a board, see its fairness, and measure its openings' values.

    Parameters
    ----------
    layout : str
        ``beginner``, a seeded layout (``variable``, ``random_numbers``, ``balanced``)
        or ``edit`` (the board typed in the text box).
    seed : int
        Board seed of a seeded layout.
    players : int
        3 or 4 seats (the fairness index and the value map depend on them).
    games : int
        Paired games per forced opening in the value map.
    strategies : str
        The seats' strategy (one preset name for every seat).

    Attributes
    ----------
    board : catansim.board.Board
        The board shown.
    fairness : catansim.board.fairness.Fairness
        Its fairness index, reference draft and predicted seat win rates.
    values : dict of DataFrames or None
        The last value map (``catansim.analysis.openings.opening_values``).
    widget : ipywidgets.VBox
    """

    def __init__(self, layout: str = "variable", seed: int = 0, players: int = 4,
                 games: int = 200, strategies: str = "default"):
        W = _ipywidgets()
        if layout not in (*LAYOUTS, EDIT):
            raise CatansimError(f"layout: {layout!r} is not allowed"
                                f"{did_you_mean(layout, (*LAYOUTS, EDIT))}; allowed: "
                                f"{', '.join((*LAYOUTS, EDIT))}")
        self.strategies = strategies
        self.values = None
        self.layout = W.Dropdown(options=[*LAYOUTS, EDIT], value=layout, description="layout")
        self.seed = W.BoundedIntText(value=seed, min=0, max=2**62, description="seed")
        self.players = W.ToggleButtons(options=[4, 3], value=players, description="players")
        self.text = W.Textarea(rows=2, layout=W.Layout(width="100%"),
                               placeholder="compact text: M10 P2 F9 / G12 H6 ... | harbors")
        self.use_text = W.Button(description="draw this board", icon="pencil")
        self.message = W.HTML()
        self.board_out = W.Image(format="png")
        self.fairness_html = W.HTML()
        self.games = W.BoundedIntText(value=games, min=10, max=1_000_000,
                                      description="games/arm")
        self.seat = W.Dropdown(options=["all", *range(players)], value=0, description="seat")
        self.value_button = W.Button(description="value map", icon="play",
                                     button_style="primary")
        self.progress = W.IntProgress(value=0, min=0, max=1, description="openings",
                                      layout=W.Layout(width="60%"))
        self.status = W.HTML()
        self.value_out = W.Image(format="png")
        self.widget = W.VBox([
            W.HBox([self.layout, self.seed, self.players]),
            W.HBox([self.text, self.use_text], layout=W.Layout(width="100%")),
            self.message,
            W.HBox([self.board_out, self.fairness_html]),
            W.HBox([self.games, self.seat, self.value_button]),
            W.HBox([self.progress, self.status]),
            self.value_out,
        ])
        self._quiet = False  # set while the explorer itself changes the layout
        for w in (self.layout, self.seed, self.players):
            w.observe(lambda change: None if self._quiet else self.refresh(), names="value")
        self.use_text.on_click(lambda _: self.refresh(from_text=True))
        self.value_button.on_click(lambda _: self.value_map())
        self.refresh()

    # -- the board and its fairness ---------------------------------------------------------
    def _board(self, from_text: bool) -> Board:
        layout = self.layout.value
        if from_text or layout == EDIT:
            return parse_board(self.text.value)
        if layout == "beginner":
            return beginner_board()
        return make_board(layout, int(self.seed.value))

    def refresh(self, from_text: bool = False) -> None:
        """Draw the chosen board and its fairness (a bad board text: one line, in red)."""
        try:
            board = self._board(from_text)
        except CatansimError as exc:
            self.message.value = f"<span style='color:#c62828'>{_escape(exc)}</span>"
            return
        if from_text and self.layout.value != EDIT:
            self._quiet = True
            try:
                self.layout.value = EDIT
            finally:
                self._quiet = False
        self.message.value = ""
        self.board = board
        n = int(self.players.value)
        self.seat.options = ["all", *range(n)]
        self.seed.disabled = self.layout.value not in SEEDED_LAYOUTS
        if not from_text:
            self.text.value = compact_text(board)
        self.fairness = fairness(board, n)
        self._draw()

    def _draw(self) -> None:
        f, n = self.fairness, int(self.players.value)
        colours = seat_colours(n)
        owner, level = [-1] * 54, [0] * 54
        for seat, nodes in enumerate(f.draft.tolist()):
            for node in nodes:
                owner[node], level[node] = seat, 1
        ax = draw_board(self.board, pieces={"node_owner": owner, "node_level": level,
                                            "edge_owner": [-1] * 72},
                        colours=colours, title="the reference draft (settlements)")
        ax.figure.set_size_inches(5.5, 5.5)
        _show_figure(self.board_out, ax.figure)
        rows = "".join(
            f"<tr><td>{colours[s]} (seat {s})</td><td>{100 * p:.1f}%</td>"
            f"<td>{f.draft[s][0]}, {f.draft[s][1]}</td></tr>"
            for s, p in enumerate(f.predicted))
        verdict = "balanced" if f.balanced else ("not balanced" if n == 4 else "")
        self.fairness_html.value = (
            f"<h4>fairness index {f.index:.3f} {verdict}</h4>"
            "<p>RMS distance of the predicted win rates from the fair share "
            f"({100 / n:.1f}%); 0 is a fair board.</p>"
            "<table><tr><th>seat</th><th>predicted win rate</th><th>draft nodes</th></tr>"
            f"{rows}</table>")

    # -- the value map ---------------------------------------------------------------------
    def value_map(self, data=None) -> dict:
        """Play the openings experiment of this board (progress bar), draw its value map.

        ``data``: keep the games in this dataset folder (rerunning reads them back, as
        ``catansim openings --data``); default a temporary folder. Returns ``values``.
        """
        # the runner and the analyses: +1.2 s to importing this module, for one button
        from .analysis import openings as AO  # noqa: PLC0415
        from .runs.runner import run_experiment  # noqa: PLC0415
        from .studies.openings import value_map_experiment  # noqa: PLC0415

        n = int(self.players.value)
        seats = list(range(n)) if self.seat.value == "all" else [int(self.seat.value)]
        with tempfile.TemporaryDirectory(prefix="catansim-widget-") as tmp:
            root = Path(tmp)
            if self.layout.value == "beginner":
                spec, label = "beginner", "the beginner map (openings free)"
            elif self.layout.value in SEEDED_LAYOUTS:
                spec = f"{self.layout.value}:{int(self.seed.value)}"
                label = f"{self.layout.value} board, seed {int(self.seed.value)}"
            else:
                spec, label = str(root / "board.txt"), "the edited board"
                (root / "board.txt").write_text(compact_text(self.board) + "\n")
            exp = value_map_experiment(spec, label, n, seats, 1, int(self.games.value),
                                       [self.strategies] * n)
            total = exp.games * len(exp.variants)
            self.progress.max, self.progress.value = total, 0
            self.status.value = f"{len(exp.variants) - 1} openings + the baseline, {total:,} games"

            def done(task):
                self.progress.value += task.n_games

            self.value_button.disabled = True
            try:
                out = root / "data" if data is None else Path(data)
                run_experiment(exp, out=out, progress=False, on_part=done)
                self.progress.value = total  # parts read back from ``data`` count too
                self.values = AO.opening_values(out)
            finally:
                self.value_button.disabled = False
        fig = value_map_figure(self.values["arms"], exp.board, kind="first", n_players=n,
                               title=f"Value of each first settlement: {label}")
        _show_figure(self.value_out, fig)
        self.status.value = f"done: {total:,} games"
        return self.values


class GameStepper(_Shown):
    """Step through a game's log: the board, each seat's state and the narrative.

    Parameters
    ----------
    header, events
        A game log (``catansim.logs.read_log``, ``catansim.logs.game_log``).
    show_all : bool
        Show every card (else hidden cards as counts, as the table sees them).

    Attributes
    ----------
    slider : ipywidgets.IntSlider
        The event shown (0 .. events - 1); set ``slider.value`` to move.
    widget : ipywidgets.VBox
    """

    def __init__(self, header: dict, events: list[dict], show_all: bool = False):
        W = _ipywidgets()
        self.view = game_view(header, events)
        self.geo = Geometry(header["board"])
        self._seat_i = {f: i for i, f in enumerate(SEAT_FIELDS)}
        self._glob_i = {f: i for i, f in enumerate(GLOBAL_FIELDS)}
        self.board = Board.from_header(self.geo.board_ours())
        n = len(events)
        self.slider = W.IntSlider(value=0, min=0, max=max(0, n - 1), description="event",
                                  continuous_update=False, layout=W.Layout(width="70%"))
        self.play = W.Play(value=0, min=0, max=max(0, n - 1), interval=300)
        W.jslink((self.play, "value"), (self.slider, "value"))
        self.prev = W.Button(description="◀", layout=W.Layout(width="40px"))
        self.next = W.Button(description="▶", layout=W.Layout(width="40px"))
        self.show_all = W.Checkbox(value=show_all, description="show all cards")
        self.line = W.HTML()
        self.board_out = W.Image(format="png")
        self.seats_html = W.HTML()
        self.widget = W.VBox([W.HBox([self.play, self.prev, self.next, self.slider,
                                      self.show_all]),
                              self.line, W.HBox([self.board_out, self.seats_html])])
        self.prev.on_click(lambda _: self._move(-1))
        self.next.on_click(lambda _: self._move(1))
        self.slider.observe(lambda change: self.render(), names="value")
        self.show_all.observe(lambda change: self.render(), names="value")
        self._states = self._rebuild()
        if n:
            self.render()

    def _rebuild(self) -> list:
        seats, glob, pieces, roads, out = [None] * self.view["n_players"], None, {}, {}, []
        for step in self.view["steps"]:
            for row in step.get("seats", []):
                seats[row[0]] = row[1:]
            glob = step.get("globals", glob)
            pieces = {**pieces, **{n: (p, lv) for n, p, lv in step.get("pieces", [])}}
            roads = {**roads, **{e: p for e, p in step.get("roads", [])}}
            out.append((list(seats), glob, pieces, roads))
        return out

    def _move(self, by: int) -> None:
        self.slider.value = min(max(self.slider.value + by, 0), self.slider.max)

    def render(self) -> None:
        """Show the state after event ``slider.value``."""
        k = self.slider.value
        seats, glob, pieces, roads = self._states[k]
        geo, v = self.geo, self.view
        owner, level, edge_owner = [-1] * 54, [0] * 54, [-1] * 72
        for node, (p, lv) in pieces.items():
            owner[geo.our_node[node]], level[geo.our_node[node]] = p, lv
        for edge, p in roads.items():
            edge_owner[geo.our_edge[edge]] = p
        turn = glob[self._glob_i["turn"]]
        ax = draw_board(self.board, pieces={"node_owner": owner, "node_level": level,
                                            "edge_owner": edge_owner},
                        robber=geo.our_hex[glob[self._glob_i["robber"]]],
                        colours=v["colours"],
                        title=f"event {k + 1} of {len(v['steps'])}, "
                              + (f"turn {turn}" if turn else "set-up"))
        ax.figure.set_size_inches(5.5, 5.5)
        _show_figure(self.board_out, ax.figure)
        self.line.value = f"<b>{_escape(v['text'][k])}</b>"
        self.seats_html.value = self._seats_table(seats, glob)

    def _seats_table(self, seats, glob) -> str:
        si, all_cards, v = self._seat_i, self.show_all.value, self.view
        head = "".join(f"<th>{r}</th>" for r in RESOURCE_NAMES) if all_cards else "<th>cards</th>"
        rows = []
        for p, row in enumerate(seats):
            hand = [row[si[f"hand_{r}"]] for r in RESOURCE_NAMES]
            devs = sum(row[si[f"dev_{c}"]] for c in v["dev_cards"])
            vp = row[si["vp_total"]] if all_cards else row[si["vp_visible"]]
            tiles = [name for name, key in (("Longest Route", "longest_route"),
                                            ("Largest Army", "largest_army"))
                     if glob[self._glob_i[key]] == p]
            cards = "".join(f"<td>{x}</td>" for x in hand) if all_cards else f"<td>{sum(hand)}</td>"
            rows.append(
                f"<tr><td>{v['colours'][p]}</td><td><b>{vp}</b></td>{cards}<td>{devs}</td>"
                f"<td>{row[si['knights']]}</td><td>{row[si['roads_left']]}/"
                f"{row[si['settlements_left']]}/{row[si['cities_left']]}</td>"
                f"<td>{', '.join(tiles)}</td></tr>")
        return ("<table><tr><th>seat</th><th>VP</th>" + head + "<th>dev</th><th>knights</th>"
                "<th>left: roads/settl./cities</th><th>tiles</th></tr>" + "".join(rows)
                + "</table>")


def _escape(x) -> str:
    return html.escape(str(x))
