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
