"""Errors raised for bad user input (experiment files, CLI options, boards, strategies),
faults of the machine, and the signals that stop a command."""

from __future__ import annotations

import errno as _errno
import signal as _signal


class CatansimError(ValueError):
    """A user-facing input error; its message is one line naming the field and allowed values.

    The CLI prints it as ``catansim: error: <message>`` and exits with status 2
    (``exit_code``).
    """

    exit_code = 2


class FaultError(CatansimError):
    """A fault of the machine or the cluster: disk full, an unwritable or read-only
    folder, a lost Dask scheduler, too little memory.

    Its one line names the path (or the scheduler) and says what state the data is
    in, e.g. ``results/x: no space left on device; 3 of 10 parts kept; free some
    space and rerun the same command to resume``. The CLI exits with status 1.
    """

    exit_code = 1


class CatansimWarning(UserWarning):
    """Something a command did not stop for but the user must know: a bad part of a
    dataset skipped on load or replayed on resume. The CLI prints it as one line,
    ``catansim: warning: <message>``."""


class Interrupted(BaseException):
    """SIGINT or SIGTERM stopped a command (raised by the handlers ``cli.main`` installs).

    Not an ``Exception`` (like ``KeyboardInterrupt``), so no ``except Exception``
    swallows it. ``state`` says what the command kept, e.g. ``results/x: 3 of 10
    parts kept; rerun the same command to resume``; ``cli.main`` prints it and exits
    with status ``128 + signum``.
    """

    def __init__(self, signum: int, state: str = ""):
        super().__init__(signum, state)
        self.signum = signum
        self.state = state

    @property
    def signal_name(self) -> str:
        try:
            return _signal.Signals(self.signum).name
        except ValueError:
            return f"signal {self.signum}"

    def __str__(self) -> str:
        return f"aborted by {self.signal_name}" + (f"; {self.state}" if self.state else "")


_SIGNALS: list[int] = []  # the signals ``raise_interrupted`` received, in that order


def raise_interrupted(signum, frame=None):
    """The handler ``cli.main`` installs for SIGINT and SIGTERM: raises ``Interrupted``.

    It also records the signal: code that catches every exception where the signal
    lands swallows the ``Interrupted`` (Numba's compiler runs Python inside LLVM's
    callbacks, where an exception is only printed) and then fails for another reason.
    ``swallowed_interrupt`` tells the command's error handling what stopped it.
    """
    _SIGNALS.append(signum)
    raise Interrupted(signum)


def clear_signals() -> None:
    """Forget the signals received so far (``cli.main`` does at each command's start)."""
    _SIGNALS.clear()


def swallowed_interrupt() -> Interrupted | None:
    """An ``Interrupted`` for the first signal received since ``clear_signals``, if any:
    for an error raised after a signal that something swallowed."""
    return Interrupted(_SIGNALS[0]) if _SIGNALS else None


def parse_problem(exc: BaseException) -> str:
    """Why a JSON or TOML text did not parse, in a few words: the parser's first line,
    ``nested too deep`` for a ``RecursionError``, and not Python's advice on
    ``sys.set_int_max_str_digits`` for an integer of more than 4300 digits."""
    if isinstance(exc, RecursionError):
        return "nested too deep"
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    if "integer string conversion" in text:
        return "an integer of more than 4300 digits"
    return getattr(exc, "msg", None) or text


_OS_REASONS = {
    _errno.ENOSPC: "no space left on device",
    _errno.EDQUOT: "disk quota exceeded",
    _errno.EROFS: "read-only file system",
    _errno.EACCES: "permission denied",
    _errno.EPERM: "operation not permitted",
    _errno.ENOENT: "no such file or folder",
    _errno.ENOTDIR: "a part of the path is a file, not a folder",
    _errno.EISDIR: "is a folder",
    _errno.EEXIST: "already exists",
    _errno.EIO: "input/output error",
}


def os_reason(exc: OSError) -> str:
    """A fault's reason in lower case (``no space left on device``), without the path."""
    if exc.errno in _OS_REASONS:
        return _OS_REASONS[exc.errno]
    text = exc.strerror or str(exc) or type(exc).__name__
    return text[:1].lower() + text[1:]


def is_write_fault(exc: BaseException) -> bool:
    """True for the errors of a file system that cannot take a write (full, read-only,
    not permitted, quota), which a run reports as a fault rather than a bug."""
    return isinstance(exc, OSError) and exc.errno in (
        _errno.ENOSPC, _errno.EDQUOT, _errno.EROFS, _errno.EACCES, _errno.EPERM, _errno.EIO)


class IllegalActionError(CatansimError):
    """A strategy chose an illegal action (raised with ``debug=True``, see
    ``engine.play_game``).

    The one-line message names the game's seed, the turn, the seat and its strategy, the
    decision and the value chosen: the first illegal action of the game, which the
    engine records in the state fields ``illegal_*`` (``engine.illegal_action_error``
    reads them).
    """

    def __init__(self, seed: int, turn: int, seat: int, strategy: str, decision: str,
                 choice: str, count: int = 1):
        self.seed, self.turn, self.seat, self.strategy = seed, turn, seat, strategy
        self.decision, self.choice, self.count = decision, choice, count
        when = "setup (turn 0)" if turn == 0 else f"turn {turn}"
        more = f"; {count} illegal actions in this game" if count > 1 else ""
        super().__init__(f"illegal action: seed {seed}, {when}, seat {seat} ({strategy}), "
                         f"{decision}: chose {choice}{more}")
