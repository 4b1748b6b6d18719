"""The step interface beside catanatron (its PyPI release, in a scratch venv), timed in
the same window, repeats interleaved:

(a) catanatron: four ``RandomPlayer`` games/s (its Python API);
(b) catansim: four Python ``RandomPlayer`` games/s (``play_game``);
(c) catansim: one Python ``RandomPlayer`` among three compiled ``default`` games/s;
(d) catansim: µs per decision of a Python random seat through ``Game`` (``legal_options``
    + ``step``; four external random seats, so every decision is one);
(g) catansim: four random Python players deciding for many games at once (``GameBatch``:
    one numpy draw a step for every game in the batch) games/s;
and the environments' steps/s: ``CatanAEC`` (four random masked agents) and ``CatanEnv``
(one random masked agent against three compiled ``default``).

Each figure: n games per repeat, the median and range over the repeats. Prints a
markdown table.

    python benchmarks/step_vs_catanatron.py --games 40 --repeats 5
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

CATANATRON = "3.2.1"
# Runs in the scratch venv: catanatron's RandomPlayer games, timed inside (no import).
CATANATRON_RUN = """
import json, sys, time
from catanatron import Color, Game, RandomPlayer
games, first = int(sys.argv[1]), int(sys.argv[2])
colors = (Color.RED, Color.BLUE, Color.WHITE, Color.ORANGE)
decisions = 0
t = time.perf_counter()
for i in range(games):
    game = Game([RandomPlayer(c) for c in colors], seed=first + i)
    game.play()
    decisions += len(game.state.actions)
print(json.dumps({"seconds": time.perf_counter() - t, "decisions": decisions}))
"""


def fail(message: str) -> None:
    print(f"step_vs_catanatron: {message}", file=sys.stderr)
    sys.exit(2)


def scratch_venv(path: Path) -> Path:
    """The scratch venv's python, with catanatron installed (made on first use)."""
    python = path / "bin" / "python"
    check = [str(python), "-c", "import catanatron"]
    if python.exists() and subprocess.run(check, capture_output=True).returncode == 0:
        return python
    for cmd in ([sys.executable, "-m", "venv", str(path)],
                [str(python), "-m", "pip", "install", "-q", f"catanatron=={CATANATRON}"]):
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode:
            last = (r.stderr or r.stdout).strip().splitlines()[-1:] or ["no output"]
            fail(f"--venv {path}: {' '.join(cmd[:3])} failed: {last[0]}")
    return python


def catanatron_games(python: Path, games: int, first: int) -> tuple[float, float]:
    r = subprocess.run([str(python), "-c", CATANATRON_RUN, str(games), str(first)],
                       capture_output=True, text=True)
    if r.returncode:
        fail(f"catanatron's games failed: {r.stderr.strip().splitlines()[-1:]}")
    out = json.loads(r.stdout)
    return games / out["seconds"], out["decisions"] / games


def python_seats(games: int, first: int, compiled: bool) -> tuple[float, float]:
    from catansim.engine import play_game
    from catansim.game import RandomPlayer

    turns = 0
    t = time.perf_counter()
    for seed in range(first, first + games):
        seats = ([RandomPlayer(0), "default", "default", "default"] if compiled else
                 [RandomPlayer(q) for q in range(4)])
        turns += play_game(seed, 4, seats, log=False).turns
    return games / (time.perf_counter() - t), turns / games


def decision_cost(games: int, first: int) -> tuple[float, float]:
    """µs per ``legal_options`` + ``step`` of four external random seats."""
    from catansim.game import Game

    rng = np.random.default_rng(first)
    decisions = 0
    elapsed = 0.0
    for seed in range(first, first + games):
        game = Game(seed, strategies=("random",), external=range(4), log=False)
        picks = rng.random(20_000)  # drawn before the clock starts
        t = time.perf_counter()
        i = 0
        while not game.over:
            options = game.legal_options()
            game.step(options[int(picks[i % 20_000] * len(options))])
            i += 1
        elapsed += time.perf_counter() - t
        decisions += i
    return 1e6 * elapsed / decisions, decisions / games


def batch_games(games: int, first: int) -> tuple[float, float]:
    """Four random Python players over ``games`` games in lockstep (``GameBatch``)."""
    from catansim.game import GameBatch

    rng = np.random.default_rng(first)
    t = time.perf_counter()
    batch = GameBatch(range(first, first + games), strategies=("random",), external=range(4))
    while not batch.over:
        counts = batch.counts
        batch.choose(np.where(counts > 0, (rng.random(games) * counts).astype(np.int64), -1))
    rate = games / (time.perf_counter() - t)
    return rate, float(batch.counters[:, 0].mean())


def env_steps(games: int, first: int, single: bool) -> tuple[float, float]:
    from catansim.envs import CatanAEC, CatanEnv

    rng = np.random.default_rng(first)
    steps = 0
    t = time.perf_counter()
    for seed in range(first, first + games):
        if single:
            env = CatanEnv(seat=seed % 4)
            obs, _ = env.reset(seed=seed)
            done = False
            while not done:
                obs, _, term, trunc, _ = env.step(
                    int(rng.choice(np.flatnonzero(obs["action_mask"]))))
                done = term or trunc
                steps += 1
            continue
        env = CatanAEC()
        env.reset(seed=seed)
        for _agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            steps += 1
    return steps / (time.perf_counter() - t), steps / games


def summary(values) -> tuple[float, float, float]:
    return statistics.median(values), min(values), max(values)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=40, help="games per repeat, (b) and (d)")
    ap.add_argument("--games-compiled", type=int, default=200,
                    help="games per repeat, (c)")
    ap.add_argument("--games-catanatron", type=int, default=40, help="games per repeat, (a)")
    ap.add_argument("--games-env", type=int, default=10, help="games per repeat, the envs")
    ap.add_argument("--games-batch", type=int, default=512, help="games per repeat, (g)")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--venv", type=Path, default=Path("/tmp/catanatron-venv"),
                    help="scratch venv for catanatron (made if missing)")
    args = ap.parse_args(argv)
    for name in ("games", "games_compiled", "games_catanatron", "games_env", "games_batch",
                 "repeats"):
        if getattr(args, name) < 1:
            fail(f"--{name.replace('_', '-')}: {getattr(args, name)}; allowed: an integer >= 1")
    python = scratch_venv(args.venv)

    # warm-up: compile (or load) the kernels, import the environments
    python_seats(1, 0, True)
    env_steps(1, 0, True)
    rows = {k: [] for k in "abcdefg"}
    per_game = {}
    for r in range(args.repeats):
        first = 1000 * (r + 1)
        for key, run, *given in (
                ("a", catanatron_games, python, args.games_catanatron, first),
                ("b", python_seats, args.games, first, False),
                ("c", python_seats, args.games_compiled, first, True),
                ("d", decision_cost, args.games, first),
                ("e", env_steps, args.games_env, first, False),
                ("f", env_steps, args.games_env, first, True),
                ("g", batch_games, args.games_batch, first)):
            value, extra = run(*given)
            rows[key].append(value)
            per_game.setdefault(key, []).append(extra)
        print(f"repeat {r + 1}/{args.repeats} done", file=sys.stderr)

    labels = {
        "a": ("(a) catanatron 3.2.1: 4 RandomPlayer", args.games_catanatron, "games/s",
              "decisions/game"),
        "b": ("(b) catansim: 4 Python RandomPlayer", args.games, "games/s", "turns/game"),
        "c": ("(c) catansim: 1 Python RandomPlayer + 3 compiled default", args.games_compiled,
              "games/s", "turns/game"),
        "d": ("(d) catansim: one decision, Game.legal_options + step", args.games, "µs",
              "decisions/game"),
        "e": ("CatanAEC: 4 random masked agents", args.games_env, "steps/s", "steps/game"),
        "f": ("CatanEnv: 1 random masked agent + 3 compiled default", args.games_env,
              "steps/s", "steps/game"),
        "g": ("(g) catansim: 4 random Python players, GameBatch (numpy, games in lockstep)",
              args.games_batch, "games/s", "turns/game"),
    }
    print(f"\n{os.cpu_count()} CPUs; {args.repeats} repeats, interleaved\n")
    print("| figure | games per repeat | median | range | unit | per game (median) |")
    print("| --- | ---: | ---: | ---: | --- | ---: |")
    for key, (label, n, unit, extra) in labels.items():
        med, lo, hi = summary(rows[key])
        fmt = ".1f" if med < 1000 else ".0f"
        print(f"| {label} | {n} | {med:{fmt}} | {lo:{fmt}} to {hi:{fmt}} | {unit} | "
              f"{statistics.median(per_game[key]):.0f} {extra} |")
    per_decision = 1e6 / (statistics.median(rows["a"]) * statistics.median(per_game["a"]))
    print(f"\ncatanatron: {per_decision:.1f} µs per decision (its games/s and decisions/game "
          "above; it offers no trades between players)")
    ratio = statistics.median(rows["b"]) / statistics.median(rows["a"])
    batch = statistics.median(rows["g"]) / statistics.median(rows["a"])
    print(f"(b) / (a) = {ratio:.2f}, one game at a time; (g) / (a) = {batch:.1f}, a batch "
          f"(goal: >= 10); (c) = {statistics.median(rows['c']):.0f} games/s (goal: >= 200)")


if __name__ == "__main__":
    main()
