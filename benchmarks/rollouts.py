"""Rollout games per CPU-second (``Game.rollouts``) against the batch kernel's for the
same remaining turns.

A search player plays its games on from a paused position: each rollout copies the
game, deals anew what the seat cannot see (``Game.determinize``), takes an option and
plays to the end in one compiled call. The batch kernel (``play_batch``) plays whole
games from the first placement. For a position at turn T the batch's figure for the
same remaining turns is its games per CPU-second for the turns after T: n games played
in full, less the same n games stopped at turn T (``Rules(max_turns=T)``), on one
thread. Repeats are interleaved (a slow spell of the shared machine hits both) and the
medians reported::

    python benchmarks/rollouts.py                     # turns 0 (the set-up), 20, 40
    python benchmarks/rollouts.py --games 4000 --repeats 5 --turns 0,30
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from catansim.core import layout as L
from catansim.engine import batch_seeds, play_batch
from catansim.game import Game
from catansim.rules import Rules
from catansim.settings import GameSettings


def _cpu(fn) -> tuple[float, object]:
    t = time.process_time()
    out = fn()
    return time.process_time() - t, out


def _position(turn: int, seed: int = 3) -> Game:
    """A game of four ``default`` players paused at seat 0's first decision after turn
    ``turn`` (0: its first set-up settlement)."""
    game = Game(seed, strategies=("default",) * 4, external=[0], log=False)
    while game.observation(0).turn < turn:
        game.step(game.suggest())
    return game


def measure(turn: int, games: int, repeats: int, information: str) -> dict:
    game = _position(turn)
    start = int(game.observation(0).turn)
    seeds = np.arange(games)
    choices = -np.ones(games, dtype=np.int64)
    full = GameSettings(n_players=4, strategies=("default",))
    capped = GameSettings(n_players=4, strategies=("default",),
                          rules=Rules(max_turns=max(start, 1)))
    batch_seed = batch_seeds(11, games)
    game.rollouts(0, choices[:8], seeds[:8], "default", information)  # compile or load
    play_batch(batch_seed[:8], full, n_threads=1)
    roll, batch, remaining = [], [], []
    for _ in range(repeats):
        cpu, out = _cpu(lambda: game.rollouts(0, choices, seeds, "default", information))
        roll.append(games / cpu)
        remaining.append(float(L.counter(out, "c_turns").mean()) - start)
        cpu_full, _ = _cpu(lambda: play_batch(batch_seed, full, n_threads=1))
        cpu_capped = 0.0
        if start > 0:
            cpu_capped, _ = _cpu(lambda: play_batch(batch_seed, capped, n_threads=1))
        batch.append(games / max(cpu_full - cpu_capped, 1e-9))
    return dict(turn=start, remaining=statistics.median(remaining),
                rollouts=statistics.median(roll), batch=statistics.median(batch),
                rollout_range=(min(roll), max(roll)), batch_range=(min(batch), max(batch)))


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--turns", default="0,20,40")
    ap.add_argument("--information", default="public", choices=("public", "omniscient"))
    args = ap.parse_args(argv)
    print("| position | remaining turns | rollouts games/s (range) | batch games/s, same "
          "turns (range) | batch / rollouts |")
    print("|---|---:|---:|---:|---:|")
    for turn in (int(x) for x in args.turns.split(",")):
        m = measure(turn, args.games, args.repeats, args.information)
        where = "first set-up settlement" if m["turn"] == 0 else f"turn {m['turn']}"
        print(f"| {where} | {m['remaining']:.1f} | {m['rollouts']:,.0f} "
              f"({m['rollout_range'][0]:,.0f} to {m['rollout_range'][1]:,.0f}) | "
              f"{m['batch']:,.0f} ({m['batch_range'][0]:,.0f} to {m['batch_range'][1]:,.0f})"
              f" | {m['batch'] / m['rollouts']:.2f} |")


if __name__ == "__main__":
    main()
