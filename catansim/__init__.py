"""catansim: Monte Carlo simulation and analytics for CATAN (base game, 6th-edition rules)."""

__version__ = "0.1.0"
