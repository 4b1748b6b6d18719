"""An independent rules checker and replayer for game logs (format: ``docs/game-log.md``).

This module is a test oracle for the engine, so it is written to be slow and
plainly correct: pure Python, dicts and lists, every rule spelled out once. It
knows nothing about the engine; it works from the log alone, for logs of any
writer. All geometry comes from the header (the writer's own hex, node and
edge numbering); our numbering (``catansim.topology``) is used only to report
the final state and to draw it, matched through axial coordinates.

``replay(header, events)`` rebuilds every state and, with ``check=True``,
raises ``LogError`` naming the event index, the event and the broken rule at
the first violation; ``observer`` sees every state (``logs.narrative`` tells the game
turn by turn that way).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from .. import display
from .. import topology as T
from ..constants import (
    CITIES_PER_PLAYER,
    COST_CITY,
    COST_DEV_CARD,
    COST_ROAD,
    COST_SETTLEMENT,
    DEV_CARD_COUNTS,
    DEV_CARD_NAMES,
    LARGEST_ARMY_MIN,
    LONGEST_ROUTE_MIN,
    RESOURCE_NAMES,
    ROADS_PER_PLAYER,
    SETTLEMENTS_PER_PLAYER,
    TERRAIN_NAMES,
    seat_colours,
)
from ..constants import TERRAIN_RESOURCE as TERRAIN_CODE_RESOURCE
from ..errors import CatansimError
from .format import EVENT_NAMES, LATER_RULE_KEYS, RULE_KEYS, check_name

# Terrain name -> the resource name it produces (None for the desert).
TERRAIN_RESOURCE = {t: (RESOURCE_NAMES[r] if r >= 0 else None)
                    for t, r in zip(TERRAIN_NAMES, TERRAIN_CODE_RESOURCE, strict=True)}
# An unlimited supply is modelled as a stack no game can empty, so the
# conservation check (supply + hands = supply size) still holds exactly.
UNLIMITED = 10**9


class LogError(CatansimError):
    """A game log breaks a rule or the format; the message names the event and the rule."""


# --------------------------------------------------------------------------------------
# Longest Route: brute force
# --------------------------------------------------------------------------------------


def longest_trail(roads, edge_nodes, blocked=frozenset()) -> int:
    """Length of the longest trail in a road network, by exhaustive search.

    A trail uses each road at most once and may revisit nodes (a ring of 6
    counts 6). It may start or end on a blocked node (an opponent's building)
    but never pass through one; the player's own buildings do not cut.

    Parameters
    ----------
    roads : iterable of int
        Edge indices of the player's roads.
    edge_nodes : sequence of (int, int)
        End nodes of every edge.
    blocked : set of int
        Nodes holding an opponent's settlement or city.

    Returns
    -------
    int
        Number of roads in the longest trail (0 for no roads).
    """
    roads = sorted(set(roads))
    if not roads:
        return 0
    at: dict[int, list[int]] = {}
    for e in roads:
        a, b = edge_nodes[e]
        at.setdefault(a, []).append(e)
        at.setdefault(b, []).append(e)
    key = (tuple(roads), frozenset(n for n in blocked if n in at))
    if key in _TRAIL_CACHE:
        return _TRAIL_CACHE[key]

    def walk(node, used):
        best = len(used)
        if used and node in blocked:  # arrived at an opponent's building: stop here
            return best
        for e in at[node]:
            if e not in used:
                a, b = edge_nodes[e]
                used.add(e)
                best = max(best, walk(b if a == node else a, used))
                used.remove(e)
        return best

    result = max(walk(node, set()) for node in at)
    if len(_TRAIL_CACHE) > 100_000:
        _TRAIL_CACHE.clear()
    _TRAIL_CACHE[key] = result
    return result


_TRAIL_CACHE: dict = {}


def longest_route_holder(holder, lengths) -> int | None:
    """Who holds Longest Route after a change of the road network.

    Parameters
    ----------
    holder : int or None
        Seat holding the tile before the change (None: in the supply).
    lengths : sequence of int
        Every seat's longest route after the change.

    Returns
    -------
    int or None
        The holder keeps it while at >= 5 and tied for the longest (project
        decision D1); otherwise it goes to the one player alone with the longest
        route of at least 5, else to the supply. A new holder must therefore be
        strictly longer than everyone else.
    """
    best = max(lengths)
    if holder is not None and lengths[holder] >= LONGEST_ROUTE_MIN and lengths[holder] == best:
        return holder
    leaders = [p for p, n in enumerate(lengths) if n == best]
    return leaders[0] if best >= LONGEST_ROUTE_MIN and len(leaders) == 1 else None


# --------------------------------------------------------------------------------------
# Geometry from the header
# --------------------------------------------------------------------------------------


class Geometry:
    """The header's board in the writer's numbering, with the map to ours.

    Attributes
    ----------
    hex_coords, hex_terrain, hex_number : list
        Per header hex: ``(q, r)``, terrain name, number (None for the desert).
    node_hexes : list of list of int
        Per header node: header indices of its land hexes.
    hex_nodes : list of list of int
        Per header hex: its six header nodes.
    edge_nodes : list of (int, int)
        Per header edge: its header end nodes.
    node_edges, node_neighbours : list of list of int
        Edges at each node and the nodes they lead to.
    harbor_kinds_at : list of set of str
        Per header node: kinds of the harbors it has ("any" or a resource).
    our_hex, our_node, our_edge : list of int
        Header index -> our index (``catansim.topology``).
    robber : int
        Header index of the robber's starting hex.
    desert : int
        Header index of the desert, where a robber switched off rests.
    """

    def __init__(self, board: dict):
        try:
            hexes, nodes, edges = board["hexes"], board["nodes"], board["edges"]
            harbors, robber = board["harbors"], board["robber"]
        except (KeyError, TypeError) as exc:
            raise LogError(f"header.board: missing {exc}") from None
        if len(hexes) != 19:
            raise LogError(f"header.board.hexes: expected 19 land hexes, got {len(hexes)}")
        self.hex_coords, self.hex_terrain, self.hex_number, self.our_hex = [], [], [], []
        for i, hx in enumerate(hexes):
            qr = (int(hx["q"]), int(hx["r"]))
            if T.hex_index(*qr) < 0 or qr in self.hex_coords:
                raise LogError(f"header.board.hexes[{i}]: {qr} is not a new land hex")
            if hx["terrain"] not in TERRAIN_NAMES:
                raise LogError(f"header.board.hexes[{i}]: unknown terrain {hx['terrain']!r}")
            num = hx["number"]
            if (hx["terrain"] == "desert") != (num is None) or (
                num is not None and num not in (2, 3, 4, 5, 6, 8, 9, 10, 11, 12)
            ):
                raise LogError(f"header.board.hexes[{i}]: bad number {num!r} for {hx['terrain']}")
            self.hex_coords.append(qr)
            self.hex_terrain.append(hx["terrain"])
            self.hex_number.append(num)
            self.our_hex.append(T.hex_index(*qr))
        hex_of = {qr: i for i, qr in enumerate(self.hex_coords)}

        our_node_of = {
            frozenset((int(q), int(r)) for q, r in trio): n
            for n, trio in enumerate(T.NODE_HEX_COORDS.tolist())
        }
        if len(nodes) != 54:
            raise LogError(f"header.board.nodes: expected 54 nodes, got {len(nodes)}")
        self.node_coords, self.our_node, self.node_hexes = [], [], []
        for i, trio in enumerate(nodes):
            key = frozenset((int(q), int(r)) for q, r in trio)
            if key not in our_node_of or key in self.node_coords:
                raise LogError(f"header.board.nodes[{i}]: {trio} is not a new corner of the map")
            self.node_coords.append(key)
            self.our_node.append(our_node_of[key])
            self.node_hexes.append(sorted(hex_of[c] for c in key if c in hex_of))
        self.hex_nodes = [[n for n in range(54) if h in self.node_hexes[n]] for h in range(19)]

        if len(edges) != 72:
            raise LogError(f"header.board.edges: expected 72 edges, got {len(edges)}")
        our_edge_of = {
            frozenset((int(a), int(b))): e for e, (a, b) in enumerate(T.EDGE_NODES.tolist())
        }
        self.edge_nodes, self.our_edge = [], []
        for i, pair in enumerate(edges):
            a, b = int(pair[0]), int(pair[1])
            in_range = 0 <= a < 54 and 0 <= b < 54
            if not in_range or len(self.node_coords[a] & self.node_coords[b]) != 2:
                raise LogError(f"header.board.edges[{i}]: nodes {pair} are not adjacent")
            ours = frozenset((self.our_node[a], self.our_node[b]))
            if our_edge_of[ours] in self.our_edge:
                raise LogError(f"header.board.edges[{i}]: edge {pair} listed twice")
            self.edge_nodes.append((a, b))
            self.our_edge.append(our_edge_of[ours])
        self.node_edges = [[] for _ in range(54)]
        self.node_neighbours = [[] for _ in range(54)]
        for e, (a, b) in enumerate(self.edge_nodes):
            self.node_edges[a].append(e)
            self.node_edges[b].append(e)
            self.node_neighbours[a].append(b)
            self.node_neighbours[b].append(a)

        if len(harbors) != 9:
            raise LogError(f"header.board.harbors: expected 9 harbors, got {len(harbors)}")
        self.harbors = []
        self.harbor_kinds_at = [set() for _ in range(54)]
        for i, hb in enumerate(harbors):
            e, kind = int(hb["edge"]), hb["kind"]
            if not 0 <= e < 72 or kind not in RESOURCE_NAMES + ("any",):
                raise LogError(f"header.board.harbors[{i}]: bad harbor {hb}")
            self.harbors.append((e, kind))
            for n in self.edge_nodes[e]:
                self.harbor_kinds_at[n].add(kind)
        self.robber = int(robber)
        if not 0 <= self.robber < 19:
            raise LogError(f"header.board.robber: {robber!r} is not a hex index")
        # where a robber switched off rests (its start when the board has no desert)
        self.desert = next((h for h in range(19) if self.hex_terrain[h] == "desert"),
                           self.robber)

    # -- descriptions for the narrative ---------------------------------------------
    def hex_name(self, h: int) -> str:
        num = self.hex_number[h]
        return self.hex_terrain[h] if num is None else f"{self.hex_terrain[h]} {num}"

    def node_name(self, n: int) -> str:
        names = [self.hex_name(h) for h in self.node_hexes[n]]
        return f"node {n} ({' / '.join(names)})"

    def edge_name(self, e: int) -> str:
        a, b = self.edge_nodes[e]
        shared = self.node_coords[a] & self.node_coords[b]
        hex_of = {qr: i for i, qr in enumerate(self.hex_coords)}
        names = sorted(self.hex_name(hex_of[c]) if c in hex_of else "sea" for c in shared)
        return f"edge {e} ({' | '.join(names)})"

    def board_ours(self, robber: int | None = None) -> dict:
        """The header ``board`` object rewritten in our numbering."""
        hexes = [None] * 19
        for h in range(19):
            q, r = self.hex_coords[h]
            hexes[self.our_hex[h]] = {
                "q": q, "r": r, "terrain": self.hex_terrain[h], "number": self.hex_number[h],
            }  # fmt: skip
        return {
            "hexes": hexes,
            "nodes": T.NODE_HEX_COORDS.tolist(),
            "edges": T.EDGE_NODES.tolist(),
            "harbors": [{"edge": self.our_edge[e], "kind": k} for e, k in self.harbors],
            "robber": self.our_hex[self.robber if robber is None else robber],
        }


# --------------------------------------------------------------------------------------
# Result
# --------------------------------------------------------------------------------------


@dataclass
class ReplayResult:
    """Final state of a replayed game; indices in OUR numbering (``catansim.topology``).

    Attributes
    ----------
    n_players : int
    strategies : list of str
    rules : dict
        The header's rules.
    hands : list of list of int
        Resource cards held per seat (wood, brick, wool, wheat, ore).
    supply : list of int or None
        Cards left in the supply per resource; None for an unlimited supply.
    dev_cards : list of dict
        Unplayed development cards per seat, by card name.
    knights : list of int
        Knights played per seat.
    route_lengths : list of int
        Longest route of each seat.
    node_owner, node_level : list of int
        Per node (54): seat with a building (-1 none); 0 empty, 1 settlement, 2 city.
    edge_owner : list of int
        Per edge (72): seat with a road, -1 none.
    robber : int
        Hex of the robber.
    longest_route, largest_army : int or None
        Seats holding the bonus tiles.
    vp : list of dict
        Per seat: ``settlements, cities, longest_route, largest_army, vp_cards, total``.
    winner : int or None
    turns : int
        Last turn started.
    reason : str or None
        ``"win"``, ``"turn_limit"``, or None when the log has no ``game_end``.
    board : dict
        The header board (robber at its start) in our numbering (``Board.from_header`` reads it).
    snapshots : list of dict
        After every ``turn_end``: ``turn, hands, vp`` (totals) and ``robber`` (ours).
    log : (dict, list of dict) or None
        The replayed log, header and events (a notebook shows its viewer).
    """

    n_players: int
    strategies: list
    rules: dict
    hands: list
    supply: list | None
    dev_cards: list
    knights: list
    route_lengths: list
    node_owner: list
    node_level: list
    edge_owner: list
    robber: int
    longest_route: int | None
    largest_army: int | None
    vp: list
    winner: int | None
    turns: int
    reason: str | None
    board: dict
    snapshots: list = field(default_factory=list)
    log: tuple | None = field(default=None, repr=False, compare=False)

    def _repr_html_(self) -> str | None:
        """Its view in a notebook (``display.REPLAY``: the game viewer, registered by the
        package ``catansim``); None without one."""
        return display.html(display.REPLAY, self)

    def pieces(self) -> dict:
        """``node_owner``, ``node_level``, ``edge_owner`` as ``draw_board(pieces=...)`` takes."""
        return {
            "node_owner": list(self.node_owner),
            "node_level": list(self.node_level),
            "edge_owner": list(self.edge_owner),
        }


# --------------------------------------------------------------------------------------
# The replayer
# --------------------------------------------------------------------------------------


class _Replayer:
    """Applies the events one by one, checking each rule before applying it."""

    def __init__(self, header: dict, check: bool):
        self.check = check
        self.i = -1  # index of the event being applied
        self.ev: dict | None = None
        self._read_header(header)

        n = self.n
        self.hands = [[0] * 5 for _ in range(n)]
        self.supply = [self.bank_size] * 5
        self.deck = dict(zip(DEV_CARD_NAMES, DEV_CARD_COUNTS, strict=True))
        self.dev_hand = [dict.fromkeys(DEV_CARD_NAMES, 0) for _ in range(n)]
        self.dev_new = [dict.fromkeys(DEV_CARD_NAMES, 0) for _ in range(n)]
        self.knights = [0] * n
        self.roads_left = [ROADS_PER_PLAYER] * n
        self.settlements_left = [SETTLEMENTS_PER_PLAYER] * n
        self.cities_left = [CITIES_PER_PLAYER] * n
        self.buildings: dict[int, tuple[int, int]] = {}  # node -> (seat, level)
        self.roads: dict[int, int] = {}  # edge -> seat
        self.robber = self.geo.robber
        self.longest: int | None = None
        self.army: int | None = None
        self.route_len = [0] * n

        # Turn flow.
        order = [(self.first_pick + i) % n for i in range(n)]  # from the first pick
        snake = order + order[::-1]
        self.setup_queue = [(p, k // n) for k, p in enumerate(snake)]  # (seat, round)
        self.setup_step = "settlement"  # or "road"
        self.setup_node: int | None = None
        self.setup_seat: int | None = None
        self.starting_due: set[int] = set()  # seats owed their starting_resources event
        self.starting_done: set[int] = set()
        self.phase = "setup"
        self.turn = 0
        self.active: int | None = None
        self.dev_played = False
        self.discards_due: list[int] = []
        self.last_dice = [0, 0]
        self.pending_tiles: list[dict] = []
        self.knight_robber_due = False
        self.free_roads: int | None = None  # roads built so far by an open Road Building
        self.ended = False
        self.winner: int | None = None
        self.reason: str | None = None
        self.snapshots: list[dict] = []

    # -- helpers -----------------------------------------------------------------
    def _read_header(self, header):
        if not isinstance(header, dict) or header.get("e") != "header":
            raise LogError("header: first object must have \"e\": \"header\"")
        if header.get("format") != "catansim-log" or header.get("version") != 1:
            raise LogError(
                f"header: unknown format/version {header.get('format')!r} "
                f"{header.get('version')!r}; expected 'catansim-log' 1"
            )
        n = header.get("n_players")
        if n not in (3, 4):
            raise LogError(f"header.n_players: {n!r}; allowed: 3, 4")
        self.n = n
        strategies = header.get("strategies")
        if not isinstance(strategies, list) or len(strategies) != n:
            raise LogError(f"header.strategies: expected a list of {n} names")
        for q, name in enumerate(strategies):
            try:
                check_name(name, f"header.strategies[{q}]")
            except CatansimError as exc:
                raise LogError(str(exc)) from None
        self.strategies = list(strategies)
        rules = header.get("rules")
        if not isinstance(rules, dict):
            raise LogError("header.rules: missing")
        unknown = sorted(set(rules) - set(RULE_KEYS))
        if unknown:
            raise LogError(f"header.rules: unknown rule {unknown[0]!r}: a variant this checker "
                           "cannot check")
        # first_pick and first_turn came after version 1's first keys: a missing
        # first_pick is seat 0, a missing first_turn the first pick.
        missing = [k for k in RULE_KEYS if k not in rules and k not in LATER_RULE_KEYS]
        if missing:
            raise LogError(f"header.rules: missing {missing[0]!r}; every rule key is required "
                           f"({', '.join(RULE_KEYS)}; {' and '.join(LATER_RULE_KEYS)} may be "
                           "left out)")
        self.rules = dict(rules)
        self.first_pick = _int_rule(rules, "first_pick") if "first_pick" in rules else 0
        self.first_turn = (_int_rule(rules, "first_turn") if rules.get("first_turn") is not None
                           else self.first_pick)
        for name, seat in (("first_pick", self.first_pick), ("first_turn", self.first_turn)):
            if not 0 <= seat < self.n:
                raise LogError(f"header.rules.{name}: {seat}; allowed: 0..{self.n - 1}")
        bank = rules["bank_per_resource"]
        self.bank_size = UNLIMITED if bank is None else _int_rule(rules, "bank_per_resource")
        self._apply_rules(rules, "rules")
        # A rule switch: the after-rules apply from the end of turn switch_turn on.
        self.switch_turn = header.get("switch_turn")
        self.rules_after = header.get("rules_after")
        if self.switch_turn is not None or self.rules_after is not None:
            self._read_switch(rules)
        self.geo = Geometry(header.get("board") or {})
        self.colours = seat_colours(n)

    def _apply_rules(self, rules: dict, where: str) -> None:
        """The settings a game may change mid-game, from a header object ``where``."""
        self.vp_to_win = _int_rule(rules, "vp_to_win", where)
        self.discard_limit = (
            None if rules["discard_limit"] is None
            else _int_rule(rules, "discard_limit", where)
        )
        self.max_turns = _int_rule(rules, "max_turns", where)
        if rules["robber"] not in ("official", "off", "friendly"):
            raise LogError(f"header.{where}.robber: {rules['robber']!r}; allowed: official, "
                           "off, friendly")
        if rules["shortage"] not in ("official", "strict", "off"):
            raise LogError(f"header.{where}.shortage: {rules['shortage']!r}; allowed: "
                           "official, strict, off")
        self.robber_mode = rules["robber"]
        self.shortage = rules["shortage"]

    def _read_switch(self, rules: dict) -> None:
        turn, after = self.switch_turn, self.rules_after
        if isinstance(turn, bool) or not isinstance(turn, int) or turn < 1:
            raise LogError(f"header.switch_turn: {turn!r}; allowed: a turn >= 1, given with "
                           "rules_after")
        if not isinstance(after, dict) or set(after) != set(RULE_KEYS):
            raise LogError(f"header.rules_after: expected an object with the keys "
                           f"{', '.join(RULE_KEYS)}")
        before = {**rules, "first_pick": self.first_pick, "first_turn": self.first_turn}
        for key in ("first_pick", "first_turn", "bank_per_resource"):
            if after[key] != before[key]:
                raise LogError(f"header.rules_after.{key}: {after[key]!r}; a rule of the "
                               f"set-up or the supply cannot change mid-game ({before[key]!r}"
                               " before)")
        self._apply_rules(after, "rules_after")  # checked now, applied at the switch
        self._apply_rules(rules, "rules")

    def fail(self, rule: str):
        """Report a broken rule (raises only when checking)."""
        if self.check:
            ev = json.dumps(self.ev, separators=(",", ":"))
            raise LogError(f"event {self.i} {ev}: {rule}")

    def bad(self, what: str):
        """Report a malformed event: always fatal, the event cannot be applied."""
        ev = json.dumps(self.ev, separators=(",", ":"), default=str)
        raise LogError(f"event {self.i} {ev}: {what}")

    def who(self, p) -> str:
        return "the supply" if p is None else f"{self.colours[p]} (seat {p})"

    # -- field access with format checks ----------------------------------------
    def get(self, key):
        if key not in self.ev:
            self.bad(f"missing field {key!r}")
        return self.ev[key]

    def seat(self, key="p", allow_none=False):
        v = self.get(key)
        if v is None and allow_none:
            return None
        if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < self.n:
            self.bad(f"{key} must be a seat 0..{self.n - 1}{' or null' if allow_none else ''}")
        return v

    def index(self, key, size):
        v = self.get(key)
        if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < size:
            self.bad(f"{key} must be an index 0..{size - 1}")
        return v

    def bundle(self, key, value=None):
        b = self.get(key) if value is None else value
        if (
            not isinstance(b, list)
            or len(b) != 5
            or any(isinstance(x, bool) or not isinstance(x, int) or x < 0 for x in b)
        ):
            self.bad(f"{key} must be a list of 5 non-negative integers")
        return list(b)

    def resource(self, key, allow_none=False):
        v = self.get(key)
        if v is None and allow_none:
            return None
        if v not in RESOURCE_NAMES:
            self.bad(f"{key} must be a resource name{' or null' if allow_none else ''}")
        return RESOURCE_NAMES.index(v)

    # -- state queries -------------------------------------------------------------
    def count(self, p, level):
        return sum(1 for s, lv in self.buildings.values() if s == p and lv == level)

    def vp(self, p) -> dict:
        out = {
            "settlements": self.count(p, 1),
            "cities": 2 * self.count(p, 2),
            "longest_route": 2 if self.longest == p else 0,
            "largest_army": 2 if self.army == p else 0,
            "vp_cards": self.dev_hand[p]["victory_point"],
        }
        out["total"] = sum(out.values())
        return out

    def visible_vp(self, p) -> int:
        v = self.vp(p)
        return v["total"] - v["vp_cards"]

    def holds(self, p, cards) -> bool:
        return all(self.hands[p][r] >= cards[r] for r in range(5))

    def move(self, src, dst, cards, what):
        """Move cards between a hand (seat) and the supply (None); hands never go negative."""
        for r in range(5):
            have = self.supply[r] if src is None else self.hands[src][r]
            if have < cards[r]:
                who = "the supply" if src is None else f"seat {src}"
                self.fail(f"{what}: {who} holds {have} {RESOURCE_NAMES[r]}, needs {cards[r]}")
        for r in range(5):
            if src is None:
                self.supply[r] -= cards[r]
            else:
                self.hands[src][r] -= cards[r]
            if dst is None:
                self.supply[r] += cards[r]
            else:
                self.hands[dst][r] += cards[r]

    def distance_ok(self, node) -> bool:
        return node not in self.buildings and all(
            m not in self.buildings for m in self.geo.node_neighbours[node]
        )

    def road_connects(self, p, edge) -> bool:
        """Touches p's building, or p's road through a node no opponent occupies."""
        for node in self.geo.edge_nodes[edge]:
            b = self.buildings.get(node)
            if b is not None and b[0] == p:
                return True
            if b is not None:  # an opponent's building: cannot continue through it
                continue
            if any(self.roads.get(e) == p for e in self.geo.node_edges[node] if e != edge):
                return True
        return False

    def legal_road_exists(self, p) -> bool:
        return any(e not in self.roads and self.road_connects(p, e) for e in range(72))

    def compute_route_lengths(self):
        out = []
        for p in range(self.n):
            mine = [e for e, s in self.roads.items() if s == p]
            blocked = {node for node, (s, _) in self.buildings.items() if s != p}
            out.append(longest_trail(mine, self.geo.edge_nodes, blocked))
        return out

    # -- bonus tiles ------------------------------------------------------------------
    def derive_longest(self):
        """Recompute every route; queue the Longest Route change the rules require."""
        lengths = self.compute_route_lengths()
        self.route_len = lengths
        h = self.longest
        new = longest_route_holder(h, lengths)
        if new != h:
            self.pending_tiles.append(
                {"e": "longest_route", "p": new, "length": None if new is None else lengths[new]}
            )

    def derive_army(self, p):
        k = self.knights[p]
        h = self.army
        if h != p and k >= LARGEST_ARMY_MIN and (h is None or k > self.knights[h]):
            self.pending_tiles.append({"e": "largest_army", "p": p, "knights": k})

    # -- main loop ------------------------------------------------------------------
    def run(self, events, observer=None, complete=True, start=0):
        """Apply every event; ``observer(self, ev)`` sees the state after each one. With
        ``complete`` the log must end the game (with False: a log cut short, a position).
        ``start``: the index in the log of ``events[0]`` (a replay run in pieces)."""
        for i, ev in enumerate(events, start):
            self.i, self.ev = i, ev
            if not isinstance(ev, dict) or ev.get("e") not in EVENT_NAMES:
                self.bad("unknown event (not one of the spec's event names)")
            if self.ended:
                self.fail("event after game_end")
            self.step(ev)
            self.check_conservation()
            if observer is not None:
                observer(self, ev)
        self.i, self.ev = start + len(events), None
        if complete and not self.ended:
            if self.pending_tiles:
                self.fail(f"log ends before the {self.pending_tiles[0]['e']} change "
                          f"{self.pending_tiles[0]}")
            self.fail("log ends without game_end")

    def step(self, ev):
        name = ev["e"]
        if name in ("longest_route", "largest_army"):
            self.on_tile(ev)
            return
        followup_robber = self.knight_robber_due and name == "robber"
        followup_road = (
            self.free_roads is not None
            and name == "build_road"
            and ev.get("free") is True
            and self.free_roads < 2
        )
        if self.pending_tiles and not (
            followup_robber and all(t["e"] == "largest_army" for t in self.pending_tiles)
        ):
            t = self.pending_tiles[0]
            self.fail(f"missing {t['e']} change (expected {json.dumps(t)} right after the event "
                      "that caused it)")
            self.pending_tiles.clear()
        if self.knight_robber_due and name not in ("robber", "game_end"):
            self.fail("a knight must be followed by its robber event")
            self.knight_robber_due = False
        if self.free_roads is not None and not followup_road:
            if name != "game_end" and self.free_roads < 2:
                p = self.active
                if self.roads_left[p] > 0 and self.legal_road_exists(p):
                    self.fail(f"Road Building built only {self.free_roads} free road(s) while a "
                              "road piece and a legal edge remain")
            self.free_roads = None
        # Winning: the active player at vp_to_win must end the game before anything else.
        if (
            self.active is not None
            and self.phase not in ("setup", "between", "limit")
            and name != "game_end"
            and not (followup_robber or followup_road)
            and self.vp(self.active)["total"] >= self.vp_to_win
        ):
            self.fail(f"seat {self.active} has {self.vp(self.active)['total']} VP on its own "
                      f"turn (>= {self.vp_to_win}): game_end must come first")
        getattr(self, "on_" + name)(ev)

    def check_conservation(self):
        if not self.check:
            return
        for r in range(5):
            held = sum(h[r] for h in self.hands)
            if min(h[r] for h in self.hands) < 0 or self.supply[r] < 0:
                self.fail(f"negative {RESOURCE_NAMES[r]} count")
            if held + self.supply[r] != self.bank_size:
                self.fail(f"{RESOURCE_NAMES[r]}: supply {self.supply[r]} + hands {held} != "
                          f"supply size {self.bank_size}")

    # -- phase checks -------------------------------------------------------------------
    def need_turn_of(self, p):
        if self.phase in ("setup", "between", "limit"):
            self.fail(f"{self.ev['e']} outside a turn")
        elif p != self.active:
            self.fail(f"seat {p} acts on seat {self.active}'s turn")

    def need_main(self, what):
        if self.phase == "pre_roll":
            self.fail(f"{what} before the roll")
        elif self.phase == "production":
            self.fail(f"{what} before the production event")
        elif self.phase in ("discard", "robber"):
            self.fail(f"{what} before the 7 is resolved (discards and robber)")
        elif self.phase != "main":
            self.fail(f"{what} not allowed now (phase {self.phase})")

    # -- setup ---------------------------------------------------------------------------
    def expect_setup(self, p, step):
        if self.phase != "setup":
            self.fail(f"{self.ev['e']} after the setup")
            return None
        if not self.setup_queue:
            self.fail("more setup placements than the snake order allows")
            return None
        seat, rnd = self.setup_queue[0]
        if step != self.setup_step:
            self.fail(f"setup order: expected setup_{self.setup_step} next")
        if p != seat:
            self.fail(f"setup snake order: seat {seat} places now, not seat {p}")
        return rnd

    def on_setup_settlement(self, ev):
        p, node = self.seat(), self.index("node", 54)
        self.expect_setup(p, "settlement")
        self.check_starting_closed()
        if not self.distance_ok(node):
            self.fail("distance rule: the node or a neighbouring node holds a building")
        if self.settlements_left[p] <= 0:
            self.fail("no settlement pieces left")
        self.buildings[node] = (p, 1)
        self.settlements_left[p] -= 1
        self.setup_node = node
        self.setup_seat = p
        self.setup_step = "road"
        if self.setup_queue and self.setup_queue[0][1] == 1:
            self.starting_due.add(p)
        self.derive_longest()

    def on_setup_road(self, ev):
        p, edge = self.seat(), self.index("edge", 72)
        self.expect_setup(p, "road")
        if edge in self.roads:
            self.fail("edge already holds a road")
        if self.setup_node not in self.geo.edge_nodes[edge]:
            self.fail("setup road must touch the settlement just placed")
        self.roads[edge] = p
        self.roads_left[p] -= 1
        self.setup_step = "settlement"
        if self.setup_queue:
            self.setup_queue.pop(0)
        self.derive_longest()
        if not self.setup_queue and not self.starting_due - self.starting_done:
            self.end_setup()

    def on_starting_resources(self, ev):
        p, cards = self.seat(), self.bundle("cards")
        if self.phase != "setup":
            self.fail("starting_resources after the setup")
        if p not in self.starting_due or p in self.starting_done:
            self.fail("starting_resources only once, for the second settlement just placed")
        if p != self.setup_seat:
            self.fail("starting_resources must follow the player's second settlement")
        expected = [0] * 5
        for h in self.geo.node_hexes[self.setup_node]:
            res = TERRAIN_RESOURCE[self.geo.hex_terrain[h]]
            if res is not None:
                expected[RESOURCE_NAMES.index(res)] += 1
        expected = [min(expected[r], self.supply[r]) for r in range(5)]
        if cards != expected:
            self.fail(f"starting resources: the second settlement yields {expected}")
        self.move(None, p, cards, "starting resources")
        self.starting_done.add(p)
        if not self.setup_queue and not self.starting_due - self.starting_done:
            self.end_setup()

    def check_starting_closed(self):
        # The previous player's starting resources must be in before the next placement.
        open_ = self.starting_due - self.starting_done
        if open_:
            self.fail(f"missing starting_resources for seat {min(open_)}")
            self.starting_done |= open_

    def end_setup(self):
        self.phase = "between"

    # -- turns ----------------------------------------------------------------------------
    def on_turn_start(self, ev):
        p, turn = self.seat(), self.get("turn")
        if self.phase == "setup":
            self.check_starting_closed()
            if self.setup_queue:
                self.fail("turn_start before the setup is complete")
            self.phase = "between"
        if self.phase == "limit":
            self.fail(f"turn limit {self.max_turns} reached: game_end expected")
        elif self.phase != "between":
            self.fail("turn_start before the previous turn_end")
        if turn != self.turn + 1:
            self.fail(f"turn number: expected {self.turn + 1}")
        due = (self.first_turn + self.turn) % self.n
        if p != due:
            self.fail(f"turn order: seat {due} plays turn {self.turn + 1}")
        self.turn = turn if isinstance(turn, int) else self.turn + 1
        self.active = p
        self.phase = "pre_roll"
        self.dev_played = False
        for q in range(self.n):
            self.dev_new[q] = dict.fromkeys(DEV_CARD_NAMES, 0)

    def on_roll(self, ev):
        p = self.seat()
        dice = self.get("dice")
        if (
            not isinstance(dice, list)
            or len(dice) != 2
            or any(isinstance(d, bool) or not isinstance(d, int) for d in dice)
        ):
            self.bad("dice must be [d1, d2]")
        self.need_turn_of(p)
        if self.phase != "pre_roll":
            self.fail("one roll per turn, before the action phase")
        if not all(1 <= d <= 6 for d in dice):
            self.fail("dice values must be 1..6")
        self.last_dice = list(dice)
        total = dice[0] + dice[1]
        if total != 7:
            self.phase = "production"
            return
        self.discards_due = []
        if self.discard_limit is not None:
            limit = self.discard_limit
            self.discards_due = [q for q in range(self.n) if sum(self.hands[q]) > limit]
        self.phase = "discard" if self.discards_due else self.after_discards()

    def after_discards(self):
        return "main" if self.robber_mode == "off" else "robber"

    def on_production(self, ev):
        gains = self.get("gains")
        if not isinstance(gains, list) or len(gains) != self.n:
            self.bad(f"gains must be a list of {self.n} bundles")
        gains = [self.bundle("gains", g) for g in gains]
        withheld = self.bundle("withheld")
        if self.phase != "production":
            self.fail("production only right after a roll other than 7")
        total = sum(self.last_dice)
        owed = [[0] * 5 for _ in range(self.n)]
        for h in range(19):
            if self.geo.hex_number[h] != total or (h == self.robber
                                                   and self.robber_mode != "off"):
                continue  # the robber's hex produces nothing (none with the robber off)
            res = TERRAIN_RESOURCE[self.geo.hex_terrain[h]]
            if res is None:
                continue
            r = RESOURCE_NAMES.index(res)
            for node in self.geo.hex_nodes[h]:
                b = self.buildings.get(node)
                if b is not None:
                    owed[b[0]][r] += b[1]  # 1 per settlement, 2 per city
        paid, short = self.pay(owed)
        if gains != paid:
            self.fail(f"production: expected gains {paid} for {total} "
                      f"(shortage rule {self.shortage!r})")
        if withheld != short:
            self.fail(f"production: expected withheld {short} (shortage rule {self.shortage!r})")
        for q in range(self.n):
            self.move(None, q, gains[q], "production")
        self.phase = "main"

    def pay(self, owed):
        """Apply the supply-shortage rule: return (paid bundles, withheld bundle)."""
        paid = [[0] * 5 for _ in range(self.n)]
        withheld = [0] * 5
        for r in range(5):
            total = sum(owed[q][r] for q in range(self.n))
            left = self.supply[r]
            if total <= left:
                for q in range(self.n):
                    paid[q][r] = owed[q][r]
                continue
            owed_to = [q for q in range(self.n) if owed[q][r] > 0]
            if self.shortage == "official":
                if len(owed_to) == 1:  # a sole recipient takes what is left
                    paid[owed_to[0]][r] = left
            elif self.shortage == "off":  # turn order from the roller until it runs out
                for k in range(self.n):
                    q = (self.active + k) % self.n
                    give = min(owed[q][r], left)
                    paid[q][r] = give
                    left -= give
            # "strict": nobody is paid.
            withheld[r] = total - sum(paid[q][r] for q in range(self.n))
        return paid, withheld

    def on_discard(self, ev):
        p, cards = self.seat(), self.bundle("cards")
        if self.phase != "discard" or not self.discards_due:
            self.fail("discard only after a rolled 7, by a player holding more than the limit")
        elif p != self.discards_due[0]:
            self.fail(f"discards: seat {self.discards_due[0]} discards next (holders of more than "
                      f"{self.discard_limit} cards, in seat order)")
        held = sum(self.hands[p])
        if sum(cards) != held // 2:
            self.fail(f"discard size: seat {p} holds {held}, must discard {held // 2}")
        self.move(p, None, cards, "discard")
        if self.discards_due and self.discards_due[0] == p:
            self.discards_due.pop(0)
        if self.phase == "discard" and not self.discards_due:
            self.phase = self.after_discards()

    def on_robber(self, ev):
        p, h = self.seat(), self.index("hex", 19)
        victim = self.seat("victim", allow_none=True)
        stolen = self.resource("stolen", allow_none=True)
        self.need_turn_of(p)
        if self.robber_mode == "off":
            self.fail("robber rule is off: no robber events")
        if self.knight_robber_due:
            self.knight_robber_due = False
        elif self.phase == "robber":
            self.phase = "main"
        elif self.phase == "discard":
            self.fail(f"robber before the discards: seat {self.discards_due[0]} must discard first")
            self.phase = "main"
        else:
            self.fail("the robber moves only after a 7 (after discards) or a knight")
        if h == self.robber:
            self.fail("the robber must move to a different hex")
        if self.robber_mode == "friendly":
            allowed = self.friendly_hexes()
            if h not in allowed:
                self.fail("friendly robber: hex touches a building of a player with 2 or fewer "
                          "visible VP while another hex is possible")
        on_hex = sorted({self.buildings[n][0] for n in self.geo.hex_nodes[h]
                         if n in self.buildings and self.buildings[n][0] != p})
        if victim is None:
            if any(sum(self.hands[q]) > 0 for q in on_hex):
                self.fail("the robber must steal from an opponent with a building on the hex")
            if stolen is not None:
                self.fail("stolen card without a victim")
        else:
            if victim not in on_hex:
                self.fail(f"victim seat {victim} has no building on hex {h} (or is the roller)")
            if sum(self.hands[victim]) == 0 and stolen is not None:
                self.fail("stolen card from an empty hand")
            if sum(self.hands[victim]) > 0 and stolen is None:
                self.fail("victim holds cards: one must be stolen")
            if stolen is not None and self.hands[victim][stolen] <= 0:
                self.fail(f"victim holds no {RESOURCE_NAMES[stolen]}")
        self.robber = h
        if victim is not None and stolen is not None:
            card = [0] * 5
            card[stolen] = 1
            self.move(victim, p, card, "steal")

    def friendly_hexes(self):
        """Hexes the friendly robber may take: not touching a player at <= 2 visible VP."""
        weak = {q for q in range(self.n) if self.visible_vp(q) <= 2}
        others = [h for h in range(19) if h != self.robber]
        ok = [h for h in others
              if not any(self.buildings.get(n, (None,))[0] in weak for n in self.geo.hex_nodes[h])]
        return set(ok) if ok else set(others)

    # -- trades -------------------------------------------------------------------------------
    def on_trade_bank(self, ev):
        p, give, get = self.seat(), self.bundle("give"), self.bundle("get")
        self.need_turn_of(p)
        self.need_main("trade")
        kinds = [r for r in range(5) if give[r]]
        if len(kinds) != 1:
            self.fail("maritime trade: exactly one kind of resource is given")
        elif sum(get) < 1:
            self.fail("maritime trade: nothing received")
        else:
            r = kinds[0]
            if get[r]:
                self.fail("maritime trade: cannot receive the resource given")
            rates = {4}
            for node, (s, _) in self.buildings.items():
                if s == p:
                    kinds_here = self.geo.harbor_kinds_at[node]
                    if "any" in kinds_here:
                        rates.add(3)
                    if RESOURCE_NAMES[r] in kinds_here:
                        rates.add(2)
            if give[r] not in {rate * sum(get) for rate in rates}:
                self.fail(f"maritime rate: {give[r]}:{sum(get)} {RESOURCE_NAMES[r]} but the "
                          f"player's rates are {sorted(rates)}:1")
        self.move(p, None, give, "maritime trade")
        self.move(None, p, get, "maritime trade")

    def on_trade_player(self, ev):
        p, q = self.seat(), self.seat("partner")
        give, get = self.bundle("give"), self.bundle("get")
        self.need_turn_of(p)
        self.need_main("trade")
        if q == p:
            self.fail("a player cannot trade with himself")
        if not any(give) or not any(get):
            self.fail("player trade: both sides must be non-empty (no gifts)")
        if any(give[r] and get[r] for r in range(5)):
            self.fail("player trade: a resource on both sides")
        self.move(p, q, give, "player trade (give)")
        self.move(q, p, get, "player trade (get)")

    # -- builds ----------------------------------------------------------------------------------
    def on_build_road(self, ev):
        p, edge = self.seat(), self.index("edge", 72)
        free = self.get("free")
        if not isinstance(free, bool):
            self.bad("free must be true or false")
        self.need_turn_of(p)
        if free:
            if self.free_roads is None or self.free_roads >= 2:
                self.fail("a free road only as one of the two roads of Road Building")
            else:
                self.free_roads += 1
        else:
            self.need_main("build")
        if edge in self.roads:
            self.fail("edge already holds a road")
        if self.roads_left[p] <= 0:
            self.fail("no road pieces left (15)")
        if not self.road_connects(p, edge):
            self.fail("road not connected to the player's road or building (or runs through an "
                      "opponent's building)")
        if not free:
            self.move(p, None, list(COST_ROAD), "road cost")
        self.roads[edge] = p
        self.roads_left[p] -= 1
        self.derive_longest()

    def on_build_settlement(self, ev):
        p, node = self.seat(), self.index("node", 54)
        self.need_turn_of(p)
        self.need_main("build")
        if not self.distance_ok(node):
            self.fail("distance rule: the node or a neighbouring node holds a building")
        if not any(self.roads.get(e) == p for e in self.geo.node_edges[node]):
            self.fail("settlement must touch one of the player's roads")
        if self.settlements_left[p] <= 0:
            self.fail("no settlement pieces left (5)")
        self.move(p, None, list(COST_SETTLEMENT), "settlement cost")
        self.buildings[node] = (p, 1)
        self.settlements_left[p] -= 1
        self.derive_longest()

    def on_build_city(self, ev):
        p, node = self.seat(), self.index("node", 54)
        self.need_turn_of(p)
        self.need_main("build")
        if self.buildings.get(node) != (p, 1):
            self.fail("a city must replace one of the player's settlements")
        if self.cities_left[p] <= 0:
            self.fail("no city pieces left (4)")
        self.move(p, None, list(COST_CITY), "city cost")
        self.buildings[node] = (p, 2)
        self.cities_left[p] -= 1
        self.settlements_left[p] += 1  # the settlement goes back to the player
        self.derive_longest()

    # -- development cards ---------------------------------------------------------------------
    def dev_card(self):
        v = self.get("card")
        if v not in DEV_CARD_NAMES:
            self.bad("card must be a development card name")
        return v

    def on_buy_dev(self, ev):
        p, card = self.seat(), self.dev_card()
        self.need_turn_of(p)
        self.need_main("buying a development card")
        if self.deck[card] <= 0:
            self.fail(f"no {card} left in the development deck (14/5/2/2/2)")
        self.move(p, None, list(COST_DEV_CARD), "development card cost")
        self.deck[card] -= 1
        self.dev_hand[p][card] += 1
        self.dev_new[p][card] += 1

    def on_play_dev(self, ev):
        p, card = self.seat(), self.dev_card()
        self.need_turn_of(p)
        if self.phase not in ("pre_roll", "main"):
            self.need_main("playing a development card")
        if card == "victory_point":
            self.fail("victory point cards are never played")
        if self.dev_played:
            self.fail("at most one development card per turn")
        if self.dev_hand[p][card] <= 0:
            self.fail(f"seat {p} holds no {card}")
        elif self.dev_hand[p][card] - self.dev_new[p][card] <= 0:
            self.fail(f"{card} cannot be played in the turn it was bought")
        self.dev_played = True
        self.dev_hand[p][card] = max(0, self.dev_hand[p][card] - 1)
        if card == "knight":
            self.knights[p] += 1
            if self.robber_mode != "off":
                self.knight_robber_due = True
            self.derive_army(p)
        elif card == "road_building":
            self.free_roads = 0
        elif card == "invention":
            cards = self.bundle("cards")
            # Any 2 cards from the supply; a supply holding fewer gives what it holds.
            due = min(2, sum(self.supply))
            if sum(cards) != due:
                self.fail(f"Invention takes 2 resource cards, or all the supply holds if "
                          f"fewer: expected {due}, got {sum(cards)}")
            self.move(None, p, cards, "Invention")
        elif card == "monopoly":
            r = self.resource("resource")
            taken = self.get("taken")
            if (not isinstance(taken, list) or len(taken) != self.n
                    or any(isinstance(x, bool) or not isinstance(x, int) for x in taken)):
                self.bad(f"taken must be a list of {self.n} integers")
            expected = [0 if q == p else self.hands[q][r] for q in range(self.n)]
            if taken != expected:
                self.fail(f"Monopoly: every opponent hands over all their "
                          f"{RESOURCE_NAMES[r]}: expected taken {expected}")
            for q in range(self.n):
                if q != p:
                    card_b = [0] * 5
                    card_b[r] = taken[q]
                    self.move(q, p, card_b, "Monopoly")

    # -- tiles ------------------------------------------------------------------------------------
    def on_tile(self, ev):
        name = ev["e"]
        p = self.seat("p", allow_none=True)
        key = "length" if name == "longest_route" else "knights"
        value = self.get(key)
        match = next((t for t in self.pending_tiles if t["e"] == name), None)
        if match is None:
            self.fail(f"unexpected {name} change: the rules give no change here")
        else:
            self.pending_tiles.remove(match)
            if match["p"] != p:
                self.fail(f"{name} goes to {self.who(match['p'])}, not {self.who(p)}")
            elif match[key] is not None and value != match[key]:
                self.fail(f"{name}: {key} is {match[key]}")
        if name == "longest_route":
            self.longest = p
        else:
            if p is None:
                self.fail("Largest Army never returns to the supply")
            self.army = p

    # -- end of turn and game -----------------------------------------------------------------
    def on_turn_end(self, ev):
        p = self.seat()
        self.need_turn_of(p)
        if self.phase != "main":
            self.need_main("turn_end")
        if self.turn == self.switch_turn:  # the after-rules decide from here on
            self._apply_rules(self.rules_after, "rules_after")
            if self.robber_mode == "off":  # a robber switched off rests on the desert
                self.robber = self.geo.desert
        self.phase = "limit" if self.turn >= self.max_turns else "between"
        self.snapshots.append({
            "turn": self.turn,
            "hands": [list(h) for h in self.hands],
            "vp": [self.vp(q)["total"] for q in range(self.n)],
            "robber": self.geo.our_hex[self.robber],
        })  # fmt: skip

    def on_game_end(self, ev):
        winner = self.seat("winner", allow_none=True)
        turn, vp, reason = self.get("turn"), self.get("vp"), self.get("reason")
        if reason not in ("win", "turn_limit"):
            self.bad("reason must be \"win\" or \"turn_limit\"")
        if not isinstance(vp, list) or len(vp) != self.n:
            self.bad(f"vp must be a list of {self.n} integers")
        expected_vp = [self.vp(q)["total"] for q in range(self.n)]
        if vp != expected_vp:
            self.fail(f"final vp: expected {expected_vp} (hidden VP cards included)")
        if turn != self.turn:
            self.fail(f"game_end turn: the current turn is {self.turn}")
        if reason == "win":
            if self.phase in ("setup", "between", "limit") or self.active is None:
                self.fail("a win only during a player's turn")
            elif winner != self.active:
                self.fail(f"only the player whose turn it is (seat {self.active}) can win")
            elif self.vp(winner)["total"] < self.vp_to_win:
                self.fail(f"winner has {self.vp(winner)['total']} VP < {self.vp_to_win}")
            if self.pending_tiles:
                self.fail(f"missing {self.pending_tiles[0]['e']} change before game_end")
        else:
            if winner is not None:
                self.fail("turn_limit ends with winner null")
            if self.phase != "limit":
                self.fail(f"turn_limit only after turn_end of turn {self.max_turns}")
        self.ended = True
        self.winner = winner
        self.reason = reason
        self.pending_tiles.clear()
        self.knight_robber_due = False
        self.free_roads = None

    # -- result -----------------------------------------------------------------------------------
    def result(self) -> ReplayResult:
        node_owner, node_level, edge_owner = [-1] * 54, [0] * 54, [-1] * 72
        for node, (s, lv) in self.buildings.items():
            node_owner[self.geo.our_node[node]] = s
            node_level[self.geo.our_node[node]] = lv
        for e, s in self.roads.items():
            edge_owner[self.geo.our_edge[e]] = s
        return ReplayResult(
            n_players=self.n,
            strategies=list(self.strategies),
            rules=dict(self.rules),
            hands=[list(h) for h in self.hands],
            supply=None if self.bank_size == UNLIMITED else list(self.supply),
            dev_cards=[dict(d) for d in self.dev_hand],
            knights=list(self.knights),
            route_lengths=self.compute_route_lengths(),
            node_owner=node_owner,
            node_level=node_level,
            edge_owner=edge_owner,
            robber=self.geo.our_hex[self.robber],
            longest_route=self.longest,
            largest_army=self.army,
            vp=[self.vp(q) for q in range(self.n)],
            winner=self.winner,
            turns=self.turn,
            reason=self.reason,
            board=self.geo.board_ours(),
            snapshots=self.snapshots,
        )


def _int_rule(rules, key, where="rules"):
    v = rules[key]
    if isinstance(v, bool) or not isinstance(v, int) or v < 0:
        raise LogError(f"header.{where}.{key}: {v!r} is not a non-negative integer")
    return v




# --------------------------------------------------------------------------------------
# Public API
# --------------------------------------------------------------------------------------


def replay(header: dict, events: list[dict], check: bool = True, observer=None
           ) -> ReplayResult:
    """Replay a game log, rebuilding every state; optionally check every rule.

    Parameters
    ----------
    header : dict
        The log's first line (``read_log``).
    events : list of dict
        The remaining lines.
    check : bool, default True
        Raise ``LogError`` at the first rule violation. With False, events are
        applied as written (a malformed event still raises).
    observer : callable(state, event), optional
        Called after each event is applied, with the replayer's state (e.g. the
        narrative of ``logs.narrative``).

    Returns
    -------
    ReplayResult
        The final state, in our numbering.

    Raises
    ------
    LogError
        Message ``event <i> <event>: <rule>``, one line.
    """
    r = _Replayer(header, check=check)
    r.run(events, observer)
    result = r.result()
    result.log = (header, list(events))
    return result
