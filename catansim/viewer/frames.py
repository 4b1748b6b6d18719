"""What the viewer shows, from a game log alone: the board's drawing and every step's state.

``game_view(header, events)`` replays the log with the pure-Python checker
(``catansim.logs.replay``, which knows the game only from the log: any writer's
numbering, any valid log) and records, after every event, each seat's cards,
victory points, pieces and tiles, the supply, the robber and the pieces on the
board, with the event's narrative line. The result is plain JSON data; the page
(``viewer.page``) only draws it and never applies a rule itself.

Steps are the events: step ``k`` is the state right after event ``k`` (0-based, the
header not counted). To keep the page small, a step stores only what changed
since the step before (``seats``: the rows of the seats that changed, ``globals``:
the global row if it changed, ``pieces`` and ``roads``: buildings and roads that
appeared or changed); the page rebuilds every step's full state once on load.
"""

from __future__ import annotations

from ..constants import DEV_CARD_NAMES, PIPS, RESOURCE_NAMES, TERRAIN_NAMES, seat_colours
from ..logs.checker import TERRAIN_RESOURCE, UNLIMITED, Geometry, replay
from ..logs.narrative import EventNarrator
from ..palette import (
    DISC_COLOUR,
    RED_NUMBER_COLOUR,
    SEA_COLOUR,
    SEA_HEX_COLOUR,
    SEAT_COLOURS,
    TERRAIN_COLOURS,
)
from ..topology import hex_to_xy

# One row per seat and step, in this order (names the page indexes by).
SEAT_FIELDS = (
    *(f"hand_{r}" for r in RESOURCE_NAMES),  # resource cards held
    *(f"dev_{c}" for c in DEV_CARD_NAMES),  # development cards held, not yet played
    "knights",  # knights played
    "vp_settlements", "vp_cities", "vp_longest_route", "vp_largest_army",
    "vp_cards",  # hidden: victory point cards held
    "vp_total",  # every point, hidden cards included
    "vp_visible",  # what the table sees: vp_total - vp_cards
    "roads_left", "settlements_left", "cities_left",  # pieces not yet on the board
    "route_length",  # the seat's longest route
)
# One row per step for the whole game; -1 is "none" (no holder, an unlimited supply,
# no seat acting, the set-up before turn 1).
GLOBAL_FIELDS = (
    "turn",  # the turn started last (0 in the set-up)
    "active",  # the seat whose turn it is, -1 in the set-up
    "robber",  # the robber's hex (the header's numbering)
    *(f"supply_{r}" for r in RESOURCE_NAMES),  # cards left in the supply, -1 unlimited
    "dev_deck",  # development cards left in the deck
    "longest_route",  # seat holding the Longest Route tile, -1 none
    "largest_army",  # seat holding the Largest Army tile, -1 none
)


def _seat_row(game, p: int) -> list[int]:
    vp = game.vp(p)
    return [
        *game.hands[p],
        *(game.dev_hand[p][c] for c in DEV_CARD_NAMES),
        game.knights[p],
        vp["settlements"], vp["cities"], vp["longest_route"], vp["largest_army"],
        vp["vp_cards"], vp["total"], vp["total"] - vp["vp_cards"],
        game.roads_left[p], game.settlements_left[p], game.cities_left[p],
        game.route_len[p],
    ]


def _global_row(game) -> list[int]:
    none = -1
    return [
        game.turn,
        none if game.active is None else game.active,
        game.robber,
        *(none if game.bank_size == UNLIMITED else s for s in game.supply),
        sum(game.deck.values()),
        none if game.longest is None else game.longest,
        none if game.army is None else game.army,
    ]


def _geometry(geo) -> dict:
    """The board's drawing in page units (hex circumradius 1, y grows downward)."""
    hexes = []
    for h, (q, r) in enumerate(geo.hex_coords):
        x, y = hex_to_xy(q, r)
        num = geo.hex_number[h]
        hexes.append({"x": round(x, 4), "y": round(y, 4), "terrain": geo.hex_terrain[h],
                      "number": num, "pips": 0 if num is None else PIPS[num]})
    nodes = []
    for coords in geo.node_coords:
        xy = [hex_to_xy(q, r) for q, r in coords]
        nodes.append([round(sum(p[0] for p in xy) / 3, 4), round(sum(p[1] for p in xy) / 3, 4)])
    land = set(geo.hex_coords)
    harbors = []
    for e, kind in geo.harbors:
        a, b = geo.edge_nodes[e]
        sea = [c for c in geo.node_coords[a] & geo.node_coords[b] if c not in land]
        mx, my = (nodes[a][0] + nodes[b][0]) / 2, (nodes[a][1] + nodes[b][1]) / 2
        if sea:  # the harbor's mark sits on the sea side of its edge
            sx, sy = hex_to_xy(*sea[0])
            mx, my = mx + 0.45 * (sx - mx), my + 0.45 * (sy - my)
        harbors.append({"edge": e, "kind": kind, "x": round(mx, 4), "y": round(my, 4)})
    return {"hexes": hexes, "nodes": nodes, "edges": [list(p) for p in geo.edge_nodes],
            "harbors": harbors}


def _changed(now: dict, before: dict) -> list[list[int]]:
    return [[k, *v] if isinstance(v, tuple) else [k, v]
            for k, v in sorted(now.items()) if before.get(k) != v]


def game_view(header: dict, events: list[dict]) -> dict:
    """Every step of a game as the viewer shows it, from its log alone.

    Parameters
    ----------
    header : dict
        The log's header (``catansim.logs.read_log``).
    events : list of dict
        The log's events, ``game_end`` last.

    Returns
    -------
    dict
        JSON-able: ``title``, ``n_players``, ``strategies``, ``colours`` (seat colour
        names) and ``palette`` (their drawn colours and the terrains'), ``rules``,
        ``resources``, ``dev_cards``, ``seat_fields`` / ``global_fields`` (the row
        layouts above), ``board`` (``hexes`` with ``x, y, terrain, number, pips``;
        ``nodes`` ``[x, y]``; ``edges`` ``[node, node]``; ``harbors``), ``events``
        (the log's events as written), ``text`` (each event's narrative line) and
        ``steps``: per event, the changes it made (``seats``: ``[seat, *row]``
        lists, ``globals``: a row or absent, ``pieces``: ``[node, seat, level]``
        with level 1 a settlement and 2 a city, ``roads``: ``[edge, seat]``).

    Raises
    ------
    catansim.logs.LogError
        A malformed event or header (the rules themselves are not checked here:
        ``catansim.logs.replay(..., check=True)`` does).
    """
    narrator = EventNarrator()
    steps, text = [], []
    last = {"seats": [None] * int(header["n_players"]), "globals": None,
            "pieces": {}, "roads": {}}

    def record(game, ev):
        narrator(game, ev)
        text.append(narrator.last)
        step = {}
        seats = []
        for p in range(game.n):
            row = _seat_row(game, p)
            if row != last["seats"][p]:
                seats.append([p, *row])
                last["seats"][p] = row
        if seats:
            step["seats"] = seats
        g = _global_row(game)
        if g != last["globals"]:
            step["globals"] = g
            last["globals"] = g
        for key, now in (("pieces", dict(game.buildings)), ("roads", dict(game.roads))):
            changed = _changed(now, last[key])
            if changed:
                step[key] = changed
            last[key] = now
        steps.append(step)

    result = replay(header, events, check=False, observer=record)
    n = result.n_players
    colours = seat_colours(n)
    geo = Geometry(header["board"])
    return {
        "title": f"seed {header['seed']}: " + ", ".join(
            f"{c} {s}" for c, s in zip(colours, result.strategies, strict=True)),
        "n_players": n,
        "strategies": list(result.strategies),
        "colours": list(colours),
        "palette": {"seats": [SEAT_COLOURS[c] for c in colours],
                    "terrains": dict(zip(TERRAIN_NAMES, TERRAIN_COLOURS, strict=True)),
                    "sea": SEA_COLOUR, "sea_hex": SEA_HEX_COLOUR, "disc": DISC_COLOUR,
                    "red_number": RED_NUMBER_COLOUR},
        "rules": dict(header["rules"]),
        "robber_start": geo.robber,
        "terrain_of": {res: t for t, res in TERRAIN_RESOURCE.items() if res is not None},
        "resources": list(RESOURCE_NAMES),
        "dev_cards": list(DEV_CARD_NAMES),
        "seat_fields": list(SEAT_FIELDS),
        "global_fields": list(GLOBAL_FIELDS),
        "board": _geometry(geo),
        "events": list(events),
        "text": text,
        "steps": steps,
    }
