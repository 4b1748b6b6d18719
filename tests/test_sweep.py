"""Forced-opening sweeps in experiment files: the arms a [sweep] table makes, their names,
their one-line errors, the beginner map with free openings, and the pairing they rely on
(an arm that forces what the strategy would choose anyway replays the baseline exactly)."""

from __future__ import annotations

import numpy as np
import pytest

from catansim.board import beginner_board
from catansim.errors import CatansimError
from catansim.kernels import opening_slot
from catansim.results.arms import Arm, arm_name, parse_arm
from catansim.runs.experiment import load_experiment, parse_experiment
from catansim.runs.runner import compute_task, plan
from catansim.topology import NODE_EDGES, NODE_NEIGHBOURS


def _exp(**kw):
    return parse_experiment({"games": 10, "board": "beginner", **kw})


def _forced(v, players=4):
    """{(seat, settlement): (node, edge)} of a variant's openings."""
    o = np.asarray(v.openings)
    return {(p, k): (int(o[opening_slot(p, k)]), int(o[opening_slot(p, k) + 1]))
            for p in range(players) for k in (0, 1) if o[opening_slot(p, k)] >= 0}


def test_a_first_settlement_sweep_makes_one_arm_per_seat_and_node():
    exp = _exp(sweep={"seat": "all", "settlement": 1})
    assert exp.variant_names[0] == "baseline" and len(exp.variants) == 1 + 4 * 54
    for v in exp.variants[1:]:
        arm = parse_arm(v.name)
        assert arm.kind == "first" and arm.roads == (-1,)
        assert _forced(v) == {(arm.seat, 0): (arm.node, -1)}
        assert v.rules == exp.variants[0].rules and v.strategies == exp.variants[0].strategies
    assert exp.variant("seat2_first17").description == "seat 2: first settlement on node 17"


def test_pairs_are_ordered_and_obey_the_distance_rule():
    nodes = [10, 20, 25, 30, 41]
    exp = _exp(sweep={"seat": [0, 3], "settlement": [1, 2], "nodes": nodes})
    want = {(a, b) for a in nodes for b in nodes if a != b and b not in NODE_NEIGHBOURS[a]}
    assert len(want) == 18  # 20 and 25 are neighbours
    for seat in (0, 3):
        got = {parse_arm(v.name).nodes for v in exp.variants[1:]
               if parse_arm(v.name).seat == seat}
        assert got == want
    v = exp.variant("seat3_pair10_30")
    assert _forced(v) == {(3, 0): (10, -1), (3, 1): (30, -1)}


def test_roads_all_sweeps_every_road_at_the_node():
    exp = _exp(sweep={"seat": 1, "settlement": 2, "nodes": [5, 33], "roads": "all"})
    edges = {n: {int(e) for e in NODE_EDGES[n] if e >= 0} for n in (5, 33)}
    got = {}
    for v in exp.variants[1:]:
        arm = parse_arm(v.name)
        got.setdefault(arm.node, set()).add(arm.roads[0])
        assert _forced(v) == {(1, 1): (arm.node, arm.roads[0])}
    assert got == edges


def test_several_sweep_tables_and_the_baseline_openings_combine():
    exp = _exp(openings={"seat0": [[20, -1]]},
               sweep=[{"seat": 0, "settlement": 2}, {"seat": 1}])
    base = {(0, 0): (20, -1)}
    assert _forced(exp.variants[0]) == base
    blocked = {20, *(int(n) for n in NODE_NEIGHBOURS[20] if n >= 0)}
    for seat, kind in ((0, "second"), (1, "first")):
        arms = [parse_arm(v.name) for v in exp.variants[1:]]
        nodes = {a.node for a in arms if a.seat == seat and a.kind == kind}
        assert nodes == set(range(54)) - blocked  # "all": the nodes the baseline leaves
    v = exp.variant("seat1_first30")
    assert _forced(v) == {**base, (1, 0): (30, -1)}


def test_the_beginner_map_with_free_openings():
    exp = _exp()
    s = exp.settings()
    assert s.layout == "given"
    assert np.array_equal(s.board.vector, beginner_board().vector)
    assert (np.asarray(s.openings) == -1).all()  # the printed pieces are not forced


def test_arm_names_round_trip():
    for arm in (Arm(0, "first", (23,), (-1,)), Arm(3, "second", (40,), (55,)),
                Arm(2, "pair", (0, 53), (-1, 71)), Arm(1, "pair", (7, 12), (-1, -1))):
        assert parse_arm(arm.name) == arm
    assert arm_name(0, "first", [23], [31]) == "seat0_first23_road31"
    assert arm_name(3, "pair", [23, 40], [31, -1]) == "seat3_pair23_40_roads31_-1"
    for other in ("baseline", "friendly", "seat0_first", "seat0_pair23", "seat0_first23_40",
                  "seat0_first023"):
        assert parse_arm(other) is None


def test_the_sweep_is_part_of_the_result_hash():
    a = _exp(sweep={"seat": 0, "nodes": [1, 2]})
    b = _exp(sweep={"seat": 0, "nodes": [1, 3]})
    assert a.result_hash() != b.result_hash()
    assert a.result_hash() == _exp(sweep={"seat": 0, "nodes": [1, 2]}).result_hash()


@pytest.mark.parametrize("sweep, message", [
    ({"seats": 0}, "sweep.seats: unknown key; allowed: seat, settlement, nodes, roads"),
    ({"seat": 4}, 'sweep.seat: 4 is not allowed; allowed: a seat 0..3, a list of them or "all"'),
    ({"seat": [0, 0]}, "sweep.seat: [0, 0] is not allowed"),
    ({"seat": "first"}, "sweep.seat: 'first' is not allowed"),
    ({"settlement": 3}, "sweep.settlement: 3 is not allowed; allowed: 1 (the first), 2"),
    ({"settlement": True}, "sweep.settlement: True is not allowed"),
    ({"nodes": [1, 54]}, "sweep.nodes[1]: 54 is not a node; allowed: 0..53"),
    ({"nodes": []}, "sweep.nodes: expected \"all\" or a list of nodes"),
    ({"nodes": "some"}, "sweep.nodes: expected \"all\" or a list of nodes"),
    ({"nodes": [3, 3]}, "sweep.nodes: a node is listed twice"),
    ({"roads": "one"}, "sweep.roads: 'one' is not allowed; allowed: \"free\""),
    ({"settlement": [1, 2], "nodes": [20, 25]},
     "sweep.nodes: no two of these nodes obey the Distance Rule"),
])
def test_each_sweep_mistake_has_its_own_error(tmp_path, sweep, message):
    path = tmp_path / "exp.toml"
    with pytest.raises(CatansimError) as err:
        parse_experiment({"games": 5, "board": "beginner", "sweep": sweep}, path=path)
    msg = str(err.value)
    assert msg.startswith(f"{path}: ") and message in msg and "\n" not in msg


@pytest.mark.parametrize("data, message", [
    ({"layout": "beginner", "sweep": {"seat": 0}},
     "sweep: layout 'beginner' fixes every opening; allowed: board = \"beginner\""),
    ({"board": "beginner", "openings": {"seat0": [[20, -1]]},
      "sweep": {"seat": 0, "settlement": 1}},
     "sweep.settlement: seat 0's first settlement is forced by [openings]"),
    ({"board": "beginner", "openings": {"seat0": [[20, -1]]},
      "sweep": {"seat": 1, "nodes": [25]}},
     "sweep.nodes: seat 1 on node 25: openings seat 1 settlement 1: node 25 breaks the "
     "Distance Rule"),
    ({"board": "beginner", "sweep": []}, "sweep: an empty array"),
    ({"board": "beginner", "sweep": [{"seat": 0}, {"seat": 0, "nodes": [3]}]},
     "sweep[1]: arm seat0_first3 is already in sweep[0]"),
    ({"board": "beginner", "sweep": [3]}, "sweep[0]: expected a table, got an integer"),
    ({"board": "beginner", "variants": {"seat0_first3": {"rules": {"robber": "off"}}},
      "sweep": {"seat": 0}}, "sweep: arm seat0_first3 has the name of a variant"),
    ({"layout": "beginner", "board": "beginner"}, "board: layout 'beginner' already fixes"),
])
def test_sweep_conflicts_are_one_line_errors(data, message):
    with pytest.raises(CatansimError) as err:
        parse_experiment({"games": 5, **data})
    assert message in str(err.value) and "\n" not in str(err.value)


def test_forcing_the_strategys_own_choice_replays_the_baseline():
    """The pairing every opening value rests on: an arm differs from the baseline only by
    what it forces. Forcing each seat's first settlement onto the node the strategy
    chooses anyway (on a fixed board the scripted choice is the same in every game)
    gives identical games, bit for bit; another node gives other games."""
    exp = parse_experiment({"games": 60, "board": "beginner", "strategies": ["default"],
                            "batch_size": 60, "sweep": {"seat": "all"}})
    tasks = {t.variant: t for t in plan(exp)}
    games, players = compute_task(exp, tasks["baseline"])
    keys = [c for c in games.columns if c != "variant"]
    for seat in range(4):
        first = players.loc[players["seat"] == seat, "start_node_1"]
        assert first.nunique() == 1
        g, p = compute_task(exp, tasks[f"seat{seat}_first{int(first.iloc[0])}"])
        assert g[keys].equals(games[keys])
        assert p.drop(columns="variant").equals(players.drop(columns="variant"))
    g, p = compute_task(exp, tasks["seat0_first0"])
    assert (p.loc[p["seat"] == 0, "start_node_1"] == 0).all()
    assert not g["turns"].equals(games["turns"])


def test_the_study_experiment_files_load():
    from catansim.studies import openings as ST

    files = ST.STUDY.experiment_files()
    assert files
    total = 0
    for path in files:
        exp = load_experiment(path)
        assert len(exp.variants) > 1 and exp.games >= 80
        assert all(parse_arm(v) is not None for v in exp.variant_names[1:])
        boards = len(ST.BOARD_SEEDS) if path.stem == "boards" else 1
        total += boards * len(exp.variants) * exp.games
    assert total <= 4_000_000  # the study's game budget


@pytest.mark.parametrize("kind, nodes", [("corner", (3,)), ("first", (3, 4)), ("pair", (3,))])
def test_arm_name_refuses_what_is_not_an_arm(kind, nodes):
    with pytest.raises(CatansimError, match=r"^arm: kind .*; allowed: a kind in first, second, "
                                            r"pair"):
        arm_name(0, kind, nodes)
