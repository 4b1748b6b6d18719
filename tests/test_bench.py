"""``catansim bench``: the table it prints and its input checks (no timing thresholds)."""

import re

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
    for key in ("games/s, 1 core", "games/s, 2 cores"):
        if key in rows:
            assert float(rows[key].split()[0].replace(",", "")) > 0
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
