"""Are the review's chances of winning right? Calibration on held-out games.

``catansim analyse`` gives each seat's chance of winning at a position as the share of
rollouts it won (``review.values.timeline_rows``, the same code). Here, at positions of
held-out games (turn starts drawn at random, ``--positions`` a game), those chances are
set against who won the game, for two fields of players:

- ``default``: four ``default`` players, the rollouts' own strategy (the model is right);
- ``mixed``: each seat a preset drawn at random (``MIXED``), the rollouts still
  ``default`` (the model is wrong, as for a log of people).

Three predictors of each seat's win, at each position:

- ``public``: rollouts dealt from one seat's public information (the observer, drawn
  at random a position): what ``catansim analyse`` shows by default;
- ``full``: rollouts from the full state (every hand as the log has it);
- ``visible VP``: a baseline that sees the visible points alone, a logistic regression
  (statsmodels ``Logit``) of winning on the seat's visible points and their share of
  all seats' visible points, fitted on other games of the same field (``--train``).

The Brier score (mean squared error of the predicted probability against the 0/1 win)
of each, with a 95% bootstrap interval over games (``scipy.stats.bootstrap``; the
positions and seats of a game are not independent), and the difference of each from
the baseline, paired game by game. The reliability curve: the predictions cut into
deciles, each decile's mean prediction against the share that won (95% Wilson; the
rows of one game are correlated, so the intervals are somewhat narrow).

Seeds: held-out games ``batch_seeds(61_000 + f)`` and training games
``batch_seeds(62_000 + f)`` (field f), used nowhere else. One process::

    python benchmarks/review_calibration.py --games 400 --train 1000 --rollouts 200 \\
        --out results/analyse
"""

from __future__ import annotations

import argparse
import json
import textwrap
import time
import warnings
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd
import statsmodels.api as sm
from scipy import stats

from catansim.analysis.stats import reliability_table
from catansim.engine import batch_seeds, play_game
from catansim.files import atomic_path, atomic_write_bytes, atomic_write_text
from catansim.logs import game_log
from catansim.logs.position import positions
from catansim.plotting import calibration_figure
from catansim.plotting.style import figure_png
from catansim.review import values as V

MIXED = ("default", "classic", "builder", "city", "expander", "army", "trader")
FIELDS = ("default", "mixed")
PREDICTORS = ("public", "full", "visible VP")
TEST_SEED, TRAIN_SEED = 61_000, 62_000


def seats_of(field: str, rng: np.random.Generator) -> tuple[str, ...]:
    return ("default",) * 4 if field == "default" else tuple(rng.choice(MIXED, 4))


def game_positions(field: str, k: int, seed: int, n_positions: int):
    """A game of the field, its log and ``n_positions`` turn starts drawn at random."""
    rng = np.random.default_rng([seed, 1])
    played = play_game(int(seed), 4, list(seats_of(field, rng)), log=True)
    header, events = game_log(played)
    starts = [i for i, ev in enumerate(events) if ev["e"] == "turn_start"]
    ats = sorted(rng.choice(starts, min(n_positions, len(starts)), replace=False).tolist())
    return played, header, events, ats, rng


def visible_rows(pos, winner) -> list[dict]:
    """Each seat's visible points at a position, and whether it won the game."""
    vp = [v["total"] - v["vp_cards"] for v in pos.state.vp]
    total = max(sum(vp), 1)
    return [{"turn": pos.turn, "seat": q, "vp": vp[q], "vp_share": vp[q] / total,
             "won": int(winner == q)} for q in range(len(vp))]


def train_rows(field: str, n_games: int, n_positions: int, f: int) -> pd.DataFrame:
    rows = []
    for k, seed in enumerate(batch_seeds(TRAIN_SEED + f, n_games)):
        played, header, events, ats, _ = game_positions(field, k, seed, n_positions)
        for pos in positions(header, events, ats):
            rows += visible_rows(pos, played.winner)
    return pd.DataFrame(rows)


def test_rows(field: str, n_games: int, n_positions: int, rollouts: int, f: int,
              counts: Counter) -> pd.DataFrame:
    rows = []
    for k, seed in enumerate(batch_seeds(TEST_SEED + f, n_games)):
        played, header, events, ats, rng = game_positions(field, k, seed, n_positions)
        for pos in positions(header, events, ats):
            observer = int(rng.integers(4))
            chances = {}
            for name, who in (("public", observer), ("full", -1)):
                spec = V.Spec(header, events, observer if who >= 0 else 0, who, (), rollouts,
                              8, 8, "default", int(seed))
                chances[name] = {r["seat"]: r["win"] for r in V.timeline_rows(pos, spec,
                                                                               counts)}
            for row in visible_rows(pos, played.winner):
                q = row["seat"]
                rows.append({"field": field, "game": k, "seed": int(seed), **row,
                             "observer": observer, "public": chances["public"][q],
                             "full": chances["full"][q]})
    return pd.DataFrame(rows)


def fit_baseline(train: pd.DataFrame):
    x = sm.add_constant(train[["vp", "vp_share"]].astype(float))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return sm.Logit(train["won"].astype(float), x).fit(disp=0)


def brier_table(test: pd.DataFrame) -> pd.DataFrame:
    """Each predictor's Brier score, and its difference from the baseline paired game by
    game, with 95% bootstrap intervals over games."""
    rows = []
    for field, t in test.groupby("field", sort=False):
        per_game = {p: ((t[p] - t["won"]) ** 2).groupby(t["game"]).mean().to_numpy()
                    for p in PREDICTORS}
        base = per_game["visible VP"]
        for p in PREDICTORS:
            ci = stats.bootstrap((per_game[p],), np.mean, n_resamples=4999,
                                 random_state=np.random.default_rng(1)).confidence_interval
            row = {"field": field, "predictor": p, "brier": per_game[p].mean(),
                   "ci_low": ci.low, "ci_high": ci.high, "games": len(base), "rows": len(t)}
            if p != "visible VP":
                diff = stats.bootstrap((per_game[p], base), lambda a, b: np.mean(a - b),
                                       paired=True, n_resamples=4999,
                                       random_state=np.random.default_rng(2))
                row |= {"minus_baseline": float(np.mean(per_game[p] - base)),
                        "diff_low": diff.confidence_interval.low,
                        "diff_high": diff.confidence_interval.high}
            rows.append(row)
    return pd.DataFrame(rows)


def _brier_text(r) -> str:
    return f"{r['brier']:.4f} [{r['ci_low']:.4f}, {r['ci_high']:.4f}]"


def readme(out: Path) -> str:
    """The folder's README, from its tables (``brier.csv``, ``settings.json``)."""
    brier = pd.read_csv(out / "brier.csv")
    st = json.loads((out / "settings.json").read_text())
    lines = [
        "# Are the review's chances of winning right?",
        "",
        "Calibration of `catansim analyse`'s chances of winning (`docs/analyse.md`) on "
        "held-out games, against a baseline that sees the visible points alone. Rebuild "
        "(one process, about "
        f"{st['cpu_seconds'] / 60:.0f} CPU minutes):",
        "",
        "```",
        f"python benchmarks/review_calibration.py --games {st['games']} --train "
        f"{st['train']} --positions {st['positions']} --rollouts {st['rollouts']} "
        f"--out {st['out']}",
        "```",
        "",
        f"{st['games']} held-out games a field (seeds `batch_seeds({st['test_seed']} + f)`, "
        f"used nowhere else), {st['positions']} turn starts drawn at random in each, each "
        f"seat's chance predicted with {st['rollouts']} rollouts of `default`: from one "
        "seat's public information (the observer drawn at random; what the command shows "
        "by default) and from the full state. The baseline is a logistic regression of "
        "winning on the seat's visible points and their share of the visible points, "
        f"fitted on {st['train']} other games of the field (seeds `batch_seeds("
        f"{st['train_seed']} + f)`). Fields: `default`, four `default` players (the "
        "rollouts' own strategy); `mixed`, each seat a preset drawn from "
        f"{', '.join(st['mixed'])} (the rollouts still `default`).",
        "",
        "Brier score (mean squared error of the chance against the 0/1 win; lower is "
        "better; 95% bootstrap interval over games, `scipy.stats.bootstrap`), and each "
        "predictor less the baseline, paired game by game:",
        "",
        "| field | predictor | Brier | less the baseline | games | seat-positions |",
        "|---|---|---|---|---|---|",
    ]
    for _, r in brier.iterrows():
        diff = ("" if pd.isna(r.get("minus_baseline")) else
                f"{r['minus_baseline']:+.4f} [{r['diff_low']:+.4f}, {r['diff_high']:+.4f}]")
        lines.append(f"| {r['field']} | {r['predictor']} | {_brier_text(r)} | {diff} | "
                     f"{int(r['games'])} | {int(r['rows']):,} |")
    lines += [
        "",
        "The reliability curves (`calibration-default.png`, `calibration-mixed.png`; "
        "`reliability.csv`): each predictor's predictions cut into deciles, the mean "
        "prediction against the share that won, with 95% Wilson intervals (the rows of a "
        "game are correlated: the intervals are somewhat narrow).",
        "",
        "![default field](calibration-default.png)",
        "![mixed field](calibration-mixed.png)",
        "",
        "Files: `brier.csv`, `reliability.csv`, `predictions.csv.gz` (every seat-position: "
        "the game, turn, seat, observer, visible points, the three predictions and the "
        "win), `settings.json` (the run's settings, the baseline's coefficients, the "
        "rollouts played and the CPU seconds). `viewer-timeline.png`: the viewer with a "
        "review's timeline (docs/viewer.md).",
        "",
    ]
    return "\n".join(line if line[:1] in ("|", "!", "`", "#") or line.startswith("python")
                     else textwrap.fill(line, 88) for line in lines)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=400, help="held-out games per field")
    ap.add_argument("--train", type=int, default=1000, help="baseline's games per field")
    ap.add_argument("--positions", type=int, default=4, help="positions a game")
    ap.add_argument("--rollouts", type=int, default=200, help="rollouts a position")
    ap.add_argument("--out", type=Path, default=Path("results/analyse"))
    ap.add_argument("--readme", action="store_true",
                    help="only write the README from the tables in --out")
    args = ap.parse_args(argv)
    if args.readme:
        atomic_write_text(args.out / "README.md", readme(args.out))
        return
    args.out.mkdir(parents=True, exist_ok=True)
    start, counts, tests = time.process_time(), Counter(), []
    fits = {}
    for f, field in enumerate(FIELDS):
        fit = fit_baseline(train_rows(field, args.train, args.positions, f))
        fits[field] = {k: round(float(v), 4) for k, v in fit.params.items()}
        test = test_rows(field, args.games, args.positions, args.rollouts, f, counts)
        x = sm.add_constant(test[["vp", "vp_share"]].astype(float), has_constant="add")
        test["visible VP"] = fit.predict(x)
        tests.append(test)
        print(f"{field}: {len(test)} rows, {time.process_time() - start:.0f} CPU s so far",
              flush=True)
    test = pd.concat(tests, ignore_index=True)
    brier = brier_table(test)
    rel = pd.concat({(field, p): reliability_table(t[p], t["won"])
                     for field, t in test.groupby("field", sort=False) for p in PREDICTORS},
                    names=["field", "predictor"]).reset_index()
    cpu = time.process_time() - start
    with atomic_path(args.out / "predictions.csv.gz") as tmp:
        test.round(4).to_csv(tmp, index=False, compression="gzip")
    atomic_write_text(args.out / "brier.csv", brier.round(5).to_csv(index=False))
    atomic_write_text(args.out / "reliability.csv", rel.drop(columns="method").round(4)
                      .to_csv(index=False))
    for field, t in rel.groupby("field", sort=False):
        figs = {p: r.reset_index(drop=True) for p, r in t.groupby("predictor", sort=False)}
        n = int(test["field"].eq(field).sum())
        fig = calibration_figure(figs, f"Chances of winning, held out: {field} field",
                                 f"n = {n:,} seat-positions of {args.games} games "
                                 f"({args.positions} turn starts a game), {args.rollouts} "
                                 "rollouts a position; deciles of each predictor; 95% "
                                 "Wilson", width=6.0)
        atomic_write_bytes(args.out / f"calibration-{field}.png", figure_png(fig))
    given = {k: v for k, v in vars(args).items() if k != "readme"}
    settings = {**given, "out": str(args.out), "test_seed": TEST_SEED,
                "train_seed": TRAIN_SEED, "mixed": MIXED, "baseline": fits,
                "rollouts_played": int(counts["rollouts"]), "cpu_seconds": round(cpu, 1)}
    atomic_write_text(args.out / "settings.json", json.dumps(settings, indent=1) + "\n")
    atomic_write_text(args.out / "README.md", readme(args.out))
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(brier.round(4).to_string(index=False))
    print(f"{cpu:.0f} CPU s")


if __name__ == "__main__":
    main()
