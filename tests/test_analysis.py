"""The analysis layer against known answers and independent oracles.

- part at a time (a dataset folder) equals the same analysis of the loaded frames;
- paired and unpaired intervals equal scipy's on the raw per-game values;
- McNemar equals statsmodels' on the raw 2x2 table, the rating equals
  statsmodels' ConditionalLogit on the raw games;
- synthetic tables with a planted effect: found; null ones: not, after correction.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
import scipy.stats as st

import catansim
from catansim import analysis as A
from catansim.analysis import stats as S
from catansim.results.schema import COLUMNS
from catansim.runs.experiment import parse_experiment
from catansim.runs.runner import run_experiment

SPEC = {"name": "an", "games": 240, "players": 4, "seed": 5, "batch_size": 70,
        "strategies": ["default", "army", "builder", "city"], "rotate": True,
        "variants": {"friendly": {"rules": {"robber": "friendly"}},
                     "off": {"rules": {"robber": "off"}}}}


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    out = tmp_path_factory.mktemp("an") / "ds"
    run_experiment(parse_experiment(SPEC), out=out, progress=False)
    return out


@pytest.fixture(scope="module")
def frames(dataset):
    return catansim.load(dataset)


FUNCS = {
    "game_length": A.game_length,
    "length_distribution": A.length_distribution,
    "per_game_counts": A.per_game_counts,
    "per_seat_counts": A.per_seat_counts,
    "vp_sources": A.vp_sources,
    "dev_cards": A.dev_cards,
    "event_rates": A.event_rates,
    "first_builds": A.first_builds,
    "seat_win_rates": A.seat_win_rates,
    "strategy_win_rates": lambda s: A.win_rates(s, "strategy"),
    "strategy_rating": A.strategy_rating,
    "paired_differences": A.paired_differences,
    "win_by_start_pips": A.win_by_start_pips,
    "win_by_start_node": A.win_by_start_node,
}


@pytest.mark.parametrize("name", sorted(FUNCS))
def test_part_at_a_time_equals_the_whole_frames(name, dataset, frames):
    """The dataset has 4 ranges of games (the last one short) in 3 variants."""
    by_parts = FUNCS[name](dataset)
    whole = FUNCS[name](frames)
    assert len(by_parts) > 0
    pd.testing.assert_frame_equal(by_parts, whole)


def test_win_model_part_at_a_time_equals_the_whole(dataset, frames):
    a, b = A.win_model(dataset), A.win_model(frames)
    assert set(a) == {"coefficients", "calibration", "reliability", "sample"}
    for k in a:
        pd.testing.assert_frame_equal(a[k], b[k])


def test_tables_carry_n_and_their_method(dataset):
    for name in ("game_length", "per_game_counts", "event_rates", "seat_win_rates",
                 "paired_differences", "win_by_start_pips"):
        t = FUNCS[name](dataset)
        assert "method" in t.columns and t["method"].str.len().gt(10).all(), name
        assert any(c in t.columns for c in ("n", "seat_games")), name


def test_known_counts(frames):
    games, players = frames
    length = A.game_length(frames)
    base = games[games.variant == "baseline"]
    row = length.loc[("baseline", "turns")]
    assert row["n"] == 240
    assert row["mean"] == pytest.approx(base.turns.mean(), rel=1e-12)
    assert row["sd"] == pytest.approx(base.turns.std(), rel=1e-12)
    assert row["median"] == np.quantile(base.turns, 0.5, method="inverted_cdf")
    lo, hi = st.t.interval(0.95, len(base) - 1, loc=base.turns.mean(), scale=st.sem(base.turns))
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((lo, hi), rel=1e-10)
    rolls = base[[f"rolls_{k}" for k in range(2, 13)]].sum(axis=1)
    assert length.loc[("baseline", "rolls"), "mean"] == pytest.approx(rolls.mean())
    seats = A.seat_win_rates(frames).loc["baseline"]
    p = players[players.variant == "baseline"]
    assert list(seats["wins"]) == list(p.groupby("seat").won.sum())
    assert (seats["seat_games"] == 240).all()
    strat = A.win_rates(frames, "strategy").loc["baseline"]
    assert (strat["seat_games"] == 240).all() and strat["wins"].sum() == p.won.sum()
    pg = A.per_game_counts(frames).loc[("baseline", "stolen")]
    assert pg["mean"] == pytest.approx(p.groupby("game").stolen.sum().mean())
    trades = A.per_game_counts(frames).loc[("baseline", "trades_player"), "mean"]
    assert trades == pytest.approx(p.groupby("game").trades_player.sum().mean() / 2)
    winners = A.per_seat_counts(frames).loc[("baseline", "winners", "all", "cards_received")]
    w = p[p.won]
    received = w[[c for c in w.columns if c.startswith(("produced_", "start_"))
                  and not c.startswith("start_node") and not c.startswith("start_pips")]]
    assert winners["mean"] == pytest.approx(received.sum(axis=1).mean())
    ev = A.event_rates(frames).loc[("off", "any_shortage")]
    g = games[games.variant == "off"]
    assert ev["events"] == (g[[c for c in g.columns if c.startswith("shortage_")]]
                            .sum(axis=1) > 0).sum()


def test_start_node_tests_equal_a_recount_of_the_raw_rows(frames):
    """Each node's count, rate, exact binomial p against the rate of all starting
    settlements and its Benjamini-Hochberg adjustment, recounted from the player rows."""
    from statsmodels.stats.multitest import multipletests

    _, players = frames
    table = A.win_by_start_node(frames).loc["friendly"]
    p = players[players.variant == "friendly"]
    rows = pd.concat([p[["start_node_1", "won"]].set_axis(["node", "won"], axis=1),
                      p[["start_node_2", "won"]].set_axis(["node", "won"], axis=1)])
    count = rows.groupby("node").won.agg(["size", "sum"]).reindex(range(54), fill_value=0)
    assert list(table["seat_games"]) == list(count["size"])
    assert list(table["wins"]) == list(count["sum"])
    reference = rows.won.mean()
    assert table["reference"].to_numpy() == pytest.approx(reference, rel=1e-12)
    played = count["size"] > 0
    p_raw = [st.binomtest(int(k), int(n), reference).pvalue
             for k, n in zip(count["sum"][played], count["size"][played], strict=True)]
    assert table["p_value"][played].to_numpy() == pytest.approx(p_raw, rel=1e-9)
    assert table["p_value"][~played].isna().all()
    reject, p_adj, _, _ = multipletests(p_raw, method="fdr_bh")
    assert table["p_adjusted"][played].to_numpy() == pytest.approx(p_adj, rel=1e-9)
    assert list(table["significant"][played]) == list(reject)


def test_paired_intervals_equal_scipy_on_the_raw_differences(frames):
    games, players = frames
    t = A.paired_differences(frames)
    b = games[games.variant == "baseline"].set_index("game")
    v = games[games.variant == "off"].set_index("game")
    d = (v.turns - b.turns).to_numpy()
    ci = st.ttest_1samp(d, 0).confidence_interval(0.95)
    row = t.loc[("off", "turns")]
    assert row["n"] == 240
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((ci.low, ci.high), rel=1e-10)
    assert row["p_value"] == pytest.approx(st.ttest_1samp(d, 0).pvalue, rel=1e-8, abs=1e-300)
    u = st.ttest_ind(v.turns, b.turns, equal_var=False).confidence_interval(0.95)
    assert (row["unpaired_ci_low"], row["unpaired_ci_high"]) == pytest.approx(
        (u.low, u.high), rel=1e-10)
    width = (ci.high - ci.low) / (u.high - u.low)
    assert row["width_ratio"] == pytest.approx(width)
    assert row["width_ratio"] < 1  # common random numbers narrow the interval
    # wins of seat 0: McNemar on the raw discordant games
    pb = players[(players.variant == "baseline") & (players.seat == 0)].set_index("game").won
    pv = players[(players.variant == "friendly") & (players.seat == 0)].set_index("game").won
    from statsmodels.stats.contingency_tables import mcnemar

    table = pd.crosstab(pb, pv).reindex(index=[False, True], columns=[False, True],
                                        fill_value=0).to_numpy()
    discordant = table[0, 1] + table[1, 0]
    want = mcnemar(table, exact=discordant < 25).pvalue
    assert t.loc[("friendly", "win_seat_0"), "p_value"] == pytest.approx(want)
    diff = (pv.astype(int) - pb.astype(int)).to_numpy()
    assert t.loc[("friendly", "win_seat_0"), "diff"] == pytest.approx(diff.mean())


def test_rating_equals_conditional_logit_on_the_raw_games(frames):
    from statsmodels.discrete.conditional_models import ConditionalLogit

    _, players = frames
    p = players[players.variant == "baseline"]
    decided = p.groupby("game").won.transform("any")
    p = p[decided]
    names = sorted(p.strategy.astype(str).unique())
    x = pd.DataFrame({f"strategy {s}": (p.strategy.astype(str) == s).astype(float)
                      for s in names[1:]})
    for s in (1, 2, 3):
        x[f"seat {s}"] = (p.seat == s).astype(float)
    model = ConditionalLogit(p.won.astype(float).to_numpy(), x.to_numpy(),
                             groups=p.game.to_numpy())
    fit = model.fit(disp=0, method="bfgs", gtol=1e-10, maxiter=2000)
    r = A.strategy_rating(frames).loc["baseline"]
    got = [r.loc[("strategy", s), "log_strength"] for s in names[1:]] + [
        r.loc[("seat", str(s)), "log_strength"] for s in (1, 2, 3)]
    # the same maximum (ConditionalLogit's optimiser stops on the flat top a little
    # short of it: ours has the higher likelihood), the same standard errors
    np.testing.assert_allclose(got, fit.params, atol=1e-3)
    assert model.loglike(np.asarray(got)) >= model.loglike(fit.params) - 1e-9
    se = [r.loc[("strategy", s), "se"] for s in names[1:]]
    np.testing.assert_allclose(se, fit.bse[:3], rtol=1e-3)
    assert r.loc[("strategy", names[0]), "log_strength"] == 0.0


# --- synthetic tables with planted effects ----------------------------------------------


def synthetic(n_games: int, variants=("baseline",), seat_weights=(1, 1, 1, 1), seed=0,
              turns_shift=None, pips_effect=0.0):
    """Games and players frames with every column of the schema (zeros by default):
    winners drawn with ``seat_weights``, turns ~ Poisson(70) per game shared by the
    variants plus ``turns_shift[variant]``, starting pips that raise the odds of
    winning by ``exp(pips_effect)`` per pip."""
    rng = np.random.default_rng(seed)
    g_cols = COLUMNS[COLUMNS.table == "games"]
    p_cols = COLUMNS[COLUMNS.table == "players"]
    base_turns = rng.poisson(70, n_games)
    pips = rng.integers(10, 26, size=(n_games, 4))
    games, players = [], []
    for v in variants:
        g = pd.DataFrame({c: np.zeros(n_games, dtype="float64") for c in g_cols.name})
        g["game"] = np.arange(n_games)
        g["seed"] = rng.integers(0, 2**62, n_games) if v == variants[0] else games[0]["seed"]
        g["variant"] = v
        shift = (turns_shift or {}).get(v, 0)
        noise = rng.poisson(3, n_games)
        g["turns"] = base_turns + noise + shift
        g["rolls_7"] = g["turns"]
        w = np.asarray(seat_weights, float)[None, :] * np.exp(pips_effect * pips)
        w = w / w.sum(axis=1, keepdims=True)
        winner = (rng.random(n_games)[:, None] > np.cumsum(w, axis=1)).sum(axis=1)
        g["winner"] = winner
        g["end_reason"] = "win"
        p = pd.DataFrame({c: np.zeros(n_games * 4, dtype="float64") for c in p_cols.name})
        p["game"] = np.repeat(np.arange(n_games), 4)
        p["seed"] = np.repeat(g["seed"].to_numpy(), 4)
        p["variant"] = v
        p["seat"] = np.tile(np.arange(4), n_games)
        p["strategy"] = "default"
        p["won"] = p["seat"].to_numpy() == np.repeat(winner, 4)
        p["start_pips_1"] = pips.ravel()
        p["start_pips_2"] = 10
        p["start_node_1"] = 0
        p["start_node_2"] = 1
        games.append(g)
        players.append(p)
    games = pd.concat(games, ignore_index=True)
    players = pd.concat(players, ignore_index=True)
    for df, table in ((games, "games"), (players, "players")):
        for row in COLUMNS[COLUMNS.table == table].itertuples():
            if row.dtype == "category":
                df[row.name] = df[row.name].astype(str).astype("category")
            elif row.dtype in ("int64", "int32", "int16", "int8"):
                df[row.name] = df[row.name].astype(row.dtype)
            elif row.dtype.startswith("Int"):
                df[row.name] = df[row.name].astype(row.dtype)
    games["variant"] = games["variant"].cat.set_categories(list(variants))
    players["variant"] = players["variant"].cat.set_categories(list(variants))
    return games, players


def test_a_planted_seat_advantage_is_found_and_a_null_one_is_not():
    planted = A.seat_test(A.seat_win_rates(synthetic(4000, seat_weights=(1.3, 1, 1, 1))))
    null = A.seat_test(A.seat_win_rates(synthetic(4000, seed=1)))
    assert planted.loc["baseline", "significant"]
    assert planted.loc["baseline", "p_value"] < 1e-6
    assert not null.loc["baseline", "significant"]
    c = A.seat_win_rates(synthetic(4000, seat_weights=(1.3, 1, 1, 1))).loc["baseline", "wins"]
    assert planted.loc["baseline", "chi2"] == pytest.approx(st.chisquare(c).statistic)


def test_a_planted_paired_difference_is_found_and_null_ones_are_not_after_holm():
    frames = synthetic(600, variants=("baseline", "longer", "same", "same2"),
                       turns_shift={"longer": 1}, seed=3)
    t = A.paired_differences(frames)
    assert t.loc[("longer", "turns"), "significant"]
    assert t.loc[("longer", "turns"), "diff"] == pytest.approx(1.0, abs=0.3)
    # the turns of the null variants and the win rates (all null) are not significant
    null = t.drop(index=[("longer", "turns"), ("longer", "rolls"), ("longer", "sevens")],
                  errors="ignore")
    assert not null["significant"].any()
    assert (t["p_adjusted"] >= t["p_value"]).all()
    # an unpaired design would need several times the games for the same precision
    assert t.loc[("longer", "turns"), "width_ratio"] < 0.5
    row = t.loc[("longer", "turns")]
    assert row["pairs_needed"] < row["games_needed_unpaired"]


def test_a_planted_pips_effect_gives_a_positive_calibrated_coefficient():
    frames = synthetic(6000, pips_effect=0.12, seed=4)
    m = A.win_model(frames)
    coef = m["coefficients"]
    assert coef.loc["start_pips_1", "ci_low"] > 0.05
    assert coef.loc["start_pips_1", "ci_low"] < 0.12 < coef.loc["start_pips_1", "ci_high"]
    cal = m["calibration"].iloc[0]
    assert cal["brier"] < cal["brier_base_rate"]
    rel = m["reliability"]
    assert rel["n"].sum() == cal["n_test"]
    # a calibrated model: observed rates within their intervals of the predictions, mostly
    inside = (rel["ci_low"] <= rel["mean_predicted"]) & (rel["mean_predicted"] <= rel["ci_high"])
    assert inside.mean() >= 0.7
    null = A.win_model(synthetic(6000, seed=5))["coefficients"]
    assert null.loc["start_pips_1", "p_value"] > 0.001


def test_win_model_samples_large_sources_under_its_cap(frames):
    m = A.win_model(frames, cap=400)
    s = m["sample"].iloc[0]
    assert s["stride"] == 3  # 240 games * 4 seats / 400 -> every 3rd game
    assert m["calibration"].iloc[0][["n_train", "n_test"]].sum() == 80 * 4


# --- the statistics helpers ----------------------------------------------------------------


def test_histograms_add_up_and_describe_like_numpy():
    rng = np.random.default_rng(0)
    a, b = rng.poisson(5, 300) - 3, rng.poisson(9, 200)
    h = S.Hist.of(a) + S.Hist.of(b)
    assert h == S.Hist.of(np.concatenate([a, b]))
    x = np.concatenate([a, b])
    d = S.describe(h)
    assert d["n"] == 500 and d["mean"] == pytest.approx(x.mean())
    assert d["sd"] == pytest.approx(x.std(ddof=1))
    assert d["p90"] == np.quantile(x, 0.9, method="inverted_cdf")
    assert d["max"] == x.max()


def test_wilson_and_rate_table_match_scipy():
    t = S.rate_table(pd.DataFrame({"n": [20, 0, 5], "k": [7, 0, 5]}), "k")
    ci = st.binomtest(7, 20).proportion_ci(0.95, method="wilson")
    assert (t.ci_low[0], t.ci_high[0]) == pytest.approx((ci.low, ci.high), rel=1e-12)
    assert np.isnan(t.rate[1]) and np.isnan(t.ci_low[1])
    assert t.ci_high[2] == pytest.approx(1.0)


def test_p_values_in_sentences_never_read_zero():
    from scipy.stats import chi2

    assert S.format_p(0.0321) == "p = 0.032" and S.format_p(5.8e-36) == "p = 5.8e-36"
    underflow = chi2.sf(16773, 159)  # the openings study's node x seat test
    assert underflow == 0.0 and S.format_p(underflow) == "p < 1e-300"
    assert S.format_p(float("nan")) == "p = n/a"


def test_p_values_in_tables_and_printed_frames_never_read_zero():
    """The HTML tables of every report and the CLI's printed tables showed 4.13e-33 as
    '0' (a float format); p-value columns are text now, other columns unchanged."""
    from catansim.analysis.summary import _fmt_table
    from catansim.reports.html import table_html

    t = pd.DataFrame({"diff": [0.0123, 0.5], "p_value": [4.13e-33, 0.0],
                      "p_adjusted": [0.0421, np.nan], "p_hat": [1e-40, 0.2]},
                     index=pd.Index(["a", "b"], name="arm"))
    shown = S.with_p_text(t)
    assert list(shown["p_value"]) == ["4.1e-33", "< 1e-300"]
    assert list(shown["p_adjusted"]) == ["0.042", ""]
    assert shown["diff"].equals(t["diff"]) and shown["p_hat"].equals(t["p_hat"])
    cells = re.findall(r"<td[^>]*>([^<]*)</td>", table_html(t))
    assert cells == ["a", "0.012", "4.1e-33", "0.042", "0", "b", "0.500", "&lt; 1e-300", "",
                     "0.200"]
    text = _fmt_table(t)
    assert "4.1e-33" in text and "< 1e-300" in text and "0.000" not in text.split("\n")[1]


def test_unbounded_intervals_print_as_text_and_the_others_as_numbers():
    t = pd.DataFrame({"log_strength": [0.5, -26.4, 0.1], "ci_low": [0.1234, -35455.8, np.nan],
                      "ci_high": [0.9, 35403.0, np.nan]}, index=["a", "b", "c"])
    shown = S.with_unbounded_text(t, [True, False, True], digits=2)
    assert list(shown["ci_low"]) == ["0.12", "unbounded", "NaN"]
    assert list(shown["ci_high"]) == ["0.90", "unbounded", "NaN"]
    assert shown["log_strength"].equals(t["log_strength"])
    assert t["ci_low"].iloc[1] == -35455.8  # the frame itself is kept
    # all bounded: the numbers themselves, so the table prints as the plain one does
    plain = S.with_unbounded_text(t, [True, True, True], digits=2)
    assert plain.equals(t) and plain is not t
    assert plain.to_string() == t.to_string()


def test_holm_and_bh_corrections():
    p = [0.01, 0.04, 0.03, np.nan, 0.5]
    adj, sig = S.adjust(p, "holm")
    assert adj[0] == pytest.approx(0.04) and np.isnan(adj[3]) and list(sig) == [
        True, False, False, False, False]
    adj, _ = S.adjust(p, "fdr_bh")
    assert adj[0] == pytest.approx(0.04) and adj[2] == pytest.approx(0.04 * 4 / 3)


def test_power_against_the_textbook_formula():
    h = 2 * np.arcsin(np.sqrt(0.27)) - 2 * np.arcsin(np.sqrt(0.25))
    # the arcsine transform has variance 1/n per arm: n = 2 (z_a + z_b)^2 / h^2 per arm
    textbook = 2 * ((st.norm.ppf(0.975) + st.norm.ppf(0.8)) / h) ** 2
    assert S.games_for_rates(0.25, 0.27) == pytest.approx(textbook, rel=1e-3)
    z = (st.norm.ppf(0.975) + st.norm.ppf(0.8)) ** 2
    assert S.games_for_paired_mean(1.0, 10.0) == pytest.approx(z * 100, rel=0.02)
    assert S.games_for_unpaired_mean(1.0, 10.0) == pytest.approx(2 * z * 100, rel=0.02)
    assert S.games_for_seat_shares([0.25] * 4) == np.inf


def test_summary_labels(dataset, frames):
    from catansim.analysis.summary import format_paired, format_summary, summarize_run

    tables, paired = summarize_run(dataset)
    text = format_summary(tables["baseline"])
    assert "seat_games" in text and "\n\n" in text
    assert not any(line.strip() == "" for block in text.split("\n\n") for line in
                   block.splitlines())  # no empty header line in any table
    assert "rolls" in text and "robber_moves" in text and "games_with_shortage" in text
    assert "Paired differences" in format_paired(paired)
    assert set(paired.index.get_level_values("variant")) == {"friendly", "off"}


def test_errors_are_one_line(tmp_path):
    from catansim.errors import CatansimError

    with pytest.raises(CatansimError, match="not a catansim dataset"):
        A.game_length(tmp_path)
    with pytest.raises(CatansimError, match="missing columns"):
        A.game_length((pd.DataFrame({"variant": [], "game": []}), pd.DataFrame(
            {"variant": [], "game": []})))


def test_variant_names_are_checked_before_anything_is_read(dataset, frames):
    """A variant filter or a baseline that the source does not have is a one-line
    error listing the variants it has (it used to give an empty table or a misleading
    "no complete parts"); one name alone is a filter of one."""
    from catansim.errors import CatansimError

    allowed = "allowed: baseline, friendly, off"
    for source in (dataset, frames):
        with pytest.raises(CatansimError, match=f"variants: 'of' not in the source; {allowed}"):
            A.seat_win_rates(source, variants=["friendly", "of"])
        with pytest.raises(CatansimError, match=f"baseline: 'Baseline' is not a variant of "
                                                f"the source; {allowed}"):
            A.paired_differences(source, baseline="Baseline")
        with pytest.raises(CatansimError, match="variant: 'nope' is not a variant"):
            A.win_model(source, variant="nope")
        # the filter applies first: a baseline filtered out is not there
        with pytest.raises(CatansimError, match="baseline: 'off' .*; allowed: baseline, friendly$"):
            A.paired_differences(source, baseline="off", variants=["baseline", "friendly"])
        one = A.seat_win_rates(source, variants="friendly")
        pd.testing.assert_frame_equal(one, A.seat_win_rates(source, variants=["friendly"]))
        assert set(one.index.get_level_values("variant")) == {"friendly"}
        vs_friendly = A.paired_differences(source, baseline="friendly")
        assert set(vs_friendly.index.get_level_values("variant")) == {"baseline", "off"}


def _source_functions():
    """Every public analysis function that takes a source and hands keywords to run."""
    import importlib
    import inspect
    import pkgutil

    import catansim.analysis as pkg

    found = {}
    for info in pkgutil.iter_modules(pkg.__path__):
        if info.name == "driver":  # run and run_many spell their keywords out
            continue
        mod = importlib.import_module(f"catansim.analysis.{info.name}")
        for name, f in vars(mod).items():
            if (inspect.isfunction(f) and f.__module__ == mod.__name__
                    and not name.startswith("_")
                    and next(iter(inspect.signature(f).parameters), None) == "source"):
                found[f"{info.name}.{name}"] = f
    return found


def test_source_functions_name_themselves_for_an_unknown_keyword(frames):
    """A misspelt keyword names the function called and what it takes (it used to name
    run_many()), and help() shows run_many's keywords rather than **kw."""
    import inspect

    from catansim.errors import CatansimError

    funcs = _source_functions()
    run_like = {}
    for label, f in funcs.items():
        params = inspect.signature(f).parameters
        assert not any(p.kind is p.VAR_KEYWORD for p in params.values()), label
        if "progress" in params:
            assert {"variants", "scheduler"} <= set(params), label
            run_like[label] = f
    assert len(run_like) >= 30 and "seats.win_rates" in run_like
    for f in run_like.values():
        with pytest.raises(CatansimError, match=rf"^{f.__name__}: unknown keyword argument "
                                                r"'progres'; allowed: .*progress"):
            f(frames, progres=True)
    # the keywords still reach run_many
    rates = A.win_rates(frames, by="seat", variants=["friendly"], progress=False)
    assert set(rates.index.get_level_values("variant")) == {"friendly"}


# --- cross-play --------------------------------------------------------------------------


def test_crossplay_part_at_a_time_equals_the_whole(tmp_path):
    """A run of one default against three armies, rotated: cross-play cells of a dataset."""
    from catansim.analysis import crossplay as X

    spec = {"name": "x", "games": 120, "seed": 4, "batch_size": 50, "rotate": True,
            "strategies": ["default", "army", "army", "army"]}
    run_experiment(parse_experiment(spec), out=tmp_path / "x", progress=False)
    a = X.crossplay_table(tmp_path / "x")
    pd.testing.assert_frame_equal(a, X.crossplay_table(catansim.load(tmp_path / "x")))
    assert list(a.index.get_level_values("opponent").unique()) == ["army"]
    assert a.loc[("default", "army", "all"), "games"] == 120


def test_crossplay_cells_against_direct_counts_and_scipy():
    from statsmodels.stats.multitest import multipletests

    from catansim.analysis import crossplay as X
    from catansim.runs.tournament import cross_play

    res = cross_play(["default", "random", "builder"], 40, 4, seed=6)
    t = X.crossplay_table((res.games, res.players))
    single = res.single()  # the tournament's own rows of the single strategy
    direct = single.groupby(["strategy", "opponent"]).won.agg(["size", "sum"])
    pooled = t.xs("all", level="seat")
    assert list(pooled["games"]) == list(direct["size"])
    assert list(pooled["wins"]) == list(direct["sum"])
    p = [st.binomtest(int(k), int(n), 0.25).pvalue for n, k in direct.to_numpy()]
    np.testing.assert_allclose(pooled["p_value"], p)
    np.testing.assert_allclose(pooled["p_adjusted"], multipletests(p, method="holm")[1])
    seat = t.xs(("default", "random"), level=["strategy", "opponent"]).drop(index="all")
    assert list(seat.index) == ["0", "1", "2", "3"] and (seat["games"] == 10).all()
    # default alone beats three random players; random alone loses to three defaults
    assert pooled.loc[("default", "random"), "verdict"] == "beats"
    assert pooled.loc[("random", "default"), "verdict"] == "loses to"
    assert "random" in X.counters(t).loc["default", "beats"].split(", ")
    assert res.counters().loc["default", "beats"] == X.counters(t).loc["default", "beats"]


def test_crossplay_verdicts_need_significance_after_correction():
    """Two labels, winners drawn at random: many cells differ from 0.25 by chance, none
    is labelled after Holm; a planted advantage is."""
    from catansim.analysis import crossplay as X

    def frames(weights, seed):
        g, p = synthetic(2000, seat_weights=weights, seed=seed)
        alone = (p["game"] % 4).to_numpy() == p["seat"].to_numpy()  # rotates the single seat
        p["strategy"] = pd.Categorical(np.where(alone, "a", "b"))
        g2, p2 = synthetic(2000, seat_weights=weights, seed=seed + 1)
        alone2 = (p2["game"] % 4).to_numpy() == p2["seat"].to_numpy()
        p2["strategy"] = pd.Categorical(np.where(alone2, "b", "a"))
        p2["variant"] = pd.Categorical(["other"] * len(p2))
        g2["variant"] = pd.Categorical(["other"] * len(g2))
        return (pd.concat([g, g2], ignore_index=True), pd.concat([p, p2], ignore_index=True))

    null = X.crossplay_table(frames((1, 1, 1, 1), 11))
    assert (null["verdict"] == "not significant").all()
    # the seat advantage of seat 0 makes whoever sits there win more: per-seat cells of
    # seat 0 beat the fair share, the pooled ones (all seats) need not
    planted = X.crossplay_table(frames((2.0, 1, 1, 1), 13))
    seat0 = planted.xs("0", level="seat")
    assert (seat0["verdict"] == "beats").all()
    assert X.dominant(planted) == []


def test_the_analysis_layer_imports_no_engine_runner_or_matplotlib():
    import subprocess
    import sys

    code = ("import sys, catansim.analysis, catansim.analysis.crossplay; "
            "bad = [m for m in ('matplotlib', 'catansim.engine', 'catansim.runs', "
            "'catansim.plotting', 'catansim.reports') if m in sys.modules]; "
            "print(bad); sys.exit(1 if bad else 0)")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr


def test_wilson_ci_broadcasts_one_n_over_many_counts():
    from statsmodels.stats.proportion import proportion_confint

    from catansim.analysis.stats import wilson_ci

    low, high = wilson_ci([1, 2, 30], 100)
    for i, k in enumerate([1, 2, 30]):
        assert (low[i], high[i]) == pytest.approx(proportion_confint(k, 100, method="wilson"))
    low, high = wilson_ci([0, 5], [0, 10])
    assert np.isnan(low[0]) and np.isnan(high[0])
    assert (low[1], high[1]) == pytest.approx(proportion_confint(5, 10, method="wilson"))


@pytest.mark.parametrize("effect", [40.0, 5.4612560447274525, 2.5, 0.1])
def test_pairs_needed_is_finite_and_silent_for_any_effect(effect, recwarn):
    from statsmodels.stats.power import TTestPower

    n = S.games_for_paired_mean(effect, 1.0)
    assert np.isfinite(n) and not recwarn.list
    assert TTestPower().power(effect, max(n, 3.0), 0.05) >= 0.8 - 1e-9
    if n > 3:  # the fewest that detect it: one fewer does not
        assert not TTestPower().power(effect, np.floor(n) - 1, 0.05) >= 0.8


def _table(**columns):
    from catansim.analysis.table import result_table

    return result_table(pd.DataFrame(columns, index=pd.Index(["a", "b", "c"], name="row")))


def test_a_result_table_prints_numbers_first_and_its_constant_words_once(monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    t = _table(label=["first row", "second row", "third row"], significant=[True, False, True],
               n=[10, 20, 30], rate=[0.123456, 0.5, 0.25],
               method=["Wilson score interval"] * 3)
    text = repr(t)
    header = text.splitlines()[0].split()
    assert header == ["n", "rate", "significant", "label"]  # numbers, flags, then words
    assert "0.1235" in text and "0.123456" not in text  # DIGITS decimals shown
    assert text.splitlines()[-1] == "method: Wilson score interval"  # said once, below
    assert text.count("Wilson") == 1
    assert str(t) == text
    # the data, the HTML and what is computed from it are a DataFrame's
    assert t.columns.tolist() == ["label", "significant", "n", "rate", "method"]
    assert t["rate"].iloc[0] == 0.123456
    assert "Wilson score interval" in t._repr_html_()
    assert type(t.head(2)).__name__ == "ResultTable" and type(t["n"]) is pd.Series
    pd.testing.assert_frame_equal(pd.DataFrame(t), pd.DataFrame(t.copy()))


def test_a_result_table_too_wide_shows_its_first_columns_and_names_the_rest(monkeypatch):
    monkeypatch.setenv("COLUMNS", "40")
    t = _table(**{f"measure_{i}": [1.0 * i, 2.0, 3.0] for i in range(8)},
               label=["a long label of the row"] * 2 + ["another"])
    lines = repr(t).splitlines()
    assert max(len(x) for x in lines if not x.startswith("... ")) <= 40
    assert lines[0].split() == ["measure_0", "measure_1", "measure_2"]
    rest = " ".join(" ".join(lines[lines.index(next(x for x in lines
                                                    if x.startswith("... "))):]).split())
    assert rest.startswith("... 6 more columns: measure_3, measure_4")
    assert rest.split()[-1] == "label"


def test_analysis_tables_print_their_numbers_first(frames, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    seats = repr(A.seat_win_rates(frames)).splitlines()
    assert seats[0].split() == ["seat_games", "wins", "win_rate", "ci_low", "ci_high"]
    assert seats[-1].startswith("method: Wilson")
    paired = repr(A.paired_differences(frames)).splitlines()
    assert paired[0].split()[:6] == ["n", "base_mean", "mean", "diff", "ci_low", "ci_high"]
    assert paired[-1].startswith("correction: Holm over the")
    assert all(len(x) <= 80 for x in paired)
