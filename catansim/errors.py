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
