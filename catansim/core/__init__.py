"""The compiled game core: Numba kernels that import only numpy and numba.

What lives here: the layout of the flat state, the rule array, event rows and the
board vector (``layout``), random streams (``rng_nb``), board generators
(``board_nb``), the rules (``rules_nb``), actions (``actions_nb``), the policy
interface and the ``random`` player (``policy_nb``), the scripted player
(``strategies_nb``), the game loop (``engine_nb``) and how kernels are compiled
(``jit``). Kernels take arrays and scalars only (topology, rules and strategy
parameters as arguments, never module globals).

May import: numpy, numba and the plain-Python game facts of ``catansim.constants``
and ``catansim.topology`` (folded to constants). Nothing else of catansim.

Numba's on-disk cache (``cache=True``) checks only the source file of each
function, not the modules it calls or the constants it reads from them. To keep
cached machine code in step with the source, the cache lives in a directory
named after a hash of every file in this package; any edit starts a fresh cache.
Set ``NUMBA_CACHE_DIR`` yourself to override the location.
"""

import hashlib
import os
from pathlib import Path

import numba


def _source_hash() -> str:
    h = hashlib.sha256()
    here = Path(__file__).parent
    for path in sorted(here.glob("*.py")) + [
        here.parent / "constants.py",
        here.parent / "topology.py",
    ]:
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def _configure_cache() -> None:
    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "catansim" / "numba"
    numba.config.CACHE_DIR = str(base / _source_hash())


_configure_cache()
