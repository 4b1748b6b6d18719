"""``tune``: a spec searched, its answer chosen and re-measured, its outputs written.

The steps live in ``study`` (search and choice), ``heldout`` and ``report``; this
module runs them in order.
"""

from __future__ import annotations

import logging
from pathlib import Path

from ..errors import CatansimError, FaultError
from .heldout import measure
from .report import write_outputs
from .spec import load_spec
from .study import (
    TuneResult,
    best_full,
    dask_client,
    default_storage,
    fail_stopped,
    found_line,
    games_used,
    open_study,
    search,
    seconds_used,
    select,
    storage_faults,
)


def tune(spec, out=None, storage: str | None = None, n_threads: int | None = None,
         scheduler: str | None = None, client=None, heldout: bool = True,
         report: bool = True, progress=None) -> TuneResult:
    """Tune a spec's strategy: search (resuming its study), re-measure, write the outputs.

    Parameters
    ----------
    spec : path, mapping or TuneSpec
    out : folder for the preset, the tables, the figures and the report (default
        ``tuning/<name>``); also the default home of the study's SQLite database.
    storage : a database URL (overrides the spec's ``storage``).
    n_threads : threads of each ``play_batch`` call in this process.
    scheduler, client : a Dask scheduler address, or a ``dask.distributed.Client``:
        the candidates' games run on its workers.
    heldout, report : also measure on held-out deals / write the report.
    progress : a callable taking one line per finished trial, and first, on resuming,
        one line saying what the study holds (the command prints them).
    """
    spec = load_spec(spec)
    out = Path(out if out is not None else Path("tuning") / spec.name)
    url = storage or spec.storage
    field = "--storage" if storage else "storage"
    if url is None:
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise FaultError(f"--out: {out}: cannot create the folder ({exc.strerror}); "
                             "nothing written") from None
        url = default_storage(out)
    for name in ("optuna", "sqlalchemy", "alembic"):
        logging.getLogger(name).setLevel(logging.WARNING)
    with storage_faults(url, field):
        study = open_study(spec, url, field)
        found = found_line(spec, url, study, fail_stopped(study))
        if found is not None and progress is not None:
            progress(found)
    with dask_client(scheduler, client) as c, storage_faults(url, field):
        search(spec, study, n_threads, c, progress)
        if best_full(study) is None:
            raise CatansimError(f"budget: no candidate played all {spec.deals} training deals "
                                f"within the budget ({games_used(study):,} games); allowed: a "
                                "larger budget, or fewer evaluation.deals")
        selection = select(spec, study, n_threads, c)
        best = study.trials[int(selection.index[0])]
        start = spec.strategy_set[spec.strategy].param_dict()
        result = TuneResult(spec, study, dict(best.user_attrs["row"]),
                            {d.name: start[d.name] for d in spec.space}, best.number,
                            games_used(study), seconds_used(study), out=out,
                            selection=selection)
        if heldout:
            result.heldout = measure(spec, result.params(), n_threads=n_threads, client=c)
    if report:
        write_outputs(result, out)
    return result
