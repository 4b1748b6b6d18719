"""Study seats-and-boards: board sets, the fairness index and the balanced layout, the
seat-order and board-balance analyses (against scipy / statsmodels, planted effects,
part-at-a-time = whole), the study end to end and ``catansim board --fairness``."""

from __future__ import annotations

import dataclasses
import re
import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest

import catansim
from catansim import topology as T
from catansim.analysis import board_balance as BB
from catansim.analysis import seat_order as SO
from catansim.board import Board, beginner_board, generate_vectors, make_board
from catansim.board import fairness as F
from catansim.board.metrics import hex_pairs, node_table
from catansim.cli import main
from catansim.core import layout as L
from catansim.engine import batch_seeds, play_batch, play_game
from catansim.errors import CatansimError, CatansimWarning
from catansim.runs.experiment import parse_experiment
from catansim.runs.runner import run_experiment
from catansim.settings import GameSettings

BOARD_SET = {"name": "bs", "games": 120, "players": 4, "seed": 3, "batch_size": 50,
             "strategies": ["default", "army", "builder", "city"], "rotate": True,
             "boards": {"games_per_board": 20, "seed": 5, "dice": "shared"}}


# --- board sets -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def board_set(tmp_path_factory):
    out = tmp_path_factory.mktemp("bs") / "bs"
    run_experiment(parse_experiment(BOARD_SET), out=out, progress=False)
    return out


def test_a_board_set_plays_each_board_with_the_same_dice(board_set):
    games, players = catansim.load(board_set)
    ids = [make_board("variable", int(s)).board_id for s in batch_seeds(5, 6)]
    assert (games["board_id"].to_numpy() == np.repeat(ids, 20)).all()
    assert (games["seed"].to_numpy() == np.tile(batch_seeds(3, 20), 6)).all()
    # the features are the board's own (not the first board's, repeated)
    feats = pd.DataFrame(catansim.board.metrics.board_features(
        np.stack([make_board("variable", int(s)).vector for s in batch_seeds(5, 6)])))
    assert (games["pips_wood"].to_numpy() == np.repeat(feats["pips_wood"], 20)).all()
    # a game replays alone on its board with its seed and its seating
    g = games.iloc[47]
    board = make_board("variable", int(batch_seeds(5, 1, 47 // 20)[0]))
    strategies = tuple(games.loc[47, [f"strategy_{s}" for s in range(4)]].astype(str))
    alone = play_game(int(g["seed"]), strategies=strategies, board=board, log=False)
    assert alone.winner == (None if pd.isna(g["winner"]) else int(g["winner"]))
    assert alone.turns == int(g["turns"])


def test_a_board_set_does_not_depend_on_the_batch_size(board_set, tmp_path):
    other = dict(BOARD_SET, batch_size=37)
    run_experiment(parse_experiment(other), out=tmp_path / "b", progress=False)
    g1, p1 = catansim.load(board_set)
    g2, p2 = catansim.load(tmp_path / "b")
    pd.testing.assert_frame_equal(g1, g2)
    pd.testing.assert_frame_equal(p1, p2)


def test_independent_dice_give_every_game_its_own_seed(tmp_path):
    spec = dict(BOARD_SET, boards={"games_per_board": 10, "dice": "independent"},
                strategies=["default"], rotate=False, games=30)
    run_experiment(parse_experiment(spec), out=tmp_path / "i", progress=False)
    games, _ = catansim.load(tmp_path / "i")
    assert (games["seed"].to_numpy() == batch_seeds(3, 30)).all()
    assert games["board_id"].nunique() == 3


@pytest.mark.parametrize("boards,extra,message", [
    ({"games_per_board": 7}, {}, "games: 120 is not a multiple of boards.games_per_board (7)"),
    ({"games_per_board": 20, "dice": "same"}, {}, "boards.dice: 'same' is not allowed "
                                                   "(did you mean 'shared'?); allowed: "
                                                   "independent, shared"),
    ({"games_per_board": 20, "colour": 1}, {}, "boards.colour: unknown key"),
    ({"seed": 3}, {}, "boards.games_per_board: missing"),
    ({"games_per_board": 20}, {"layout": "beginner"}, "boards: boards are dealt by a seeded "
                                                      "layout"),
    ({"games_per_board": 20}, {"board": "variable:4"}, "boards: board already fixes one board"),
])
def test_board_set_mistakes_have_one_line_errors(boards, extra, message):
    with pytest.raises(CatansimError) as err:
        parse_experiment(dict(BOARD_SET, boards=boards, **extra))
    assert message in str(err.value) and "\n" not in str(err.value)


def test_games_override_must_fit_the_board_set():
    exp = parse_experiment(BOARD_SET)
    with pytest.raises(CatansimError, match="--games: 30 is not a multiple"):
        exp.with_overrides(games=30)
    assert exp.with_overrides(games=40).n_boards == 2
    key = exp.result_key()
    assert key["boards"] == {"games_per_board": 20, "seed": 5, "dice": "shared"}
    assert "boards" not in parse_experiment({"games": 5}).result_key()


# --- the fairness index and the balanced layout -------------------------------------------------


def _engine_openings(board: Board, n: int) -> np.ndarray:
    res = play_batch(np.array([1]), GameSettings(n_players=n, strategies=("default",) * n,
                                                 layout="given", board=board))
    nodes = L.counter(res.counters[0], "c_start_nodes")[:2 * n]
    return nodes.reshape(n, 2)


@pytest.mark.parametrize("n", [3, 4])
def test_the_reference_draft_is_the_engines_default_set_up(n):
    for s in batch_seeds(11, 60):
        board = make_board("variable", int(s))
        assert (F.fairness(board, n).draft == _engine_openings(board, n)).all()


def test_opening_features_from_the_board_tables():
    """Each seat's features recomputed from ``board.metrics.node_table`` (pandas)."""
    for s in batch_seeds(12, 15):
        board = make_board("variable", int(s))
        fair = F.fairness(board, 4)
        nodes = node_table(board)
        picked = set(fair.draft.ravel().tolist())
        closed = picked | {int(m) for p in picked for m in T.NODE_NEIGHBOURS[p] if m >= 0}
        for seat, (a, b) in enumerate(fair.draft):
            got = fair.features.loc[seat]
            both = nodes.loc[[a, b]]
            for r in catansim.constants.RESOURCE_NAMES:
                assert got[f"pips_{r}"] == both[f"pips_{r}"].sum()
            res = [got[f"pips_{r}"] for r in catansim.constants.RESOURCE_NAMES]
            assert got["kinds"] == sum(v > 0 for v in res)
            assert got["numbers"] == len({x for t in both["numbers"] for x in t})
            assert got["harbors"] == both["harbor"].notna().sum()
            assert got["wood_brick"] == min(res[0], res[1])
            assert got["wheat_ore"] == min(res[3], res[4])
            spots = {int(m2) for nd in (a, b) for m1 in T.NODE_NEIGHBOURS[nd] if m1 >= 0
                     for m2 in T.NODE_NEIGHBOURS[m1] if m2 >= 0 and m2 != nd
                     and m2 not in closed}
            assert got["expansion_spots"] == len(spots)
            assert got["expansion_best"] == max([nodes.loc[m, "pips"] for m in spots],
                                                default=0)


@pytest.mark.parametrize("n", [3, 4])
def test_the_index_is_its_model_applied_to_the_features(n):
    coef = F.coefficients(n)
    for s in batch_seeds(13, 10):
        fair = F.fairness(make_board("variable", int(s)), n)
        x = fair.features.to_numpy(float)
        rel = x - x.mean(axis=0)
        pred = coef.iloc[:n].to_numpy() + rel @ coef.iloc[n:].to_numpy()
        assert np.allclose(pred, fair.predicted)
        assert np.isclose(fair.index, np.sqrt(np.mean((pred - 1 / n) ** 2)))


def test_the_balanced_layout_keeps_only_boards_under_the_threshold():
    seeds = batch_seeds(14, 40)
    v = generate_vectors("balanced", seeds)
    idx = F.fairness_indices(v, 4)
    assert (idx <= F.BALANCED_MAX_SPREAD).all()
    var = F.fairness_indices(generate_vectors("variable", batch_seeds(14, 400)), 4)
    assert 0.05 < np.mean(var <= F.BALANCED_MAX_SPREAD) < 0.5  # some variable boards fail
    for s, row in zip(seeds[:5], v[:5], strict=True):
        b = Board.from_vector(row)  # valid 6th-edition boards
        g = play_game(int(s), strategies=["default"] * 4, layout="balanced", log=False)
        assert g.board == b and make_board("balanced", int(s)) == b


def test_balance_measures_against_the_board_tables():
    boards = [beginner_board()] + [make_board("random_numbers", int(s))
                                   for s in batch_seeds(15, 5)]
    m = F.balance_measures(boards)
    for i, b in enumerate(boards):
        pairs = hex_pairs(b)
        pips = np.array(catansim.constants.PIPS)
        assert m["pip_clustering"][i] == (pips[pairs["number_a"]] * pips[pairs["number_b"]]).sum()
        assert m["hot_intersections"][i] == (node_table(b)["pips"] >= 11).sum()
    # the beginner map: reds 6 (hills, fields), 8 (mountains, forest): one per resource
    assert m["reds_on_one_resource"][0] == 1


# --- seat order -------------------------------------------------------------------------------


def test_contrast_and_hotelling_equal_statsmodels_on_raw_values():
    from statsmodels.stats.multivariate import test_mvmean
    from statsmodels.stats.weightstats import DescrStatsW

    rng = np.random.default_rng(1)
    x = rng.integers(0, 3, size=(500, 4))
    m = SO.moments_of(x)
    c = np.array([1.0, -0.5, 0.25, 0.0])
    r = SO.contrast(m, c)
    d = DescrStatsW(x @ c)
    lo, hi = d.tconfint_mean()
    assert np.isclose(r["estimate"], d.mean) and np.isclose(r["ci_low"], lo)
    assert np.isclose(r["ci_high"], hi) and np.isclose(r["p_value"], d.ttest_mean(0)[1])
    cm = np.array([[1, -1, 0, 0], [0, 1, -1, 0], [0, 0, 1, -1]], dtype=float)
    h = SO.hotelling(m, cm)
    ref = test_mvmean(x @ cm.T, 0)
    assert np.isclose(h["f"], ref.statistic) and np.isclose(h["p_value"], ref.pvalue)


def _order_frames(rng, games: int, pick=(0.1, 0, 0, 0), turn=(0, 0, 0, 0), n: int = 4):
    """Synthetic games of the variants first_turn 0..n-1: the winner drawn with weights
    exp(pick[s] + turn[(s - f) % n])."""
    grows, prows = [], []
    for f in range(n):
        v = "baseline" if f == 0 else f"turn{f}"
        for g in range(games):
            w = np.exp(np.array([pick[s] + turn[(s - f) % n] for s in range(n)]))
            win = int(rng.choice(n, p=w / w.sum()))
            grows.append({"variant": v, "game": g, "winner": win})
            prows += [{"variant": v, "game": g, "seat": s, "strategy": "default",
                       "won": s == win} for s in range(n)]
    games_f = pd.DataFrame(grows).astype({"variant": "category"})
    players = pd.DataFrame(prows).astype({"variant": "category", "strategy": "category"})
    return games_f, players, {("baseline" if f == 0 else f"turn{f}"): f for f in range(n)}


def test_order_effects_find_a_planted_pick_effect_and_no_turn_effect():
    rng = np.random.default_rng(2)
    g, p, ft = _order_frames(rng, 3000, pick=(0.4, 0, 0, 0))
    r = SO.order_effects((g, p), first_turn=ft)
    eff = r["effects"]
    assert eff.loc[("pick", 0), "significant"]
    assert not eff.xs("turn", level="factor")["significant"].any()
    tests = r["tests"]
    assert tests["significant"].tolist() == [True, False, False]
    # the standard game's seat-0 advantage splits exactly into its parts
    c = r["contrasts"]["estimate"]
    total = c["standard game: seat 0 win rate minus 1 / players"]
    parts = [k for k in c.index if k.startswith("  ")]
    assert np.isclose(total, c[parts].sum())


def test_order_effects_find_a_planted_turn_effect():
    rng = np.random.default_rng(3)
    g, p, ft = _order_frames(rng, 3000, pick=(0, 0, 0), turn=(0.4, 0, 0), n=3)
    r = SO.order_effects((g, p), first_turn=ft)
    assert r["effects"].loc[("turn", 0), "significant"]
    assert not r["effects"].xs("pick", level="factor")["significant"].any()
    # cell (pick i, turn j): the planted rates
    w = np.exp(np.array([0.4, 0, 0]))
    want = w[0] / w.sum()
    assert abs(r["cells"].loc[(1, 0), "win_rate"] - want) < 0.03


def test_order_effects_need_every_first_turn():
    rng = np.random.default_rng(4)
    g, p, ft = _order_frames(rng, 50)
    keep = g["variant"] != "turn2"
    with pytest.raises(CatansimError, match="no variant with first_turn 2"):
        SO.order_effects((g[keep], p[p["variant"] != "turn2"]), first_turn=ft)


def test_rotations_pool_every_strategy_through_every_seat():
    rng = np.random.default_rng(5)
    names = ["a", "b", "c"]
    grows, prows = [], []
    for r_ in range(3):
        v = "baseline" if r_ == 0 else f"rot{r_}"
        for g in range(4000):
            seats = [names[(s - r_) % 3] for s in range(3)]
            w = np.array([(1.5 if s == 0 else 1.0) * (2.0 if seats[s] == "a" else 1.0)
                          for s in range(3)])
            win = int(rng.choice(3, p=w / w.sum()))
            grows.append({"variant": v, "game": g})
            prows += [{"variant": v, "game": g, "seat": s, "strategy": seats[s],
                       "won": s == win} for s in range(3)]
    games = pd.DataFrame(grows).astype({"variant": "category"})
    players = pd.DataFrame(prows).astype({"variant": "category", "strategy": "category"})
    res = SO.rotation_seats((games, players))
    seats = res["seats"]
    assert (seats["deals"] == 4000).all()
    assert seats.loc[0, "ci_low"] > 1 / 3 and seats.loc[1, "ci_high"] < 1 / 3
    assert res["test"]["p_value"].iloc[0] < 1e-6
    cells = res["cells"]
    assert (cells["games"] == 4000).all() and len(cells) == 9
    # seat 0 with strategy a: weights 3 against 1 and 1
    assert abs(cells.loc[(0, "a"), "win_rate"] - 0.6) < 0.03


def _factor_frames(rng, games: int, n: int = 4, seat=None, pick=None, turn=None):
    """Synthetic games of the n² variants first_pick x first_turn on the same deals: the
    winner drawn with weights exp(seat[s] + pick[(s - fp) % n] + turn[(s - ft) % n])."""
    seat, pick, turn = (np.zeros(n) if x is None else np.asarray(x, float)
                        for x in (seat, pick, turn))
    grows, prows, orders = [], [], {}
    for fp in range(n):
        for ft in range(n):
            v = "baseline" if fp == ft == 0 else f"p{fp}t{ft}"
            orders[v] = (fp, ft)
            lin = np.array([seat[s] + pick[(s - fp) % n] + turn[(s - ft) % n] for s in range(n)])
            w = np.exp(lin) / np.exp(lin).sum()
            wins = rng.choice(n, size=games, p=w)
            grows += [{"variant": v, "game": g, "winner": int(x)} for g, x in enumerate(wins)]
            prows += [{"variant": v, "game": g, "seat": s, "strategy": "default",
                       "won": s == x} for g, x in enumerate(wins) for s in range(n)]
    games_f = pd.DataFrame(grows).astype({"variant": "category"})
    players = pd.DataFrame(prows).astype({"variant": "category", "strategy": "category"})
    return games_f, players, orders


def test_three_factors_find_a_planted_pick_effect_and_seats_equivalent():
    rng = np.random.default_rng(5)
    g, p, orders = _factor_frames(rng, 1500, pick=(0.4, 0, 0, 0))
    r = SO.factor_effects((g, p), orders=orders, margin=0.03)
    eff = r["effects"]
    assert eff.loc[("pick", 0), "significant"] and eff.loc[("pick", 0), "effect"] > 0.04
    assert not eff.xs("seat", level="factor")["significant"].any()
    assert not eff.xs("turn", level="factor")["significant"].any()
    assert r["equivalence"]["all_equivalent"].all()
    assert r["tests"]["significant"].tolist() == [False, True, False, False]
    c = r["contrasts"]["estimate"]
    total = c["standard game: seat 0 win rate minus 1 / players"]
    assert np.isclose(total, c[[k for k in c.index if k.startswith("  ")]].sum())


def test_three_factors_find_a_planted_seat_index_effect():
    rng = np.random.default_rng(6)
    g, p, orders = _factor_frames(rng, 1500, n=3, seat=(0, 0.3, 0), turn=(0.2, 0, 0))
    r = SO.factor_effects((g, p), orders=orders, margin=0.01)
    eff = r["effects"]
    assert eff.loc[("seat", 1), "significant"] and eff.loc[("turn", 0), "significant"]
    # no pick effect planted: within 5 standard errors of 0
    assert (eff.xs("pick", level="factor")["effect"].abs() < 0.02).all()
    assert not r["equivalence"].loc[1, "equivalent"]
    assert not r["equivalence"]["all_equivalent"].any()


def test_three_factors_equal_a_cluster_robust_linear_probability_model():
    """The effects are the coefficients of a linear probability model with the three
    factors (sum coding, statsmodels OLS, cluster-robust by deal), and the TOST equals
    statsmodels' on the per-deal values."""
    import statsmodels.formula.api as smf
    from statsmodels.stats.weightstats import DescrStatsW

    rng = np.random.default_rng(7)
    n = 3
    g, p, orders = _factor_frames(rng, 400, n=n, pick=(0.3, 0, 0), turn=(0, 0.2, 0))
    r = SO.factor_effects((g, p), orders=orders, margin=0.02)
    long = p.assign(fp=p["variant"].map(lambda v: orders[v][0]).astype(int),
                    ft=p["variant"].map(lambda v: orders[v][1]).astype(int))
    long["pick"] = (long["seat"] - long["fp"]) % n
    long["turn"] = (long["seat"] - long["ft"]) % n
    long["y"] = long["won"].astype(float)
    fit = smf.ols("y ~ C(seat, Sum) + C(pick, Sum) + C(turn, Sum)", long).fit(
        cov_type="cluster", cov_kwds={"groups": long["game"].to_numpy()})
    for factor in ("seat", "pick", "turn"):
        for pos in range(n - 1):
            term = f"C({factor}, Sum)[S.{pos}]"
            row = r["effects"].loc[(factor, pos)]
            assert np.isclose(row["effect"], fit.params[term])
            se = (row["ci_high"] - row["ci_low"]) / 2 / 1.966
            assert np.isclose(se, fit.bse[term], rtol=0.02)
    y = SO.factor_cells({v: np.stack([long.loc[(long["variant"] == v) & (long["seat"] == s),
                                                "won"].to_numpy() for s in range(n)], axis=1)
                         for v in orders}, orders, n).astype(float)
    d = y[:, 0].mean(axis=(1, 2)) - y.mean(axis=(1, 2, 3))
    p_ref = DescrStatsW(d).ttost_mean(-0.02, 0.02)[0]
    assert np.isclose(r["equivalence"].loc[0, "p_value"], p_ref)


def test_three_factors_need_every_pair_of_first_pick_and_first_turn():
    rng = np.random.default_rng(8)
    g, p, orders = _factor_frames(rng, 20, n=3)
    keep = g["variant"] != "p2t1"
    with pytest.raises(CatansimError, match="first_pick 2 and first_turn 1"):
        SO.factor_effects((g[keep], p[p["variant"] != "p2t1"]), orders=orders)


def test_seat_order_part_by_part_equals_the_whole(tmp_path):
    spec = {"name": "o", "games": 90, "players": 3, "seed": 4, "batch_size": 40,
            "strategies": ["default"],
            "variants": {"turn1": {"rules": {"first_turn": 1}},
                         "turn2": {"rules": {"first_turn": 2}}}}
    run_experiment(parse_experiment(spec), out=tmp_path / "o", progress=False)
    a = SO.order_effects(tmp_path / "o")
    b = SO.order_effects(catansim.load(tmp_path / "o"),
                         first_turn={"baseline": 0, "turn1": 1, "turn2": 2})
    for k in a:
        pd.testing.assert_frame_equal(a[k], b[k])


# --- board balance ----------------------------------------------------------------------------


def _per_board_counts(rates: np.ndarray, games: int, rng) -> pd.DataFrame:
    """A per_board table from multinomial draws with the given per-board seat rates."""
    nb, n = rates.shape
    # the two halves are independent games: each its own multinomial draw
    h0 = np.stack([rng.multinomial(games // 2, r) for r in rates])
    wins = h0 + np.stack([rng.multinomial(games - games // 2, r) for r in rates])
    t = pd.DataFrame({"board_id": np.arange(nb), "first_game": np.arange(nb) * games,
                      "n_players": n, "games": games, "decided": games,
                      "turns_sum": 70 * games, "turns_sq": 4975 * games,
                      "games_h0": games // 2, "turns_sum_h0": 70 * (games // 2)})
    for s in range(n):
        t[f"wins_{s}"] = wins[:, s]
        t[f"wins_{s}_h0"] = h0[:, s]
    return BB.board_table(t.assign(variant="baseline").set_index(["variant", "board_id"]))


def test_board_variance_recovers_a_planted_between_board_variance():
    rng = np.random.default_rng(6)
    nb, n = 3000, 4
    noise = rng.normal(0, 0.08, size=(nb, n))
    rates = np.clip(0.25 + noise - noise.mean(axis=1, keepdims=True), 0.01, None)
    rates /= rates.sum(axis=1, keepdims=True)
    t = _per_board_counts(rates, 100, rng)
    v = BB.board_variance(t).xs("baseline", level="variant")
    for s in range(n):
        true = float(np.var(rates[:, s]))
        row = v.loc[f"seat_{s}"]
        assert row["between_ci_low"] < true < row["between_ci_high"]
    # the unbiased spread: the truth's RMS, within the interval
    true_rms = np.sqrt(np.mean((rates - 0.25) ** 2))
    assert v.loc["spread", "ci_low"] < true_rms < v.loc["spread", "ci_high"]


def test_board_variance_finds_none_when_every_board_is_the_same():
    rng = np.random.default_rng(7)
    rates = np.tile([0.28, 0.24, 0.24, 0.24], (2000, 1))
    t = _per_board_counts(rates, 100, rng)
    v = BB.board_variance(t).xs("baseline", level="variant")
    for s in range(4):
        assert v.loc[f"seat_{s}", "between_ci_low"] < 0 < v.loc[f"seat_{s}", "between_ci_high"]
    assert t["unfair"].mean() < 0.02  # BH over the boards: almost no false verdicts


def test_the_two_way_anova_matches_statsmodels():
    import statsmodels.formula.api as smf
    from statsmodels.stats.anova import anova_lm

    rng = np.random.default_rng(8)
    nb, nd = 12, 9
    y = (rng.normal(0, 1.0, (nb, 1)) + rng.normal(0, 0.5, (1, nd))
         + rng.normal(0, 0.7, (nb, nd)))
    vb, vd, vr = BB._two_way(y[None])
    df = pd.DataFrame({"y": y.ravel(), "b": np.repeat(np.arange(nb), nd),
                       "d": np.tile(np.arange(nd), nb)})
    a = anova_lm(smf.ols("y ~ C(b) + C(d)", df).fit())
    ms = a["sum_sq"] / a["df"]
    assert np.isclose(vr[0], ms["Residual"])
    assert np.isclose(vb[0], (ms["C(b)"] - ms["Residual"]) / nd)
    assert np.isclose(vd[0], (ms["C(d)"] - ms["Residual"]) / nb)


def _crossed(rng, nb, nd, board_sd, dice_sd, rest_sd, seat_effect):
    rows = []
    bo = rng.normal(0, board_sd, (4, nb))
    di = rng.normal(0, dice_sd, (4, nd))
    for s in range(4):
        y = seat_effect[s] + bo[s][:, None] + di[s][None, :] + rng.normal(0, rest_sd, (nb, nd))
        for b in range(nb):
            for d in range(nd):
                rows.append(("baseline", b, d, s, "x", y[b, d]))
    return pd.DataFrame(rows, columns=["variant", "board_id", "seed", "seat", "strategy", "y"])


def test_the_luck_budget_recovers_planted_components():
    rng = np.random.default_rng(9)
    t = _crossed(rng, 60, 50, board_sd=1.0, dice_sd=0.5, rest_sd=1.5,
                 seat_effect=[0.6, 0.0, -0.3, -0.3])
    lb = BB.luck_table(t, "vp")
    truth = {"board": 1.0, "game seed": 0.25, "board x game seed": 2.25,
             "seat": np.mean(np.square([0.6, 0.0, -0.3, -0.3]))}
    for k, v in truth.items():
        assert lb.loc[k, "ci_low"] <= v <= lb.loc[k, "ci_high"] * 1.05, k
    assert np.isclose(lb["share"].sum(), 1.0)
    null = BB.luck_table(_crossed(rng, 40, 40, 0.0, 0.0, 1.0, [0, 0, 0, 0]), "vp")
    assert null.loc["board", "ci_low"] == 0 and null.loc["game seed", "ci_low"] == 0


def test_the_luck_budget_needs_a_crossed_design(board_set, tmp_path):
    spec = dict(BOARD_SET, rotate=False, games=60,
                boards={"games_per_board": 10, "seed": 5, "dice": "shared"})
    run_experiment(parse_experiment(spec), out=tmp_path / "x", progress=False)
    lb = BB.luck_budget(tmp_path / "x")
    assert lb["boards"].iloc[0] == 6 and lb["seeds"].iloc[0] == 10 and lb["cells"].iloc[0] == 4
    with pytest.raises(CatansimError, match="seats rotated within the variant"):
        BB.luck_budget(board_set)  # rotate = true: a seat changes strategy game by game
    with pytest.raises(CatansimError, match="needs every board with every game seed"):
        BB.luck_table(pd.DataFrame({"variant": "b", "board_id": [1, 1, 2], "seed": [1, 2, 1],
                                    "seat": 0, "strategy": "x", "y": [1, 0, 1]}))


def test_board_regression_finds_a_planted_feature_and_not_a_null_one():
    rng = np.random.default_rng(10)
    nb = 1500
    x = rng.normal(size=nb)
    z = rng.normal(size=nb)
    adv = 0.04 * x
    rates = np.stack([0.25 + adv, 0.25 - adv / 3, 0.25 - adv / 3, 0.25 - adv / 3], axis=1)
    t = _per_board_counts(rates, 200, rng)
    feats = pd.DataFrame({"planted": x, "null": z}, index=pd.Index(np.arange(nb),
                                                                  name="board_id"))
    reg = BB.board_regression(t, feats, targets=("seat0_advantage",),
                              feature_names=["planted", "null"])
    c = reg["coefficients"].xs("seat0_advantage", level="target")
    assert c.loc["planted", "significant"] and not c.loc["null", "significant"]
    truth = 0.04 * x.std(ddof=1)  # per standard deviation of the feature
    se = (c.loc["planted", "ci_high"] - c.loc["planted", "ci_low"]) / (2 * 1.96)
    assert abs(c.loc["planted", "coef"] - truth) < 4 * se
    fit = reg["fit"].loc["seat0_advantage"]
    # chance at 200 games hides part of the planted variance: r2 near the reliability
    assert 0.5 * fit["reliability"] < fit["r2_cv"] <= fit["reliability"] + 0.05


def test_per_board_part_by_part_equals_the_whole(board_set):
    a = BB.per_board(board_set)
    b = BB.per_board(catansim.load(board_set))
    pd.testing.assert_frame_equal(a, b)
    assert (a["games"] == 20).all() and len(a) == 6
    r = a.iloc[0]
    assert np.isclose(sum(r[f"win_rate_{s}"] for s in range(4)), r["decided"] / r["games"])


def test_the_scalar_index_is_checked_against_an_intercept_only_baseline():
    rng = np.random.default_rng(9)

    def boards(k):
        index = rng.uniform(0.01, 0.1, k)
        return pd.DataFrame({"board_id": np.arange(k), "index": index, "games": 100,
                             "rms2": 0.005 + 0.1 * index + rng.normal(0, 0.004, k)})

    train, test = boards(2000), boards(500)
    f = BB.index_fit(train, test)
    truth = 1 - 0.004 ** 2 / np.var(0.1 * test["index"] + (test["rms2"] - 0.1 * test["index"]))
    assert abs(f.loc["index, calibrated", "r2"] - truth) < 0.05
    assert f.loc["intercept only", "r2"] <= 0.0 and f.loc["intercept only", "r2_ci_high"] < 0.02
    assert np.isclose(f.loc["index, calibrated", "r"], np.corrcoef(test["index"],
                                                                  test["rms2"])[0, 1])
    lo, hi = f.loc["index, calibrated", ["r_ci_low", "r_ci_high"]]
    assert lo < f.loc["index, calibrated", "r"] < hi
    # index² as is misses the level (rms2 is 0.005 + 0.1 x index, not index²)
    assert f.loc["index as is", "r2"] < 0
    bands = BB.index_bands(test.assign(held_out=True))
    assert bands["boards"].sum() == len(test)
    assert (bands["q10"] <= bands["q50"]).all() and (bands["q50"] <= bands["q90"]).all()
    assert bands["spread"].is_monotonic_increasing


def test_the_seat_model_is_fitted_and_checked_on_other_boards():
    rng = np.random.default_rng(11)
    boards = generate_vectors("variable", batch_seeds(16, 400))
    ids = catansim.board.board_ids(boards)
    draft = F.draft_table(boards, 4, ids)
    pred = draft["predicted"].to_numpy().reshape(-1, 4)
    pred = np.clip(pred, 0.02, None)
    pred /= pred.sum(axis=1, keepdims=True)
    t = _per_board_counts(pred, 400, rng).reset_index()
    t["board_id"] = ids
    t = t.set_index(["variant", "board_id"])
    fit = BB.fit_seat_model(t, draft, F.OPENING_FEATURES)
    assert fit["coefficients"]["boards"].iloc[0] == 320
    # the rates were made from the index: its model is found again
    coef = fit["coefficients"]
    ok = [(lo <= v <= hi) for v, lo, hi in zip(F.coefficients(4), coef["ci_low"],
                                                 coef["ci_high"], strict=True)]
    assert np.mean(ok) > 0.8
    s = fit["check"]["summary"].iloc[0]
    assert s["r2"] > 0.5 * s["reliability"] and s["index_spread_corr"] > 0.3


def test_a_rank_deficient_seat_model_says_so():
    """Two features equal on every seat (a linear combination): the fit cannot separate
    them, so its method and a warning say the coefficients are not unique; a full-rank
    fit says nothing of the kind."""
    import warnings

    rng = np.random.default_rng(12)
    boards = generate_vectors("variable", batch_seeds(17, 60))
    ids = catansim.board.board_ids(boards)
    draft = F.draft_table(boards, 4, ids)
    t = _per_board_counts(np.full((len(ids), 4), 0.25), 50, rng).reset_index()
    t["board_id"] = ids
    t = t.set_index(["variant", "board_id"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # neither statsmodels' nor ours
        full = BB.fit_seat_model(t, draft, ["pips_wood", "kinds"])
    assert "rank" not in full["coefficients"]["method"].iloc[0]
    draft["twin"] = draft["kinds"] * 2.0
    said = r"seat model \(4 players\): the design has rank 6 for 7 terms on 48 training boards"
    with pytest.warns(CatansimWarning, match=said + r" \((kinds|twin): "):
        fit = BB.fit_seat_model(t, draft, ["pips_wood", "kinds", "twin"])
    assert "one of many equally good fits" in fit["coefficients"]["method"].iloc[0]


# --- the study and the command -------------------------------------------------------------------


# At scale small the 3-player seat model has 48 training boards, on which harbor_match
# is a combination of the other terms: fit_seat_model says so in one line (and the study
# goes on).
SMALL_SCALE_RANK = (r"catansim: warning: seat model \(3 players\): the design has rank 15 "
                    r"for 16 terms on 48 training boards \(harbor_match")


def _build_small(out):
    """``catansim study seats-and-boards --scale small``; its stderr."""
    import contextlib
    import io

    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        main(["study", "seats-and-boards", "--scale", "small", "--out", str(out),
              "--no-progress"])
    return err.getvalue()


def _said_once_in_a_line(err):
    """The rank note is one line of its own: no warning class, no source line."""
    lines = err.splitlines()
    assert len([x for x in lines if re.match(SMALL_SCALE_RANK, x)]) == 1, err
    assert "RuntimeWarning" not in err and "warnings.warn" not in err, err


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    out = tmp_path_factory.mktemp("study") / "seats"
    _said_once_in_a_line(_build_small(out))
    return out


def test_the_study_writes_its_report_tables_figures_and_readme(study):
    html = (study / "report.html").read_text()
    sections = re.findall(r"<section id='(\w+)'>", html)
    assert sections == ["answers", "headlines", "presets", "mixed", "order", "boards", "luck",
                        "features", "index", "balanced", "runs"]
    assert "<script" not in html and html.count("data:image/png;base64,") >= 10
    csv = {p.stem for p in (study / "tables").glob("*.csv")}
    assert {"seats_4p", "order_contrasts_4p", "seat_equivalence_4p", "board_variance_boards_4p",
            "luck_mixed_won", "regression_fit_4p", "index_checks", "index_fit", "index_bands",
            "balanced_vs_variable", "runs"} <= csv
    runs = pd.read_csv(study / "tables" / "runs.csv", index_col=0)
    assert runs.loc["boards-4p", "games"] == 1200 and runs["seconds"].notna().all()
    readme = (study / "README.md").read_text()
    assert "catansim study seats-and-boards" in readme and "## Answers" in readme
    # the players are default, classic a preset beside them: every headline is measured
    heads = pd.read_csv(study / "tables" / "headlines.csv", index_col="key")
    assert heads["default"].notna().all() and heads["classic"].notna().all()
    seats = pd.read_csv(study / "tables" / "seats_4p.csv")
    assert {"default", "classic", "random"} <= set(seats["variant"])
    assert heads.loc["seat0_4p", "default"] == seats.query(
        "variant == 'default' and seat == 0")["win_rate"].item()
    # the estimands in words: the seat index is about the engine, the first move averaged
    # over arms the rules never play
    assert "not a finding about CATAN" in readme
    assert "which the official rules never allow" in readme
    # the README's analysis time is the report header's, not another measure of it
    header = re.search(r"<dt>analyses</dt><dd>(\d+) s</dd>", html).group(1)
    assert f"this report's analyses took {header} s, and with" in readme
    assert (study / "data" / "per-board-boards-4p.parquet").exists()
    # the answers' numbers are those of the tables the study writes
    fit = pd.read_csv(study / "tables" / "index_fit.csv", index_col=[0, 1])
    row = fit.loc[("index-preregistered", "index, calibrated")]
    assert f"r = {row['r']:.2f} [{row['r_ci_low']:.2f}, {row['r_ci_high']:.2f}]" in readme
    eq = pd.read_csv(study / "tables" / "seat_equivalence_4p.csv", index_col=0)
    assert len(eq) == 4 and (eq["margin"] == 0.005).all()
    assert (f"[{100 * eq['ci90_low'].min():+.2f}, {100 * eq['ci90_high'].max():+.2f}] "
            "points") in readme
    cells = pd.read_csv(study / "tables" / "order_cells_3p.csv", index_col=[0, 1, 2])
    assert len(cells) == 27 and (cells["games"] == 300).all()
    from study_checks import assert_provenance

    assert_provenance(html, [p.parent for p in (study / "data").glob("*/manifest.json")])


def test_the_study_resumes_without_playing_again(study):
    before = (study / "runs.json").read_text()
    _said_once_in_a_line(_build_small(study))  # the same games, the same fit
    assert (study / "runs.json").read_text() == before


def test_an_interrupted_build_keeps_the_run_book_of_the_runs_before(tmp_path, monkeypatch):
    """The run book is written after each experiment: a build stopped in its second run
    keeps the first run's games and seconds (which the report's run table shows)."""
    import json

    from catansim.studies import seats_and_boards as SB

    real = SB.run_experiment
    calls = []

    def stop_at_the_second(exp, **kw):
        calls.append(exp.name)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(exp, **kw)

    monkeypatch.setattr(SB, "run_experiment", stop_at_the_second)
    with pytest.raises(KeyboardInterrupt):
        SB.play(tmp_path, "small", progress=False)
    book = json.loads((tmp_path / "runs.json").read_text())
    first = SB._experiment(SB.ORDER[0], "small")
    assert list(book) == [SB.ORDER[0]]
    assert book[SB.ORDER[0]]["games"] == first.games * len(first.variants)
    assert book[SB.ORDER[0]]["seconds"] > 0


def _chromium():
    return shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(_chromium() is None, reason="chromium is not installed")
def test_the_study_report_renders_in_chromium(study, tmp_path):
    import matplotlib.image as mpimg

    shot = tmp_path / "shot.png"
    cmd = [_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
           "--no-first-run", "--disable-background-networking", "--disable-component-update",
           "--disable-sync", f"--user-data-dir={tmp_path / 'profile'}", "--hide-scrollbars",
           "--window-size=1280,30000", f"--screenshot={shot}", (study / "report.html").as_uri()]
    subprocess.run(cmd, check=True, capture_output=True, timeout=180)
    img = (mpimg.imread(shot)[..., :3] * 255).round().astype(np.int16)
    is_h2 = (np.abs(img - np.array((31, 78, 121))).sum(axis=2) <= 6).sum(axis=1) > 600
    # heading bars are solid for 30 rows or so (the nav's underlined links are 1-2 rows)
    edges = np.flatnonzero(np.diff(np.concatenate([[0], is_h2.astype(int), [0]])))
    runs = edges[1::2] - edges[::2]
    assert int((runs >= 20).sum()) == 11
    blue = (np.abs(img - np.array((0, 114, 178))).sum(axis=2) <= 30).sum()
    assert blue > 5000


def test_board_fairness_prints_each_seat_and_writes_the_figure(tmp_path, capsys):
    out = tmp_path / "f.png"
    main(["board", "--layout", "variable", "--seed", "7", "--fairness", "--games", "200",
          "--out", str(out)])
    text = capsys.readouterr().out
    lines = [x for x in text.splitlines() if re.match(r"\s+[0-3]\s+0\.\d{3} \[", x)]
    assert len(lines) == 4
    assert "predicted by the index" in text and "chi-square p =" in text
    assert out.read_bytes()[:4] == b"\x89PNG"
    # the same numbers as playing the board through the API
    from catansim.commands.board import play_on_board

    row = play_on_board(make_board("variable", 7), 4, ["default"], 200, 0)
    assert f"{row['win_rate_0']:.3f} [{row['ci_low_0']:.3f}, {row['ci_high_0']:.3f}]" in lines[0]
    fair = F.fairness(make_board("variable", 7), 4)
    assert f"predicted by the index {fair.index:.3f}" in text


def test_board_fairness_bad_input_is_one_line(capsys):
    with pytest.raises(SystemExit):
        main(["board", "--fairness", "--games", "5"])
    err = capsys.readouterr().err.strip()
    assert err.startswith("catansim: error:") and "--games" in err and "\n" not in err
    with pytest.raises(SystemExit):
        main(["board", "--fairness", "--strategies", "nobody"])
    err = capsys.readouterr().err.strip()
    assert "--strategies" in err and "nobody" in err and "\n" not in err


def test_small_scale_experiments_are_the_files_with_fewer_games():
    from catansim.studies import seats_and_boards as SB

    for name in SB.ORDER:
        full = SB._experiment(name, "full")
        small = SB._experiment(name, "small")
        assert small.games < full.games
        assert dataclasses.replace(small, games=full.games, batch_size=full.batch_size,
                                   board_set=full.board_set).result_key() == full.result_key()
