"""Study ``seats-and-boards``: how large the seat advantage is, where it comes from, how much
the board explains, and whether a board can be chosen to be fair.

``catansim study seats-and-boards`` plays the experiment files of
``experiments/seats-and-boards/`` (package data) into resumable datasets under
``OUT/data/`` and writes the report, tables, figures and README into ``OUT`` (default
``results/seats-and-boards/``). ``--scale small`` plays a few games of each (tests, CI).
Its words: ``text/seats-and-boards.md``.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

from ..analysis import board_balance as BB
from ..analysis import seat_order as SO
from ..analysis import seats as SE
from ..analysis.board_balance import SEED
from ..analysis.stats import format_p
from ..board import board_ids, generate_vectors
from ..board.fairness import BALANCED_MAX_SPREAD, OPENING_FEATURES, balance_measures, draft_table
from ..board.fairness import coefficients as frozen_coefficients
from ..engine import batch_seeds
from ..files import atomic_path, atomic_write_text
from ..reports import (
    Figure,
    Results,
    Table,
    Text,
    caption,
    interval,
    sections_of,
    show,
    write_study_report,
)
from ..runs.experiment import load_experiment
from ..runs.runner import run_experiment
from . import Study
from . import _headlines as H
from ._provenance import provenance
from ._words import Words

NAME = "seats-and-boards"
W = Words(NAME)
COMMAND = "catansim study seats-and-boards"

# experiment -> (games per variant, games per board) at scale small
SMALL = {"seats-4p": (300, None), "seats-3p": (300, None), "mixed-4p": (300, None),
         "mixed-3p": (300, None), "order-4p": (300, None), "order-3p": (300, None),
         "boards-4p": (1200, 20), "boards-3p": (1200, 20), "boards-precise": (1000, 100),
         "luck": (144, 12), "balanced-4p": (600, 20), "index-preregistered": (1000, 100)}
ORDER = tuple(SMALL)
ROTATIONS = {4: ["baseline", "rot1", "rot2", "rot3"]}
# seat index equivalent to no effect: every seat's effect within +-0.5 points (TOST), a
# third of the 1.4 points that breaking ties by seat index gives seat 0
EQUIVALENCE_MARGIN = 0.005


# --- playing ------------------------------------------------------------------------------


def _experiment(name: str, scale: str):
    exp = load_experiment(STUDY.experiment_file(name))
    if scale == "small":
        games, per = SMALL[name]
        kw = {"games": games, "batch_size": min(exp.batch_size, 300)}
        if per is not None:
            kw["board_set"] = dataclasses.replace(exp.board_set, games_per_board=per)
        exp = dataclasses.replace(exp, **kw)
    return exp


def play(out: Path, scale: str, scheduler=None, progress: bool = True) -> dict:
    """Run (or resume) every experiment; returns name -> (Experiment, dataset path) and
    keeps the games and seconds of each run in ``OUT/runs.json``, written after each."""
    data = out / "data"
    data.mkdir(parents=True, exist_ok=True)
    book_path = out / "runs.json"
    book = json.loads(book_path.read_text()) if book_path.exists() else {}
    found = {}
    for name in ORDER:
        exp = _experiment(name, scale)
        rep = run_experiment(exp, out=data / name, scheduler=scheduler, progress=progress)
        entry = book.get(name, {"seconds": 0.0, "games": 0})
        if rep.games_written:
            entry["seconds"] = round(entry.get("seconds", 0.0) + rep.seconds, 1)
            entry["games"] = entry.get("games", 0) + rep.games_written
        entry["total_games"] = exp.games * len(exp.variants)
        entry["variants"] = len(exp.variants)
        entry["games_per_variant"] = exp.games
        if exp.board_set is not None:
            entry["boards"] = exp.n_boards
            entry["games_per_board"] = exp.board_set.games_per_board
        book[name] = entry
        found[name] = (exp, data / name)
        # after each run: a build stopped later keeps the games and seconds of this one
        atomic_write_text(book_path, json.dumps(book, indent=2) + "\n")
    return found


# --- analysing ----------------------------------------------------------------------------


def _vectors(exp) -> tuple[np.ndarray, np.ndarray]:
    v = exp.board_vectors(0, exp.n_boards)
    return v, board_ids(v)


def analyse(found: dict, progress: bool = False, scheduler=None) -> dict:
    """Every analysis of the study, by name (frames and dicts of frames)."""
    kw = {"progress": progress, "scheduler": scheduler}
    r: dict = {}
    timing = {}

    def timed(key, fn):
        t = time.perf_counter()
        r[key] = fn()
        timing[key] = time.perf_counter() - t

    for n in (4, 3):
        timed(f"seats_{n}p", lambda n=n: SE.seat_win_rates(found[f"seats-{n}p"][1], **kw))
        r[f"seat_test_{n}p"] = SE.seat_test(r[f"seats_{n}p"])
        timed(f"mixed_{n}p", lambda n=n: SO.rotation_seats(found[f"mixed-{n}p"][1], **kw))
        timed(f"order_{n}p", lambda n=n: SO.factor_effects(
            found[f"order-{n}p"][1], margin=EQUIVALENCE_MARGIN, **kw))

    for name in ("boards-4p", "boards-3p", "boards-precise", "balanced-4p",
                 "index-preregistered"):
        key = name.replace("-", "_")
        timed(f"per_board_{key}", lambda name=name: BB.per_board(found[name][1], **kw)
              .xs("baseline", level="variant", drop_level=False))
        r[f"variance_{key}"] = BB.board_variance(r[f"per_board_{key}"])
    r["power"] = BB.board_power(r["variance_boards_4p"])
    r["distribution"] = BB.seat_rate_distribution(r["per_board_boards_4p"], seat=0)

    luck = found["luck"][1]
    for label, variants in (("mixed", ROTATIONS[4]), ("default", ["all_default"])):
        for measure in ("won", "vp"):
            timed(f"luck_{label}_{measure}", lambda v=variants, m=measure: BB.luck_budget(
                luck, variants=v, measure=m, **kw))

    # boards: published balance measures, the reference draft and the fairness index
    for n, name in ((4, "boards-4p"), (3, "boards-3p")):
        key = name.replace("-", "_")
        v, ids = _vectors(found[name][0])
        bm = pd.DataFrame(balance_measures(v), index=pd.Index(ids, name="board_id"))
        draft = draft_table(v, n, ids)
        pb = r[f"per_board_{key}"]
        timed(f"regression_{n}p", lambda pb=pb, bm=bm: BB.board_regression(pb, bm))
        timed(f"seat_model_{n}p", lambda pb=pb, d=draft: BB.fit_seat_model(
            pb, d, OPENING_FEATURES))
        # the index in the core was fitted on the same training boards: its check uses the
        # held-out ones
        held = r[f"seat_model_{n}p"]["predicted"][["board_id", "seat"]]
        frozen = BB._seat_frame(pb, draft).merge(held, on=["board_id", "seat"])
        r[f"frozen_check_{n}p"] = BB.seat_model_check(frozen, n)
        # the baseline of the per-seat model: each seat's mean rate on the training boards
        train = BB._seat_frame(pb, draft)
        train = train[~train["board_id"].isin(held["board_id"])]
        r[f"intercepts_check_{n}p"] = BB.seat_model_check(frozen.assign(
            predicted=frozen["seat"].map(train.groupby("seat")["rate"].mean())), n)
        r[f"draft_{n}p"] = draft
        r[f"balance_{n}p"] = bm
    for name in ("boards-precise", "balanced-4p", "index-preregistered"):
        key = name.replace("-", "_")
        v, ids = _vectors(found[name][0])
        draft = draft_table(v, 4, ids)
        r[f"frozen_check_{key}"] = BB.seat_model_check(
            BB._seat_frame(r[f"per_board_{key}"], draft), 4)
        r[f"draft_{key}"] = draft
    # the scalar index alone: calibrated on boards-4p's training boards, checked on its
    # held-out fifth, on boards-precise and on the pre-registered set
    ib = BB.index_boards(r["per_board_boards_4p"], r["draft_4p"])
    train = ib[~ib["held_out"]]
    tests = {"held-out fifth of boards-4p": ib[ib["held_out"]]}
    for name in ("boards-precise", "index-preregistered"):
        key = name.replace("-", "_")
        tests[name] = BB.index_boards(r[f"per_board_{key}"], r[f"draft_{key}"], None)
    r["index_fit"] = pd.concat({k: BB.index_fit(train, t) for k, t in tests.items()},
                               names=["board_set"])
    r["index_bands"] = BB.index_bands(pd.concat([tests["boards-precise"],
                                                 tests["index-preregistered"]]))
    r["board_sets"] = BB.compare_board_sets({
        "variable": r["per_board_boards_4p"], "balanced": r["per_board_balanced_4p"]})
    r["balanced_cost"] = balanced_cost(r["draft_4p"])
    r["timing"] = timing
    return r


def balanced_cost(draft: pd.DataFrame, boards: int = 2000) -> pd.DataFrame:
    """What the balanced layout costs: the share of variable boards it keeps, the draws per
    board, and the time to deal a board (measured here) beside a variable board's."""
    idx = draft.groupby("board", sort=False)["index"].first().to_numpy()
    kept = float(np.mean(idx <= BALANCED_MAX_SPREAD))
    seeds = batch_seeds(99, boards)
    generate_vectors("balanced", seeds[:2])  # compiled before timing
    t = time.perf_counter()
    generate_vectors("balanced", seeds)
    bal = (time.perf_counter() - t) / boards
    t = time.perf_counter()
    generate_vectors("variable", seeds)
    var = (time.perf_counter() - t) / boards
    return pd.DataFrame([{
        "threshold": BALANCED_MAX_SPREAD, "variable_boards": len(idx), "kept_share": kept,
        "draws_per_board": 1 / kept if kept else np.inf,
        "us_per_balanced_board": bal * 1e6, "us_per_variable_board": var * 1e6,
        "method": "kept share: variable boards of boards-4p with index <= threshold; times: "
                  f"{boards} boards dealt here (one core)"}])


# --- the report ----------------------------------------------------------------------------


def _pct(x, lo=None, hi=None, digits=1) -> str:
    if lo is None:
        return f"{100 * x:.{digits}f}%"
    return f"{100 * x:.{digits}f}% [{100 * lo:.{digits}f}, {100 * hi:.{digits}f}]"


def _pts(x, lo, hi, digits=1) -> str:
    return W.fill("points", x=f"{100 * x:+.{digits}f}", low=f"{100 * lo:+.{digits}f}",
                  high=f"{100 * hi:+.{digits}f}")


def answers(r: dict) -> list[str]:
    """The findings in plain words, each with its interval and n."""
    return [_seat_answer(r), _preset_answer(r), *(_order_answer(r[f"order_{n}p"], n)
                                                  for n in (4, 3)),
            _mixed_answer(r), _board_answer(r), W["drafts"],
            *(_luck_answer(r[f"luck_{kind}_won"], W["luck " + kind])
              for kind in ("mixed", "default")),
            _balance_answer(r), _index_answer(r), _balanced_answer(r)]


def _seat_answer(r: dict) -> str:
    """Each seat's win rate with four and with three default players."""
    s4 = r["seats_4p"].xs("baseline", level="variant")
    s3 = r["seats_3p"].xs("baseline", level="variant")
    n4 = int(s4["seat_games"].iloc[0])
    n3 = int(s3["seat_games"].iloc[0])
    return W.fill(
        "answer seats", n4=f"{n4:,}", n3=f"{n3:,}",
        seat0=_pct(s4.loc[0, "win_rate"], s4.loc[0, "ci_low"], s4.loc[0, "ci_high"]),
        others=", ".join(_pct(s4.loc[k, "win_rate"]) for k in (1, 2, 3)),
        three=", ".join(_pct(s3.loc[k, "win_rate"], s3.loc[k, "ci_low"], s3.loc[k, "ci_high"])
                        for k in range(3)))


def _preset_answer(r: dict) -> str:
    """How the seat advantage depends on the preset: random players and the scripted ones."""
    n4 = int(r["seats_4p"].xs("baseline", level="variant")["seat_games"].iloc[0])
    t4 = r["seat_test_4p"]
    rnd = r["seats_4p"].xs("random", level="variant")
    scripted = [v for v in r["seats_4p"].index.unique("variant") if v != "random"]
    best0 = [v for v in scripted
             if r["seats_4p"].xs(v, level="variant")["win_rate"].idxmax() == 0]
    favour = (W["every preset favours seat 0"] if len(best0) == len(scripted) else
              W.fill("seat 0 best for some", best=len(best0), presets=len(scripted),
                     names=", ".join("default" if v == "baseline" else v for v in best0)))
    gaps = t4.drop("random")["max_gap"]
    return W.fill(
        "answer presets", random=", ".join(_pct(v) for v in rnd["win_rate"]),
        rejected=W["rejected" if t4.loc["random", "significant"] else "not rejected"],
        p=format_p(t4.loc["random", "p_adjusted"]), favour=favour,
        low=f"{100 * gaps.min():.1f}", high=f"{100 * gaps.max():.1f}", n=f"{n4:,}")


def _mixed_answer(r: dict) -> str:
    """Each seat's win rate at the four-player mixed table, pooled over its rotations."""
    m4 = r["mixed_4p"]["seats"]
    return W.fill(
        "answer mixed", deals=f"{int(m4['deals'].iloc[0]):,}",
        seat0=_pct(m4.loc[0, "win_rate"], m4.loc[0, "ci_low"], m4.loc[0, "ci_high"]),
        others=", ".join(_pct(v) for v in m4["win_rate"].iloc[1:]),
        p=format_p(r["mixed_4p"]["test"]["p_value"].iloc[0]))


def _luck_answer(lb: pd.DataFrame, label: str) -> str:
    """The luck budget of one seat's win at one kind of table (``label``)."""
    parts = ", ".join(
        f"{k} {_pct(lb.loc[k, 'share'], lb.loc[k, 'share_ci_low'], lb.loc[k, 'share_ci_high'])}"
        for k in lb.index if lb.loc[k, "share"] > 0 or k in ("seat", "board"))
    return W.fill("answer luck", label=label, boards=int(lb["boards"].iloc[0]),
                  seeds=int(lb["seeds"].iloc[0]), parts=parts)


def _balance_answer(r: dict) -> str:
    """Whether the published balance measures predict a board's seat order."""
    reg = r["regression_4p"]["fit"]
    best_r2 = max(reg.loc["seat0_advantage", "r2_cv"], reg.loc["rms2", "r2_cv"])
    verdict = ("no" if best_r2 < 0.1 else "a little" if best_r2 < 0.3 else
               "partly" if best_r2 < 0.6 else "largely")
    return W.fill(
        "answer balance", verdict=W["balance " + verdict], features=int(reg["features"].iloc[0]),
        seat0=_pct(reg.loc["seat0_advantage", "r2_cv"]), spread=_pct(reg.loc["rms2", "r2_cv"]),
        seat0_real=_pct(reg.loc["seat0_advantage", "reliability"], digits=0),
        spread_real=_pct(reg.loc["rms2", "reliability"], digits=0),
        turns=_pct(reg.loc["turns_mean", "r2_cv"]),
        turns_real=_pct(reg.loc["turns_mean", "reliability"], digits=0))


def _balanced_answer(r: dict) -> str:
    """What the balanced layout changes and what it costs."""
    bs = r["board_sets"]
    cost = r["balanced_cost"].iloc[0]
    var_sp = bs.loc[("variable", "spread (rms2)")]
    bal_sp = bs.loc[("balanced", "spread (rms2)")]
    bal_games = int(r["per_board_balanced_4p"]["games"].median())
    return W.fill(
        "answer balanced", threshold=f"{cost['threshold']:.2f}",
        kept=_pct(cost["kept_share"], digits=0), variable=f"{100 * var_sp['spread']:.1f}",
        balanced=f"{100 * bal_sp['spread']:.1f}", boards=f"{int(bal_sp['boards']):,}",
        games=bal_games, seat0_variable=_pct(bs.loc[("variable", "seat_0"), "mean"]),
        seat0_balanced=_pct(bs.loc[("balanced", "seat_0"), "mean"]),
        draws=f"{cost['draws_per_board']:.1f}", us=f"{cost['us_per_balanced_board']:.0f}",
        verdict=_balanced_verdict(bs))


def _order_answer(o: dict, n: int) -> str:
    """Seat index, set-up position and turn position apart, in words."""
    c = o["contrasts"]
    eq = o["equivalence"]
    tests = o["tests"]
    deals = int(c["n"].iloc[0])

    def pts(row):
        return _pts(row["estimate"], row["ci_low"], row["ci_high"])

    lo, hi = 100 * eq["ci90_low"].min(), 100 * eq["ci90_high"].max()
    margin = 100 * float(eq["margin"].iloc[0])
    seat_p = tests.filter(like="no seat effect", axis=0)["p_adjusted"].iloc[0]
    fields = {"low": f"{lo:+.2f}", "high": f"{hi:+.2f}", "margin": f"{margin:.1f}",
              "p": format_p(seat_p)}
    if eq["all_equivalent"].iloc[0]:
        seat = W.fill("order seat equivalent", p_tost=f"{eq['p_value'].max():.1g}", **fields)
    else:
        seat = W.fill("order seat not equivalent", **fields)
    parts = [k for k in c.index if k.startswith("  ")]
    return W.fill(
        "answer order", n=n, deals=f"{deals:,}", orders=n * n,
        pick=pts(c.loc["first pick: pick 0 minus the other picks"]),
        move=pts(c.loc["first move: turn 0 minus the other turns"]), seat=seat,
        standard=pts(c.loc["standard game: seat 0 win rate minus 1 / players"]),
        from_pick=pts(c.loc[parts[0]]), from_move=pts(c.loc[parts[1]]),
        from_seat=pts(c.loc[parts[2]]), interactions=pts(c.loc[parts[3]]))


def _sd_ci(row) -> tuple[float, float, float]:
    """A between-board SD in points with the interval of its variance, square-rooted."""
    return (100 * row["between_sd"], 100 * np.sqrt(max(row["between_ci_low"], 0)),
            100 * np.sqrt(max(row["between_ci_high"], 0)))


def _board_answer(r: dict) -> str:
    """Per-board unfairness as effect sizes first, then what a test per board rejects."""
    v4 = r["variance_boards_4p"].xs("baseline", level="variant")
    vp = r["variance_boards_precise"].xs("baseline", level="variant")
    pb = r["per_board_boards_4p"]
    games = int(pb["games"].iloc[0])
    sd, lo, hi = _sd_ci(v4.loc["seat_0"])
    others = ", ".join(f"{_sd_ci(v4.loc[f'seat_{s}'])[0]:.1f}" for s in (1, 2, 3))
    sp, spp = v4.loc["spread"], vp.loc["spread"]
    unfair_p = int(round(spp["unfair_share"] * spp["boards"]))
    power = r["power"]
    g_small = int(power.index.min())
    return W.fill(
        "answer boards", boards=f"{len(pb):,}", games=games, sd=f"{sd:.1f}",
        sd_low=f"{lo:.1f}", sd_high=f"{hi:.1f}", others=others,
        spread=f"{100 * sp['mean']:.1f}", spread_low=f"{100 * sp['ci_low']:.1f}",
        spread_high=f"{100 * sp['ci_high']:.1f}",
        unfair=_pct(sp["unfair_share"], sp["unfair_ci_low"], sp["unfair_ci_high"]),
        unfair_precise=unfair_p, precise_boards=int(spp["boards"]),
        precise_games=f"{int(spp['games_per_board']):,}",
        power=f"{power.loc[g_small, 'power']:.2f}", small=g_small,
        reliability=f"{100 * v4.loc['seat_0', 'reliability']:.0f}")


def _index_answer(r: dict) -> str:
    """The scalar index against the observed spread, the pre-registered check, and the
    per-seat model beside them."""
    f = r["index_fit"]
    ho = f.xs("held-out fifth of boards-4p", level="board_set")
    pr = f.xs("index-preregistered", level="board_set")
    sm = r["frozen_check_4p"]["summary"].iloc[0]
    pc = r["frozen_check_boards_precise"]["summary"].iloc[0]
    si = r["intercepts_check_4p"]["summary"].iloc[0]

    def rr(t):
        row = t.loc["index, calibrated"]
        return W.fill("index r", r=f"{row['r']:.2f}", low=f"{row['r_ci_low']:.2f}",
                      high=f"{row['r_ci_high']:.2f}")

    def r2(t, k):
        return _pct(t.loc[k, "r2"], t.loc[k, "r2_ci_low"], t.loc[k, "r2_ci_high"])

    passed = pr.loc["index, calibrated", "r_ci_low"] > 0
    beats = pr.loc["index, calibrated", "r2_ci_low"] > pr.loc["intercept only", "r2"]
    verdict = W["index holds" if passed else "index not shown"] + (
        " " + W["index adds"] if beats else W["index does not add"])
    return W.fill(
        "answer index", held=f"{int(ho['boards'].iloc[0]):,}", held_r=rr(ho),
        train=f"{int(ho['train_boards'].iloc[0]):,}", held_r2=r2(ho, "index, calibrated"),
        held_base=r2(ho, "intercept only"), pre_boards=int(pr["boards"].iloc[0]),
        pre_games=f"{int(r['per_board_index_preregistered']['games'].median()):,}",
        pre_r=rr(pr), pre_r2=r2(pr, "index, calibrated"), pre_base=r2(pr, "intercept only"),
        verdict=verdict, model=_pct(sm["r2"], sm["r2_ci_low"], sm["r2_ci_high"]),
        precise=_pct(pc["r2"], pc["r2_ci_low"], pc["r2_ci_high"]),
        precise_boards=int(pc["boards"]),
        precise_games=f"{int(r['per_board_boards_precise']['games'].median()):,}",
        intercepts=_pct(si["r2"], si["r2_ci_low"], si["r2_ci_high"]))


def _power_note(power: pd.DataFrame, chosen: int = 100) -> str:
    """Why 100 games per board, in the numbers of this run's board set."""
    row = power.loc[chosen] if chosen in power.index else power.iloc[0]
    return W.fill("power note", chosen=chosen, half=f"{100 * row['ci_half_width']:.1f}",
                  reliability=f"{100 * row['reliability']:.0f}", power=f"{row['power']:.2f}",
                  needed=f"{row['games_for_power_80']:.0f}")


def _balanced_verdict(bs: pd.DataFrame) -> str:
    """Is the balanced layout fairer? The difference of the mean squared spread (rms2, its
    Welch interval) relative to the variable boards' (10,000 boards: its own error is
    small beside the difference's), and seat 0's mean win rate."""
    d = bs.loc[("balanced", "spread (rms2)")]
    base = bs.loc[("variable", "spread (rms2)"), "mean"]
    lo, hi = d["diff_ci_low"] / base, d["diff_ci_high"] / base
    s0 = bs.loc[("balanced", "seat_0")]
    ci = W.fill("balanced verdict interval", diff=f"{100 * d['diff'] / base:+.0f}",
                low=f"{100 * lo:+.0f}", high=f"{100 * hi:+.0f}",
                seat0=_pts(s0["diff"], s0["diff_ci_low"], s0["diff_ci_high"]))
    return W.fill("balanced fairer" if hi < 0 else "balanced not shown", ci=ci)


def _catanatron_power(rate: float, games: int = 1000) -> float:
    from statsmodels.stats.power import NormalIndPower  # noqa: PLC0415  statsmodels: seconds to import
    from statsmodels.stats.proportion import proportion_effectsize  # noqa: PLC0415  statsmodels, as above

    h = proportion_effectsize(rate, 0.25)
    return float(NormalIndPower().power(effect_size=h, nobs1=games, alpha=0.05, ratio=0))


def _share(lb: pd.DataFrame, k: str) -> str:
    return _pct(lb.loc[k, "share"], lb.loc[k, "share_ci_low"], lb.loc[k, "share_ci_high"])


def published(r: dict) -> list[str]:
    """This study's numbers beside the published figures of the issue."""
    s4 = r["seats_4p"].xs("baseline", level="variant")
    s3 = r["seats_3p"].xs("baseline", level="variant")
    rnd = r["seats_4p"].xs("random", level="variant")
    t3 = r["seat_test_3p"]
    lb = r["luck_default_won"]
    worst3 = int(s3["win_rate"].idxmin())
    worst4 = int(s4["win_rate"].idxmin())
    cpow = _catanatron_power(s4.loc[0, "win_rate"])
    return [
        W.fill("published quickstart",
               seat0=_pct(s4.loc[0, "win_rate"], s4.loc[0, "ci_low"], s4.loc[0, "ci_high"]),
               n=f"{int(s4['seat_games'].iloc[0]):,}",
               random=" / ".join(_pct(v) for v in rnd["win_rate"])),
        W.fill("published goodman",
               seat0=_pct(s3.loc[0, "win_rate"], s3.loc[0, "ci_low"], s3.loc[0, "ci_high"]),
               sign=W["opposite sign" if s3.loc[0, "win_rate"] > 1 / 3 else "same sign"],
               board=_share(lb, "board"), seed=_share(lb, SEED)),
        W.fill("published catanatron", advantage=f"{100 * (s4.loc[0, 'win_rate'] - 0.25):+.1f}",
               power=f"{cpow:.2f}", verdict=W["catanatron does not contradict" if cpow < 0.8
                                                 else "catanatron would have shown"]),
        W.fill("published humans", worst4=worst4, worst3=worst3,
               p=format_p(t3.loc["baseline", "p_adjusted"])),
    ]


def _plots():
    from ..plotting import seats_boards as PL  # noqa: PLC0415  matplotlib: seconds to import

    return PL


def _table(name: str, of: str, cols, extra: str | Callable[[Results], str] = "",
           index: bool = True) -> Table:
    """The frame at ``of`` shown by its columns ``cols``, captioned with ``extra`` (a string
    or a function of the results) and the intervals its ``method`` column names."""
    return Table(name, of, lambda r: caption(r[of], extra(r) if callable(extra) else extra),
                 view=lambda t, r: show(t, cols, index))


def _ul(lines) -> str:
    return "<ul>" + "".join(f"<li>{a}</li>" for a in lines) + "</ul>"


ANSWERS = W.part("answers", (
        Text(lambda r: _ul(answers(r.data))),
        Text(lambda r: W["beside published"] + _ul(published(r.data))),
        Text(W["small note"], when=lambda r: r.scale == "small")))


def _preset_tables(n: int) -> tuple[Table, ...]:
    def seats(r):
        return r[f"seats_{n}p"].rename(index={"baseline": "default"}, level="variant")

    def test(r):
        return r[f"seat_test_{n}p"].rename(index={"baseline": "default"})

    return (Table(f"seats_{n}p", seats, W.fill("table seats", n=n),
                  view=lambda t, r: _grid(t, "variant", "seat", "seat ")),
            Table(f"seat_test_{n}p", test,
                  lambda r: caption(test(r), W.fill("table seat_test", n=n)),
                  view=lambda t, r: show(t, ["n", "chi2", "p_adjusted", "significant",
                                             "cohens_w", "max_gap", "games_for_w"])))


PRESETS = W.part("presets", (
        Figure("seats_by_preset", lambda r: _plots().preset_seats_figure(
            {4: r["seats_4p"], 3: r["seats_3p"]})),
        *(t for n in (4, 3) for t in _preset_tables(n))))


def _mixed_tables(n: int) -> tuple[Table, ...]:
    m = f"mixed_{n}p"
    return (_table(f"mixed_seats_{n}p", f"{m}.seats", ["deals", "seat_games", "win_rate",
                                                         "ci_low", "ci_high", "advantage"],
                   W.fill("table mixed_seats", n=n)),
            _table(f"mixed_test_{n}p", f"{m}.test", ["n", "t2", "f", "df_num", "df_den",
                                                       "p_value", "max_gap"],
                   W["table mixed_test"], index=False),
            Table(f"mixed_cells_{n}p", f"{m}.cells",
                  lambda r: caption(r[f"{m}.cells"], W["table mixed_cells"]),
                  view=lambda t, r: _grid(t, "strategy", "seat", "seat ")))


MIXED = W.part("mixed", (
        Figure("mixed_tables", lambda r: _plots().rotation_figure(
            {4: r["mixed_4p"], 3: r["mixed_3p"]})),
        *(t for n in (4, 3) for t in _mixed_tables(n))))


def _order_tables(n: int) -> tuple[Table, ...]:
    o = f"order_{n}p"
    return (
        _table(f"order_contrasts_{n}p", f"{o}.contrasts", ["n", "estimate", "ci_low",
                                                            "ci_high", "p_value"],
               W.fill("table order_contrasts", n=n)),
        _table(f"order_effects_{n}p", f"{o}.effects", ["n", "win_rate", "effect", "ci_low",
                                                        "ci_high", "p_adjusted", "significant"],
               W.fill("players", n=n)),
        _table(f"seat_equivalence_{n}p", f"{o}.equivalence", [
            "n", "estimate", "ci90_low", "ci90_high", "margin", "p_value", "equivalent"],
               W.fill("table seat_equivalence", n=n)),
        _table(f"order_tests_{n}p", f"{o}.tests", ["n", "df_num", "f", "p_value",
                                                    "p_adjusted", "significant"],
               W.fill("players", n=n)),
        _table(f"order_cells_{n}p", f"{o}.cells", ["games", "win_rate", "ci_low", "ci_high"],
               W.fill("table order_cells", n=n)))


SEAT_ORDER = W.part("order", (
        Figure("order_effects", lambda r: _plots().order_figure(
            {4: r["order_4p.effects"], 3: r["order_3p.effects"]})),
        *(t for n in (4, 3) for t in _order_tables(n))), margin=f"{100 * EQUIVALENCE_MARGIN:.1f}")

_VARIANCE_COLS = ["boards", "games_per_board", "mean", "between_var", "between_ci_low",
                  "between_ci_high", "between_sd", "reliability", "games_for_reliability_90",
                  "board_share", "ci_low", "ci_high", "unfair_share"]
_VARIANCE_SETS = ("boards_4p", "boards_3p", "boards_precise", "index_preregistered")


def _precise(r) -> pd.DataFrame:
    return r["per_board_boards_precise"].droplevel("variant")


def _precise_cols(t: pd.DataFrame) -> list[str]:
    return ["games"] + [c for c in t.columns if c.startswith(("win_rate_", "ci_"))] + [
        "rms", "rms2", "p_adjusted", "unfair", "turns_mean"]


BOARDS = W.part("boards", (
        Figure("seat0_by_board", lambda r: _plots().spread_figure(r["distribution"])),
        *(_table(f"board_variance_{key}", f"variance_{key}", _VARIANCE_COLS,
                 W.fill("table board_variance", label=W["board set " + key]))
          for key in _VARIANCE_SETS),
        _table("board_power", "power", ["ci_half_width", "reliability", "power", "cohens_w",
                                        "games_for_power_80"],
               lambda r: _power_note(r["power"])),
        Figure("precise_boards", lambda r: _plots().precise_boards_figure(
            r["per_board_boards_precise"])),
        Table("boards_precise", _precise,
              lambda r: caption(_precise(r), W["table boards_precise"]),
              view=lambda t, r: show(t, _precise_cols(t)))))

_LUCK = ("luck_mixed_won", "luck_mixed_vp", "luck_default_won", "luck_default_vp")


def _luck_caption(key: str):
    def text(r) -> str:
        t = r[key]
        return W.fill("table luck", label=W["label " + key], boards=int(t["boards"].iloc[0]),
                      seeds=int(t["seeds"].iloc[0]), cells=int(t["cells"].iloc[0]))
    return text


LUCK = W.part("luck", (
        Figure("luck_budget", lambda r: _plots().luck_figure({
            "mixed table, win": r["luck_mixed_won"], "mixed table, final VP": r["luck_mixed_vp"],
            "4 default, win": r["luck_default_won"],
            "4 default, final VP": r["luck_default_vp"]})),
        *(_table(key, key, ["variance", "ci_low", "ci_high", "share", "share_ci_low",
                            "share_ci_high"], _luck_caption(key))
          for key in _LUCK)))


def _predictability(r) -> dict[str, pd.DataFrame]:
    """The cross-validated R² of the balance measures and of the fairness index."""
    fits = {"balance measures, 4p": r["regression_4p.fit"],
            "balance measures, 3p": r["regression_3p.fit"]}
    for n in (4, 3):
        sm = r[f"frozen_check_{n}p.summary"].iloc[0]
        fits[f"fairness index, {n}p"] = pd.DataFrame([{
            "r2_cv": sm["r2"], "r2_cv_ci_low": sm["r2_ci_low"], "r2_cv_ci_high": sm["r2_ci_high"],
            "reliability": sm["reliability"], "boards": sm["boards"]}], index=["seat_rates"])
    return fits


def _regression_tables(n: int) -> tuple[Table, ...]:
    g = f"regression_{n}p"
    return (_table(f"regression_fit_{n}p", f"{g}.fit", ["boards", "features", "r2", "r2_cv",
                                                         "r2_cv_ci_low", "r2_cv_ci_high",
                                                         "reliability", "explained"],
                   W.fill("players", n=n)),
            _table(f"regression_coefficients_{n}p", f"{g}.coefficients", [
                "coef", "ci_low", "ci_high", "p_adjusted", "significant", "sd"],
                   W.fill("table regression_coefficients", n=n)))


FEATURES = W.part("features", (
        Figure("predictability", lambda r: _plots().predictability_figure(_predictability(r))),
        Figure("seat0_coefficients", lambda r: _plots().coefficients_figure(
            r["regression_4p.coefficients"], "seat0_advantage")),
        Figure("length_coefficients", lambda r: _plots().coefficients_figure(
            r["regression_4p.coefficients"], "turns_mean")),
        *(t for n in (4, 3) for t in _regression_tables(n))))

_CHECKS = ("4p", "3p", "boards_precise", "balanced_4p", "index_preregistered")


def index_checks(r) -> pd.DataFrame:
    """The per-seat model in the engine on every held-out board set, beside seat intercepts
    alone, one row per check."""
    checks = pd.concat({k: r[f"frozen_check_{k}.summary"] for k in _CHECKS}
                       | {f"seat intercepts only, {n}p": r[f"intercepts_check_{n}p.summary"]
                          for n in (4, 3)}, names=["check"])
    return checks.droplevel(1)


def index_model(r, n: int) -> pd.DataFrame:
    """This run's refit of the ``n``-player index model beside the coefficients in the
    engine."""
    c = r[f"seat_model_{n}p.coefficients"].copy()
    c["in_engine"] = frozen_coefficients(n).reindex(c.index).to_numpy()
    return c


def _index_tables(n: int) -> tuple[Table, ...]:
    def model(r):
        return index_model(r, n)

    return (Table(f"index_model_{n}p", model,
                  lambda r: caption(model(r), W.fill("table index_model", n=n)),
                  view=lambda t, r: show(t, ["coef", "ci_low", "ci_high", "in_engine",
                                             "boards"])),
            _table(f"index_calibration_{n}p", f"frozen_check_{n}p.calibration",
                   ["boards", "index", "spread", "ci_low", "ci_high"],
                   W.fill("table index_calibration", n=n)))


INDEX = W.part("index", (
        Figure("index_calibration", lambda r: _plots().calibration_figure({
            "held-out boards (4p)": r["frozen_check_4p.calibration"],
            "held-out boards (3p)": r["frozen_check_3p.calibration"]})),
        _table("index_fit", "index_fit", ["boards", "train_boards", "r", "r_ci_low",
                                          "r_ci_high", "r2", "r2_ci_low", "r2_ci_high"],
               W["table index_fit"]),
        _table("index_bands", "index_bands", ["boards", "games_per_board", "index", "spread",
                                              "ci_low", "ci_high", "q10", "q50", "q90"],
               W["table index_bands"]),
        Table("index_checks", index_checks,
              lambda r: caption(index_checks(r), W["table index_checks"]),
              view=lambda t, r: show(t, ["boards", "seat_rows", "r2", "r2_ci_low",
                                         "r2_ci_high", "reliability", "explained",
                                         "index_spread_corr", "mean_index",
                                         "observed_spread"])),
        *(t for n in (4, 3) for t in _index_tables(n))))

BALANCED = W.part("balanced", (
        Figure("balanced_boards", lambda r: _plots().board_sets_figure({
            "variable": r["per_board_boards_4p"], "balanced": r["per_board_balanced_4p"]})),
        _table("balanced_vs_variable", "board_sets", [
            "boards", "mean", "ci_low", "ci_high", "spread", "spread_ci_low", "spread_ci_high",
            "diff", "diff_ci_low", "diff_ci_high", "p_value"],
               W["table balanced_vs_variable"]),
        _table("balanced_cost", "balanced_cost", [
            "threshold", "variable_boards", "kept_share", "draws_per_board",
            "us_per_balanced_board", "us_per_variable_board"], index=False)))


def _analysis_seconds(r) -> pd.DataFrame:
    return pd.DataFrame({"seconds": r["timing"]}).rename_axis("analysis")


RUNS = W.part("runs", (
        W.table("runs", lambda r: runs_frame(r.book)),
        W.table("analysis_seconds", _analysis_seconds)))

REPORT = (ANSWERS, PRESETS, MIXED, SEAT_ORDER, BOARDS, LUCK, FEATURES, INDEX, BALANCED, RUNS)


def _grid(t: pd.DataFrame, rows: str, cols: str, prefix: str = "") -> pd.DataFrame:
    """A rate table as rows x columns of ``rate [low, high]`` (percent), n in front."""
    f = t.reset_index()
    f["cell"] = [interval(m, lo, hi, pct=True) for m, lo, hi in
                 zip(f["win_rate"], f["ci_low"], f["ci_high"], strict=True)]
    g = f.pivot_table(index=rows, columns=cols, values="cell", aggfunc="first", sort=False)
    g.columns = [f"{prefix}{c}" for c in g.columns]
    ncol = "seat_games" if "seat_games" in f.columns else "games"
    g.insert(0, "n", f.groupby(rows, sort=False)[ncol].first().reindex(g.index).astype("int64"))
    return g


def runs_frame(book: dict) -> pd.DataFrame:
    rows = []
    for name in ORDER:
        e = book.get(name, {})
        rows.append({"experiment": name, "variants": e.get("variants"),
                     "games_per_variant": e.get("games_per_variant"),
                     "boards": e.get("boards"), "games_per_board": e.get("games_per_board"),
                     "games": e.get("total_games"), "seconds": e.get("seconds"),
                     "games_per_second": (e["games"] / e["seconds"]) if e.get("seconds")
                     else None})
    return pd.DataFrame(rows).set_index("experiment")


def _refit_note(r: dict) -> str:
    """How far this run's refit of the index model lies from the coefficients in the engine."""
    parts = []
    for n in (4, 3):
        c = r[f"seat_model_{n}p"]["coefficients"]
        engine = frozen_coefficients(n).reindex(c.index).to_numpy()
        inside = int(((engine >= c["ci_low"]) & (engine <= c["ci_high"])).sum())
        parts.append(W.fill("refit", inside=inside, coefficients=len(c), n=n))
    return W.fill("refit note", parts="; ".join(parts))


def write_readme(out: Path, r: dict, book: dict, scale: str, report_seconds: float,
                 sections: list) -> None:
    runs = runs_frame(book)
    total = int(runs["games"].sum())
    play_s = float(runs["seconds"].fillna(0).sum())
    analysis_s = sum(r["timing"].values())  # the report header's "analyses" figure
    lines = [f"# {W['title']}", "", W.fill("readme question", question=W["question"]), "",
             W.fill("readme rebuild", command=COMMAND), "", f"## {W['readme answers']}", ""]
    lines += [f"- {a}" for a in answers(r)]
    lines += ["", *H.readme_lines(sections)]
    lines += [f"## {W['readme published']}", ""]
    lines += [f"- {a}" for a in published(r)]
    lines += ["", f"## {W['readme runs']}", "",
              W.fill("readme games", games=f"{total:,}", minutes=f"{play_s / 60:.0f}",
                     analyses=f"{analysis_s:.0f}", report=f"{report_seconds:.0f}"), "",
              "| experiment | variants | games per variant | boards x games | games | "
              "seconds |", "|---|---:|---:|---:|---:|---:|"]
    for name, e in runs.iterrows():
        bx = (f"{int(e['boards']):,} x {int(e['games_per_board']):,}"
              if pd.notna(e["boards"]) else "")
        sec = f"{e['seconds']:.0f}" if pd.notna(e["seconds"]) else ""
        lines.append(f"| `{name}` | {int(e['variants'])} | {int(e['games_per_variant']):,} | "
                     f"{bx} | {int(e['games']):,} | {sec} |")
    lines += ["", f"## {W['readme notes']}", "",
              f"- {W.fill('readme note index', refit=_refit_note(r))}",
              f"- {W['readme note players']}",
              f"- {W['drafts']}",
              f"- {W.fill('readme note scale', millions=f'{total / 1e6:.2f}')}"]
    lines += ["", f"## {W['readme files']}", ""]
    lines += [f"- {W['readme file ' + k]}" for k in ("report", "tables", "figures", "data")]
    lines += ["", "| table | what |", "|---|---|"]
    lines += [f"| `{k}` | {W['readme table ' + k]} |" for k in TABLES]
    lines += ["", "| figure | what |", "|---|---|"]
    lines += [f"| `{k}` | {W['readme figure ' + k]} |" for k in FIGURES]
    if scale == "small":
        lines += ["", W["readme small"]]
    atomic_write_text(out / "README.md", "\n".join(lines) + "\n")


# the README's tables and figures, in its order (their words: "readme table NAME")
TABLES = ("seats_4p, seats_3p", "seat_test_4p, seat_test_3p",
          "mixed_seats_*, mixed_test_*, mixed_cells_*", "order_contrasts_*",
          "order_effects_*, order_tests_*, order_cells_*", "seat_equivalence_*",
          "board_variance_*", "board_power", "boards_precise", "luck_*",
          "regression_fit_*, regression_coefficients_*", "index_checks", "index_fit",
          "index_bands", "index_model_*", "index_calibration_*",
          "balanced_vs_variable, balanced_cost", "runs, analysis_seconds")
FIGURES = ("seats_by_preset", "mixed_tables", "order_effects", "seat0_by_board",
           "precise_boards", "luck_budget", "predictability",
           "seat0_coefficients, length_coefficients", "index_calibration", "balanced_boards")


def write_report(out: Path, r: dict, book: dict, scale: str) -> tuple[Path, list]:
    """The report (``out/report.html``, its tables and figures) and its sections."""
    runs = runs_frame(book)
    items = [("question", W["question"]), ("rebuild", COMMAND),
             ("games", W.fill("report games", games=f"{int(runs['games'].sum()):,}",
                              experiments=len(runs), name=NAME)),
             ("scale", scale),
             *provenance({name: out / "data" / name for name in ORDER}),
             ("analyses", f"{sum(r['timing'].values()):.0f} s")]
    sections = H.insert(NAME, sections_of(REPORT, Results(r, book=book, scale=scale)))
    return write_study_report(out, sections, W.fill("report title", title=W["title"]),
                              items), sections


def build(out, scale: str = "full", scheduler=None, progress: bool = True) -> Path:
    """Play (resume) the experiments, analyse them and write the report into ``out``."""
    out = Path(out)
    found = play(out, scale, scheduler, progress)
    t = time.perf_counter()
    r = analyse(found, progress=progress, scheduler=scheduler)
    for key in ("per_board_boards_4p", "per_board_boards_3p", "per_board_balanced_4p"):
        with atomic_path(out / "data" / f"{key.replace('_', '-')}.parquet") as tmp:
            r[key].drop(columns="method").to_parquet(tmp)
    book = json.loads((out / "runs.json").read_text())
    path, sections = write_report(out, r, book, scale)
    seconds = time.perf_counter() - t
    write_readme(out, r, book, scale, seconds, sections)
    return path


STUDY = Study(name=NAME, title=W["title"], build=build, description=W["question"])
