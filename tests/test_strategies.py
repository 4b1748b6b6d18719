"""Scripted strategies: legality in whole games, decisions on hand-built positions,
and the strategy configuration (presets, TOML tables, errors)."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import (
    BRICK,
    ORE,
    TOPO,
    WHEAT,
    WOOL,
    Game,
    H,
    batch_scratch,
    hex_nodes,
    trade_position,
)

from catansim.core import layout as L
from catansim.core.actions_nb import ACT_CITY, ACT_SIZE, ACT_TRADE_BANK, ACT_TRADE_PLAYER
from catansim.core.engine_nb import play_batch_nb
from catansim.core.policy_nb import (
    accept_trade_nb,
    choose_action_nb,
    choose_discard_nb,
    choose_monopoly_nb,
    choose_robber_hex_nb,
    choose_setup_road_nb,
    choose_setup_settlement_nb,
    choose_victim_nb,
)
from catansim.core.rules_nb import node_pips_nb
from catansim.core.scripted.weights_nb import PARAM_FIELDS
from catansim.engine import batch_seeds, play_batch
from catansim.errors import CatansimError
from catansim.rules import Rules
from catansim.settings import GameSettings
from catansim.strategies import (
    ARCHETYPES,
    PRESETS,
    load_strategies,
    make_strategy,
    resolve,
    seat_arrays,
)

SCRIPTED = sorted(ARCHETYPES)


def col(name):
    return L.COUNTER_OFFSETS[name]


def checked_batch(names, n_players, n_games, seed):
    """Play a batch with the in-kernel invariant checker on (rules check=1)."""
    settings = GameSettings(n_players=n_players, strategies=tuple(names))
    n, code, board, openings, topo, _, strat, params = settings.kernel_args()
    rules = Rules().to_array(check=True)
    seeds = batch_seeds(seed, n_games)
    counters = np.zeros((n_games, L.N_COUNTERS), dtype=np.int32)
    boards = np.zeros((n_games, L.BOARD_SIZE), dtype=np.int32)
    play_batch_nb(seeds, n, code, board, openings, topo, rules, strat, params, counters, boards,
                  *batch_scratch())
    return counters


@pytest.mark.parametrize("n_players", [3, 4])
@pytest.mark.parametrize("name", SCRIPTED)
def test_every_strategy_only_takes_legal_actions(name, n_players):
    others = [s for s in SCRIPTED + ["random"] if s != name]
    games = 0
    for rot in range(n_players):
        # The strategy in every seat, against a changing mix of the others.
        seats = [others[(rot + i) % len(others)] for i in range(n_players)]
        seats[rot] = name
        c = checked_batch(seats, n_players, 150, seed=97 + rot)
        games += len(c)
        assert c[:, col("c_illegal")].sum() == 0
        assert c[:, col("c_violations")].sum() == 0
        assert (c[:, col("c_end_reason")] == L.END_WIN).mean() > 0.99
    assert games == 150 * n_players


def test_all_scripted_table_is_legal_and_trades():
    c = checked_batch(["default", "city", "army", "trader"], 4, 300, seed=5)
    assert c[:, col("c_illegal")].sum() == 0
    assert c[:, col("c_violations")].sum() == 0
    trades = c[:, col("c_trades_player") : col("c_trades_player") + 4].sum() / 2
    assert trades / len(c) > 1.0  # scripted players trade with each other


def test_builder_beats_three_random_players():
    res = play_batch(batch_seeds(11, 300), GameSettings(strategies=("builder", "random",
                                                                     "random", "random")))
    wins = (res.counters[:, col("c_winner")] == 0).mean()
    assert wins > 0.8


# --- hand-built positions ----------------------------------------------------------------


def prm(name="default", **over):
    return make_strategy("t", {"base": name, **over}).params if over else resolve(name).params


def sid():
    return resolve("default").sid


def test_setup_picks_the_best_pips_node():
    g = Game()
    pips_only = prm(pips_weight=1.0, diversity_weight=0, scarcity_weight=0, harbor_weight=0,
                    complement_weight=0)
    legal = np.ones(54, dtype=np.uint8)
    pips = np.array([node_pips_nb(g.s, TOPO, n) for n in range(54)])
    n = choose_setup_settlement_nb(sid(), pips_only, g.s, TOPO, g.rules, g.rng, g.work, 0, legal)
    assert pips[n] == pips.max()
    legal[pips == pips.max()] = 0
    n2 = choose_setup_settlement_nb(sid(), pips_only, g.s, TOPO, g.rules, g.rng, g.work, 0, legal)
    assert pips[n2] == pips[legal == 1].max()


def test_second_settlement_weighs_what_the_first_lacks():
    g = Game()
    # Only the complement term: a node with resources the first settlement lacks wins.
    only_new = prm(pips_weight=0.01, diversity_weight=0, scarcity_weight=0, harbor_weight=0,
                   complement_weight=5.0)
    first = int(np.argmax([node_pips_nb(g.s, TOPO, n) for n in range(54)]))
    g.settle(0, first)
    have = {int(g.s[L.S_HEX_TERRAIN + h]) for h in TOPO_NODE_HEXES(first)}
    legal = np.array([1 if _free(g, n) else 0 for n in range(54)], dtype=np.uint8)
    n = choose_setup_settlement_nb(sid(), only_new, g.s, TOPO, g.rules, g.rng, g.work, 0, legal)
    new = {int(g.s[L.S_HEX_TERRAIN + h]) for h in TOPO_NODE_HEXES(n)} - have - {5}
    assert len(new) == 3


def TOPO_NODE_HEXES(n):
    from catansim.topology import NODE_HEXES

    return [int(h) for h in NODE_HEXES[n] if h >= 0]


def _free(g, n):
    from catansim.core.rules_nb import distance_ok_nb

    return distance_ok_nb(g.s, n)


def test_setup_road_points_at_the_best_next_spot():
    g = Game()
    p = prm()
    node = hex_nodes(H(0, 0))[0]  # a corner of the desert: three ways out
    g.settle(0, node)
    legal = np.zeros(72, dtype=np.uint8)
    from catansim.topology import EDGE_NODES

    for e, (a, b) in enumerate(EDGE_NODES.tolist()):
        legal[e] = node in (a, b)
    e = choose_setup_road_nb(sid(), p, g.s, TOPO, g.rules, g.rng, g.work, 0, node, legal)
    assert legal[e]
    from catansim.core.scripted.placement_nb import locate_nb, node_score_nb
    from catansim.core.scripted.work_nb import WORK_SIZE
    from catansim.topology import NODE_NEIGHBOURS

    x = np.zeros(WORK_SIZE)
    locate_nb(g.s, TOPO, p, 0, x)

    def reach(edge):
        a, b = EDGE_NODES[edge]
        m = b if a == node else a
        return max((node_score_nb(g.s, TOPO, p, 0, int(m2), x, False)
                    for m2 in NODE_NEIGHBOURS[m] if m2 >= 0 and m2 != node and _free(g, m2)),
                   default=0.0)

    assert reach(e) == max(reach(f) for f in np.flatnonzero(legal))


def test_completes_a_city_with_a_two_to_one_harbor_trade():
    g = Game()
    harbor_nodes = np.flatnonzero(g["node_harbor"] == BRICK)
    node = int(harbor_nodes[0])
    g.settle(0, node)
    assert g["harbors"][6 * 0 + BRICK] == 1
    g.set_hand(0, [0, 2, 0, 2, 2])  # 2 brick, 2 wheat, 2 ore: one ore short of a city
    act = np.zeros(ACT_SIZE, dtype=np.int32)
    cand = np.zeros(512, dtype=np.int32)
    choose_action_nb(sid(), prm(), g.s, TOPO, g.rules, g.rng, g.work, 0, act, cand)
    assert (act[0], act[1], act[2]) == (ACT_TRADE_BANK, BRICK, ORE)
    g.apply(act)
    choose_action_nb(sid(), prm(), g.s, TOPO, g.rules, g.rng, g.work, 0, act, cand)
    assert (act[0], act[1]) == (ACT_CITY, node)


def test_robber_goes_on_the_leaders_best_hex_and_robs_the_leader():
    g = Game()
    leader, second = 1, 2
    g.settle(leader, hex_nodes(H(2, 0))[3], city=True)  # mountains 8 and pasture 5
    g.settle(leader, hex_nodes(H(-1, 1))[0])  # mountains 3
    g.settle(second, hex_nodes(H(-1, -1))[0])  # fields 12
    g.settle(0, hex_nodes(H(-2, 0))[0])
    g.set_hand(leader, [1, 1, 0, 0, 0])
    g.set_hand(second, [3, 0, 0, 0, 0])
    mask = np.ones(19, dtype=np.uint8)
    mask[g.s[L.S_ROBBER]] = 0
    assert choose_robber_hex_nb(sid(), prm(), g.s, TOPO, g.rules, g.rng, g.work, 0, mask) == H(2, 0)
    victims = np.array([second, leader, 0, 0], dtype=np.int32)
    assert choose_victim_nb(sid(), prm(), g.s, TOPO, g.rules, g.rng, g.work, 0, H(2, 0), victims,
                            2) == leader
    # With its own settlement on that hex, it takes the leader's next best hex instead.
    g.settle(0, hex_nodes(H(2, 0))[0])
    assert choose_robber_hex_nb(sid(), prm(), g.s, TOPO, g.rules, g.rng, g.work, 0, mask) == H(1, 1)


def test_robber_never_blocks_its_owner_when_avoidable():
    g = Game()
    g.settle(0, hex_nodes(H(0, 0))[0])
    g.settle(0, hex_nodes(H(1, 1))[3])
    g.settle(1, hex_nodes(H(0, -1))[0], city=True)
    mask = np.ones(19, dtype=np.uint8)
    mask[g.s[L.S_ROBBER]] = 0
    own = {h for h in range(19) if any(g.s[L.S_NODE_OWNER + n] == 0 for n in hex_nodes(h))}
    for policy in (0, 1, 2):
        for seed in range(8):
            g.rng[:] = seed
            h = choose_robber_hex_nb(sid(), prm(robber_policy=policy), g.s, TOPO, g.rules,
                                     g.rng, g.work, 0, mask)
            assert mask[h] and h not in own


@pytest.mark.parametrize("policy", [0, 1, 2])
def test_robber_stays_on_the_allowed_hexes_when_each_touches_its_own_buildings(policy):
    # The friendly robber can leave only hexes where the mover has buildings; the
    # random policy once returned -1 here (an illegal action the engine replaced).
    g = Game(rules=Rules(robber="friendly"))
    node = hex_nodes(H(0, 0))[0]
    g.settle(0, node)
    g.settle(1, hex_nodes(H(2, -2))[3])
    mask = np.zeros(19, dtype=np.uint8)
    for h in TOPO_NODE_HEXES(node):
        mask[h] = 1
    mask[g.s[L.S_ROBBER]] = 0
    assert mask.sum() >= 2
    seen = set()
    for seed in range(40):
        g.rng[:] = seed
        h = choose_robber_hex_nb(sid(), prm(robber_policy=policy), g.s, TOPO, g.rules, g.rng,
                                 g.work, 0, mask)
        assert 0 <= h < 19 and mask[h], (seed, h)
        seen.add(h)
    if policy == 2:
        assert seen == set(np.flatnonzero(mask))  # still a random choice among them


def test_random_robber_policy_is_legal_under_the_friendly_robber():
    # 131 of 20,000 such games made an illegal robber move before the fix.
    row = make_strategy("t", {"base": "default", "robber_policy": "random"}).params
    settings = GameSettings(strategies=("default",) * 4, rules=Rules(robber="friendly"))
    n, code, board, openings, topo, _, strat, params = settings.kernel_args()
    params[:] = row
    rules = settings.rules.to_array(check=True)
    seeds = batch_seeds(0, 3000)
    counters = np.zeros((len(seeds), L.N_COUNTERS), dtype=np.int32)
    boards = np.zeros((len(seeds), L.BOARD_SIZE), dtype=np.int32)
    play_batch_nb(seeds, n, code, board, openings, topo, rules, strat, params, counters, boards,
                  *batch_scratch())
    assert counters[:, col("c_illegal")].sum() == 0
    assert counters[:, col("c_violations")].sum() == 0


def test_discards_keep_the_cards_of_a_city():
    g = Game()
    g.settle(0, hex_nodes(H(1, 0))[0])
    g.set_hand(0, [4, 1, 0, 2, 3])  # 10 cards: discard 5
    out = np.zeros(5, dtype=np.int32)
    choose_discard_nb(sid(), prm(), g.s, TOPO, g.rules, g.rng, g.work, 0, 5, out)
    assert out.sum() == 5
    assert out[WHEAT] == 0 and out[ORE] == 0
    assert list(out) == [4, 1, 0, 0, 0]


def test_monopoly_names_what_opponents_hold_most_of():
    g = Game()
    g.set_hand(0, [0, 0, 0, 0, 3])
    g.set_hand(1, [1, 0, 2, 0, 1])
    g.set_hand(2, [0, 2, 2, 0, 1])
    g.set_hand(3, [1, 0, 1, 3, 0])
    assert choose_monopoly_nb(sid(), prm(), g.s, TOPO, g.rules, g.rng, g.work, 0) == WOOL


def _trade_position():
    return trade_position()  # seat 1 lacks only wool for a settlement


def test_partner_accepts_a_trade_that_completes_its_build():
    g = _trade_position()
    give_wool_get_ore = Game.action(ACT_TRADE_PLAYER, 1, give=[0, 0, 1, 0, 0],
                                    get=[0, 0, 0, 0, 1])
    assert accept_trade_nb(sid(), prm(), g.s, TOPO, g.rules, g.rng, g.work, 1, 0, give_wool_get_ore)
    # Taking the wood it needs for the settlement does not help it.
    give_wool_get_wood = Game.action(ACT_TRADE_PLAYER, 1, give=[0, 0, 1, 0, 0], get=[1, 0, 0, 0, 0])
    assert not accept_trade_nb(sid(), prm(), g.s, TOPO, g.rules, g.rng, g.work, 1, 0,
                               give_wool_get_wood)
    # Nobody trades with a player close to winning.
    near_win = prm(accept_vp_limit=2)
    g.settle(0, hex_nodes(H(1, 1))[0])
    g.settle(0, hex_nodes(H(2, -2))[0])
    assert not accept_trade_nb(sid(), near_win, g.s, TOPO, g.rules, g.rng, g.work, 1, 0,
                               give_wool_get_ore)


def test_offers_surplus_for_the_missing_card():
    g = _trade_position()
    node = hex_nodes(H(1, 0))[0]
    g.settle(0, node)
    g.set_hand(0, [0, 0, 2, 2, 2])  # city lacks one ore; wool is spare
    act = np.zeros(ACT_SIZE, dtype=np.int32)
    cand = np.zeros(512, dtype=np.int32)
    p = prm("classic", dev_weight=0.0)  # one for one: classic asks no more cards
    choose_action_nb(sid(), p, g.s, TOPO, g.rules, g.rng, g.work, 0, act, cand)
    assert act[0] == ACT_TRADE_PLAYER and act[1] == 1
    assert list(act[2:7]) == [0, 0, 1, 0, 0] and list(act[7:12]) == [0, 0, 0, 0, 1]
    # default asks the partner's surplus ore beyond the one it misses, in the same offer
    p = prm(dev_weight=0.0)
    choose_action_nb(sid(), p, g.s, TOPO, g.rules, g.rng, g.work, 0, act, cand)
    assert act[0] == ACT_TRADE_PLAYER and act[1] == 1
    assert list(act[2:7]) == [0, 0, 1, 0, 0] and list(act[7:12]) == [0, 0, 0, 0, 2]


# --- configuration -------------------------------------------------------------------------


def test_presets_cover_the_archetypes_and_rows_are_in_range():
    for name in ("random", "builder", "expander", "city", "army", "trader", "default"):
        assert name in PRESETS
    for name in SCRIPTED:
        row = PRESETS[name].params
        for i, (field, lo, hi, _) in enumerate(PARAM_FIELDS):
            assert lo <= row[i] <= hi, (name, field)
    strat, params = seat_arrays(["random", "city", "army"])
    assert strat[0] == 0 and strat[1] == strat[2] != 0
    assert not np.array_equal(params[1], params[2])


def test_each_parameter_is_read_by_the_kernels_through_one_slot_constant():
    # The P_* constants cover PARAM_FIELDS once each (the five resource targets from
    # P_TARGET), and a kernel of core/scripted/ reads each: a parameter no kernel reads,
    # or a constant that names no parameter, fails here.
    import re
    from pathlib import Path

    from catansim.core.scripted import weights_nb as W

    slots = {name: value for name, value in vars(W).items() if re.fullmatch(r"P_[A-Z_]+", name)}
    covered = [v for n, v in slots.items() if n != "P_TARGET"]
    covered += range(W.P_TARGET, W.P_TARGET + 5)
    assert sorted(covered) == list(range(len(PARAM_FIELDS)))
    kernels = "".join(p.read_text() for p in Path(W.__file__).parent.glob("*_nb.py")
                      if p.name != "weights_nb.py")
    assert not [n for n in slots if not re.search(rf"\b{n}\b", kernels)]


def _weights_module(edit):
    """The names of ``weights_nb`` executed with its table changed by ``edit``."""
    from pathlib import Path

    from catansim.core.scripted import weights_nb as W

    source = Path(W.__file__).read_text().replace(
        "from ...constants import", "from catansim.constants import")
    source = source.replace("PARAM_INDEX = {", f"PARAM_FIELDS = ({edit})(PARAM_FIELDS)\n"
                                              "PARAM_INDEX = {", 1)
    names: dict = {}
    exec(compile(source, W.__file__, "exec"), names)
    return names


def test_the_slot_constants_follow_the_table_by_name():
    # A reordered table rewires every kernel: each constant still reads its parameter.
    from catansim.core.scripted import weights_nb as W

    moved = _weights_module("lambda f: (f[-1],) + f[:-1]")  # hand_guard first
    for name, value in vars(W).items():
        if name.startswith("P_") and name != "P_TARGET":
            assert moved["PARAM_FIELDS"][moved[name]][0] == PARAM_FIELDS[value][0], name
    assert moved["P_HAND_GUARD"] == 0 and moved["P_TARGET"] == W.P_TARGET + 1
    with pytest.raises(ValueError, match="resource targets must follow each other"):
        _weights_module("lambda f: f[::-1]")  # the targets from ore to wood
    with pytest.raises(ValueError, match=f"allowed: at most N_PARAMS = {W.N_PARAMS}"):
        _weights_module(f"lambda f: f + f[:{W.N_PARAMS - len(PARAM_FIELDS) + 1}]")  # one too many


def test_load_strategies_from_toml(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text(
        '[strategies.my_city]\nbase = "city"\ndev_weight = 1.5\nrobber_policy = "production"\n'
        '[strategies.my_city2]\nbase = "my_city"\noffers = 0\n'
    )
    mine = load_strategies(path)
    assert list(mine) == [*PRESETS, "my_city", "my_city2"]
    assert "my_city" not in PRESETS  # a new set; the presets are untouched
    row = mine.resolve("my_city").params
    d = mine.resolve("my_city").param_dict()
    assert d["dev_weight"] == 1.5 and d["robber_policy"] == 1.0
    assert d["city_weight"] == PRESETS["city"].param_dict()["city_weight"]
    assert mine.resolve("my_city2").param_dict()["offers"] == 0
    assert mine.resolve("my_city2").param_dict()["dev_weight"] == 1.5
    assert row.shape == PRESETS["city"].params.shape
    res = play_batch(batch_seeds(1, 20), GameSettings(
        strategies=("my_city2", "my_city", "random", "random"), strategy_set=mine))
    assert (res.counters[:, col("c_illegal")] == 0).all()
    with pytest.raises(CatansimError, match="strategies: unknown strategy 'my_city'"):
        GameSettings(strategies=("my_city",))  # not in the built-in set
    with pytest.raises(CatansimError, match="my_city: redefines a strategy defined before"):
        mine.with_definitions({"my_city": {"base": "army"}})


@pytest.mark.parametrize(
    ("tables", "message"),
    [
        ({"x": {"base": "nope"}}, "strategies.x.base: unknown preset 'nope'; allowed: army,"),
        ({"x": {"base": "random"}}, "strategies.x.base: unknown preset 'random'"),
        ({"x": {"dev_wieght": 1}}, "strategies.x.dev_wieght: unknown parameter; allowed: base,"),
        ({"x": {"dev_weight": 9}}, "strategies.x.dev_weight: 9 is out of range; allowed: 0..5"),
        ({"x": {"dev_weight": -1}}, "strategies.x.dev_weight: -1 is out of range"),
        ({"x": {"dev_weight": "lots"}}, "strategies.x.dev_weight: 'lots' is not a number"),
        ({"x": {"robber_policy": "everyone"}},
         "strategies.x.robber_policy: 'everyone' is not a number; allowed: 0..2 or one of "
         "leader, production, random"),
        ({"x": {"accept": True}}, "strategies.x.accept: True is not a number"),
        ({"builder": {"base": "city"}}, "strategies.builder: redefines a built-in preset"),
        ({"x": 3}, "strategies.x: expected a table of parameters"),
        ({"\x1b]0;TITLE\x07": {"base": "default"}},
         "strategies: a strategy's name: '\\x1b]0;TITLE\\x07' holds the unprintable character "
         "'\\x1b'; allowed: a name of 1..200 printable characters"),
        ({"tab\there": {}}, "strategies: a strategy's name: 'tab\\there' holds the unprintable"),
        ({"": {}}, "strategies: a strategy's name: 0 characters; allowed: a name of 1..200"),
        ({"y" * 201: {}}, "strategies: a strategy's name: 201 characters; allowed: a name of"),
    ],
)
def test_config_errors_name_the_field_and_allowed_values(tables, message):
    with pytest.raises(CatansimError) as err:
        load_strategies({"strategies": tables})
    assert str(err.value).startswith(message)
    assert "\n" not in str(err.value)
    assert "x" not in PRESETS


def test_config_file_errors(tmp_path):
    with pytest.raises(CatansimError, match="missing.toml: strategy config not found; allowed"):
        load_strategies(tmp_path / "missing.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("[strategies.x\n")
    with pytest.raises(CatansimError, match="invalid TOML"):
        load_strategies(bad)
    with pytest.raises(CatansimError, match="strategy: unknown strategy 'nobody'; allowed:"):
        resolve("nobody")


# --- the placement score against a plain-Python oracle --------------------------------------


def _score_oracle(s, prm, p, n, in_game):
    """docs/strategies.md's node score, from the state alone (no memo, no scratch)."""
    from catansim.core.scripted.weights_nb import PARAM_INDEX as I
    from catansim.topology import NODE_EDGES, NODE_HEXES

    def pips(num):
        return 0 if num <= 0 else 6 - abs(7 - num)

    terrain = s[L.S_HEX_TERRAIN : L.S_HEX_TERRAIN + 19]
    number = s[L.S_HEX_NUMBER : L.S_HEX_NUMBER + 19]
    board_pips = [sum(pips(number[h]) for h in range(19) if terrain[h] == r) for r in range(5)]
    mean = sum(board_pips) / 5.0
    w = prm[I["scarcity_weight"]]
    scar = [min(2.0, max(0.5, mean / bp if bp > 0 else 2.0)) for bp in board_pips]
    scar = [f**w if w != 1.0 else f for f in scar]
    prod = [0.0] * 5
    for m in range(54):
        if s[L.S_NODE_OWNER + m] == p:
            for h in NODE_HEXES[m]:
                if h >= 0 and terrain[h] < 5:
                    prod[terrain[h]] += s[L.S_NODE_LEVEL + m] * pips(number[h])
    hexes = [h for h in NODE_HEXES[n] if h >= 0 and terrain[h] < 5]
    value = 0.0
    for h in hexes:
        value += pips(number[h]) * prm[I["wood_target"] + terrain[h]] * scar[terrain[h]]
    at = {int(terrain[h]) for h in hexes}
    score = prm[I["pips_weight"]] * value + prm[I["diversity_weight"]] * len(at)
    if any(prod):
        score += prm[I["complement_weight"]] * sum(1 for r in at if prod[r] == 0)
    kind = s[L.S_NODE_HARBOR + n]
    if kind >= 0 and prm[I["harbor_weight"]] > 0 and s[L.S_HARBORS + 6 * p + kind] == 0:
        hv = 1.0 if kind == 5 else (prod[kind] + sum(pips(number[h]) for h in hexes
                                                     if terrain[h] == kind)) / 4.0
        score += prm[I["harbor_weight"]] * hv
    if in_game and prm[I["block_weight"]] > 0:
        for e in NODE_EDGES[n]:
            if e >= 0 and s[L.S_EDGE_OWNER + e] not in (-1, p):
                score += prm[I["block_weight"]]
    return score


def test_node_scores_match_the_formula_with_one_work_array_for_many_rows():
    # Six rows share one work array (more than its memo slots), in changing order, on
    # a position with buildings, harbors and roads: the memoised scores stay exact.
    from catansim.core.scripted.placement_nb import locate_nb, node_score_nb
    from catansim.core.scripted.work_nb import WORK_SIZE

    s = _midgame_state()
    rng = np.random.default_rng(5)
    rows = [resolve(n).params for n in ("default", "builder", "city", "army", "trader",
                                        "expander")]
    rows.append(rows[0] * rng.uniform(0.5, 1.5, rows[0].shape))
    work = np.zeros(WORK_SIZE)
    for i in rng.permutation(np.arange(40) % len(rows)):
        prm, p = rows[i], int(i % 4)
        locate_nb(s, TOPO, prm, p, work)
        for n in range(54):
            for in_game in (False, True):
                got = node_score_nb(s, TOPO, prm, p, n, work, in_game)
                assert got == pytest.approx(_score_oracle(s, prm, p, n, in_game), rel=1e-12)


def test_the_block_term_from_road_counts_equals_the_edge_by_edge_sum():
    # add_blocks_nb counts opponent roads from node_roads; the plain form adds block
    # once per opponent edge in edge order. The same float, bit for bit, on positions
    # with roads of every seat, for every node and seat.
    from catansim.core.scripted.placement_nb import add_blocks_by_edge_nb, add_blocks_nb
    from catansim.engine import play_game

    seen = set()
    for seed, turns in ((11, 40), (12, 80), (13, 200)):
        s = play_game(seed, strategies=("default", "expander", "city", "army"),
                      rules=Rules(max_turns=turns), log=False).state
        for p in range(4):
            for n in range(54):
                for v in (0.0, 1.7, -0.3, 2.9124):
                    for block in (0.3, 0.6, 5.0):
                        want = add_blocks_by_edge_nb(s, TOPO, p, n, v, block)
                        assert add_blocks_nb(s, TOPO, p, n, v, block) == want, (p, n, v)
                        seen.add(round((want - v) / block))
    assert seen == {0, 1, 2, 3}


def test_best_road_from_the_empty_edge_masks_equals_the_edge_by_edge_search():
    # best_road_nb reads each node's empty edges from node_free; the plain form finds
    # them from the edge owners. The same edge and the same float, for every seat, row
    # and want_spot, on positions from the first roads to crowded boards.
    from catansim.core.scripted.placement_nb import (
        best_road_by_edge_nb,
        best_road_nb,
        locate_nb,
    )
    from catansim.core.scripted.work_nb import WORK_SIZE
    from catansim.engine import play_game

    rows = [resolve(n).params for n in ("default", "expander", "builder", "army")]
    work = np.zeros(WORK_SIZE)
    found = 0
    for seed in range(12):
        for turns in (1, 20, 60, 200):
            s = play_game(seed, strategies=("default", "expander", "city", "army"),
                          rules=Rules(max_turns=turns), log=False).state
            for p in range(4):
                for prm in rows:
                    locate_nb(s, TOPO, prm, p, work)
                    for want in (True, False):
                        want_e, want_v = best_road_by_edge_nb(s, TOPO, prm, p, work, want)
                        e, v = best_road_nb(s, TOPO, prm, p, work, want)
                        assert (e, v) == (want_e, want_v), (seed, turns, p, want)
                        found += e >= 0
    assert found > 100


def _midgame_state():
    from catansim.engine import play_game

    return play_game(11, strategies=("default", "trader", "city", "army"),
                     rules=Rules(max_turns=40), log=False).state


def _selection_sort_reference(scores):
    """The plain selection sort the action decision's ordering must equal: for each
    place i, a later place j with a strictly higher score swaps with it."""
    order = list(range(len(scores)))
    for i in range(len(order)):
        for j in range(i + 1, len(order)):
            if scores[order[j]] > scores[order[i]]:
                order[i], order[j] = order[j], order[i]
    return order


def test_build_order_matches_the_plain_selection_sort():
    # Every score vector over {0, 0.5, 1, 2}: ties everywhere, where an exchange's
    # strictness decides the order.
    import itertools

    from catansim.core.scripted.plan_nb import ranked_nb
    from catansim.core.scripted.work_nb import X_SCORE

    x = np.zeros(X_SCORE + 4)
    for scores in itertools.product((0.0, 0.5, 1.0, 2.0), repeat=4):
        x[X_SCORE:X_SCORE + 4] = scores
        got = ranked_nb(x)
        assert list(got[:4]) == _selection_sort_reference(scores), scores
        assert list(got[4:]) == [scores[q] for q in got[:4]]
