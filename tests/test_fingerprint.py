"""The engine fingerprint (``catansim.core.engine_fingerprint``) follows the code that
decides the games: a comment, a docstring or a line break leaves it (and the kernel
cache, and every dataset's resume) alone; a change of code in any file it covers moves
it. Each copy of catansim is imported in a child process, as a run or a worker would."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from catansim.core import _fingerprint_files, code_of, engine_fingerprint

ROOT = Path(__file__).resolve().parents[1]

MODULE = '''"""A module."""

import numpy as np

X = 3  # a comment


def f(a, b):
    """What f does."""
    # why
    return a + b * X


class C:
    """A class."""

    def g(self):
        "only a docstring"
'''


def test_code_of_ignores_comments_docstrings_and_layout():
    same = (MODULE.replace("# a comment", "# another comment")
            .replace('"""What f does."""', '"""What f does,\n    at length."""')
            .replace('"""A module."""', "# no docstring at all")
            .replace("return a + b * X", "return (a +\n            b * X)")
            .replace("\n\n\ndef f", "\n\ndef f"))
    assert same != MODULE
    assert code_of(same) == code_of(MODULE)
    assert "What f does" not in code_of(MODULE) and "comment" not in code_of(MODULE)


@pytest.mark.parametrize("old, new", [
    ("X = 3", "X = 4"),  # a constant
    ("a + b * X", "a + X * b"),  # an expression
    ("def f(a, b)", "def f(b, a)"),  # a signature
    ('"only a docstring"', '"only a docstring"\n        return 1'),  # a statement
    ("import numpy as np", "import numpy as nq"),  # a name
])
def test_code_of_changes_with_the_code(old, new):
    assert code_of(MODULE.replace(old, new)) != code_of(MODULE)


def test_every_module_of_the_core_and_the_game_facts_are_covered():
    names = [p.relative_to(ROOT / "catansim").as_posix() for p in _fingerprint_files()]
    folder = ROOT / "catansim" / "core"
    # every module but the two that make no game: __init__ places the kernel cache,
    # compiling only compiles
    outside = (folder / "__init__.py", folder / "compiling.py")
    core = sorted(f"core/{p.relative_to(folder).as_posix()}" for p in folder.rglob("*.py")
                  if p not in outside)
    assert "core/scripted/decisions_nb.py" in core  # the subpackages too
    assert "core/determinize_nb.py" in core
    assert names == core + ["constants.py", "topology.py"]


def _fingerprint_of_a_copy(tmp_path: Path, file: str, edit) -> str:
    alt = tmp_path / "alt"
    shutil.copytree(ROOT / "catansim", alt / "catansim",
                    ignore=shutil.ignore_patterns("__pycache__"))
    path = alt / "catansim" / file
    path.write_text(edit(path.read_text()))
    env = dict(os.environ, PYTHONPATH=str(alt), NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    r = subprocess.run([sys.executable, "-c", "import catansim.core as c; "
                        "print(c.engine_fingerprint(), c.__file__)"],
                       capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    fingerprint, where = r.stdout.split()
    assert Path(where).is_relative_to(alt)  # the copy was fingerprinted, not this checkout
    return fingerprint


def _comment_and_docstring(text: str) -> str:
    head, sep, rest = text.partition('"""')
    assert sep, "the module has a docstring"
    return head + sep + "Reworded. " + rest + "\n# a new comment at the end\n"


@pytest.mark.parametrize("file", ["core/rng_nb.py", "constants.py", "topology.py"])
def test_a_comment_and_a_docstring_keep_the_fingerprint_and_code_moves_it(tmp_path, file):
    assert _fingerprint_of_a_copy(tmp_path / "doc", file,
                                  _comment_and_docstring) == engine_fingerprint()
    moved = _fingerprint_of_a_copy(tmp_path / "code", file,
                                   lambda text: text + "\nANOTHER_ENGINE = 1\n")
    assert len(moved) == 16 and moved != engine_fingerprint()


def test_the_kept_games_digest_is_named_by_the_rows_the_games_play(monkeypatch):
    # A preset's row lives outside the engine's code: the same kernel cache folder, given
    # another row for a strategy of the digest's games, must not find the old digest.
    from catansim import engine as E
    from catansim.rules import Rules

    named = {}
    for strategy in ("classic", "default", "classic"):
        monkeypatch.setattr(E, "DIGEST_GAMES", ((4, (strategy,), "variable", Rules(), 1),))
        named.setdefault(strategy, set()).add(E.games_digest_file().name)
    assert all(len(v) == 1 for v in named.values())
    assert named["classic"] != named["default"]


def test_the_games_digest_names_the_games_not_the_code(tmp_path, monkeypatch):
    import numba

    from catansim import engine as E
    from catansim.rules import Rules

    # the kept digest is the digest of the fixed games, played again here
    digest = E.games_digest()
    assert len(digest) == 12 and int(digest, 16) >= 0
    assert E.digest_of_games(E.DIGEST_GAMES) == digest
    # a change of behaviour (one seat's strategy, one rule) changes it; the same games
    # give the same digest
    small = [(4, ("default",), "variable", Rules(), 20)]
    assert E.digest_of_games(small) == E.digest_of_games(list(small))
    assert E.digest_of_games([(4, ("default", "default", "default", "city"), "variable",
                               Rules(), 20)]) != E.digest_of_games(small)
    assert E.digest_of_games([(4, ("default",), "variable", Rules(robber="off"), 20)]) \
        != E.digest_of_games(small)
    # kept in the engine's cache folder; a damaged or missing file is played again
    monkeypatch.setattr(numba.config, "CACHE_DIR", str(tmp_path))
    E.games_digest.cache_clear()
    try:
        kept = E.games_digest_file()
        assert kept.parent == tmp_path
        kept.write_text("not a digest\n")
        assert E.games_digest() == digest
        assert kept.read_text().strip() == digest
        assert not list(tmp_path.glob("*.tmp"))
    finally:
        E.games_digest.cache_clear()
