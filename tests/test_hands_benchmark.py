"""``benchmarks/hands.py`` counts what it says, checked against the games' own counters.

Oracles: ``c_first_city`` (a seat that never builds a city has -1), the log's
``turn_end`` events (every turn end counts four seat hands, one of them its player's
own), and the replayed hands themselves (the largest hand at any turn end is at least
the largest at the seat's own).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np

from catansim.core import layout as L
from catansim.engine import play_game
from catansim.logs import game_log
from catansim.rules import Rules
from catansim.strategies import PRESETS

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import hands as H  # noqa: E402  (the benchmarks folder is put on the path first)


def test_a_games_counts_match_its_counters_and_its_log():
    for seed in range(4):
        row = H.game_hands(seed, "default", Rules(), PRESETS)
        res = play_game(seed, 4, ["default"] * 4)
        _, events = game_log(res)
        ends = sum(e["e"] == "turn_end" for e in events)
        assert row["city"] == [bool(x >= 0) for x in L.counter(res.counters, "c_first_city")]
        assert row["hands"] == 4 * ends and row["own"] == ends
        assert 0 <= row["own_over"] <= row["over"] <= row["hands"]
        assert all(a >= b for a, b in zip(row["largest"], row["largest_own"], strict=True))


def test_the_figures_are_the_shares_of_the_games_rows():
    rows = [H.game_hands(s, "classic", Rules(), PRESETS) for s in range(5)]
    f = H.figures("classic", 5, 0)
    no_city = sum(not c for r in rows for c in r["city"])
    assert f["no_city"][0] == no_city / 20 and f["seat_games"] == 20
    big = sum(x >= H.BIG_HAND for r in rows for x in r["largest"])
    assert f["big_hand"][0] == big / 20
    over = np.array([r["over"] for r in rows]).sum() / np.array([r["hands"] for r in rows]).sum()
    assert f["over_limit"][0] == over and f["over_limit"][1] <= over <= f["over_limit"][2]


def test_the_script_prints_the_three_figures_and_refuses_bad_input_in_one_line():
    def run(*args):
        return subprocess.run([sys.executable, str(ROOT / "benchmarks" / "hands.py"), *args],
                              capture_output=True, text=True, cwd=ROOT, timeout=600)

    out = run("--games", "2")
    assert out.returncode == 0, out.stderr
    assert "four default, 2 games" in out.stdout and "never build a city" in out.stdout
    for args, needle in ((("--games", "0"), "--games: 0; allowed: an integer of at least 1"),
                         (("--strategy", "nope"), "--strategy: unknown strategy 'nope'")):
        bad = run(*args)
        assert bad.returncode != 0 and needle in bad.stderr and "Traceback" not in bad.stderr
