"""The supply-shortage study: when does the shortage rule matter, and who does it hurt?

Four experiment files (``experiments/shortages/``, package data), each a dataset whose arms
play the same games: the official and the strict shortage rule and an unlimited bank at the
official supply of 19 cards per resource (the headline, 10^6 games per arm); the three
rules (official, strict, off) with a small supply of 9; supplies of 19, 15, 12 and 9
under the official and the strict rule; and strategy mixes from city tables to expander
tables. Every comparison is paired game by game (``analysis.contrasts``), Holm-corrected
over each dataset's table; shortage counts, timing and who loses the cards come from
``analysis.shortages``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..analysis import contrasts as C
from ..analysis import shortages as SH
from ..analysis import stats as ST
from ..analysis.measures import RES
from ..reports import Section
from . import _rule_study as U

TITLE = "The supply-shortage rule: when it matters and whom it hurts"
QUESTION = "When does the shortage rule matter, and who does it hurt?"
TABLES = ("city", "halves", "mixed", "expander")
TABLE_WORDS = {"city": "four city", "halves": "two city + two expander",
               "mixed": "builder, city, expander, army", "expander": "four expander"}
SUPPLIES = (19, 15, 12, 9)

ARM_LABELS = {
    "rule19": {"baseline": "official", "strict": "strict", "unlimited": "unlimited bank"},
    "rule9": {"baseline": "official (9)", "strict": "strict (9)", "off": "off (9)"},
    "supply": {"baseline": "official 19", "strict_19": "strict 19", "unlimited": "unlimited",
               **{f"{r}_{s}": f"{r} {s}" for r in ("official", "strict") for s in SUPPLIES}},
    "mixes": {"baseline": "city official", **{
        f"{t}_{r}": f"{t} {r}" for t in TABLES for r in ("official", "strict", "unlimited")}},
}


BUDGET = [
    "Budget: the headline (`rule19`) has 10^6 games per arm (official, strict, unlimited "
    "bank); the other datasets are sized by the power lines below (a rule change that alters few "
    "games has a small sd of the paired differences, so 30,000-100,000 pairs see small "
    "effects). The supply paying in turn order (`off`) is measured with 9 per resource "
    "(`rule9`), where shortages are common, rather than at 10^6 games where it rarely "
    "applies.", ""]


def arm(name: str, table: str, rule: str) -> str:
    """The variant name of a mixes table under a rule (the baseline is city official)."""
    return "baseline" if (table, rule) == ("city", "official") else f"{table}_{rule}"


def supply_arm(rule: str, supply: int) -> str:
    if supply == 19:
        return "baseline" if rule == "official" else "strict_19"
    return f"{rule}_{supply}"


def pairs_of(name: str) -> list[tuple[str, str]]:
    if name == "rule19":
        return [("strict", "baseline"), ("unlimited", "baseline")]
    if name == "rule9":
        return [("strict", "baseline"), ("off", "baseline")]
    if name == "supply":
        out = [(supply_arm("official", s), "unlimited") for s in SUPPLIES]
        out += [(supply_arm("strict", s), supply_arm("official", s)) for s in SUPPLIES]
        return out
    if name == "mixes":
        out = []
        for t in TABLES:
            out += [(arm(name, t, "strict"), arm(name, t, "official")),
                    (arm(name, t, "unlimited"), arm(name, t, "official"))]
        return out
    return []


def plan_for(ds: U.Dataset) -> C.Plan:
    outcomes = SH.shortage_outcomes(ds.experiment.players)
    strat = ds.name == "mixes"
    plan = C.Plan()
    plan.add("contrasts", C.contrasts_analysis(pairs_of(ds.name), outcomes, strategy_wins=strat))
    plan.add("arms", C.arms_analysis(outcomes))
    plan.add("timing", SH.TIMING)
    plan.add("shares", C.shares_analysis(SH.SHORTAGE_SHARES))
    plan.add("seat_groups", C.seat_groups_analysis(SH.WITHHELD_BY_SEAT, SH.WITHHELD_RATIO))
    plan.add("differ", C.differences_analysis(pairs_of(ds.name), SH.DIFFER_FACETS))
    return plan


def finish(name: str, r: dict) -> dict:
    """The timing analysis's two tables under their own names."""
    r["curve"], r["timing"] = r["timing"]["curve"], r["timing"]["timing"]
    return r


# --- helpers ---------------------------------------------------------------------------


def _lab(name: str, v: str) -> str:
    return U.arm_label(ARM_LABELS, name, v)


def _arms(name: str, pairs=None) -> list[tuple[str, str, str]]:
    return U.labelled_pairs(ARM_LABELS, name, pairs or pairs_of(name))


_row = U.contrast_row


def _rate(arms, v, o, digits=2):
    if (v, o) not in arms.index:
        return "n/a"
    r = arms.loc[(v, o)]
    return U.ci_text(r["mean"], r["ci_low"], r["ci_high"], 100, digits, "%")


def _mean(arms, v, o, digits=3):
    if (v, o) not in arms.index:
        return "n/a"
    r = arms.loc[(v, o)]
    return U.ci_text(r["mean"], r["ci_low"], r["ci_high"], 1, digits)


def _diff(r, pct=False, digits=None):
    if r is None:
        return "n/a"
    return U.ci_text(r["diff"], r["ci_low"], r["ci_high"], 100 if pct else 1, digits,
                     " pp" if pct else "", signed=True)


def _share(shares, v, what, digits=1):
    if (v, what) not in shares.index or not shares.loc[(v, what)]["denominator"]:
        return "n/a"
    r = shares.loc[(v, what)]
    return U.ci_text(r["share"], r["ci_low"], r["ci_high"], 100, digits, "%")


def make_answer(res: dict, datasets: dict) -> list[str]:
    r19 = res["rule19"]
    a19, c19, sh19, t19 = r19["arms"], r19["contrasts"], r19["shares"], r19["timing"]
    n19 = datasets["rule19"].games
    most = max(RES, key=lambda r: a19.loc[("baseline", f"any_shortage_{r}"), "mean"])
    least = min(RES, key=lambda r: a19.loc[("baseline", f"any_shortage_{r}"), "mean"])
    d19 = r19["differ"]
    strict, unlimited = _differ(d19, "strict"), _differ(d19, "unlimited")
    out = [
        f"<b>At the official supply the sole-recipient exception "
        f"{U.how_often(strict['ci_low'], strict['ci_high'])} and the limit of the supply "
        f"{U.how_often(unlimited['ci_low'], unlimited['ci_high'])}.</b> "
        f"With 19 cards per resource "
        f"{_rate(a19, 'baseline', 'any_shortage')} of games (n = {n19:,}) have at least one "
        f"roll the supply cannot pay in full; {most} runs short most often "
        f"({_rate(a19, 'baseline', f'any_shortage_{most}')}), {least} least "
        f"({_rate(a19, 'baseline', f'any_shortage_{least}')}). The first shortage comes late: "
        f"median turn {t19.loc[('baseline', 'any'), 'median_turn']:.0f} of a game of about "
        f"{a19.loc[('baseline', 'turns'), 'mean']:.0f} turns.",
        f"The sole-recipient exception (the official rule's difference from catanatron's "
        f"strict rule) applies on {_share(sh19, 'baseline', 'sole_recipient')} of the short "
        f"rolls; the strict rule changes some outcome in {_differ_text(d19, 'strict')}. "
        f"An unlimited bank (JSettlers) changes some outcome in "
        f"{_differ_text(d19, 'unlimited')}. Seat win "
        f"rates move by at most {_max_seat(c19):.2f} percentage points under any of the "
        f"rules.",
    ]
    if "rule9" in res:
        a9, c9, sh9 = res["rule9"]["arms"], res["rule9"]["contrasts"], res["rule9"]["shares"]
        ts = _row(c9, "strict", "baseline", "turns")
        to = _row(c9, "off", "baseline", "turns")
        d9 = res["rule9"]["differ"]
        s9, o9 = _differ(d9, "strict"), _differ(d9, "off")
        out.append(
            f"<b>With a small supply the exception "
            f"{U.how_often(s9['ci_low'], s9['ci_high'])} and paying in turn order "
            f"{U.how_often(o9['ci_low'], o9['ci_high'])}.</b> The strict rule changes some "
            f"outcome in {_differ_text(d9, 'strict')}; paying in turn order (off) in "
            f"{_differ_text(d9, 'off')}. With 9 cards per resource "
            f"{_rate(a9, 'baseline', 'any_shortage')} of games have a shortage, "
            f"{_mean(a9, 'baseline', 'shortage_rolls', 2)} short rolls and "
            f"{_mean(a9, 'baseline', 'withheld', 2)} cards withheld per game. Strict against "
            f"official: {_diff(ts, digits=2)} turns per game; the supply paying in turn order "
            f"(off): {_diff(to, digits=2)} turns. The exception applies on "
            f"{_share(sh9, 'baseline', 'sole_recipient')} of short rolls.")
    if "supply" in res:
        asup = res["supply"]["arms"]
        seq = ", ".join(f"{s}: {_rate(asup, supply_arm('official', s), 'any_shortage', 1)}"
                        for s in SUPPLIES)
        out.append(f"Games with a shortage by the supply's size (official rule): {seq}.")
    hurt = _who(res)
    if hurt:
        out.append(hurt)
    return out


_NAN_ROW = {"share": np.nan, "ci_low": np.nan, "ci_high": np.nan, "n": 0,
            "games_differ": 0}


def _differ(table: pd.DataFrame, v: str, facet: str = "any", ref: str = "baseline"):
    """The row of ``games_that_differ`` for arm ``v`` against ``ref`` (NaN if absent)."""
    return table.loc[(v, ref, facet)] if (v, ref, facet) in table.index else _NAN_ROW


def _differ_text(table: pd.DataFrame, v: str) -> str:
    """'X% [lo, hi] of games (n = N pairs; a seat's production in ..., ...)': the games
    arm ``v`` changes in any outcome, then in each."""
    r = _differ(table, v)
    parts = [f"{FACET_WORDS[f]} {_pct(_differ(table, v, f))}" for f in FACET_WORDS]
    return (f"{_pct(r)} of games (n = {int(r['n']):,} pairs; " + ", ".join(parts) + ")")


FACET_WORDS = {"production": "a seat's production in", "final_vp": "a seat's final VP in",
               "winner": "the winner in", "length": "the length in"}


def _pct(r) -> str:
    return U.ci_text(r["share"], r["ci_low"], r["ci_high"], 100, 2, "%") or "n/a"


def _max_seat(c) -> float:
    rows = c[c.index.get_level_values("outcome").str.startswith("win_seat_")]
    return float(rows["diff"].abs().max() * 100) if len(rows) else np.nan


def _who(res: dict) -> str:
    parts = []
    for name, v in (("rule19", "baseline"), ("rule9", "baseline")):
        if name not in res:
            continue
        g = res[name]["seat_groups"]
        try:
            w = g.loc[(v, "standing", "winner", "withheld_share")]
            o = g.loc[(v, "standing", "others", "withheld_share")]
        except KeyError:
            continue
        sh = _share(res[name]["shares"], v, "withheld_leader")
        verdict = ("the others lose the larger share" if o["ci_low"] > w["ci_high"] else
                   "the winner loses the larger share" if w["ci_low"] > o["ci_high"] else
                   "no clear difference between the winner and the others")
        parts.append(
            f"{_lab(name, v)}: the sole leader at the roll loses {sh} of the withheld cards; "
            f"over the game the eventual winner loses "
            f"{U.ci_text(w['mean'], w['ci_low'], w['ci_high'], 100, 3, '%')} of the cards "
            f"owed to them, the others "
            f"{U.ci_text(o['mean'], o['ci_low'], o['ci_high'], 100, 3, '%')} ({verdict})")
    if "mixes" in res:
        g = res["mixes"]["seat_groups"]
        v = arm("mixes", "mixed", "official")
        rows = []
        for s in ("builder", "city", "expander", "army"):
            key = (v, "strategy", s, "withheld_share")
            if key in g.index:
                r = g.loc[key]
                rows.append(f"{s} {U.ci_text(r['mean'], r['ci_low'], r['ci_high'], 100, 3, '%')}")
        if rows:
            parts.append("at the mixed table (official rule), share of owed cards withheld: "
                         + ", ".join(rows))
    if not parts:
        return ""
    return "<b>Who it hurts.</b> " + "; ".join(parts) + "."


def make_sections(res: dict, datasets: dict, scale: str):
    from ..plotting import rule_effects as PR  # noqa: PLC0415  matplotlib: seconds to import

    answer = make_answer(res, datasets)
    secs = [U.answer_section(QUESTION, answer,
                             "Computed from the tables below: rates with 95% Wilson intervals "
                             "and their n; differences paired game by game on common seeds "
                             "(95% paired t intervals, McNemar for 0/1 outcomes), Holm within "
                             "each dataset (* in the tables); shares are ratios of totals with "
                             "sandwich intervals. A shortage: a roll on which the supply could "
                             "not pay everyone owed a resource in full. Games that "
                             "differ: the share of common-seed games whose result differs "
                             "between two rules in any seat's production, any seat's final "
                             "VP, the winner or the length (Wilson intervals). "
                             + U.HOW_OFTEN_NOTE)]

    # --- the official supply ------------------------------------------------------------
    r19 = res["rule19"]
    lab = ARM_LABELS["rule19"]
    s = Section("rule19", "The rules at the official supply (19 per resource)",
                "Dataset rule19: four default players with 19 cards per resource under the "
                "official rule (baseline), the strict rule (nobody paid) and an unlimited "
                "bank, on the same games (the supply paying in turn order, off, is in the "
                "small-supply section). Arm figures "
                "with 95% intervals (rates: Wilson; means: t); paired differences against "
                "the official rule, Holm over the dataset's table.")
    v19 = datasets["rule19"].variants
    s.table("rule19_arms", U.arm_cells(r19["arms"], v19, lab, _ARM_OUTCOMES),
            "per game in each arm, mean [95% CI] (rates in %); n = games", r19["arms"])
    s.table("rule19_contrasts", U.contrast_cells(r19["contrasts"], _arms("rule19")),
            "paired differences against the official rule, diff [95% CI]; discordant games "
            "in the CSV; * significant after Holm", r19["contrasts"])
    s.table("rule19_differ", U.differ_cells(r19["differ"], _arms("rule19")),
            "share of games whose result differs from the official rule's [95% Wilson CI] "
            "(games), by part of the result and in any; n = pairs of games", r19["differ"])
    s.figure("rule19_effects", PR.contrast_forest(
        r19["contrasts"], _arms("rule19"), [
            ("Game length", "difference per game (turns)", ["turns"], 1.0),
            ("Cards per game", "difference per game (cards)", ["withheld", "produced"], 1.0),
            ("Seats", "difference (percentage points)",
             [f"win_seat_{k}" for k in range(4)], 100.0)],
        "The shortage rules against the official one, 19 per resource"))
    s.table("rule19_shares", _share_cells(r19["shares"], lab),
            "of the short rolls, those with one player alone owed the resource; of the "
            "withheld cards, those of the sole leader [95% CI]", r19["shares"])
    secs.append(s)

    # --- when and what ------------------------------------------------------------------
    s = Section("when", "When the supply runs short, and of what",
                "The turn of the first roll the supply could not pay in full, per resource "
                "('any': the first of any), over the games that had one (t interval of the "
                "mean, quantiles), and the share of games that had one (Wilson); the curves "
                "are the cumulative share of all games short by each turn.")
    t19 = r19["timing"]
    s.table("timing_rule19", _timing_cells(t19, lab), "official supply: share of games with "
            "a shortage [95% CI] and the turn of the first; n = games", t19)
    if "supply" in res:
        sup = res["supply"]
        arms_sup = [supply_arm("official", x) for x in SUPPLIES]
        s.figure("first_shortage", PR.curve_figure(
            sup["curve"], "any", arms_sup, ARM_LABELS["supply"],
            "When the supply first runs short, by its size (official rule)"))
    if "rule9" in res:
        s.table("timing_rule9", _timing_cells(res["rule9"]["timing"], ARM_LABELS["rule9"]),
                "9 per resource: as above", res["rule9"]["timing"])
    secs.append(s)

    # --- the supply's size ----------------------------------------------------------------
    if "supply" in res:
        sup = res["supply"]
        s = Section("supply", "The supply's size: when the rule starts to matter",
                    "Dataset supply: four default players with 19, 15, 12 and 9 cards per "
                    "resource under the official and the strict rule, and an unlimited bank, "
                    "on the same games. Each official arm is paired with the unlimited bank "
                    "(what the shortages cost), each strict arm with the official arm of the "
                    "same supply (what the exception changes).")
        s.figure("supply_by_resource", PR.sweep_figure(
            _by_resource(sup["arms"]), "supply", "resource",
            "Games with a shortage, by the supply's size", "cards per resource in the supply",
            "games with at least one shortage (%)", log=True,
            note="official rule; log scale"))
        s.figure("supply_effects", supply_effects_figure(sup["contrasts"]))
        s.table("supply_arms", U.arm_cells(sup["arms"], datasets["supply"].variants,
                                           ARM_LABELS["supply"], _ARM_OUTCOMES),
                "per game in each arm, mean [95% CI] (rates in %); n = games", sup["arms"])
        s.table("supply_contrasts", U.contrast_cells(sup["contrasts"], _arms("supply")),
                "each official supply against the unlimited bank, each strict arm against "
                "the official one of its supply; * significant after Holm", sup["contrasts"])
        s.table("supply_shares", _share_cells(sup["shares"], ARM_LABELS["supply"]),
                "shares per arm [95% CI]", sup["shares"])
        secs.append(s)

    # --- the small supply ------------------------------------------------------------------
    if "rule9" in res:
        r9 = res["rule9"]
        s = Section("rule9", "The rules with a small supply (9 per resource)",
                    "Dataset rule9: four default players with 9 cards per resource under the "
                    "official, strict and off rules, on the same games; paired against the "
                    "official rule.")
        s.table("rule9_arms", U.arm_cells(r9["arms"], datasets["rule9"].variants,
                                          ARM_LABELS["rule9"], _ARM_OUTCOMES),
                "per game in each arm, mean [95% CI] (rates in %); n = games", r9["arms"])
        s.table("rule9_differ", U.differ_cells(r9["differ"], _arms("rule9")),
                "share of games whose result differs from the official rule's [95% Wilson "
                "CI] (games); n = pairs of games", r9["differ"])
        s.table("rule9_contrasts", U.contrast_cells(r9["contrasts"], _arms("rule9")),
                "paired differences against the official rule; * significant after Holm",
                r9["contrasts"])
        s.figure("rule9_effects", PR.contrast_forest(
            r9["contrasts"], _arms("rule9"), [
                ("Game length and spread", "difference per game (turns, VP)",
                 ["turns", "vp_spread"], 1.0),
                ("Cards per game", "difference per game (cards)", ["withheld", "produced"],
                 1.0),
                ("Seats", "difference (percentage points)",
                 [f"win_seat_{k}" for k in range(4)], 100.0)],
            "The shortage rules against the official one, 9 per resource"))
        secs.append(s)

    # --- who loses ---------------------------------------------------------------------
    s = Section("who", "Who loses the withheld cards",
                "Per seat-game: cards withheld and the share of the cards owed to the seat "
                "that it did not get (withheld / (withheld + produced), ratio of totals with "
                "a sandwich interval, seat-games as units), by final standing (the winner, "
                "the others) and by strategy. The share of withheld cards taken from the "
                "player leading alone in visible VP at the roll comes from a per-game "
                "counter (fair share of the cards: 1 / players if shortages hit everyone "
                "alike, but a leader is owed more cards).")
    rows = []
    for name in ("rule19", "rule9", "supply", "mixes"):
        if name not in res:
            continue
        g = res[name]["seat_groups"]
        for v in datasets[name].variants:
            for group in ("winner", "others"):
                key = (v, "standing", group, "withheld_share")
                if key in g.index and g.loc[key, "mean"] > 0:
                    rows.append({"arm": f"{name}: {_lab(name, v)}", "group": group,
                                 **g.loc[key].to_dict()})
    if rows:
        frame = pd.DataFrame(rows).set_index(["arm", "group"])
        s.figure("who_loses", who_loses_figure(frame))
        s.table("who_loses", _group_cells(frame), "share of owed cards withheld [95% CI] by "
                "final standing; n = seat-games", frame)
    lead_rows = []
    for name in ("rule19", "rule9", "supply", "mixes"):
        if name not in res:
            continue
        sh = res[name]["shares"]
        for v in datasets[name].variants:
            if (v, "withheld_leader") in sh.index and sh.loc[(v, "withheld_leader"),
                                                               "denominator"]:
                r = sh.loc[(v, "withheld_leader")].copy()
                r["label"] = f"{name}: {_lab(name, v)}"
                lead_rows.append(r)
    if lead_rows:
        frame = pd.DataFrame(lead_rows)
        s.figure("withheld_leader", PR.share_bars(
            frame, "share", "Of the withheld cards, the sole leader's share",
            "share of the withheld cards owed to the player leading alone (%)",
            reference=(0.25, "1 / players"), n_unit="withheld cards"))
        s.table("withheld_leader", frame.set_index("label")[
            ["games", "numerator", "denominator", "share", "ci_low", "ci_high"]],
                "cards withheld from the sole leader / all withheld cards [95% CI]", frame)
    if "mixes" in res:
        g = res["mixes"]["seat_groups"]
        strat = g[g.index.get_level_values("group_by") == "strategy"]
        strat = strat[strat.index.get_level_values("measure") == "withheld_share"]
        if len(strat):
            s.table("who_by_strategy", _strategy_cells(strat),
                    "mixes: share of owed cards withheld per strategy [95% CI]; n = "
                    "seat-games", strat)
    secs.append(s)

    # --- strategy mixes ---------------------------------------------------------------
    if "mixes" in res:
        mx = res["mixes"]
        s = Section("mixes", "Strategy mixes: city tables to expander tables",
                    "Dataset mixes: tables of four city players, two city and two expander "
                    "players, one each of builder, city, expander and army (seats rotated), "
                    "and four expander players, each under the official rule, the strict "
                    "rule and an unlimited bank at 19 per resource; paired within each table.")
        s.figure("mixes_by_resource", PR.sweep_figure(
            _by_resource_tables(mx["arms"]), "table", "resource",
            "Games with a shortage, by table", "table (official rule, 19 per resource)",
            "games with at least one shortage (%)", order=list(RES)))
        s.table("mixes_arms", U.arm_cells(mx["arms"], datasets["mixes"].variants,
                                          ARM_LABELS["mixes"], _ARM_OUTCOMES),
                "per game in each arm, mean [95% CI]; n = games", mx["arms"])
        strat_rows = [o for o in dict.fromkeys(mx["contrasts"].index.get_level_values(2))
                      if o.startswith("win_strategy_")]
        s.table("mixes_contrasts", U.contrast_cells(
            mx["contrasts"], _arms("mixes"), ["turns", "withheld", "any_shortage",
                                              *strat_rows]),
                "strict and unlimited against the official rule at each table; strategies' "
                "wins at their seats; * significant after Holm", mx["contrasts"])
        secs.append(s)
    secs.append(U.runs_section(datasets, scale, [f"<p class='power'>{x}</p>" for x in
                                                 power_lines(res, datasets)]))
    return secs, answer


def supply_effects_figure(contrasts: pd.DataFrame):
    """Each official supply against the unlimited bank (``supply_contrasts.csv``)."""
    from ..plotting import rule_effects as PR  # noqa: PLC0415  matplotlib: seconds to import

    return PR.contrast_forest(
        contrasts, _arms("supply", [(supply_arm("official", x), "unlimited")
                                    for x in SUPPLIES]), [
            ("Game length", "difference per game (turns)", ["turns"], 1.0),
            ("Cards per game", "difference per game (cards)", ["produced"], 1.0),
            ("Seats", "difference (percentage points)",
             [f"win_seat_{k}" for k in range(4)], 100.0)],
        "What a limited supply changes: each supply against an unlimited bank")


def who_loses_figure(frame: pd.DataFrame):
    """The share of owed cards withheld from the winner and the others, for the official
    supply, the small supply's rules and the supplies of 19 and 15 (``who_loses.csv``,
    index (arm, group)); a log scale, so 0.24% shows beside 18%."""
    from ..plotting import rule_effects as PR  # noqa: PLC0415  matplotlib: seconds to import

    arms = [a for a in dict.fromkeys(frame.index.get_level_values(0))
            if a.startswith(("rule19: official", "rule9:", "supply: official"))]
    return PR.group_bars(frame, ["winner", "others"], arms[:6],
                         "Who loses the cards: the winner or the others",
                         "cards owed but withheld (%)", pct=True,
                         note="n = seat-games; values in %", log=True)


_ARM_OUTCOMES = ["turns", "any_shortage", "shortage_rolls", "sole_recipient", "withheld",
                 "withheld_leader", "produced", *[f"any_shortage_{r}" for r in RES],
                 *[f"shortage_{r}" for r in RES]]


def _share_cells(shares: pd.DataFrame, labels: dict) -> pd.DataFrame:
    rows = []
    for (v, what), r in shares.iterrows():
        if not r["denominator"]:
            continue
        rows.append({"arm": labels.get(v, v), "share": what, "of": r["label"],
                     "share [95% CI]": U.ci_text(r["share"], r["ci_low"], r["ci_high"], 100,
                                                 1, "%"),
                     "numerator": int(r["numerator"]), "denominator": int(r["denominator"]),
                     "games": int(r["games"])})
    return pd.DataFrame(rows)


def _timing_cells(t: pd.DataFrame, labels: dict) -> pd.DataFrame:
    rows = []
    for (v, r), x in t.iterrows():
        rows.append({"arm": labels.get(v, v), "resource": r, "games": int(x["games"]),
                     "short at least once [95% CI]": U.ci_text(
                         x["share"], x["share_ci_low"], x["share_ci_high"], 100, 2, "%"),
                     "first shortage: mean turn [95% CI]": U.ci_text(
                         x["mean_turn"], x["turn_ci_low"], x["turn_ci_high"], 1, 1),
                     "p10": x["p10"], "median": x["median_turn"], "p90": x["p90"],
                     "median tenth of the game": x["median_tenth"]})
    return pd.DataFrame(rows)


def _by_resource(arms: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for s in SUPPLIES:
        v = supply_arm("official", s)
        for r in RES:
            if (v, f"any_shortage_{r}") in arms.index:
                x = arms.loc[(v, f"any_shortage_{r}")]
                rows.append({"supply": s, "resource": r, "mean": x["mean"],
                             "ci_low": x["ci_low"], "ci_high": x["ci_high"], "n": x["n"]})
    return pd.DataFrame(rows)


def _by_resource_tables(arms: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for t in TABLES:
        v = arm("mixes", t, "official")
        for r in RES:
            if (v, f"any_shortage_{r}") in arms.index:
                x = arms.loc[(v, f"any_shortage_{r}")]
                rows.append({"table": TABLE_WORDS[t], "resource": r, "mean": x["mean"],
                             "ci_low": x["ci_low"], "ci_high": x["ci_high"], "n": x["n"]})
    return pd.DataFrame(rows)


def _group_cells(frame: pd.DataFrame) -> pd.DataFrame:
    t = frame.reset_index()
    t["cell"] = [U.ci_text(m, lo, hi, 100, 3, "%") for m, lo, hi in
                 zip(t["mean"], t["ci_low"], t["ci_high"], strict=True)]
    out = t.pivot_table(index="arm", columns="group", values="cell", aggfunc="first",
                        sort=False)
    n = t.pivot_table(index="arm", columns="group", values="n", aggfunc="first", sort=False)
    for g in out.columns.tolist():
        out[f"n ({g})"] = n[g].astype("int64")
    return out


def _strategy_cells(strat: pd.DataFrame) -> pd.DataFrame:
    t = strat.reset_index()
    t["cell"] = [U.ci_text(m, lo, hi, 100, 3, "%") + f" (n = {int(n):,})" for m, lo, hi, n in
                 zip(t["mean"], t["ci_low"], t["ci_high"], t["n"], strict=True)]
    t["arm"] = [_lab("mixes", v) for v in t["variant"]]
    return t.pivot_table(index="arm", columns="group", values="cell", aggfunc="first",
                         sort=False)


def power_lines(res: dict, datasets: dict) -> list[str]:
    lines = ["Power (80%, two-sided, alpha = 0.05 / rows of the dataset's table, a "
             "conservative stand-in for Holm; statsmodels TTestPower on the observed sd of "
             "the per-game differences; a rule change that alters few games has a small sd, "
             "so a paired design sees small effects):"]
    targets = (("turns", 0.1, "0.1 turns of game length"),
               ("win_seat_0", 0.001, "0.1 point in seat 0's win rate"))
    for name, d in res.items():
        c = d["contrasts"]
        if not len(c):
            continue
        alpha = 0.05 / len(c)
        parts = []
        for o, mde, what in targets:
            if o not in c.index.get_level_values(2):
                continue
            rows = c.xs(o, level="outcome")
            sd = float(rows["sd_diff"].max())
            need = ST.games_for_paired_mean(mde, sd, alpha=alpha)
            if np.isfinite(need):
                parts.append(f"{what}: {need:,.0f} pairs needed (largest sd), "
                             f"{int(rows['n'].min()):,} there")
        if parts:
            lines.append(f"- {name} ({datasets[name].games:,} games per arm): "
                         + "; ".join(parts) + ".")
    return lines


SPEC = U.RuleStudy(name="shortages", title=TITLE, question=QUESTION, notebook="05-shortages",
                   plan=plan_for, finish=finish, sections=make_sections,
                   power_lines=power_lines, budget=tuple(BUDGET))
STUDY = SPEC.study("the supply-shortage rule, the supply's size and strategy mixes, "
                  "paired on common random numbers")
