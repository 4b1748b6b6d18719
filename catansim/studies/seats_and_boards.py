"""Study ``seats-and-boards``: how large the seat advantage is, where it comes from, how much
the board explains, and whether a board can be chosen to be fair.

``catansim study seats-and-boards`` plays the experiment files of
``experiments/seats-and-boards/`` (package data) into resumable datasets under
``OUT/data/`` and writes the report, tables, figures and README into ``OUT`` (default
``results/seats-and-boards/``). ``--scale small`` plays a few games of each (tests, CI).
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
    Part,
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
from ._provenance import provenance

NAME = "seats-and-boards"
TITLE = "Seat order and board balance"
QUESTION = ("How large is the seat advantage in CATAN, where does it come from (the first "
            "pick of the set-up or the first move), how much of it does the board decide, "
            "and can a board be chosen to be fair?")
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
    for label, variants in (("mixed", ROTATIONS[4]), ("classic", ["all_classic"])):
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
    return f"{100 * x:+.{digits}f} points [{100 * lo:+.{digits}f}, {100 * hi:+.{digits}f}]"


def answers(r: dict) -> list[str]:
    """The findings in plain words, each with its interval and n."""
    return [_seat_answer(r), _preset_answer(r), *(_order_answer(r[f"order_{n}p"], n)
                                                  for n in (4, 3)),
            _mixed_answer(r), _board_answer(r), DRAFTS,
            *(_luck_answer(r[key], label) for label, key in (
                ("a mixed table", "luck_mixed_won"), ("four classic players",
                                                      "luck_classic_won"))),
            _balance_answer(r), _index_answer(r), _balanced_answer(r)]


def _seat_answer(r: dict) -> str:
    """Each seat's win rate with four and with three classic players."""
    s4 = r["seats_4p"].xs("baseline", level="variant")
    s3 = r["seats_3p"].xs("baseline", level="variant")
    n4 = int(s4["seat_games"].iloc[0])
    n3 = int(s3["seat_games"].iloc[0])
    return (
        f"Seat effect, four classic players (n = {n4:,} games): seat 0 wins "
        f"{_pct(s4.loc[0, 'win_rate'], s4.loc[0, 'ci_low'], s4.loc[0, 'ci_high'])}, seats 1-3 "
        + ", ".join(_pct(s4.loc[k, 'win_rate']) for k in (1, 2, 3)) + " (fair 25%). Three "
        f"classic players (n = {n3:,}): " + ", ".join(
            _pct(s3.loc[k, 'win_rate'], s3.loc[k, 'ci_low'], s3.loc[k, 'ci_high'])
            for k in range(3)) + " (fair 33.3%).")


def _preset_answer(r: dict) -> str:
    """How the seat advantage depends on the preset: random players and the scripted ones."""
    n4 = int(r["seats_4p"].xs("baseline", level="variant")["seat_games"].iloc[0])
    t4 = r["seat_test_4p"]
    rnd = r["seats_4p"].xs("random", level="variant")
    scripted = [v for v in r["seats_4p"].index.unique("variant") if v != "random"]
    best0 = [v for v in scripted
             if r["seats_4p"].xs(v, level="variant")["win_rate"].idxmax() == 0]
    favour = ("every scripted preset favours seat 0" if len(best0) == len(scripted) else
              f"seat 0 is the best seat for {len(best0)} of the {len(scripted)} scripted "
              f"presets ({', '.join('classic' if v == 'baseline' else v for v in best0)})")
    return (
        "The advantage depends on how the players play: four random players "
        f"{', '.join(_pct(v) for v in rnd['win_rate'])} (equal seats "
        f"{'rejected' if t4.loc['random', 'significant'] else 'not rejected'}, Holm "
        f"{format_p(t4.loc['random', 'p_adjusted'])}); {favour} "
        f"(gap best - worst seat {100 * t4.drop('random')['max_gap'].min():.1f} to "
        f"{100 * t4.drop('random')['max_gap'].max():.1f} points; n = {n4:,} games each).")


def _mixed_answer(r: dict) -> str:
    """Each seat's win rate at the four-player mixed table, pooled over its rotations."""
    m4 = r["mixed_4p"]["seats"]
    return (
        f"At a mixed table (classic, army, city, expander; all four rotations of "
        f"{int(m4['deals'].iloc[0]):,} deals) seat 0 wins "
        f"{_pct(m4.loc[0, 'win_rate'], m4.loc[0, 'ci_low'], m4.loc[0, 'ci_high'])}, the "
        f"others {', '.join(_pct(v) for v in m4['win_rate'].iloc[1:])} (Hotelling "
        f"{format_p(r['mixed_4p']['test']['p_value'].iloc[0])}).")


def _luck_answer(lb: pd.DataFrame, label: str) -> str:
    """The luck budget of one seat's win at one kind of table (``label``)."""
    parts = ", ".join(
        f"{k} {_pct(lb.loc[k, 'share'], lb.loc[k, 'share_ci_low'], lb.loc[k, 'share_ci_high'])}"
        for k in lb.index if lb.loc[k, "share"] > 0 or k in ("seat", "board"))
    return (f"Luck budget of one seat's win, {label} ({int(lb['boards'].iloc[0])} boards "
            f"x {int(lb['seeds'].iloc[0])} game seeds; a seed sets the dice, the "
            f"deck, the steals and the decisions; board x game seed includes each "
            f"game's own noise): {parts}.")


def _balance_answer(r: dict) -> str:
    """Whether the published balance measures predict a board's seat order."""
    reg = r["regression_4p"]["fit"]
    best_r2 = max(reg.loc["seat0_advantage", "r2_cv"], reg.loc["rms2", "r2_cv"])
    verdict = ("No." if best_r2 < 0.1 else "Only a little." if best_r2 < 0.3 else
               "Partly." if best_r2 < 0.6 else "Yes, largely.")
    return (
        f"Does a 'balanced' board predict a fair one? {verdict} The published balance measures "
        f"(pips per resource and their spread, 6/8 and same-number adjacency, clustering, "
        f"resource spread, hot intersections, harbors; {int(reg['features'].iloc[0])} "
        f"features) explain {_pct(reg.loc['seat0_advantage', 'r2_cv'])} of seat 0's "
        f"advantage and {_pct(reg.loc['rms2', 'r2_cv'])} of the seat spread on boards they "
        f"were not fitted on, although {_pct(reg.loc['seat0_advantage', 'reliability'], digits=0)} "
        "and "
        f"{_pct(reg.loc['rms2', 'reliability'], digits=0)} of those are real; they do predict "
        f"game length ({_pct(reg.loc['turns_mean', 'r2_cv'])} of "
        f"{_pct(reg.loc['turns_mean', 'reliability'], digits=0)}).")


def _balanced_answer(r: dict) -> str:
    """What the balanced layout changes and what it costs."""
    bs = r["board_sets"]
    cost = r["balanced_cost"].iloc[0]
    var_sp = bs.loc[("variable", "spread (rms2)")]
    bal_sp = bs.loc[("balanced", "spread (rms2)")]
    bal_games = int(r["per_board_balanced_4p"]["games"].median())
    return (
        f"The balanced layout (variable boards with index <= {cost['threshold']:.2f}, "
        f"{_pct(cost['kept_share'], digits=0)} of them) moves the typical seat spread from "
        f"{100 * var_sp['spread']:.1f} to {100 * bal_sp['spread']:.1f} points (RMS; "
        f"{int(bal_sp['boards']):,} boards x {bal_games} games) and seat 0's mean win rate "
        "from "
        f"{_pct(bs.loc[('variable', 'seat_0'), 'mean'])} to "
        f"{_pct(bs.loc[('balanced', 'seat_0'), 'mean'])}; it takes "
        f"{cost['draws_per_board']:.1f} draws, {cost['us_per_balanced_board']:.0f} µs per "
        "board. " + _balanced_verdict(bs))


DRAFTS = ("A board fixes the draft: the classic players' placements are deterministic "
          "given the board (the reference draft replays them), so every board's seat order "
          "above is that of one draft, and the dice, the deck and the steals decide the rest. "
          "Drawn placements (the strategy parameter placement_temperature) shrink the "
          "spread: experiments/players/stochastic_draft.toml measures by how much on the "
          "same boards (results/players-draft, docs/findings.md).")


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
    if eq["all_equivalent"].iloc[0]:
        seat = (f"the seat index has no effect: every seat's effect lies in [{lo:+.2f}, "
                f"{hi:+.2f}] points (90% intervals), equivalent to none within "
                f"±{margin:.1f} points (TOST, largest p = {eq['p_value'].max():.1g}; "
                f"Hotelling of equal seats, Holm {format_p(seat_p)})")
    else:
        seat = (f"the seat index is not shown equivalent to no effect within ±{margin:.1f} "
                f"points: its effects span [{lo:+.2f}, {hi:+.2f}] points (90% intervals; "
                f"Hotelling of equal seats, Holm {format_p(seat_p)})")
    parts = [k for k in c.index if k.startswith("  ")]
    inter = c.loc[parts[3]]
    return (f"Seat index, set-up position and turn position apart ({n} players, n = "
            f"{deals:,} deals x {n * n} set-up and turn orders, every seat in every pick and "
            f"turn position on every deal): the first pick of the set-up is worth "
            f"{pts(c.loc['first pick: pick 0 minus the other picks'])} over the other picks, "
            f"the first move {pts(c.loc['first move: turn 0 minus the other turns'])} over the "
            f"other turns; {seat}. Seat 0's advantage in the standard game, "
            f"{pts(c.loc['standard game: seat 0 win rate minus 1 / players'])}, is "
            f"{pts(c.loc[parts[0]])} from placing first, {pts(c.loc[parts[1]])} from moving "
            f"first and {pts(c.loc[parts[2]])} from being seat 0 (interactions "
            f"{pts(inter)}; t intervals over deals).")


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
    return (
        f"How unfair is a board? ({len(pb):,} variable boards x {games} games, four classic "
        f"players, independent dice.) A seat's win rate varies from board to board with a "
        f"between-board standard deviation of {sd:.1f} points [{lo:.1f}, {hi:.1f}] (seat 0; "
        f"seats 1-3 {others}; one-way random effects, method of moments, bootstrap over "
        f"boards), and the typical board's seats are {100 * sp['mean']:.1f} points "
        f"[{100 * sp['ci_low']:.1f}, {100 * sp['ci_high']:.1f}] (RMS) from a fair share. How "
        f"many boards a test calls unfair depends on the games per board as much as on the "
        f"boards: {_pct(sp['unfair_share'], sp['unfair_ci_low'], sp['unfair_ci_high'])} at "
        f"{games} games (chi-square per board, Benjamini-Hochberg), {unfair_p} of "
        f"{int(spp['boards'])} at {int(spp['games_per_board']):,} games (boards-precise), and "
        f"the per-board test would have power {power.loc[g_small, 'power']:.2f} at "
        f"{g_small} games (the typical spread). At {games} games "
        f"{100 * v4.loc['seat_0', 'reliability']:.0f}% of a board's observed seat rate is "
        "real (reliability).")


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
        return f"r = {row['r']:.2f} [{row['r_ci_low']:.2f}, {row['r_ci_high']:.2f}]"

    def r2(t, k):
        return _pct(t.loc[k, "r2"], t.loc[k, "r2_ci_low"], t.loc[k, "r2_ci_high"])

    passed = pr.loc["index, calibrated", "r_ci_low"] > 0
    beats = pr.loc["index, calibrated", "r2_ci_low"] > pr.loc["intercept only", "r2"]
    verdict = ("r > 0 holds" if passed else "r > 0 is not shown") + (
        " and the index adds to the baseline" if beats else
        ", and the index is not shown to add to the baseline")
    return (
        "The fairness index on its own (the scalar: the RMS distance of the predicted seat "
        "rates from the fair share) against a board's observed squared seat spread: on "
        f"{int(ho['boards'].iloc[0]):,} held-out boards {rr(ho)}; calibrated on the "
        f"{int(ho['train_boards'].iloc[0]):,} training boards it explains "
        f"{r2(ho, 'index, calibrated')} of the spread out of sample, against "
        f"{r2(ho, 'intercept only')} for the intercept-only baseline. Pre-registered check "
        f"(index-preregistered: {int(pr['boards'].iloc[0])} fresh boards x "
        f"{int(r['per_board_index_preregistered']['games'].median()):,} games, seed "
        f"and analysis fixed in its experiment file before play): {rr(pr)}, R² "
        f"{r2(pr, 'index, calibrated')} against {r2(pr, 'intercept only')}: {verdict}. The "
        "per-seat model behind it, with its seat intercepts, explains "
        f"{_pct(sm['r2'], sm['r2_ci_low'], sm['r2_ci_high'])} of each seat's win rate on the "
        f"held-out boards and {_pct(pc['r2'], pc['r2_ci_low'], pc['r2_ci_high'])} on "
        f"{int(pc['boards'])} boards played "
        f"{int(r['per_board_boards_precise']['games'].median()):,} times each; each seat's "
        "mean rate alone "
        f"(the intercepts) explains {_pct(si['r2'], si['r2_ci_low'], si['r2_ci_high'])} of "
        "the held-out seat rates.")


def _power_note(power: pd.DataFrame, chosen: int = 100) -> str:
    """Why 100 games per board, in the numbers of this run's board set."""
    row = power.loc[chosen] if chosen in power.index else power.iloc[0]
    return (f"four players: what G games per board buy. We chose {chosen}: a seat's interval "
            f"is ±{100 * row['ci_half_width']:.1f} points, {100 * row['reliability']:.0f}% of "
            f"a board's observed seat rate is real (reliability), and the per-board test of "
            f"equal seats has power {row['power']:.2f} at the typical board's spread (80% "
            f"needs {row['games_for_power_80']:.0f} games); 10,000 boards x {chosen} games "
            "fit the budget of the headline run")


def _balanced_verdict(bs: pd.DataFrame) -> str:
    """Is the balanced layout fairer? The difference of the mean squared spread (rms2, its
    Welch interval) relative to the variable boards' (10,000 boards: its own error is
    small beside the difference's), and seat 0's mean win rate."""
    d = bs.loc[("balanced", "spread (rms2)")]
    base = bs.loc[("variable", "spread (rms2)"), "mean"]
    lo, hi = d["diff_ci_low"] / base, d["diff_ci_high"] / base
    s0 = bs.loc[("balanced", "seat_0")]
    ci = (f"squared spread {100 * d['diff'] / base:+.0f}% [{100 * lo:+.0f}, {100 * hi:+.0f}] "
          f"of the variable boards', seat 0 "
          f"{_pts(s0['diff'], s0['diff_ci_low'], s0['diff_ci_high'])}; Welch")
    if hi < 0:
        return (f"Fairer ({ci}), not fair: the rest of a board's seat order comes from how "
                "the game unfolds from its draft, which no board score sees.")
    return f"Not shown to be fairer ({ci})."


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
    lb = r["luck_classic_won"]
    worst3 = int(s3["win_rate"].idxmin())
    worst4 = int(s4["win_rate"].idxmin())
    cpow = _catanatron_power(s4.loc[0, "win_rate"])
    return [
        "catansim's quickstart (20,000 games, four classic players): seat 0 28.7% [28.1, "
        f"29.4]; here {_pct(s4.loc[0, 'win_rate'], s4.loc[0, 'ci_low'], s4.loc[0, 'ci_high'])} "
        f"(n = {int(s4['seat_games'].iloc[0]):,}). Four random players were flat (25.5 / 24.9 / "
        f"24.8 / 24.8%); here {' / '.join(_pct(v) for v in rnd['win_rate'])}.",
        "Goodman, Perez-Liebana and Lucas (\"Seeding for Success\", IEEE ToG 2025), three MCTS "
        "bots: the first player won 22% against a fair 33%. Three classic players here: seat 0 "
        f"wins {_pct(s3.loc[0, 'win_rate'], s3.loc[0, 'ci_low'], s3.loc[0, 'ci_high'])}: "
        + ("the opposite sign: our scripted players gain from placing and moving first"
           if s3.loc[0, "win_rate"] > 1 / 3 else "the same sign") + ". Their board seed "
        "mattered more than the dice seed; here the board's share of a classic seat's win is "
        f"{_share(lb, 'board')} and the game seed's (dice, deck, steals, decisions) "
        f"{_share(lb, SEED)}.",
        "Catanatron's value-function bots (1,000 four-player games, seats shuffled): 25.9 / "
        "26.4 / 24.3 / 23.4%, not significant. A test of seat 0 against 25% on 1,000 games "
        f"would detect the advantage found here ({100 * (s4.loc[0, 'win_rate'] - 0.25):+.1f} "
        f"points) with power {cpow:.2f} (statsmodels NormalIndPower, one sample, 0.05): "
        + ("their null result does not contradict it." if cpow < 0.8 else
           "an advantage that large would likely have shown; their bots appear less "
           "seat-dependent than ours."),
        "Human tournament records report a disadvantage for the third seat (seat 2). Here the "
        f"worst seat is seat {worst4} with four classic players and seat {worst3} with three "
        f"(3-player equal-seats test, Holm {format_p(t3.loc['baseline', 'p_adjusted'])}).",
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


SMALL_NOTE = ("<p class='power'><b>Small scale:</b> a few games of each experiment (tests, "
              "CI); the numbers are noise.</p>")

ANSWERS = Part(
    "answers", "The answers",
    "Each answer with its 95% interval and n; the sections below hold the tables "
    "and the method of each. Seats are 0-based: seat 0 places first in the set-up "
    "(snake order) and, unless first_turn says otherwise, takes turn 1.", (
        Text(lambda r: _ul(answers(r.data))),
        Text(lambda r: "<p><b>Beside the published figures.</b></p>" + _ul(published(r.data))),
        Text(SMALL_NOTE, when=lambda r: r.scale == "small")))


def _preset_tables(n: int) -> tuple[Table, ...]:
    def seats(r):
        return r[f"seats_{n}p"].rename(index={"baseline": "classic"}, level="variant")

    def test(r):
        return r[f"seat_test_{n}p"].rename(index={"baseline": "classic"})

    return (Table(f"seats_{n}p", seats, f"{n} players: win rate [95% Wilson CI] per preset "
                  "and seat; n = games per preset",
                  view=lambda t, r: _grid(t, "variant", "seat", "seat ")),
            Table(f"seat_test_{n}p", test, lambda r: caption(test(r), f"{n} players; n = "
                                                                     "decided games"),
                  view=lambda t, r: show(t, ["n", "chi2", "p_adjusted", "significant",
                                             "cohens_w", "max_gap", "games_for_w"])))


PRESETS = Part(
    "presets", "The seat effect of each preset",
    "One preset in every seat, the same boards and dice for every preset (common "
    "random numbers). Win rate per seat with a Wilson interval (n = games); "
    "chi-square test of equal seats over the decided games, Holm over the presets "
    "of each player count; Cohen's w is its effect size.", (
        Figure("seats_by_preset", lambda r: _plots().preset_seats_figure(
            {4: r["seats_4p"], 3: r["seats_3p"]})),
        *(t for n in (4, 3) for t in _preset_tables(n))))


def _mixed_tables(n: int) -> tuple[Table, ...]:
    m = f"mixed_{n}p"
    return (_table(f"mixed_seats_{n}p", f"{m}.seats", ["deals", "seat_games", "win_rate",
                                                         "ci_low", "ci_high", "advantage"],
                   f"{n} players; n = deals"),
            _table(f"mixed_test_{n}p", f"{m}.test", ["n", "t2", "f", "df_num", "df_den",
                                                       "p_value", "max_gap"],
                   "Hotelling's T² of equal seats", index=False),
            Table(f"mixed_cells_{n}p", f"{m}.cells",
                  lambda r: caption(r[f"{m}.cells"], "each strategy in each seat; n = deals"),
                  view=lambda t, r: _grid(t, "strategy", "seat", "seat ")))


MIXED = Part(
    "mixed", "Mixed tables, every seating on the same deals",
    "Four (three) archetypes at one table; each deal is played in every rotation, "
    "so pooled over the rotations every strategy sits in every seat on every "
    "deal. The seat's win rate is the mean over deals of its wins in the "
    "rotations, with a t interval over deals; Hotelling's T² tests equal seats. "
    "Each strategy in each seat: Wilson intervals (one game per deal).", (
        Figure("mixed_tables", lambda r: _plots().rotation_figure(
            {4: r["mixed_4p"], 3: r["mixed_3p"]})),
        *(t for n in (4, 3) for t in _mixed_tables(n))))


def _order_tables(n: int) -> tuple[Table, ...]:
    o = f"order_{n}p"
    return (
        _table(f"order_contrasts_{n}p", f"{o}.contrasts", ["n", "estimate", "ci_low",
                                                            "ci_high", "p_value"],
               f"{n} players; n = deals; win-rate points as fractions"),
        _table(f"order_effects_{n}p", f"{o}.effects", ["n", "win_rate", "effect", "ci_low",
                                                        "ci_high", "p_adjusted", "significant"],
               f"{n} players"),
        _table(f"seat_equivalence_{n}p", f"{o}.equivalence", [
            "n", "estimate", "ci90_low", "ci90_high", "margin", "p_value", "equivalent"],
               f"{n} players: each seat index's effect against ±margin; n = deals"),
        _table(f"order_tests_{n}p", f"{o}.tests", ["n", "df_num", "f", "p_value",
                                                    "p_adjusted", "significant"],
               f"{n} players"),
        _table(f"order_cells_{n}p", f"{o}.cells", ["games", "win_rate", "ci_low", "ci_high"],
               f"{n} players: every seat, pick and turn position"))


SEAT_ORDER = Part(
    "order", "Seat index, set-up order or turn order?",
    "The rule first_pick says which seat places first in the snake set-up, "
    "first_turn which seat takes turn 1. Every deal is played with every pair "
    "(first_pick, first_turn) on the same boards and dice (common random "
    "numbers), so on every deal every seat holds every pick position with every "
    "turn position: seat index, pick position and turn position are three crossed "
    "factors. Effects are marginal win rates minus the mean cell, with t "
    "intervals over deals (equal to a linear probability model with the three "
    "factors, cluster-robust by deal), Holm over the rows; the standard game's "
    "seat-0 advantage splits exactly into the three position-0 effects and their "
    "interactions. The seat index is tested for equivalence to no effect within "
    f"±{100 * EQUIVALENCE_MARGIN:.1f} points (two one-sided t tests, 90% "
    "intervals). Hotelling's T² tests, Holm.", (
        Figure("order_effects", lambda r: _plots().order_figure(
            {4: r["order_4p.effects"], 3: r["order_3p.effects"]})),
        *(t for n in (4, 3) for t in _order_tables(n))))

_VARIANCE_COLS = ["boards", "games_per_board", "mean", "between_var", "between_ci_low",
                  "between_ci_high", "between_sd", "reliability", "games_for_reliability_90",
                  "board_share", "ci_low", "ci_high", "unfair_share"]
_VARIANCE_SETS = (("boards_4p", "4 players"), ("boards_3p", "3 players"),
                  ("boards_precise", "4 players, 2,000 games per board"),
                  ("index_preregistered", "4 players, 1,000 games per board"))


def _precise(r) -> pd.DataFrame:
    return r["per_board_boards_precise"].droplevel("variant")


def _precise_cols(t: pd.DataFrame) -> list[str]:
    return ["games"] + [c for c in t.columns if c.startswith(("win_rate_", "ci_"))] + [
        "rms", "rms2", "p_adjusted", "unfair", "turns_mean"]


BOARDS = Part(
    "boards", "Each board's seat order",
    "Board sets: every board played many times with independent dice, the same "
    "four (three) classic players. The between-board variance of a seat's win "
    "rate is its observed variance over the boards minus the mean sampling "
    "variance (one-way random effects, method of moments; percentile bootstrap "
    "over boards); reliability = the share of a board's observed rate that is "
    "real. Seat spread = the RMS distance of a board's seat rates from the fair "
    "share (its square estimated without bias). A board is 'unfair' when the "
    "chi-square test of equal seats rejects after Benjamini-Hochberg over the "
    "boards. The classic players place deterministically, so a board fixes "
    "everyone's set-up; the dice decide the rest.", (
        Figure("seat0_by_board", lambda r: _plots().spread_figure(r["distribution"])),
        *(_table(f"board_variance_{key}", f"variance_{key}", _VARIANCE_COLS,
                 f"{label}; seat rows: a seat's win rate; spread: mean = typical RMS spread; "
                 "turns: mean game length") for key, label in _VARIANCE_SETS),
        _table("board_power", "power", ["ci_half_width", "reliability", "power", "cohens_w",
                                        "games_for_power_80"],
               lambda r: _power_note(r["power"])),
        Figure("precise_boards", lambda r: _plots().precise_boards_figure(
            r["per_board_boards_precise"])),
        Table("boards_precise", _precise,
              lambda r: caption(_precise(r), "the 100 boards of boards-precise"),
              view=lambda t, r: show(t, _precise_cols(t)))))

_LUCK = (("luck_mixed_won", "mixed table, win"), ("luck_mixed_vp", "mixed table, final VP"),
         ("luck_classic_won", "four classic players, win"),
         ("luck_classic_vp", "four classic players, final VP"))


def _luck_caption(key: str, label: str):
    def text(r) -> str:
        t = r[key]
        return (f"{label}; {int(t['boards'].iloc[0])} boards x {int(t['seeds'].iloc[0])} game "
                f"seeds, {int(t['cells'].iloc[0])} cells")
    return text


LUCK = Part(
    "luck", "The luck budget",
    "A crossed design: 400 boards, each played with the same 100 game seeds "
    "(a game seed sets the dice, the deck, the steals and every random draw of "
    "the decisions, so its component is more than the dice; the board is dealt "
    "apart). A mixed table in its four rotations (every strategy in every seat "
    "on every board and seed), and four classic players. For each seat cell a "
    "two-way ANOVA (board x game seed, one game each) gives the board's and the "
    "seed's variance components (method of moments); seat and strategy are the "
    "variance of the cell means; the rest, board x game seed, is what board and "
    "seed do together and includes each game's own noise (one game per board "
    "and seed cannot tell the two apart). Intervals: jackknife over boards plus "
    "over seeds.", (
        Figure("luck_budget", lambda r: _plots().luck_figure({
            "mixed table, win": r["luck_mixed_won"], "mixed table, final VP": r["luck_mixed_vp"],
            "4 classic, win": r["luck_classic_won"],
            "4 classic, final VP": r["luck_classic_vp"]})),
        *(_table(key, key, ["variance", "ci_low", "ci_high", "share", "share_ci_low",
                            "share_ci_high"], _luck_caption(key, label))
          for key, label in _LUCK)))


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
                   f"{n} players"),
            _table(f"regression_coefficients_{n}p", f"{g}.coefficients", [
                "coef", "ci_low", "ci_high", "p_adjusted", "significant", "sd"],
                   f"{n} players; coef per standard deviation of the feature"))


FEATURES = Part(
    "features", "What makes a board unfair?",
    "Each board's seat-0 advantage, seat spread and game length regressed on its "
    "features: the games table's (pips per resource and their spread, 6/8 and "
    "same-number adjacency, same-terrain pairs, best intersections, desert, "
    "harbors) and the published balance measures computed from the board "
    "(resource distance, largest cluster, pip clustering, hot intersections, "
    "reds on one resource, pips per hex). OLS on standardised features, HC3 "
    "intervals, Benjamini-Hochberg per target; R² cross-validated by board (5 "
    "folds) beside the split-half reliability of the target, the most any model "
    "could explain.", (
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

    return (Table(f"index_model_{n}p", model, lambda r: caption(
        model(r), f"{n} players: the model refitted on this run's training boards beside the "
                  "coefficients in the engine"),
                  view=lambda t, r: show(t, ["coef", "ci_low", "ci_high", "in_engine",
                                             "boards"])),
            _table(f"index_calibration_{n}p", f"frozen_check_{n}p.calibration",
                   ["boards", "index", "spread", "ci_low", "ci_high"],
                   f"{n} players, held-out boards by decile of the index"))


INDEX = Part(
    "index", "A fairness index from the board alone",
    "The index replays the set-up of classic players on the board (the reference "
    "draft: seat 0 first, snake order, the classic preset's placement score, "
    "the Distance Rule; it agrees with the engine's set-up on every board "
    "checked), describes each seat's two settlements (pips by resource, distinct "
    "resources and numbers, harbors, wood-brick and wheat-ore pairs, room to "
    "expand) and predicts each seat's win rate with a linear model fitted on 4 of "
    "every 5 boards of the board set (OLS, cluster-robust by board). The index is "
    "the RMS distance of the predicted seat rates from the fair share. Checked on "
    "the held-out fifth, on boards-precise (100 new boards x 2,000 games), on "
    "index-preregistered (200 fresh boards x 1,000 games, its analysis fixed in "
    "its experiment file before play) and on the balanced boards. The scalar "
    "index alone is checked against each board's observed spread beside an "
    "intercept-only baseline (index_fit). The coefficients in the engine "
    "(core.board_nb) were fitted by this study with the players of that time; "
    "index_model_* sets this run's refit beside them, and the engine keeps its "
    "own so that balanced deals the same boards in every version.", (
        Figure("index_calibration", lambda r: _plots().calibration_figure({
            "held-out boards (4p)": r["frozen_check_4p.calibration"],
            "held-out boards (3p)": r["frozen_check_3p.calibration"]})),
        _table("index_fit", "index_fit", ["boards", "train_boards", "r", "r_ci_low",
                                          "r_ci_high", "r2", "r2_ci_low", "r2_ci_high"],
               "the scalar index against each board's observed squared spread, out of "
               "sample, beside the intercept-only baseline; index-preregistered was fixed "
               "in its experiment file before play"),
        _table("index_bands", "index_bands", ["boards", "games_per_board", "index", "spread",
                                              "ci_low", "ci_high", "q10", "q50", "q90"],
               "what an index value delivers: boards-precise and index-preregistered "
               "(1,000-2,000 games per board) by band of the index"),
        Table("index_checks", index_checks, lambda r: caption(
            index_checks(r), "the index in the engine on boards it was not fitted on; r2 of "
                             "the seat win rates"),
              view=lambda t, r: show(t, ["boards", "seat_rows", "r2", "r2_ci_low",
                                         "r2_ci_high", "reliability", "explained",
                                         "index_spread_corr", "mean_index",
                                         "observed_spread"])),
        *(t for n in (4, 3) for t in _index_tables(n))))

BALANCED = Part(
    "balanced", "The balanced layout",
    "layout = \"balanced\": variable (A-R spiral) boards drawn until the "
    "four-player fairness index is at most the threshold. Its boards played as "
    "boards-4p plays variable ones (100 games per board, four classic players). "
    "Means over boards with t intervals; differences from the variable boards "
    "with Welch intervals. The cost: the share of variable boards kept (of "
    "boards-4p), the draws per board, and the time to deal a board.", (
        Figure("balanced_boards", lambda r: _plots().board_sets_figure({
            "variable": r["per_board_boards_4p"], "balanced": r["per_board_balanced_4p"]})),
        _table("balanced_vs_variable", "board_sets", [
            "boards", "mean", "ci_low", "ci_high", "spread", "spread_ci_low", "spread_ci_high",
            "diff", "diff_ci_low", "diff_ci_high", "p_value"],
               "seat_<s>: mean win rate over boards; spread: sqrt of the mean unbiased rms2; "
               "turns: mean game length"),
        _table("balanced_cost", "balanced_cost", [
            "threshold", "variable_boards", "kept_share", "draws_per_board",
            "us_per_balanced_board", "us_per_variable_board"], index=False)))


def _analysis_seconds(r) -> pd.DataFrame:
    return pd.DataFrame({"seconds": r["timing"]}).rename_axis("analysis")


RUNS = Part(
    "runs", "Runs",
    "Every experiment file of catansim/studies/experiments/seats-and-boards/, "
    "its games (all "
    "variants) and the time it took to play (one 2-core machine shared with "
    "other work; resumed runs add up).", (
        Table("runs", lambda r: runs_frame(r.book), "games and seconds of each run"),
        Table("analysis_seconds", _analysis_seconds, "seconds of each analysis in this build")))

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
        parts.append(f"{inside} of {len(c)} engine coefficients lie in the 95% interval of "
                     f"this run's refit ({n} players, `index_model_{n}p`)")
    return ("Refitted on this run's games: " + "; ".join(parts) + ". The engine keeps its "
            "coefficients, so that `balanced` deals the same boards in every version.")


def write_readme(out: Path, r: dict, book: dict, scale: str, report_seconds: float) -> None:
    runs = runs_frame(book)
    total = int(runs["games"].sum())
    play_s = float(runs["seconds"].fillna(0).sum())
    analysis_s = sum(r["timing"].values())  # the report header's "analyses" figure
    lines = [f"# {TITLE}", "", f"**Question.** {QUESTION}", "",
             "**Rebuild.** `" + COMMAND + "` (resumable: rerunning continues the runs and "
             "rebuilds the report). `--scale small` plays a few games of each experiment.",
             "", "## Answers", ""]
    lines += [f"- {a}" for a in answers(r)]
    lines += ["", "## Beside the published figures", ""]
    lines += [f"- {a}" for a in published(r)]
    lines += ["", "## Runs", "",
              f"{total:,} games in all, played in {play_s / 60:.0f} minutes on a shared "
              f"2-core machine; this report's analyses took {analysis_s:.0f} s, and "
              f"with its tables, figures and report {report_seconds:.0f} s.", "",
              "| experiment | variants | games per variant | boards x games | games | "
              "seconds |", "|---|---:|---:|---:|---:|---:|"]
    for name, e in runs.iterrows():
        bx = (f"{int(e['boards']):,} x {int(e['games_per_board']):,}"
              if pd.notna(e["boards"]) else "")
        sec = f"{e['seconds']:.0f}" if pd.notna(e["seconds"]) else ""
        lines.append(f"| `{name}` | {int(e['variants'])} | {int(e['games_per_variant']):,} | "
                     f"{bx} | {int(e['games']):,} | {sec} |")
    lines += ["", "## Notes", "",
              "- The fairness index's coefficients in the engine (`core.board_nb`) were fitted "
              "by this study on the training boards (4 of every 5, in play order) of boards-4p "
              "(8,000 boards) and of an earlier 5,000-board run of boards-3p (4,000 boards; "
              "this run plays its first 3,000, whose held-out fifth was held out then too), "
              "with the players of that time. " + _refit_note(r) + " Every check of the index "
              "(`index_checks`) is of the coefficients in the engine, on boards they were not "
              "fitted on.",
              "- The index and the balanced layout are for `classic` players: other players "
              "draft otherwise. The balanced layout filters `variable` (A-R spiral) boards "
              "only; a `random_numbers` version would need its own threshold.",
              f"- {DRAFTS}",
              f"- Scale: {total / 1e6:.2f} million games, inside the study's budget of 4 "
              "million; every experiment file ran to the end."]
    lines += ["", "## Files", "",
              "- `report.html`: the report (one file, figures inlined).",
              "- `tables/*.csv`: every table of the report (`method` columns name the "
              "statistics).",
              "- `figures/*.png`: every figure.",
              "- `data/`: the datasets and the per-board tables (`per-board-*.parquet`); "
              "not committed, rebuilt by the command.", "",
              "| table | what |", "|---|---|"]
    lines += [f"| `{k}` | {v} |" for k, v in TABLES.items()]
    lines += ["", "| figure | what |", "|---|---|"]
    lines += [f"| `{k}` | {v} |" for k, v in FIGURES.items()]
    if scale == "small":
        lines += ["", "*Built at scale small: the numbers are noise.*"]
    atomic_write_text(out / "README.md", "\n".join(lines) + "\n")


TABLES = {
    "seats_4p, seats_3p": "win rate per seat and preset (one preset in every seat), Wilson",
    "seat_test_4p, seat_test_3p": "chi-square test of equal seats per preset, Holm",
    "mixed_seats_*, mixed_test_*, mixed_cells_*": "a mixed table pooled over its rotations "
                                                  "on the same deals",
    "order_contrasts_*": "first pick, first move, last pick, seat 0; the standard game's "
                         "seat-0 advantage split into pick, move, seat and interactions",
    "order_effects_*, order_tests_*, order_cells_*": "every seat index, pick and turn "
                                                     "position",
    "seat_equivalence_*": "each seat index's effect against +-0.5 points (TOST)",
    "board_variance_*": "between-board variance of each seat's win rate, the typical "
                        "spread, game length",
    "board_power": "what G games per board buy (interval, reliability, power)",
    "boards_precise": "the 100 boards played 2,000 times each, every seat with its interval",
    "luck_*": "the luck budget: seat, strategy, board, game seed and board x game seed "
               "(with each game's own noise)",
    "regression_fit_*, regression_coefficients_*": "the balance measures against seat-0 "
                                                   "advantage, spread and game length",
    "index_checks": "the per-seat model on held-out boards, beside seat intercepts alone",
    "index_fit": "the scalar index against the observed spread, beside an intercept-only "
                 "baseline, with the pre-registered check",
    "index_bands": "what an index value delivers: observed spreads by band of the index",
    "index_model_*": "the index's model refitted here beside the coefficients in the engine",
    "index_calibration_*": "observed spread by decile of the index",
    "balanced_vs_variable, balanced_cost": "the balanced layout against variable boards",
    "runs, analysis_seconds": "games and time of each run and analysis",
}
FIGURES = {
    "seats_by_preset": "win rate by seat for every preset, 4 and 3 players",
    "mixed_tables": "a mixed table pooled over its rotations",
    "order_effects": "the pick-position, turn-position and seat-index effects",
    "seat0_by_board": "seat 0's win rate over 10,000 boards against chance alone",
    "precise_boards": "100 boards x 2,000 games: each board's seat order",
    "luck_budget": "the luck budget",
    "predictability": "balance measures and the fairness index: cross-validated R² beside "
                      "reliability",
    "seat0_coefficients, length_coefficients": "what goes with seat 0's advantage and with "
                                               "game length",
    "index_calibration": "observed spread by decile of the index",
    "balanced_boards": "seat spread of variable and balanced boards",
}


def write_report(out: Path, r: dict, book: dict, scale: str) -> Path:
    runs = runs_frame(book)
    items = [("question", QUESTION), ("rebuild", COMMAND),
             ("games", f"{int(runs['games'].sum()):,} in {len(runs)} experiments "
                       f"(catansim/studies/experiments/{NAME}/)"),
             ("scale", scale),
             *provenance({name: out / "data" / name for name in ORDER}),
             ("analyses", f"{sum(r['timing'].values()):.0f} s")]
    sections = sections_of(REPORT, Results(r, book=book, scale=scale))
    return write_study_report(out, sections, f"catansim study: {TITLE}", items)


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
    path = write_report(out, r, book, scale)
    seconds = time.perf_counter() - t
    write_readme(out, r, book, scale, seconds)
    return path


STUDY = Study(name=NAME, title=TITLE, build=build, description=QUESTION)
