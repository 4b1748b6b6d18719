"""No kernel of the core reads or writes outside its arrays, negative indices included.

The core's functions are compiled without Python's negative-index wraparound
(``core.jit.nonnegative_indices``), so an index below zero would not mean "from the
end" there: it would be outside the array, like one past the end, which Numba never
checks by default. Here every game of the stored digests (every strategy mix and rule
setting, the stress strategies, the logged games) is played again in a process whose
kernels are compiled afresh with Numba's bounds checks on (``NUMBA_BOUNDSCHECK=1``,
where any index outside ``[0, size)`` raises IndexError), and the games must come out
exactly as stored: no index out of bounds, and the checks change nothing. Then the
random-play invariant suite (``tests/test_invariants.py``, every rule setting with the
in-kernel state checker on) runs in such a process on a twentieth of its games, and so
do games of the search player (determinizations and rollouts at every decision).

Both children share one fresh kernel cache: Numba's cache does not key machine code by
the bounds-check flag, so the user's cache would hand them unchecked kernels.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from test_digests import GOLDEN_DIR, STORED
from test_invariants import CONFIGS

CHILD = textwrap.dedent("""
    import importlib.util, json, sys
    import numba
    assert numba.config.BOUNDSCHECK, "NUMBA_BOUNDSCHECK is not on"
    spec = importlib.util.spec_from_file_location("golden_digests", sys.argv[1])
    D = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(D)
    fields = json.loads(sys.argv[2])
    out = {}
    out.update(D.counter_digests(fields))
    out.update(D.stress_digests(fields))
    out.update(D.log_set_digests())
    print(json.dumps(out))
""")


INVARIANTS = textwrap.dedent("""
    import sys
    import numba, pytest
    assert numba.config.BOUNDSCHECK, "NUMBA_BOUNDSCHECK is not on"
    sys.exit(pytest.main(["-q", "-n", "0", "-p", "no:cacheprovider", sys.argv[1],
                          "-k", "test_random_play_invariants"]))
""")
TESTS = Path(__file__).resolve().parent

SEARCH = textwrap.dedent("""
    import numba
    assert numba.config.BOUNDSCHECK, "NUMBA_BOUNDSCHECK is not on"
    import catansim
    from catansim.players.search import SearchPlayer
    for n in (3, 4):
        for seed in range(4):
            player = SearchPlayer(budget=8, candidates=4, information=("public",
                                  "omniscient")[seed % 2])
            seats = [player, "army", "trader", "city"][:n]
            catansim.play_game(seed, n, seats[seed % n:] + seats[:seed % n])
    print("played")
""")


@pytest.fixture(scope="module")
def checked_env(tmp_path_factory):
    cache = tmp_path_factory.mktemp("boundscheck-cache")  # never the user's kernels
    return dict(os.environ, NUMBA_BOUNDSCHECK="1", NUMBA_CACHE_DIR=str(cache))


@pytest.fixture(scope="module")
def checked_digests(checked_env):
    r = subprocess.run(
        [sys.executable, "-c", CHILD, str(GOLDEN_DIR / "digests.py"),
         json.dumps(STORED["counter_fields"])],
        capture_output=True, text=True, env=checked_env, timeout=1800)
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_every_digest_game_stays_inside_its_arrays_and_plays_as_stored(checked_digests):
    # An index out of bounds raised IndexError in the child: the fixture fails with its
    # stderr. Here: the checks ran every game and changed none.
    stored = STORED["digests"]
    assert set(checked_digests) == {k for k in stored if k.split(":")[0] in (
        "stress", "logset") or ":" not in k}
    changed = sorted(k for k, v in checked_digests.items() if stored[k] != v)
    assert not changed, f"changed under bounds checks: {', '.join(changed)}"


def test_the_random_play_invariants_hold_with_bounds_checks_on(checked_env):
    # Run after the digests, so the bounds-checked kernels come from their shared cache.
    env = dict(checked_env, CATANSIM_TEST_SCALE="0.05")
    r = subprocess.run([sys.executable, "-c", INVARIANTS, str(TESTS / "test_invariants.py")],
                       capture_output=True, text=True, env=env, cwd=TESTS.parent, timeout=1800)
    assert r.returncode == 0, (r.stdout + r.stderr)[-3000:]
    summary = r.stdout.strip().splitlines()[-1]
    assert f"{len(CONFIGS)} passed" in summary and "failed" not in summary, summary


def test_determinization_and_rollouts_stay_inside_their_arrays(checked_env):
    # Search players' games (logged, every decision searched by rollouts from
    # determinized copies): an index out of bounds raises in the child.
    r = subprocess.run([sys.executable, "-c", SEARCH], capture_output=True, text=True,
                       env=checked_env, cwd=TESTS.parent, timeout=1800)
    assert r.returncode == 0 and r.stdout.strip().endswith("played"), r.stderr[-3000:]
