"""Subcommands of the ``catansim`` console script, one module each.

Each module defines a click command named ``command``. Heavy imports (numba,
pandas, matplotlib) happen inside the command functions so ``catansim --help``
stays fast.
"""
