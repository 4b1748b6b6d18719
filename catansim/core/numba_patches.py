"""The three places where catansim changes Numba's own code, and the Numba they were written for.

All three are applied when ``catansim.core`` is first imported (``core.jit`` imports
this module), process-wide, and each touches only functions defined in ``catansim.core``:
every other Numba function in the process, yours included, compiles as Numba does.

``nonnegative_indices`` replaces ``numba.np.arrayobj.fix_integer_index``
(``context, builder, idxty, idx, size``). Numba gives every signed array index
Python's meaning (``a[-1]`` is the last item): a compare and a select per read or
write, with no way to opt out (numba/numba#3205). The core's indices are offsets that
are never negative, so in its functions a signed index is cast to an offset and
nothing else: 16% of a game's instructions. In the core, then, ``a[-1]`` is memory
before the array (``catansim.core``'s docstring says how to write the last item);
``tests/test_bounds.py`` plays games with Numba's bounds checks on, where such an
index raises.

``internal_callees`` wraps the private method
``numba.core.codegen.CPUCodeLibrary._optimize_final_module`` (``self``). In the LLVM
module of an entry kernel (``ENTRY_KERNELS``) it gives the core functions linked in
internal linkage and a private name (``PRIVATE_SUFFIX``) before Numba optimises the
module, so LLVM drops the arguments each callee never reads: 12% of a game's
instructions. The renaming keeps the JIT from binding another kernel's call by that
name to a copy whose arguments LLVM changed.

``shared_inline_copies`` wraps ``numba.core.inline_closurecall.InlineWorker.inline_ir``
(``self, caller_ir, block, i, callee_ir, callee_freevars, arg_typs``). To inline an
``inline_kernel`` at a call site, Numba copies the callee's IR twice, block by block,
each block with a ``copy.deepcopy`` of its own: every block copies the function's whole
scope (all its variables) again, so a copy costs blocks x variables. While a core
function is inlined, this copies the blocks of one function with one memo per scope
they share, so the scope and its variables are copied once, as a copy of the whole
function would: the same IR, and about 40% of a kernel's compile that inlines much
(``trade_nb.weigh_offer_nb``; ``benchmarks/compile_cost.py`` times the stages).

**Version policy.** All three were read against Numba ``WRITTEN_FOR`` (major, minor).
Each patch checks that its hook exists with the parameters above before replacing
it. On another Numba, a ``NumbaPatchWarning`` says so at import and the patches are
still applied where the hooks look the same; a hook that is missing or changed is
left alone and a ``NumbaPatchWarning`` names it (the kernels are then slower, and
play the same games: no core index is negative, and neither linkage nor how the IR is
copied changes what a function computes). Never silently: ``APPLIED`` records what is in place, and
``tests/test_numba_patches.py`` fails when this Numba is not ``WRITTEN_FOR`` or a
patch is not in place, so that moving to a new Numba means reading these three hooks
again (then ``WRITTEN_FOR`` moves). Run the suite with ``-W error::catansim.core.
numba_patches.NumbaPatchWarning`` to make a warning an error.
"""

import importlib
import inspect
import warnings

import numba
from numba import types

WRITTEN_FOR = (0, 68)

# Numba's mangled names begin with the qualified name, each part prefixed by its
# length: every function defined in catansim.core, inlined callees included (they are
# lowered into their caller), and no other.
CORE_PREFIX = "_ZN" + "".join(f"{len(part)}{part}" for part in __name__.split(".")[:-1])

# The module whose functions the patches change (the IR of those it defines).
CORE_MODULE = __name__.rsplit(".", 1)[0]

# The kernels Python calls to play games: their modules hold private copies of the core
# functions below them.
ENTRY_KERNELS = ("play_batch_nb",)
PRIVATE_SUFFIX = ".entry"

_INDEX_HOOK = "numba.np.arrayobj.fix_integer_index"
_INDEX_PARAMETERS = ["context", "builder", "idxty", "idx", "size"]
_LINK_HOOK = "numba.core.codegen.CPUCodeLibrary._optimize_final_module"
_LINK_PARAMETERS = ["self"]
_INLINE_HOOK = "numba.core.inline_closurecall.InlineWorker.inline_ir"
_INLINE_PARAMETERS = ["self", "caller_ir", "block", "i", "callee_ir", "callee_freevars",
                      "arg_typs"]


class NumbaPatchWarning(RuntimeWarning):
    """catansim's Numba patches meet a Numba they were not written for."""


def _version(text: str) -> tuple[int, int]:
    major, minor = text.split(".")[:2]
    return int(major), int(minor)


def check_version(version: str = numba.__version__) -> bool:
    """Whether ``version`` is the Numba the patches were written for; if not, warn."""
    if _version(version) == WRITTEN_FOR:
        return True
    warnings.warn(
        f"catansim.core patches Numba internals written for Numba "
        f"{WRITTEN_FOR[0]}.{WRITTEN_FOR[1]}, this is Numba {version}: each patch is applied "
        f"only where its hook is unchanged (see catansim/core/numba_patches.py)",
        NumbaPatchWarning, stacklevel=2)
    return False


def _parameters(function) -> list | None:
    # The parameter names of a Numba function (None if it has none).
    try:
        return list(inspect.signature(function).parameters)
    except (TypeError, ValueError):
        return None


def _numba_module(module, name: str):
    # ``module`` if given (the tests pass their own), else Numba's module ``name`` (None
    # in a Numba that moved it)
    if module is not None:
        return module
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def _hook_changed(hook: str, found, parameters: list, effect: str) -> None:
    why = ("is missing" if found is None else
           f"takes ({', '.join(_parameters(found) or ['?'])}), not ({', '.join(parameters)})")
    warnings.warn(f"catansim.core: Numba {numba.__version__}'s {hook} {why}; left alone, so "
                  f"{effect} (the games are the same, the kernels slower)",
                  NumbaPatchWarning, stacklevel=3)


def _install(owner, name: str, hook: str, parameters: list, effect: str, marker: str,
             value, wrap, ready: bool = True) -> bool:
    """Put ``wrap(found)`` in place of ``owner.name`` (Numba's function ``found``), marked
    ``marker = value`` and ``__wrapped__ = found``; True at once when ``found`` is that
    wrapper already. When ``found`` is missing, its parameters are not ``parameters``
    (the hook ``hook``) or what else the patch needs is not ``ready``, warns that
    ``effect`` and changes nothing: False."""
    found = getattr(owner, name, None)
    if getattr(found, marker, None) == value:
        return True
    if _parameters(found) != parameters or not ready:
        _hook_changed(hook, found, parameters, effect)
        return False
    patched = wrap(found)
    setattr(patched, marker, value)
    patched.__wrapped__ = found
    setattr(owner, name, patched)
    return True


def nonnegative_indices(arrayobj=None) -> bool:
    """Compile the core's array indices without Python's negative-index wraparound.

    Replaces ``fix_integer_index`` of ``arrayobj`` (Numba's ``numba.np.arrayobj``, the
    one place that turns a signed index into an offset) by one that skips the
    wraparound for functions of ``catansim.core`` only. Returns whether it is in
    place; warns (``NumbaPatchWarning``) and changes nothing when the hook is missing
    or takes other parameters.
    """
    def wrap(numba_fix):
        def fix_integer_index(context, builder, idxty, idx, size):
            if idxty.signed and builder.function.name.startswith(CORE_PREFIX):
                return context.cast(builder, idx, idxty, types.intp)
            return numba_fix(context, builder, idxty, idx, size)
        return fix_integer_index

    return _install(_numba_module(arrayobj, "numba.np.arrayobj"), "fix_integer_index",
                    _INDEX_HOOK, _INDEX_PARAMETERS,
                    "the core's indices keep Python's wraparound",
                    "catansim_core_prefix", CORE_PREFIX, wrap)


def internal_callees(codegen=None) -> bool:
    """Compile the core's functions below an entry kernel as private copies.

    Numba links the code of every function a kernel calls into the kernel's own LLVM
    module as ``linkonce_odr`` (a definition other modules may share), so LLVM keeps
    each one's calling convention: every array argument as seven machine words on
    every call, used or not. Wraps ``CPUCodeLibrary._optimize_final_module`` of
    ``codegen`` (Numba's ``numba.core.codegen``) so that in the module of an entry
    kernel those core functions get internal linkage and a private name first.
    Returns whether it is in place; warns (``NumbaPatchWarning``) and changes nothing
    when the method is missing or takes other parameters.
    """
    def wrap(numba_optimize):
        def _optimize_final_module(self):
            if self.name in ENTRY_KERNELS:
                for fn in self._final_module.functions:
                    if (not fn.is_declaration and fn.name.startswith(CORE_PREFIX)
                            and fn.linkage.name == "linkonce_odr"):
                        fn.linkage = "internal"
                        fn.name = fn.name + PRIVATE_SUFFIX
            return numba_optimize(self)
        return _optimize_final_module

    codegen = _numba_module(codegen, "numba.core.codegen")
    return _install(getattr(codegen, "CPUCodeLibrary", None), "_optimize_final_module",
                    _LINK_HOOK, _LINK_PARAMETERS,
                    "the batch kernel's callees keep their shared linkage",
                    "catansim_entry_kernels", ENTRY_KERNELS, wrap)


class _BlockCopies:
    """Stands in for the ``copy`` module in Numba's ``inline_closurecall``, whose one use of
    it is the deep copy of each block of an IR to inline. While ``memos`` is a dict (a
    core function being inlined), blocks that share a scope are copied with one memo;
    otherwise, and for everything else, it is the ``copy`` module."""

    def __init__(self, module, block_type):
        self._module = module
        self._block_type = block_type
        self.memos = None  # {id(scope): memo}, for the inlining under way

    def deepcopy(self, x, memo=None, _nil=None):
        if memo is None and self.memos is not None and isinstance(x, self._block_type):
            # the scope is alive while its blocks are: its id names it until memos is dropped
            memo = self.memos.setdefault(id(x.scope), {})
        return self._module.deepcopy(x, memo)

    def __getattr__(self, name):
        return getattr(self._module, name)


def shared_inline_copies(inline_closurecall=None) -> bool:
    """Copy the IR of a core function being inlined with one memo per scope.

    Wraps ``InlineWorker.inline_ir`` of ``inline_closurecall`` (Numba's
    ``numba.core.inline_closurecall``) and stands ``_BlockCopies`` in for the module's
    ``copy``: while a callee defined in ``catansim.core`` is inlined, its blocks share
    one copy of their scope instead of each copying it (see the module's docstring).
    Returns whether it is in place; warns (``NumbaPatchWarning``) and changes nothing
    when the method is missing or takes other parameters.
    """
    inline_closurecall = _numba_module(inline_closurecall, "numba.core.inline_closurecall")
    numba_copy = getattr(inline_closurecall, "copy", None)

    def wrap(numba_inline):
        from numba.core import ir  # noqa: PLC0415  (the IR's block type)

        copies = _BlockCopies(numba_copy, ir.Block)

        def inline_ir(self, caller_ir, block, i, callee_ir, callee_freevars, arg_typs=None):
            module = getattr(getattr(callee_ir, "func_id", None), "modname", "") or ""
            if not (module == CORE_MODULE or module.startswith(CORE_MODULE + ".")):
                return numba_inline(self, caller_ir, block, i, callee_ir, callee_freevars,
                                    arg_typs)
            outer, copies.memos = copies.memos, {}
            try:
                return numba_inline(self, caller_ir, block, i, callee_ir, callee_freevars,
                                    arg_typs)
            finally:
                copies.memos = outer

        inline_closurecall.copy = copies
        return inline_ir

    return _install(getattr(inline_closurecall, "InlineWorker", None), "inline_ir",
                    _INLINE_HOOK, _INLINE_PARAMETERS,
                    "the core's inlined functions are copied block by block",
                    "catansim_core_module", CORE_MODULE, wrap,
                    ready=numba_copy is not None)


NUMBA_CHECKED = check_version()
APPLIED = {"nonnegative_indices": nonnegative_indices(),
           "internal_callees": internal_callees(),
           "shared_inline_copies": shared_inline_copies()}
