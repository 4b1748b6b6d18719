"""Regenerate the golden game logs in this folder.

Run this ONLY when a change to the rules engine is meant to change games (a rules
fix, a new event field, a change to the random streams), then review the diff of
the ``.jsonl`` files like any other change before committing it::

    .venv/bin/python tests/golden/regenerate.py
    git diff --stat tests/golden/

``tests/test_golden.py`` replays the same seeds and settings and fails at the first
event that differs from these files.
"""

from __future__ import annotations

from pathlib import Path

from catansim.engine import play_game
from catansim.logs import event_rows_to_dicts, make_header, write_log
from catansim.rules import Rules

HERE = Path(__file__).parent

# file name: (seed, play_game keyword arguments)
GOLDEN = {
    "variable-4p-official.jsonl": (20260101, {"n_players": 4, "layout": "variable"}),
    "beginner-3p-official.jsonl": (31337, {"n_players": 3, "layout": "beginner"}),
    "variable-4p-friendly-bank8.jsonl": (
        4242,
        {"n_players": 4, "layout": "variable",
         "rules": Rules(robber="friendly", bank_per_resource=8)},
    ),
}


def golden_log(name):
    """(header, events) of a golden game, played now by the engine."""
    seed, kwargs = GOLDEN[name]
    g = play_game(seed, log=True, **kwargs)
    header = make_header(g.seed, g.n_players, g.strategies, g.rules, g.board)
    return header, event_rows_to_dicts(g.events, g.n_players)


def main():
    for name in GOLDEN:
        header, events = golden_log(name)
        write_log(HERE / name, header, events)
        print(f"{name}: {len(events)} events")


if __name__ == "__main__":
    main()
