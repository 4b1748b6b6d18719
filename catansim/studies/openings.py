"""Study ``openings``: the value of starting positions, measured by forced play.

Every experiment of ``experiments/openings/`` (package data) sweeps forced openings
(``[sweep]``): each arm forces one seat's first or second settlement (or both) onto a node
and replays the baseline's games (same board, dice, deck and decisions), so a node's value
is a paired difference in win probability against what the strategy would have chosen.

- ``beginner4``, ``beginner3``: the beginner map (its printed pieces left out), every
  seat's first settlement on every node, 4 and 3 players;
- ``beginner4_second``: every seat's second settlement, the first left to the strategy;
- ``beginner4_pairs``: both settlements of seats 0 and 3 (the first pick and the last
  seat's double pick) over the best nodes;
- ``boards``: the first-settlement map of the variable boards ``variable:1`` ..
  ``variable:100`` (one dataset each), for the ranking of the scripted placement and the
  cross-board win model (fitted on two thirds of the boards, checked on the rest).

``build`` plays them (resumable, into ``out/data/``), analyses them
(``analysis.openings``), and writes the report, tables, figures and README.
"""

from __future__ import annotations

import json
import pickle
import time
import tomllib
from pathlib import Path

import numpy as np
import pandas as pd

from . import Study

NAME = "openings"
TITLE = "The value of starting positions"
BOARD_SEEDS = tuple(range(1, 101))
BEGINNER = ("beginner4", "beginner3", "beginner4_second", "beginner4_pairs")
# scale "small": a few games, every 9th node, three boards (tests and CI)
SMALL_GAMES = 40
SMALL_NODES = list(range(0, 54, 9))
SMALL_BOARDS = (1, 2, 3)
SMALL_PAIR_NODES = 4
HELD_OUT = 3  # board k is held out of the win model's fit when k % 3 == 0
CACHE_VERSION = 1
# The published figures the study is compared with (the "what we know now").
PUBLISHED = {
    "min_income": 0.67, "same_hex": -0.98, "harbor_any": -1.16,
}
PUBLISHED_SOURCE = ("a linear fit of opening values in the line of work of Guhe and "
                    "Lascarides, 'Game strategies for The Settlers of Catan' (CIG 2014)")
QUICKSTART = {"r": 0.045, "le18": 0.209, "18_20": 0.243, "20_22": 0.264, "22_24": 0.293,
              "best_seat": 0.272, "worst_seat": 0.215}


# --- the experiments -------------------------------------------------------------------------


def experiment(name: str, scale: str = "full", board: int | None = None):
    """The ``Experiment`` of one study file at a scale (``board``: the seed of a variable
    board for ``boards``), as ``build`` plays it."""
    from ..runs.experiment import parse_experiment

    path = STUDY.experiment_file(name)
    text = path.read_text()
    data = tomllib.loads(text)
    notes = []
    if name == "boards":
        k = BOARD_SEEDS[0] if board is None else int(board)
        data.update(name=f"board{k:03d}", board=f"variable:{k}", seed=int(data["seed"]) + k)
        notes.append(f"board = \"variable:{k}\", seed = {data['seed']}, name = {data['name']!r}")
    if scale == "small":
        data.update(games=SMALL_GAMES, batch_size=SMALL_GAMES)
        sweeps = data["sweep"] if isinstance(data["sweep"], list) else [data["sweep"]]
        for sw in sweeps:
            nodes = sw.get("nodes", "all")
            sw["nodes"] = (SMALL_NODES if nodes == "all"
                           else nodes[:SMALL_PAIR_NODES])
        notes.append(f"scale small: games = {SMALL_GAMES}, fewer nodes")
    if notes:
        text += "\n# set by catansim study openings: " + "; ".join(notes) + "\n"
    return parse_experiment(data, path=path, text=text)


def _runs_log(data_dir: Path) -> dict:
    p = data_dir / "runs.json"
    return json.loads(p.read_text()) if p.exists() else {}


def run(exp, root: Path, data_dir: Path, scheduler=None, progress: bool = True):
    """Run (or resume) one experiment into ``root``; the games and time it took are added
    to ``data_dir/runs.json`` (summed over the invocations that played games)."""
    import resource

    from ..files import atomic_write_text
    from ..runs.runner import run_experiment

    cpu = resource.getrusage(resource.RUSAGE_SELF)
    t0 = time.time()
    rep = run_experiment(exp, out=root, scheduler=scheduler, progress=progress)
    cpu2 = resource.getrusage(resource.RUSAGE_SELF)
    log = _runs_log(data_dir)
    entry = log.get(exp.name, {"games_played": 0, "seconds": 0.0, "cpu_seconds": 0.0,
                               "invocations": 0})
    if rep.games_written:
        entry["games_played"] += rep.games_written
        entry["seconds"] += rep.seconds
        entry["cpu_seconds"] += (cpu2.ru_utime - cpu.ru_utime) + (cpu2.ru_stime - cpu.ru_stime)
        entry["invocations"] += 1
        entry["last"] = time.strftime("%Y-%m-%d %H:%M", time.localtime(t0))
    entry.update(variants=len(exp.variants), games_per_variant=exp.games,
                 games=len(exp.variants) * exp.games, parts=rep.parts_total)
    log[exp.name] = entry
    data_dir.mkdir(parents=True, exist_ok=True)
    atomic_write_text(data_dir / "runs.json", json.dumps(log, indent=2) + "\n")
    return rep


def datasets(out: Path, scale: str):
    """(name, Experiment, dataset folder) of every run of the study, in playing order."""
    data = Path(out) / "data"
    items = [(n, experiment(n, scale), data / n) for n in BEGINNER]
    boards = SMALL_BOARDS if scale == "small" else BOARD_SEEDS
    for k in boards:
        exp = experiment("boards", scale, board=k)
        items.append((exp.name, exp, data / "boards" / exp.name))
    return items


# --- analyses, cached per dataset ---------------------------------------------------------


def values(root: Path, scheduler=None) -> dict:
    """``analysis.openings.opening_values`` of a dataset, cached beside it (a complete
    dataset never changes; the cache is keyed by its result hash and parts)."""
    from ..analysis import openings as AO
    from ..files import atomic_write_bytes
    from ..results import dataset as D

    manifest = D.read_manifest(root)
    key = [CACHE_VERSION, manifest.get("result_hash"), sorted(D.read_records(root))]
    cache = root / "openings-values.pkl"
    if cache.exists():
        try:
            with open(cache, "rb") as fh:
                stored = pickle.load(fh)
            if stored["key"] == key:
                return stored["values"]
        except (OSError, pickle.UnpicklingError, KeyError, EOFError):
            pass
    out = AO.opening_values(root, scheduler=scheduler)
    atomic_write_bytes(cache, pickle.dumps({"key": key, "values": out}))
    return out


def _mean_ci(x) -> dict:
    from statsmodels.stats.weightstats import DescrStatsW

    x = np.asarray(x, dtype=float)
    x = x[np.isfinite(x)]
    if x.size < 2:
        return {"n": int(x.size), "mean": float(x.mean()) if x.size else np.nan,
                "ci_low": np.nan, "ci_high": np.nan}
    d = DescrStatsW(x)
    lo, hi = d.tconfint_mean()
    return {"n": int(x.size), "mean": float(d.mean), "sd": float(d.std), "ci_low": float(lo),
            "ci_high": float(hi)}


def board_summary(place: pd.DataFrame) -> pd.DataFrame:
    """Across boards, per seat: how the scripted first settlement ranks and what it leaves.

    ``place``: ``analysis.openings.placement`` rows of every board with a ``board`` column.
    Means over boards carry 95% t intervals (boards as the replicates: statsmodels
    DescrStatsW); shares of boards 95% Wilson intervals.
    """
    from ..analysis import stats as S

    rows = []
    for seat, t in place.groupby("seat"):
        g, b = _mean_ci(t["gain"]), _mean_ci(t["best_diff"])
        m = _mean_ci(t["mean_alt_diff"]) if "mean_alt_diff" in t else _mean_ci([])
        q = _mean_ci(t["share_better"]) if "share_better" in t else _mean_ci([])
        top = int((t["rank"] == 1).sum())
        worse = int((t["n_better"] >= 1).sum())
        n = len(t)
        lo1, hi1 = S.wilson_ci(top, n)
        lo2, hi2 = S.wilson_ci(worse, n)
        rows.append({
            "seat": seat, "boards": n, "mean_rank": float(t["rank"].mean()),
            "median_rank": float(t["rank"].median()),
            "alternatives": float(t["alternatives"].median()),
            "own_choice_best": top / n, "own_best_ci_low": lo1[0], "own_best_ci_high": hi1[0],
            "some_node_better": worse / n, "better_ci_low": lo2[0], "better_ci_high": hi2[0],
            "mean_n_better": float(t["n_better"].mean()),
            "mean_gain": g["mean"], "gain_ci_low": g["ci_low"], "gain_ci_high": g["ci_high"],
            "gain_sd": g.get("sd", np.nan), "median_gain": float(t["gain"].median()),
            "mean_best_diff": b["mean"], "best_ci_low": b["ci_low"], "best_ci_high": b["ci_high"],
            "mean_alt_diff": m["mean"], "alt_ci_low": m["ci_low"], "alt_ci_high": m["ci_high"],
            "mean_share_better": q["mean"], "share_ci_low": q["ci_low"],
            "share_ci_high": q["ci_high"],
            "games_per_node": int(t["gain_n"].max()),
            "method": ("means over boards: t interval (statsmodels DescrStatsW); shares of "
                       "boards: Wilson; gain: chosen on half the games, measured on the other; "
                       "best_diff: the best-looking node on all games (biased upward); "
                       "mean_alt_diff: the mean value of the free alternatives against the own "
                       "choice (no selection, unbiased); mean_share_better: the share of them "
                       "that look better (noise pulls it towards one half)")})
    return pd.DataFrame(rows).set_index("seat")


def alternatives_mean(arms: pd.DataFrame, place: pd.DataFrame,
                      min_legal: float = 0.5) -> pd.DataFrame:
    """Per seat and kind of one board: the mean paired value of the free alternatives
    against the own choice (``mean_alt_diff``, unbiased: no node is selected) and the
    share of them that look better (``share_better``, the own choice's percentile).

    ``place``: ``analysis.openings.placement`` of the same board (its ``choice_node``)."""
    rows = []
    for r in place.itertuples():
        t = arms[(arms["seat"] == r.seat) & (arms["kind"] == r.kind)
                 & (arms["legal_share"] >= min_legal) & (arms["node"] != r.choice_node)]
        rows.append({"seat": r.seat, "kind": r.kind,
                     "mean_alt_diff": float(t["diff"].mean()) if len(t) else np.nan,
                     "share_better": float((t["diff"] > 0).mean()) if len(t) else np.nan})
    return pd.DataFrame(rows, columns=["seat", "kind", "mean_alt_diff", "share_better"])


def model_choice(rows: pd.DataFrame, predicted, test, board_values: dict,
                 min_legal: float = 0.5) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The win model as a placement rule, checked on the held-out boards.

    On each held-out board (``test`` rows of ``rows``) and seat, the candidates are the
    strategy's own first settlement (the baseline) and the first-settlement arms of the
    nodes free at the seat's turn; the rule picks the one whose forced seat has the
    highest fitted win probability (``predicted``: the model fitted on the other
    boards, so the pick uses no outcome of this board), and is scored by that arm's
    paired difference on all of the board's games (0 when it keeps the own choice).
    Returns (per board and seat, per seat over the boards with 95% t intervals)."""
    from ..results.schema import DEFAULT_VARIANT

    r = rows.assign(p_hat=np.asarray(predicted))[np.asarray(test, dtype=bool)]
    r = r.assign(pw=r["p_hat"] * r["seat_games"])
    agg = r.groupby(["group", "variant", "seat"])[["pw", "seat_games"]].sum()
    agg["p_hat"] = agg["pw"] / agg["seat_games"]
    picks = []
    for k in sorted(r["group"].unique()):
        arms = board_values[int(k)]["arms"]
        for seat in sorted(arms["seat"].unique()):
            cand = arms[(arms["seat"] == seat) & (arms["kind"] == "first")
                        & (arms["legal_share"] >= min_legal)]
            scores = {DEFAULT_VARIANT: agg.loc[(k, DEFAULT_VARIANT, seat), "p_hat"]}
            for v in cand.index:
                if (k, v, seat) in agg.index:
                    scores[v] = agg.loc[(k, v, seat), "p_hat"]
            pick = max(scores, key=lambda v: (scores[v], v == DEFAULT_VARIANT))
            own = pick == DEFAULT_VARIANT
            picks.append({
                "board": int(k), "seat": int(seat), "pick": pick,
                "node": -1 if own else int(arms.loc[pick, "node"]),
                "predicted": float(scores[pick]),
                "predicted_own": float(scores[DEFAULT_VARIANT]),
                "diff": 0.0 if own else float(arms.loc[pick, "diff"]),
                "ci_low": 0.0 if own else float(arms.loc[pick, "ci_low"]),
                "ci_high": 0.0 if own else float(arms.loc[pick, "ci_high"]),
                "n": int(arms["n"].max()), "candidates": len(scores)})
    picks = pd.DataFrame(picks)
    summary = []
    for seat, t in picks.groupby("seat"):
        m = _mean_ci(t["diff"])
        summary.append({"seat": seat, "boards": m["n"], "mean_diff": m["mean"],
                        "ci_low": m["ci_low"], "ci_high": m["ci_high"],
                        "keeps_own_choice": float((t["pick"] == DEFAULT_VARIANT).mean()),
                        "method": "pick by the win model fitted on the other boards; paired "
                                  "difference of the pick on the board's games; mean over "
                                  "held-out boards with a t interval (statsmodels)"})
    return picks, pd.DataFrame(summary).set_index("seat") if summary else pd.DataFrame()


def model_rows(board_values: dict) -> pd.DataFrame:
    """The win model's rows of every board (``analysis.openings.opening_rows``)."""
    from ..analysis import openings as AO
    from ..board import make_board

    frames = []
    for k, v in board_values.items():
        frames.append(AO.opening_rows(v["tallies"], make_board("variable", k), group=k))
    return pd.concat(frames, ignore_index=True)


def published_comparison(coef: pd.DataFrame) -> pd.DataFrame:
    """Our estimates beside the published weights of the same features."""
    from ..analysis.openings import FEATURE_LABELS

    rows = []
    for term, w in PUBLISHED.items():
        if term not in coef.index:  # no variation among the training rows: left out
            rows.append({"feature": term, "label": FEATURE_LABELS[term], "published_weight": w,
                         "same_sign": False, "sign_certain": False, "source": PUBLISHED_SOURCE})
            continue
        r = coef.loc[term]
        rows.append({
            "feature": term, "label": r["label"], "published_weight": w,
            "logit_coef": r["coef"], "logit_ci_low": r["ci_low"], "logit_ci_high": r["ci_high"],
            "points_per_unit": 100 * r["lpm"], "points_ci_low": 100 * r["lpm_ci_low"],
            "points_ci_high": 100 * r["lpm_ci_high"],
            "same_sign": bool(np.sign(r["coef"]) == np.sign(w)),
            "sign_certain": bool(r["ci_low"] > 0 or r["ci_high"] < 0),
            "source": PUBLISHED_SOURCE})
    return pd.DataFrame(rows).set_index("feature")


# --- the build ------------------------------------------------------------------------------


def build(out, scale: str = "full", scheduler=None, progress: bool = True) -> Path:
    """Run every experiment of the study (resumable), analyse them, write the report."""
    from ..errors import CatansimError
    from ..studies import SCALES

    if scale not in SCALES:
        raise CatansimError(f"--scale: {scale!r} is not allowed; allowed: {', '.join(SCALES)}")
    out = Path(out)
    data = out / "data"
    for sub in ("", "tables", "figures", "data"):
        (out / sub).mkdir(parents=True, exist_ok=True)
    items = datasets(out, scale)
    for _, exp, root in items:
        run(exp, root, data, scheduler=scheduler, progress=progress)
    t0 = time.perf_counter()
    vals = {name: values(root, scheduler) for name, _, root in items}
    results = analyse(vals, items)
    results["analysis_seconds"] = time.perf_counter() - t0
    results["runs"] = runs_table(data, items)
    from ..results import dataset as D

    results["engine"] = D.read_manifest(items[0][2]).get("engine_fingerprint", "unknown")
    return write_outputs(out, results, scale, items)


def analyse(vals: dict, items) -> dict:
    """Every table the report shows, from the per-dataset ``opening_values``."""
    from ..analysis import openings as AO

    res: dict = {"values": vals}
    res["place"] = {n: AO.placement(vals[n]) for n in BEGINNER if n != "beginner4_pairs"}
    res["seats"] = {n: AO.seat_interaction(vals[n]["arms"]) for n in ("beginner4", "beginner3")}
    boards = {int(exp.board_spec.split(":")[1]): vals[name] for name, exp, _ in items
              if name.startswith("board")}
    res["board_values"] = boards
    place = []
    inter = []
    for k, v in boards.items():
        p = AO.placement(v).reset_index()
        p.insert(0, "board", k)
        p = p.merge(alternatives_mean(v["arms"], p), on=["seat", "kind"], how="left")
        place.append(p)
        si = AO.seat_interaction(v["arms"])
        if len(si["test"]):
            r = si["test"].reset_index().iloc[0].to_dict()
            rho = si["correlation"]
            # the fitted interaction of 80-game cells is mostly sampling noise: take out
            # its expected share (the cells' binomial variance x df / cells)
            a = v["arms"][v["arms"]["kind"] == "first"]
            noise = float((a["win_rate"] * (1 - a["win_rate"]) / a["n"]).mean()
                          * r["df"] / (r["n_nodes"] * r["n_seats"]))
            r["interaction_sd_net"] = float(np.sqrt(max(r["interaction_sd"] ** 2 - noise, 0)))
            r.update(board=k, rho_0_last=float(rho.iloc[0, len(rho) - 2]),
                     rho_mean=float(np.nanmean(rho.drop(columns="n").to_numpy()[
                         ~np.eye(len(rho), dtype=bool)])))
            inter.append(r)
    res["board_place"] = pd.concat(place, ignore_index=True)
    res["board_summary"] = board_summary(res["board_place"])
    inter = pd.DataFrame(inter)
    if len(inter):
        from ..analysis import stats as S

        inter["p_adjusted"], inter["significant"] = S.adjust(inter["p_value"], "holm")
    res["board_interaction"] = inter
    rows = model_rows(boards)
    test = (rows["group"].astype(int) % HELD_OUT == 0).to_numpy()
    if test.all() or not test.any():
        test = np.zeros(len(rows), dtype=bool)
    res["model_rows"] = rows
    res["model"] = AO.fit_opening_model(rows, AO.FEATURES, test=test)
    res["model_resources"] = AO.fit_opening_model(
        rows, [f for f in AO.FEATURES if f != "pips"] + list(AO.RESOURCE_FEATURES), test=test)
    res["published"] = published_comparison(res["model"]["coefficients"])
    if test.any():
        res["model_picks"], res["model_choice"] = model_choice(
            rows, res["model"]["predicted"], test, boards)
    else:
        res["model_picks"], res["model_choice"] = pd.DataFrame(), pd.DataFrame()
    res["held_out_boards"] = sorted(int(g) for g in rows.loc[test, "group"].unique())
    return res


def runs_table(data: Path, items) -> pd.DataFrame:
    """Games and time of every run (``data/runs.json``), one row per experiment file."""
    log = _runs_log(data)
    rows = []
    for name, exp, _ in items:
        e = log.get(exp.name, {})
        group = "boards" if name.startswith("board") else name
        rows.append({"experiment": group, "dataset": exp.name, "variants": len(exp.variants),
                     "games_per_variant": exp.games, "games": len(exp.variants) * exp.games,
                     "seconds": e.get("seconds", np.nan), "cpu_seconds": e.get("cpu_seconds",
                                                                                np.nan),
                     "games_played_timed": e.get("games_played", 0)})
    t = pd.DataFrame(rows)
    g = t.groupby("experiment", sort=False).agg(
        datasets=("dataset", "size"), variants=("variants", "sum"),
        games_per_variant=("games_per_variant", "max"), games=("games", "sum"),
        seconds=("seconds", "sum"), cpu_seconds=("cpu_seconds", "sum"),
        games_played_timed=("games_played_timed", "sum"))
    g["games_per_second"] = g["games_played_timed"] / g["seconds"].where(g["seconds"] > 0)
    g["games_per_cpu_second"] = g["games_played_timed"] / g["cpu_seconds"].where(
        g["cpu_seconds"] > 0)
    return g


def write_outputs(out: Path, res: dict, scale: str, items) -> Path:
    from . import _openings_report as R

    return R.write(out, res, scale, items, TITLE)


STUDY = Study(name=NAME, title=TITLE, build=build,
              description="forced-opening sweeps: value maps of the beginner map and of 100 "
                          "variable boards, the scripted placement's rank, a win model of "
                          "opening features")
