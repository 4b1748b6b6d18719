"""How the core's kernels are compiled.

Compiled code never allocates: the game's state, its random streams and its scratch
come from the Python caller (``engine_nb.new_scratch``; allocating inside the entry
point compiled NumPy's array constructors and their error messages into it, a fifth
of the cold compile). Every kernel is a ``kernel``, compiled without Numba's reference
counting (``_nrt=False``), and so is the entry point ``play_batch_nb``. With reference
counting, every call that passes arrays pays an atomic increment and decrement per
array; measured, that was 15% of a game.

Numba passes the ``nrt`` flag on to callees that do not set it, so every kernel
here sets it explicitly; a kernel that tried to allocate fails to compile.

No kernel has a C callback wrapper (``no_cfunc_wrapper``): Numba makes one per
compiled function for passing it as a first-class function or a ``cfunc``, which the
game never does, and making them took 3% of a cold compile (Numba's
``create_cfunc_wrapper``: 2.1 of 65 s). The CPython wrapper
stays: Python calls kernels directly (the engine API calls ``play_batch_nb``, the
tests call many kernels), and a kernel without it would crash when called from Python.

Array types in ``typed_kernel`` signatures: the state and the other scratch arrays
are ``int32[::1]`` (C-contiguous, writable), the event log ``int32[:, ::1]``, the
random streams ``uint64[::1]``.

No negative indices in the core (``nonnegative_indices``): Numba makes every signed
array index Python's (``a[-1]`` is the last item), a compare and a select per read or
write, and offers no way to opt out (numba/numba#3205, open since 2018); the core's
indices are offsets into its arrays that are never negative, so functions compiled
from ``catansim.core`` index without it. That was 16% of a game's instructions
(``docs/benchmarks.md``, seventh round). Every other function in the process keeps
Python's indexing, and ``tests/test_kernels.py`` checks both; ``tests/test_bounds.py``
plays games of every strategy and rule setting with Numba's bounds checks on (where a
negative index is an IndexError).

Private callees in the batch kernel (``internal_callees``): Numba links every core
function a kernel calls into the kernel's module as a shared definition, whose
calling convention LLVM must keep (seven machine words per array argument, read or
not). In the batch kernel's module they become private copies, and LLVM drops the
arguments each one never reads: 12% of a game's instructions, 1.09x the games per
second (``docs/benchmarks.md``, ninth round). ``tests/test_kernels.py`` checks the
scope and that a kernel Python calls afterwards is its own.
"""

import inspect

import numba as nb
from numba import types

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
    event logger had 22), each costing a compile; with one signature every call
    converts its arguments to it instead.
    """
    return nb.njit(signature, cache=True, _nrt=False, no_cfunc_wrapper=True)


# Numba's mangled names begin with the qualified name, each part prefixed by its
# length: every function defined in catansim.core, inlined callees included (they are
# lowered into their caller), and no other.
_CORE_PREFIX = "_ZN" + "".join(f"{len(part)}{part}" for part in __name__.split(".")[:-1])


def _parameters(function) -> list | None:
    # The parameter names of a Numba function this module wraps (None if it has none):
    # a Numba release that changed them is left alone.
    try:
        return list(inspect.signature(function).parameters)
    except (TypeError, ValueError):
        return None


def nonnegative_indices() -> bool:
    """Compile the core's array indices without Python's negative-index wraparound.

    Replaces Numba's ``numba.np.arrayobj.fix_integer_index`` (the one place that turns
    a signed index into an offset) by one that skips the wraparound for functions of
    ``catansim.core`` only. Returns whether it is in place: False, and Numba untouched,
    when this Numba has no such function of that signature (the kernels are then
    slower, never different: no core index is negative). Called once at import.
    """
    try:
        from numba.np import arrayobj
    except ImportError:  # pragma: no cover - a Numba that moved it
        return False
    numba_fix = getattr(arrayobj, "fix_integer_index", None)
    if getattr(numba_fix, "catansim_core_prefix", None) == _CORE_PREFIX:
        return True
    if _parameters(numba_fix) != ["context", "builder", "idxty", "idx", "size"]:
        return False

    def fix_integer_index(context, builder, idxty, idx, size):
        if idxty.signed and builder.function.name.startswith(_CORE_PREFIX):
            return context.cast(builder, idx, idxty, types.intp)
        return numba_fix(context, builder, idxty, idx, size)

    fix_integer_index.catansim_core_prefix = _CORE_PREFIX
    fix_integer_index.__wrapped__ = numba_fix
    arrayobj.fix_integer_index = fix_integer_index
    return True


NONNEGATIVE_INDICES = nonnegative_indices()


# The kernels Python calls to play games. Their compiled code holds every core
# function below them as a private copy (``internal_callees``).
ENTRY_KERNELS = ("play_batch_nb",)
_PRIVATE_SUFFIX = ".entry"


def internal_callees() -> bool:
    """Compile the core's functions below an entry kernel as private copies.

    Numba links the code of every function a kernel calls into the kernel's own LLVM
    module, marked ``linkonce_odr`` (a definition other modules may share), so LLVM
    must keep each one's calling convention: every array argument passed as seven
    machine words on every call, used or not. In the module of an entry kernel
    (``ENTRY_KERNELS``) this gives those core functions internal linkage before
    Numba optimises it, so LLVM's interprocedural passes (dead-argument elimination
    above all) drop what a callee never reads: 12% of a game's instructions
    (``docs/benchmarks.md``, ninth round). Each copy is renamed (``_PRIVATE_SUFFIX``):
    the JIT would otherwise resolve another kernel's call by that name to the copy
    whose arguments LLVM changed. The games are the same; other kernels, and every
    function outside ``catansim.core``, are compiled as before. Returns whether it is
    in place: False, and Numba untouched, when this Numba lacks the method it wraps.
    """
    try:
        from numba.core import codegen
    except ImportError:  # pragma: no cover - a Numba that moved it
        return False
    library = getattr(codegen, "CPUCodeLibrary", None)
    numba_optimize = getattr(library, "_optimize_final_module", None)
    if getattr(numba_optimize, "catansim_entry_kernels", None) == ENTRY_KERNELS:
        return True
    if _parameters(numba_optimize) != ["self"]:
        return False

    def _optimize_final_module(self):
        if self.name in ENTRY_KERNELS:
            for fn in self._final_module.functions:
                if (not fn.is_declaration and fn.name.startswith(_CORE_PREFIX)
                        and fn.linkage.name == "linkonce_odr"):
                    fn.linkage = "internal"
                    fn.name = fn.name + _PRIVATE_SUFFIX
        return numba_optimize(self)

    _optimize_final_module.catansim_entry_kernels = ENTRY_KERNELS
    _optimize_final_module.__wrapped__ = numba_optimize
    library._optimize_final_module = _optimize_final_module
    return True


INTERNAL_CALLEES = internal_callees()
