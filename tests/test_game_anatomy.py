"""A game's anatomy (``analysis.anatomy.log_measures`` and ``anatomy``): each figure
against a naive count from the event log of games played here, or a known answer."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from test_viewer import public_counts

import catansim
from catansim.analysis import anatomy as AN
from catansim.analysis import stats as S
from catansim.engine import play_batch
from catansim.logs import game_log
from catansim.results.tables import games_frame, players_frame


def _naive(header: dict, events: list[dict]) -> dict:
    """Hand sizes at every turn end (``test_viewer.public_counts``: every card in and out
    of a hand, counted event by event with nothing of the replayer) and 7s with a
    discard (the rolls of 7 that some ``discard`` follows)."""
    counts = public_counts(header["n_players"], events)
    ends = [c["hand"] for c, ev in zip(counts, events, strict=True) if ev["e"] == "turn_end"]
    assert min(min(h) for h in ends) >= 0
    rolls = [i for i, ev in enumerate(events) if ev["e"] == "roll"]
    sevens = [i for i in rolls if sum(events[i]["dice"]) == 7]
    followed = {max(r for r in rolls if r < i) for i, ev in enumerate(events)
                if ev["e"] == "discard"}
    assert followed <= set(sevens)
    return {"ends": np.array(ends, dtype=float), "sevens": len(sevens),
            "sevens_discard": len(followed)}


@pytest.fixture(scope="module")
def logs():
    """Games of three kinds of table, with their logs: enough 7s with discards, trades,
    Inventions and Monopolies to exercise every branch of the naive count."""
    out = []
    for seed in range(3):
        for strategies in (["default"] * 4, ["classic"] * 4, ["random"] * 3):
            out.append(game_log(catansim.play_game(seed, len(strategies), strategies)))
    return out


def test_hands_at_turn_ends_and_sevens_with_a_discard_match_a_naive_count(logs):
    kinds = set()
    for header, events in logs:
        got = AN.log_measures(header, events)
        want = _naive(header, events)
        limit = header["rules"]["discard_limit"]
        assert got["turn_ends"] == len(want["ends"]) > 0
        assert got["held_mean"] == pytest.approx(want["ends"].mean(), abs=1e-12)
        assert got["over_limit_share"] == pytest.approx((want["ends"] > limit).mean(),
                                                        abs=1e-12)
        assert (got["sevens"], got["sevens_discard"]) == (want["sevens"],
                                                          want["sevens_discard"])
        kinds |= {ev["e"] if ev["e"] != "play_dev" else ev["card"] for ev in events}
    assert {"discard", "trade_player", "trade_bank", "invention", "monopoly"} <= kinds
    assert any(AN.log_measures(*lg)["over_limit_share"] > 0 for lg in logs)


def test_no_discard_limit_gives_no_share_above_it(logs):
    header, events = logs[0]
    free = {**header, "rules": {**header["rules"], "discard_limit": None}}
    got = AN.log_measures(free, [ev for ev in events if ev["e"] != "discard"])
    assert np.isnan(got["over_limit_share"])
    assert got["sevens_discard"] == 0


@pytest.fixture(scope="module")
def run():
    """40 games of four default players: their tables and their log measures."""
    seeds = np.arange(100, 140, dtype=np.int64)
    results = [catansim.play_game(int(s), 4, ["default"] * 4) for s in seeds]
    settings = results[0].settings
    batch = play_batch(seeds, settings, n_threads=1)
    g, p = games_frame(batch), players_frame(batch)
    lg = pd.DataFrame([AN.log_measures(*game_log(r)) for r in results]).assign(
        variant="baseline", game=np.arange(len(seeds)))
    return g, p, lg, results


def test_the_anatomy_table_against_plain_pandas_and_scipy(run):
    g, p, lg, results = run
    t = AN.anatomy(g, p, lg).loc["baseline"]
    assert list(t.index) == [m[0] for m in AN.ANATOMY_MEASURES]

    def t_interval(x):
        x = np.asarray(x, dtype=float)
        lo, hi = stats.t.interval(0.95, len(x) - 1, loc=x.mean(), scale=stats.sem(x))
        return [len(x), x.mean(), lo, hi]

    def check(measure, x):
        row = t.loc[measure]
        np.testing.assert_allclose([row["n"], row["mean"], row["ci_low"], row["ci_high"]],
                                   t_interval(x), rtol=1e-9, atol=1e-12)

    # rolls and turns from the games themselves, not the table's columns
    check("rolls", [sum(1 for ev in game_log(r)[1] if ev["e"] == "roll") for r in results])
    check("turns", [r.turns for r in results])
    winners = p[p["won"]]
    assert len(winners) == len(results)
    for c in ("vp", "vp_cities", "vp_cards"):
        check(f"winner_{c}", winners[c])
    check("dev_bought_knight", p.groupby("game")["dev_bought_knight"].sum())
    check("trades_player", p.groupby("game")["trades_player"].sum() / 2)
    check("cities_per_seat", p.groupby("game")["vp_cities"].sum() / 2 / 4)
    check("held_mean", lg["held_mean"])
    # the winner's VP add up to its sources
    src = sum(t.loc[f"winner_{c}", "mean"] for c in ("vp_settlements", "vp_cities",
                                                      "vp_longest", "vp_army", "vp_cards"))
    assert src == pytest.approx(t.loc["winner_vp", "mean"])
    # a winner holding the tile: Wilson over the games with a winner
    k = int((g["longest_holder"] == g["winner"]).fillna(False).sum())
    lo, hi = S.wilson_ci([k], [len(g)])
    assert t.loc["winner_holds_longest", ["mean", "ci_low", "ci_high"]].tolist() == \
        pytest.approx([k / len(g), lo[0], hi[0]])
    assert t.loc["winner_holds_longest", "mean"] * 2 == pytest.approx(
        t.loc["winner_vp_longest", "mean"])
    # the share of 7s with a discard is the ratio of the sums, inside its interval
    share = t.loc["sevens_discard_share"]
    assert share["mean"] == lg["sevens_discard"].sum() / lg["sevens"].sum()
    assert share["ci_low"] < share["mean"] < share["ci_high"]
    assert share["method"] == S.RATIO_BOOTSTRAP


def test_mean_ci_and_ratio_ci_known_answers():
    r = S.mean_ci([1.0, 2.0, 3.0, np.nan])
    assert r["n"] == 3 and r["mean"] == 2.0
    half = stats.t.ppf(0.975, 2) * 1.0 / np.sqrt(3)
    assert (r["ci_low"], r["ci_high"]) == pytest.approx((2 - half, 2 + half))
    assert S.mean_ci([5.0, 5.0])["ci_low"] == 5.0
    assert np.isnan(S.mean_ci([]).get("mean"))
    # every game the same ratio: the interval is that ratio
    same = S.ratio_ci([1, 2, 3], [2, 4, 6])
    assert (same["mean"], same["ci_low"], same["ci_high"]) == pytest.approx((0.5, 0.5, 0.5))
    assert np.isnan(S.ratio_ci([0, 0], [0, 0])["mean"])
