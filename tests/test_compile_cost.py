"""``benchmarks/compile_cost.py``: a kernel's own compile seconds are its compile's, less
those of the kernels compiled inside it; its specializations are its compile events."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("compile_cost", ROOT / "benchmarks" /
                                               "compile_cost.py")
cost = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cost)


class _Clock:
    """process_time and perf_counter, moved by hand (wall runs twice as fast as CPU)."""

    def __init__(self):
        self.t = 0.0

    def process_time(self):
        return self.t

    def perf_counter(self):
        return 2 * self.t


def _event(module, name):
    func = SimpleNamespace(__module__=module, __qualname__=name)
    return SimpleNamespace(data={"dispatcher": SimpleNamespace(py_func=func)})


def test_a_kernel_is_charged_its_own_seconds_and_its_callees_theirs(monkeypatch):
    clock = _Clock()
    monkeypatch.setattr(cost, "time", clock)
    timer = cost._Timer()
    outer, inner = _event("catansim.core.loop_nb", "run_nb"), _event("catansim.core.rules_nb",
                                                                      "pay_nb")
    timer.on_start(outer)
    clock.t += 1.0
    timer.on_start(inner)  # a callee typed inside the caller's compile: 2 s
    clock.t += 2.0
    timer.on_end(inner)
    clock.t += 0.5
    timer.on_start(inner)  # the callee again, for another signature: 0.25 s
    clock.t += 0.25
    timer.on_end(inner)
    clock.t += 3.0
    timer.on_end(outer)  # 6.75 s in all, 4.5 s of it its own
    assert timer.kernels == {  # "done at": the process's CPU clock at its first end
        "catansim.core.loop_nb.run_nb": {"cpu": 4.5, "wall": 9.0, "compiles": 1,
                                         "done at": 6.75},
        "catansim.core.rules_nb.pay_nb": {"cpu": 2.25, "wall": 4.5, "compiles": 2,
                                          "done at": 3.0},
    }
    assert not timer.stack
    modules = cost.by_module({**timer.kernels, "numba.cpython.builtins.ol_min.<locals>.impl":
                              {"cpu": 0.5, "wall": 1.0, "compiles": 3}})
    assert modules["Numba's own"] == {"cpu": 0.5, "wall": 1.0, "compiles": 3, "kernels": 1}
    assert modules["catansim.core.rules_nb"]["compiles"] == 2
    text = cost.table({"kernels": timer.kernels, "cpu": 7.0, "wall": 14.0})
    assert "| `loop_nb.run_nb` | 4.50 | 9.00 | 1 |" in text
    assert "| all 2 kernels | 6.75 | 13.50 | 3 |" in text
    assert text.index("run_nb") < text.index("pay_nb")  # most costly first
