"""The ``catansim`` console script: a click group with one subcommand per module."""

from __future__ import annotations

import importlib
import importlib.util
import sys

import click

from .errors import CatansimError

# name -> module under catansim.commands; loaded only when the command runs.
SUBCOMMANDS = {
    "board": "Draw a board layout (terrains, numbers, harbors) to a PNG.",
    "play": "Play one game (or N games) and write the event log(s).",
    "replay": "Print a game log as a turn-by-turn narrative; optionally draw it.",
    "simulate": "Run a quick batch without an experiment file and print a summary.",
    "tournament": "Play strategies against each other with rotated seats.",
    "run": "Run an experiment file into a Parquet dataset (resumable).",
    "report": "Analyse a dataset into a self-contained HTML report.",
    "bench": "Measure games per second and compile times.",
}


class LazyGroup(click.Group):
    """Lists every subcommand but imports a command's module only when it is used."""

    def list_commands(self, ctx):
        return [name for name in SUBCOMMANDS if self._available(name)]

    @staticmethod
    def _available(name: str) -> bool:
        return importlib.util.find_spec(f"catansim.commands.{name}") is not None

    def get_command(self, ctx, name):
        if name not in SUBCOMMANDS or not self._available(name):
            return None
        return importlib.import_module(f"catansim.commands.{name}").command

    def format_commands(self, ctx, formatter):
        rows = [(name, SUBCOMMANDS[name]) for name in self.list_commands(ctx)]
        if not rows:
            return
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="catansim")
def cli():
    """catansim: Monte Carlo simulation and analytics for CATAN (6th-edition rules)."""


def main(argv=None) -> None:
    """Entry point: user input errors become one line on stderr and exit status 2."""
    try:
        cli.main(args=argv, prog_name="catansim", standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("catansim: aborted", err=True)
        sys.exit(130)
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
