"""Tournaments: seat rotation on shared deals, the tables, cross-play and the command."""

from __future__ import annotations

import re

import numpy as np
import pytest
from click.testing import CliRunner

from catansim.cli import cli
from catansim.engine import batch_seeds
from catansim.errors import CatansimError
from catansim.runs.tournament import cross_play, seat_rotations, tournament, wilson_ci


@pytest.mark.parametrize("n_players", [3, 4])
def test_seat_rotations_put_every_strategy_in_every_seat_once(n_players):
    names = ["builder", "city", "army", "expander"][:n_players]
    rots = seat_rotations(names, n_players)
    assert len(rots) == n_players
    for seat in range(n_players):
        assert sorted(r[seat] for r in rots) == sorted(names)
    for r in rots:
        assert sorted(r) == sorted(names)


def test_seat_rotations_need_one_name_per_seat():
    with pytest.raises(CatansimError, match="3 names for 4 players; allowed: exactly 4"):
        seat_rotations(["a", "b", "c"], 4)


def test_tournament_rotates_seats_on_the_same_deals():
    res = tournament(["builder", "city", "army", "random"], 30, 4, seed=8)
    # The standard tables: game = deal * 4 + seating.
    g = res.players.assign(deal=res.players["game"] // 4, seating=res.players["game"] % 4)
    # 30 games round up to 8 deals x 4 rotations.
    assert len(res.games) == 32 and res.games["game"].tolist() == list(range(32))
    assert g.groupby(["seating", "deal"]).ngroups == 32
    counts = g.groupby(["strategy", "seat"], observed=True).size()
    assert (counts == 8).all() and len(counts) == 16
    # Every rotation of a deal plays the same seed, and deal d uses the run's d-th seed.
    seeds = g.groupby("deal")["seed"].agg(["nunique", "first"])
    assert (seeds["nunique"] == 1).all()
    assert np.array_equal(seeds["first"].to_numpy(), batch_seeds(8, 8))
    # The same deal with the same seating is the same game whatever else is played.
    again = tournament(["builder", "city", "army", "random"], 8, 4, seed=8).players
    a = res.players[res.players["game"] < 8]["vp"].to_numpy()
    b = again[again["game"] < 8]["vp"].to_numpy()
    assert np.array_equal(a, b)


def test_tournament_summary_counts_every_win_once():
    res = tournament(["default", "random", "random", "trader"], 40, 4, seed=1)
    summary = res.summary()
    n_games = len(res.games)
    no_winner = res.games["winner"].isna().sum()
    assert no_winner == res.players.groupby("game")["won"].sum().eq(0).sum()
    assert summary["wins"].sum() + no_winner == n_games
    assert set(summary.index) == {"default", "random", "trader"}
    assert summary.loc["random", "games"] == 2 * n_games
    assert ((summary["ci_low"] <= summary["win_rate"])
            & (summary["win_rate"] <= summary["ci_high"])).all()
    assert [c for c in summary.columns if c.startswith("seat_")] == [
        "seat_0", "seat_1", "seat_2", "seat_3"]
    assert summary.loc["default", "win_rate"] > summary.loc["random", "win_rate"]
    stats = res.game_stats()
    assert stats["games"] == n_games and stats["mean_turns"] > 0


def test_wilson_interval_matches_scipy():
    """statsmodels' Wilson interval (what wilson_ci uses) against scipy's, an independent
    implementation: equal to the last bits of a double."""
    from scipy.stats import binomtest

    lo, hi = wilson_ci([7, 0], [20, 0])
    ci = binomtest(7, 20).proportion_ci(0.95, method="wilson")
    np.testing.assert_allclose([lo[0], hi[0]], [ci.low, ci.high], rtol=1e-13)
    assert np.isnan(lo[1]) and np.isnan(hi[1])


def test_cross_play_puts_the_single_strategy_in_every_seat():
    res = cross_play(["builder", "random"], 8, 4, seed=2)
    tab = res.table()
    single = tab[tab["seat"] != "all"]
    assert set(single["strategy"]) == {"builder", "random"}
    assert (single["games"] == 2).all() and len(single) == 8
    m = res.matrix()
    assert m.loc["builder", "random"] > m.loc["random", "builder"]
    assert np.isnan(m.loc["builder"].get("builder", np.nan))
    assert res.counters().loc["builder", "beats"] == "random"


def test_tournament_command_prints_the_table():
    out = CliRunner().invoke(
        cli, ["tournament", "--strategies", "builder,city,army", "--players", "3",
              "--games", "6", "--quiet", "--threads", "1"])
    assert out.exit_code == 0, out.output
    assert "win_rate" in out.output and "ci_low" in out.output and "seat_2" in out.output
    assert "builder" in out.output and "6 games" in out.output


def test_tournament_command_matrix_and_config(tmp_path):
    cfg = tmp_path / "s.toml"
    cfg.write_text('[strategies.slow_city]\nbase = "city"\ndev_weight = 0.1\n')
    out = CliRunner().invoke(
        cli, ["tournament", "--strategies", "slow_city,builder", "--matrix", "--games", "4",
              "--config", str(cfg), "--quiet"])
    assert out.exit_code == 0, out.output
    assert "Cross-play" in out.output and "slow_city" in out.output
    assert "Dominates all others from every seat" in out.output


def test_tournament_command_rejects_unknown_names():
    out = CliRunner().invoke(cli, ["tournament", "--strategies", "builder,nobody,city,army",
                                   "--games", "4"])
    assert isinstance(out.exception, CatansimError)
    assert "unknown strategy 'nobody'" in str(out.exception)


def test_tournament_summary_prints_its_rates_first(monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    res = tournament(["builder", "city", "expander", "army"], 40, 4, seed=2, progress=False)
    lines = repr(res.summary()).splitlines()
    assert lines[0].split()[:5] == ["games", "wins", "win_rate", "ci_low", "ci_high"]
    assert all(len(x) <= 80 for x in lines)


def test_tournament_command_rating_has_integer_wins_and_seat_effects_apart():
    out = CliRunner().invoke(cli, ["tournament", "--games", "200", "--quiet", "--seed", "4"])
    assert out.exit_code == 0, out.output
    rating = out.output[out.output.index("Rating ("):]
    strategies, seats = rating.split("Seat effects")
    rows = [x.split() for x in strategies.splitlines()
            if x.split() and x.split()[0] in ("builder", "city", "expander", "army")]
    assert len(rows) == 4
    header = next(x.split() for x in strategies.splitlines() if x.split()[:1] == ["games"])
    wins = [r[header.index("wins") + 1] for r in rows]
    assert all(w.isdigit() for w in wins)  # 136, not 136.0000
    res = tournament(["builder", "city", "expander", "army"], 200, 4, seed=4, progress=False)
    assert sorted(int(w) for w in wins) == sorted(res.summary()["wins"].tolist())
    assert "NaN" not in rating and "nan" not in rating
    assert [x.split()[:2] for x in seats.splitlines()[2:5]] == [["seat", "1"], ["seat", "2"],
                                                                 ["seat", "3"]]


def test_tournament_command_says_unbounded_where_the_games_bound_no_rating():
    # random never beats default: no finite rating, and no seat told apart either
    out = CliRunner().invoke(cli, ["tournament", "--strategies", "default,random,random,random",
                                   "--games", "40", "--quiet", "--seed", "4"])
    assert out.exit_code == 0, out.output
    rating = out.output[out.output.index("Rating ("):]
    row = next(x.split() for x in rating.splitlines() if x.startswith("random "))
    assert row[4:6] == ["unbounded", "unbounded"]
    ref = next(x.split() for x in rating.splitlines() if x.startswith("default "))
    assert ref[4:6] == ["0.0000", "0.0000"]
    assert "unbounded: the games give no finite rating" in rating


def test_tournament_matrix_of_six_strategies_fits_100_columns():
    names = "builder,expander,city,army,trader,default"
    out = CliRunner().invoke(cli, ["tournament", "--strategies", names, "--matrix",
                                   "--games", "8", "--quiet", "--seed", "3"])
    assert out.exit_code == 0, out.output
    assert max(len(x) for x in out.output.splitlines()) <= 100
    assert "Their intervals:" in out.output
    assert re.search(r"\[0\.\d{3},0\.\d{3}\]", out.output)
