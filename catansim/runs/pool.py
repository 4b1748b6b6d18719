"""Independent tasks run in this process or in a pool of fresh processes, each result
handed back as it completes (a ladder's parts, a review's chunks)."""

from __future__ import annotations

import concurrent.futures as cf
import multiprocessing
from collections.abc import Callable, Iterator


def completed(fn: Callable, tasks: dict, workers: int) -> Iterator[tuple]:
    """Yield ``(key, fn(*tasks[key]))`` for every key, each as it completes: here, in
    order (one worker, or one task), or in a pool of ``workers`` processes started
    fresh (``spawn``: no forked Numba state; ``fn`` and its arguments are pickled).

    A task that raises, or a caller that stops early (Ctrl-C, SIGTERM, closing the
    generator), stops the rest at once: the tasks not started are cancelled and the
    workers still running one are terminated, since their results would be dropped
    (a ladder's game can take minutes)."""
    if workers <= 1 or len(tasks) <= 1:
        for key, args in tasks.items():
            yield key, fn(*args)
        return
    ctx = multiprocessing.get_context("spawn")
    with cf.ProcessPoolExecutor(max_workers=min(workers, len(tasks)), mp_context=ctx) as pool:
        before = set(multiprocessing.active_children())
        futures = {pool.submit(fn, *args): key for key, args in tasks.items()}
        # Every submit has started the workers it needs (``spawn`` starts them on
        # demand, up to ``max_workers``), so the children new since are this pool's.
        own = set(multiprocessing.active_children()) - before
        try:
            for fut in cf.as_completed(futures):
                yield futures[fut], fut.result()
        except BaseException:
            # Cancel first, then terminate: the pool's manager drops the cancelled
            # tasks before it sees its workers gone.
            pool.shutdown(wait=False, cancel_futures=True)
            for proc in own:
                proc.terminate()
            raise
