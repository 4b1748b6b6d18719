"""The compiled game core: Numba kernels that import only numpy and numba.

What lives here: the layout of the flat state, the rule array, event rows and the
board vector (``layout``), random streams (``rng_nb``), board generators
(``board_nb``), the rules (``rules_nb``), the public record of what each player can
know of every hand (``record_nb``), actions (``actions_nb``), the policy interface and
the ``random`` player (``policy_nb``), the scripted player (the subpackage ``scripted``,
module for module the twin of ``catansim.players.reference``), the game: a new game and
its set-up (``setup_nb``), the phases of a turn (``phases_nb``), the loop that plays
them for the batch and the step interface (``loop_nb``), its entry points
(``engine_nb``), what the kernel checks as it plays (``checker_nb``: illegal
choices, broken invariants) and determinization, the cards a seat cannot see dealt
anew from what it knows (``determinize_nb``); how kernels are compiled (``jit``), the
three changes to Numba's own code that make them, or their compile, faster
(``numba_patches``, with the Numba version they were written for) and getting the
batch kernel ready, from the kernel cache or a cold compile in two processes
(``compiling``). Kernels take arrays and scalars only (topology, rules and strategy
parameters as arguments, never module globals).

Kernels are compiled as ``core.jit`` says. An ``inline_kernel`` is inlined by Numba
into each caller's IR: the dispatchers of one caller, and small functions called
several times per decision, where passing the arrays (seven machine words each in
Numba's calling convention) is much of a call (``scripted``; measured in
``docs/history/performance.md``). It is typed again in each caller, so a constant it returns
can be typed as that literal and make a kernel it is passed to compile once more:
give such values a type (``np.int64(-1)``).

**No negative indices here.** The core's functions are compiled without Python's
negative-index wraparound (``core.numba_patches.nonnegative_indices``: 16% of a
game's instructions), so ``a[-1]`` in this package is not the last item but memory
before the array. Write ``a[a.shape[0] - 1]``, and keep the sentinel -1 out of
indices (``if ev >= 0: log[ev, ...]``). ``tests/test_bounds.py`` plays every digest
game, and the random-play invariant suite, with Numba's bounds checks on, where such
an index raises.

May import: numpy, numba and the plain-Python game facts of ``catansim.constants``
and ``catansim.topology`` (folded to constants). Nothing else of catansim, but for
this file, which places the kernel cache, and ``compiling``: ``catansim.tunables``
(``CACHE_KEEP_DAYS``, ``HELPER_TIMEOUT``).

**The engine fingerprint** (``engine_fingerprint()``, 16 hex digits) is a SHA-256
of the code that makes the compiled games: every module of this package but this
file (which only places the cache) and ``compiling`` (which only compiles, for the
signatures the game loop uses), plus ``constants.py`` and ``topology.py``, each
as Python parses it, without comments, docstrings or layout (``code_of``). Two
installations with the same fingerprint play every game identically; a change of
code, even of one constant, gives a new fingerprint, and a change of a comment, a
docstring or line breaks keeps it (and with it the kernel cache and every dataset's
resume). A run records it in its dataset's manifest and in every part, refuses to
resume a dataset made by another engine, and refuses Dask workers whose engine
differs (``catansim.runs.runner``).

**The kernel cache.** Numba's on-disk cache (``cache=True``) checks only the source
file of each function, not the modules it calls or the constants it reads from
them. To keep cached machine code in step with the source, the cache lives in
``~/.cache/catansim/numba/<fingerprint>/`` (``$XDG_CACHE_HOME`` is honoured), so
any edit starts a fresh cache; ``NUMBA_CACHE_DIR`` set by you moves it to
``$NUMBA_CACHE_DIR/<fingerprint>/`` (still one folder per engine: a fixed cache folder
shared by two engines would load one's machine code, with its state offsets, into
the other; nothing is pruned there). Each process holds a shared lock on its folder's
``.in-use`` file and touches it; when a new folder is created, the folders of other
fingerprints that no running process holds and that no process used for
``CACHE_KEEP_DAYS`` days are removed (about 11 MB each). Age, not a count, decides:
several checkouts used this week keep their caches, and a long-running Dask
worker's folder is never removed under it.
"""

import ast
import atexit
import hashlib
import os
import re
import shutil
import time
from pathlib import Path

try:
    import fcntl
except ImportError:  # no flock (Windows): no locks and no pruning
    fcntl = None

from ..tunables import CACHE_KEEP_DAYS

_IN_USE = ".in-use"
_FINGERPRINT_RE = re.compile(r"^[0-9a-f]{16}$")
_configured: list[bool] = []  # configure_cache has run in this process
_held = []  # the open, share-locked .in-use file of this process's cache folder


def _fingerprint_files() -> list[Path]:
    here = Path(__file__).parent
    outside = (here / "__init__.py", here / "compiling.py")  # they make no game
    return sorted(p for p in here.rglob("*.py") if p not in outside) + [
        here.parent / "constants.py",
        here.parent / "topology.py",
    ]


def code_of(source: str) -> str:
    """A module's code without its comments, docstrings and layout: its syntax tree,
    less every statement that is only a string, printed back (``ast.unparse``)."""
    tree = ast.parse(source)
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list):
            kept = [stmt for stmt in body if not (
                isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)
                and isinstance(stmt.value.value, str))]
            node.body = kept or [ast.Pass()]
    return ast.unparse(tree)


def _source_hash() -> str:
    h = hashlib.sha256()
    here = Path(__file__).parent.parent  # the catansim folder
    for path in _fingerprint_files():
        h.update(path.relative_to(here).as_posix().encode() + b"\0")
        h.update(code_of(path.read_text(encoding="utf-8")).encode() + b"\0")
    return h.hexdigest()[:16]


_fingerprint: list[str] = []  # computed once, when first asked (see engine_fingerprint)


def engine_fingerprint() -> str:
    """The engine fingerprint: 16 hex digits of a SHA-256 of the core's code.

    Every module of ``catansim.core`` and its subpackages but this ``__init__`` and
    ``compiling``, plus ``catansim/constants.py`` and ``catansim/topology.py`` (paths
    and ``code_of`` each, sorted): comments, docstrings and line breaks leave it alone.
    Equal fingerprints play every game identically; a dataset records the fingerprint
    of the engine that made it. Computed once, by the first kernel module imported
    (``configure_cache``), so it names the code this process runs.
    """
    if not _fingerprint:
        _fingerprint.append(_source_hash())
    return _fingerprint[0]


def cache_base() -> Path:
    """The folder holding one kernel cache per engine fingerprint."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "catansim" / "numba"


def _hold(folder: Path) -> bool:
    """Share-lock and touch ``folder/.in-use`` for the life of the process."""
    if fcntl is None:
        return False
    try:
        fh = open(folder / _IN_USE, "a")
    except OSError:
        return False
    try:
        fcntl.flock(fh, fcntl.LOCK_SH | fcntl.LOCK_NB)
        os.utime(fh.fileno())
    except OSError:
        fh.close()
        return False
    _held.append(fh)
    atexit.register(fh.close)
    return True


def _last_used(folder: Path) -> float:
    stamp = folder / _IN_USE
    if stamp.exists():
        return stamp.stat().st_mtime
    # a folder from before the stamps: its newest file (the last compile)
    newest = folder.stat().st_mtime
    for dirpath, _, files in os.walk(folder):
        for name in files:
            try:
                newest = max(newest, os.stat(os.path.join(dirpath, name)).st_mtime)
            except OSError:
                pass
    return newest


def prune_caches(base: Path, keep: Path, max_age_days: float = CACHE_KEEP_DAYS,
                 now: float | None = None) -> list[Path]:
    """Remove the cache folders under ``base`` other than ``keep`` that no running
    process holds and that nobody used for ``max_age_days`` days; returns them.

    Best effort: a folder that cannot be locked or removed is left alone.
    """
    if fcntl is None:
        return []
    now = time.time() if now is None else now
    removed = []
    try:
        folders = [d for d in base.iterdir()
                   if d.is_dir() and d != keep and _FINGERPRINT_RE.match(d.name)]
    except OSError:
        return []
    for folder in folders:
        try:
            if now - _last_used(folder) < max_age_days * 86400:
                continue
            with open(folder / _IN_USE, "a") as fh:
                try:
                    fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except OSError:
                    continue  # a running process uses it
                shutil.rmtree(folder)
            removed.append(folder)
        except OSError:
            continue
    return removed


def configure_cache() -> None:
    """Point Numba's cache at this engine's folder (once a process; idempotent).

    Called by ``core.jit`` before the first kernel is declared, since Numba picks a
    function's cache folder when it is decorated. Importing the package alone (for its
    plain facts, as a refused command-line argument does) imports no Numba and hashes
    no code."""
    if _configured:
        return
    _configured.append(True)
    import numba  # noqa: PLC0415  (0.3-0.5 s: only when a kernel is declared)

    fingerprint = engine_fingerprint()
    if os.environ.get("NUMBA_CACHE_DIR"):
        numba.config.CACHE_DIR = os.path.join(os.environ["NUMBA_CACHE_DIR"], fingerprint)
        return
    base = cache_base()
    folder = base / fingerprint
    numba.config.CACHE_DIR = str(folder)
    created = not folder.exists()
    for _ in range(2):  # a pruner may remove an old folder between mkdir and the lock
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError:
            return  # an unwritable home: Numba says so if it cannot cache
        if _hold(folder):
            break
    if created:
        prune_caches(base, folder)

