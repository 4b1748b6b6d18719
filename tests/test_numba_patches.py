"""catansim's two patches of Numba (``catansim.core.numba_patches``) are in place, on the
Numba they were written for, and say so when they cannot be.

A failure of the first test after a Numba upgrade is the point: read the two hooks
again in the new Numba, then move ``WRITTEN_FOR``. The compiled effect of each patch is
checked here (indices) and in ``tests/test_kernels.py`` (linkage of the batch kernel).
"""

from __future__ import annotations

import subprocess
import sys
import warnings
from types import SimpleNamespace

import numba
import numpy as np
import pytest

from catansim.core import numba_patches as P


def test_this_numba_is_the_one_written_for_and_both_patches_are_in_place():
    from numba.core import codegen
    from numba.np import arrayobj

    assert P.NUMBA_CHECKED, (
        f"Numba {numba.__version__}: the patches were written for {P.WRITTEN_FOR}; read "
        "fix_integer_index and CPUCodeLibrary._optimize_final_module again")
    assert P.APPLIED == {"nonnegative_indices": True, "internal_callees": True}
    # in place now, in Numba's own modules (not replaced again by anything after us)
    assert getattr(arrayobj.fix_integer_index, "catansim_core_prefix", None) == P.CORE_PREFIX
    assert getattr(codegen.CPUCodeLibrary._optimize_final_module, "catansim_entry_kernels",
                   None) == P.ENTRY_KERNELS


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
