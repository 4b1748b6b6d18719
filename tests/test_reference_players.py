"""The tuned scripted player agrees with its plain reference, decision by decision.

``catansim.players.reference`` says every decision of the scripted player
(``core/scripted/``) in plain Python from the deciding seat's observation. Here
games are driven through the step interface with every seat external: at each decision
of a scripted seat the kernel's choice (``Game.suggest``, which draws from the seat's
own random stream as the batch kernel does) must be among the reference's choices
(``reference.choices``), and the game goes on with the kernel's choice, so the
positions are the kernel's own games.

Ties: where the kernel draws among equals from the seat's own random stream (the
robber's hex, the leader it aims at, its victim, the partner of a trade offer), the
reference returns every one of the equals and the test checks the kernel's choice is
among them; every other decision must match exactly, one option. Ties are checked from
the other side too, so that a reference allowing too much fails: at each tie, a fork
of the game asks the kernel again (each ``suggest`` draws anew) until it has chosen
every one of the reference's equals, and never anything else. (A turn's later trade
offers ask on from the place its first offer drew, so there only the first side is
checked.) Only those decisions may return more than one option, and they rarely do.

The games: every scripted preset of ``PRESETS`` and a few variants (the robber on the
most production or at random, omniscient players, a player that never trades, players
asking more cards in their offers), with
``random`` seats among them (their decisions are not the scripted player's and are not
compared), 3 and 4 players, several rule settings and layouts. ``-m slow`` plays a
larger sweep.
"""

from __future__ import annotations

import collections
import itertools
import re

import numpy as np
import pytest
import scipy.stats as st

from catansim.constants import MAX_PLAYERS
from catansim.core import layout as L
from catansim.game import Game
from catansim.players.reference import Hidden, choices, weights
from catansim.players.reference.decisions import setup_settlement_chances
from catansim.rules import Rules
from catansim.strategies import PRESETS

STRATEGIES = PRESETS.with_definitions({
    "robber_production": {"base": "default", "robber_policy": "production"},
    "robber_random": {"base": "army", "robber_policy": "random"},
    "default_omniscient": {"base": "default", "information": "omniscient"},
    "trader_omniscient": {"base": "trader", "information": "omniscient"},
    "hermit": {"base": "city", "bank_trade": "never", "accept": 0, "offers": 0},
    "haggler": {"base": "default", "offer_ask": 3, "offer_two": 1},
    "haggler_omniscient": {"base": "trader", "offer_ask": 1, "offer_two": 1,
                           "information": "omniscient"},
    # trade answers weighing both sides, and trading down before a 7 (issue #51)
    "weigher": {"base": "default", "answer_weigh": 1.0, "answer_cards": 0.15,
                "answer_lead": 0.1},
    "guard": {"base": "city", "hand_guard": 1.5},
    "weighing_guard": {"base": "haggler", "answer_weigh": 0.6, "answer_cards": 0.3,
                       "hand_guard": 0.8, "bank_trade": "progress", "offer_haggle": 1},
    "guard_omniscient": {"base": "trader", "hand_guard": 3.0, "answer_weigh": 2.0,
                         "information": "omniscient"},
})
SCRIPTED = tuple(name for name, st in STRATEGIES.items() if st.sid != PRESETS["random"].sid)
ROSTER = (*SCRIPTED, "random")
RULES = (
    Rules(),
    Rules(discard_limit=None, bank_per_resource=None),  # Monopoly's count, no discards
    Rules(robber="friendly", bank_per_resource=6),  # an emptying supply
    Rules(discard_limit=4, shortage="strict", vp_to_win=12),
    Rules().switched(25, robber="off", discard_limit=9),
)
LAYOUTS = ("variable", "random_numbers", "beginner")
# The decisions where the kernel draws among equals (an action only for its offers).
DRAWN = {"robber hex", "robber victim", "action"}


def games(seeds_per_focus: int, first_seed: int = 0):
    """(seed, strategies, rules, layout): each scripted strategy in turn at a seat of a
    3- and a 4-player game, the other seats from the roster, rules and layouts in turn."""
    cases = itertools.product(range(seeds_per_focus), SCRIPTED, (4, 3))
    for i, (_, focus, n) in enumerate(cases):
        seed = first_seed + i
        others = [ROSTER[(seed + 3 * k) % len(ROSTER)] for k in range(n - 1)]
        seats = others[: seed % n] + [focus] + others[seed % n:]
        yield seed, tuple(seats), RULES[seed % len(RULES)], LAYOUTS[seed % len(LAYOUTS)]


def hidden_cards(game: Game) -> Hidden:
    """Every seat's cards, as an omniscient strategy reads them."""
    n = game.n_players
    hands = game.s[L.S_HAND : L.S_HAND + 5 * MAX_PLAYERS].reshape(MAX_PLAYERS, 5)[:n]
    devs = game.s[L.S_DEV_HAND : L.S_DEV_HAND + 5 * MAX_PLAYERS].reshape(MAX_PLAYERS, 5)[:n]
    return Hidden(hands.astype(np.int64), devs.astype(np.int64))


class Tally:
    """Decisions compared, by decision and by how many options the reference allowed,
    and the first disagreements."""

    def __init__(self):
        self.compared = collections.Counter()
        self.several = collections.Counter()
        self.redrawn = collections.Counter()
        self.kinds = collections.Counter()
        self.switched = collections.Counter()  # decisions a new switch changed (below)
        self.games = 0
        self.mismatches: list[str] = []

    def mismatch(self, text: str) -> None:
        if len(self.mismatches) < 10:
            self.mismatches.append(text)


def _words(options) -> str:
    return ", ".join(sorted(map(str, options)))


def kernel_draws(game: Game, chosen, allowed: set, rounds: int = 60) -> set:
    """The kernel's choices at the pending decision over fresh draws of the seat's
    random stream: ``suggest`` on a fork, again and again, until every option of
    ``allowed`` came (or ``rounds`` x as many draws as it holds, far beyond the few
    draws each needs when they are equally likely)."""
    fork = game.fork()
    seen = {chosen}
    for _ in range(rounds * len(allowed)):
        seen.add(fork.suggest())
        if seen >= allowed:
            break
    return seen


# Switches of the scripted player that are off (0) in the older presets, and the
# decision each one changes: the sweep must meet decisions where the switch turned on
# chose otherwise than it would have off, so the comparison covers the new decisions.
SWITCHES = {"answer_weigh": "trade answer", "hand_guard": "action", "offer_haggle": "action"}


def tally_switches(tally: Tally, obs, game: Game, w, hidden, allowed) -> None:
    for switch, decision in SWITCHES.items():
        if obs.decision == decision and getattr(w, switch, 0.0) > 0:
            off = weights({**{k: v for k, v in vars(w).items() if k != "target"},
                           switch: 0.0})
            without = choices(obs, game.legal_options(), off,
                              offers_made=int(game.s[L.S_OFFERS]), hidden=hidden)
            tally.switched[switch, set(without) == set(allowed)] += 1


def compare_game(seed, strategies, rules, layout, tally: Tally, reference=None) -> None:
    """Play one game on the kernel's choices, comparing each scripted decision with the
    reference of the seat's strategy (or of ``reference[strategy]``)."""
    n = len(strategies)
    game = Game(seed, strategies=strategies, n_players=n, rules=rules, layout=layout,
                external=range(n), log=False, strategy_set=STRATEGIES)
    reference = reference or {}
    seat_weights = [None if STRATEGIES[s].sid == PRESETS["random"].sid
                    else weights(STRATEGIES[reference.get(s, s)]) for s in strategies]
    while not game.over:
        q = game.to_move
        w = seat_weights[q]
        if w is not None:
            obs = game.observation(q)
            hidden = hidden_cards(game) if w.information >= 0.5 else None
            allowed = choices(obs, game.legal_options(), w,
                              offers_made=int(game.s[L.S_OFFERS]), hidden=hidden)
            tally_switches(tally, obs, game, w, hidden, allowed)
        chosen = game.suggest()
        if w is not None:
            tally.compared[obs.decision] += 1
            tally.kinds[chosen.kind] += 1
            where = (f"game {seed} {strategies} {layout}, turn {obs.turn}, seat {q} "
                     f"({strategies[q]}), {obs.decision}")
            if chosen not in allowed:
                tally.mismatch(f"{where}: kernel {chosen}; reference {_words(allowed)}")
            if len(allowed) > 1:
                tally.several[obs.decision] += 1
                if not (obs.decision == "action" and game.s[L.S_OFFERS] > 0):
                    drawn = kernel_draws(game, chosen, set(allowed))
                    tally.redrawn[obs.decision] += 1
                    if drawn != set(allowed):
                        tally.mismatch(f"{where}: kernel draws among {_words(drawn)}; "
                                       f"reference ties {_words(allowed)}")
        game.step(chosen)
    tally.games += 1


def check_sweep(tally: Tally) -> None:
    assert not tally.mismatches, "\n".join(tally.mismatches)
    total = sum(tally.compared.values())
    # Ties only where the kernel draws, and rarely: a reference that allowed everything
    # would pass the comparison and fail here.
    assert set(tally.several) <= DRAWN, tally.several
    assert sum(tally.several.values()) < 0.05 * total, tally.several
    assert set(tally.redrawn) == DRAWN, tally.redrawn
    # Every decision, and every kind of action, was met.
    assert len(tally.compared) == len(L.DECISION_NAMES), tally.compared
    for kind in ("road", "settlement", "city", "buy", "play", "maritime", "offer", "end",
                 "accept", "refuse", "discard", "robber", "steal", "invention", "monopoly"):
        assert tally.kinds[kind] > 0, (kind, tally.kinds)
    # every new switch changed decisions the kernel then had to match
    for switch in SWITCHES:
        assert tally.switched[switch, False] >= 10, tally.switched


def test_kernel_decides_as_the_reference():
    tally = Tally()
    for case in games(seeds_per_focus=2):
        compare_game(*case, tally)
    check_sweep(tally)
    assert tally.games == 2 * len(SCRIPTED) * 2
    assert sum(tally.compared.values()) > 10_000


@pytest.mark.slow
def test_kernel_decides_as_the_reference_sweep():
    tally = Tally()
    for case in games(seeds_per_focus=10, first_seed=1000):
        compare_game(*case, tally)
    check_sweep(tally)


def test_another_strategys_reference_disagrees():
    """The comparison tells strategies apart: the kernel's ``default`` checked against
    the reference of ``builder`` (other weights, the same code) disagrees at once."""
    tally = Tally()
    seats = ("default", "random", "default", "random")
    compare_game(3, seats, Rules(), "variable", tally, reference={"default": "builder"})
    assert tally.mismatches


@pytest.mark.parametrize("temperature", [0.5, 2.0])
def test_drawn_starting_settlements_follow_the_reference_softmax(temperature):
    """With ``placement_temperature`` T the kernel draws each starting settlement with the
    reference's chances, exp((score - best) / T) normalised: a chi-square goodness of fit
    of 4,000 draws at the first and at the second settlement of a seat (nodes expected
    fewer than 5 times pooled into one cell)."""
    strategies = PRESETS.with_definitions(
        {"warm": {"base": "default", "placement_temperature": temperature}})
    game = Game(11, strategies=("warm",) * 4, external=range(4), log=False,
                strategy_set=strategies)
    w = weights(strategies["warm"])
    tested = 0
    while tested < 2:
        obs = game.observation(game.to_move)
        if obs.decision == "setup settlement" and obs.seat == 0:
            chances = setup_settlement_chances(obs, w, game.legal_options())
            fork = game.fork()
            counts = collections.Counter(fork.suggest().target for _ in range(4000))
            nodes = sorted(chances, key=chances.get, reverse=True)
            expected = np.array([4000 * chances[n] for n in nodes])
            observed = np.array([counts[n] for n in nodes], dtype=float)
            big = expected >= 5
            assert set(counts) <= set(chances) and big.sum() >= 3
            f_obs = np.append(observed[big], observed[~big].sum())
            f_exp = np.append(expected[big], expected[~big].sum())
            keep = f_exp > 0
            assert st.chisquare(f_obs[keep], f_exp[keep]).pvalue > 1e-4, (counts, chances)
            tested += 1
        game.step(game.suggest())


# --- the two players, module for module -------------------------------------------------------

TWIN_MODULES = ("table", "weights", "placement", "plan", "trade", "decisions")


def _reference_functions(module) -> set[str]:
    """The public functions of a reference module, and the methods of its classes."""
    import inspect

    names = set()
    for name, obj in vars(module).items():
        if name.startswith("_") or getattr(obj, "__module__", None) != module.__name__:
            continue
        if inspect.isfunction(obj):
            names.add(name)
        elif inspect.isclass(obj):
            names |= {m for m, f in vars(obj).items()
                      if inspect.isfunction(f) and not m.startswith("_")}
    return names


def _kernels(module) -> set[str]:
    """The public kernels a compiled module defines (not those it imports)."""
    return {name for name, obj in vars(module).items()
            if not name.startswith("_") and hasattr(obj, "py_func")
            and obj.py_func.__module__ == module.__name__}


@pytest.mark.parametrize("name", TWIN_MODULES)
def test_every_reference_function_has_its_twin_in_the_same_place(name):
    # ``players/reference/<name>.py`` and ``core/scripted/<name>_nb.py``: a reference
    # function ``f`` has its kernel ``f_nb`` in the twin module, or the twin module's
    # docstring names it (folded into a larger kernel, or a read of the state); a
    # kernel without a reference twin is named there too (compiled only).
    import importlib

    ref = importlib.import_module(f"catansim.players.reference.{name}")
    twin = importlib.import_module(f"catansim.core.scripted.{name}_nb")
    named = set(re.findall(r"``(\w+)``", twin.__doc__ or ""))
    functions, kernels = _reference_functions(ref), _kernels(twin)
    no_twin = {f for f in functions if f"{f}_nb" not in kernels and f not in named}
    assert not no_twin, f"{name}: no twin in {name}_nb.py and not named there: {no_twin}"
    alone = {k for k in kernels if k.removesuffix("_nb") not in functions and k not in named}
    assert not alone, f"{name}_nb: kernels without a reference twin, not named: {alone}"
