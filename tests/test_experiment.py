"""Experiment files: every shipped example loads; each kind of mistake has its own error."""

from pathlib import Path

import pytest

from catansim.errors import CatansimError
from catansim.runs.experiment import load_experiment, parse_experiment

EXPERIMENTS = sorted(Path(__file__).resolve().parent.parent.glob("experiments/*.toml"))

GOOD = """
name = "t"
games = 100
players = 4
seed = 3
strategies = ["default", "random", "builder", "city"]
rotate = true
batch_size = 30
[rules]
robber = "friendly"
bank_per_resource = "unlimited"
[openings]
seat1 = [[14, 16]]
[variants.small]
rules = { bank_per_resource = 6 }
[variants.three_builders]
strategies = ["builder"]
"""


def _load(tmp_path, text, name="exp.toml"):
    path = tmp_path / name
    path.write_text(text)
    return load_experiment(path)


@pytest.mark.parametrize("path", EXPERIMENTS, ids=lambda p: p.name)
def test_shipped_experiments_load(path):
    exp = load_experiment(path)
    assert exp.name == path.stem
    assert exp.games >= 1000


def test_a_full_file_is_read(tmp_path):
    exp = _load(tmp_path, GOOD)
    assert exp.variant_names == ["baseline", "small", "three_builders"]
    base = exp.settings("baseline")
    assert base.rules.robber == "friendly" and base.rules.bank_per_resource is None
    assert list(base.openings[4:8]) == [14, 16, -1, -1]
    small = exp.settings("small")
    assert small.rules.bank_per_resource == 6 and small.rules.robber == "friendly"
    assert exp.settings("three_builders").strategies == ("builder",) * 4
    # rotation: strategy k moves to seat (k + shift) % 4
    assert exp.seat_strategies("baseline", 1) == ("city", "default", "random", "builder")
    assert exp.n_shifts("baseline") == 4 and exp.n_shifts("three_builders") == 1
    assert exp.strategy_names == ["builder", "city", "default", "random"]


def test_result_hash_ignores_games_output_and_scheduler(tmp_path):
    exp = _load(tmp_path, GOOD)
    h = exp.result_hash()
    assert exp.with_overrides(games=5, output="x", scheduler="tcp://a:1").result_hash() == h
    assert exp.with_overrides(seed=4).result_hash() != h
    changed = _load(tmp_path, GOOD.replace('robber = "friendly"', 'robber = "off"'), "b.toml")
    assert changed.result_hash() != h


def test_fixed_board_from_a_seed_and_from_a_file(tmp_path):
    from catansim.board import make_board

    exp = _load(tmp_path, 'games = 5\nboard = "random_numbers:9"\n')
    assert exp.layout == "given" and exp.board == make_board("random_numbers", 9)
    assert _load(tmp_path, "games = 5\nboard = 9\n").board == make_board("variable", 9)
    (tmp_path / "b.txt").write_text(
        "M10 P2 F9 / G12 H6 P4 H10 / G9 F11 D F3 M8 / F8 M3 G4 P5 / H5 G6 P11")
    exp = _load(tmp_path, 'games = 5\nboard = "b.txt"\n')
    assert exp.board is not None and exp.settings().layout == "given"


@pytest.mark.parametrize("text, message", [
    # unknown keys
    ("games = 5\nplayer = 4\n", "exp.toml: player: unknown key; allowed: name, description"),
    ("games = 5\n[rules]\nrobbers = 'off'\n",
     "rules.robbers: unknown rule (did you mean 'robber'?); allowed: vp_to_win"),
    ("games = 5\n[variants.a]\nrule = {robber = 'off'}\n",
     "variants.a.rule: unknown key; allowed: description, rules, switch, strategies, openings"),
    ("games = 5\n[openings]\nseat7 = [[1, 2]]\n",
     "openings.seat7: unknown seat; allowed: seat0, seat1, seat2, seat3"),
    # wrong types
    ("games = '5'\n", "games: expected an integer, got a string"),
    ("games = 5\nrotate = 'yes'\n",
     "rotate: expected a boolean, got a string ('yes'); allowed: true, false"),
    ("games = 5\nstrategies = 3\n", "strategies: expected a strategy name or a list"),
    ("games = 5\nrules = 3\n", "rules: expected a table"),
    ("games = 5\nvariants = 3\n", "variants: expected tables [variants.NAME]"),
    ("games = 5\nbatch_size = 1.5\n", "batch_size: expected an integer, got a number"),
    ("games = 5\n[rules]\nvp_to_win = 'ten'\n",
     "rules.vp_to_win: expected an integer, got a string ('ten')"),
    # bad values
    ("players = 4\n", "games: missing"),
    ("games = 0\n", "games: 0 is out of range; allowed: an integer >= 1"),
    ("games = 5\nplayers = 5\n", "players: 5 is not allowed; allowed: 3, 4"),
    ("games = 5\nseed = -1\n", "seed: -1 is out of range"),
    ("games = 5\nlayout = 'hexagonal'\n",
     "layout: 'hexagonal' is not allowed; allowed: beginner, variable"),
    ("games = 5\nstrategies = ['nobody']\n", "strategies[0]: unknown strategy 'nobody'; allowed:"),
    ("games = 5\n[rules]\nrobber = 'sometimes'\n",
     "rules.robber: 'sometimes' is not allowed; allowed: official, off, friendly"),
    ("games = 5\n[rules]\nvp_to_win = 50\n",
     "rules.vp_to_win: 50 is out of range; allowed: an integer in 3..20"),
    ("games = 5\nboard = 'nowhere.json'\n", "board: 'nowhere.json' is neither"),
    ("games = 5\nname = 'a/b'\n", "name: 'a/b' is not allowed"),
    ("games = 5\n[openings]\nseat0 = [[14, 99]]\n", "edge 99 is not an edge"),
    ("games = 5\n[openings]\nseat0 = [14, 16]\n", "openings.seat0[0]: expected [[node, edge]]"),
    ("games = 5\n[variants.baseline]\nrules = {robber = 'off'}\n",
     "variants.baseline: 'baseline' is not allowed; allowed: a name of letters"),
    ("games = 5\n[variants.a]\ndescription = 'x'\n", "variants.a: changes nothing"),
    ("games = 5\nscheduler = 'nowhere'\n", "scheduler: 'nowhere' is not an address"),
    ("games = 5\nstrategy_defs = 'missing.toml'\n", "missing.toml: strategies file not found"),
    # inconsistent settings
    ("games = 5\nstrategies = ['default', 'random', 'city']\n",
     "strategies: 3 strategies for 4 players; allowed: one name, or one per seat (4)"),
    ("games = 5\nplayers = 3\n[openings]\nseat3 = [[14, 16]]\n",
     "openings.seat3: unknown seat; allowed: seat0, seat1, seat2"),
    ("games = 5\n[openings]\nseat0 = [[14, 16]]\nseat1 = [[19, 21]]\n",
     "breaks the Distance Rule"),
    ("games = 5\nlayout = 'beginner'\nboard = 7\n", "board: layout 'beginner' already fixes"),
    ("games = 5\nlayout = 'beginner'\n[openings]\nseat0 = [[14, 16]]\n",
     "openings: layout 'beginner' has its own fixed openings"),
    ("games = 5\n[variants.a]\nstrategies = ['city', 'army']\n",
     "variants.a.strategies: 2 strategies for 4 players"),
    # not TOML
    ("games = = 5\n", "exp.toml: invalid TOML"),
])
def test_each_mistake_has_its_own_error(tmp_path, text, message):
    with pytest.raises(CatansimError) as err:
        _load(tmp_path, text)
    msg = str(err.value)
    assert message in msg
    assert "\n" not in msg and str(tmp_path / "exp.toml") in msg


def test_missing_file():
    with pytest.raises(CatansimError, match="experiment file not found; allowed: a TOML"):
        load_experiment("experiments/nope.toml")


def test_strategy_defs_inline_table_registers_a_strategy(tmp_path):
    exp = _load(tmp_path, 'games = 5\nstrategies = ["greedy_city"]\n'
                          '[strategy_defs.greedy_city]\nbase = "city"\n')
    assert exp.settings().strategies == ("greedy_city",) * 4
    assert exp.result_hash()  # the parameter rows are part of the hash


def test_overrides_are_checked():
    exp = parse_experiment({"games": 5})
    with pytest.raises(CatansimError, match="--games"):
        exp.with_overrides(games=0)
    with pytest.raises(CatansimError, match="--seed"):
        exp.with_overrides(seed=-3)
