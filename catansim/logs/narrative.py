"""A game told turn by turn, and the final standings, from a game log.

The narrator watches the checker replay the log (``checker.replay(...,
observer=...)``) and turns each event, with the state after it, into a line:
``Turn 12 — blue (seat 1) rolls 4+4 = 8``, then indented production, trades,
builds, robber moves and tile changes. It checks nothing itself.
"""

from __future__ import annotations

from ..constants import RESOURCE_NAMES, seat_colours
from .checker import ReplayResult, replay


def _fmt_bundle(b) -> str:
    parts = [f"{n} {RESOURCE_NAMES[r]}" for r, n in enumerate(b) if n]
    return ", ".join(parts) if parts else "nothing"


class _Narrator:
    """Collects the lines of the story; called with ``(state, event)`` after each event."""

    def __init__(self):
        self.lines: list[str] = []
        self.turn_line: str | None = None  # "Turn 12 — ..." not yet printed

    def __call__(self, game, ev):
        text = getattr(self, "on_" + ev["e"], _silent)(game, ev)
        if text is not None:
            self.say(text)

    def say(self, text: str, indent: bool = True):
        if self.turn_line is not None:
            self.lines.append(self.turn_line)
            self.turn_line = None
        self.lines.append(("  " if indent else "") + text)

    def finish(self):
        if self.turn_line is not None:
            self.lines.append(self.turn_line)
            self.turn_line = None

    # one method per event: the line it adds (None: nothing to tell)
    def on_setup_settlement(self, game, ev):
        self.say(f"Setup: {game.who(ev['p'])} settles at {game.geo.node_name(ev['node'])}",
                 indent=False)

    def on_setup_road(self, game, ev):
        return f"road on {game.geo.edge_name(ev['edge'])}"

    def on_starting_resources(self, game, ev):
        return f"{game.who(ev['p'])} takes starting cards: {_fmt_bundle(ev['cards'])}"

    def on_turn_start(self, game, ev):
        self.turn_line = f"Turn {game.turn} — {game.who(ev['p'])}"

    def on_roll(self, game, ev):
        d1, d2 = ev["dice"]
        text = f"rolls {d1}+{d2} = {d1 + d2}"
        if self.turn_line is not None:
            self.lines.append(f"{self.turn_line} {text}")
            self.turn_line = None
            return None
        return text

    def on_production(self, game, ev):
        parts = [
            game.colours[q] + "".join(f" +{n} {RESOURCE_NAMES[r]}" for r, n in enumerate(g) if n)
            for q, g in enumerate(ev["gains"])
            if any(g)
        ]
        text = "produces " + ("; ".join(parts) if parts else "nothing")
        if any(ev["withheld"]):
            text += f" (withheld by the shortage rule: {_fmt_bundle(ev['withheld'])})"
        return text

    def on_discard(self, game, ev):
        return f"{game.colours[ev['p']]} discards {_fmt_bundle(ev['cards'])}"

    def on_robber(self, game, ev):
        h = ev["hex"]
        text = f"robber to {game.geo.hex_name(h)} (hex {h})"
        if ev["victim"] is not None:
            what = ev["stolen"] if ev["stolen"] is not None else "nothing"
            text += f", steals {what} from {game.colours[ev['victim']]}"
        return text

    def on_trade_bank(self, game, ev):
        return f"trades {_fmt_bundle(ev['give'])} to the supply for {_fmt_bundle(ev['get'])}"

    def on_trade_player(self, game, ev):
        return (f"trades {_fmt_bundle(ev['give'])} to {game.colours[ev['partner']]} for "
                f"{_fmt_bundle(ev['get'])}")

    def on_build_road(self, game, ev):
        return f"builds a {'free ' if ev['free'] else ''}road on {game.geo.edge_name(ev['edge'])}"

    def on_build_settlement(self, game, ev):
        return f"builds a settlement at {game.geo.node_name(ev['node'])}"

    def on_build_city(self, game, ev):
        return f"builds a city at {game.geo.node_name(ev['node'])}"

    def on_buy_dev(self, game, ev):
        return f"buys a development card ({ev['card']})"

    def on_play_dev(self, game, ev):
        card = ev["card"]
        if card == "knight":
            return f"plays Knight ({game.knights[ev['p']]} played)"
        if card == "road_building":
            return "plays Road Building"
        if card == "invention":
            return f"plays Invention: {_fmt_bundle(ev['cards'])}"
        if card == "monopoly":
            return f"plays Monopoly on {ev['resource']}: takes {sum(ev['taken'])}"
        return f"plays {card.replace('_', ' ').title()}"

    def on_longest_route(self, game, ev):
        p = ev["p"]
        return f"Longest Route → {game.who(p)}" + (f" ({ev['length']})" if p is not None else "")

    def on_largest_army(self, game, ev):
        return f"Largest Army → {game.who(ev['p'])} ({ev['knights']} knights)"


class EventNarrator(_Narrator):
    """The narrative one event at a time (a viewer's caption of each event).

    Use as the replay's observer and read ``last`` after each event: the event's own
    line (the turn's heading for ``turn_start``, the heading and the dice for a
    ``roll``), or a short line for the events the story leaves out.
    """

    def __init__(self):
        super().__init__()
        self.last = ""

    def __call__(self, game, ev):
        n = len(self.lines)
        super().__call__(game, ev)
        new = self.lines[n:]
        if new:
            self.last = new[-1].strip()
        elif ev["e"] == "turn_start":
            self.last = self.turn_line or ""
        elif ev["e"] == "turn_end":
            self.last = f"{game.who(ev['p'])} ends turn {game.turn}"
        elif ev["e"] == "game_end":
            self.last = "Game over: " + ("no winner (turn limit)" if ev["winner"] is None
                                         else f"{game.who(ev['winner'])} wins")
        else:
            self.last = ev["e"].replace("_", " ")


def _silent(game, ev):
    return None


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def standings(result: ReplayResult) -> list[str]:
    """Final standings, one line per seat, best first (ties by seat), e.g.
    ``1. red (seat 0, default): 10 VP — 2 settlements, 1 city, Longest Route (2 VP)``."""
    colours = seat_colours(result.n_players)
    order = sorted(range(result.n_players), key=lambda q: (-result.vp[q]["total"], q))
    lines = []
    for rank, q in enumerate(order, start=1):
        v = result.vp[q]
        parts = [_count(v["settlements"], "settlement", "settlements"),
                 _count(v["cities"] // 2, "city", "cities")]
        if v["longest_route"]:
            parts.append("Longest Route (2 VP)")
        if v["largest_army"]:
            parts.append("Largest Army (2 VP)")
        if v["vp_cards"]:
            parts.append(_count(v["vp_cards"], "VP card", "VP cards"))
        lines.append(f"{rank}. {colours[q]} (seat {q}, {result.strategies[q]}): "
                     f"{v['total']} VP — {', '.join(parts)}")
    return lines


def outcome_line(result: ReplayResult) -> str:
    """How the game ended, in one line."""
    colours = seat_colours(result.n_players)
    if result.reason == "win":
        return f"{colours[result.winner]} (seat {result.winner}) wins on turn {result.turns}."
    if result.reason == "turn_limit":
        return f"Turn limit reached after {result.turns} turns: no winner."
    return "The log ends without game_end."


def narrative(header: dict, events: list[dict], check: bool = False) -> str:
    """A readable turn-by-turn story of a game, then the final standings.

    Parameters
    ----------
    header : dict
    events : list of dict
    check : bool, default False
        Also check every rule while telling (raises ``LogError``).

    Returns
    -------
    str
        Lines such as ``Turn 12 — blue (seat 1) rolls 4+4 = 8`` followed by
        indented production, trades, builds, robber moves and tile changes.
    """
    narrator = _Narrator()
    res = replay(header, events, check=check, observer=narrator)
    narrator.finish()
    lines = [*narrator.lines, outcome_line(res), "Final standings:"]
    lines.extend("  " + s for s in standings(res))
    return "\n".join(lines)
