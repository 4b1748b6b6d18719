"""Nothing a refactoring does may change a game, a log, a dataset or a printed table.

Recomputes the digests of ``tests/golden/digests.py`` (games of every strategy mix
and rule setting, event logs and narratives, datasets of six experiments with their
summaries, ``simulate``, ``tournament`` and ``play`` output) and compares them with
the stored ``digests.json``. A difference names the digest; regenerate only when a
change is meant to change games, and say so in the commit.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

GOLDEN_DIR = Path(__file__).parent / "golden"
_spec = importlib.util.spec_from_file_location("golden_digests", GOLDEN_DIR / "digests.py")
D = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(D)
STORED = json.loads(D.DIGESTS.read_text())


def _compare(now: dict, prefix: str = ""):
    want = {k: v for k, v in STORED["digests"].items() if k.startswith(prefix)} if prefix \
        else None
    if want is None:
        want = {k: STORED["digests"][k] for k in now}
    assert set(now) == set(want), sorted(set(now) ^ set(want))
    changed = sorted(k for k in now if now[k] != want[k])
    assert not changed, f"changed: {', '.join(changed)}"


def test_counters_of_every_strategy_mix_and_rule_setting_are_unchanged():
    fields = STORED["counter_fields"]
    assert fields == [f for f in D.counter_fields() if f in fields]  # none removed
    assert len(fields) >= 38
    _compare(D.counter_digests(fields))


def test_event_logs_headers_and_narratives_are_unchanged():
    keys = STORED["rule_keys"]
    assert keys == [k for k in D.rule_keys() if k in keys]  # none removed
    _compare(D.log_digests(keys))


def test_datasets_and_summaries_are_unchanged(tmp_path):
    columns = STORED["columns"]
    for table, names in columns.items():  # none removed, none reordered
        assert names == [c for c in D.table_columns()[table] if c in names]
    _compare(D.dataset_digests(tmp_path, columns))


def test_stress_strategies_are_unchanged():
    # Longest Route fights, heavy player trading, big hands and every robber policy.
    _compare(D.stress_digests(STORED["counter_fields"]))


def test_whole_event_logs_of_many_games_are_unchanged():
    # Every decision of every game: where each piece went, each trade and robber move.
    _compare(D.log_set_digests())


def test_command_output_is_unchanged():
    _compare(D.command_digests())


def test_the_digest_set_covers_what_it_claims():
    d = STORED["digests"]
    assert len([k for k in d if k.startswith("dataset:")]) == 2 * len(D.EXPERIMENTS)
    sets = D.COUNTER_SETS.values()
    assert {s[0] for s in sets} == {3, 4}
    assert {s[2] for s in sets} == {"variable", "random_numbers", "beginner"}
    names = {n for s in sets for n in s[1]}
    assert names >= {"default", "classic", "random", "builder", "expander", "city", "army",
                     "trader"}
    rules = [s[3] for s in sets]
    for key, values in {"robber": {"official", "friendly", "off"},
                        "shortage": {"strict", "off"}}.items():
        assert {r.get(key, "official") for r in rules} >= values
    assert any(r.get("bank_per_resource", 19) is None for r in rules)
    assert any(r.get("discard_limit", 7) is None for r in rules)
