"""Golden logs: the engine must replay a few stored games event for event.

The files in ``tests/golden/`` were written by ``tests/golden/regenerate.py`` and
reviewed. A difference means the engine now plays these seeds differently; if
that is intended (a rules change), regenerate and review the diff.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from catansim.logs import read_log, replay

GOLDEN_DIR = Path(__file__).parent / "golden"
_spec = importlib.util.spec_from_file_location("golden_regenerate",
                                               GOLDEN_DIR / "regenerate.py")
regen = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(regen)


@pytest.mark.parametrize("name", list(regen.GOLDEN))
def test_engine_replays_the_golden_log(name):
    path = GOLDEN_DIR / name
    assert path.exists(), f"missing {path}; run tests/golden/regenerate.py"
    header, events = read_log(path)
    header_now, events_now = regen.golden_log(name)
    assert header_now == header, "header differs (board, rules or strategies)"
    for i, (want, got) in enumerate(zip(events, events_now, strict=False)):
        if want != got:
            context = events[max(0, i - 3) : i]
            pytest.fail(f"{name}: first difference at event {i}\n"
                        f"  context: {context}\n  golden:  {want}\n  engine:  {got}")
    assert len(events_now) == len(events), (
        f"{name}: {len(events)} golden events, engine wrote {len(events_now)}")


@pytest.mark.parametrize("name", list(regen.GOLDEN))
def test_golden_logs_pass_the_independent_checker(name):
    header, events = read_log(GOLDEN_DIR / name)
    res = replay(header, events, check=True)
    end = events[-1]
    assert end["e"] == "game_end"
    assert res.winner == end["winner"]
    assert [v["total"] for v in res.vp] == end["vp"]


def test_golden_set_covers_the_requested_games():
    headers = [read_log(GOLDEN_DIR / n)[0] for n in regen.GOLDEN]
    assert {h["n_players"] for h in headers} == {3, 4}
    assert any(h["rules"]["robber"] == "friendly" and h["rules"]["bank_per_resource"] == 8
               for h in headers)
