"""Bad tuning specs and options: one line naming the key, with what is allowed, exit 2,
nothing written (``catansim tune`` in this process)."""

from __future__ import annotations

import pytest
from cli_harness import needs_mount, one_line, read_only, run_main, tree

pytest.importorskip("optuna")

GOOD = """
name = "t"
strategy = "default"
[params]
dev_weight = [0.2, 1.0]
[budget]
trials = 1
[evaluation]
deals = 4
instance = 2
[heldout]
deals = 2
presets = ["army"]
"""

# (replace this, with this) in GOOD, the needles of the one line
CASES = {
    "unknown-parameter": (("dev_weight = [0.2, 1.0]", "dev_wieght = [0.2, 1.0]"),
                          ["params.dev_wieght: unknown parameter; allowed: pips_weight,"]),
    "empty-range": (("dev_weight = [0.2, 1.0]", "dev_weight = [1.0, 1.0]"),
                    ["params.dev_weight: empty range 1..1; allowed: low < high within 0..5"]),
    "reversed-range": (("dev_weight = [0.2, 1.0]", "dev_weight = [2, 1]"),
                       ["params.dev_weight: empty range 2..1"]),
    "out-of-range": (("dev_weight = [0.2, 1.0]", "dev_weight = [0.2, 9]"),
                     ["params.dev_weight.high: 9 is out of range; allowed: 0..5"]),
    "log-from-zero": (("dev_weight = [0.2, 1.0]", "dev_weight = {low = 0, high = 1, log = true}"),
                      ["params.dev_weight.low: a log scale needs low > 0"]),
    "bad-choice": (("dev_weight = [0.2, 1.0]", 'robber_policy = {choices = ["leader", "x"]}'),
                   ["params.robber_policy.choices[1]: 'x' is not allowed; allowed: numbers in "
                    "0..2 or leader, production, random"]),
    "budget-zero": (("trials = 1", "games = 0"),
                    ["budget.games: 0 is not allowed; allowed: an integer in "
                     "1..1,000,000,000,000"]),
    "budget-minutes-zero": (("trials = 1", "minutes = 0"),
                            ["budget.minutes: 0 is not allowed; allowed: a number > 0"]),
    # a budget that never ends ran until killed (#56)
    "budget-minutes-inf": (("trials = 1", "minutes = inf"),
                           ["budget.minutes: inf is not allowed; allowed: a number > 0 and at "
                            "most 525600 (a year)"]),
    "budget-minutes-nan": (("trials = 1", "minutes = nan"),
                           ["budget.minutes: nan is not allowed"]),
    "budget-minutes-huge": (("trials = 1", "minutes = 1e9"),
                            ["budget.minutes: 1000000000.0 is not allowed"]),
    "budget-games-huge": (("trials = 1", "games = 100000000000000000000"),
                          ["budget.games: 100000000000000000000 is not allowed; allowed: an "
                           "integer in 1..1,000,000,000,000"]),
    "budget-trials-huge": (("trials = 1", "trials = 10000000"),
                           ["budget.trials: 10000000 is not allowed; allowed: an integer in "
                            "1..1,000,000"]),
    "budget-empty": (("trials = 1", ""), ["budget: empty; allowed: games, minutes or trials"]),
    "storage-not-url": (('name = "t"', 'name = "t"\nstorage = "tune.db"'),
                        ["storage: 'tune.db' is not a database URL; allowed: e.g. sqlite:///"]),
    "storage-unreadable": (('name = "t"', 'name = "t"\nstorage = "sqlite:////nowhere/x/t.db"'),
                           ["storage: cannot open 'sqlite:////nowhere/x/t.db' (",
                            "allowed: a database URL you can open and write"]),
    "storage-unknown-dialect": (('name = "t"', 'name = "t"\nstorage = "nosuchdb://h/x"'),
                                ["storage: cannot open 'nosuchdb://h/x' ("]),
    "unknown-key": (('name = "t"', 'name = "t"\nbudjet = 3'), ["budjet: unknown key; allowed:"]),
    "unknown-strategy": (('strategy = "default"', 'strategy = "nope"'),
                         ["strategy: unknown strategy 'nope'; allowed: army, builder"]),
    "field-wrong-size": (("[budget]", '[field]\ntables = [["army", "army"]]\n[budget]'),
                         ["field.tables[0]: expected 3 names for 4 players"]),
    "field-unknown": (("[budget]", '[field]\ntables = [["army", "army", "nope"]]\n[budget]'),
                      ["field.tables[0][2]: unknown strategy 'nope'"]),
    "deals-not-multiple": (("deals = 4", "deals = 5"),
                           ["evaluation.deals: 5 is not a multiple of evaluation.instance (2)"]),
    "p-threshold": (("instance = 2", "instance = 2\np_threshold = 0"),
                    ["evaluation.p_threshold: 0 is not allowed; allowed: a number in (0, 1]"]),
    "players": (('strategy = "default"', 'strategy = "default"\nplayers = 5'),
                ["players: 5 is not allowed; allowed: 3, 4"]),
    "rule": (("[budget]", "[rules]\nrobber = \"nope\"\n[budget]"), ["rules.robber: 'nope'"]),
    "layout": (('strategy = "default"', 'strategy = "default"\nlayouts = ["nope"]'),
               ["layouts[0]: 'nope' is not allowed; allowed:"]),
    "same-seeds": (('strategy = "default"', 'strategy = "default"\nseed = 4\nheldout_seed = 4'),
                   ["heldout_seed: 4 is the training seed"]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_spec_is_one_line(case, tmp_path, capsys, monkeypatch):
    (old, new), needles = CASES[case]
    assert old in GOOD
    spec = tmp_path / "spec.toml"
    spec.write_text(GOOD.replace(old, new, 1))
    monkeypatch.chdir(tmp_path)
    before = tree(tmp_path)
    code, _, err = run_main(["tune", spec, "--out", tmp_path / "out"], capsys)
    assert code == 2
    line = one_line(err, *needles)
    assert str(spec) in line or line.startswith("catansim: error: storage")
    assert tree(tmp_path) == before  # nothing written


def test_without_optuna_tuning_is_one_line(tmp_path, capsys, monkeypatch):
    import sys

    import catansim
    from catansim.errors import CatansimError

    monkeypatch.setitem(sys.modules, "optuna", None)  # as if the tune extra were missing
    for name in [m for m in sys.modules if m.startswith("catansim.tuning")]:
        monkeypatch.delitem(sys.modules, name)
    spec = tmp_path / "spec.toml"
    spec.write_text(GOOD)
    code, _, err = run_main(["tune", spec, "--out", tmp_path / "o"], capsys)
    assert code == 2
    one_line(err, "tune: optuna is not installed; allowed: pip install 'catansim[tune]'")
    assert not (tmp_path / "o").exists()
    with pytest.raises(CatansimError, match=r"pip install 'catansim\[tune\]'"):
        catansim.tune(spec)


def test_bad_storage_option_is_one_line(tmp_path, capsys):
    spec = tmp_path / "spec.toml"
    spec.write_text(GOOD)
    code, _, err = run_main(["tune", spec, "--out", tmp_path / "o", "--storage",
                             "sqlite:////nowhere/x.db"], capsys)
    assert code == 2
    one_line(err, "--storage: cannot open 'sqlite:////nowhere/x.db' (")
    code, _, err = run_main(["tune", spec, "--out", tmp_path / "o", "--storage", "x.db"], capsys)
    assert code == 2
    one_line(err, "--storage: 'x.db' is not a database URL")


def test_a_study_of_another_spec_is_refused(tmp_path, capsys):
    """Resuming checks the spec: the same study name with other settings is refused."""
    spec = tmp_path / "spec.toml"
    spec.write_text(GOOD)
    url = f"sqlite:///{tmp_path / 'study.db'}"
    code, _, err = run_main(["tune", spec, "--out", tmp_path / "o", "--storage", url,
                             "--no-heldout", "--quiet"], capsys)
    assert code == 0, err
    spec.write_text(GOOD.replace("[0.2, 1.0]", "[0.3, 1.0]"))
    code, _, err = run_main(["tune", spec, "--out", tmp_path / "o", "--storage", url], capsys)
    assert code == 2
    one_line(err, f"--storage: study 't' in {url} was made by another spec")


@needs_mount
def test_a_read_only_storage_says_read_only(tmp_path, capsys):
    """A study's database on a read-only file system: one line saying "read-only" (not
    Optuna's "exception during the commit"), exit 1, the database unchanged."""
    spec = tmp_path / "spec.toml"
    spec.write_text(GOOD)
    src = tmp_path / "src"
    src.mkdir()
    code, _, err = run_main(["tune", spec, "--out", tmp_path / "o", "--storage",
                             f"sqlite:///{src / 't.db'}", "--no-heldout", "--quiet"], capsys)
    assert code == 0, err
    spec.write_text(GOOD.replace("trials = 1", "trials = 2"))  # more to do: a write
    before = (src / "t.db").read_bytes()
    with read_only(src, tmp_path / "ro") as ro:
        url = f"sqlite:///{ro / 't.db'}"
        code, _, err = run_main(["tune", spec, "--out", tmp_path / "o2", "--storage", url,
                                 "--no-heldout", "--quiet"], capsys)
    assert code == 1
    one_line(err, f"--storage: {url!r} is read-only (attempt to write a readonly database); "
                  "the study is unchanged")
    assert (src / "t.db").read_bytes() == before
