"""catansim: Monte Carlo simulation and analytics for CATAN (base game, 6th-edition rules)."""

__version__ = "0.1.0"


def __getattr__(name):
    # ``catansim.load`` is imported lazily so ``import catansim`` stays cheap.
    if name == "load":
        from .results.dataset import load

        return load
    raise AttributeError(f"module 'catansim' has no attribute {name!r}")
