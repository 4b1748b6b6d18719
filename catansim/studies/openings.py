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

import contextlib
import json
import pickle
import resource
import tempfile
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ..analysis import openings as AO
from ..analysis import stats as S
from ..analysis.openings import FEATURE_LABELS
from ..analysis.stats import METHOD_NAMES
from ..board import make_board
from ..board.metrics import node_table
from ..errors import CatansimError
from ..files import atomic_write_bytes, atomic_write_text
from ..results import dataset as D
from ..results.schema import DEFAULT_VARIANT
from ..runs.experiment import Experiment, parse_experiment
from ..runs.runner import RunReport, run_experiment
from ..strategies import PRESETS
from ..tunables import DEFAULT_BATCH_SIZE
from . import SCALES, Study
from . import _openings_report as R

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
# The published figures the study is compared with (the issue's "what we know now").
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


# --- one board's openings: the API of ``catansim openings`` -------------------------------


def value_map_experiment(board: str, label: str, players: int, seats, settlement: int,
                         games: int, strategies, game_seed: int = 0, config=None) -> Experiment:
    """The experiment that measures a board's openings: the baseline, then every node of
    every seat in ``seats`` with that seat's ``settlement`` (1 or 2) forced there.

    ``board`` is an experiment's board value (``beginner``, ``LAYOUT:SEED`` or a board
    file); ``label`` describes it; ``strategies`` one name per seat; ``config`` is a
    TOML file of more strategies.
    """
    spec = {
        "name": "openings", "games": games, "players": players, "seed": game_seed,
        "board": board, "strategies": list(strategies),
        "batch_size": min(games, DEFAULT_BATCH_SIZE),  # games may exceed a part's limit
        "description": f"catansim openings: {label}",
        "sweep": {"seat": list(seats), "settlement": int(settlement), "nodes": "all"}}
    if config is not None:
        spec["strategy_defs"] = str(Path(config).resolve())
    return parse_experiment(spec, path=None)


@dataclass
class OpeningMap:
    """What every starting intersection of one board is worth, seat by seat.

    ``values``: ``analysis.openings.opening_values`` of the games (``values["arms"]``
    is the value map, one row per node and seat); ``experiment`` the sweep played;
    ``run`` the runner's report; the seconds of playing (wall and CPU) and of the
    analysis.
    """
    experiment: Experiment
    label: str
    values: dict
    run: RunReport
    played_seconds: float
    played_cpu_seconds: float
    analysed_seconds: float

    @property
    def arms(self) -> pd.DataFrame:
        return self.values["arms"]

    @property
    def kind(self) -> str:
        """``first`` or ``second``: the settlement the arms force."""
        kinds = self.arms["kind"].unique()
        return str(kinds[0]) if len(kinds) else "first"

    def best(self, seat: int, top: int = 8) -> pd.DataFrame:
        """``best_openings`` of one seat on this board."""
        return best_openings(self.values, self.experiment.board, seat, top)

    def summary(self, seat: int) -> dict | None:
        """``seat_summary`` of one seat."""
        return seat_summary(self.values, seat)

    def figure(self):
        """The value map on the board (a matplotlib Figure)."""
        from ..plotting.openings import value_map_figure  # noqa: PLC0415  matplotlib: seconds

        return value_map_figure(self.arms, self.experiment.board, kind=self.kind,
                                n_players=self.experiment.players,
                                title=f"Value of each {self.kind} settlement: {self.label}")


def measure_openings(board: str = "beginner", *, label: str | None = None, players: int = 4,
                     seats=None, settlement: int = 1, games: int = 2000,
                     strategies="default", game_seed: int = 0, config=None, data=None,
                     threads: int | None = None, progress: bool = True) -> OpeningMap:
    """Play a board's forced-opening sweep and measure every node's value, seat by seat.

    ``board``: ``"beginner"`` (the beginner map, its printed pieces left out),
    ``"LAYOUT:SEED"`` or a board file; ``seats``: the seats to map (default all);
    ``settlement``: 1 forces the first settlement, 2 the second (the first left to the
    strategy); ``games``: paired games per node and seat; ``strategies``: one name or
    one per seat (``config``: a TOML file of more); ``data``: keep the games in this
    dataset folder (resumable), else a temporary folder.
    """
    strategy_set = PRESETS if config is None else PRESETS.with_definitions(config, "config")
    names = strategy_set.seat_names(strategies, players, "strategies")
    seats = list(range(players)) if seats is None else list(seats)
    exp = value_map_experiment(board, label or board, players, seats, settlement, games,
                               names, game_seed, config)
    return play_openings(exp, label or board, data=data, threads=threads, progress=progress)


def play_openings(exp: Experiment, label: str, data=None, threads: int | None = None,
                  progress: bool = True) -> OpeningMap:
    """Play (or resume, in ``data``) the sweep of ``value_map_experiment`` and analyse it."""
    with contextlib.ExitStack() as stack:
        if data is None:
            root = Path(stack.enter_context(
                tempfile.TemporaryDirectory(prefix="catansim-openings-")))
        else:
            root = Path(data)
        cpu0 = _cpu_seconds()
        t0 = time.perf_counter()
        rep = run_experiment(exp, out=root, n_threads=threads, progress=progress)
        played = time.perf_counter() - t0
        cpu = _cpu_seconds() - cpu0
        t1 = time.perf_counter()
        values = AO.opening_values(root)
        analysed = time.perf_counter() - t1
    return OpeningMap(exp, label, values, rep, played, cpu, analysed)


def _cpu_seconds() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def seat_summary(values: dict, seat: int) -> dict | None:
    """One seat's line: the strategy's own node and its win rate, its rank among the nodes
    free at the seat's turn, the nodes significantly better and worse (after the
    correction), and the significant nodes that were not free; ``None`` for a seat
    without arms."""
    arms = AO.verdicts(values)
    u = arms[arms["seat"] == seat]
    if not len(u):
        return None
    kind = u["kind"].iloc[0]
    place = AO.placement(values)
    p = place.loc[(seat, kind)] if (seat, kind) in place.index else None
    taken = u["verdict"].value_counts()
    return {"seat": seat, "kind": kind, "own_node": int(p["choice_node"]) if p is not None
            else -1, "base_win_rate": float(u["base_win_rate"].iloc[0]),
            "games": int(u["n"].iloc[0]), "placed": p is not None,
            "rank": int(p["rank"]) if p is not None else None,
            "free_nodes": int(p["alternatives"]) + 1 if p is not None else None,
            "n_better": int(p["n_better"]) if p is not None else None,
            "n_worse": int(p["n_worse"]) if p is not None else None,
            "correction": METHOD_NAMES[values["correction"]],
            "not_free": {w.split(",")[0]: int(taken[w]) for w in
                         ("better, not free", "worse, not free") if taken.get(w, 0)}}


def best_openings(values: dict, board, seat: int, top: int = 8) -> pd.DataFrame:
    """The ``top`` nodes of one seat by value, as ``catansim openings`` prints them: the
    node's hexes, pips and harbor, the win rate [95% Wilson interval], the paired
    difference against the strategy's own choice in points [95% t interval] with ``*``
    when significant after correction at a node free at the seat's turn (``**`` at a
    node not free: forced openings are reserved, so it is no alternative), and whether
    the node is the own choice."""
    arms = AO.verdicts(values)
    u = arms[arms["seat"] == seat]
    s = seat_summary(values, seat)
    nodes = node_table(board)
    rows = []
    for _, r in u.sort_values("diff", ascending=False).head(top).iterrows():
        nd = nodes.loc[int(r["node"])]
        rows.append({
            "node": int(r["node"]),
            "hexes": " ".join(f"{res}{num}" for res, num in
                              zip(nd["resources"].split("+") if nd["resources"] else [],
                                  nd["numbers"], strict=False)) or "-",
            "pips": int(nd["pips"]),
            "harbor": nd["harbor"] if isinstance(nd["harbor"], str) else "",
            "win %": f"{100 * r['win_rate']:.1f} [{100 * r['win_ci_low']:.1f}, "
                     f"{100 * r['win_ci_high']:.1f}]",
            "vs own choice (points)": f"{100 * r['diff']:+.1f} [{100 * r['ci_low']:+.1f}, "
                                      f"{100 * r['ci_high']:+.1f}]"
                                      + {"better": " *", "worse": " *", "": ""}.get(
                                          r["verdict"], " **"),
            "free at turn": "yes" if r["legal_share"] >= 0.5 else "no",
            "": "own choice" if s is not None and int(r["node"]) == s["own_node"] else ""})
    return pd.DataFrame(rows)


# --- analyses, cached per dataset ---------------------------------------------------------


def values(root: Path, scheduler=None) -> dict:
    """``analysis.openings.opening_values`` of a dataset, cached beside it (a complete
    dataset never changes; the cache is keyed by its result hash and parts)."""
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
    from statsmodels.stats.weightstats import DescrStatsW  # noqa: PLC0415  seconds to import

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
    frames = []
    for k, v in board_values.items():
        frames.append(AO.opening_rows(v["tallies"], make_board("variable", k), group=k))
    return pd.concat(frames, ignore_index=True)


def published_comparison(coef: pd.DataFrame) -> pd.DataFrame:
    """Our estimates beside the published weights of the same features."""
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

    manifest = D.read_manifest(items[0][2])
    results["engine"] = manifest.get("engine_fingerprint", "unknown")
    results["games_digest"] = manifest.get("games_digest", "not recorded")
    return write_outputs(out, results, scale, items)


def analyse(vals: dict, items) -> dict:
    """Every table the report shows, from the per-dataset ``opening_values``."""
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
    res["held_out_every"] = HELD_OUT
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
    return R.write(out, res, scale, items, TITLE)


STUDY = Study(name=NAME, title=TITLE, build=build,
              description="forced-opening sweeps: value maps of the beginner map and of 100 "
                          "variable boards, the scripted placement's rank, a win model of "
                          "opening features")
