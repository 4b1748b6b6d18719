"""The supply-shortage study: when does the shortage rule matter, and who does it hurt?

Four experiment files (``experiments/shortages/``, package data), each a dataset whose arms
play the same games: the official and the strict shortage rule and an unlimited bank at the
official supply of 19 cards per resource (the headline, 10^6 games per arm); the three
rules (official, strict, off) with a small supply of 9; supplies of 19, 15, 12 and 9
under the official and the strict rule; and strategy mixes from city tables to expander
tables. Every comparison is paired game by game (``analysis.contrasts``), Holm-corrected
over each dataset's table; shortage counts, timing and who loses the cards come from
``analysis.shortages``. Its words: ``text/shortages.md``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..analysis import contrasts as C
from ..analysis import shortages as SH
from ..analysis.measures import RES
from ..reports import Table
from . import _rule_study as U
from ._rule_study import SEATS_PANEL, plots, strategy_rows
from ._words import Words

W = Words("shortages")
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


ARMS = U.Arms(ARM_LABELS, pairs_of)
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
        W.fill("answer official", strict=U.how_often(strict["ci_low"], strict["ci_high"]),
               unlimited=U.how_often(unlimited["ci_low"], unlimited["ci_high"]),
               short=_rate(a19, "baseline", "any_shortage"), n=f"{n19:,}",
               most=most, most_rate=_rate(a19, "baseline", f"any_shortage_{most}"),
               least=least, least_rate=_rate(a19, "baseline", f"any_shortage_{least}"),
               median=f"{t19.loc[('baseline', 'any'), 'median_turn']:.0f}",
               turns=f"{a19.loc[('baseline', 'turns'), 'mean']:.0f}"),
        W.fill("answer exception", sole=_share(sh19, "baseline", "sole_recipient"),
               strict=_differ_text(d19, "strict"), unlimited=_differ_text(d19, "unlimited"),
               seat=f"{_max_seat(c19):.2f}"),
    ]
    if "rule9" in res:
        a9, c9, sh9 = res["rule9"]["arms"], res["rule9"]["contrasts"], res["rule9"]["shares"]
        ts = _row(c9, "strict", "baseline", "turns")
        to = _row(c9, "off", "baseline", "turns")
        d9 = res["rule9"]["differ"]
        s9, o9 = _differ(d9, "strict"), _differ(d9, "off")
        out.append(W.fill(
            "answer small supply", strict_often=U.how_often(s9["ci_low"], s9["ci_high"]),
            off_often=U.how_often(o9["ci_low"], o9["ci_high"]),
            strict=_differ_text(d9, "strict"), off=_differ_text(d9, "off"),
            short=_rate(a9, "baseline", "any_shortage"),
            rolls=_mean(a9, "baseline", "shortage_rolls", 2),
            withheld=_mean(a9, "baseline", "withheld", 2), strict_turns=_diff(ts, digits=2),
            off_turns=_diff(to, digits=2), sole=_share(sh9, "baseline", "sole_recipient")))
    if "supply" in res:
        asup = res["supply"]["arms"]
        out.append(W.fill("answer supply", sizes=", ".join(
            f"{s}: {_rate(asup, supply_arm('official', s), 'any_shortage', 1)}"
            for s in SUPPLIES)))
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
    return W.fill("differ", share=_pct(r), n=f"{int(r['n']):,}", facets=", ".join(
        f"{W['facet ' + f]} {_pct(_differ(table, v, f))}" for f in FACETS))


FACETS = ("production", "final_vp", "winner", "length")  # in the words: "facet NAME"


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
        verdict = ("others" if o["ci_low"] > w["ci_high"] else
                   "winner" if w["ci_low"] > o["ci_high"] else "neither")
        parts.append(W.fill(
            "who arm", arm=ARMS.label(name, v), leader=sh,
            winner=U.ci_text(w["mean"], w["ci_low"], w["ci_high"], 100, 3, "%"),
            others=U.ci_text(o["mean"], o["ci_low"], o["ci_high"], 100, 3, "%"),
            verdict=W["who verdict " + verdict]))
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
            parts.append(W.fill("who mixed", shares=", ".join(rows)))
    if not parts:
        return ""
    return W.fill("answer who", parts="; ".join(parts))


def _arm_table(name: str, caption: str) -> Table:
    """The arms table of dataset ``name``: per game in each arm, mean [95% CI]."""
    return Table(f"{name}_arms", f"{name}.arms", caption,
                 view=lambda t, r: U.arm_cells(t, r.datasets[name].variants, ARM_LABELS[name],
                                               _ARM_OUTCOMES))


def _contrast_table(name: str, outcomes=None) -> Table:
    """The contrasts table of dataset ``name``, all its pairs (``outcomes``: its rows)."""
    return W.table(f"{name}_contrasts", f"{name}.contrasts",
                   view=lambda c, r: U.contrast_cells(c, ARMS.pairs(name), outcomes))


def _differ_table(name: str) -> Table:
    return W.table(f"{name}_differ", f"{name}.differ",
                   view=lambda t, r: U.differ_cells(t, ARMS.pairs(name)))


def _effects_figure(name: str, panels, title: str):
    return W.figure(f"{name}_effects", lambda r: plots().contrast_forest(
        r[f"{name}.contrasts"], ARMS.pairs(name), panels, title))


_ARMS_CAPTION = U.WORDS["caption arms"]

RULE19 = W.part("rule19", (
        _arm_table("rule19", _ARMS_CAPTION),
        _contrast_table("rule19"),
        _differ_table("rule19"),
        _effects_figure("rule19", [
            ("Game length", "difference per game (turns)", ["turns"], 1.0),
            ("Cards per game", "difference per game (cards)", ["withheld", "produced"], 1.0),
            SEATS_PANEL], "The shortage rules against the official one, 19 per resource"),
        W.table("rule19_shares", "rule19.shares",
                view=lambda t, r: _share_cells(t, ARM_LABELS["rule19"]))))

WHEN = W.part("when", (
        W.table("timing_rule19", "rule19.timing",
                view=lambda t, r: _timing_cells(t, ARM_LABELS["rule19"])),
        W.figure("first_shortage", lambda r: plots().curve_figure(
            r["supply.curve"], "any", [supply_arm("official", x) for x in SUPPLIES],
            ARM_LABELS["supply"], "When the supply first runs short, by its size (official "
            "rule)"), of="supply"),
        W.table("timing_rule9", "rule9.timing",
                view=lambda t, r: _timing_cells(t, ARM_LABELS["rule9"]))))

SUPPLY = W.part("supply", (
        W.figure("supply_by_resource", lambda r: plots().sweep_figure(
            _by_resource(r["supply.arms"]), "supply", "resource",
            "Games with a shortage, by the supply's size", "cards per resource in the supply",
            "games with at least one shortage (%)", log=True,
            note="official rule; log scale")),
        W.figure("supply_effects", lambda r: supply_effects_figure(r["supply.contrasts"])),
        _arm_table("supply", _ARMS_CAPTION),
        _contrast_table("supply"),
        W.table("supply_shares", "supply.shares",
                view=lambda t, r: _share_cells(t, ARM_LABELS["supply"]))),
    of="supply")

RULE9 = W.part("rule9", (
        _arm_table("rule9", _ARMS_CAPTION),
        _differ_table("rule9"),
        _contrast_table("rule9"),
        _effects_figure("rule9", [
            ("Game length and spread", "difference per game (turns, VP)",
             ["turns", "vp_spread"], 1.0),
            ("Cards per game", "difference per game (cards)", ["withheld", "produced"], 1.0),
            SEATS_PANEL], "The shortage rules against the official one, 9 per resource")),
    of="rule9")

_WHO = ("rule19", "rule9", "supply", "mixes")  # the datasets whose seats lose cards


def who_loses_frame(res: dict, datasets: dict) -> pd.DataFrame | None:
    """The share of owed cards withheld from the winner and the others, per arm of every
    dataset where it is above 0 (index (arm, group)); None if there is none."""
    rows = []
    for name in _WHO:
        if name not in res:
            continue
        g = res[name]["seat_groups"]
        for v in datasets[name].variants:
            for group in ("winner", "others"):
                key = (v, "standing", group, "withheld_share")
                if key in g.index and g.loc[key, "mean"] > 0:
                    rows.append({"arm": f"{name}: {ARMS.label(name, v)}", "group": group,
                                 **g.loc[key].to_dict()})
    return pd.DataFrame(rows).set_index(["arm", "group"]) if rows else None


def withheld_leader_frame(res: dict, datasets: dict) -> pd.DataFrame | None:
    """Per arm with withheld cards: the share of them owed to the sole leader; None if no
    arm withheld any."""
    rows = []
    for name in _WHO:
        if name not in res:
            continue
        sh = res[name]["shares"]
        for v in datasets[name].variants:
            if (v, "withheld_leader") in sh.index and sh.loc[(v, "withheld_leader"),
                                                               "denominator"]:
                r = sh.loc[(v, "withheld_leader")].copy()
                r["label"] = f"{name}: {ARMS.label(name, v)}"
                rows.append(r)
    return pd.DataFrame(rows) if rows else None


def _withheld_by_strategy(g: pd.DataFrame) -> pd.DataFrame:
    strat = g[g.index.get_level_values("group_by") == "strategy"]
    return strat[strat.index.get_level_values("measure") == "withheld_share"]


def _who_loses(r) -> pd.DataFrame | None:
    return who_loses_frame(r.data, r.datasets)


def _withheld_leader(r) -> pd.DataFrame | None:
    return withheld_leader_frame(r.data, r.datasets)


def _has(frame) -> bool:
    return frame is not None and len(frame) > 0


WHO = W.part("who", (
        W.figure("who_loses", lambda r: who_loses_figure(_who_loses(r)),
                 when=lambda r: _has(_who_loses(r))),
        W.table("who_loses", lambda r: _who_loses(r), view=lambda t, r: _group_cells(t),
                when=lambda r: _has(_who_loses(r))),
        W.figure("withheld_leader", lambda r: plots().share_bars(
            _withheld_leader(r), "share", "Of the withheld cards, the sole leader's share",
            "share of the withheld cards owed to the player leading alone (%)",
            reference=(0.25, "1 / players"), n_unit="withheld cards"),
            when=lambda r: _has(_withheld_leader(r))),
        W.table("withheld_leader", lambda r: _withheld_leader(r),
                view=lambda t, r: t.set_index("label")[
                    ["games", "numerator", "denominator", "share", "ci_low", "ci_high"]],
                when=lambda r: _has(_withheld_leader(r))),
        W.table("who_by_strategy", lambda r: _withheld_by_strategy(r["mixes.seat_groups"]),
                view=lambda t, r: _strategy_cells(t),
                when=lambda r: "mixes" in r and len(
                    _withheld_by_strategy(r["mixes.seat_groups"])) > 0)))


def _mixes_outcomes(c: pd.DataFrame) -> list[str]:
    """The mixes contrasts shown: length, withheld cards, shortages, each strategy's wins."""
    return ["turns", "withheld", "any_shortage", *strategy_rows(c)]


MIXES = W.part("mixes", (
        W.figure("mixes_by_resource", lambda r: plots().sweep_figure(
            _by_resource_tables(r["mixes.arms"]), "table", "resource",
            "Games with a shortage, by table", "table (official rule, 19 per resource)",
            "games with at least one shortage (%)", order=list(RES))),
        _arm_table("mixes", W["table mixes_arms"]),
        W.table("mixes_contrasts", "mixes.contrasts",
                view=lambda c, r: U.contrast_cells(c, ARMS.pairs("mixes"), _mixes_outcomes(c)))),
    of="mixes")

REPORT = (RULE19, WHEN, SUPPLY, RULE9, WHO, MIXES)


def supply_effects_figure(contrasts: pd.DataFrame):
    """Each official supply against the unlimited bank (``supply_contrasts.csv``)."""
    return plots().contrast_forest(
        contrasts, ARMS.pairs("supply", [(supply_arm("official", x), "unlimited")
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
    arms = [a for a in dict.fromkeys(frame.index.get_level_values(0))
            if a.startswith(("rule19: official", "rule9:", "supply: official"))]
    return plots().group_bars(frame, ["winner", "others"], arms[:6],
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
    t["arm"] = [ARMS.label("mixes", v) for v in t["variant"]]
    return t.pivot_table(index="arm", columns="group", values="cell", aggfunc="first",
                         sort=False)


def power_lines(res: dict, datasets: dict) -> list[str]:
    """What the sample sizes can detect (``_rule_study.power_lines``): 0.1 turns of game
    length and 0.1 point in seat 0's win rate."""
    return U.power_lines(res, datasets, W, (("turns", 0.1, W["power turns"]),
                                            ("win_seat_0", 0.001, W["power seat"])))


SPEC = U.RuleStudy(name="shortages", title=W["title"], question=W["question"],
                   notebook="05-shortages", plan=plan_for, finish=finish,
                   answer=lambda r: make_answer(r.data, r.datasets),
                   answer_note=W.fill("answer note", how_often=U.WORDS["how often note"]),
                   report=REPORT, power_lines=power_lines, budget=(W["budget"], ""))
STUDY = SPEC.study(W["description"])
