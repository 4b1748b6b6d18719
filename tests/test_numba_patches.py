"""catansim's three patches of Numba (``catansim.core.numba_patches``) are in place, on the
Numba they were written for, and say so when they cannot be.

A failure of the first test after a Numba upgrade is the point: read the three hooks
again in the new Numba, then move ``WRITTEN_FOR``. The compiled effect of each patch is
checked here (indices; the same machine code for an inlined function) and in
``tests/test_kernels.py`` (linkage of the batch kernel).
"""

from __future__ import annotations

import re
import subprocess
import sys
import warnings
from types import SimpleNamespace

import numba
import numpy as np
import pytest

from catansim.core import numba_patches as P


def test_this_numba_is_the_one_written_for_and_the_patches_are_in_place():
    from numba.core import codegen, inline_closurecall
    from numba.np import arrayobj

    assert P.NUMBA_CHECKED, (
        f"Numba {numba.__version__}: the patches were written for {P.WRITTEN_FOR}; read "
        "fix_integer_index, CPUCodeLibrary._optimize_final_module and "
        "InlineWorker.inline_ir again")
    assert P.APPLIED == {"nonnegative_indices": True, "internal_callees": True,
                         "shared_inline_copies": True}
    # in place now, in Numba's own modules (not replaced again by anything after us)
    assert getattr(arrayobj.fix_integer_index, "catansim_core_prefix", None) == P.CORE_PREFIX
    assert getattr(codegen.CPUCodeLibrary._optimize_final_module, "catansim_entry_kernels",
                   None) == P.ENTRY_KERNELS
    assert getattr(inline_closurecall.InlineWorker.inline_ir, "catansim_core_module",
                   None) == P.CORE_MODULE
    assert isinstance(inline_closurecall.copy, P._BlockCopies)


def test_importing_the_core_warns_of_nothing_with_this_numba():
    r = subprocess.run(
        [sys.executable, "-W", "error::catansim.core.numba_patches.NumbaPatchWarning", "-c",
         "import catansim.core.jit"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "NumbaPatchWarning" not in r.stderr


def _probe(module, **options):
    """``a[i]``, compiled by Numba (with ``options``) as a function of ``module``."""
    namespace = {"__name__": module}
    exec("def at(a, i):\n    return a[i]\n", namespace)
    return numba.njit(**options)(namespace["at"])


def test_the_core_indexes_without_wraparound_and_every_other_function_with_it():
    whole = np.arange(10, dtype=np.int64)
    view = whole[1:]  # so that the item before view[0] is memory the test owns
    # Python's indexing everywhere but in catansim.core: -1 is the last item ...
    assert _probe("catansim.analysis.probe")(view, -1) == 9
    assert _probe("catansim_core.probe")(view, -1) == 9
    assert _probe("catansim.core_probe")(view, -1) == 9
    # ... and in the core an index is an offset: -1 is the item before view[0]
    assert _probe("catansim.core.probe")(view, -1) == 0
    assert _probe("catansim.core.probe")(view, 3) == 4
    # Numba's bounds checks see that offset: a negative index is out of bounds there
    with pytest.raises(IndexError):
        _probe("catansim.core.probe", boundscheck=True)(view, -1)


def test_another_numba_version_is_named_in_a_warning():
    major, minor = P.WRITTEN_FOR
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert P.check_version(f"{major}.{minor}.7")
    with pytest.warns(P.NumbaPatchWarning,
                      match=rf"written for Numba {major}\.{minor}, this is Numba "
                            rf"{major}\.{minor + 1}\.0"):
        assert not P.check_version(f"{major}.{minor + 1}.0")


def _index_hook(context, builder, idxty, idx, size):
    return "numba's"


def _other_index_hook(context, builder, idx, size):
    return "numba's"


@pytest.mark.parametrize("arrayobj, why", [
    (SimpleNamespace(), "is missing"),
    (SimpleNamespace(fix_integer_index=_other_index_hook),
     r"takes \(context, builder, idx, size\), not \(context, builder, idxty, idx, size\)"),
])
def test_a_changed_index_hook_is_left_alone_with_a_warning(arrayobj, why):
    before = dict(vars(arrayobj))
    with pytest.warns(P.NumbaPatchWarning, match=rf"fix_integer_index {why}; left alone, so "
                                                 r"the core's indices keep"):
        assert not P.nonnegative_indices(arrayobj)
    assert vars(arrayobj) == before


def test_the_index_hook_casts_signed_indices_of_core_functions_only():
    arrayobj = SimpleNamespace(fix_integer_index=_index_hook)
    assert P.nonnegative_indices(arrayobj)
    assert P.nonnegative_indices(arrayobj)  # once only: not wrapped twice
    patched = arrayobj.fix_integer_index
    assert patched.__wrapped__ is _index_hook
    context = SimpleNamespace(cast=lambda builder, idx, fromty, toty: ("cast", idx, toty))
    signed, unsigned = numba.types.int64, numba.types.uint64

    def builder(name):
        return SimpleNamespace(function=SimpleNamespace(name=name))

    core_fn = P.CORE_PREFIX + "9engine_nb7play_nbB"
    assert patched(context, builder(core_fn), signed, "i", 10) == ("cast", "i",
                                                                 numba.types.intp)
    assert patched(context, builder(core_fn), unsigned, "i", 10) == "numba's"
    assert patched(context, builder("_ZN8catansim8analysis5probeB"), signed, "i",
                   10) == "numba's"


def test_a_changed_link_hook_is_left_alone_with_a_warning():
    library = type("CPUCodeLibrary", (), {"_optimize_final_module": lambda self, level: None})
    codegen = SimpleNamespace(CPUCodeLibrary=library)
    hook = library._optimize_final_module
    with pytest.warns(P.NumbaPatchWarning, match=r"_optimize_final_module takes \(self, "
                                                 r"level\), not \(self\); left alone"):
        assert not P.internal_callees(codegen)
    assert library._optimize_final_module is hook
    with pytest.warns(P.NumbaPatchWarning, match="_optimize_final_module is missing"):
        assert not P.internal_callees(SimpleNamespace())


def test_the_link_hook_makes_core_callees_of_entry_kernels_private_and_nothing_else():
    optimized = []
    library = type("CPUCodeLibrary", (), {
        "_optimize_final_module": lambda self: optimized.append(self.name)})
    assert P.internal_callees(SimpleNamespace(CPUCodeLibrary=library))

    def fn(name, linkage="linkonce_odr", declaration=False):
        return SimpleNamespace(name=name, linkage=SimpleNamespace(name=linkage),
                               is_declaration=declaration)

    def module_of(kernel):
        lib = library()
        lib.name = kernel
        lib._final_module = SimpleNamespace(functions=[
            fn(P.CORE_PREFIX + "7rules_nb3robB"),  # a core callee
            fn(P.CORE_PREFIX + "9engine_nb13play_batch_nbB", "external"),  # the kernel
            fn(P.CORE_PREFIX + "7rng_nb4rollB", declaration=True),  # defined elsewhere
            fn("_ZN5numpy6linalg3dotB"),  # not the core's
        ])
        lib._optimize_final_module()
        return [(f.name.endswith(P.PRIVATE_SUFFIX),
                 getattr(f.linkage, "name", f.linkage)) for f in lib._final_module.functions]

    assert module_of(P.ENTRY_KERNELS[0]) == [
        (True, "internal"), (False, "external"), (False, "linkonce_odr"),
        (False, "linkonce_odr")]
    assert module_of("setup_nb") == [
        (False, "linkonce_odr"), (False, "external"), (False, "linkonce_odr"),
        (False, "linkonce_odr")]
    assert optimized == [P.ENTRY_KERNELS[0], "setup_nb"]  # Numba's optimisation still runs


_INLINED = """
import numba

@numba.njit(inline="always")
def spread(a, k):
    t = 0
    for i in range(a.shape[0]):
        if a[i] > k:
            t += a[i] - k
        elif a[i] < -k:
            t -= a[i] + k
    return t

@numba.njit
def outer(a, k):
    return spread(a, k) + 2 * spread(a, k + 1) - spread(a, 0)
"""


def _inlining_probe(module):
    """``outer``, which inlines ``spread`` three times, as functions of ``module``."""
    namespace = {"__name__": module}
    exec(_INLINED, namespace)
    return namespace["outer"]


def test_a_core_function_inlined_compiles_to_the_same_code_as_without_the_patch():
    from numba.core import inline_closurecall

    worker = inline_closurecall.InlineWorker
    patched = worker.inline_ir
    assert getattr(patched, "catansim_core_module", None) == P.CORE_MODULE
    a = np.array([5, -7, 2, 0, 9, -1], dtype=np.int64)
    with_patch = _inlining_probe("catansim.core.probe_inlined")
    assert with_patch(a, 1) == 4 + 6 + 1 + 8 + 2 * (3 + 5 + 7) - (5 + 7 + 2 + 9 + 1)
    try:
        worker.inline_ir = patched.__wrapped__  # Numba's own copies, block by block
        without = _inlining_probe("catansim.core.probe_inlined")
        assert without(a, 1) == with_patch(a, 1)
    finally:
        worker.inline_ir = patched
    signature = with_patch.signatures[0]

    def code(dispatcher):  # the instructions, the function's compile number left out
        lines = dispatcher.inspect_asm(signature).splitlines()
        return [re.sub(r"B\d+v\d+B", "B_v_B", line) for line in lines
                if line.startswith("\t") and not line.startswith("\t.")]

    assert len(code(with_patch)) > 20
    assert code(with_patch) == code(without)


class _Worker:
    """Numba's ``InlineWorker.inline_ir`` as far as the patch sees it: each block of the
    callee deep-copied on its own through the module's ``copy``."""

    module = None

    def inline_ir(self, caller_ir, block, i, callee_ir, callee_freevars, arg_typs=None):
        return [self.module.copy.deepcopy(b) for b in callee_ir.blocks.values()]


def _callee(modname):
    from numba.core import ir

    scope = ir.Scope(None, ir.Loc("probe.py", 1))
    for name in ("a", "b", "t"):
        scope.define(name, ir.Loc("probe.py", 1))
    blocks = {n: ir.Block(scope, ir.Loc("probe.py", n)) for n in range(3)}
    return SimpleNamespace(func_id=SimpleNamespace(modname=modname), blocks=blocks)


def test_the_inline_hook_shares_one_scope_copy_for_core_callees_only():
    import copy

    module = SimpleNamespace(InlineWorker=_Worker, copy=copy)
    _Worker.module = module
    assert P.shared_inline_copies(module)
    assert P.shared_inline_copies(module)  # once only: not wrapped twice
    assert module.InlineWorker.inline_ir.__wrapped__ is not None
    assert module.copy.deepcopy is not copy.deepcopy and module.copy.Error is copy.Error

    def scopes(modname):
        callee = _callee(modname)
        copies = _Worker().inline_ir(None, None, 0, callee, ())
        assert all(c.scope is not callee.blocks[0].scope for c in copies)  # copies still
        return len({id(c.scope) for c in copies})

    assert scopes("catansim.core.rules_nb") == 1  # one copy of the scope for all blocks
    assert scopes("catansim.core") == 1
    assert scopes("catansim.analysis") == 3  # Numba's way: a copy per block
    assert scopes("catansim.core_probe") == 3
    assert module.copy.memos is None  # nothing kept after the inlining


def test_a_changed_inline_hook_is_left_alone_with_a_warning():
    import copy

    worker = type("InlineWorker", (), {"inline_ir": lambda self, caller_ir, block, i: None})
    module = SimpleNamespace(InlineWorker=worker, copy=copy)
    hook = worker.inline_ir
    with pytest.warns(P.NumbaPatchWarning, match=r"inline_ir takes \(self, caller_ir, block, "
                                                 r"i\), not \(self, caller_ir, .*; left alone"):
        assert not P.shared_inline_copies(module)
    assert worker.inline_ir is hook and module.copy is copy
    with pytest.warns(P.NumbaPatchWarning, match="inline_ir is missing"):
        assert not P.shared_inline_copies(SimpleNamespace())


def test_an_inline_module_without_copy_is_left_alone_with_a_warning():
    def inline_ir(self, caller_ir, block, i, callee_ir, callee_freevars, arg_typs=None):
        return None

    worker = type("InlineWorker", (), {"inline_ir": inline_ir})
    module = SimpleNamespace(InlineWorker=worker)  # no ``copy`` to stand in for
    with pytest.warns(P.NumbaPatchWarning, match="inline_ir takes .*; left alone"):
        assert not P.shared_inline_copies(module)
    assert worker.inline_ir is inline_ir and not hasattr(module, "copy")
