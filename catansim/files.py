"""Atomic file writes, shared by every layer: one home for "write beside, flush, rename"
(and for the all-or-nothing append of a record log).

A file a run, a report or a command writes is first written to a hidden temporary
file in the same folder (``.NAME.PID.tmp``), flushed to disk and renamed onto its
path with ``os.replace``; on any error the temporary file is removed and the path is
unchanged, so a half-written file never exists under its real name. An ``OSError``
names the path the caller asked for, not the temporary file.

May import: the standard library only.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path


def _name(exc: OSError, path, tmp=None) -> OSError:
    """Give an OS error the path it is about, if it has none or names only ``tmp``, the
    temporary file written for ``path`` (a user asked for ``path``, not ``.path.123.tmp``)."""
    if exc.filename is None or (tmp is not None and str(exc.filename) == str(tmp)):
        exc.filename = str(path)
    return exc


def _write_all(fd: int, data) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def fsync_folder(folder: Path) -> None:
    """Flush a folder's entries (renames into it) to disk; a file system that cannot is
    left alone."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def display_path(path) -> str:
    """A path as text for a page or a JSON file: bytes of the name that are not UTF-8
    (which Python keeps as surrogates) shown as U+FFFD, so the text encodes."""
    return os.fsencode(path).decode("utf-8", "replace")


def _tmp_path(path: Path) -> Path:
    return path.with_name(f".{path.name}.{os.getpid()}.tmp")


def atomic_write_text(path: Path, text: str) -> None:
    """``atomic_write_bytes`` of ``text`` in UTF-8: a report, a README, a run book."""
    atomic_write_bytes(path, text.encode("utf-8"))


@contextlib.contextmanager
def atomic_path(path: Path):
    """A temporary path beside ``path`` for a writer that wants a file name (a figure's
    ``savefig``, ``DataFrame.to_csv``, ``to_parquet``, ``pickle``): when the block ends
    without error it is flushed to disk and renamed onto ``path``; on any error it is
    removed and ``path`` is unchanged. Name the format explicitly (``format="png"``):
    the temporary name ends in ``.tmp``.
    """
    path = Path(path)
    tmp = _tmp_path(path)
    try:
        yield tmp
        fd = os.open(tmp, os.O_RDONLY)  # fsync needs no write access
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        if isinstance(exc, OSError):
            _name(exc, path, tmp)
        raise
    fsync_folder(path.parent)


def append_bytes(path: Path, data) -> None:
    """Append ``data`` to ``path`` (created if missing) and flush it to disk, all or
    nothing: if the write fails (a full disk), the file is cut back to its old length,
    so it never ends in half of ``data`` (an append-only record log stays readable)."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        size = os.fstat(fd).st_size
        try:
            _write_all(fd, data)
            os.fsync(fd)
        except OSError as exc:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, size)
            _name(exc, path)
            raise
    finally:
        os.close(fd)


def atomic_write_bytes(path: Path, data) -> None:
    """Write ``data`` to ``path`` through a temporary file (flushed to disk) and a rename.

    On any failure the temporary file is removed and ``path`` is unchanged.
    """
    with atomic_path(path) as tmp:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            _write_all(fd, data)
        finally:
            os.close(fd)
