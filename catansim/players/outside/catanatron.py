"""catanatron's bots in catansim seats: ``CatanatronPlayer`` and the board's geometry.

A ``CatanatronPlayer`` wraps one catanatron player class (``RandomPlayer``,
``WeightedRandomPlayer``, ``VictoryPointPlayer`` from its PyPI release;
``ValueFunctionPlayer``, ``AlphaBetaPlayer`` and the others from its source
repository). At each decision of its seat it

1. mirrors the position into a fresh catanatron ``Game`` (``mirror``): the board by
   geometry (``geometry()``: hexes, numbers, harbors, nodes and edges), the buildings
   and roads, the robber, the supply, every seat's resource and development cards (the
   true state, read from the ``Game`` given with ``watch``), the development deck's
   remaining cards (in a shuffled order: nobody knows it), whose turn it is and the
   pending prompt;
2. lists catanatron's legal actions of that position and keeps those whose ``Option``
   is legal in the catansim game (where the two games' rules differ, catansim's rules
   stand: docs/ladder.md lists the differences);
3. asks the bot, with Python's ``random`` seeded from the game's seed, the seat and the
   decision's number (and put back as it was after), and maps its action to the
   ``Option`` (``to_option``).

Where catanatron takes one action and catansim two decisions, the second comes from the
first: a robber move names its hex and its victim (the ``robber victim`` decision takes
the victim); Year of Plenty names its two cards (the ``Invention`` decision takes them);
Monopoly names its resource. A catansim discard is one bundle: catanatron >= 3.3 bots
discard card by card (asked once a card, on the mirrored game); catanatron 3.2 discards
at random itself, and so does the bridge then (a uniform subset of the hand). The bots
make no player trades: the bridge refuses every offer made to its seat.

catanatron is imported inside the functions that use it (``catansim[catanatron]``, GPL-3;
none of its code is here). Its bots read every hand: the bridge gives them the true
state, the same information its own games give them.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import json
import math
import random
import re
import time
import types
from collections import defaultdict
from dataclasses import dataclass

import numpy as np

from ...constants import (
    CITIES_PER_PLAYER,
    DEV_CARD_COUNTS,
    DEV_CARD_NAMES,
    HARBOR_ANY,
    INVENTION,
    KNIGHT,
    MONOPOLY,
    N_EDGES,
    N_HEXES,
    N_NODES,
    N_RESOURCES,
    ROAD_BUILDING,
    ROADS_PER_PLAYER,
    SETTLEMENTS_PER_PLAYER,
    TERRAIN_RESOURCE,
    VICTORY_POINT,
)
from ...errors import CatansimError
from ...game import Game, Observation, Option
from ...topology import (
    EDGE_BY_NODES,
    EDGE_NODES,
    HARBOR_SLOT_HEXES,
    NODE_NEIGHBOURS,
    NODE_XY,
    hex_index,
    hex_to_xy,
)

PREFIX = "catanatron:"
# What a bot reads of the other seats, chosen by an argument ``view=...`` of its name:
# every seat's true cards (catanatron's own games), or a state dealt anew at each of its
# decisions from what its seat may know (``Game.determinize``).
VIEW = "view="
VIEWS = {"true": "every seat's true cards", "public": "a state dealt from its seat's "
         "public record at each decision, by Game.determinize"}
INSTALL = ("pip install 'catansim[catanatron]' (RandomPlayer, WeightedRandomPlayer, "
           "VictoryPointPlayer); the other bots: docs/ladder.md")
# catanatron's players by class name, and the module each lives in. The PyPI release
# (3.2.1) has the first three; the others are in its source repository only.
BOT_MODULES = {
    "RandomPlayer": "catanatron.models.player",
    "WeightedRandomPlayer": "catanatron.players.weighted_random",
    "VictoryPointPlayer": "catanatron.players.search",
    "ValueFunctionPlayer": "catanatron.players.value",
    "AlphaBetaPlayer": "catanatron.players.minimax",
    "SameTurnAlphaBetaPlayer": "catanatron.players.minimax",
    "GreedyPlayoutsPlayer": "catanatron.players.playouts",
    "MCTSPlayer": "catanatron.players.mcts",
}
# catanatron's resource and development card names in catansim's order.
RESOURCES = ("WOOD", "BRICK", "SHEEP", "WHEAT", "ORE")
DEV_CARDS = ("KNIGHT", "VICTORY_POINT", "ROAD_BUILDING", "YEAR_OF_PLENTY", "MONOPOLY")
# A hex's corners clockwise from the top, as catansim numbers them (topology.HEX_NODES).
CORNERS = ("NORTH", "NORTHEAST", "SOUTHEAST", "SOUTH", "SOUTHWEST", "NORTHWEST")
# The catanatron prompt of each catansim decision the bridge asks the bot about.
PROMPTS = {"setup settlement": "BUILD_INITIAL_SETTLEMENT", "setup road": "BUILD_INITIAL_ROAD",
           "development card before the roll": "PLAY_TURN", "action": "PLAY_TURN",
           "discard": "DISCARD", "robber hex": "MOVE_ROBBER", "robber victim": "MOVE_ROBBER",
           "Road Building road": "PLAY_TURN"}
# No discard limit (None) in a catanatron game.
NO_LIMIT = 10**9


# --- catanatron, imported on first use ---------------------------------------------------


@contextlib.contextmanager
def python_random(seed):
    """Python's ``random`` (which catanatron draws from) seeded with ``seed`` inside,
    and as it was outside."""
    saved = random.getstate()
    random.seed(seed)
    try:
        yield
    finally:
        random.setstate(saved)


@functools.cache
def modules() -> types.SimpleNamespace:
    """catanatron's modules the bridge uses; a one-line error if it is not installed."""
    try:
        with python_random(0):  # importing builds maps from Python's random
            import catanatron  # noqa: PLC0415  (the optional extra, GPL-3)
            from catanatron import game as cgame  # noqa: PLC0415
            from catanatron.models import actions, board, enums, map, player  # noqa: PLC0415
    except ImportError as e:
        raise CatansimError(f"catanatron is not installed ({e}); allowed: {INSTALL}") from None
    per_card = hasattr(enums.ActionType, "DISCARD_RESOURCE")
    return types.SimpleNamespace(
        catanatron=catanatron, Game=cgame.Game, enums=enums, map=map, board=board,
        player=player, Color=player.Color, generate=actions.generate_playable_actions,
        ActionType=enums.ActionType, Action=enums.Action, ActionPrompt=enums.ActionPrompt,
        per_card_discards=per_card, version=_version())


def _version() -> str:
    """catanatron's version, and the commit when pip installed it from a repository."""
    from importlib import metadata  # noqa: PLC0415  (only with catanatron)

    try:
        dist = metadata.distribution("catanatron")
    except metadata.PackageNotFoundError:
        return "unknown"
    try:
        commit = json.loads(dist.read_text("direct_url.json") or "{}").get(
            "vcs_info", {}).get("commit_id")
    except ValueError:
        commit = None
    return dist.version + (f" (git {commit})" if commit else "")


def available() -> bool:
    """Whether catanatron can be imported."""
    try:
        modules()
    except CatansimError:
        return False
    return True


# --- the two boards ----------------------------------------------------------------------


@dataclass(frozen=True)
class Geometry:
    """The map between catanatron's board and catansim's, found by geometry.

    catanatron places its tiles on cube coordinates ``(x, y, z)``: catansim's axial
    ``(q, r)`` is ``(x, z)`` (both are pointy-top, with catanatron's ``NORTH`` corner at
    catansim's top corner). Each catanatron corner is matched to the catansim node at
    the same place on the page, each edge by its two end nodes, each harbor by its sea
    hex."""

    node: dict        # catanatron node id -> catansim node (the 54 land nodes)
    node_back: tuple  # catansim node -> catanatron node id
    edge: dict        # catanatron edge (two node ids, either order) -> catansim edge
    edge_back: tuple  # catansim edge -> catanatron edge (node ids, lower first)
    hex_of: dict      # catanatron land tile coordinate -> catansim hex
    hex_back: tuple   # catansim hex -> catanatron land tile coordinate
    slot_of: dict     # catanatron harbor (port tile) coordinate -> catansim harbor slot


def _corner(q: int, r: int, k: int) -> tuple[float, float]:
    x, y = hex_to_xy(q, r)
    a = math.radians(60 * k - 90)
    return x + math.cos(a), y + math.sin(a)


def _node_at(x: float, y: float) -> int:
    d = np.hypot(NODE_XY[:, 0] - x, NODE_XY[:, 1] - y)
    n = int(np.argmin(d))
    return n if d[n] < 1e-6 else -1


@functools.cache
def geometry() -> Geometry:
    """The map between the boards (built once, from catanatron's base map)."""
    C = modules()
    with python_random(0):
        tiles = C.map.CatanMap.from_template(C.map.BASE_MAP_TEMPLATE).tiles
    land = {c: t for c, t in tiles.items() if isinstance(t, C.map.LandTile)}
    node: dict[int, int] = {}
    hex_of: dict[tuple, int] = {}
    for coord, tile in tiles.items():
        q, r = coord[0], coord[2]
        for ref, nid in tile.nodes.items():
            n = _node_at(*_corner(q, r, CORNERS.index(ref.value)))
            if n < 0:
                continue  # a corner of sea hexes only
            if node.setdefault(nid, n) != n:
                raise CatansimError(f"catanatron node {nid} sits at two catansim nodes "
                                    f"({node[nid]}, {n}); the geometry does not match")
        if coord in land:
            hex_of[coord] = hex_index(q, r)
    edge: dict[tuple, int] = {}
    for tile in land.values():
        for a, b in tile.edges.values():
            e = EDGE_BY_NODES[frozenset((node[a], node[b]))]
            edge[(a, b)] = edge[(b, a)] = e
    slot_of = {}
    sea = [tuple(s) for _, s in HARBOR_SLOT_HEXES]
    for coord, tile in tiles.items():
        if isinstance(tile, C.map.Port):
            slot_of[coord] = sea.index((coord[0], coord[2]))
    node_back = [-1] * N_NODES
    for nid, n in node.items():
        node_back[n] = nid
    edge_back = [None] * N_EDGES
    for (a, b), e in edge.items():
        edge_back[e] = (min(a, b), max(a, b))
    hex_back = [None] * N_HEXES
    for coord, h in hex_of.items():
        hex_back[h] = coord
    return Geometry(node, tuple(node_back), edge, tuple(edge_back), hex_of, tuple(hex_back),
                    slot_of)


def catan_map(hex_terrain, hex_number, harbors):
    """A catanatron ``CatanMap`` of a catansim board (terrain, numbers, harbor kinds)."""
    C, G = modules(), geometry()
    with python_random(0):
        tiles = C.map.CatanMap.from_template(C.map.BASE_MAP_TEMPLATE).tiles
    for coord, tile in tiles.items():
        if isinstance(tile, C.map.LandTile):
            h = G.hex_of[coord]
            r = TERRAIN_RESOURCE[int(hex_terrain[h])]
            tile.resource = RESOURCES[r] if r >= 0 else None
            tile.number = int(hex_number[h]) if r >= 0 else None
        elif isinstance(tile, C.map.Port):
            kind = int(harbors[G.slot_of[coord]])
            tile.resource = None if kind == HARBOR_ANY else RESOURCES[kind]
    return C.map.CatanMap.from_tiles(tiles)


# --- actions and options -------------------------------------------------------------------


def to_option(action) -> Option:
    """The catansim ``Option`` a catanatron action is (the first of its two decisions
    where catansim takes two: the robber's hex, the card played). A discarded card has
    no option of its own (a discard is one bundle): it raises."""
    G = geometry()
    kind, v = action.action_type.name, action.value
    if kind == "BUILD_SETTLEMENT":
        return Option("settlement", G.node[v])
    if kind == "BUILD_CITY":
        return Option("city", G.node[v])
    if kind == "BUILD_ROAD":
        return Option("road", G.edge[tuple(v)])
    if kind == "MOVE_ROBBER":
        return Option("robber", G.hex_of[v[0]])
    if kind == "MARITIME_TRADE":
        give = [0] * N_RESOURCES
        give[RESOURCES.index(v[0])] = sum(x is not None for x in v[:4])
        get = [0] * N_RESOURCES
        get[RESOURCES.index(v[4])] = 1
        return Option("maritime", give=tuple(give), get=tuple(get))
    simple = {"ROLL": Option("roll"), "END_TURN": Option("end"),
              "BUY_DEVELOPMENT_CARD": Option("buy"),
              "PLAY_KNIGHT_CARD": Option("play", KNIGHT),
              "PLAY_YEAR_OF_PLENTY": Option("play", INVENTION),
              "PLAY_MONOPOLY": Option("play", MONOPOLY),
              "PLAY_ROAD_BUILDING": Option("play", ROAD_BUILDING)}
    if kind in simple:
        return simple[kind]
    raise CatansimError(f"catanatron action {kind} has no catansim option of its own")


def victim(action) -> int | None:
    """The seat a catanatron robber move steals from (None: nobody)."""
    color = action.value[1]
    return None if color is None else list(modules().Color).index(color)


def _bundle(cards) -> tuple:
    out = [0] * N_RESOURCES
    for c in cards:
        out[RESOURCES.index(c)] += 1
    return tuple(out)


# --- the position, mirrored ---------------------------------------------------------------


class PlayedCards:
    """Development cards played so far by each seat and kind, from the game's events;
    read again only when the count the public record implies has changed."""

    def __init__(self):
        self.total = -1
        self.counts = np.zeros((0, 5), dtype=np.int64)

    def of(self, game: Game, obs: Observation, dev_hands: np.ndarray) -> np.ndarray:
        total = int(sum(DEV_CARD_COUNTS) - obs.deck_left - dev_hands.sum())
        if total != self.total:
            counts = np.zeros((obs.n_players, 5), dtype=np.int64)
            for e in game.events:
                if e["e"] == "play_dev":
                    counts[e["p"], DEV_CARD_NAMES.index(e["card"])] += 1
            self.total, self.counts = total, counts
        return self.counts


def _components(owner_nodes: np.ndarray, edge_owner: np.ndarray, seat: int) -> list[set]:
    """catanatron's connected components of a seat's roads: the nodes its roads join,
    never through (nor including) another seat's building, and each of its buildings
    without a road as a component of its own (catansim node numbers)."""
    parent: dict[int, int] = {}

    def find(a):
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    for e in np.flatnonzero(edge_owner == seat):
        ends = [int(x) for x in EDGE_NODES[e] if owner_nodes[x] in (-1, seat)]
        for a in ends:
            parent.setdefault(a, a)
        if len(ends) == 2:
            parent[find(ends[0])] = find(ends[1])
    for n in np.flatnonzero(owner_nodes == seat):
        parent.setdefault(int(n), int(n))
    groups: dict[int, set] = defaultdict(set)
    for a in parent:
        groups[find(a)].add(a)
    return list(groups.values())


def mirror(game: Game, seat: int, catanatron_players=None, cmap=None,
           played: PlayedCards | None = None, seed: int = 1, record: Game | None = None):
    """A catanatron ``Game`` of ``game``'s position for the decision of ``seat`` (the
    seat to move), with every seat's cards in ``game``; ``catanatron_players`` (one per
    seat, in seat order; default catanatron ``RandomPlayer`` s) sit at the seats. Its
    ``playable_actions`` are catanatron's own for that position. ``record``: the game
    whose events say which development cards were played (default ``game``; a fork of
    ``Game.determinize`` keeps no events)."""
    with python_random(seed):  # catanatron's Game seeds and draws from Python's random
        return _mirror(game, seat, catanatron_players, cmap, played, seed, record or game)


def _mirror(game, seat, catanatron_players, cmap, played, seed, record):
    C, G = modules(), geometry()
    obs = game.observation(seat)
    n = obs.n_players
    colors = tuple(list(C.Color)[:n])
    players = list(catanatron_players or [C.player.RandomPlayer(c) for c in colors])
    cmap = cmap or catan_map(obs.hex_terrain, obs.hex_number, obs.harbors)
    limit = obs.rules.discard_limit
    cg = C.Game(players, seed=seed, catan_map=cmap, vps_to_win=obs.rules.vp_to_win,
                discard_limit=NO_LIMIT if limit is None else limit)
    st = cg.state
    st.players, st.colors = players, colors
    st.color_to_index = {c: i for i, c in enumerate(colors)}
    views = [game.observation(q) for q in range(n)]
    hands = np.array([v.hand for v in views])
    devs = np.array([v.development_cards for v in views])
    new = np.array([v.new_development_cards for v in views])
    counts = (played or PlayedCards()).of(record, obs, devs)

    # the board: buildings, roads, what can still be built, Longest Route
    b = st.board
    kinds = {1: "SETTLEMENT", 2: "CITY"}
    b.buildings, b.roads = {}, {}
    st.buildings_by_color = {c: defaultdict(list) for c in colors}
    owners, levels, edges = obs.node_owner, obs.node_level, obs.edge_owner
    # a settlement with no road of its own beside it goes last: in the set-up it is the
    # one just placed, whose road catanatron's initial road options touch
    def has_road(nd):
        return any(edges[EDGE_BY_NODES[frozenset((nd, int(m)))]] == owners[nd]
                   for m in NODE_NEIGHBOURS[nd] if m >= 0)

    for nd in sorted(np.flatnonzero(owners >= 0), key=lambda x: not has_road(int(x))):
        color, kind = colors[owners[nd]], kinds[int(levels[nd])]
        b.buildings[G.node_back[nd]] = (color, kind)
        st.buildings_by_color[color][kind].append(G.node_back[nd])
    for e in np.flatnonzero(edges >= 0):
        a, c = G.edge_back[e]
        b.roads[(a, c)] = b.roads[(c, a)] = colors[edges[e]]
        st.buildings_by_color[colors[edges[e]]]["ROAD"].append((a, c))
    taken = set()
    for nd in np.flatnonzero(owners >= 0):
        taken.add(int(nd))
        taken.update(int(m) for m in NODE_NEIGHBOURS[nd] if m >= 0)
    b.board_buildable_ids = {G.node_back[x] for x in range(N_NODES) if x not in taken}
    b.connected_components = defaultdict(list)
    for q in range(n):
        b.connected_components[colors[q]] = [
            {G.node_back[x] for x in comp} for comp in _components(owners, edges, q)]
    route = obs.route_length
    b.road_lengths = defaultdict(int, {colors[q]: int(route[q]) for q in range(n)})
    holder = obs.longest_route
    b.road_color = colors[holder] if holder >= 0 else None
    b.road_length = int(route[holder]) if holder >= 0 else 0
    b.robber_coordinate = G.hex_back[obs.robber]
    b.buildable_edges_cache, b.player_port_resources_cache = {}, {}

    # the seats' cards, pieces and points
    ps = st.player_state
    cur = obs.current_player
    visible = obs.visible_points
    for q in range(n):
        k = f"P{q}_"
        mine = owners == q
        ps[k + "VICTORY_POINTS"] = int(visible[q])
        ps[k + "ACTUAL_VICTORY_POINTS"] = int(visible[q] + devs[q, VICTORY_POINT])
        ps[k + "ROADS_AVAILABLE"] = ROADS_PER_PLAYER - int((edges == q).sum())
        ps[k + "SETTLEMENTS_AVAILABLE"] = SETTLEMENTS_PER_PLAYER - int((mine & (levels == 1)).sum())
        ps[k + "CITIES_AVAILABLE"] = CITIES_PER_PLAYER - int((mine & (levels == 2)).sum())
        ps[k + "HAS_ROAD"] = bool(holder == q)
        ps[k + "HAS_ARMY"] = bool(obs.largest_army == q)
        ps[k + "HAS_ROLLED"] = bool(q == cur and obs.dice_rolled)
        ps[k + "HAS_PLAYED_DEVELOPMENT_CARD_IN_TURN"] = bool(q == cur and obs.card_played)
        ps[k + "LONGEST_ROAD_LENGTH"] = int(route[q])
        for r, name in enumerate(RESOURCES):
            ps[f"{k}{name}_IN_HAND"] = int(hands[q, r])
        for d, name in enumerate(DEV_CARDS):
            ps[f"{k}{name}_IN_HAND"] = int(devs[q, d])
            ps[f"{k}PLAYED_{name}"] = int(obs.knights[q] if d == KNIGHT else counts[q, d])
            if f"{k}{name}_OWNED_AT_START" in ps:  # catanatron >= 3.3: not bought this turn
                held = devs[q, d] - (new[q, d] if q == cur else 0)
                ps[f"{k}{name}_OWNED_AT_START"] = bool(held > 0)

    # the supply, the deck (what nobody holds or played, in an order nobody knows)
    st.resource_freqdeck = [int(x) for x in obs.supply]
    left = np.array(DEV_CARD_COUNTS) - devs.sum(axis=0) - counts.sum(axis=0)
    left[KNIGHT] = DEV_CARD_COUNTS[KNIGHT] - devs[:, KNIGHT].sum() - obs.knights.sum()
    deck = [DEV_CARDS[d] for d in range(5) for _ in range(int(left[d]))]
    if left.min() < 0 or len(deck) != obs.deck_left:
        raise CatansimError(f"mirror: the development deck does not add up ({left.tolist()}, "
                            f"{obs.deck_left} left)")
    random.shuffle(deck)
    st.development_listdeck = deck

    # whose turn, and the prompt
    d = obs.decision
    if d not in PROMPTS:
        raise CatansimError(f"mirror: the {d!r} decision has no catanatron prompt; allowed: "
                            f"{', '.join(PROMPTS)}")
    st.num_turns = obs.turn
    st.current_turn_index, st.current_player_index = cur, seat
    st.current_prompt = C.ActionPrompt[PROMPTS[d]]
    st.is_initial_build_phase = d.startswith("setup")
    st.is_moving_knight = d.startswith("robber")
    st.is_discarding = d == "discard"
    st.is_road_building = d == "Road Building road"
    st.free_roads_available = 0
    if d == "discard" and hasattr(st, "discard_counts"):
        # the seat discards what is due; seats after it that hold too many, theirs
        over = [(q > seat and hands[q].sum() > (limit if limit is not None else NO_LIMIT))
                for q in range(n)]
        st.discard_counts = [obs.due if q == seat else (int(hands[q].sum()) // 2 if over[q]
                                                        else 0) for q in range(n)]
    if d == "Road Building road":
        # the free roads left; the roads catanatron >= 3.3 lists then (3.2 lists them only
        # to a seat that holds a road's price)
        st.free_roads_available = free_roads_left(game, seat)
        refresh(cg, [C.Action(colors[seat], C.ActionType.BUILD_ROAD, e)
                     for e in b.buildable_edges(colors[seat])])
    else:
        refresh(cg)
    return cg


def free_roads_left(game: Game, seat: int) -> int:
    """Road Building's free roads ``seat`` has still to build (from the game's events)."""
    left = 0
    for e in game.events:
        if e["e"] == "play_dev" and e["card"] == "road_building" and e["p"] == seat:
            left = 2
        elif e["e"] == "build_road" and e.get("free") and e["p"] == seat:
            left -= 1
    return max(left, 1)


def refresh(cg, actions=None) -> None:
    """Set the catanatron game's legal actions (``actions``, default catanatron's own for
    its state) where its version keeps them: the game (>= 3.3) or the state (3.2)."""
    if actions is None:
        actions = modules().generate(cg.state)
    actions = sorted(actions, key=_action_key)  # one order, whatever Python's hashing
    if hasattr(cg.state, "playable_actions"):
        cg.state.playable_actions = actions
    cg.playable_actions = actions


def _action_key(a) -> str:
    return f"{a.action_type.name} {a.value!r}"


# --- the player ----------------------------------------------------------------------------


class CatanatronPlayer:
    """A catansim player that asks a catanatron bot.

    Parameters
    ----------
    bot : str
        The catanatron player class (``BOT_MODULES``: ``RandomPlayer``,
        ``AlphaBetaPlayer``, ...), or ``module.path:Class`` for another.
    *args : str
        Its arguments after the colour, as catanatron's command line gives them (for
        ``AlphaBetaPlayer``: the depth, then whether it prunes); among them, in any
        place, ``view=true`` (the default: the bot reads every seat's true cards, as in
        catanatron's own games) or ``view=public`` (at each decision the bot reads a
        state dealt anew from its seat's public record, ``Game.determinize``, seeded
        from the game's seed and seat: what a catansim player may know), which is the
        bridge's, not the bot's (``VIEWS``).

    It needs the ``Game`` it plays in (``watch(game)``, which ``catansim.ladder`` does):
    catanatron's bots read every seat's cards, and the bridge reads them there.

    ``longest_ask`` is the CPU seconds (this thread's) of the bot's longest decision since
    the game began (``new_game``): what it would take on a core of its own. catanatron's
    alpha-beta players cut a search at 20 s of wall-clock time; the bridge lifts that cut
    (``lift_search_cut``), and ``longest_ask`` says how close a decision came to it.
    """

    def __init__(self, bot: str = "RandomPlayer", *args: str):
        self.name_args = tuple(str(a) for a in args)
        views = [a[len(VIEW):] for a in self.name_args if a.startswith(VIEW)]
        for v in views:
            if v not in VIEWS:
                raise CatansimError(f"{PREFIX}{bot}: {VIEW}{v} is not a view; allowed: "
                                    + ", ".join(f"{VIEW}{k} ({d})" for k, d in VIEWS.items()))
        if len(views) > 1:
            raise CatansimError(f"{PREFIX}{bot}: {len(views)} views given; allowed: one")
        self.view = views[0] if views else "true"
        self.bot_name = bot
        self.args = tuple(a for a in self.name_args if not a.startswith(VIEW))
        self.bot_class = bot_class(bot)
        self.seat, self.seed = 0, 0
        self.longest_ask = 0.0
        self._game: Game | None = None
        self._rng = np.random.default_rng(0)
        self._reset()

    @property
    def name(self) -> str:
        """The player's name in a ladder: ``catanatron:Class[:arg...]``."""
        return ":".join((PREFIX + self.bot_name, *self.name_args))

    def _reset(self) -> None:
        self._map = None
        self._played = PlayedCards()
        self._robbed: int | None = None   # the victim of the robber move just chosen
        self._cards: tuple | None = None  # Year of Plenty's cards, or Monopoly's resource
        self.bot = None

    def new_game(self, seed: int, seat: int) -> None:
        self.seed, self.seat = int(seed), int(seat)
        self._rng = np.random.default_rng([self.seed, self.seat, 53])
        self._reset()
        self._game = None
        self.longest_ask = 0.0

    def watch(self, game: Game) -> None:
        """The game this player plays in (it reads every seat's cards from it)."""
        self._game = game

    def make_bot(self) -> None:
        """Make the catanatron bot of this seat now (a bad argument is a one-line error)."""
        color = list(modules().Color)[self.seat]
        lift_search_cut(self.bot_class)
        with python_random(self._next_seed()):
            try:
                self.bot = self.bot_class(color, *self.args)
            except Exception as e:  # the bot's own check of its arguments
                raise CatansimError(f"{self.name}: catanatron's {self.bot_name} refused its "
                                    f"arguments {list(self.args)} ({type(e).__name__}: {e})"
                                    ) from None

    def _next_seed(self) -> int:
        return int(self._rng.integers(1, 2**62))

    def decide(self, observation: Observation, options) -> Option:
        game = self._game
        if game is None:
            raise CatansimError(f"{self.name}: no game to read the seats' cards from; allowed: "
                                "play it with catansim.ladder, or call watch(game) first")
        d = observation.decision
        if d == "trade answer":
            return Option("refuse")  # catanatron's bots make no player trades
        if d == "robber victim":
            return self._victim(options)
        if d == "Invention":
            return self._invention(options)
        if d == "Monopoly":
            return self._named(options, "monopoly", self._cards)
        if self.bot is None:
            self.make_bot()
        if self._map is None:
            self._map = catan_map(observation.hex_terrain, observation.hex_number,
                                  observation.harbors)
        seed = self._next_seed()
        seen = game if self.view == "true" else game.determinize(self.seat, seed)
        with python_random(seed):
            cg = self._mirror(seen, observation, seed, game)
            if d == "discard":
                return self._discard(cg, observation, options)
            legal = set(options)
            keep = [a for a in cg.playable_actions if to_option(a) in legal]
            if not keep:
                raise CatansimError(f"{self.name}: none of catanatron's {len(cg.playable_actions)}"
                                    f" actions is legal in the {d} of seat {self.seat} "
                                    f"(turn {observation.turn})")
            refresh(cg, keep)
            action = self._ask(cg)
        return self._chosen(action)

    def _mirror(self, seen, observation, seed, game):
        C = modules()
        n = observation.n_players
        players = [self.bot if q == self.seat else C.player.RandomPlayer(list(C.Color)[q])
                   for q in range(n)]
        return mirror(seen, self.seat, players, self._map, self._played, seed, game)

    def _ask(self, cg):
        actions = cg.playable_actions
        start = time.thread_time()
        try:
            action = self.bot.decide(cg, actions)
        except Exception as e:  # catanatron's own code: said in one line, where it was
            raise CatansimError(f"{self.name}: the bot failed at turn {cg.state.num_turns} "
                                f"({cg.state.current_prompt.name}): {type(e).__name__}: "
                                f"{str(e).splitlines()[0] if str(e) else ''}") from None
        self.longest_ask = max(self.longest_ask, time.thread_time() - start)
        if action not in actions:
            raise CatansimError(f"{self.name}: the bot chose {action}, not one of its "
                                f"{len(actions)} legal actions")
        return action

    def _chosen(self, action) -> Option:
        option = to_option(action)
        kind = action.action_type.name
        if kind == "MOVE_ROBBER":
            self._robbed = victim(action)
        elif kind == "PLAY_YEAR_OF_PLENTY":
            self._cards = _bundle(action.value)
        elif kind == "PLAY_MONOPOLY":
            self._cards = RESOURCES.index(action.value)
        return option

    def _victim(self, options) -> Option:
        # the seat the robber move named; where no seat there holds a card (catanatron
        # names none then), the first the game lists: nothing can be stolen
        robbed, self._robbed = self._robbed, None
        if robbed is None:
            return options[0]
        return self._named(options, "steal", robbed)

    def _invention(self, options) -> Option:
        # Year of Plenty's cards; if the supply cannot give them all, the legal bundle
        # with most of them
        want = self._cards or (0,) * N_RESOURCES
        self._cards = None
        return max(options, key=lambda o: sum(min(a, b) for a, b in zip(o.get, want,
                                                                         strict=True)))

    def _named(self, options, kind: str, target) -> Option:
        """``Option(kind, target)``, the second half of the bot's action; it must be legal."""
        self._cards = None
        want = Option(kind, -1 if target is None else int(target))
        if want not in options:
            raise CatansimError(f"{self.name}: {want} is not legal; allowed: one of "
                                f"{[str(o) for o in options]}")
        return want

    def _discard(self, cg, observation: Observation, options) -> Option:
        due, hand = int(observation.due), observation.hand
        if modules().per_card_discards:  # catanatron >= 3.3: the bot names card by card
            out = [0] * N_RESOURCES
            for _ in range(due):
                action = self._ask(cg)
                out[RESOURCES.index(action.value)] += 1
                cg.execute(action)
                refresh(cg)
            give = tuple(out)
        else:  # catanatron 3.2 discards at random itself: a uniform subset of the hand
            cards = np.repeat(np.arange(N_RESOURCES), hand)
            pick = self._rng.choice(cards, size=due, replace=False)
            give = tuple(int(x) for x in np.bincount(pick, minlength=N_RESOURCES))
        option = Option("discard", give=give)
        if option not in options:
            raise CatansimError(f"{self.name}: the discard {option} is not legal")
        return option

    def __repr__(self) -> str:
        return f"CatanatronPlayer({self.name!r})"


_CLASS_NAME = re.compile(r"^(?:([A-Za-z_][\w.]*):)?([A-Za-z_]\w*)$")


# catanatron's alpha-beta players stop a search after this module constant's seconds of
# wall-clock time. The bridge lifts it (``lift_search_cut``): then a game depends only on
# its seed, whatever else the machine runs, and the bot searches as it does on a core of
# its own, where a depth-2 decision takes seconds (each game records its longest).
SEARCH_CUT = "MAX_SEARCH_TIME_SECS"


def cuts_search(bot: str) -> bool:
    """Whether catanatron's player ``bot`` stops its search by wall-clock time (its module
    has ``SEARCH_CUT``), which the bridge lifts."""
    return hasattr(importlib.import_module(bot_class(bot).__module__), SEARCH_CUT)


def lift_search_cut(cls) -> None:
    """Lift the wall-clock cut of the search of catanatron's player class ``cls``, if its
    module has one: it then searches to its depth, however long that takes."""
    module = importlib.import_module(cls.__module__)
    if hasattr(module, SEARCH_CUT):
        setattr(module, SEARCH_CUT, math.inf)


def bot_class(bot: str):
    """catanatron's player class named ``bot`` (``BOT_MODULES``, or ``module.path:Class``);
    a one-line error naming what is allowed if it cannot be found."""
    m = _CLASS_NAME.match(bot if isinstance(bot, str) else "")
    if m is None:
        raise CatansimError(f"{PREFIX}{bot}: not a player class name; allowed: "
                            f"{', '.join(BOT_MODULES)}, or module.path:Class")
    module, name = m.group(1) or BOT_MODULES.get(m.group(2)), m.group(2)
    if module is None:
        raise CatansimError(f"{PREFIX}{bot}: catanatron has no player {name!r} that the "
                            f"bridge knows; allowed: {', '.join(BOT_MODULES)}, or "
                            "module.path:Class")
    modules()
    try:
        with python_random(0):
            mod = importlib.import_module(module)
    except ImportError as e:
        raise CatansimError(f"{PREFIX}{bot}: cannot import {module} ({e}); allowed: "
                            f"{INSTALL}") from None
    cls = getattr(mod, name, None)
    if cls is None or not callable(getattr(cls, "decide", None)):
        raise CatansimError(f"{PREFIX}{bot}: {module} has no player class {name!r}; allowed: "
                            "a catanatron Player subclass")
    return cls


def parse(name: str) -> tuple[str, tuple[str, ...]]:
    """``catanatron:Class[:arg...]`` (or ``catanatron:module.path:Class[:arg...]``
    with a dotted module) as ``(bot, args)``."""
    if not isinstance(name, str) or not name.startswith(PREFIX):
        raise CatansimError(f"{name!r} is not a catanatron player's name; allowed: "
                            f"{PREFIX}Class[:arg...], e.g. {PREFIX}AlphaBetaPlayer:2")
    parts = name[len(PREFIX):].split(":")
    if len(parts) > 1 and "." in parts[0]:
        return f"{parts[0]}:{parts[1]}", tuple(parts[2:])
    return parts[0], tuple(parts[1:])


def player(name: str) -> CatanatronPlayer:
    """The ``CatanatronPlayer`` of a name ``catanatron:Class[:arg...]``."""
    bot, args = parse(name)
    return CatanatronPlayer(bot, *args)
