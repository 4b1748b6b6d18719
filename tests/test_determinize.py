"""Determinization (``Game.determinize``, ``core.determinize_nb``): what a seat cannot see,
dealt anew from what it knows.

Oracles: the plain twin ``players.search.belief.deal``, which reads the seat's
``Observation`` only, draws the same deal from the same seed; the invariant checker
(``count_violations_nb``) and the seat's own observation, unchanged, on every sample;
on positions whose consistent deals can be listed, the frequencies of the samples
against the exact weights of the deals (chi-square: every deal of the distinct cards
equally likely); and positions that differ only in hidden cards give the same samples.
"""

from __future__ import annotations

import itertools
from collections import Counter
from math import factorial, prod

import numpy as np
import pytest
from helpers import Game as Position
from helpers import set_record
from scipy.stats import chisquare
from test_honest_players import hidden_twins

from catansim.constants import DEV_CARD_COUNTS
from catansim.core import determinize_nb as D
from catansim.core import layout as L
from catansim.core.checker_nb import count_violations_nb
from catansim.errors import CatansimError
from catansim.game import Game, Observation
from catansim.players.search.belief import deal
from catansim.rules import Rules
from catansim.topology import TOPO

KNIGHT, VICTORY_POINT, ROAD_BUILDING, INVENTION, MONOPOLY = range(5)


def _paused_games(n_players=4, strategies=("default",), games=14, log=False):
    """Games paused at a decision of a seat at various turns (steals widen records)."""
    out = []
    for seed in range(games):
        game = Game(seed, strategies=strategies, n_players=n_players,
                    external=[seed % n_players], log=log)
        while not game.over and game.observation(0).turn < 8 + 5 * (seed % 8):
            game.step(game.suggest())
        if not game.over:
            out.append(game)
    return out


def _hands(s, n):
    return s[L.S_HAND : L.S_HAND + 5 * n].reshape(n, 5)


def _devs(s, n, field=L.S_DEV_HAND):
    return s[field : field + 5 * n].reshape(n, 5)


@pytest.mark.parametrize(("n_players", "strategies"), [(4, ("default",)), (3, ("random",)),
                                                       (4, ("army", "trader", "random"))])
def test_the_kernel_deals_what_the_plain_twin_deals_from_the_observation(n_players,
                                                                         strategies):
    strategies = tuple(strategies[i % len(strategies)] for i in range(n_players))
    compared = wider = 0
    for game in _paused_games(n_players, strategies):
        seat = game.to_move
        deals = set()
        for k in range(12):
            fork = game.determinize(seat, 100 * k + 7)
            want = deal(game.observation(seat), 100 * k + 7)
            s, n = fork.s, n_players
            assert _hands(s, n).tolist() == want.hands.tolist()
            assert _devs(s, n).tolist() == want.development_cards.tolist()
            assert _devs(s, n, L.S_DEV_NEW).tolist() == want.new_development_cards.tolist()
            assert s[L.S_DECK + s[L.S_DECK_POS] : L.S_DECK + 25].tolist() == want.deck
            deals.add(s.tobytes())
            compared += 1
        wider += len(deals) > 1
    assert compared >= 100
    assert wider >= 5  # the deals do vary: positions with hidden cards were met


def test_every_sample_keeps_the_invariants_and_everything_the_seat_knows():
    checked = answers = 0
    for n_players in (3, 4):
        strategies = ("random",) if n_players == 3 else ("default",)
        for game in _paused_games(n_players, strategies, log=True):
            seat = game.to_move
            seen = game.observation(seat).as_dict()
            legal = game.legal()
            for k in range(10):
                fork = game.determinize(seat, k)
                s = fork.s
                assert count_violations_nb(s, TOPO, fork._rules) == 0
                assert s[L.S_LOG_ON] == s[L.S_LOG_LEN] == 0 and s[L.S_DEV_EVENT] == -1
                assert fork.observation(seat).as_dict() == seen  # hand, cards, record, board
                assert fork.legal() == legal
                n = n_players
                held = _devs(s, n).sum(axis=0) + _devs(s, n, L.C_DEV_PLAYED).sum(axis=0)
                deck = np.bincount(s[L.S_DECK + s[L.S_DECK_POS] : L.S_DECK + 25], minlength=5)
                assert (held + deck).tolist() == list(DEV_CARD_COUNTS)
                assert (_devs(s, n, L.C_DEV_BOUGHT) == _devs(s, n)
                        + _devs(s, n, L.C_DEV_PLAYED)).all()
                if game.decision == "trade answer":  # its maker holds the cards offered
                    maker = game.observation(seat).current_player
                    assert (_hands(s, n)[maker] >= game.observation(seat).offer.give).all()
                    answers += 1
                checked += 1
    assert checked >= 150 and answers >= 10


def test_positions_that_differ_only_in_hidden_cards_give_the_same_samples():
    rng = np.random.default_rng(5)
    differed = 0
    for game in _paused_games():
        seat = game.to_move
        twins = hidden_twins(game, seat, rng)
        differed += not np.array_equal(twins[0].s, twins[1].s)
        for k in range(4):
            a, b = (t.determinize(seat, k) for t in twins)
            assert np.array_equal(a.s, b.s) and np.array_equal(a._rng, b._rng)
    assert differed >= 8


def _resource_deals(obs: Observation) -> dict[tuple, float]:
    """Every count matrix of the opponents' hands that fits the observer's record, the
    hand sizes and the supply, with its weight: the ways to deal the distinct cards."""
    seats = [q for q in range(obs.n_players) if q != obs.seat]
    totals = [obs.rules.supply_size - int(obs.supply[r]) - int(obs.hand[r]) for r in range(5)]
    rows = []
    for q in seats:
        ranges = [range(int(obs.known_low[q, r]), int(obs.known_high[q, r]) + 1)
                  for r in range(5)]
        rows.append([h for h in itertools.product(*ranges) if sum(h) == obs.hand_sizes[q]])
    out = {}
    for pick in itertools.product(*rows):
        if [sum(h[r] for h in pick) for r in range(5)] == totals:
            out[pick] = 1.0 / prod(factorial(x) for h in pick for x in h)
    return out


def _samples(s, rules, seat, n, key):
    """``n`` determinizations of state ``s`` (no offer pending) for ``seat``, each summed
    up by ``key``."""
    plan = np.zeros(D.PLAN_SIZE, dtype=np.int32)
    act = np.zeros(L.ACT_SIZE, dtype=np.int32)
    table = np.zeros(D.hidden_plan_nb(s, rules, act, seat, plan))
    assert D.deal_table_nb(plan, table) > 0
    rng = np.zeros(8, dtype=np.uint64)
    out = Counter()
    for k in range(n):
        t = s.copy()
        D.redeal_nb(t, rules, rng, seat, k, plan, table)
        out[key(t)] += 1
    return out


def _chisquare(counts: Counter, weights: dict) -> float:
    total = sum(weights.values())
    n = sum(counts.values())
    assert set(counts) <= set(weights)  # no sample outside the deals that fit
    keys = sorted(weights)
    return chisquare([counts[k] for k in keys], [n * weights[k] / total for k in keys]).pvalue


def _open_position(wide_first=True):
    """Seat 0 sees three opponents' small hands through a wide record."""
    pos = Position(n_players=4, seed=3)
    pos.set_hand(0, [1, 0, 2, 0, 1])
    pos.set_hand(1, [2, 1, 0, 0, 0])
    pos.set_hand(2, [0, 1, 0, 0, 1])
    pos.set_hand(3, [0, 0, 1, 1, 0])
    for q in (1, 2, 3):
        hand = np.array(pos.hand(q))
        set_record(pos.s, 0, q, np.zeros(5, dtype=np.int64), np.minimum(hand.sum(), 3))
    if not wide_first:  # seat 0 knows one of seat 1's wood: a low end above 0
        hand = np.array(pos.hand(1))
        set_record(pos.s, 0, 1, np.array([1, 0, 0, 0, 0]), np.minimum(hand.sum(), 3))
    return pos


@pytest.mark.parametrize("wide_first", [True, False])
def test_on_a_listed_position_the_deals_are_drawn_with_their_exact_weights(wide_first):
    pos = _open_position(wide_first)
    obs = Observation(pos.s.copy(), 0, 4, None, 0, Rules())
    weights = _resource_deals(obs)
    assert len(weights) >= 20
    counts = _samples(pos.s, pos.rules, 0, 20_000,
                      lambda t: tuple(tuple(int(x) for x in _hands(t, 4)[q]) for q in (1, 2, 3)))
    assert _chisquare(counts, weights) > 1e-3
    assert len(counts) == len(weights)  # every deal that fits is met


def test_on_positions_of_played_games_the_deals_are_drawn_with_their_exact_weights():
    tested = []
    for game in _paused_games(4, ("default",), games=40):
        seat = game.to_move
        weights = _resource_deals(game.observation(seat))
        if not 2 <= len(weights) <= 60:  # most records pin every hand: one deal
            continue
        seats = [q for q in range(4) if q != seat]
        counts = _samples(game.s, game._rules, seat, 6000, lambda t, seats=seats: tuple(
            tuple(int(x) for x in _hands(t, 4)[q]) for q in seats))
        tested.append(_chisquare(counts, weights))
    assert len(tested) >= 10
    assert min(tested) > 1e-3 / len(tested)  # Bonferroni over the positions


def test_development_cards_are_dealt_as_a_shuffle_of_the_cards_unseen():
    pos = Position(n_players=4, seed=4, rules=Rules(vp_to_win=20))
    pos.set_knights(0, 4)
    pos.set_knights(1, 4)
    pos.set_knights(2, 4)
    for card, seat in ((ROAD_BUILDING, 3), (INVENTION, 2), (MONOPOLY, 1)):
        pos._draw(card)
        pos.s[L.C_DEV_PLAYED + 5 * seat + card] += 1
    pos.give_dev(0, VICTORY_POINT, 4)
    pos.give_dev(0, INVENTION)
    pos.give_dev(1, KNIGHT)
    pos.give_dev(2, VICTORY_POINT, new=True)
    assert pos.s[L.S_DECK_POS] == 22
    unseen = [KNIGHT, KNIGHT, VICTORY_POINT, ROAD_BUILDING, MONOPOLY]

    def outcome(t):
        return (int(np.argmax(_devs(t, 4)[1])), int(np.argmax(_devs(t, 4)[2])),
                int(np.argmax(_devs(t, 4, L.S_DEV_NEW)[2])),
                tuple(int(x) for x in t[L.S_DECK + 22 : L.S_DECK + 25]))

    # a shuffle of the five cards: every order of the kinds equally likely
    weights = Counter((o[0], o[1], o[1], o[2:]) for o in itertools.permutations(unseen))
    weights = {(a, b, c, tuple(d)): w for (a, b, c, d), w in weights.items()}
    counts = _samples(pos.s, pos.rules, 0, 20_000, outcome)
    assert len(weights) == 60 and len(counts) == 60
    assert _chisquare(counts, weights) > 1e-3


def test_a_deal_does_not_give_an_opponent_the_winning_total():
    pos = Position(n_players=3, seed=2, rules=Rules(vp_to_win=4))
    for _ in range(3):  # seat 1 shows 3 points: a victory point card would make 4
        pos.settle(1, int(np.flatnonzero(pos.s[L.S_NODE_OPEN : L.S_NODE_OPEN + 54])[0]))
    pos.give_dev(1, KNIGHT)
    pos.give_dev(2, KNIGHT)
    counts = _samples(pos.s, pos.rules, 0, 400, lambda t: int(_devs(t, 3)[1, VICTORY_POINT]))
    assert counts[0] == 400  # seat 2 and the deck take them
    assert pos.violations() == 0


def test_determinize_refuses_a_seat_that_does_not_play_and_a_finished_game():
    game = Game(1, strategies=("default",), n_players=3, external=[0], log=False)
    with pytest.raises(CatansimError, match=r"^determinize: seat: 3 is out of range"):
        game.determinize(3, 1)
    with pytest.raises(CatansimError, match=r"^seed: -1 is not allowed"):
        game.determinize(0, -1)
    done = Game(1, strategies=("default",), log=False)
    with pytest.raises(CatansimError, match=r"^determinize: the game is over$"):
        done.determinize(0, 1)


def test_a_record_no_deal_fits_is_a_one_line_error():
    game = _paused_games(games=3)[0]
    seat = game.to_move
    broken = game.fork()
    for q in range(4):  # every hand known exactly, and seat q holding one wood more
        hand = broken.s[L.S_HAND + 5 * q : L.S_HAND + 5 * q + 5].copy()
        set_record(broken.s, seat, q, hand, hand)
    q = (seat + 1) % 4
    broken.s[L.S_SEEN_BELOW + 20 * seat + 5 * q] -= 1
    broken.s[L.S_SEEN_ABOVE + 20 * seat + 5 * q] += 1
    with pytest.raises(CatansimError, match=r"^determinize: no deal of the hidden cards fits "
                                            rf"seat {seat}'s record"):
        broken.determinize(seat, 1)
    # the plain twin says the same in one line, of an observation no game reached
    with pytest.raises(CatansimError, match=r"^deal: .*; allowed: the observation of a "
                                            "position a game reached$"):
        deal(broken.observation(seat), 1)
