"""How the core's kernels are compiled.

Compiled code never allocates: the game's state, its random streams and its scratch
come from the Python caller (``engine_nb.new_scratch``; allocating inside the entry
point would compile NumPy's array constructors and their error messages into it, a
fifth of the cold compile). Every kernel is a ``kernel``, compiled without Numba's
reference counting (``_nrt=False``), and so is the entry point ``play_batch_nb``. With
reference counting, every call that passes arrays pays an atomic increment and
decrement per array: about 15% of a game.

Numba passes the ``nrt`` flag on to callees that do not set it, so every kernel
here sets it explicitly; a kernel that tried to allocate fails to compile.

No kernel has a C callback wrapper (``no_cfunc_wrapper``): Numba makes one per
compiled function for passing it as a first-class function or a ``cfunc``, which the
game never does, and making them takes 3% of a cold compile (Numba's
``create_cfunc_wrapper``). The CPython wrapper stays: Python calls kernels directly
(the engine API calls ``play_batch_nb``, the tests call many kernels), and a kernel
without it would crash when called from Python.

Array types in ``typed_kernel`` signatures: the state and the other scratch arrays
are ``int32[::1]`` (C-contiguous, writable), the event log ``int32[:, ::1]``, the
random streams ``uint64[::1]``.

Three changes to Numba's own code make the kernels or their compile faster: no
negative-index wraparound in the core's functions (16% of a game's instructions),
private copies of the core's functions in the batch kernel (12%), and an inlined
function's IR copied with one copy of its scope (half the inlining's compile time).
All live in ``core.numba_patches``, with the Numba version they were written for;
importing this module applies them.
"""

from . import configure_cache

configure_cache()  # before any kernel is declared: Numba picks its cache folder then

import numba as nb  # noqa: E402
from numba import types  # noqa: E402

from . import numba_patches  # noqa: E402, F401  (applied before any kernel compiles)

kernel = nb.njit(cache=True, _nrt=False, no_cfunc_wrapper=True)
inline_kernel = nb.njit(cache=True, _nrt=False, no_cfunc_wrapper=True, inline="always")


# Argument types for typed_kernel signatures that strings cannot spell.
STATE_T = types.Array(types.int32, 1, "C")
TOPO_T = types.Array(types.int32, 1, "C", readonly=True)  # catansim.topology.TOPO
LOG_T = types.Array(types.int32, 2, "C")


def typed_kernel(signature):
    """A ``kernel`` compiled for one signature only (when its module is imported).

    For small kernels called with constants: Numba compiles a new specialisation for
    every literal argument value and for each int32/int64 mix it is called with (the
    event logger would have 22), each costing a compile; with one signature every call
    converts its arguments to it instead.
    """
    return nb.njit(signature, cache=True, _nrt=False, no_cfunc_wrapper=True)
