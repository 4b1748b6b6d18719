"""Build game positions by hand and drive the rule kernels on them (pgx style).

A ``Game`` is one flat engine state ``s`` on the beginner board (or any board)
plus the scratch arrays the kernels take. Pieces, hands, development cards and
tiles are set directly in ``s``, keeping the engine's invariants (cards moved
between supply and hands, dev cards drawn from the deck, piece counts), so
``g.violations()`` stays 0 on every position built with it.

Nodes and edges are named by the hexes that meet there, as the rules do::

    N((0, -2), (1, -2), (0, -1))   # the corner of h0, h1 and h4
    E((0, -1), (1, -1))            # the side between h4 and h5

On the beginner board (see docs/topology.png): h0 mountains 10, h1 pasture 2,
h2 forest 9, h3 fields 12, h4 hills 6, h5 pasture 4, h6 hills 10, h7 fields 9,
h8 forest 11, h9 desert, h10 forest 3, h11 mountains 8, h12 forest 8,
h13 mountains 3, h14 fields 4, h15 pasture 5, h16 hills 5, h17 fields 6,
h18 pasture 11.
"""

from __future__ import annotations

import copy

import numpy as np

from catansim import topology as T
from catansim.board import beginner_board
from catansim.core import layout as L
from catansim.core.actions_nb import ACT_SIZE, is_legal_action_nb
from catansim.core.checker_nb import count_violations_nb
from catansim.core.loop_nb import run_nb
from catansim.core.phases_nb import action_choice_nb, check_win_nb, start_dev_nb
from catansim.core.rng_nb import seed_streams_nb
from catansim.core.rules_nb import (
    produce_nb,
    put_city_nb,
    put_road_nb,
    put_settlement_nb,
    route_length_nb,
    update_largest_army_nb,
    update_longest_route_nb,
    vp_nb,
)
from catansim.core.scripted.work_nb import WORK_SIZE
from catansim.core.setup_nb import init_state_nb
from catansim.logs import event_rows_to_dicts
from catansim.rules import Rules
from catansim.strategies import seat_arrays
from catansim.topology import edge_between_hexes, node_of_hexes

TOPO = T.TOPO
WOOD, BRICK, WOOL, WHEAT, ORE = range(5)
KNIGHT, VICTORY_POINT, ROAD_BUILDING, INVENTION, MONOPOLY = range(5)


def N(*hexes) -> int:
    """The node where three hexes (axial ``(q, r)``, land or sea) meet."""
    return node_of_hexes(hexes)


def E(a, b) -> int:
    """The edge between two adjacent hexes."""
    return edge_between_hexes(a, b)


def H(q, r) -> int:
    """The land hex at axial ``(q, r)``."""
    return T.hex_index(q, r)


def hex_nodes(h) -> list[int]:
    return [int(n) for n in T.HEX_NODES[h]]


def ring_edges(h) -> list[int]:
    """The six sides of land hex ``h``."""
    nodes = set(hex_nodes(h))
    return [e for e, (a, b) in enumerate(T.EDGE_NODES.tolist()) if a in nodes and b in nodes]


def edge_of(a, b) -> int:
    """The edge joining nodes ``a`` and ``b``."""
    for e, (u, v) in enumerate(T.EDGE_NODES.tolist()):
        if {u, v} == {a, b}:
            return e
    raise KeyError((a, b))


def path_edges(nodes) -> list[int]:
    """Edges along a path of adjacent nodes."""
    return [edge_of(a, b) for a, b in zip(nodes, nodes[1:], strict=False)]


def bundle(wood=0, brick=0, wool=0, wheat=0, ore=0) -> list[int]:
    return [wood, brick, wool, wheat, ore]


class Game:
    """A hand-built position and thin wrappers around the rule kernels.

    The player whose turn it is (``cur``) is seat 0 at turn 1, after the roll,
    unless set otherwise. Decisions the kernels ask of players (robber hex,
    victim, discards, free roads...) are made by strategy 0 (random) from the
    game's own streams, so tests assert what the rules force, not the choice.
    """

    def __init__(self, n_players=4, rules: Rules | None = None, board=None, seed=0,
                 log=True, check=True):
        self.n = n_players
        self.rules_obj = rules or Rules()
        self.rules = self.rules_obj.to_array(check=check)
        self.rng = np.zeros(8, dtype=np.uint64)
        seed_streams_nb(seed, self.rng)
        self.board = board if board is not None else beginner_board()
        self.s = np.zeros(L.STATE_SIZE, dtype=np.int32)
        init_state_nb(self.s, TOPO, self.rules, self.rng, n_players,
                      self.board.vector.astype(np.int32))
        self.s[L.S_LOG_ON] = 1 if log else 0
        self.log = np.zeros((4000, L.LOG_WIDTH), dtype=np.int32)
        self.strat, self.params = seat_arrays(("random",) * n_players)
        self.scratch = np.zeros(72, dtype=np.uint8)
        self.victims = np.zeros(4, dtype=np.int32)
        self.bundle = np.zeros(5, dtype=np.int32)
        self.owed = np.zeros((4, 5), dtype=np.int32)
        self.cand = np.zeros(512, dtype=np.int32)
        self.work = np.zeros(WORK_SIZE)
        self.act = np.zeros(ACT_SIZE, dtype=np.int32)
        self.openings = np.full(16, -1, dtype=np.int32)
        self.s[L.S_TURN] = 1
        self.s[L.S_CUR] = 0
        self.s[L.S_ROLLED] = 1

    # --- state fields ---------------------------------------------------------------

    def __getitem__(self, name):
        off = L.STATE_OFFSETS[name]
        return self.s[off : off + L.STATE_LENGTHS[name]]

    @property
    def cur(self) -> int:
        return int(self.s[L.S_CUR])

    @cur.setter
    def cur(self, p):
        self.s[L.S_CUR] = p

    def hand(self, p) -> list[int]:
        return [int(x) for x in self.s[L.S_HAND + 5 * p : L.S_HAND + 5 * p + 5]]

    def bank(self) -> list[int]:
        return [int(x) for x in self.s[L.S_BANK : L.S_BANK + 5]]

    def set_hand(self, p, cards):
        """Set p's hand, moving the difference between the supply and the hand; every
        player's public record of it is exact, as if the cards had come in public."""
        for r, want in enumerate(cards):
            have = self.s[L.S_HAND + 5 * p + r]
            self.s[L.S_BANK + r] -= want - have
            self.s[L.S_HAND + 5 * p + r] = want
        assert min(self.bank()) >= 0, "not enough cards in the supply"
        self.publish_hand(p)

    def publish_hand(self, p):
        """Make every observer's record of p's hand exact (``core.record_nb``)."""
        for o in range(4):
            i = (4 * o + p) * 5
            self.s[L.S_SEEN_BELOW + i : L.S_SEEN_BELOW + i + 5] = 0
            self.s[L.S_SEEN_ABOVE + i : L.S_SEEN_ABOVE + i + 5] = 0

    def seen(self, o, q) -> tuple[list[int], list[int]]:
        """Observer o's record of seat q's hand: (cards surely held, cards held at most)."""
        return seen_record(self.s, o, q)

    def set_bank(self, r, count, sink):
        """Leave ``count`` cards of resource r in the supply; the rest go to seat ``sink``'s
        hand, so every card is still accounted for."""
        extra = self.s[L.S_BANK + r] - count
        self.s[L.S_BANK + r] = count
        self.s[L.S_HAND + 5 * sink + r] += extra
        assert self.s[L.S_HAND + 5 * sink + r] >= 0
        self.publish_hand(sink)

    def settle(self, p, node, city=False):
        put_settlement_nb(self.s, TOPO, p, node)
        if city:
            put_city_nb(self.s, TOPO, p, node)
        self.refresh_routes()

    def road(self, p, *edges):
        for e in edges:
            assert self.s[L.S_EDGE_OWNER + e] < 0, f"edge {e} taken"
            put_road_nb(self.s, TOPO, p, e)
        self.refresh_routes()

    def refresh_routes(self):
        for q in range(self.n):
            self.s[L.S_ROUTE_LEN + q] = route_length_nb(self.s, TOPO, q)

    def route(self, p) -> int:
        return int(route_length_nb(self.s, TOPO, p))

    def _draw(self, card):
        """Move a card of kind ``card`` to the top of the deck and draw it."""
        pos = self.s[L.S_DECK_POS]
        deck = self.s[L.S_DECK : L.S_DECK + 25]
        idx = pos + int(np.flatnonzero(deck[pos:] == card)[0])
        deck[pos], deck[idx] = deck[idx], deck[pos]
        self.s[L.S_DECK_POS] = pos + 1

    def give_dev(self, p, card, count=1, new=False):
        """Give p development cards (drawn from the deck); ``new``: bought this turn."""
        for _ in range(count):
            self._draw(card)
            self.s[L.S_DEV_HAND + 5 * p + card] += 1
            if new:
                self.s[L.S_DEV_NEW + 5 * p + card] += 1

    def set_knights(self, p, k):
        """p has ``k`` knights in play (drawn from the deck and played earlier)."""
        for _ in range(k):
            self._draw(KNIGHT)
        self.s[L.S_KNIGHTS + p] += k
        self.s[L.C_DEV_PLAYED + 5 * p + KNIGHT] += k

    def dev_hand(self, p) -> list[int]:
        return [int(x) for x in self.s[L.S_DEV_HAND + 5 * p : L.S_DEV_HAND + 5 * p + 5]]

    def vp(self, p) -> int:
        return int(vp_nb(self.s, p))

    @property
    def longest(self):
        return int(self.s[L.S_LONGEST])

    @property
    def army(self):
        return int(self.s[L.S_ARMY])

    def violations(self) -> int:
        return int(count_violations_nb(self.s, TOPO, self.rules))

    def events(self) -> list[dict]:
        return event_rows_to_dicts(self.log[: self.s[L.S_LOG_LEN]], self.n)

    def clear_log(self):
        self.s[L.S_LOG_LEN] = 0

    def snapshot(self) -> np.ndarray:
        return self.s.copy()

    # --- kernels --------------------------------------------------------------------

    @staticmethod
    def action(kind, a=0, b=0, give=None, get=None) -> np.ndarray:
        act = np.zeros(ACT_SIZE, dtype=np.int32)
        act[0] = kind
        act[1] = a
        act[2] = b
        if give is not None:
            act[2:7] = give
        if get is not None:
            act[7:12] = get
        return act

    def legal(self, act, p=None) -> bool:
        p = self.cur if p is None else p
        return bool(is_legal_action_nb(self.s, TOPO, self.rules, p, act))

    def _run_until(self, phase):
        # The engine from the state's phase to ``phase``: the players' decisions on the way
        # are made by their strategies.
        play = (self.rng, self.act, self.cand, self.scratch, self.victims, self.bundle,
                self.owed, self.work)
        run_nb(self.s, TOPO, self.rules, self.strat, self.params, self.openings, self.log,
               play, phase)

    def apply(self, act, check=True) -> bool:
        """Apply a legal action of the current player, with the decisions it asks for
        (a card's effect, a partner's answer); return True if the game ended."""
        if check:
            assert self.legal(act), f"illegal action {act.tolist()}"
        self.act[:] = act
        action_choice_nb(self.s, TOPO, self.rules, self.log, self.act)
        self._run_until(L.PH_ACTION_DONE)
        return bool(check_win_nb(self.s, self.rules, self.log))

    def play_dev(self, card, p=None):
        """Play ``card`` (checked playable by the caller) for seat p, with its effect."""
        cur = self.cur
        p = cur if p is None else p
        self.s[L.S_CUR] = p
        self.s[L.S_DEV_RETURN] = L.PH_ACTION_DONE
        start_dev_nb(self.s, self.rules, self.log, p, card)
        self._run_until(L.PH_ACTION_DONE)
        self.s[L.S_CUR] = cur

    def seven(self):
        """A rolled 7 after the dice: the discards, then the robber."""
        self.s[L.S_STEP] = 0
        self.s[L.S_PHASE] = L.PH_DISCARD
        self._run_until(L.PH_AFTER_ROLL)

    def produce(self, roll):
        produce_nb(self.s, TOPO, self.rules, self.log, roll, self.owed)

    def play_turn(self):
        """One whole turn of the seat ``cur`` (it ends early if the game does)."""
        self.s[L.S_PHASE] = L.PH_TURN_START
        self._run_until(L.PH_TURN_DONE)

    def check_win(self) -> bool:
        return bool(check_win_nb(self.s, self.rules, self.log))

    def update_longest(self):
        update_longest_route_nb(self.s, self.log)

    def update_army(self, p):
        update_largest_army_nb(self.s, self.log, p)


def trade_position() -> Game:
    """Seat 1 can reach a settlement spot and lacks only wool for it; it holds an ore
    beyond the settlement's cost (hand 1 wood, 1 brick, 1 wheat, 2 ore)."""
    g = Game()
    start = hex_nodes(H(-1, 0))[0]
    g.settle(1, start)
    a = int(T.NODE_NEIGHBOURS[start][0])
    b = next(int(m) for m in T.NODE_NEIGHBOURS[a] if m >= 0 and m != start)
    g.road(1, *path_edges([start, a, b]))
    g.set_hand(1, [1, 1, 0, 1, 2])
    return g


def seen_record(s, o, q) -> tuple[list[int], list[int]]:
    """Observer o's record of seat q's hand in state ``s``: (cards surely held, cards held
    at most), from the state's distances to the hand (``core.record_nb``)."""
    i = (4 * o + q) * 5
    hand = s[L.S_HAND + 5 * q : L.S_HAND + 5 * q + 5].astype(int)
    return ((hand - s[L.S_SEEN_BELOW + i : L.S_SEEN_BELOW + i + 5]).tolist(),
            (hand + s[L.S_SEEN_ABOVE + i : L.S_SEEN_ABOVE + i + 5]).tolist())


def set_record(s, o, q, low, high):
    """Set observer o's record of seat q in ``s`` to the interval [low, high] per resource
    (it must hold q's hand)."""
    i = (4 * o + q) * 5
    hand = s[L.S_HAND + 5 * q : L.S_HAND + 5 * q + 5]
    assert np.all(low <= hand) and np.all(hand <= high)
    s[L.S_SEEN_BELOW + i : L.S_SEEN_BELOW + i + 5] = hand - low
    s[L.S_SEEN_ABOVE + i : L.S_SEEN_ABOVE + i + 5] = high - hand


def batch_scratch():
    """The (state, log, scratch) arguments ``play_batch_nb`` plays its games in (logging
    off)."""
    from catansim.core.engine_nb import game_arrays, new_scratch

    return (*game_arrays(), new_scratch())


def play_one(seed, kernel_args, s, log):
    """Play game ``seed`` with ``play_batch_nb`` into the state ``s`` and the event buffer
    ``log`` (set ``s[S_LOG_ON]`` first); return the board it was played on."""
    from catansim.core.engine_nb import new_scratch, play_batch_nb

    counters = np.zeros((1, L.N_COUNTERS), dtype=np.int32)
    boards = np.zeros((1, L.BOARD_SIZE), dtype=np.int32)
    play_batch_nb(np.array([seed], dtype=np.int64), *kernel_args, counters, boards, s, log,
                  new_scratch())
    return boards[0]


def reversed_numbering(header, events):
    """The log as a writer numbering hexes, nodes and edges the other way round writes it."""
    board = header["board"]
    n_nodes, n_edges = len(board["nodes"]), len(board["edges"])
    node = {k: n_nodes - 1 - k for k in range(n_nodes)}
    edge = {e: n_edges - 1 - e for e in range(n_edges)}
    foreign = dict(board)
    foreign["hexes"] = [board["hexes"][18 - h] for h in range(19)]
    foreign["nodes"] = [board["nodes"][n_nodes - 1 - k] for k in range(n_nodes)]
    foreign["edges"] = [[node[a], node[b]] for a, b in
                        (board["edges"][n_edges - 1 - e] for e in range(n_edges))]
    foreign["harbors"] = [{"edge": edge[h["edge"]], "kind": h["kind"]}
                          for h in board["harbors"]]
    foreign["robber"] = 18 - board["robber"]
    out = copy.deepcopy(events)
    for ev in out:
        if "node" in ev:
            ev["node"] = node[ev["node"]]
        if "edge" in ev:
            ev["edge"] = edge[ev["edge"]]
        if "hex" in ev:
            ev["hex"] = 18 - ev["hex"]
    return {**header, "board": foreign}, out
