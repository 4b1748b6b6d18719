"""Shared by the fault-injection and bad-input suites: run the CLI, check its one line
of stderr, snapshot folders, and real faults of the machine (tmpfs, read-only bind
mounts, a process without root's permission override) with clean-up in ``finally``.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from catansim.cli import main

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
ENV = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
SETPRIV = shutil.which("setpriv")
_DROP = "-dac_override,-dac_read_search"


def run_main(argv, capsys) -> tuple[int, str, str]:
    """``catansim ARGV`` in this process: ``(exit status, stdout, stderr)``."""
    capsys.readouterr()
    try:
        main([str(a) for a in argv])
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    out, err = capsys.readouterr()
    return code, out, err


def run_cli(argv, *, drop_root_override: bool = False, **kw) -> subprocess.CompletedProcess:
    """``python -m catansim.cli ARGV`` in a new process (``drop_root_override``: without
    CAP_DAC_OVERRIDE, so that root meets file permissions as any user would)."""
    cmd = [PYTHON, "-m", "catansim.cli", *map(str, argv)]
    if drop_root_override:
        cmd = [SETPRIV, f"--inh-caps={_DROP}", f"--bounding-set={_DROP}", *cmd]
    return subprocess.run(cmd, capture_output=True, text=True, env=ENV, timeout=600, **kw)


def popen_cli(argv, **kw) -> subprocess.Popen:
    return subprocess.Popen([PYTHON, "-m", "catansim.cli", *map(str, argv)], env=ENV,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def one_line(err: str, *needles: str, prefix: str = "catansim: error: ") -> str:
    """The single line of ``err``; it starts with ``prefix`` and holds every needle."""
    assert "Traceback" not in err, err
    lines = err.splitlines()
    assert len(lines) == 1, f"expected one line on stderr, got {len(lines)}:\n{err}"
    line = lines[0]
    assert line.startswith(prefix), line
    for needle in needles:
        assert needle in line, f"{needle!r} not in {line!r}"
    return line


def kept(line: str) -> tuple[int, int]:
    """``(N, M)`` of "N of M parts kept" in a message."""
    m = re.search(r"(\d+) of (\d+) parts kept", line)
    assert m, line
    return int(m.group(1)), int(m.group(2))


def tree(path: Path) -> dict:
    """Every file and folder under ``path`` with its size and modification time."""
    path = Path(path)
    if not path.exists():
        return {}
    out = {}
    for p in sorted(path.rglob("*")):
        st = p.lstat()
        out[str(p.relative_to(path))] = (p.is_dir(), st.st_size, st.st_mtime_ns)
    return out


def n_records(root: Path) -> int:
    log = Path(root) / "parts.jsonl"
    return len([x for x in log.read_text().splitlines() if x.strip()]) if log.exists() else 0


def assert_clean(root: Path) -> None:
    """No temporary files, every part file recorded, the records log ends with a newline."""
    root = Path(root)
    assert not [p for p in root.rglob("*.tmp")], list(root.rglob("*.tmp"))
    log = root / "parts.jsonl"
    if log.exists():
        data = log.read_bytes()
        assert not data or data.endswith(b"\n")
    stems = {line.split('"part":"')[1].split('"')[0]
             for line in (log.read_text().splitlines() if log.exists() else []) if line}
    for table in ("games", "players"):
        for p in (root / table).glob("part-*.parquet") if (root / table).is_dir() else []:
            assert p.stem in stems, f"{p} has no record"


# --- real faults --------------------------------------------------------------------


def _mount(*args) -> subprocess.CompletedProcess:
    return subprocess.run(["mount", *args], capture_output=True, text=True, timeout=30)


def _umount(path: Path) -> None:
    r = subprocess.run(["umount", str(path)], capture_output=True, timeout=30)
    if r.returncode != 0:  # busy: detach now, the kernel frees it when the last user goes
        subprocess.run(["umount", "-l", str(path)], capture_output=True, timeout=30)


def _can_mount() -> bool:
    return IS_ROOT and shutil.which("mount") is not None


needs_mount = pytest.mark.skipif(not _can_mount(), reason="needs root and mount(8) "
                                 "(tmpfs, read-only bind mounts)")
needs_setpriv = pytest.mark.skipif(not (IS_ROOT and SETPRIV), reason="needs root and "
                                   "setpriv(1) to run without CAP_DAC_OVERRIDE; as another "
                                   "user chmod alone makes a folder unwritable")


@contextlib.contextmanager
def tmpfs(path: Path, size: str):
    """A tmpfs of ``size`` (e.g. ``2m``) mounted at ``path``; unmounted on exit."""
    path.mkdir(parents=True, exist_ok=True)
    r = _mount("-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path))
    if r.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs: {r.stderr.strip()}")
    try:
        yield path
    finally:
        _umount(path)


def remount(path: Path, size: str) -> None:
    r = _mount("-o", f"remount,size={size}", str(path))
    assert r.returncode == 0, r.stderr


@contextlib.contextmanager
def read_only(src: Path, dst: Path):
    """``src`` seen read-only at ``dst`` (a bind mount); unmounted on exit."""
    dst.mkdir(parents=True, exist_ok=True)
    r = _mount("--bind", "-o", "ro", str(src), str(dst))
    if r.returncode != 0:
        pytest.skip(f"cannot make a read-only bind mount: {r.stderr.strip()}")
    try:
        if os.access(dst, os.W_OK):  # an old kernel ignores ro on the first bind
            _mount("-o", "remount,bind,ro", str(dst))
        assert not os.access(dst, os.W_OK)
        yield dst
    finally:
        _umount(dst)


def fill(folder: Path) -> Path:
    """Fill the file system of ``folder`` until it has no space left; returns the file."""
    path = folder / "filler"
    block = b"\0" * (64 * 1024)
    with open(path, "wb", buffering=0) as fh:
        for chunk in (block, b"\0"):  # then the last bytes, one at a time
            with contextlib.suppress(OSError):
                while True:
                    fh.write(chunk)
    return path
