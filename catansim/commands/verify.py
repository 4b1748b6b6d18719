"""``catansim verify``: check every part of a dataset in full (size, rows, SHA-256)."""

from __future__ import annotations

import click

from ..errors import FaultError
from . import _options as O


@click.command("verify")
@click.argument("dataset", type=O.InDir("a dataset folder written by catansim run"))
def command(dataset):
    """Check every part of DATASET in full: the size, rows and SHA-256 of each file.

    Prints one line and exits 0 when every planned part is present and intact; a
    bad or missing part is an error (exit status 1) naming the first bad file.
    Reads every byte once and writes nothing (read-only folders are fine).
    """
    from ..results.dataset import verify

    result = verify(dataset)
    if not result.complete:
        raise FaultError(result.summary())
    click.echo(result.summary())
