"""Subcommands of the ``catansim`` console script, one module each.

Each module defines a click command named ``command`` (its docstring is the help
``catansim --help`` shows); ``_options`` holds the options they share.
``catansim --help`` imports every module here, so a module imports at its top only
what ``--help`` loads anyway (click, the options, ``board``, ``rules``, ``logs``,
``viewer``, ``checks``, ``errors``, ``constants``); the command's body imports the
rest (the compiled kernels, pandas, the analyses, matplotlib). docs/imports.md has
the figures.

May import anything of catansim: commands sit at the end of the data path. Every
error a user can cause is a ``CatansimError`` (one line, exit status 2).
"""
