"""What ``catansim --help`` and a refused argument import, and the nearest name a
mistyped one is offered (``checks.did_you_mean``).

The times are ``benchmarks/startup.py``'s (docs/benchmarks.md); here, what decides
them: ``--help`` imports no command and none of the heavy packages, and a refused
argument is refused before the runner, pandas or the analyses are imported.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from catansim.checks import did_you_mean
from catansim.cli import LazyGroup, _command_names, _short_help, cli

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("startup_bench", ROOT / "benchmarks" / "startup.py")
startup = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(startup)


def _catansim(*argv):
    """(exit status, stderr lines without importtime's, imported modules) of a fresh process."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "catansim.cli", *argv],
                          env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    lines = [x for x in done.stderr.splitlines() if not x.startswith("import time:")]
    return done.returncode, lines, startup.imported(done.stderr)


def test_the_help_lists_each_command_with_the_help_click_makes_of_its_docstring():
    assert isinstance(cli, LazyGroup)
    for name in _command_names():
        command = cli.get_command(None, name)
        assert _short_help(name) == command.get_short_help_str(limit=200), name
        assert _short_help(name)  # every command has a docstring


def test_help_imports_no_command_and_nothing_heavy():
    code, _, modules = _catansim("--help")
    assert code == 0
    assert "catansim.errors" in modules  # the console script ran
    assert not [m for m in modules if m.startswith("catansim.commands.")]
    assert startup.heavy(modules) == []


@pytest.mark.parametrize("argv, needle", [
    (["simulate", "--strategies", "defualt"],
     "--strategies: unknown strategy 'defualt' (did you mean 'default'?); allowed: "),
    (["simulate", "--layout", "varible"], "(did you mean 'variable'?); allowed: "),
    (["tournament", "--rule", "robbr=off"], "--rule 'robbr': unknown rule (did you mean "
                                            "'robber'?); allowed: "),
    (["openings", "--strategies", "citty"], "(did you mean 'city'?)"),
])
def test_a_refused_argument_is_refused_before_the_heavy_imports(argv, needle):
    code, err, modules = _catansim(*argv)
    assert code == 2
    assert len(err) == 1 and needle in err[0]
    loaded = startup.heavy(modules)
    for package in ("numba", "scipy", "catansim.core.jit", "pandas", "statsmodels",
                    "matplotlib", "pyarrow", "catansim.analysis", "catansim.runs",
                    "catansim.studies"):
        assert package not in loaded, (argv, loaded)


@pytest.mark.parametrize("argv, code, needle", [
    (["study", "--help"], 0, None),
    (["study", "--list"], 0, None),
    (["study", "robbr"], 2, "study: 'robbr' is not a study (did you mean 'robber'?); allowed: "
                            "openings, robber, seats-and-boards, shortages, all"),
])
def test_the_study_command_lists_and_refuses_studies_without_importing_one(argv, code, needle):
    """The names come from ``studies.MODULES``, the titles from the text files."""
    got, err, modules = _catansim(*argv)
    assert got == code
    if needle is not None:
        assert err == [f"catansim: error: {needle}"]
    assert startup.heavy(modules) == []
    assert sorted(m for m in modules if m.startswith("catansim.studies.")) == [
        "catansim.studies._texts"]


def test_the_benchmark_names_heavy_packages_from_importtime_lines():
    text = ("import time: self [us] | cumulative | imported package\n"
            "import time:       120 |        120 |   numba.core\n"
            "import time:        80 |        200 | numba\n"
            "import time:        10 |         10 | pandasish\n"
            "import time:        30 |         30 | catansim.studies._texts\n"
            "import time:        20 |         50 | catansim.studies\n")
    modules = startup.imported(text)
    assert modules == {"numba.core": 120, "numba": 200, "pandasish": 10,
                       "catansim.studies._texts": 30, "catansim.studies": 50}
    assert startup.heavy(modules) == ["numba"]  # the studies' light modules aside
    assert startup.heavy([*modules, "catansim.studies.robber"]) == ["numba", "catansim.studies"]


@pytest.mark.parametrize("word, choices, expected", [
    ("defualt", ("army", "builder", "default", "random"), " (did you mean 'default'?)"),
    ("Default", ("army", "default"), " (did you mean 'default'?)"),  # case ignored
    ("varible", ("beginner", "variable", "balanced"), " (did you mean 'variable'?)"),
    ("robbers", ("vp_to_win", "robber", "shortage"), " (did you mean 'robber'?)"),
    ("xyz", ("army", "default"), ""),  # nothing near: no suggestion
    ("", ("army",), ""),
    (3, ("army",), ""),  # not a name
    ("city", (), ""),
])
def test_did_you_mean_offers_the_nearest_choice_or_nothing(word, choices, expected):
    assert did_you_mean(word, choices) == expected


def test_every_check_of_a_name_offers_the_nearest_one():
    """The API and experiment files say it too, not only the command line."""
    from catansim.board import make_board
    from catansim.errors import CatansimError
    from catansim.rules import Rules
    from catansim.runs.experiment import parse_experiment
    from catansim.strategies import PRESETS, make_strategy

    cases = [
        (lambda: PRESETS.resolve("deafult"), "(did you mean 'default'?)"),
        (lambda: make_strategy("x", {"base": "bulder"}), "(did you mean 'builder'?)"),
        (lambda: make_board("random_number", 1), "(did you mean 'random_numbers'?)"),
        (lambda: Rules(robber="frendly"), "(did you mean 'friendly'?)"),
        (lambda: Rules.from_mapping({"vp_to_wim": 8}), "(did you mean 'vp_to_win'?)"),
        (lambda: parse_experiment({"name": "x", "games": 4, "layout": "balancd"}),
         "layout: 'balancd' is not allowed (did you mean 'balanced'?)"),
        (lambda: parse_experiment({"name": "x", "games": 4, "rules": {"shortge": "off"}}),
         "(did you mean 'shortage'?)"),
        (lambda: parse_experiment({"name": "x", "games": 4, "board": "variabel:3"}),
         "(did you mean 'variable'?)"),
    ]
    for make, needle in cases:
        with pytest.raises(CatansimError) as exc:
            make()
        assert needle in str(exc.value) and "; allowed: " in str(exc.value)


_fh_spec = importlib.util.spec_from_file_location("first_hour_bench",
                                                  ROOT / "benchmarks" / "first_hour.py")
first_hour = importlib.util.module_from_spec(_fh_spec)
_fh_spec.loader.exec_module(first_hour)


def test_first_hour_times_a_real_command_and_reports_its_exit_status(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    ok = first_hour.timed([sys.executable, "-c", "sum(range(10**6))"], env)
    assert ok["status"] == 0 and ok["wall"] > 0 and ok["cpu"] > 0
    refused = first_hour.timed([sys.executable, "-m", "catansim.cli", "simulate",
                                "--strategies", "defualt"], env)
    assert refused["status"] == 2 and "defualt" in refused["error"]


def test_first_hour_meets_the_steps_in_a_new_users_order(tmp_path):
    labels = [label for label, _, _ in first_hour.steps(tmp_path, 1, make_test=True,
                                                        notebooks=True)]
    assert labels[0].startswith("first compile")
    assert labels[1] == first_hour.CACHED  # the same command again: the compile's share
    assert labels[2:4] == ["`catansim --help`",
                           "refused typo: `catansim simulate --strategies defualt`"]
    assert [x for x in labels if "study" in x] == [
        f"`catansim study {s} --scale small`" for s in first_hour.STUDIES]
    assert len([x for x in labels if x.startswith("notebook ")]) == len(
        list((ROOT / "notebooks").glob("*.ipynb")))
    assert labels[-1] == "`make test`"
    alone = [label for label, _, _ in first_hour.steps(tmp_path, 1, make_test=False,
                                                       notebooks=True, commands=False)]
    assert alone[0].startswith("first compile")  # the notebooks' kernel cache
    assert alone[1] == first_hour.CACHED
    assert all(x.startswith("notebook ") for x in alone[2:]) and len(alone) == len(labels) - 7


def test_first_hour_gives_the_compile_as_the_first_command_less_the_cached_one():
    rows = [{"step": first_hour.FIRST, "wall": 31.5, "ok": True},
            {"step": first_hour.CACHED, "wall": 2.25, "ok": True},
            {"step": "`catansim --help`", "wall": 0.1, "ok": True}]
    assert first_hour.compile_seconds(rows) == 29.25
    assert first_hour.compile_seconds(rows[:1]) is None  # the cached run is missing
    rows[1]["ok"] = False
    assert first_hour.compile_seconds(rows) is None  # or failed


def test_first_hour_refuses_bad_arguments_in_one_line(capsys):
    with pytest.raises(SystemExit) as stop:
        first_hour.main(["--runs", "0"])
    assert stop.value.code == 2
    assert "--runs: 0 is not allowed; allowed: an integer >= 1" in capsys.readouterr().err
