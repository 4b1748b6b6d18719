"""Independent tasks run in this process or in a pool of fresh processes, each result
handed back as it completes (a ladder's parts, a review's chunks)."""

from __future__ import annotations

import concurrent.futures as cf
import multiprocessing
from collections.abc import Callable, Iterator


def completed(fn: Callable, tasks: dict, workers: int) -> Iterator[tuple]:
    """Yield ``(key, fn(*tasks[key]))`` for every key, each as it completes: here, in
    order (one worker, or one task), or in a pool of ``workers`` processes started
    fresh (``spawn``: no forked Numba state; ``fn`` and its arguments are pickled). A
    task that raises stops the rest: those not started are cancelled."""
    if workers <= 1 or len(tasks) <= 1:
        for key, args in tasks.items():
            yield key, fn(*args)
        return
    ctx = multiprocessing.get_context("spawn")
    with cf.ProcessPoolExecutor(max_workers=min(workers, len(tasks)), mp_context=ctx) as pool:
        futures = {pool.submit(fn, *args): key for key, args in tasks.items()}
        try:
            for fut in cf.as_completed(futures):
                yield futures[fut], fut.result()
        except BaseException:
            for fut in futures:
                fut.cancel()
            raise
