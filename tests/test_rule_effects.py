"""The rule-effect analyses (``analysis.contrasts``, ``robber``, ``shortages``) against
known answers and independent oracles.

- part at a time (a dataset folder) equals the same analysis of the loaded frames;
- paired intervals equal scipy's on the raw per-game differences, McNemar equals
  statsmodels' on the raw 2x2 table, seat-aligned strategy wins equal a pandas count;
- catch-up, shortage timing and per-seat groups equal direct pandas computations;
- the share interval equals statsmodels' GLM on one row per game (HC0), and covers a
  planted share;
- synthetic tables with a planted effect: found; null ones: not, after correction.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scipy.stats as st

import catansim
from catansim.analysis import contrasts as C
from catansim.analysis import robber as R
from catansim.analysis import shortages as SH
from catansim.analysis.measures import SHORTAGE_COLS
from catansim.errors import CatansimError
from catansim.runs.experiment import parse_experiment
from catansim.runs.runner import run_experiment

SPEC = {"name": "fx", "games": 300, "players": 4, "seed": 9, "batch_size": 70,
        "strategies": ["default", "army", "builder", "city"], "rotate": True,
        "variants": {"off": {"rules": {"robber": "off"}},
                     "friendly": {"rules": {"robber": "friendly"}},
                     "bank7": {"rules": {"bank_per_resource": 7}},
                     "strict7": {"rules": {"bank_per_resource": 7, "shortage": "strict"}},
                     "lone": {"strategies": ["city", "army", "builder", "city"]}}}
PAIRS = [("off", "baseline"), ("friendly", "baseline"), ("bank7", "baseline"),
         ("strict7", "bank7"), ("lone", "baseline")]


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    out = tmp_path_factory.mktemp("fx") / "ds"
    run_experiment(parse_experiment(SPEC), out=out, progress=False)
    return out


@pytest.fixture(scope="module")
def frames(dataset):
    return catansim.load(dataset)


def _plan():
    outcomes = R.robber_outcomes(4) + SH.shortage_outcomes(4)[3:]  # no duplicate turns etc.
    return (C.Plan()
            .add("contrasts", C.contrasts_analysis(PAIRS, outcomes, strategy_wins=True))
            .add("arms", C.arms_analysis(outcomes))
            .add("catch", R.catch_up_analysis())
            .add("stage", R.stage_analysis())
            .add("shares", C.shares_analysis(R.ROBBER_SHARES + SH.SHORTAGE_SHARES))
            .add("groups", C.seat_groups_analysis(SH.WITHHELD_BY_SEAT, SH.WITHHELD_RATIO))
            .add("timing", SH.TIMING)
            .add("differ", C.differences_analysis(PAIRS, SH.DIFFER_FACETS)))


def test_part_at_a_time_equals_the_whole_frames(dataset, frames):
    """Five ranges of games (the last one short) in six variants."""
    by_parts, whole = _plan().run(dataset), _plan().run(frames)
    for key in by_parts:
        a, b = by_parts[key], whole[key]
        for k in (a if isinstance(a, dict) else {None: a}):
            x, y = (a[k], b[k]) if k is not None else (a, b)
            assert len(x) > 0, (key, k)
            pd.testing.assert_frame_equal(x, y)


def _per_game(frames, variant, col):
    games, players = frames
    g = games[games.variant == variant].set_index("game")
    if col in g.columns:
        return g[col].astype("int64")
    p = players[players.variant == variant]
    return p.groupby("game")[col].sum().astype("int64")


def test_paired_contrasts_equal_scipy_and_statsmodels_on_the_raw_games(frames):
    games, players = frames
    t = C.paired_contrasts(frames, PAIRS, R.robber_outcomes(4), strategy_wins=True)
    for v, ref, col in (("off", "baseline", "turns"), ("friendly", "baseline", "stolen"),
                        ("strict7", "bank7", "turns")):
        d = (_per_game(frames, v, col) - _per_game(frames, ref, col)).to_numpy()
        row = t.loc[(v, ref, col)]
        res = st.ttest_1samp(d, 0)
        ci = res.confidence_interval(0.95)
        assert row["n"] == 300
        assert row["diff"] == pytest.approx(d.mean())
        if d.std() > 0:
            assert (row["ci_low"], row["ci_high"]) == pytest.approx((ci.low, ci.high),
                                                                    rel=1e-9)
            assert row["p_value"] == pytest.approx(res.pvalue, rel=1e-8, abs=1e-300)
        assert row["discordant"] == int((d != 0).sum())
    # seat 0 wins: McNemar on the raw 2x2 table
    from statsmodels.stats.contingency_tables import mcnemar

    def won(v, seat):
        p = players[(players.variant == v) & (players.seat == seat)]
        return p.set_index("game").won

    a, b = won("friendly", 0), won("baseline", 0)
    table = pd.crosstab(b, a).reindex(index=[False, True], columns=[False, True],
                                      fill_value=0).to_numpy()
    disc = table[0, 1] + table[1, 0]
    row = t.loc[("friendly", "baseline", "win_seat_0")]
    assert row["p_value"] == pytest.approx(mcnemar(table, exact=disc < 25).pvalue)
    assert row["discordant"] == disc
    # Holm over the whole table: never below the raw p-value
    assert (t["p_adjusted"].dropna() >= t["p_value"].dropna() - 1e-15).all()


def test_strategy_wins_are_taken_at_the_arms_seats(frames):
    """'lone' replaces the default seat by a second city: the city's wins in the arm are
    compared with the baseline's results at the same two seats."""
    games, players = frames
    t = C.paired_contrasts(frames, [("lone", "baseline")], [], strategy_wins=True)
    arm = players[players.variant == "lone"]
    base = players[players.variant == "baseline"].set_index(["game", "seat"]).won
    for strat in ("city", "army", "builder"):
        seats = arm[arm.strategy == strat][["game", "seat", "won"]]
        a = seats.groupby("game").won.any().astype(int)
        b = seats.set_index(["game", "seat"]).index.map(base).to_series(
            index=seats.game.to_numpy()).groupby(level=0).any().astype(int)
        row = t.loc[("lone", "baseline", f"win_strategy_{strat}")]
        assert row["n"] == 300
        assert row["mean"] == pytest.approx(a.mean())
        assert row["base_mean"] == pytest.approx(b.mean())
        assert row["diff"] == pytest.approx((a - b).mean())
    assert ("lone", "baseline", "win_strategy_default") not in t.index


def test_catch_up_equals_a_direct_count(frames):
    games, players = frames
    catch = R.catch_up(frames)
    for v in ("baseline", "off"):
        p = players[players.variant == v]
        for turn in (20, 40, 60):
            vp = p.pivot(index="game", columns="seat", values=f"vp_turn_{turn}")
            won = p.pivot(index="game", columns="seat", values="won")
            alive = vp.notna().all(axis=1)
            vp, won = vp[alive].astype(int), won[alive]
            top = vp.max(axis=1)
            sole = (vp.eq(top, axis=0)).sum(axis=1) == 1
            leader = vp.idxmax(axis=1)[sole]
            lw = sum(bool(won.loc[g, s]) for g, s in leader.items())
            low = vp.min(axis=1)
            sole_last = (vp.eq(low, axis=0)).sum(axis=1) == 1
            last = vp.idxmin(axis=1)[sole_last]
            mw = sum(bool(won.loc[g, s]) for g, s in last.items())
            row = catch.loc[(v, turn)]
            assert (row["alive"], row["sole_leader"], row["leader_wins"]) == (
                alive.sum(), sole.sum(), lw), (v, turn)
            assert (row["sole_last"], row["last_wins"]) == (sole_last.sum(), mw), (v, turn)
    # the paired catch-up outcome counts only games where both arms have a sole leader
    t = C.paired_contrasts(frames, [("off", "baseline")], [R.leader_won(40)])
    both = [catch.loc[(v, 40), "sole_leader"] for v in ("baseline", "off")]
    assert 0 < t.loc[("off", "baseline", "leader_won_40"), "n"] <= min(both)


def test_robber_shares_and_the_robber_off(frames):
    games, players = frames
    sh = C.share_table(frames, R.ROBBER_SHARES)
    for v in ("baseline", "friendly"):
        g = games[games.variant == v]
        row = sh.loc[(v, "hit_leader")]
        assert row["numerator"] == g.robbed_leader.sum()
        assert row["denominator"] == g.robber_leader_chances.sum()
        assert row["share"] == pytest.approx(g.robbed_leader.sum()
                                             / g.robber_leader_chances.sum())
        assert row["ci_low"] < row["share"] < row["ci_high"]
        robbed = players[players.variant == v].robbed.sum()
        assert sh.loc[(v, "on_leader"), "denominator"] == robbed
    assert sh.loc[("off", "hit_leader"), "denominator"] == 0
    assert np.isnan(sh.loc[("off", "hit_leader"), "share"])


def test_share_interval_is_the_glm_on_one_row_per_game():
    """The histogram of (numerator, denominator) pairs with frequency weights gives the
    same fit and sandwich errors as one row per game."""
    import statsmodels.api as sm

    rng = np.random.default_rng(4)
    x = rng.integers(0, 12, 3000)
    p = rng.beta(2, 5, x.size)  # overdispersed: each game its own rate
    y = rng.binomial(x, p)
    pairs = {}
    for a, b in zip(y, x, strict=True):
        pairs[(int(a), int(b))] = pairs.get((int(a), int(b)), 0) + 1
    r = C.share_ci(pairs)
    ok = x > 0
    fit = sm.GLM(np.c_[y[ok], x[ok] - y[ok]], np.ones((ok.sum(), 1)),
                 family=sm.families.Binomial()).fit(cov_type="HC0")
    lo, hi = fit.conf_int()[0]
    from scipy.special import expit

    assert r["share"] == pytest.approx(y.sum() / x.sum())
    assert (r["ci_low"], r["ci_high"]) == pytest.approx((expit(lo), expit(hi)), rel=1e-6)
    assert r["games"] == 3000 and r["games_with_chances"] == ok.sum()
    # wider than a Wilson interval that treats every card as independent
    from catansim.analysis.stats import wilson_ci

    wl, wh = wilson_ci(y.sum(), x.sum())
    assert r["ci_high"] - r["ci_low"] > 1.2 * (wh[0] - wl[0])
    # covers the planted share (2 / 7) in most of 40 repetitions
    hits = 0
    for seed in range(40):
        g = np.random.default_rng(100 + seed)
        x = g.integers(1, 12, 800)
        y = g.binomial(x, g.beta(2, 5, x.size))
        h = {}
        for a, b in zip(y, x, strict=True):
            h[(int(a), int(b))] = h.get((int(a), int(b)), 0) + 1
        s = C.share_ci(h)
        hits += s["ci_low"] <= 2 / 7 <= s["ci_high"]
    assert hits >= 34


def test_shortage_timing_and_curve_equal_direct_counts(frames):
    games, _ = frames
    tim = SH.shortage_timing(frames)
    curve = SH.first_shortage_curve(frames)
    for v in ("bank7", "strict7", "baseline"):
        g = games[games.variant == v]
        firsts = g[list(SH.FIRST_COLS)]
        first_any = firsts.min(axis=1, skipna=True)
        had = first_any.notna()
        row = tim.loc[(v, "any")]
        assert row["with_shortage"] == had.sum()
        if had.any():
            assert row["median_turn"] == np.quantile(first_any[had].astype(int), 0.5,
                                                     method="inverted_cdf")
            assert row["mean_turn"] == pytest.approx(first_any[had].mean())
            c = curve.loc[(v, "any")]
            assert c["share"].is_monotonic_increasing
            assert c["share"].iloc[-1] == pytest.approx(had.mean())
        for r in ("wheat", "ore"):
            assert tim.loc[(v, r), "with_shortage"] == g[f"first_shortage_{r}"].notna().sum()
            # a game short of a resource has at least one short roll of it, and vice versa
            assert ((g[f"shortage_{r}"] > 0) == g[f"first_shortage_{r}"].notna()).all()
    assert tim.loc[("bank7", "any"), "share"] > tim.loc[("baseline", "any"), "share"]


def test_games_that_differ_equal_a_direct_count(frames):
    """Each facet and their union against a pandas merge of the two arms' games; the
    union is at least each facet and at most their sum; an arm against itself differs in
    no game."""
    games, players = frames
    t = C.games_that_differ(frames, PAIRS + [("baseline", "baseline")], SH.DIFFER_FACETS)
    p = players.copy()
    p["produced"] = p[[c for c in p.columns if c.startswith("produced_")]].sum(axis=1)

    def wide(v, col):
        return p[p.variant == v].pivot(index="game", columns="seat", values=col)

    for v, ref in PAIRS:
        diff = {
            "production": (wide(v, "produced") != wide(ref, "produced")).any(axis=1),
            "final_vp": (wide(v, "vp") != wide(ref, "vp")).any(axis=1),
            "winner": (wide(v, "won") != wide(ref, "won")).any(axis=1),
            "length": (games[games.variant == v].set_index("game")["turns"]
                       != games[games.variant == ref].set_index("game")["turns"]),
        }
        for facet, d in diff.items():
            row = t.loc[(v, ref, facet)]
            assert row["n"] == len(d) == 300 and row["games_differ"] == d.sum(), (v, facet)
            lo, hi = st.binomtest(int(d.sum()), 300).proportion_ci(method="wilson")
            assert (row["ci_low"], row["ci_high"]) == pytest.approx((lo, hi))
        union = pd.concat(diff.values(), axis=1).any(axis=1)
        row = t.loc[(v, ref, "any")]
        assert row["games_differ"] == union.sum()
        assert max(d.sum() for d in diff.values()) <= row["games_differ"] <= sum(
            d.sum() for d in diff.values())
    same = t.xs(("baseline", "baseline"), level=("variant", "reference"))
    assert len(same) == 5 and (same["games_differ"] == 0).all()
    assert t.loc[("off", "baseline", "any"), "games_differ"] > 0


def test_withheld_by_seat_equals_pandas(frames):
    _, players = frames
    t = C.seat_groups(frames, SH.WITHHELD_BY_SEAT, SH.WITHHELD_RATIO)
    p = players[players.variant == "bank7"].copy()
    p["withheld"] = p[[c for c in p.columns if c.startswith("withheld_")]].sum(axis=1)
    p["produced"] = p[[c for c in p.columns if c.startswith("produced_")]].sum(axis=1)
    for strat, grp in p.groupby("strategy", observed=True):
        row = t.loc[("bank7", "strategy", str(strat), "withheld")]
        assert row["n"] == len(grp)
        assert row["mean"] == pytest.approx(grp.withheld.mean())
        ratio = t.loc[("bank7", "strategy", str(strat), "withheld_share"), "mean"]
        assert ratio == pytest.approx(grp.withheld.sum() / (grp.withheld + grp.produced).sum())
    w = p[p.won]
    assert t.loc[("bank7", "standing", "winner", "withheld"), "mean"] == pytest.approx(
        w.withheld.mean())
    assert t.loc[("bank7", "all", "all", "withheld"), "n"] == len(p)


def _synthetic(n: int, shifts: dict, seed: int = 0):
    """Games and players frames with the columns of a turns / seat-wins contrast: turns
    ~ Poisson(70) per game shared by the arms plus noise and ``shifts[arm]``; winners
    uniform per game, the same in every arm."""
    rng = np.random.default_rng(seed)
    base = rng.poisson(70, n)
    winner = rng.integers(0, 4, n)
    games, players = [], []
    for v, shift in shifts.items():
        games.append(pd.DataFrame({"variant": v, "game": np.arange(n),
                                   "turns": base + rng.poisson(2, n) + shift}))
        players.append(pd.DataFrame({"variant": v, "game": np.repeat(np.arange(n), 4),
                                     "seat": np.tile(np.arange(4), n),
                                     "won": np.tile(np.arange(4), n) == np.repeat(winner, 4)}))
    g, p = pd.concat(games, ignore_index=True), pd.concat(players, ignore_index=True)
    g["variant"] = g["variant"].astype("category")
    p["variant"] = p["variant"].astype("category")
    return g, p


def test_a_planted_difference_is_found_and_null_ones_are_not_after_holm():
    frames = _synthetic(800, {"baseline": 0, "longer": 1, "same": 0, "same2": 0}, seed=2)
    outcomes = [C.measure("turns")] + [C.seat_win(s) for s in range(4)]
    t = C.paired_contrasts(frames, [("longer", "baseline"), ("same", "baseline"),
                                    ("same2", "same")], outcomes)
    row = t.loc[("longer", "baseline", "turns")]
    assert row["significant"] and row["diff"] == pytest.approx(1.0, abs=0.3)
    assert row["width_ratio"] < 0.5  # the arms share each game's length
    assert not t.drop(index=[("longer", "baseline", "turns")])["significant"].any()
    # the same winners in every arm: no discordant game, no difference
    assert (t.xs("win_seat_0", level="outcome")["discordant"] == 0).all()


def test_arm_summary_rates_are_wilson_and_means_are_t(frames):
    from catansim.analysis.stats import wilson_ci

    games, players = frames
    a = C.arm_summary(frames, [C.measure("turns"), C.flag(C.measure("shortage_rolls"),
                                                          "any", "games short")])
    g = games[games.variant == "bank7"]
    k = int((g[list(SHORTAGE_COLS)].sum(axis=1) > 0).sum())
    row = a.loc[("bank7", "any")]
    lo, hi = wilson_ci(k, len(g))
    assert (row["events"], row["n"]) == (k, len(g))
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((lo[0], hi[0]))
    ci = st.t.interval(0.95, len(g) - 1, loc=g.turns.mean(), scale=st.sem(g.turns))
    assert (a.loc[("bank7", "turns"), "ci_low"], a.loc[("bank7", "turns"), "ci_high"]) == \
        pytest.approx(ci)


def test_bad_pairs_and_corrections_are_one_line_errors(frames):
    with pytest.raises(CatansimError, match=r"^pairs: variant 'nope' is not in the source; "
                                            r"allowed: baseline, "):
        C.paired_contrasts(frames, [("nope", "baseline")], [C.measure("turns")])
    with pytest.raises(CatansimError, match=r"^pairs: 'off' is not a pair of variant names"):
        C.paired_contrasts(frames, ["off"], [C.measure("turns")])
    with pytest.raises(CatansimError, match=r"^correction: 'bonferroni' is not allowed; "
                                            r"allowed: holm, fdr_bh"):
        C.paired_contrasts(frames, [("off", "baseline")], [C.measure("turns")],
                           correction="bonferroni")


def test_equal_standing_table_equals_a_direct_count(frames):
    _, players = frames
    stage = R.stage_table(frames, checkpoints=(20, 40))
    for v in ("baseline", "off"):
        p = players[players.variant == v]
        for turn in (20, 40):
            vp = p.pivot(index="game", columns="seat", values=f"vp_turn_{turn}")
            won = p.pivot(index="game", columns="seat", values="won")
            vp = vp[vp.notna().all(axis=1)].astype(int)
            srt = np.sort(vp.to_numpy(), axis=1)
            sole = srt[:, -1] > srt[:, -2]
            leader = vp.to_numpy().argmax(axis=1)
            rows = pd.DataFrame({"leader_vp": srt[:, -1], "lead": np.minimum(
                srt[:, -1] - srt[:, -2], 3), "won": won.loc[vp.index].to_numpy()[
                np.arange(len(vp)), leader].astype(int)})[sole]
            want = rows.groupby(["leader_vp", "lead"])["won"].agg(["size", "sum"])
            got = stage.xs((v, turn), level=("variant", "turn"))
            assert len(got) == len(want) > 0
            for (vp_, lead), r in want.iterrows():
                g = got.loc[(vp_, "3+" if lead == 3 else str(lead))]
                assert (g["games"], g["leader_wins"]) == (r["size"], r["sum"]), (v, turn)


def _standing_frames(n: int, odds: dict, seed: int = 0):
    """Players frames with visible VP after turn 40 and a winner: a sole leader with
    4..7 VP leading by 1..3, whose odds of winning are a stratum's base odds times
    ``odds[arm]``; the arms share each game's standing (common seeds)."""
    rng = np.random.default_rng(seed)
    top = rng.integers(4, 8, n)
    lead = rng.integers(1, 4, n)
    leader = rng.integers(0, 4, n)
    base = np.exp(-1.5 + 0.4 * (top - 4) + 0.5 * lead)  # the stratum's odds
    u = rng.random(n)
    other = (leader + rng.integers(1, 4, n)) % 4
    frames = []
    for v, k in odds.items():
        p = base * k / (1 + base * k)
        winner = np.where(u < p, leader, other)
        vp = np.repeat(top - lead, 4).reshape(n, 4) - rng.integers(0, 2, (n, 4))
        vp[np.arange(n), (leader + 1) % 4] = top - lead  # the second
        vp[np.arange(n), leader] = top
        frames.append(pd.DataFrame({
            "variant": v, "game": np.repeat(np.arange(n), 4), "seat": np.tile(np.arange(4), n),
            "won": (np.tile(np.arange(4), n) == np.repeat(winner, 4)),
            "vp_turn_40": vp.ravel()}))
    players = pd.concat(frames, ignore_index=True)
    players["variant"] = players["variant"].astype("category")
    games = players[players.seat == 0][["variant", "game"]].reset_index(drop=True)
    games["turns"] = 70
    return games, players


def test_equal_standing_effect_finds_a_planted_odds_ratio_and_not_a_null_one():
    frames = _standing_frames(6000, {"baseline": 1.0, "stronger": 2.0, "same": 1.0}, seed=4)
    stage = R.stage_table(frames, checkpoints=(40,))
    e = R.stage_effect(stage, "stronger", "baseline", 40)
    assert e["ci_low"] < 2.0 < e["ci_high"] and e["p_value"] < 1e-6
    assert e["strata"] == 12 and e["games_arm"] == e["games_reference"] == 6000
    null = R.stage_effect(stage, "same", "baseline", 40)
    assert null["odds_ratio"] == pytest.approx(1.0, abs=1e-12)  # the same winners
    assert null["ci_low"] < 1.0 < null["ci_high"]
    # unknown arms or turns give an empty row, not an error
    assert R.stage_effect(stage, "nope", "baseline", 40)["strata"] == 0
    assert np.isnan(R.stage_effect(stage, "stronger", "baseline", 60)["odds_ratio"])
