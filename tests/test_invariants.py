"""Random-play invariant suite (OpenSpiel ``RandomSimTest`` / pgx ``api_test`` style).

Over 10,000 random games across 3 and 4 players and every rule setting run through
``play_batch_nb`` with the in-kernel state checker on (``Rules.to_array(check=True)``):
the checker must count no violation after any step, the random strategy must never be
refused, and every result record must be internally consistent. Then determinism
(seeds, threads, single game vs batch) and the separation of the random streams.

``CATANSIM_TEST_SCALE`` (a fraction, default 1) plays that share of each setting's
games, at least ``MIN_GAMES``: ``tests/test_bounds.py`` runs the random-play tests at
0.05 with Numba's bounds checks on.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from helpers import batch_scratch, play_one

from catansim.constants import PIPS
from catansim.core import layout as L
from catansim.core.checker_nb import count_violations_nb
from catansim.core.engine_nb import play_batch_nb
from catansim.core.rules_nb import derive_piece_fields_nb
from catansim.engine import batch_seeds, play_batch, play_game
from catansim.rules import Rules
from catansim.settings import GameSettings
from catansim.topology import EDGE_NODES, NODE_EDGES, NODE_HEXES, TOPO

DEV_COUNTS = (14, 5, 2, 2, 2)
# name: (n_players, layout, rules, games)
CONFIGS = {
    "official-4": (4, "variable", {}, 1200),
    "official-3": (3, "variable", {}, 1000),
    "robber-off-4": (4, "variable", {"robber": "off"}, 600),
    "friendly-3": (3, "variable", {"robber": "friendly", "first_turn": 2}, 700),
    "first-pick-2-4": (4, "variable", {"first_pick": 2}, 600),
    "first-pick-1-turn-0-3": (3, "variable", {"first_pick": 1, "first_turn": 0}, 600),
    "friendly-bank8-4": (4, "variable", {"robber": "friendly", "bank_per_resource": 8}, 700),
    "strict-bank6-4": (4, "variable", {"shortage": "strict", "bank_per_resource": 6,
                                       "first_turn": 3}, 700),
    "off-bank5-3": (3, "variable", {"shortage": "off", "bank_per_resource": 5}, 700),
    "unlimited-nodiscard-4": (4, "variable", {"bank_per_resource": None,
                                              "discard_limit": None}, 600),
    "unlimited-discard4-3": (3, "random_numbers", {"bank_per_resource": None,
                                                   "discard_limit": 4}, 600),
    "beginner-discard12-vp8-4": (4, "beginner", {"discard_limit": 12, "vp_to_win": 8}, 700),
    "beginner-vp6-3": (3, "beginner", {"vp_to_win": 6, "shortage": "strict",
                                       "bank_per_resource": 7}, 700),
    "random-numbers-vp5-4": (4, "random_numbers", {"vp_to_win": 5, "max_turns": 60}, 700),
    "vp12-cap50-4": (4, "variable", {"vp_to_win": 12, "max_turns": 50,
                                     "robber": "off", "discard_limit": 0}, 700),
    "vp3-cap20-3": (3, "variable", {"vp_to_win": 3, "max_turns": 20,
                                    "shortage": "off"}, 600),
    "cap1-4": (4, "variable", {"max_turns": 1, "bank_per_resource": 3}, 300),
}
SCALE = float(os.environ.get("CATANSIM_TEST_SCALE", "1"))
MIN_GAMES = 20
SENTINEL_FIELDS = {"c_winner", "c_longest_holder", "c_army_holder", "c_first_city",
                   "c_first_settlement", "c_start_nodes", "c_first_shortage", "c_vp_at"}


def test_the_suite_plays_at_least_ten_thousand_games_over_both_player_counts():
    assert sum(c[3] for c in CONFIGS.values()) >= 10_000
    assert {c[0] for c in CONFIGS.values()} == {3, 4}


def run_batch(n_players, layout, rules, n_games, base_seed):
    settings = GameSettings(n_players=n_players, layout=layout, rules=Rules(**rules))
    n, code, board, openings, topo, _, strat, params = settings.kernel_args()
    rules_arr = settings.rules.to_array(check=True)
    seeds = batch_seeds(base_seed, n_games)
    counters = np.zeros((n_games, L.N_COUNTERS), dtype=np.int32)
    boards = np.zeros((n_games, L.BOARD_SIZE), dtype=np.int32)
    play_batch_nb(seeds, n, code, board, openings, topo, rules_arr, strat, params,
                  counters, boards, *batch_scratch())
    return settings, counters


class Cols:
    """Named views of the counter rows: ``c.vp`` is int32[n_games, 4] etc."""

    def __init__(self, counters):
        self._c = counters

    def __getattr__(self, name):
        off = L.COUNTER_OFFSETS["c_" + name]
        k = L.STATE_LENGTHS["c_" + name]
        out = self._c[:, off : off + k]
        return out[:, 0] if k == 1 else out


@pytest.mark.parametrize("name", list(CONFIGS))
def test_random_play_invariants(name):
    n_players, layout, rules, n_games = CONFIGS[name]
    n_games = max(MIN_GAMES, round(n_games * SCALE))
    settings, counters = run_batch(n_players, layout, rules, n_games,
                                   base_seed=1000 + list(CONFIGS).index(name))
    r = settings.rules
    c = Cols(counters)
    n = n_players
    # the in-kernel checker and the strategy
    assert c.violations.sum() == 0
    assert c.illegal.sum() == 0
    # no negative counters (sentinel fields may be -1)
    for fname, _, _ in L.STATE_FIELDS[[f[0] for f in L.STATE_FIELDS].index("c_turns"):]:
        vals = getattr(c, fname[2:])
        assert vals.min() >= (-1 if fname in SENTINEL_FIELDS else 0), fname
    # how every game ended
    win = c.end_reason == L.END_WIN
    cap = c.end_reason == L.END_TURN_LIMIT
    assert np.all(win | cap)
    assert np.all(c.turns >= 1) and np.all(c.turns <= r.max_turns)
    w = np.flatnonzero(win)
    assert np.all(c.winner[w] >= 0)
    assert np.all(c.vp[w, c.winner[w]] >= r.vp_to_win)
    # only on the winner's own turn: turn t is played by seat (first mover + t - 1) % n
    assert np.all(c.winner[w] == (r.first_mover + c.turns[w] - 1) % n)
    assert np.all(c.winner[cap] == -1) and np.all(c.turns[cap] == r.max_turns)
    # victory point breakdown
    parts = c.vp_settlements + c.vp_cities + c.vp_longest + c.vp_army + c.vp_cards
    assert np.array_equal(parts, c.vp)
    for p in range(4):
        assert np.array_equal(c.vp_longest[:, p], np.where(c.longest_holder == p, 2, 0))
        assert np.array_equal(c.vp_army[:, p], np.where(c.army_holder == p, 2, 0))
    if n == 3:
        for f in ("vp", "roads", "knights", "route_len", "produced", "dev_bought"):
            block = getattr(c, f)
            width = block.shape[1] // 4
            assert not block[:, 3 * width :].any(), f
    seats = slice(0, n)
    settlements = c.vp_settlements[:, seats]
    cities = c.vp_cities[:, seats] // 2
    assert np.all(settlements <= 5) and np.all(cities <= 4)
    assert np.all(settlements + cities >= 2)  # starting buildings never leave the board
    assert np.all(c.roads[:, seats] >= 2) and np.all(c.roads[:, seats] <= 15)
    assert np.all(c.route_len[:, seats] <= c.roads[:, seats])
    # bonus tiles held only by qualifying players
    lh = np.flatnonzero(c.longest_holder >= 0)
    assert np.all(c.route_len[lh, c.longest_holder[lh]] >= 5)
    assert np.all(c.route_len[lh, c.longest_holder[lh]] == c.route_len[lh].max(axis=1))
    ah = np.flatnonzero(c.army_holder >= 0)
    assert np.all(c.knights[ah, c.army_holder[ah]] >= 3)
    assert np.all(c.knights[ah, c.army_holder[ah]] == c.knights[ah].max(axis=1))
    # development cards
    bought = c.dev_bought.reshape(-1, 4, 5)
    played = c.dev_played.reshape(-1, 4, 5)
    assert np.all(bought.sum(axis=1) <= np.array(DEV_COUNTS))
    assert np.all(played <= bought)
    assert not played[:, :, 1].any()  # victory point cards are never played
    assert np.array_equal(c.vp_cards, bought[:, :, 1])
    assert np.array_equal(c.knights, played[:, :, 0])
    # dice and the robber
    assert np.all(c.rolls.sum(axis=1) <= c.turns)
    assert np.all(c.rolls.sum(axis=1) >= c.turns - 1)
    assert np.array_equal(c.sevens, c.rolls[:, 5])
    knights = c.knights.sum(axis=1)
    if r.robber == "off":
        assert not c.robber_moves.any() and not c.steals.any()
    else:
        assert np.all(c.robber_moves <= c.sevens + knights)
        assert np.all(c.robber_moves >= c.sevens + knights - 1)
    assert np.array_equal(c.stolen.sum(axis=1), c.steals.sum(axis=1))
    assert np.all(c.robbed >= c.stolen)
    assert np.all(c.trades_player.sum(axis=1) % 2 == 0)
    assert np.all(c.trades_player.sum(axis=1) // 2 <= c.offers.sum(axis=1))
    if r.discard_limit is None:
        assert not c.discarded.any()
    if r.bank_per_resource is None:
        assert not c.withheld.any() and not c.shortage_events.any()
    else:
        # withheld cards only on rolls that were short
        short = c.shortage_events.sum(axis=1)
        assert np.all((c.withheld.sum(axis=1) > 0) <= (short > 0))
    # when resources first ran short, and how often a sole recipient was owed
    never = c.shortage_events == 0
    assert np.array_equal(c.first_shortage == -1, never)
    assert np.all(never | ((c.first_shortage >= 1) & (c.first_shortage <= c.turns[:, None])))
    assert np.all(c.sole_recipient <= c.shortage_events)
    # visible VP after the checkpoint turns: recorded exactly for the turns played
    vp_at = c.vp_at.reshape(-1, 4, L.N_VP_CHECKPOINTS)[:, :n]
    reached = np.array(L.VP_CHECKPOINTS)[None, :] <= c.turns[:, None]
    assert np.array_equal(vp_at >= 0, np.broadcast_to(reached[:, None, :], vp_at.shape))
    assert np.all(vp_at[np.broadcast_to(reached[:, None, :], vp_at.shape)] >= 2)
    last = np.array(L.VP_CHECKPOINTS)[None, :] == c.turns[:, None]  # game ended on a checkpoint
    g_end, k_end = np.nonzero(last)
    visible_end = c.vp - c.vp_cards
    assert np.array_equal(vp_at[g_end, :, k_end], visible_end[g_end, :n])
    # first builds happen in turns that were played
    for f in (c.first_city, c.first_settlement):
        assert np.all((f[:, seats] == -1) | ((f[:, seats] >= 1) & (f[:, seats]
                                                                    <= c.turns[:, None])))
    # the settings did something: wins, and the turn cap where expected
    if r.max_turns >= 1000:
        assert win.mean() > 0.95
    if r.max_turns == 1:
        assert cap.all()


# --- fields derived from the pieces ----------------------------------------------------------


DERIVED = ("node_open", "node_roads", "node_free", "open_spots", "net_nodes", "prod_pips",
           "own_hexes")


def _field(s, name):
    off = L.STATE_OFFSETS[name]
    return s[off : off + L.STATE_LENGTHS[name]]


@pytest.mark.parametrize("strategies", [("random",), ("default", "expander", "city", "army")])
def test_derived_piece_fields_equal_a_recomputation_at_the_end_of_games(strategies):
    # The kernel keeps them up to date move by move; recompute them from the pieces.
    for seed in range(30):
        s = play_game(seed, strategies=strategies, log=False).state
        fresh = s.copy()
        derive_piece_fields_nb(fresh, TOPO)
        for name in DERIVED:
            assert np.array_equal(_field(s, name), _field(fresh, name)), (seed, name)
        opened = _field(s, "node_open")
        owner = _field(s, "node_owner")
        assert not opened[owner >= 0].any()  # an occupied node is never open


# The fields kept move by move for the scripted players' speed, against slow, obviously
# correct recomputations from the pieces, at the end of whole games under several rules.
REFERENCE_SETTINGS = [
    (4, "variable", {}),
    (3, "variable", {"robber": "friendly", "first_turn": 2}),
    (4, "variable", {"first_pick": 3}),
    (4, "beginner", {"discard_limit": 12, "vp_to_win": 8}),
    (4, "random_numbers", {"bank_per_resource": 6, "shortage": "strict", "max_turns": 60}),
]


def reference_net_nodes(s, q) -> int:
    """Bit n set if a road of q ends at node n or q has a building on it."""
    owner = _field(s, "node_owner")
    edge_owner = _field(s, "edge_owner")
    nodes = {n for n in range(54) if owner[n] == q}
    for e in range(72):
        if edge_owner[e] == q:
            nodes |= {int(EDGE_NODES[e][0]), int(EDGE_NODES[e][1])}
    return sum(1 << n for n in nodes)


def reference_production(s, q) -> tuple[list[int], int]:
    """q's pips per resource (a city twice) and the hexes at q's buildings, by a scan."""
    owner = _field(s, "node_owner")
    level = _field(s, "node_level")
    terrain = _field(s, "hex_terrain")
    number = _field(s, "hex_number")
    pips = [0] * 5
    hexes = set()
    for n in range(54):
        if owner[n] != q:
            continue
        for h in NODE_HEXES[n]:
            if h >= 0:
                hexes.add(int(h))
                if terrain[h] < 5:
                    pips[terrain[h]] += int(level[n]) * PIPS[number[h]]
    return pips, sum(1 << h for h in hexes)


def reference_node_free(s, n) -> int:
    """Bit k set if node n's k-th edge exists and has no road."""
    edge_owner = _field(s, "edge_owner")
    return sum(1 << k for k, e in enumerate(NODE_EDGES[n]) if e >= 0 and edge_owner[e] < 0)


def stored_net_nodes(s, q) -> int:
    words = _field(s, "net_nodes")
    assert 0 <= words[2 * q] < 1 << 27 and 0 <= words[2 * q + 1] < 1 << 27
    return int(words[2 * q]) | int(words[2 * q + 1]) << 27


@pytest.mark.parametrize("strategies", [("random",), ("default",)])
def test_kept_fields_equal_a_python_recomputation_at_the_end_of_games(strategies):
    games = 0
    for i, (n_players, layout, rules) in enumerate(REFERENCE_SETTINGS):
        for seed in range(75):
            s = play_game(7919 * i + seed, n_players=n_players, strategies=strategies,
                          layout=layout, rules=Rules(**rules), log=False).state
            for q in range(4):
                assert stored_net_nodes(s, q) == reference_net_nodes(s, q), (i, seed, q)
                pips, hexes = reference_production(s, q)
                assert list(_field(s, "prod_pips")[5 * q : 5 * q + 5]) == pips, (i, seed, q)
                assert _field(s, "own_hexes")[q] == hexes, (i, seed, q)
            free = _field(s, "node_free")
            assert [int(free[n]) for n in range(54)] == [reference_node_free(s, n)
                                                         for n in range(54)], (i, seed)
            games += 1
    assert games == 75 * len(REFERENCE_SETTINGS)


@pytest.mark.parametrize("name, index, delta", [
    ("node_open", 10, 1), ("node_roads", 54 + 7, 1), ("node_free", 12, 1),
    ("node_free", 40, -1), ("open_spots", 2, -1),
    ("net_nodes", 1, 1 << 5), ("net_nodes", 2, 1 << 27), ("prod_pips", 3, 1),
    ("prod_pips", 5 + 2, -1), ("own_hexes", 0, 1 << 18), ("own_hexes", 1, 1 << 3),
])
def test_the_checker_counts_stale_derived_fields(name, index, delta):
    rules = Rules().to_array(check=True)
    s = play_game(3, strategies=("default",), log=False).state
    assert count_violations_nb(s, TOPO, rules) == 0
    s[L.STATE_OFFSETS[name] + index] += delta
    assert count_violations_nb(s, TOPO, rules) > 0


# --- determinism ---------------------------------------------------------------------------


def test_same_seeds_same_counters_any_thread_count():
    settings = GameSettings(n_players=4, rules=Rules(robber="friendly", bank_per_resource=8))
    seeds = batch_seeds(42, 300)
    a = play_batch(seeds, settings, n_threads=1)
    b = play_batch(seeds, settings, n_threads=2)
    c = play_batch(seeds, settings)
    assert np.array_equal(a.counters, b.counters) and np.array_equal(a.counters, c.counters)
    assert np.array_equal(a.boards, b.boards)
    d = play_batch(seeds[::-1].copy(), settings, n_threads=2)
    assert np.array_equal(d.counters[::-1], a.counters)  # a game does not depend on its row


@pytest.mark.parametrize("n_players, layout, rules", [
    (4, "variable", {}),
    (3, "beginner", {"shortage": "off", "discard_limit": None}),
    (4, "random_numbers", {"robber": "off", "bank_per_resource": 6}),
])
def test_single_game_equals_its_batch_row(n_players, layout, rules):
    settings = GameSettings(n_players=n_players, layout=layout, rules=Rules(**rules))
    seeds = batch_seeds(7, 12)
    batch = play_batch(seeds, settings)
    for i, seed in enumerate(seeds):
        for log in (True, False):
            g = play_game(int(seed), settings=settings, log=log)
            assert np.array_equal(g.counters, batch.counters[i]), (seed, log)
            assert np.array_equal(g.board.vector, batch.boards[i])


def test_a_game_leaves_nothing_in_the_scratch_of_the_next():
    """A batch reuses its scratch: between games the work array's memos (one a parameter
    row) are only marked empty, and the fairness-index scratch is zeroed only for the
    balanced layout, which reads it. Every game still equals itself played alone."""
    settings = GameSettings(n_players=4, layout="balanced",
                            strategies=("default", "expander", "city", "trader"))
    seeds = batch_seeds(11, 8)
    batch = play_batch(seeds, settings, n_threads=1)
    for i, seed in enumerate(seeds):
        g = play_game(int(seed), settings=settings, log=False)
        assert np.array_equal(g.counters, batch.counters[i]), seed
        assert np.array_equal(g.board.vector, batch.boards[i])


# --- separate random streams ----------------------------------------------------------------


def _rolls_and_cards(seed, n_players=4, rules=None, max_offers=3):
    settings = GameSettings(n_players=n_players, rules=rules or Rules())
    n, code, board, openings, topo, _, strat, params = settings.kernel_args()
    rules_arr = settings.rules.to_array(max_offers=max_offers)
    s = np.zeros(L.STATE_SIZE, dtype=np.int32)
    s[L.S_LOG_ON] = 1
    log = np.zeros((40_000, L.LOG_WIDTH), dtype=np.int32)
    board = play_one(seed, (n, code, board, openings, topo, rules_arr, strat, params), s, log)
    rows = log[: s[L.S_LOG_LEN]]
    dice = [tuple(r[2:4]) for r in rows if r[0] == L.EV_ROLL]
    cards = [int(r[2]) for r in rows if r[0] == L.EV_BUY_DEV]
    return dice, cards, board.copy()


@pytest.mark.parametrize("change", [
    {"rules": Rules(discard_limit=3)},
    {"rules": Rules(robber="friendly", shortage="strict")},
    {"rules": Rules(bank_per_resource=None, vp_to_win=14)},
    {"max_offers": 0},  # the players' decisions change, nothing else
])
def test_dice_deck_and_board_streams_do_not_depend_on_decisions_or_rules(change):
    """Paired experiments: the i-th roll, the i-th card bought and the board are the same
    whatever the rules or the players do (common prefix of two different games)."""
    differs = 0
    for seed in range(30):
        d0, c0, b0 = _rolls_and_cards(seed)
        d1, c1, b1 = _rolls_and_cards(seed, **change)
        k = min(len(d0), len(d1))
        assert k > 20 and d0[:k] == d1[:k]
        j = min(len(c0), len(c1))
        assert c0[:j] == c1[:j]
        assert np.array_equal(b0, b1)
        differs += (len(d0), c0) != (len(d1), c1)
    assert differs > 0  # the change did change the games
