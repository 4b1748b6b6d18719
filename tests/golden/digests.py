"""Digests of a fixed set of games, logs, datasets, summaries and tournaments.

A refactoring must not change a single game: ``tests/test_digests.py`` recomputes
every digest below and compares it with ``digests.json``. The set covers every
strategy preset and mixed tables, 3 and 4 players, every layout, forced openings
and every rule setting (counters of each game, field by field), full event logs
and their narratives, datasets written by ``catansim run`` (both tables, dtypes
included) with their printed summaries, ``catansim simulate`` and tournaments.

Counters are hashed per field, dataset tables per column and log headers per rule
key, and only the fields, columns and rule keys named in ``digests.json``: a new
counter, column or rule setting leaves the old digests valid, a changed decision
does not.
Regenerate ONLY when a change is meant to change games (a rules fix), then review
which digests changed::

    .venv/bin/python tests/golden/digests.py --write
    git diff tests/golden/digests.json
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
DIGESTS = HERE / "digests.json"

# name: (n_players, strategies, layout, rules, openings, games)
COUNTER_SETS = {
    "default-4": (4, ["default"], "variable", {}, None, 300),
    "random-4": (4, ["random"], "variable", {}, None, 150),
    "builder-4": (4, ["builder"], "variable", {}, None, 200),
    "expander-4": (4, ["expander"], "variable", {}, None, 200),
    "city-4": (4, ["city"], "variable", {}, None, 200),
    "army-4": (4, ["army"], "variable", {}, None, 200),
    "trader-4": (4, ["trader"], "variable", {}, None, 200),
    "mixed-4": (4, ["builder", "city", "expander", "army"], "variable", {}, None, 200),
    "mixed-random-4": (4, ["default", "random", "trader", "city"], "random_numbers", {}, None,
                       200),
    "default-3": (3, ["default"], "variable", {}, None, 200),
    "mixed-3": (3, ["army", "trader", "default"], "random_numbers", {}, None, 200),
    "beginner-4": (4, ["default"], "beginner", {}, None, 200),
    "beginner-3": (3, ["city", "builder", "default"], "beginner", {}, None, 200),
    "forced-4": (4, ["default"], "variable", {}, {0: (14, 16, 39, 55), 2: (5, -1)}, 200),
    "friendly-4": (4, ["default"], "variable", {"robber": "friendly"}, None, 200),
    "robber-off-4": (4, ["army"], "variable", {"robber": "off"}, None, 200),
    "strict-bank7-4": (4, ["default"], "variable",
                       {"shortage": "strict", "bank_per_resource": 7}, None, 200),
    "shortage-off-bank5-3": (3, ["city"], "variable",
                             {"shortage": "off", "bank_per_resource": 5}, None, 200),
    "official-bank9-4": (4, ["expander", "city", "city", "trader"], "variable",
                         {"bank_per_resource": 9}, None, 200),
    "unlimited-nodiscard-4": (4, ["default"], "variable",
                              {"bank_per_resource": None, "discard_limit": None}, None, 200),
    "discard0-vp12-4": (4, ["trader"], "variable", {"discard_limit": 0, "vp_to_win": 12}, None,
                        150),
    "vp5-cap40-3": (3, ["random", "default", "army"], "variable",
                    {"vp_to_win": 5, "max_turns": 40}, None, 200),
    "first-turn-2-4": (4, ["default", "city", "army", "trader"], "variable",
                       {"first_turn": 2, "bank_per_resource": 9}, None, 200),
    "friendly-random-robber-4": (4, ["random", "random", "default", "random"], "variable",
                                 {"robber": "friendly"}, None, 150),
    # rule switches at the end of a turn ("switch": (turn, the rules after))
    "switch-robber-off-4": (4, ["default"], "variable",
                            {"switch": (40, {"robber": "off"})}, None, 200),
    "switch-robber-on-4": (4, ["default", "army", "trader", "city"], "variable",
                           {"robber": "off", "switch": (30, {"robber": "official"})}, None,
                           150),
    "switch-friendly-off-strict-3": (3, ["army", "default", "builder"], "variable",
                                     {"robber": "friendly", "bank_per_resource": 9,
                                      "switch": (25, {"robber": "off", "shortage": "strict",
                                                      "vp_to_win": 8})}, None, 150),
    "classic-4": (4, ["classic"], "variable", {}, None, 300),
    "classic-default-4": (4, ["classic", "default", "classic", "default"], "variable", {},
                          None, 200),
}

# Strategies that stress decision paths the presets touch lightly: Longest Route fights
# (roads, blocking, route extension), player trades (many offers, accepting freely),
# big hands (no trades: discards, Monopoly at 1 card), each robber policy.
STRESS_STRATEGIES = {
    "roadfight": {"base": "expander", "road_weight": 3.0, "route_weight": 5.0,
                  "block_weight": 3.0, "reach_weight": 1.0, "settlement_weight": 0.6},
    "haggler": {"base": "trader", "offers": 10.0, "accept": 1.0, "accept_vp_limit": 20.0,
                "bank_trade": 2.0, "missing_penalty": 0.3},
    "hoarder": {"base": "city", "bank_trade": 0.0, "offers": 0.0, "accept": 0.0,
                "monopoly_min": 1.0, "dev_weight": 1.5},
    "robber-prod": {"base": "army", "robber_policy": 1.0, "road_weight": 1.0},
    "robber-rand": {"base": "builder", "robber_policy": 2.0, "knight_eager": 1.0,
                    "block_weight": 2.0},
}
# name: (n_players, strategies, layout, rules, games); seeds 1900 + position
STRESS_SETS = {
    "roadfight-4": (4, ["roadfight"], "variable", {}, 200),
    "haggler-4": (4, ["haggler"], "variable", {}, 200),
    "stress-mixed-4": (4, ["roadfight", "haggler", "hoarder", "robber-rand"], "variable", {},
                       200),
    "stress-mixed-3": (3, ["robber-prod", "roadfight", "haggler"], "random_numbers",
                       {"robber": "friendly"}, 200),
    "roadfight-default-4": (4, ["roadfight", "default", "roadfight", "default"], "variable",
                            {"bank_per_resource": 8}, 200),
    "hoarder-random-4": (4, ["hoarder", "random", "robber-prod", "haggler"], "variable",
                         {"discard_limit": 9}, 150),
}
# Whole event logs and final boards of many games: every decision of every game
# (where each road, settlement and city went, every trade and robber move).
# name: (first seed, games, n_players, strategies, layout, rules)
LOG_SETS = {
    "default-4": (2000, 60, 4, ["default"], "variable", {}),
    "random-4": (2100, 25, 4, ["random"], "variable", {}),
    "presets-4": (2200, 60, 4, ["builder", "expander", "trader", "city"], "variable", {}),
    "presets-3": (2300, 40, 3, ["army", "trader", "default"], "random_numbers",
                  {"robber": "friendly"}),
    "stress-4": (2400, 60, 4, ["roadfight", "haggler", "hoarder", "robber-rand"], "variable",
                 {}),
    "stress-random-4": (2500, 30, 4, ["robber-prod", "random", "roadfight", "default"],
                        "variable", {"shortage": "strict", "bank_per_resource": 9}),
    "beginner-4": (2600, 30, 4, ["default", "roadfight", "haggler", "city"], "beginner", {}),
}
# final-state fields hashed with each logged game
LOG_SET_FIELDS = ("node_owner", "node_level", "edge_owner", "bank", "hand", "dev_hand",
                  "knights", "roads_left", "settlements_left", "cities_left", "harbors",
                  "route_len", "longest_holder", "army_holder", "robber_hex", "deck_pos")

# name: (seed, n_players, strategies, layout, rules)
LOG_GAMES = {
    "default-4-official": (11, 4, ["default"], "variable", {}),
    "mixed-4-friendly": (12, 4, ["army", "trader", "city", "builder"], "variable",
                         {"robber": "friendly", "bank_per_resource": 8}),
    "random-3-strict": (13, 3, ["random"], "random_numbers",
                        {"shortage": "strict", "bank_per_resource": 6}),
    "beginner-3": (14, 3, ["default", "expander", "random"], "beginner", {}),
    "default-4-unlimited": (15, 4, ["default"], "variable",
                            {"bank_per_resource": None, "discard_limit": None}),
    "city-4-robber-off": (16, 4, ["city"], "variable", {"robber": "off", "vp_to_win": 8}),
}

EXPERIMENTS = ("quickstart", "robber_variants", "strategy_mix", "fixed_board", "shortage",
               "seat_order")
EXPERIMENT_GAMES = 240
EXPERIMENT_BATCH = 100

SIMULATE_ARGS = (
    ["--games", "300", "--seed", "4"],
    ["--games", "240", "--players", "3", "--strategies", "army,city,trader", "--rotate",
     "--rule", "robber=friendly"],
    ["--games", "200", "--board", "variable:42", "--rule", "bank_per_resource=7"],
)


def _sha(*chunks) -> str:
    h = hashlib.sha256()
    for c in chunks:
        h.update(c if isinstance(c, bytes) else str(c).encode())
    return h.hexdigest()[:20]


def _frame_digest(df, columns) -> str:
    import pandas as pd

    df = df[list(columns)]
    dtypes = ";".join(f"{c}:{t}" for c, t in df.dtypes.items())
    cats = ";".join(f"{c}:{list(df[c].cat.categories)}" for c in df.columns
                    if isinstance(df[c].dtype, pd.CategoricalDtype))
    values = pd.util.hash_pandas_object(df, index=False).to_numpy().tobytes()
    return _sha(dtypes, cats, values)


def _openings(spec):
    if spec is None:
        return None
    out = np.full(16, -1, dtype=np.int32)
    for seat, values in spec.items():
        out[4 * seat : 4 * seat + len(values)] = values
    return out


def counter_fields() -> list[str]:
    from catansim.core import layout as L

    return [name for name, _, _ in L.STATE_FIELDS if name.startswith("c_")]


def _rules(spec: dict):
    """A set's rules: ``Rules`` keywords, and ``switch``: (turn, the rules after)."""
    from catansim.rules import Rules

    spec = dict(spec)
    switch = spec.pop("switch", None)
    rules = Rules(**spec)
    return rules if switch is None else rules.switched(switch[0], **switch[1])


def counter_digests(fields) -> dict[str, str]:
    from catansim.core import layout as L
    from catansim.engine import batch_seeds, play_batch
    from catansim.settings import GameSettings

    out = {}
    for i, (name, (n, strategies, layout, rules, openings, games)) in enumerate(
            COUNTER_SETS.items()):
        settings = GameSettings(n_players=n, strategies=tuple(strategies), layout=layout,
                                rules=_rules(rules), openings=_openings(openings))
        res = play_batch(batch_seeds(900 + i, games), settings)
        chunks = [res.boards.tobytes()]
        for f in fields:
            off = L.COUNTER_OFFSETS[f]
            chunks += [f, np.ascontiguousarray(res.counters[:, off:off + L.STATE_LENGTHS[f]])
                       .tobytes()]
        out[name] = _sha(*chunks)
    return out


def log_digests(rule_keys) -> dict[str, str]:
    from catansim.engine import play_game
    from catansim.logs import event_rows_to_dicts, make_header, narrative
    from catansim.rules import Rules

    out = {}
    for name, (seed, n, strategies, layout, rules) in LOG_GAMES.items():
        g = play_game(seed, n_players=n, strategies=strategies, layout=layout,
                      rules=Rules(**rules), log=True)
        header = make_header(g.seed, g.n_players, g.strategies, g.rules, g.board)
        events = event_rows_to_dicts(g.events, g.n_players)
        head = dict(header, rules={k: header["rules"][k] for k in rule_keys})
        out[f"header:{name}"] = _sha(json.dumps(head, sort_keys=True))
        out[f"log:{name}"] = _sha("\n".join(json.dumps(x, sort_keys=True) for x in events))
        out[f"narrative:{name}"] = _sha(narrative(header, events))
    return out


def stress_strategy_set():
    from catansim.strategies import PRESETS

    return PRESETS.with_definitions(STRESS_STRATEGIES)


def stress_digests(fields) -> dict[str, str]:
    """Counters (field by field) and boards of the STRESS_SETS games."""
    from catansim.core import layout as L
    from catansim.engine import batch_seeds, play_batch
    from catansim.rules import Rules
    from catansim.settings import GameSettings

    strategies = stress_strategy_set()
    out = {}
    for i, (name, (n, names, layout, rules, games)) in enumerate(STRESS_SETS.items()):
        settings = GameSettings(n_players=n, strategies=tuple(names), layout=layout,
                                rules=Rules(**rules), strategy_set=strategies)
        res = play_batch(batch_seeds(1900 + i, games), settings)
        chunks = [res.boards.tobytes()]
        for f in fields:
            off = L.COUNTER_OFFSETS[f]
            chunks += [f, np.ascontiguousarray(res.counters[:, off:off + L.STATE_LENGTHS[f]])
                       .tobytes()]
        out[f"stress:{name}"] = _sha(*chunks)
    return out


def log_set_digests() -> dict[str, str]:
    """Every event and the final pieces, hands and supply of each LOG_SETS game."""
    from catansim.engine import batch_seeds, play_game
    from catansim.rules import Rules
    from catansim.settings import GameSettings

    strategies = stress_strategy_set()
    out = {}
    for name, (seed, games, n, names, layout, rules) in LOG_SETS.items():
        settings = GameSettings(n_players=n, strategies=tuple(names), layout=layout,
                                rules=Rules(**rules), strategy_set=strategies)
        chunks = []
        for game_seed in batch_seeds(seed, games):
            g = play_game(int(game_seed), settings=settings, log=True)
            chunks.append(np.ascontiguousarray(g.events).tobytes())
            for f in LOG_SET_FIELDS:
                chunks += [f, g.field(f).tobytes()]
        out[f"logset:{name}"] = _sha(*chunks)
    return out


def dataset_digests(tmp: Path, columns) -> dict[str, str]:
    import catansim
    from catansim.analysis import format_summary, summarize_dataset
    from catansim.runs.experiment import load_experiment
    from catansim.runs.runner import run_experiment

    root = HERE.parent.parent / "experiments"
    out = {}
    for name in EXPERIMENTS:
        exp = load_experiment(root / f"{name}.toml").with_overrides(
            games=EXPERIMENT_GAMES, batch_size=EXPERIMENT_BATCH)
        run_experiment(exp, out=tmp / name, progress=False)
        games, players = catansim.load(tmp / name)
        out[f"dataset:{name}:games"] = _frame_digest(games, columns["games"])
        out[f"dataset:{name}:players"] = _frame_digest(players, columns["players"])
        text = "\n".join(f"[{v}]\n{format_summary(t)}"
                         for v, t in summarize_dataset(tmp / name, exp.variant_names).items())
        out[f"summary:{name}"] = _sha(text)
    return out


def command_digests() -> dict[str, str]:
    from click.testing import CliRunner

    from catansim.cli import cli

    runner = CliRunner()
    out = {}
    commands = {f"simulate:{i}": ["simulate", *a] for i, a in enumerate(SIMULATE_ARGS)}
    commands["tournament"] = ["tournament", "--games", "200", "--seed", "5", "--quiet"]
    commands["tournament-3"] = ["tournament", "--strategies", "default,army,random",
                                "--players", "3", "--games", "150", "--quiet"]
    commands["matrix"] = ["tournament", "--strategies", "default,army,city", "--games", "120",
                          "--matrix", "--seed", "2", "--quiet"]
    commands["play"] = ["play", "--seed", "40", "--games", "5", "--strategies",
                        "default,city,army,random", "--rule", "robber=friendly"]
    for name, argv in commands.items():
        res = runner.invoke(cli, argv, catch_exceptions=False)
        assert res.exit_code == 0, (name, res.output)
        out[f"command:{name}"] = _sha(res.output)
    return out


def table_columns() -> dict[str, list[str]]:
    from catansim.results import COLUMNS

    return {t: list(COLUMNS[COLUMNS.table == t]["name"]) for t in ("games", "players")}


def rule_keys() -> list[str]:
    from catansim.rules import Rules

    return Rules.names()


def compute(tmp: Path, stored: dict) -> dict[str, str]:
    out = {}
    out.update(counter_digests(stored["counter_fields"]))
    out.update(log_digests(stored["rule_keys"]))
    out.update(dataset_digests(tmp, stored["columns"]))
    out.update(stress_digests(stored["counter_fields"]))
    out.update(log_set_digests())
    out.update(command_digests())
    return out


def main(argv) -> None:
    import tempfile

    if argv != ["--write"]:
        print(__doc__)
        raise SystemExit(2)
    stored = {"counter_fields": counter_fields(), "columns": table_columns(),
              "rule_keys": rule_keys()}
    with tempfile.TemporaryDirectory() as tmp:
        stored["digests"] = compute(Path(tmp), stored)
    DIGESTS.write_text(json.dumps(stored, indent=1) + "\n")
    print(f"wrote {DIGESTS}: {len(stored['digests'])} digests")


if __name__ == "__main__":
    main(sys.argv[1:])
