"""``catansim bench``: the table it prints and its input checks (no timing thresholds)."""

import re
import shutil

import pytest
from click.testing import CliRunner

from catansim.cli import cli


def test_bench_prints_a_markdown_table_of_positive_rates():
    result = CliRunner().invoke(
        cli, ["bench", "--games", "200", "--e2e-games", "200", "--no-compile",
              "--strategies", "random"]
    )
    assert result.exit_code == 0, result.output
    rows = dict(re.findall(r"^\| (.+?) \| (.+?) \|$", result.stdout, re.M))
    assert rows["games"] == "4 players, strategies random"
    rates = {k: v for k, v in rows.items() if k.startswith("games/s, ")}
    assert len(rates) == 2 and all("(best of 2" in k for k in rates)  # 1 core, all cores
    for value in rates.values():
        assert float(value.split()[0].replace(",", "")) > 0
    e2e = next(v for k, v in rows.items() if k.startswith("end to end"))
    assert float(e2e.split()[0].replace(",", "")) > 0
    assert "compile, cold" not in rows  # --no-compile


def test_bench_rejects_an_unknown_strategy():
    result = CliRunner().invoke(cli, ["bench", "--strategies", "nobody", "--no-compile"])
    assert result.exit_code != 0
    assert "unknown" in str(result.exception or result.output)


def test_a_sample_too_short_to_time_is_widened():
    """A fake clock (seconds proportional to games) shows the widening rule: a sample is
    doubled (or scaled) until it takes MIN_SAMPLE_SECONDS; nothing is extrapolated
    from a sample that took no measurable time."""
    from catansim.runs import bench

    calls = []

    def measure(n):
        calls.append(n)
        return n * 1e-5  # 100,000 games/s

    n, seconds = bench._widened(measure, 100)
    assert seconds >= bench.MIN_SAMPLE_SECONDS and n >= 50_000
    assert calls[0] == 100 and calls == sorted(calls) and len(calls) <= 4
    zero = []
    n, seconds = bench._widened(lambda k: zero.append(k) or (0.0 if k < 800 else 1.0), 100)
    assert zero == [100, 200, 400, 800] and (n, seconds) == (800, 1.0)  # a 0.0 s sample doubles
    assert bench._widened(lambda k: 0.0, bench.MAX_SAMPLE_GAMES // 3)[0] == bench.MAX_SAMPLE_GAMES


def test_bench_says_when_it_widened_a_sample():
    from catansim.runs import bench

    r = {"machine": "m", "players": 4, "strategies": "random", "rate_1": 1.0, "rate_all": 2.0,
         "cores": 2, "speedup": 2.0, "e2e_games": 800, "e2e_rate": 1.0, "e2e_s": 1.0,
         "million_s": 1e6, "widened": ["end to end 100 -> 800 games"]}
    assert "| samples widened to time at least 0.5 s | end to end 100 -> 800 games |" in \
        bench.markdown(r)


def test_analysis_benchmark_script_runs(tmp_path):
    """benchmarks/analysis_bench.py on a small dataset: the one-pass row with a time and a
    peak memory (the figures themselves are in docs/benchmarks.md)."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    from catansim.runs.experiment import parse_experiment
    from catansim.runs.runner import run_experiment

    root = Path(__file__).resolve().parents[1]
    ds = tmp_path / "ds"
    run_experiment(parse_experiment({"games": 60, "batch_size": 30}), out=ds, progress=False)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(root), *filter(None, [os.environ.get("PYTHONPATH")])]))
    out = subprocess.run([sys.executable, str(root / "benchmarks" / "analysis_bench.py"),
                          str(ds)], check=True, capture_output=True, text=True,
                         env=env).stdout
    rows = re.findall(r"^\| (.+?) \| ([\d.]+) \| (\d+) \|$", out, re.M)
    assert len(rows) == 1 and rows[0][0].startswith("**all analyses of the report")
    assert float(rows[0][1]) > 0 and int(rows[0][2]) > 50  # MiB: the interpreter alone is more


def test_the_numba_floor_is_a_fresh_process_loading_a_kernel_from_the_cache():
    from catansim.runs import bench

    assert bench.numba_start_floor() > 0  # raises unless the second process hit the cache
    r = {"machine": "m", "players": 4, "strategies": "default", "rate_1": 1.0, "rate_all": 2.0,
         "cores": 2, "speedup": 2.0, "e2e_games": 800, "e2e_rate": 1.0, "e2e_s": 1.0,
         "million_s": 1e6, "compile_cold_s": 30.0, "compile_warm_s": 1.4, "numba_floor_s": 1.2}
    table = bench.markdown(r)
    assert "| compile, warm (from cache) | 1.4 s |" in table
    assert "| warm start of a one-line Numba kernel (the floor here) | 1.2 s |" in table


def _instructions_module():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "instructions.py"
    spec = importlib.util.spec_from_file_location("catansim_instructions_bench", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_instruction_profile_names_kernels_and_sums_them_per_function(tmp_path, monkeypatch):
    """benchmarks/instructions.py --by-kernel: a Numba symbol becomes module.function, and
    every callgrind row is summed into the compiled function whose span holds its address
    (rows of libraries valgrind knows keep their own names)."""
    m = _instructions_module()
    assert m._kernel_name("_ZN8catansim4core9policy_nb16choose_action_nbB3v98B50c8tJTIeFIj"
                          "E5ArrayIdLi1E1C7mutable7alignedE") == "policy_nb.choose_action_nb"
    assert m._kernel_name("_ZN5numba7cpython7helpers3fooB2v1E") == \
        "_ZN5numba7cpython7helpers3fooB2v1E"
    symbols = tmp_path / "symbols.map"
    symbols.write_text("1000 100 _ZN8catansim4core8rules_nb10produce_nbB3v90E\n"
                       "2000 40 _ZN8catansim4core9engine_nb13play_batch_nbB4v140E\n")
    asked = []
    monkeypatch.setattr(m, "_annotated", lambda profile, event="Ir": asked.append(event) or [
        (1000, "PROGRAM TOTALS"),
        (300, "???:0x0000000000001000 [???]"),      # produce_nb's entry
        (200, "???:0x00000000000010ff [???]"),      # its last byte
        (250, "???:0x0000000000002010 [???]"),      # play_batch_nb
        (150, "???:0x0000000000001100 [???]"),      # between the two: no kernel
        (100, "./string/memset.S:__memset_avx2_unaligned_erms [/usr/lib/libc.so.6]"),
    ])
    assert m.by_kernel("profile", str(symbols)) == [
        (500, "rules_nb.produce_nb"), (250, "engine_nb.play_batch_nb"),
        (150, "(unmapped machine code)"), (100, "__memset_avx2_unaligned_erms")]
    m.by_kernel("profile", str(symbols), "Bcm")  # mispredicted branches, the same sums
    assert asked == ["Ir", "Bcm"]


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("valgrind") is None, reason="needs Debian's valgrind")
def test_only_the_games_are_counted_and_their_branches_add_up():
    """One run under valgrind (minutes long), four games, with --branches: the count is
    the games' own, a few hundred thousand instructions a game, so the fixed cost
    around them (loading the kernels: hundreds of millions of instructions, tens of
    millions a game here) is not in it; callgrind's simulated mispredictions per game
    are conditional plus indirect, fewer than the instructions."""
    import subprocess
    import sys
    from pathlib import Path

    from catansim.core import engine_fingerprint

    script = Path(__file__).resolve().parents[1] / "benchmarks" / "instructions.py"
    out = subprocess.run([sys.executable, str(script), "--games", "4", "--branches"],
                         check=True, capture_output=True, text=True).stdout
    total, games, per_game, engine = re.search(
        r"([\d,]+) instructions for (\d+) games.*: ([\d,]+) per game \(engine (\w+) ",
        out).groups()
    assert engine == engine_fingerprint()  # the catansim beside the script was counted
    total, per_game = int(total.replace(",", "")), int(per_game.replace(",", ""))
    assert games == "4" and abs(total - 4 * per_game) <= 4  # per game rounded
    assert 100_000 < per_game < 2_000_000
    missed, conditional, indirect = (int(v.replace(",", "")) for v in re.search(
        r"([\d,]+) mispredicted branches per game .*\(([\d,]+) conditional, ([\d,]+) "
        r"indirect\)", out).groups())
    assert abs(missed - (conditional + indirect)) <= 1  # each rounded on its own
    assert 0 < conditional < per_game / 10


def test_paired_timing_runs_both_checkouts_on_the_same_games(tmp_path):
    """``benchmarks/paired.py`` against this same checkout: both sides name this engine,
    play the same games, and every pair has its rates and ratio."""
    import subprocess
    import sys
    from pathlib import Path

    from catansim.core import engine_fingerprint

    root = Path(__file__).resolve().parents[1]
    script = root / "benchmarks" / "paired.py"
    r = subprocess.run([sys.executable, str(script), str(root), "--pairs", "2", "--games", "40"],
                       capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0, r.stderr[-2000:]
    out = r.stdout
    assert out.count(f"engine {engine_fingerprint()} ({root / 'catansim'})") == 2
    rows = re.findall(r"^\| (\d) \| ([\d,]+) \| ([\d,]+) \| (\d+\.\d{3}) \|$", out, re.M)
    assert [row[0] for row in rows] == ["1", "2"]
    for _, a, b, ratio in rows:
        a, b = int(a.replace(",", "")), int(b.replace(",", ""))
        assert a > 0 and b > 0 and abs(float(ratio) - a / b) < 0.01
    assert "games: the same in both engines" in out
    assert re.search(r"median \d\.\d{3} \(\d\.\d{3}-\d\.\d{3}\), [012] of 2 faster", out)


def test_paired_timing_refuses_what_is_not_a_checkout(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).resolve().parents[1] / "benchmarks" / "paired.py"
    r = subprocess.run([sys.executable, str(script), str(tmp_path)], capture_output=True,
                       text=True)
    assert r.returncode == 1
    assert r.stderr.strip() == f"{tmp_path}: not a catansim checkout (no catansim/core/__init__.py)"
    r = subprocess.run([sys.executable, str(script), str(tmp_path), "--pairs", "0"],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "--pairs: 0; allowed: an integer >= 1" in r.stderr
    root = Path(__file__).resolve().parents[1]
    r = subprocess.run([sys.executable, str(script), str(root), "--strategy", "nosuch",
                        "--games", "2"], capture_output=True, text=True)
    assert r.returncode == 1
    assert len(r.stderr.strip().splitlines()) == 1
    assert ("the timed process failed (exit 1): strategies: unknown strategy 'nosuch'; "
            "allowed: ") in r.stderr
