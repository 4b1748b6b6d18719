"""Strategy invariant suite: every strategy behaviour under every rule setting.

The random-play suite (``test_invariants.py``) covers the random player. Here the
scripted player is swept over every value of every parameter that switches its
behaviour (``weights_nb.PARAM_FIELDS``):

- every parameter at the low and the high end of its range, so every weight is also
  at 0, where ``harbor_weight``, ``block_weight``, ``route_weight``, ``army_weight``
  and the build weights switch their paths off;
- every word of ``strategies.PARAM_WORDS`` (``robber_policy`` leader / production /
  random, ``bank_trade`` never / complete / progress) and both sides of every
  threshold: ``robber_policy`` is rounded (0.49, 0.5, 1.49, 1.5), ``bank_trade``
  is "complete" below 1.5 (0.01, 1.49, 1.5), ``accept`` and ``knight_eager`` switch
  at 0.5 (0.49, 0.5), ``offers`` around the engine cap of 3 (1, 3, 4),
  ``scarcity_weight`` 1 (its own branch), ``accept_vp_limit`` 3 and 10,
  ``monopoly_min`` 2, ``information`` public and omniscient (0.49, 0.5), and
  ``placement_temperature`` just above 0 (0.01: the draw with one node all but sure)
  and at 1, ``offer_ask`` rounded (0.49, 0.5, 1) and ``offer_two`` (0.49, 0.5), and
  the switches ``answer_weigh`` and ``hand_guard`` just above 0 and at 1, and
  ``offer_haggle`` (0.49, 0.5);

111 values of the 35 parameters in all, each a ``make_strategy`` row on ``default``
playing every seat. With them play the presets (the archetypes and ``random``), each
in every seat, 4 mixed tables (archetypes, ``random``, parameter extremes and user
strategies side by side) and 2 user strategies, one from ``make_strategy`` and one
from a TOML table through ``load_strategies``: 124 tables.

Every table plays 24 games under each of 20 rule settings: the robber official, off
and friendly; the shortage rule official, strict and off; supplies of 1, 2 and 3
cards per resource (with each robber and shortage rule), 4, 19 and unlimited;
discard limit 0, 7 and none; 3 and 20 VP to win; turn caps of 1 and 30; the set-up
started by seat 2 (``first_pick``); the variable, random-numbers and beginner layouts.
Tables alternate between 3 and 4 players so that each plays both. That is
124 x 20 x 24 = 59,520 games, with the
in-kernel state checker on (``Rules.to_array(check=True)``): 0 invariant violations
and 0 illegal actions, and every game ends by a win of the player whose turn it is or
at the turn cap. ``test_the_suite_covers_what_its_docstring_says`` holds these
numbers. The same sweep with 400 games per table and setting (992,000 games) is
``test_the_big_sweep`` (``-m slow``).
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import batch_scratch, play_one

from catansim.core import layout as L
from catansim.core.engine_nb import play_batch_nb
from catansim.core.policy_nb import STRATEGY_RANDOM
from catansim.core.scripted.weights_nb import PARAM_FIELDS, PARAM_INDEX
from catansim.engine import batch_seeds, illegal_action_error
from catansim.rules import Rules
from catansim.settings import GameSettings
from catansim.strategies import (
    ARCHETYPES,
    PARAM_WORDS,
    PRESETS,
    Strategy,
    load_strategies,
    make_strategy,
)

GAMES = 24  # per table and rule setting
BIG_GAMES = 400

# --- parameter values that switch behaviour ------------------------------------------
THRESHOLDS: dict[str, tuple] = {
    "robber_policy": ("leader", "production", "random", 0.49, 0.5, 1.49, 1.5),
    "bank_trade": ("never", "complete", "progress", 0.01, 1.49, 1.5),
    "accept": (0.49, 0.5),
    "knight_eager": (0.49, 0.5),
    "offers": (1, 3, 4),
    "scarcity_weight": (1.0,),
    "accept_vp_limit": (3, 10),
    "monopoly_min": (2,),
    "information": ("public", "omniscient", 0.49, 0.5),
    "placement_temperature": (0.01, 1.0),
    "offer_ask": (0.49, 0.5, 1),
    "offer_two": (0.49, 0.5),
    "answer_weigh": (0.01, 1.0),
    "hand_guard": (0.01, 1.0),
    "offer_haggle": (0.49, 0.5),
}


def _param_values() -> list[tuple[str, object]]:
    values = []
    for name, lo, hi, _ in PARAM_FIELDS:
        values += [(name, lo), (name, hi)]
        values += [(name, v) for v in THRESHOLDS.get(name, ())]
    return values


PARAM_VALUES = _param_values()
VARIANTS = {f"{name}={value}": make_strategy(f"{name}={value}", {"base": "default", name: value})
            for name, value in PARAM_VALUES}

# --- user strategies -------------------------------------------------------------------
USER_MADE = make_strategy("user_made", {"base": "trader", "robber_policy": "random",
                                        "bank_trade": "progress", "knight_eager": 1,
                                        "offers": 10, "accept_vp_limit": 4})
USER_TOML = """
[strategies.user_toml]
base = "city"
robber_policy = "production"
bank_trade = "never"
accept = 0
monopoly_min = 1
dev_weight = 5
"""


@pytest.fixture(scope="module")
def user_toml(tmp_path_factory):
    path = tmp_path_factory.mktemp("strategies") / "user.toml"
    path.write_text(USER_TOML)
    mine = load_strategies(path)
    assert list(mine) == [*PRESETS, "user_toml"] and "user_toml" not in PRESETS
    return mine["user_toml"]


# --- tables ------------------------------------------------------------------------------
# name: seats (a table of one strategy plays it in every seat). "user_toml" is
# resolved when the module's fixture has loaded it.
TABLES: dict[str, tuple] = {name: (PRESETS[name],) for name in sorted(ARCHETYPES)}
TABLES["random"] = (PRESETS["random"],)
TABLES["mix-archetypes"] = (PRESETS["default"], PRESETS["army"], PRESETS["trader"],
                            PRESETS["city"])
TABLES["mix-random"] = (PRESETS["expander"], PRESETS["random"], PRESETS["builder"],
                        PRESETS["default"])
TABLES["mix-extremes"] = (VARIANTS["robber_policy=random"], VARIANTS["accept=0.0"],
                          VARIANTS["offers=10.0"], VARIANTS["bank_trade=progress"])
TABLES["mix-users"] = (USER_MADE, "user_toml", PRESETS["random"], VARIANTS["knight_eager=0.0"])
TABLES["user_made"] = (USER_MADE,)
TABLES["user_toml"] = ("user_toml",)
for _name, _st in VARIANTS.items():
    TABLES["default+" + _name] = (_st,)

# --- rule settings ----------------------------------------------------------------------
# name: (layout, rules)
SETTINGS: dict[str, tuple[str, dict]] = {
    "official": ("variable", {}),
    "robber-off": ("variable", {"robber": "off"}),
    "robber-friendly": ("variable", {"robber": "friendly"}),
    "strict-bank-4": ("random_numbers", {"shortage": "strict", "bank_per_resource": 4}),
    "shortage-off-bank-4": ("variable", {"shortage": "off", "bank_per_resource": 4}),
    "bank-1": ("variable", {"bank_per_resource": 1, "max_turns": 200}),
    "bank-1-off-robber-off": ("beginner", {"bank_per_resource": 1, "shortage": "off",
                                           "robber": "off", "max_turns": 200}),
    "bank-2-friendly": ("variable", {"bank_per_resource": 2, "robber": "friendly",
                                     "max_turns": 200}),
    "bank-2-off": ("random_numbers", {"bank_per_resource": 2, "shortage": "off",
                                      "max_turns": 200}),
    "bank-3-strict": ("variable", {"bank_per_resource": 3, "shortage": "strict",
                                   "max_turns": 200}),
    "bank-3-friendly-discard-0": ("variable", {"bank_per_resource": 3, "robber": "friendly",
                                               "discard_limit": 0, "max_turns": 200}),
    "unlimited": ("variable", {"bank_per_resource": None}),
    "unlimited-no-discard": ("random_numbers", {"bank_per_resource": None,
                                                "discard_limit": None}),
    "discard-0": ("variable", {"discard_limit": 0}),
    "no-discard-friendly": ("variable", {"discard_limit": None, "robber": "friendly"}),
    "vp-3": ("variable", {"vp_to_win": 3}),
    "vp-20": ("variable", {"vp_to_win": 20, "max_turns": 300}),
    "cap-1": ("variable", {"max_turns": 1}),
    "cap-30-beginner": ("beginner", {"max_turns": 30, "robber": "friendly"}),
    "first-pick-2": ("variable", {"first_pick": 2}),
}


def _seats(table, user_toml) -> list[Strategy]:
    return [user_toml if s == "user_toml" else s for s in TABLES[table]]


def _n_players(setting: str, table: str) -> int:
    return 3 + (list(SETTINGS).index(setting) + list(TABLES).index(table)) % 2


def _kernel_args(setting, table, user_toml):
    layout, rules = SETTINGS[setting]
    n = _n_players(setting, table)
    gs = GameSettings(n_players=n, layout=layout, rules=Rules(**rules))
    n, code, board, openings, topo, _, _, _ = gs.kernel_args()
    seats = _seats(table, user_toml)
    seats = [seats[i % len(seats)] for i in range(n)]
    strat = np.zeros(4, dtype=np.int32)
    params = np.zeros((4, seats[0].params.shape[0]))
    for i, st in enumerate(seats):
        strat[i] = st.sid
        params[i] = st.params
    return gs.rules, seats, (n, code, board, openings, topo, gs.rules.to_array(check=True),
                             strat, params)


def _first_illegal(seed, args, seats) -> str:
    """The debug message of a game that counted an illegal action (or a violation)."""
    s = np.zeros(L.STATE_SIZE, dtype=np.int32)
    log = np.zeros((1, L.LOG_WIDTH), dtype=np.int32)
    play_one(seed, args, s, log)
    if s[L.C_ILLEGAL] == 0:
        return f"seed {seed}: {s[L.C_VIOLATIONS]} violations"
    return str(illegal_action_error(seed, [st.name for st in seats], s))


def play_and_check(setting, table, n_games, base_seed, user_toml) -> int:
    """Play ``n_games`` checked games of ``table`` under ``setting``; return the number of
    games won. Fails naming the first illegal action or violation."""
    rules, seats, args = _kernel_args(setting, table, user_toml)
    n, code, board, openings, topo, rules_arr, strat, params = args
    seeds = batch_seeds(base_seed, n_games)
    counters = np.zeros((n_games, L.N_COUNTERS), dtype=np.int32)
    boards = np.zeros((n_games, L.BOARD_SIZE), dtype=np.int32)
    play_batch_nb(seeds, n, code, board, openings, topo, rules_arr, strat, params, counters,
                  boards, *batch_scratch())

    def col(name):
        return counters[:, L.COUNTER_OFFSETS[name]]

    where = f"{setting} / {table} ({n} players)"
    bad = np.flatnonzero((col("c_illegal") > 0) | (col("c_violations") > 0))
    if bad.size:
        g = int(bad[0])
        pytest.fail(f"{where}: {bad.size} of {n_games} games with illegal actions or "
                    f"violations; first: {_first_illegal(int(seeds[g]), args, seats)}")
    turns, reason, winner = col("c_turns"), col("c_end_reason"), col("c_winner")
    vp = L.counter(counters, "c_vp")
    win = reason == L.END_WIN
    cap = reason == L.END_TURN_LIMIT
    assert np.all(win | cap), where
    assert np.all((turns >= 1) & (turns <= rules.max_turns)), where
    w = np.flatnonzero(win)
    assert np.all(winner[w] == (rules.first_mover + turns[w] - 1) % n), where  # its own turn
    assert np.all(vp[w, winner[w]] >= rules.vp_to_win), where
    assert np.all(winner[cap] == -1) and np.all(turns[cap] == rules.max_turns), where
    return int(win.sum())


@pytest.mark.parametrize("setting", list(SETTINGS))
def test_every_table_is_legal_under_the_setting(setting, user_toml):
    wins = {}
    for i, table in enumerate(TABLES):
        wins[table] = play_and_check(setting, table, GAMES,
                                     base_seed=7000 + 100 * list(SETTINGS).index(setting) + i,
                                     user_toml=user_toml)
    # The settings do what they say: the cap of 1 ends every game, 3 VP are won at once,
    # and with the official supply every archetype wins (nearly) every game.
    rules = Rules(**SETTINGS[setting][1])
    if rules.max_turns == 1:
        assert sum(wins.values()) == 0
    if rules.vp_to_win == 3:
        assert all(w == GAMES for w in wins.values())
    if setting == "official":
        assert all(wins[name] >= GAMES - 1 for name in ARCHETYPES)


def test_the_suite_covers_what_its_docstring_says():
    """The counts in the module docstring; they may grow, never shrink."""
    assert len(PARAM_VALUES) >= 111 and len(TABLES) >= 124 and len(SETTINGS) >= 20
    assert GAMES >= 24 and len(TABLES) * len(SETTINGS) * GAMES >= 59_520
    assert len(set(VARIANTS)) == len(PARAM_VALUES)  # no value counted twice
    # every parameter at both ends of its range, every word, both sides of a threshold
    names = [f[0] for f in PARAM_FIELDS]
    for name, lo, hi, _ in PARAM_FIELDS:
        assert (name, lo) in PARAM_VALUES and (name, hi) in PARAM_VALUES, name
    for name, words in PARAM_WORDS.items():
        assert {w for w in words} <= {v for p, v in PARAM_VALUES if p == name}, name
    for name, edge in (("accept", 0.5), ("knight_eager", 0.5), ("bank_trade", 1.5),
                       ("robber_policy", 0.5), ("robber_policy", 1.5),
                       ("offer_ask", 0.5), ("offer_two", 0.5), ("offer_haggle", 0.5)):
        values = [v for p, v in PARAM_VALUES if p == name and not isinstance(v, str)]
        assert any(v < edge for v in values) and any(v >= edge for v in values), name
    assert len({p for p, _ in PARAM_VALUES}) == len(names) == 35
    # every preset, user strategies, mixed tables; both player counts for every table
    seats = {getattr(s, "name", s) for table in TABLES.values() for s in table}
    assert set(ARCHETYPES) | {"random", "user_made", "user_toml"} <= seats
    assert sum(len(t) > 1 for t in TABLES.values()) >= 4
    for table in TABLES:
        assert {_n_players(s, table) for s in SETTINGS} == {3, 4}, table
    # every rule setting of interest
    rules = [Rules(**r) for _, r in SETTINGS.values()]
    assert {r.robber for r in rules} == {"official", "off", "friendly"}
    assert {r.shortage for r in rules} == {"official", "strict", "off"}
    assert {1, 2, 3, 19, None} <= {r.bank_per_resource for r in rules}
    small = [r for r in rules if r.bank_per_resource in (1, 2, 3)]
    assert {r.robber for r in small} == {"official", "off", "friendly"}
    assert {r.shortage for r in small} == {"official", "strict", "off"}
    assert {0, 7, None} <= {r.discard_limit for r in rules}
    assert {3, 10, 20} <= {r.vp_to_win for r in rules}
    assert min(r.max_turns for r in rules) == 1 and any(r.max_turns == 30 for r in rules)
    assert {layout for layout, _ in SETTINGS.values()} == {"variable", "random_numbers",
                                                          "beginner"}


def test_each_variant_changes_only_its_parameter():
    # The sweep plays what it claims: the value (a word as its number) in its slot,
    # default's row everywhere else.
    base = PRESETS["default"].params
    for (name, value), st in zip(PARAM_VALUES, VARIANTS.values(), strict=True):
        i = PARAM_INDEX[name]
        want = PARAM_WORDS[name][value] if isinstance(value, str) else float(value)
        assert st.params[i] == want, (name, value)
        others = np.arange(base.size) != i
        assert np.array_equal(st.params[others], base[others]), (name, value)
        assert st.sid != STRATEGY_RANDOM


@pytest.mark.slow
def test_the_big_sweep(user_toml):
    for s, setting in enumerate(SETTINGS):
        for i, table in enumerate(TABLES):
            play_and_check(setting, table, BIG_GAMES, base_seed=90_000 + 100 * s + i,
                           user_toml=user_toml)
