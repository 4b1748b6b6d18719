"""Subcommands of the ``catansim`` console script, one module each.

Each module defines a click command named ``command`` (its docstring is the help
``catansim --help`` shows); ``_options`` holds the options they share. Heavy
imports (numba, pandas, matplotlib) happen inside the command functions so
``catansim --help`` stays fast.

May import anything of catansim: commands sit at the end of the data path. Every
error a user can cause is a ``CatansimError`` (one line, exit status 2).
"""
