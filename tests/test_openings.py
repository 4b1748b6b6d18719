"""The opening study's analyses against known answers, invariants and independent oracles.

- the paired comparison of wins equals scipy and statsmodels on the raw differences;
- a planted opening value is found, null arms are not flagged after correction;
- a dataset read part at a time equals the same analysis of the loaded frames;
- the nodes free at each seat's turn equal a direct Distance Rule count;
- cross-fitting picks on one half and measures on the other (a hand-made case);
- opening features equal the board metrics' per-node tables; the win model recovers a
  planted logistic model and calibrates on held-out groups; the seat interaction test
  finds a planted interaction and not an absent one.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
import scipy.stats as st

import catansim
from catansim.analysis import openings as AO
from catansim.analysis import stats as S
from catansim.board import beginner_board
from catansim.board.metrics import node_table
from catansim.results.arms import arm_name
from catansim.runs.experiment import parse_experiment
from catansim.runs.runner import run_experiment
from catansim.topology import NODE_NEIGHBOURS

BASE_NODES = {0: (10, 43), 1: (20, 33), 2: (30, 23), 3: (40, 13)}


def synthetic(n_games: int, arms: dict, base=(0.25, 0.25, 0.25, 0.25), seed: int = 0):
    """Frames of a sweep with one winner per game: the baseline's winner is drawn from
    ``base``; arm ``name -> (seat, node, delta)`` moves that seat's win probability by
    ``delta`` (the others scaled to keep the sum), drawn independently of the baseline."""
    rng = np.random.default_rng(seed)
    players = len(base)
    names = ["baseline", *arms]
    g_rows, p_rows = [], []
    for v in names:
        probs = np.array(base, dtype=float)
        nodes = {s: list(BASE_NODES[s]) for s in range(players)}
        if v != "baseline":
            seat, node, delta = arms[v]
            others = [s for s in range(players) if s != seat]
            rest = probs[others].sum()
            probs[seat] += delta
            probs[others] *= (1 - probs[seat]) / rest
            nodes[seat][0] = node
        winner = rng.choice(players, size=n_games, p=probs)
        for g in range(n_games):
            g_rows.append((v, g))
            for s in range(players):
                p_rows.append((v, g, s, winner[g] == s, nodes[s][0], nodes[s][1], 5 + s, 4))
    games = pd.DataFrame(g_rows, columns=["variant", "game"])
    players_ = pd.DataFrame(p_rows, columns=["variant", "game", "seat", "won", "start_node_1",
                                             "start_node_2", "start_pips_1", "start_pips_2"])
    cat = pd.CategoricalDtype(names)
    games["variant"] = games["variant"].astype(cat)
    players_["variant"] = players_["variant"].astype(cat)
    players_["seat"] = players_["seat"].astype(np.int8)
    return games, players_


def test_paired_binary_equals_scipy_and_statsmodels_on_the_raw_differences():
    from statsmodels.stats.contingency_tables import mcnemar
    from statsmodels.stats.proportion import confint_proportions_2indep

    rng = np.random.default_rng(3)
    for n in (40, 300, 5000):
        base = rng.random(n) < 0.3
        arm = np.where(rng.random(n) < 0.4, base, rng.random(n) < 0.45)
        d = arm.astype(int) - base.astype(int)
        r = AO.paired_binary([n], [(d == 1).sum()], [(d == -1).sum()],
                             [(arm & base).sum()]).iloc[0]
        ci = st.ttest_1samp(d, 0).confidence_interval(0.95)
        assert r["diff"] == pytest.approx(d.mean())
        assert (r["ci_low"], r["ci_high"]) == pytest.approx((ci.low, ci.high))
        h = S.compare_paired(S.Hist.of(d), S.Hist.of(base), S.Hist.of(arm))
        assert (r["ci_low"], r["ci_high"]) == pytest.approx((h["ci_low"], h["ci_high"]))
        b, c = int((d == -1).sum()), int((d == 1).sum())
        table = np.array([[0, b], [c, 0]])
        assert r["p_value"] == pytest.approx(mcnemar(table, exact=b + c < 25).pvalue)
        ulo, uhi = confint_proportions_2indep(arm.sum(), n, base.sum(), n, method="wald")
        assert (r["unpaired_ci_low"], r["unpaired_ci_high"]) == pytest.approx((ulo, uhi))


def test_a_planted_value_is_found_and_null_arms_are_not_flagged():
    arms = {arm_name(0, "first", [5]): (0, 5, 0.15)}
    arms.update({arm_name(0, "first", [n]): (0, n, 0.0) for n in range(6, 16)})
    arms.update({arm_name(2, "first", [n]): (2, n, -0.12 if n == 50 else 0.0)
                 for n in (47, 48, 50)})
    v = AO.opening_values(synthetic(3000, arms, seed=1))
    a = v["arms"]
    assert len(a) == len(arms) and set(a["kind"]) == {"first"}
    hit = a.loc["seat0_first5"]
    assert hit["significant"] and hit["ci_low"] < 0.15 < hit["ci_high"]
    assert hit["rank"] == 1 and hit["seat"] == 0 and hit["node"] == 5
    assert a.loc["seat2_first50", "significant"] and a.loc["seat2_first50", "diff"] < 0
    nulls = a.drop(index=["seat0_first5", "seat2_first50"])
    assert not nulls["significant"].any()
    assert (nulls["p_value"] > 0).all() and (nulls["p_adjusted"] >= nulls["p_value"]).all()
    # the forced seat's row of "effects" is the arm's; the other seats are there too
    e = v["effects"].loc["seat0_first5"]
    assert e.loc[0, "forced"] and not e.loc[1, "forced"]
    assert e.loc[0, "diff"] == pytest.approx(hit["diff"])
    assert e.loc[1:, "diff"].mean() < 0  # the others pay for seat 0's gain
    # tallies: exact seat-games and wins per variant, seat and opening
    t = v["tallies"].groupby(level=["variant", "seat"]).sum()
    assert (t["seat_games"] == 3000).all()
    assert t.loc[("seat0_first5", 0), "wins"] == hit["wins"]


@pytest.fixture(scope="module")
def sweep_dataset(tmp_path_factory):
    spec = {"name": "sw", "games": 60, "players": 4, "seed": 2, "batch_size": 25,
            "board": "beginner", "strategies": ["default", "builder", "city", "default"],
            "sweep": [{"seat": "all", "nodes": [0, 14, 28, 37, 44]},
                      {"seat": 2, "settlement": 2, "nodes": [8, 13]},
                      {"seat": 3, "settlement": [1, 2], "nodes": [28, 37, 44]}]}
    out = tmp_path_factory.mktemp("sw") / "ds"
    run_experiment(parse_experiment(spec), out=out, progress=False)
    return out


def test_part_at_a_time_equals_the_whole_frames(sweep_dataset):
    a = AO.opening_values(sweep_dataset)
    b = AO.opening_values(catansim.load(sweep_dataset))
    for key in ("arms", "effects", "tallies", "baseline", "halves"):
        pd.testing.assert_frame_equal(a[key], b[key], check_dtype=False, check_like=False)
    assert set(a["arms"]["kind"]) == {"first", "second", "pair"}
    assert (a["arms"]["n"] == 60).all()


def test_the_free_nodes_at_each_turn_follow_the_distance_rule(sweep_dataset):
    _, players = catansim.load(sweep_dataset)
    base = players[players["variant"] == "baseline"]
    v = AO.opening_values(sweep_dataset)["baseline"]
    legal = np.zeros((4, 2, 54), dtype=int)
    chosen = np.zeros((4, 2, 54), dtype=int)
    for _, g in base.groupby("game"):
        nodes = {(int(r.seat), 0): int(r.start_node_1) for r in g.itertuples()}
        nodes |= {(int(r.seat), 1): int(r.start_node_2) for r in g.itertuples()}
        placed = []
        for seat, k in AO.snake_order(4):
            blocked = set(placed) | {int(m) for n in placed for m in NODE_NEIGHBOURS[n] if m >= 0}
            for n in range(54):
                legal[seat, k, n] += n not in blocked
            chosen[seat, k, nodes[seat, k]] += 1
            placed.append(nodes[seat, k])
    for seat in range(4):
        for k, name in enumerate(("first", "second")):
            t = v.xs((seat, name), level=("seat", "settlement"))
            assert (t["legal"].to_numpy() == legal[seat, k]).all()
            assert (t["chosen"].to_numpy() == chosen[seat, k]).all()
    assert (v["games"] == 60).all()


def test_placement_picks_on_one_half_and_measures_on_the_other():
    """A hand-made case: node 1 looks best on the even games and node 2 on the odd ones, so
    the gain pools node 1 measured on the odd games and node 2 on the even games."""
    arms = pd.DataFrame({
        "seat": 0, "kind": "first", "node": [1, 2, 3], "diff": [0.05, 0.04, -0.1],
        "ci_low": [0.0, -0.01, -0.2], "ci_high": [0.1, 0.09, 0.0], "win_rate": [0.3, 0.29, 0.1],
        "base_win_rate": 0.25, "significant": [False, False, True], "legal_share": 1.0,
        "chosen_share": 0.0}, index=["seat0_first1", "seat0_first2", "seat0_first3"])
    # (n, only_arm, only_base, both) per half
    h = {("seat0_first1", 0): (100, 30, 10, 5), ("seat0_first1", 1): (100, 12, 14, 5),
         ("seat0_first2", 0): (100, 20, 12, 5), ("seat0_first2", 1): (100, 25, 9, 5),
         ("seat0_first3", 0): (100, 5, 20, 5), ("seat0_first3", 1): (100, 4, 22, 5)}
    halves = pd.DataFrame([(v, k, *c) for (v, k), c in h.items()],
                          columns=["variant", "half", "n", "only_arm", "only_base", "both"]
                          ).set_index(["variant", "half"])
    baseline = pd.DataFrame({"seat": 0, "settlement": "first", "node": range(54),
                             "chosen_share": [1.0 if n == 9 else 0.0 for n in range(54)]}
                            ).set_index(["seat", "settlement", "node"])
    p = AO.placement({"arms": arms, "halves": halves, "baseline": baseline,
                      "correction": "fdr_bh"}).loc[(0, "first")]
    assert p["selected_nodes"] == "1/2"  # even games pick node 1, odd games node 2
    # node 1 on the odd games (12 up, 14 down) and node 2 on the even ones (20 up, 12 down)
    d = np.r_[np.ones(12 + 20), -np.ones(14 + 12), np.zeros(200 - 58)]
    ci = st.ttest_1samp(d, 0).confidence_interval()
    assert p["gain"] == pytest.approx(d.mean())
    assert (p["gain_ci_low"], p["gain_ci_high"]) == pytest.approx((ci.low, ci.high))
    assert p["choice_node"] == 9 and p["rank"] == 3 and p["n_worse"] == 1
    assert p["best_node"] == 1 and p["best_diff"] == 0.05


def test_placement_of_a_planted_better_node():
    arms = {arm_name(1, "first", [n]): (1, n, 0.2 if n == 7 else 0.0) for n in (5, 6, 7, 8)}
    arms[arm_name(1, "first", [20])] = (1, 20, 0.0)  # the strategy's own node: worth 0
    v = AO.opening_values(synthetic(4000, arms, seed=4))
    p = AO.placement(v).loc[(1, "first")]
    assert p["choice_node"] == 20 and p["best_node"] == 7 and p["n_better"] == 1
    assert p["gain_ci_low"] < 0.2 < p["gain_ci_high"]
    # node 20's own arm is not an alternative, nor node 6: it touches seat 0's node 10,
    # so it was not free at seat 1's turn
    assert p["alternatives"] == 3
    assert v["arms"].loc["seat1_first6", "legal_share"] == 0


def test_the_summary_counts_and_the_stars_come_from_one_verdict(capsys):
    """``catansim openings`` printed "0 are significantly better" above a starred row: the
    count kept the nodes free at the seat's turn, the stars every significant arm. Both
    now read ``verdicts``: a planted better node that the earlier seat takes is starred
    apart (**) and named apart in the summary line."""
    from catansim.commands.openings import _print

    arms = {arm_name(1, "first", [n]): (1, n, 0.25 if n == 6 else 0.0) for n in (5, 6, 7)}
    arms[arm_name(1, "first", [20])] = (1, 20, 0.0)  # the strategy's own node
    v = AO.opening_values(synthetic(3000, arms, seed=5))
    judged = AO.verdicts(v)
    assert judged.loc["seat1_first6", "verdict"] == "better, not free"
    assert not judged.loc["seat1_first20", "free"] or judged.loc["seat1_first20", "choice"]
    assert set(judged["verdict"]) <= set(AO.VERDICTS)
    p = AO.placement(v).loc[(1, "first")]
    free = judged[judged["free"] & ~judged["choice"]]
    assert p["n_better"] == (free["verdict"] == "better").sum() == 0
    assert p["n_worse"] == (free["verdict"] == "worse").sum()
    _print(v, beginner_board(), [1], 10, 4)
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if re.match(r"\s+\d+\s", line)]
    assert len(rows) == 4
    single = [r for r in rows if re.search(r"\] \*(\s|$)", r)]
    double = [r for r in rows if "] **" in r]
    assert f"{int(p['n_better'])} are significantly better, {int(p['n_worse'])} worse" in out
    assert len(single) == p["n_better"] + p["n_worse"]
    assert len(double) == 1 and double[0].split()[0] == "6"
    assert "of the nodes not free at its turn, 1 better (** below)" in out


def test_opening_features_equal_the_board_metrics():
    board = beginner_board()
    nodes = node_table(board)
    from catansim.topology import HEX_NODES

    top, bottom = int(HEX_NODES[9, 0]), int(HEX_NODES[9, 3])  # opposite corners of hex 9
    pairs = pd.DataFrame({"start_node_1": [0, 28, 44, top, 3],
                          "start_node_2": [13, 8, 43, bottom, 9]})
    f = AO.opening_features(board, pairs)
    for i, (a, b) in enumerate(pairs.itertuples(index=False)):
        for r in ("wood", "brick", "wool", "wheat", "ore"):
            assert f.loc[i, f"pips_{r}"] == nodes.loc[a, f"pips_{r}"] + nodes.loc[b, f"pips_{r}"]
        assert f.loc[i, "pips"] == nodes.loc[a, "pips"] + nodes.loc[b, "pips"]
        res = [nodes.loc[a, f"pips_{r}"] + nodes.loc[b, f"pips_{r}"]
               for r in ("wood", "brick", "wool", "wheat", "ore")]
        assert f.loc[i, "min_income"] == min(res)
        assert f.loc[i, "n_resources"] == sum(x > 0 for x in res)
        shares = np.array(res) / sum(res)
        assert f.loc[i, "entropy"] == pytest.approx(st.entropy(shares, base=2))
        same = bool(set(nodes.loc[a, "hexes"]) & set(nodes.loc[b, "hexes"]))
        assert f.loc[i, "same_hex"] == same
        coast = sum(nodes.loc[n, "n_land"] < 3 for n in (a, b))
        assert f.loc[i, "coast"] == coast
        kinds = {nodes.loc[n, "harbor"] for n in (a, b)} - {None}
        assert f.loc[i, "harbor_any"] == ("3:1" in kinds or "any" in kinds)
    assert f.loc[3, "same_hex"] == 1 and f.loc[1, "same_hex"] == 0


def test_the_win_model_recovers_a_planted_logistic_model():
    rng = np.random.default_rng(7)
    rows = []
    beta = {"pips": 0.12, "min_income": 0.2, "same_hex": -0.4, "harbor_any": 0.0}
    for group in range(36):
        n = 150
        x = pd.DataFrame({"pips": rng.integers(8, 30, n), "min_income": rng.integers(0, 6, n),
                          "same_hex": rng.integers(0, 2, n), "harbor_any": rng.integers(0, 2, n),
                          "seat": rng.integers(0, 4, n)})
        eta = -4.0 + sum(beta[k] * x[k] for k in beta) + 0.1 * (x["seat"] == 3)
        p = 1 / (1 + np.exp(-eta))
        x["seat_games"] = 400
        x["wins"] = rng.binomial(400, p)
        x["group"] = group
        rows.append(x)
    rows = pd.concat(rows, ignore_index=True)
    test = (rows["group"] % 3 == 0).to_numpy()
    m = AO.fit_opening_model(rows, list(beta), test=test)
    c = m["coefficients"]
    for k, b in beta.items():
        assert c.loc[k, "ci_low"] < b < c.loc[k, "ci_high"], k
    assert c.loc["harbor_any", "p_value"] > 0.01
    assert (c["clusters"] == 24).all() and c["n"].iloc[0] == 400 * 150 * 24
    cal = m["calibration"]
    assert cal.loc["held out", "seat_games"] == 400 * 150 * 12
    assert cal.loc["held out", "brier"] < cal.loc["held out", "brier_base_rate"]
    rel = m["reliability"]
    assert rel["n"].sum() == 400 * 150 * 12 and len(rel) == 10
    inside = (rel["ci_low"] <= rel["mean_predicted"]) & (rel["mean_predicted"] <= rel["ci_high"])
    assert inside.mean() >= 0.7  # calibrated: the predictions fall in the observed intervals


def test_the_seat_interaction_test_finds_a_planted_interaction_only():
    rng = np.random.default_rng(11)

    def arms(interaction: float):
        rows = []
        node_effect = rng.normal(0, 0.6, 30)
        for seat in range(4):
            for node in range(30):
                eta = -1.2 + node_effect[node] + 0.1 * seat + (
                    interaction * (node % 2) * (seat == 3))
                wins = rng.binomial(3000, 1 / (1 + np.exp(-eta)))
                rows.append({"seat": seat, "kind": "first", "node": node, "n": 3000,
                             "wins": wins, "win_rate": wins / 3000,
                             "diff": wins / 3000 - 0.25, "base_win_rate": 0.25})
        t = pd.DataFrame(rows)
        t["win_ci_low"], t["win_ci_high"] = S.wilson_ci(t["wins"], t["n"])
        t["ci_low"], t["ci_high"] = t["diff"] - 0.02, t["diff"] + 0.02
        return t

    null = AO.seat_interaction(arms(0.0))
    planted = AO.seat_interaction(arms(0.5))
    assert null["test"]["df"].iloc[0] == 29 * 3
    assert null["test"]["p_value"].iloc[0] > 0.001
    assert planted["test"]["p_value"].iloc[0] < 1e-6
    assert planted["test"]["interaction_sd"].iloc[0] > null["test"]["interaction_sd"].iloc[0]
    rho = null["correlation"]
    assert rho.loc[0, 0] == 1 and rho.loc[0, 3] > 0.8 and (rho["n"] == 30).all()


def test_games_for_value_is_the_paired_power():
    from statsmodels.stats.power import TTestPower

    n = TTestPower().solve_power(effect_size=0.05 / 0.62, alpha=0.05, power=0.8)
    assert AO.games_for_value(0.05, 0.62) == int(np.ceil(n))


def test_the_module_imports_no_engine_runner_or_matplotlib():
    import subprocess
    import sys

    code = ("import sys, catansim.analysis.openings; "
            "bad = [m for m in ('matplotlib', 'catansim.engine', 'catansim.runs', "
            "'catansim.plotting', 'catansim.reports') if m in sys.modules]; "
            "print(bad); sys.exit(1 if bad else 0)")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr
