"""One candidate's games: the same deals for every candidate, the candidate in every seat.

A deal is a game seed (board, dice and development deck derive from it). Deal ``i`` of
a tuning is ``batch_seeds(seed, deals)[i]``, played on ``layouts[i % len(layouts)]``,
once per field table and seat: the candidate sits in seat ``r`` and the table's
opponents fill the other seats in turn. Every candidate plays the same deals in the
same seatings (common random numbers), so two candidates are compared deal by deal.

The games of one call run through ``engine.play_batch`` in this process, or as one
task per (layout, table, seat) on the workers of a Dask client.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core import layout as L
from ..engine import batch_seeds, play_batch
from ..settings import GameSettings
from ..strategies import StrategySet
from .spec import BEST, CANDIDATE, TuneSpec


def seatings(table: tuple[str, ...], n_players: int, me: str = CANDIDATE
             ) -> list[tuple[str, ...]]:
    """The seatings of one deal against one table: ``me`` in seat ``r`` for each ``r``;
    the opponents take the other seats in the table's order, rotated with ``r``, so each
    opponent of a mixed table sits in every other seat too."""
    out = []
    for r in range(n_players):
        others = [table[(k + r) % len(table)] for k in range(len(table))]
        out.append(tuple(me if seat == r else others.pop(0) for seat in range(n_players)))
    return out


def candidate_set(base: StrategySet, start: str, row: dict[str, float],
                  best: dict[str, float] | None = None, name: str = CANDIDATE) -> StrategySet:
    """``base`` plus the candidate (``start`` with ``row``'s values) and, for self-play,
    the best candidate so far (``BEST``; the start when there is none yet)."""
    defs = {name: {"base": start, **row}}
    if BEST not in base:
        defs[BEST] = {"base": start, **(best or {})}
    return base.with_definitions(defs)


@dataclass(frozen=True)
class Job:
    """One ``play_batch`` call: seeds, settings and the seat the candidate holds."""

    seeds: np.ndarray
    settings: GameSettings
    seat: int
    deal_index: np.ndarray  # position of each seed among the call's deals


def _wins(job: Job, n_threads: int | None = None) -> np.ndarray:
    """1 where the candidate (in ``job.seat``) won, per seed."""
    batch = play_batch(job.seeds, job.settings, n_threads=n_threads)
    return (L.counter(batch.counters, "c_winner") == job.seat).astype(np.int32)


def deal_seeds(base_seed: int, deals: np.ndarray) -> np.ndarray:
    """The game seeds of deals ``deals`` (indices) of a run with base seed ``base_seed``."""
    deals = np.asarray(deals, dtype=np.int64)
    return batch_seeds(base_seed, int(deals.max()) + 1)[deals] if deals.size else \
        np.zeros(0, dtype=np.int64)


def jobs(spec: TuneSpec, strategy_set: StrategySet, deals: np.ndarray,
         seed: int | None = None, me: str = CANDIDATE, tables=None) -> list[Job]:
    """The jobs of deals ``deals`` (indices of the training deals, or of ``seed``'s)."""
    deals = np.asarray(deals, dtype=np.int64)
    seeds = deal_seeds(spec.seed if seed is None else seed, deals)
    index = np.arange(deals.size)
    layout_of = deals % len(spec.layouts)
    out = []
    for li, layout in enumerate(spec.layouts):
        mask = layout_of == li
        if not mask.any():
            continue
        for table in (spec.tables if tables is None else tables):
            for r, seating in enumerate(seatings(table, spec.n_players, me)):
                settings = GameSettings(n_players=spec.n_players, strategies=seating,
                                        layout=layout, rules=spec.rules,
                                        strategy_set=strategy_set)
                out.append(Job(seeds[mask].copy(), settings, r, index[mask]))
    return out


def play_jobs(job_list: list[Job], n_deals: int, n_threads: int | None = None,
              client=None) -> np.ndarray:
    """Candidate wins per deal (summed over its seats and tables): int32[n_deals]."""
    if client is not None:
        futures = client.map(_wins, job_list, pure=False)
        results = client.gather(futures)
    else:
        results = [_wins(j, n_threads) for j in job_list]
    wins = np.zeros(n_deals, dtype=np.int32)
    for job, w in zip(job_list, results, strict=True):
        np.add.at(wins, job.deal_index, w)
    return wins


def play_deals(spec: TuneSpec, row: dict[str, float], deals,
               best: dict[str, float] | None = None, seed: int | None = None,
               n_threads: int | None = None, client=None) -> np.ndarray:
    """Wins per deal of a candidate with parameter values ``row`` on deals ``deals``
    (indices; 0 .. ``spec.games_per_deal`` wins each)."""
    deals = np.asarray(deals, dtype=np.int64)
    strategy_set = candidate_set(spec.strategy_set, spec.strategy, row, best)
    return play_jobs(jobs(spec, strategy_set, deals, seed), deals.size, n_threads, client)


__all__ = ["Job", "candidate_set", "deal_seeds", "jobs", "play_deals", "play_jobs", "seatings"]
