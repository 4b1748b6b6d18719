"""``catansim.files``: the one home of atomic writes (write beside, flush, rename)."""

from __future__ import annotations

import os

import pytest

from catansim.board import beginner_board
from catansim.files import atomic_path, atomic_write_bytes, atomic_write_text
from catansim.logs import make_header, write_log
from catansim.plotting import save_board_png
from catansim.rules import Rules


def test_a_write_lands_whole_and_leaves_no_temporary_file(tmp_path):
    atomic_write_text(tmp_path / "a.txt", "one\n")
    atomic_write_bytes(tmp_path / "a.txt", b"two\n")  # replaces
    assert (tmp_path / "a.txt").read_text() == "two\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt"]


def test_a_failed_writer_leaves_the_old_file_and_no_temporary_file(tmp_path):
    path = tmp_path / "a.csv"
    path.write_text("old\n")
    with pytest.raises(RuntimeError, match="half way"):
        with atomic_path(path) as tmp:
            tmp.write_text("new, half")
            raise RuntimeError("half way")
    assert path.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.csv"]


def test_an_os_error_names_the_path_asked_for_not_the_temporary_file(tmp_path):
    """The CLI turns the error's file name into its one line (``--out: PATH: ...``);
    it used to say ``/proc/.x.png.1234.tmp``, a file the user never named."""
    path = tmp_path / "missing" / "x.png"
    with pytest.raises(FileNotFoundError) as err:
        with atomic_path(path) as tmp:
            open(tmp, "wb").close()
    assert err.value.filename == str(path)
    # an error about another file keeps that file's name
    other = tmp_path / "missing" / "other.txt"
    with pytest.raises(FileNotFoundError) as err:
        with atomic_path(tmp_path / "y.txt"):
            open(other).close()
    assert err.value.filename == str(other)


@pytest.mark.parametrize("writer", ["save_board_png", "write_log"])
def test_the_board_drawing_and_the_game_log_write_through_it(tmp_path, writer):
    folder = tmp_path / "missing"
    if writer == "save_board_png":
        path = folder / "b.png"
        call = lambda p: save_board_png(beginner_board(), p)  # noqa: E731
    else:
        path = folder / "g.jsonl"
        header = make_header(seed=1, n_players=4, strategies=["random"] * 4, rules=Rules(),
                             board=beginner_board())
        call = lambda p: write_log(p, header, [])  # noqa: E731
    with pytest.raises(FileNotFoundError) as err:
        call(path)
    assert err.value.filename == str(path)
    folder.mkdir()
    call(path)
    assert path.stat().st_size > 0
    assert sorted(p.name for p in folder.iterdir()) == [path.name]


@pytest.mark.skipif(os.geteuid() != 0 or not os.path.isdir("/proc/self"),
                    reason="needs root (a non-root user is refused before writing)")
def test_a_write_fault_in_the_cli_names_the_users_path(capsys):
    from catansim.cli import main

    with pytest.raises(SystemExit) as exit_:
        main(["board", "--out", "/proc/b.png"])
    err = capsys.readouterr().err.strip()
    assert exit_.value.code == 1
    assert err.startswith("catansim: error: --out: /proc/b.png: ") and ".tmp" not in err, err
    assert "\n" not in err


def test_a_failed_append_cuts_the_file_back_and_names_it(tmp_path, monkeypatch):
    """``append_bytes`` is all or nothing: a write that fails half way (a full disk) is
    cut back to the old length, and the error names the file."""
    import errno

    from catansim import files

    path = tmp_path / "parts.jsonl"
    files.append_bytes(path, b'{"a": 1}\n')
    files.append_bytes(path, b'{"b": 2}\n')
    assert path.read_bytes() == b'{"a": 1}\n{"b": 2}\n'

    def half_then_full(fd, data):
        os.write(fd, bytes(data[:4]))
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(files, "_write_all", half_then_full)
    with pytest.raises(OSError) as err:
        files.append_bytes(path, b'{"c": 3}\n')
    assert err.value.filename == str(path)
    assert path.read_bytes() == b'{"a": 1}\n{"b": 2}\n'
