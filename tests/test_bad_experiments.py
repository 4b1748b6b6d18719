"""Malformed experiment files, table-driven: every key wrong in type, range or name,
missing, conflicting, nested wrong; binary, non-UTF-8, empty and huge values; and
files that would resume a dataset of other settings.

Each is run as ``catansim run FILE --out DIR`` in this process; for each: a non-zero
exit, exactly one line on stderr naming the file (or the dataset) and the field,
with what is allowed, no traceback, nothing written (the folder is as it was), and
where a dataset existed it is unchanged and still loads.

BAD_FILES (asserted below) counts the rows: 166.
"""

from __future__ import annotations

import shutil

import pytest
from cli_harness import one_line, run_main, tree

import catansim
from catansim.runs.experiment import load_experiment
from catansim.runs.runner import run_experiment

BAD_FILES = 166

G = "games = 5\n"
BOARD_TEXT = "M10 P2 F9 / G12 H6 P4 H10 / G9 F11 D F3 M8 / F8 M3 G4 P5 / H5 G6 P11"
BASE = 'games = 10\nbatch_size = 5\nseed = 3\nstrategies = ["default"]\n'
DEFS = ('games = 10\nbatch_size = 5\nseed = 3\nstrategies = ["mine"]\n'
        '[strategy_defs.mine]\nbase = "city"\ndev_weight = 1.5\n')

# (id, file content: str or bytes, needles the line must hold, extra files, dataset)
# extra files: {name: str or bytes} next to the experiment file; dataset: a base
# experiment ("base" or "defs") already run into the output folder.
CASES = [
    # -- the file itself
    ("empty", "", ["games: missing; allowed: an integer >= 1"]),
    ("only-comment", "# nothing here\n", ["games: missing"]),
    ("binary", bytes(range(256)) * 4, ["not a text file (byte 0x80 at offset 128 is not UTF-8)"]),
    ("latin-1", "games = 5\nname = 'caf\xe9'\n".encode("latin-1"),
     ["not a text file (byte 0xe9 at offset 21"]),
    ("utf-16", "games = 5\n".encode("utf-16"), ["not a text file (byte 0xff at offset 0"]),
    ("nul-bytes", b"games = 5\n\x00\x00\n", ["invalid TOML"]),
    ("toml-syntax", "games = = 5\n", ["invalid TOML", "allowed: a TOML experiment file"]),
    ("duplicate-key", "games = 5\ngames = 6\n", ["invalid TOML"]),
    ("unclosed-table", "games = 5\n[rules\n", ["invalid TOML"]),
    ("unclosed-string", 'games = 5\nname = "x\n', ["invalid TOML"]),
    ("unknown-key", G + "player = 4\n", ["player: unknown key; allowed: name, description"]),
    ("typo-key", G + "batchsize = 10\n", ["batchsize: unknown key"]),
    ("unknown-key-upper", G + "Games = 5\n", ["Games: unknown key"]),
    # -- games
    ("games-string", "games = '5'\n", ["games: expected an integer, got a string"]),
    ("games-float", "games = 5.0\n", ["games: expected an integer, got a number"]),
    ("games-bool", "games = true\n", ["games: expected an integer, got a boolean"]),
    ("games-zero", "games = 0\n", ["games: 0 is out of range; allowed: an integer >= 1"]),
    ("games-negative", "games = -3\n", ["games: -3 is out of range"]),
    ("games-too-many", "games = 1000000000001\n", ["games: 1000000000001 is out of range"]),
    ("games-int64-max", "games = 9223372036854775807\n", ["games: 9223372036854775807 is out"]),
    ("games-huge", "games = 99999999999999999999999999\n", ["games: 9999999999", "out of range"]),
    ("games-array", "games = [5]\n", ["games: expected an integer, got an array"]),
    ("games-table", "games = {n = 5}\n", ["games: expected an integer, got a table"]),
    ("games-exp", "games = 1e3\n", ["games: expected an integer, got a number"]),
    ("games-inf", "games = inf\n", ["games: expected an integer, got a number"]),
    ("games-nan", "games = nan\n", ["games: expected an integer, got a number"]),
    ("games-array-of-tables", "[[games]]\nn = 5\n", ["games: expected an integer, got an array"]),
    # -- players
    ("players-5", G + "players = 5\n", ["players: 5 is not allowed; allowed: 3, 4"]),
    ("players-2", G + "players = 2\n", ["players: 2 is not allowed"]),
    ("players-float", G + "players = 3.0\n", ["players: 3.0 is not allowed"]),
    ("players-string", G + "players = '4'\n", ["players: '4' is not allowed"]),
    ("players-bool", G + "players = true\n", ["players: True is not allowed"]),
    ("players-array", G + "players = [3, 4]\n", ["players: [3, 4] is not allowed"]),
    # -- seed
    ("seed-negative", G + "seed = -1\n", ["seed: -1 is out of range; allowed: an integer in [0"]),
    ("seed-2**63", G + "seed = 9223372036854775808\n", ["seed: 9223372036854775808 is out"]),
    ("seed-string", G + "seed = '7'\n", ["seed: expected an integer, got a string"]),
    ("seed-float", G + "seed = 1.5\n", ["seed: expected an integer, got a number"]),
    ("seed-bool", G + "seed = false\n", ["seed: expected an integer, got a boolean"]),
    # -- layout
    ("layout-unknown", G + "layout = 'hexagonal'\n", ["layout: 'hexagonal' is not allowed"]),
    ("layout-empty", G + "layout = ''\n", ["layout: '' is not allowed; allowed: beginner"]),
    ("layout-int", G + "layout = 3\n", ["layout: 3 is not allowed"]),
    ("layout-case", G + "layout = 'Variable'\n", ["layout: 'Variable' is not allowed"]),
    # -- board
    ("board-missing-file", G + "board = 'nowhere.json'\n", ["board: 'nowhere.json' is neither"]),
    ("board-bool", G + "board = true\n", ["board: expected a seed or a string, got a boolean"]),
    ("board-float", G + "board = 1.5\n", ["board: expected a seed or a string, got a number"]),
    ("board-table", G + "board = {}\n", ["board: expected a seed or a string, got a table"]),
    ("board-negative-seed", G + "board = -4\n", ["board: -4 is not allowed; allowed: an integer"]),
    ("board-seed-too-big", G + "board = 'random_numbers:99999999999999999999'\n",
     ["board: 99999999999999999999 is not allowed"]),
    ("board-beginner-seed", G + "board = 'beginner:3'\n", ["board: 'beginner:3' is neither"]),
    ("board-with-beginner", G + "layout = 'beginner'\nboard = 7\n",
     ["board: layout 'beginner' already fixes the board; allowed:"]),
    ("board-file-binary", G + "board = 'b.txt'\n", ["b.txt: not a text file (byte 0xff"],
     {"b.txt": b"\xff\xfe\x00garbage"}),
    ("board-file-json", G + "board = 'b.json'\n", ["board: b.json: invalid JSON"],
     {"b.json": "{oops"}),
    ("board-file-terrains", G + "board = 'b.txt'\n",
     ["board: b.txt.terrains: got 0 forest", "allowed: 4 forest"],
     {"b.txt": " ".join(["M10"] * 19)}),
    ("board-file-empty", G + "board = 'b.txt'\n", ["board: b.txt"], {"b.txt": ""}),
    ("board-file-is-folder", G + "board = 'sub'\n", ["board: 'sub' is neither"], {"sub/": None}),
    # -- strategies
    ("strategies-int", G + "strategies = 3\n", ["strategies: expected a strategy name or a list"]),
    ("strategies-empty-list", G + "strategies = []\n", ["strategies: expected a strategy name"]),
    ("strategies-unknown", G + "strategies = ['nobody']\n",
     ["strategies[0]: unknown strategy 'nobody'; allowed: army, builder"]),
    ("strategies-three", G + "strategies = ['default', 'random', 'city']\n",
     ["strategies: 3 strategies for 4 players; allowed: one name, or one per seat (4)"]),
    ("strategies-five", G + "strategies = ['default', 'random', 'city', 'army', 'trader']\n",
     ["strategies: 5 strategies for 4 players"]),
    ("strategies-ints", G + "strategies = [1, 2, 3, 4]\n",
     ["strategies[0]: expected a strategy name, got an integer; allowed: army"]),
    ("strategies-empty-name", G + "strategies = ''\n", ["strategies[0]: unknown strategy ''"]),
    ("strategies-table", G + "strategies = {a = 1}\n", ["strategies: expected a strategy name"]),
    ("strategies-second-unknown", G + "strategies = ['city', 'cty', 'army', 'trader']\n",
     ["strategies[1]: unknown strategy 'cty'"]),
    # -- rotate
    ("rotate-string", G + "rotate = 'yes'\n", ["rotate: expected a boolean, got a string"]),
    ("rotate-int", G + "rotate = 1\n", ["rotate: expected a boolean, got an integer"]),
    ("rotate-array", G + "rotate = [true]\n", ["rotate: expected a boolean, got an array"]),
    # -- batch_size
    ("batch-zero", G + "batch_size = 0\n", ["batch_size: 0 is out of range; allowed: an integer "
                                            "in 1..1,000,000"]),
    ("batch-10**7", G + "batch_size = 10000000\n",
     ["batch_size: 10000000 is out of range", "about 2.5 KB per game"]),
    ("batch-float", G + "batch_size = 1.5\n", ["batch_size: expected an integer, got a number"]),
    ("batch-string", G + "batch_size = 'big'\n", ["batch_size: expected an integer, got a string"]),
    ("batch-negative", G + "batch_size = -5\n", ["batch_size: -5 is out of range"]),
    # -- output
    ("output-empty", G + "output = ''\n", ["output: an empty path is not allowed; allowed: a "
                                           "folder path"]),
    ("output-blank", G + "output = '   '\n", ["output: an empty path is not allowed"]),
    ("output-int", G + "output = 5\n", ["output: expected a string, got an integer"]),
    ("output-nul", G + 'output = "a\\u0000b"\n', ["output: 'a\\x00b' holds a NUL character"]),
    # -- name, description
    ("name-slash", G + "name = 'a/b'\n", ["name: 'a/b' is not allowed; allowed: letters"]),
    ("name-empty", G + "name = ''\n", ["name: '' is not allowed"]),
    ("name-int", G + "name = 5\n", ["name: expected a string, got an integer"]),
    ("name-dotdot", G + "name = '../escape'\n", ["name: '../escape' is not allowed"]),
    ("name-space", G + "name = 'my run'\n", ["name: 'my run' is not allowed"]),
    ("description-int", G + "description = 5\n", ["description: expected a string, got an "
                                                   "integer"]),
    ("description-array", G + "description = ['x']\n", ["description: expected a string"]),
    # -- scheduler
    ("scheduler-word", G + "scheduler = 'nowhere'\n",
     ["scheduler: 'nowhere' is not an address; allowed: a Dask scheduler address tcp://HOST"]),
    ("scheduler-empty", G + "scheduler = ''\n", ["scheduler: an empty address is not allowed"]),
    ("scheduler-no-port", G + "scheduler = 'tcp://host'\n", ["scheduler: 'tcp://host' is not an"]),
    ("scheduler-port-0", G + "scheduler = 'tcp://host:0'\n", ["scheduler: port 0 is out of range"]),
    ("scheduler-port-big", G + "scheduler = 'tcp://host:99999'\n",
     ["scheduler: port 99999 is out of range"]),
    ("scheduler-int", G + "scheduler = 8786\n", ["scheduler: expected a string, got an integer"]),
    ("scheduler-http", G + "scheduler = 'http://host:8786'\n",
     ["scheduler: 'http://host:8786' is not an address"]),
    ("scheduler-spaces", G + "scheduler = 'tcp://a b:8786'\n", ["scheduler: 'tcp://a b:8786'"]),
    # -- strategy_defs
    ("defs-missing-file", G + "strategy_defs = 'missing.toml'\n",
     ["strategy_defs: ", "missing.toml: strategies file not found; allowed: a TOML file"]),
    ("defs-int", G + "strategy_defs = 5\n", ["strategy_defs: expected a file path or a table"]),
    ("defs-bad-toml", G + "strategy_defs = 'd.toml'\n", ["strategy_defs: ", "invalid TOML"],
     {"d.toml": "[strategies.x\n"}),
    ("defs-binary", G + "strategy_defs = 'd.toml'\n", ["d.toml: not a text file (byte 0x89"],
     {"d.toml": b"\x89PNG\r\n\x1a\n"}),
    ("defs-folder", G + "strategy_defs = 'sub'\n", ["sub: is a folder, not a file"],
     {"sub/": None}),
    ("defs-redefine-preset", G + "[strategy_defs.default]\nbase = 'city'\n",
     ["strategy_defs.default: redefines a built-in preset; allowed: any other name"]),
    ("defs-unknown-base", G + "[strategy_defs.x]\nbase = 'nobody'\n",
     ["strategy_defs.x", "nobody"]),
    ("defs-bad-param-value", G + "[strategy_defs.x]\nbase = 'city'\ndev_weight = 'heavy'\n",
     ["strategy_defs.x", "dev_weight"]),
    ("defs-unknown-param", G + "[strategy_defs.x]\nbase = 'city'\nnosuchparam = 1\n",
     ["strategy_defs.x", "nosuchparam"]),
    ("defs-not-a-table", G + "[strategy_defs]\nx = 5\n",
     ["strategy_defs.x: expected a table of parameters"]),
    # -- rules
    ("rules-int", G + "rules = 3\n", ["rules: expected a table, got an integer; allowed: a table"]),
    ("rules-unknown", G + "[rules]\nrobbers = 'off'\n",
     ["rules.robbers: unknown rule (did you mean 'robber'?); allowed: vp_to_win"]),
    ("rules-robber-word", G + "[rules]\nrobber = 'sometimes'\n",
     ["rules.robber: 'sometimes' is not allowed; allowed: official, off, friendly"]),
    ("rules-robber-bool", G + "[rules]\nrobber = true\n", ["rules.robber: True is not allowed"]),
    ("rules-vp-high", G + "[rules]\nvp_to_win = 50\n",
     ["rules.vp_to_win: 50 is out of range; allowed: an integer in 3..20"]),
    ("rules-vp-string", G + "[rules]\nvp_to_win = 'ten'\n",
     ["rules.vp_to_win: expected an integer, got a string"]),
    ("rules-bank-zero", G + "[rules]\nbank_per_resource = 0\n",
     ["rules.bank_per_resource: 0 is out of range; allowed: an integer in 1..1000, or unlimited"]),
    ("rules-bank-word", G + "[rules]\nbank_per_resource = 'lots'\n",
     ["rules.bank_per_resource: expected an integer, got a string"]),
    ("rules-discard-negative", G + "[rules]\ndiscard_limit = -1\n",
     ["rules.discard_limit: -1 is out of range; allowed: an integer in 0..100, or none"]),
    ("rules-shortage-word", G + "[rules]\nshortage = 'maybe'\n",
     ["rules.shortage: 'maybe' is not allowed; allowed: official, strict, off"]),
    ("rules-max-turns-zero", G + "[rules]\nmax_turns = 0\n",
     ["rules.max_turns: 0 is out of range"]),
    ("rules-max-turns-float", G + "[rules]\nmax_turns = 1.5\n",
     ["rules.max_turns: expected an integer, got a number"]),
    ("rules-nested-table", G + "[rules.robber]\nmode = 'off'\n",
     ["rules.robber: {'mode': 'off'} is not allowed"]),
    # -- openings
    ("openings-int", G + "openings = 3\n", ["openings: expected a table, got an integer"]),
    ("openings-seat7", G + "[openings]\nseat7 = [[1, 2]]\n",
     ["openings.seat7: unknown seat; allowed: seat0, seat1, seat2, seat3"]),
    ("openings-flat-pair", G + "[openings]\nseat0 = [14, 16]\n",
     ["openings.seat0[0]: expected [[node, edge]]", "allowed: integer pairs"]),
    ("openings-negative-node", G + "[openings]\nseat0 = [[-3, -1]]\n",
     ["openings seat 0 settlement 1: -3 is not allowed; allowed: a node number or -1"]),
    ("openings-node-99", G + "[openings]\nseat0 = [[99, -1]]\n",
     ["node 99 is not a node; allowed: 0..53"]),
    ("openings-edge-99", G + "[openings]\nseat0 = [[14, 99]]\n",
     ["edge 99 is not an edge; allowed: 0..71, or -1"]),
    ("openings-distance", G + "[openings]\nseat0 = [[14, 16]]\nseat1 = [[19, 21]]\n",
     ["breaks the Distance Rule"]),
    ("openings-road-elsewhere", G + "[openings]\nseat0 = [[14, 0]]\n",
     ["road 0 does not touch node 14; allowed:"]),
    ("openings-float", G + "[openings]\nseat0 = [[1.5, 2]]\n", ["openings.seat0[0]: expected"]),
    ("openings-three-pairs", G + "[openings]\nseat0 = [[14, 16], [40, -1], [20, -1]]\n",
     ["openings.seat0: expected [[node, edge]]"]),
    ("openings-seat3-of-3", G + "players = 3\n[openings]\nseat3 = [[14, 16]]\n",
     ["openings.seat3: unknown seat; allowed: seat0, seat1, seat2"]),
    ("openings-beginner", G + "layout = 'beginner'\n[openings]\nseat0 = [[14, 16]]\n",
     ["openings: layout 'beginner' has its own fixed openings; allowed:"]),
    ("openings-road-without-node", G + "[openings]\nseat0 = [[-1, 16]]\n",
     ["a forced road needs its forced settlement; allowed:"]),
    ("openings-bool", G + "[openings]\nseat0 = [[true, 16]]\n", ["openings.seat0[0]: expected"]),
    # -- switch
    ("switch-int", G + "switch = 40\n", ["switch: expected a table, got an integer; allowed: "
                                         "a table with turn"]),
    ("switch-no-turn", G + "[switch]\nrobber = 'off'\n", ["switch.turn: missing; allowed:"]),
    ("switch-turn-zero", G + "[switch]\nturn = 0\n",
     ["switch.turn: 0 is out of range; allowed: a turn 1..999"]),
    ("switch-past-cap", G + "[rules]\nmax_turns = 50\n[switch]\nturn = 50\n",
     ["switch.turn: 50 is not before max_turns (50); allowed: a turn 1..49"]),
    ("switch-first-pick", G + "[switch]\nturn = 40\nfirst_pick = 1\n",
     ["switch.first_pick: cannot change mid-game (0 before, 1 after); allowed: a change of"]),
    ("switch-supply", G + "[switch]\nturn = 40\nbank_per_resource = 12\n",
     ["switch.bank_per_resource: cannot change mid-game"]),
    ("switch-bad-rule", G + "[switch]\nturn = 40\nrobber = 'sometimes'\n",
     ["switch.robber: 'sometimes' is not allowed; allowed: official, off, friendly"]),
    ("switch-unknown-rule", G + "[switch]\nturn = 40\nrobbers = 'off'\n",
     ["switch.robbers: unknown rule (did you mean 'robber'?); allowed: turn, "
      "vp_to_win"]),
    ("variants-switch-first-turn", G + "[variants.a]\nswitch = {turn = 40, first_turn = 2}\n",
     ["variants.a.switch.first_turn: cannot change mid-game"]),
    # -- variants
    ("variants-int", G + "variants = 3\n", ["variants: expected tables [variants.NAME], got an "
                                            "integer"]),
    ("variants-baseline", G + "[variants.baseline]\nrules = {robber = 'off'}\n",
     ["variants.baseline: 'baseline' is not allowed; allowed: a name of letters"]),
    ("variants-bad-name", G + "[variants.'bad name']\nrules = {robber = 'off'}\n",
     ["variants.bad name: 'bad name' is not allowed"]),
    ("variants-changes-nothing", G + "[variants.a]\ndescription = 'x'\n",
     ["variants.a: changes nothing; allowed: a variant that sets rules"]),
    ("variants-unknown-key", G + "[variants.a]\nrule = {robber = 'off'}\n",
     ["variants.a.rule: unknown key; allowed: description, rules, switch, strategies, "
      "openings"]),
    ("variants-bad-rule", G + "[variants.a]\nrules = {robber = 'sometimes'}\n",
     ["variants.a.rules.robber: 'sometimes' is not allowed"]),
    ("variants-unknown-rule", G + "[variants.a]\nrules = {robbers = 'off'}\n",
     ["variants.a.rules.robbers: unknown rule"]),
    ("variants-strategies", G + "[variants.a]\nstrategies = ['city', 'army']\n",
     ["variants.a.strategies: 2 strategies for 4 players"]),
    ("variants-openings", G + "[variants.a]\nopenings = {seat0 = [[99, -1]]}\n",
     ["variants.a.openings", "node 99 is not a node"]),
    ("variants-not-table", G + "[variants]\na = 5\n", ["variants.a: expected a table, got an "
                                                       "integer"]),
    ("variants-rules-int", G + "[variants.a]\nrules = 5\n", ["variants.a.rules: expected a table"]),
    ("variants-description-int", G + "[variants.a]\ndescription = 5\nrules = {robber = 'off'}\n",
     ["variants.a.description: expected a string, got an integer"]),
    # -- boards (a board set)
    ("boards-int", G + "boards = 5\n", ["boards: expected a table, got an integer; allowed: "
                                         "a table of games_per_board, seed, dice"]),
    ("boards-no-games-per-board", G + "[boards]\nseed = 3\n",
     ["boards.games_per_board: missing; allowed: an integer >= 1"]),
    ("boards-not-a-multiple", G + "[boards]\ngames_per_board = 2\n",
     ["games: 5 is not a multiple of boards.games_per_board (2); allowed: a multiple of it"]),
    ("boards-zero", G + "[boards]\ngames_per_board = 0\n", ["boards.games_per_board: 0 is out "
                                                             "of range"]),
    ("boards-dice-typo", G + "[boards]\ngames_per_board = 5\ndice = 'same'\n",
     ["boards.dice: 'same' is not allowed (did you mean 'shared'?); allowed: "
      "independent, shared"]),
    ("boards-unknown-key", G + "[boards]\ngames_per_board = 5\ncolour = 1\n",
     ["boards.colour: unknown key; allowed: games_per_board, seed, dice"]),
    ("boards-seed-negative", G + "[boards]\ngames_per_board = 5\nseed = -1\n",
     ["boards.seed: -1 is out of range"]),
    ("boards-beginner", G + "layout = 'beginner'\n[boards]\ngames_per_board = 5\n",
     ["boards: boards are dealt by a seeded layout, not 'beginner'"]),
    ("boards-with-board", G + "board = 'variable:4'\n[boards]\ngames_per_board = 5\n",
     ["boards: board already fixes one board for every game; allowed: board (one "
      "board) or boards (a board set), not both"]),
    # -- a dataset of other settings in the output folder: resume refused
    ("resume-rule", BASE + "[rules]\nrobber = 'friendly'\n",
     ["holds results of different settings (changed: variants.baseline.rules.robber: "
      "'official' -> 'friendly')", "allowed: the settings of the earlier run"], {}, "base"),
    ("resume-seed", BASE.replace("seed = 3", "seed = 4"),
     ["changed: seed: 3 -> 4"], {}, "base"),
    ("resume-batch", BASE.replace("batch_size = 5", "batch_size = 2"),
     ["changed: batch_size: 5 -> 2"], {}, "base"),
    ("resume-players", BASE + "players = 3\n", ["changed: players: 4 -> 3"], {}, "base"),
    ("resume-strategy", BASE.replace('["default"]', '["city"]'),
     ["changed: variants.baseline.strategies[0]: 'default' -> 'city'"], {}, "base"),
    ("resume-variant-added", BASE + "[variants.friendly]\nrules = { robber = 'friendly' }\n",
     ["changed: variants.friendly: added"], {}, "base"),
    ("resume-fewer-games", BASE.replace("games = 10", "games = 7"),
     ["part part-baseline-000000000005-000000000010 does not fit games=7 with batch_size=5; "
      "allowed: the games of the earlier run"], {}, "base"),
    ("resume-param", DEFS.replace("dev_weight = 1.5", "dev_weight = 2.5"),
     ["changed: variants.baseline.strategy_params[0].dev_weight: 1.5 -> 2.5"], {}, "defs"),
]


def _case(row):
    name, content, needles, *rest = row
    extra = rest[0] if rest else {}
    dataset = rest[1] if len(rest) > 1 else None
    return pytest.param(content, needles, extra, dataset, id=name)


def test_the_table_has_the_documented_number_of_rows():
    assert len(CASES) == BAD_FILES and f"the rows: {BAD_FILES}." in __doc__
    assert len({row[0] for row in CASES}) == len(CASES)  # distinct ids


@pytest.fixture(scope="module")
def datasets(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("bases")
    out = {}
    for name, text in (("base", BASE), ("defs", DEFS)):
        (tmp / f"{name}.toml").write_text(text)
        run_experiment(load_experiment(tmp / f"{name}.toml"), out=tmp / name, progress=False)
        out[name] = tmp / name
    return out


@pytest.mark.parametrize("content, needles, extra, dataset", [_case(r) for r in CASES])
def test_a_malformed_experiment_file_is_one_line_and_writes_nothing(
        content, needles, extra, dataset, tmp_path, capsys, datasets, monkeypatch):
    monkeypatch.chdir(tmp_path)  # a default output (results/NAME) would land here
    path = tmp_path / "exp.toml"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    for name, data in extra.items():
        if name.endswith("/"):
            (tmp_path / name).mkdir()
        else:
            (tmp_path / name).write_bytes(data if isinstance(data, bytes) else data.encode())
    out = tmp_path / "out"
    if dataset is not None:
        shutil.copytree(datasets[dataset], out)
        loaded = catansim.load(out)
    before = tree(tmp_path)
    code, _, err = run_main(["run", path, "--out", out, "--no-progress"], capsys)
    assert code == 2
    named = str(out) if dataset is not None else str(path)
    one_line(err, named, *needles, "; allowed: ")
    assert tree(tmp_path) == before  # nothing written, nothing changed
    if dataset is not None:
        for a, b in zip(catansim.load(out), loaded, strict=True):
            assert a.equals(b)
