"""The ``catansim`` console script: a click group with one subcommand per module.

Every module of ``catansim.commands`` whose name does not start with ``_`` is a
subcommand of that name; its help is the command's own docstring.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys

import click

from . import commands
from .errors import CatansimError


def _command_names() -> list[str]:
    return sorted(m.name for m in pkgutil.iter_modules(commands.__path__)
                  if not m.name.startswith("_"))


class LazyGroup(click.Group):
    """Lists every subcommand; a command's heavy imports happen only when it runs."""

    def list_commands(self, ctx):
        return _command_names()

    def get_command(self, ctx, name):
        if name not in _command_names():
            return None
        return importlib.import_module(f"catansim.commands.{name}").command

    def format_commands(self, ctx, formatter):
        rows = [(name, self.get_command(ctx, name).get_short_help_str(limit=200))
                for name in self.list_commands(ctx)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="catansim")
def cli():
    """catansim: Monte Carlo simulation and analytics for CATAN (6th-edition rules)."""


def _bad_parameter(exc: click.BadParameter) -> str:
    """``--option: problem`` in the wording of ``catansim.checks``."""
    if isinstance(exc, click.MissingParameter) or exc.param is None:
        return exc.format_message()
    name = exc.param.opts[-1] if exc.param.param_type_name == "option" \
        else exc.param.human_readable_name
    return f"{name}: {exc.message}"


def main(argv=None) -> None:
    """Entry point: user input errors become one line on stderr and exit status 2."""
    try:
        cli.main(args=argv, prog_name="catansim", standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("catansim: aborted", err=True)
        sys.exit(130)
    except click.BadParameter as exc:
        click.echo(f"catansim: error: {_bad_parameter(exc)}", err=True)
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        click.echo(f"catansim: error: {exc.format_message()}", err=True)
        sys.exit(exc.exit_code)
    except CatansimError as exc:
        click.echo(f"catansim: error: {exc}", err=True)
        sys.exit(2)
    except KeyboardInterrupt:
        click.echo("catansim: interrupted", err=True)
        sys.exit(130)


if __name__ == "__main__":
    main()
