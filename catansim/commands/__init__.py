"""Subcommands of the ``catansim`` console script, one module each.

Each module defines a click command named ``command`` (its docstring is the help
``catansim --help`` shows, read from the source: ``cli._short_help``); ``_options``
holds the options they share. ``catansim CMD --help`` and a refused argument import
the command's module, so a module imports at its top only what its options need
(click, the options, ``board``, ``rules``, ``logs``, ``viewer``, ``checks``,
``errors``, ``constants``), and its body checks the arguments before it imports the
rest (the runner, pandas, the analyses, the studies, matplotlib).
``benchmarks/startup.py`` times both; docs/imports.md has the figures.

May import anything of catansim: commands sit at the end of the data path. Every
error a user can cause is a ``CatansimError`` (one line, exit status 2).
"""
