"""The ``catansim`` console script: a click group with one subcommand per module.

Every module of ``catansim.commands`` whose name does not start with ``_`` is a
subcommand of that name; its help is the command's own docstring. ``catansim --help``
reads each command's one-line help from its module's source (``_short_help``) and
imports no command: the heavy imports (Numba, pandas, the analyses) happen only when
a command is run or asked for its own help (``benchmarks/startup.py`` times both).
"""

from __future__ import annotations

import ast
import contextlib
import importlib
import importlib.util
import io
import pkgutil
import signal
import sys
import warnings

import click

from . import commands
from .checks import check_numba_threads
from .errors import (
    CatansimError,
    CatansimWarning,
    Interrupted,
    clear_signals,
    os_reason,
    raise_interrupted,
    swallowed_interrupt,
)


def _command_names() -> list[str]:
    return sorted(m.name for m in pkgutil.iter_modules(commands.__path__)
                  if not m.name.startswith("_"))


def _short_help(name: str, limit: int = 200) -> str:
    """The one-line help of command ``name``, as click makes it from the docstring of
    the module's ``command`` function, read from the source without importing it."""
    spec = importlib.util.find_spec(f"catansim.commands.{name}")
    tree = ast.parse(spec.loader.get_source(spec.name))
    doc = next((ast.get_docstring(node) for node in tree.body
                if isinstance(node, ast.FunctionDef) and node.name == "command"), None)
    return click.Command(name, help=doc).get_short_help_str(limit)


class LazyGroup(click.Group):
    """Lists every subcommand; a command's module is imported only when it runs or
    shows its own help."""

    def list_commands(self, ctx):
        return _command_names()

    def get_command(self, ctx, name):
        if name not in _command_names():
            return None
        return importlib.import_module(f"catansim.commands.{name}").command

    def format_commands(self, ctx, formatter):
        rows = [(name, _short_help(name)) for name in self.list_commands(ctx)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="catansim")
def cli():
    """catansim: Monte Carlo simulation and analytics for CATAN (6th-edition rules)."""


def _bad_parameter(exc: click.BadParameter, argv=None) -> str:
    """``--option: problem`` in the wording of ``catansim.checks``."""
    if isinstance(exc, click.MissingParameter):
        return _usage(exc, argv)
    if exc.param is None:
        return exc.format_message()
    name = exc.param.opts[-1] if exc.param.param_type_name == "option" \
        else exc.param.human_readable_name
    return f"{name}: {exc.message}"


def _opts(command) -> list[str]:
    return [o for p in getattr(command, "params", []) if isinstance(p, click.Option)
            for o in p.opts if o.startswith("--")]


def _allowed(param, see: str) -> str:
    """What a parameter takes, from its type (``catansim.commands._options``)."""
    t = getattr(param, "type", None)
    for attr in ("allowed", "what"):
        if isinstance(getattr(t, attr, None), str):
            return getattr(t, attr)
    if getattr(t, "choices", None):
        return ", ".join(t.choices)
    return f"a value ({see})"


def _command_of(exc: click.UsageError, argv) -> click.Command:
    ctx = exc.ctx
    if ctx is not None and ctx.command is not cli:
        return ctx.command
    for arg in argv or sys.argv[1:]:
        if not arg.startswith("-"):
            return cli.get_command(None, arg) or cli
    return cli


def _usage(exc: click.UsageError, argv=None) -> str:
    """A click usage error in the wording of ``catansim.checks``: what, then what is allowed."""
    command = _command_of(exc, argv)
    path = "catansim" + (f" {command.name}" if command is not cli else "")
    see = f"see {path} --help"
    if isinstance(exc, click.NoSuchOption):
        return (f"{exc.option_name}: unknown option; allowed: "
                f"{', '.join(_opts(command)) or see}")
    if isinstance(exc, click.MissingParameter) and exc.param is not None:
        param = exc.param
        name = param.opts[-1] if param.param_type_name == "option" else \
            param.human_readable_name
        return f"{name}: missing; allowed: {_allowed(param, see)}"
    if isinstance(exc, click.BadOptionUsage):
        message = exc.message.rstrip(".")
        if "requires an argument" in message:
            param = next((p for p in command.params if exc.option_name in getattr(p, "opts", ())),
                         None)
            return f"{exc.option_name}: needs a value; allowed: {_allowed(param, see)}"
        return f"{exc.option_name}: {message}; allowed: {see}"
    message = exc.format_message().rstrip(".")
    if message.startswith("No such command"):
        name = message.split("'", 2)[1] if "'" in message else message
        return f"{name}: unknown command; allowed: {', '.join(_command_names())}"
    if "unexpected extra argument" in message:
        extra = message.split("(", 1)[1].rstrip(")") if "(" in message else message
        return f"{extra}: unexpected argument; allowed: {see}"
    return f"{message}; allowed: {see}"


@contextlib.contextmanager
def _signals_and_warnings():
    """SIGINT and SIGTERM raise ``Interrupted`` (a command keeps what it finished and
    says so); ``CatansimWarning`` prints as one line. Restored on exit.

    An ``Interrupted`` that a library swallowed where it cannot raise (a ctypes
    callback) is not printed there: the command's error names the signal instead
    (``errors.swallowed_interrupt``)."""
    saved = {}
    clear_signals()
    try:
        for sig in (signal.SIGINT, signal.SIGTERM):
            saved[sig] = signal.signal(sig, raise_interrupted)
    except ValueError:  # not the main thread: leave the signals alone
        pass
    show = warnings.showwarning
    unraisable = sys.unraisablehook

    def quiet_interrupts(info):
        if not isinstance(info.exc_value, Interrupted):
            unraisable(info)

    sys.unraisablehook = quiet_interrupts

    def one_line(message, category, filename, lineno, file=None, line=None):
        if issubclass(category, CatansimWarning):
            click.echo(f"catansim: warning: {message}", err=True)
        else:
            show(message, category, filename, lineno, file, line)

    try:
        with warnings.catch_warnings():  # restores the filters and showwarning
            warnings.simplefilter("always", CatansimWarning)
            warnings.showwarning = one_line
            yield
    finally:
        clear_signals()  # a later library call in this process must not see them
        sys.unraisablehook = unraisable
        for sig, handler in saved.items():
            signal.signal(sig, handler)


def _stopped(exc: Interrupted):
    click.echo(f"catansim: {exc}", err=True)
    sys.exit(128 + exc.signum)


def _fail(message: str, code: int):
    click.echo(f"catansim: error: {message}", err=True)
    sys.exit(code)


@contextlib.contextmanager
def _printable_paths():
    """A path whose name is not UTF-8 (Python keeps its bytes as surrogates) prints with
    those bytes escaped (``bad\\xffname``) instead of failing the message that names it."""
    saved = []
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper) and stream.errors == "strict":
            stream.reconfigure(errors="backslashreplace")
            saved.append(stream)
    try:
        yield
    finally:
        for stream in saved:
            with contextlib.suppress(ValueError):  # a stream closed meanwhile
                stream.reconfigure(errors="strict")


def main(argv=None) -> None:
    """Entry point: every error a user or the machine causes is one line on stderr.

    Exit status: 2 for bad input (``CatansimError``, click usage errors), 1 for a
    fault of the machine (``FaultError``, an ``OSError`` or ``MemoryError`` no
    command caught), ``128 + signal`` for SIGINT (130) and SIGTERM (143), which a
    command treats alike: it keeps what it finished and says so.
    """
    with _signals_and_warnings(), _printable_paths():
        try:
            check_numba_threads()  # before any command imports Numba
            code = cli.main(args=argv, prog_name="catansim", standalone_mode=False)
        except Interrupted as exc:
            _stopped(exc)
        except click.exceptions.Abort:
            click.echo("catansim: aborted", err=True)
            sys.exit(130)
        except click.exceptions.NoArgsIsHelpError as exc:  # ``catansim`` alone: the help
            click.echo(exc.format_message(), err=True)
            sys.exit(exc.exit_code)
        except click.BadParameter as exc:
            _fail(_bad_parameter(exc, argv), exc.exit_code)
        except click.UsageError as exc:
            _fail(_usage(exc, argv), exc.exit_code)
        except click.ClickException as exc:
            _fail(exc.format_message(), exc.exit_code)
        except CatansimError as exc:
            _fail(str(exc), exc.exit_code)
        except OSError as exc:  # a fault no command named more precisely
            where = f"{exc.filename}: " if exc.filename else ""
            _fail(f"{where}{os_reason(exc)}", 1)
        except MemoryError:
            _fail("out of memory; allowed: smaller batches (batch_size, --games)", 1)
        except KeyboardInterrupt:
            _stopped(Interrupted(signal.SIGINT))
        except Exception:
            stopped = swallowed_interrupt()  # a library swallowed the signal, then failed
            if stopped is None:
                raise
            _stopped(stopped)
    if isinstance(code, int) and code:  # click's ctx.exit(code)
        sys.exit(code)


if __name__ == "__main__":
    main()
