"""Game anatomy beside human play: how games go under each kind of player.

Plays four ``classic``, four ``default`` and four search players (``search:BUDGET``) on
the same deals (seeds ``--seed`` onwards), each game with its event log, one process on
one thread, and writes ``results/anatomy/``: ``tables/anatomy.csv`` (every measure of
``analysis.anatomy.ANATOMY_MEASURES`` per kind of player, with n and its 95% interval,
beside the published human figure where there is one), ``tables/cost.csv`` (the CPU
seconds each kind took) and ``anatomy.png``::

    python experiments/anatomy/anatomy.py --games 4000 --search-games 600 --seed 54000

The games' rows and log measures are kept in ``data/`` (not committed), a chunk of
``--chunk`` games at a time, so a run cut short resumes where it stopped; ``--tables-only``
rewrites the tables and the figure from ``data/`` without playing.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import catansim
from catansim.analysis import anatomy as AN
from catansim.engine import BatchResult
from catansim.logs import game_log
from catansim.players.search import SearchPlayer
from catansim.results.tables import games_frame, players_frame

KINDS = ("classic", "default", "search")


def players_of(kind: str, budget: int) -> list:
    """The four seats of a kind of player."""
    if kind == "search":
        return [SearchPlayer(budget=budget) for _ in range(4)]
    return [kind] * 4


def play_chunk(kind: str, seeds: np.ndarray, budget: int) -> tuple:
    """The games of ``seeds`` with ``kind`` in every seat: (games, players, logs) frames
    and the CPU seconds the chunk took."""
    seats = players_of(kind, budget)
    cpu = time.process_time()
    counters, boards, logs, settings = [], [], [], None
    for seed in seeds.tolist():
        res = catansim.play_game(seed, 4, seats, log=True)
        settings = res.settings
        counters.append(np.array(res.counters))
        boards.append(np.array(res.board.vector))
        logs.append(AN.log_measures(*game_log(res)))
    cpu = time.process_time() - cpu
    batch = BatchResult(seeds=seeds, counters=np.stack(counters), boards=np.stack(boards),
                        settings=settings)
    index = seeds - seeds[0]
    g = games_frame(batch, index, variant=kind, variants=list(KINDS))
    p = players_frame(batch, index, variant=kind, variants=list(KINDS))
    lg = pd.DataFrame(logs).assign(variant=kind, game=index)
    return g, p, lg, cpu


def play(kind: str, games: int, seed: int, chunk: int, budget: int, data: Path) -> None:
    """Play ``games`` games of ``kind`` into ``data/KIND-START.pkl``, skipping the chunks
    already there."""
    for start in range(0, games, chunk):
        path = data / f"{kind}-{start:06d}.pkl"
        if path.exists():
            continue
        seeds = np.arange(seed + start, seed + min(start + chunk, games), dtype=np.int64)
        g, p, lg, cpu = play_chunk(kind, seeds, budget)
        g["game"] += start
        p["game"] += start
        lg["game"] += start
        tmp = path.with_suffix(".tmp")
        pd.to_pickle({"games": g, "players": p, "logs": lg, "cpu": cpu}, tmp)
        tmp.rename(path)
        print(f"{kind}: games {start}..{start + len(seeds) - 1} in {cpu:.1f} CPU s",
              flush=True)


def load(data: Path, kind: str, games: int):
    parts = [pd.read_pickle(p) for p in sorted(data.glob(f"{kind}-*.pkl"))]
    parts = [x for x in parts if x["games"]["game"].min() < games]
    if not parts:
        return None
    cat = {k: pd.concat([x[k] for x in parts], ignore_index=True)
           for k in ("games", "players", "logs")}
    return cat, sum(x["cpu"] for x in parts)


def tables(out: Path, games: int, search_games: int, budget: int) -> pd.DataFrame:
    data = out / "data"
    frames, cost = [], []
    for kind in KINDS:
        got = load(data, kind, search_games if kind == "search" else games)
        if got is None:
            continue
        t, cpu = got
        frames.append(AN.anatomy(t["games"], t["players"], t["logs"]))
        n = len(t["games"])
        cost.append({"players": name_of(kind, budget), "games": n, "cpu_seconds": round(cpu, 1),
                     "cpu_per_game": round(cpu / n, 4)})
    table = pd.concat(frames).reset_index()
    table["variant"] = [name_of(k, budget) for k in table["variant"]]
    human = pd.DataFrame.from_dict(AN.HUMAN_ANATOMY, orient="index").add_prefix("human_")
    table = table.join(human, on="measure")
    table["human_source"] = np.where(table["human_mean"].notna(), AN.HUMAN_SOURCE, "")
    (out / "tables").mkdir(parents=True, exist_ok=True)
    table.rename(columns={"variant": "players"}).to_csv(out / "tables" / "anatomy.csv",
                                                        index=False)
    pd.DataFrame(cost).to_csv(out / "tables" / "cost.csv", index=False)
    figure(table, out / "anatomy.png")
    (out / "tables" / "anatomy.md").write_text("\n".join(markdown(table)) + "\n")
    return table


SHARES = ("winner_holds_longest", "winner_holds_army", "over_limit_share",
          "sevens_discard_share")


def figure_text(measure: str, mean, lo, hi, n) -> str:
    """``71.9 [71.4, 72.3] (n = 4,000)``; a share as a percentage."""
    if not np.isfinite(mean):
        return "no human figure found"
    k = 100.0 if measure in SHARES else 1.0
    unit = "%" if measure in SHARES else ""
    d = 1 if measure in SHARES else 2
    return f"{k * mean:.{d}f}{unit} [{k * lo:.{d}f}, {k * hi:.{d}f}] (n = {int(n):,})"


def markdown(table: pd.DataFrame) -> list[str]:
    """The anatomy table as Markdown: a row per measure, a column per kind of player and
    one for people."""
    kinds = list(pd.unique(table["variant"]))
    lines = ["| measure | " + " | ".join(f"`{k}`" for k in kinds) + " | people |",
             "|---" * (len(kinds) + 2) + "|"]
    for m, rows in table.groupby("measure", sort=False):
        rows = rows.set_index("variant")
        first = rows.iloc[0]
        cells = [figure_text(m, *rows.loc[k, ["mean", "ci_low", "ci_high", "n"]])
                 for k in kinds]
        human = figure_text(m, first["human_mean"], first["human_ci_low"],
                            first["human_ci_high"], first["human_n"])
        lines.append(f"| {first['label']} | " + " | ".join(cells) + f" | {human} |")
    return lines


def name_of(kind: str, budget: int) -> str:
    return f"search:{budget}" if kind == "search" else kind


COLOURS = ("#d32f2f", "#1e5bd6", "#f08a24", "#444444")  # each kind, then people
FIGURE_MEASURES = ("rolls", "sevens", "discarded", "held_mean", "cities_per_seat",
                   "dev_bought", "trades_player", "trades_bank")


def figure(table: pd.DataFrame, path: Path) -> None:
    plt.switch_backend("Agg")
    fig, axes = plt.subplots(2, 4, figsize=(13, 6), constrained_layout=True)
    kinds = list(pd.unique(table["variant"]))
    for ax, m in zip(axes.flat, FIGURE_MEASURES, strict=True):
        t = table[table["measure"] == m].set_index("variant").reindex(kinds)
        rows = [(k, t.loc[k, "mean"], t.loc[k, "ci_low"], t.loc[k, "ci_high"]) for k in kinds]
        h = t["human_mean"].dropna()
        if len(h):
            first = t.iloc[0]
            rows.append(("people", first["human_mean"], first["human_ci_low"],
                         first["human_ci_high"]))
        for i, (_, mean, lo, hi) in enumerate(rows):
            ax.errorbar([i], [mean], yerr=[[mean - lo], [hi - mean]], fmt="o", capsize=4,
                        color=COLOURS[i % len(COLOURS)])
        ax.set_xticks(range(len(rows)), [r[0] for r in rows], rotation=20)
        ax.set_title(t["label"].iloc[0], fontsize=9, wrap=True)
        ax.grid(axis="y", alpha=0.3)
    fig.suptitle("A game's anatomy by kind of player, with 95% intervals "
                 "(people: 50 games of the lumins Kaggle dataset)", fontsize=10)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=4000, help="games of classic and of default")
    ap.add_argument("--search-games", type=int, default=600, help="games of the search player")
    ap.add_argument("--budget", type=int, default=200, help="the search player's rollouts")
    ap.add_argument("--seed", type=int, default=54_000, help="the first deal's seed")
    ap.add_argument("--chunk", type=int, default=50, help="games a saved chunk")
    ap.add_argument("--kinds", default=",".join(KINDS), help="kinds of player to play")
    ap.add_argument("--out", type=Path, default=Path("results/anatomy"))
    ap.add_argument("--tables-only", action="store_true")
    a = ap.parse_args(argv)
    for name in ("games", "search_games", "budget", "chunk"):
        if getattr(a, name) < 1:
            ap.error(f"--{name.replace('_', '-')}: {getattr(a, name)}; allowed: an integer >= 1")
    kinds = a.kinds.split(",")
    if not set(kinds) <= set(KINDS):
        ap.error(f"--kinds: {a.kinds!r}; allowed: a comma-separated subset of {','.join(KINDS)}")
    data = a.out / "data"
    data.mkdir(parents=True, exist_ok=True)
    if not a.tables_only:
        for kind in kinds:
            play(kind, a.search_games if kind == "search" else a.games, a.seed, a.chunk,
                 a.budget, data)
    tables(a.out, a.games, a.search_games, a.budget)


if __name__ == "__main__":
    main()
