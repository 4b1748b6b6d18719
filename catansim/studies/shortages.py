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
from ..reports import Figure, Part, Table
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


def _plots():
    from ..plotting import rule_effects as PR  # noqa: PLC0415  matplotlib: seconds to import

    return PR


def _arm_table(name: str, caption: str) -> Table:
    """The arms table of dataset ``name``: per game in each arm, mean [95% CI]."""
    return Table(f"{name}_arms", f"{name}.arms", caption,
                 view=lambda t, r: U.arm_cells(t, r.datasets[name].variants, ARM_LABELS[name],
                                               _ARM_OUTCOMES))


def _contrast_table(name: str, caption: str, outcomes=None) -> Table:
    """The contrasts table of dataset ``name``, all its pairs (``outcomes``: its rows)."""
    return Table(f"{name}_contrasts", f"{name}.contrasts", caption,
                 view=lambda c, r: U.contrast_cells(c, _arms(name), outcomes))


def _differ_table(name: str, caption: str) -> Table:
    return Table(f"{name}_differ", f"{name}.differ", caption,
                 view=lambda t, r: U.differ_cells(t, _arms(name)))


def _effects_figure(name: str, panels, title: str) -> Figure:
    return Figure(f"{name}_effects", lambda r: _plots().contrast_forest(
        r[f"{name}.contrasts"], _arms(name), panels, title))


_SEATS_PANEL = ("Seats", "difference (percentage points)", [f"win_seat_{k}" for k in range(4)],
                100.0)
_ARMS_CAPTION = "per game in each arm, mean [95% CI] (rates in %); n = games"

ANSWER_NOTE = ("Computed from the tables below: rates with 95% Wilson intervals and their n; "
               "differences paired game by game on common seeds (95% paired t intervals, "
               "McNemar for 0/1 outcomes), Holm within each dataset (* in the tables); shares "
               "are ratios of totals with sandwich intervals. A shortage: a roll on which the "
               "supply could not pay everyone owed a resource in full. Games that differ: the "
               "share of common-seed games whose result differs between two rules in any "
               "seat's production, any seat's final VP, the winner or the length (Wilson "
               "intervals). " + U.HOW_OFTEN_NOTE)

RULE19 = Part(
    "rule19", "The rules at the official supply (19 per resource)",
    "Dataset rule19: four classic players with 19 cards per resource under the official "
    "rule (baseline), the strict rule (nobody paid) and an unlimited bank, on the same games "
    "(the supply paying in turn order, off, is in the small-supply section). Arm figures "
    "with 95% intervals (rates: Wilson; means: t); paired differences against the official "
    "rule, Holm over the dataset's table.", (
        _arm_table("rule19", _ARMS_CAPTION),
        _contrast_table("rule19", "paired differences against the official rule, diff [95% "
                        "CI]; discordant games in the CSV; * significant after Holm"),
        _differ_table("rule19", "share of games whose result differs from the official "
                      "rule's [95% Wilson CI] (games), by part of the result and in any; n = "
                      "pairs of games"),
        _effects_figure("rule19", [
            ("Game length", "difference per game (turns)", ["turns"], 1.0),
            ("Cards per game", "difference per game (cards)", ["withheld", "produced"], 1.0),
            _SEATS_PANEL], "The shortage rules against the official one, 19 per resource"),
        Table("rule19_shares", "rule19.shares",
              "of the short rolls, those with one player alone owed the resource; of the "
              "withheld cards, those of the sole leader [95% CI]",
              view=lambda t, r: _share_cells(t, ARM_LABELS["rule19"]))))

WHEN = Part(
    "when", "When the supply runs short, and of what",
    "The turn of the first roll the supply could not pay in full, per resource ('any': the "
    "first of any), over the games that had one (t interval of the mean, quantiles), and the "
    "share of games that had one (Wilson); the curves are the cumulative share of all games "
    "short by each turn.", (
        Table("timing_rule19", "rule19.timing", "official supply: share of games with a "
              "shortage [95% CI] and the turn of the first; n = games",
              view=lambda t, r: _timing_cells(t, ARM_LABELS["rule19"])),
        Figure("first_shortage", lambda r: _plots().curve_figure(
            r["supply.curve"], "any", [supply_arm("official", x) for x in SUPPLIES],
            ARM_LABELS["supply"], "When the supply first runs short, by its size (official "
            "rule)"), of="supply"),
        Table("timing_rule9", "rule9.timing", "9 per resource: as above",
              view=lambda t, r: _timing_cells(t, ARM_LABELS["rule9"]))))

SUPPLY = Part(
    "supply", "The supply's size: when the rule starts to matter",
    "Dataset supply: four classic players with 19, 15, 12 and 9 cards per resource under the "
    "official and the strict rule, and an unlimited bank, on the same games. Each official "
    "arm is paired with the unlimited bank (what the shortages cost), each strict arm with "
    "the official arm of the same supply (what the exception changes).", (
        Figure("supply_by_resource", lambda r: _plots().sweep_figure(
            _by_resource(r["supply.arms"]), "supply", "resource",
            "Games with a shortage, by the supply's size", "cards per resource in the supply",
            "games with at least one shortage (%)", log=True,
            note="official rule; log scale")),
        Figure("supply_effects", lambda r: supply_effects_figure(r["supply.contrasts"])),
        _arm_table("supply", _ARMS_CAPTION),
        _contrast_table("supply", "each official supply against the unlimited bank, each "
                        "strict arm against the official one of its supply; * significant "
                        "after Holm"),
        Table("supply_shares", "supply.shares", "shares per arm [95% CI]",
              view=lambda t, r: _share_cells(t, ARM_LABELS["supply"]))),
    of="supply")

RULE9 = Part(
    "rule9", "The rules with a small supply (9 per resource)",
    "Dataset rule9: four classic players with 9 cards per resource under the official, "
    "strict and off rules, on the same games; paired against the official rule.", (
        _arm_table("rule9", _ARMS_CAPTION),
        _differ_table("rule9", "share of games whose result differs from the official rule's "
                      "[95% Wilson CI] (games); n = pairs of games"),
        _contrast_table("rule9", "paired differences against the official rule; * "
                        "significant after Holm"),
        _effects_figure("rule9", [
            ("Game length and spread", "difference per game (turns, VP)",
             ["turns", "vp_spread"], 1.0),
            ("Cards per game", "difference per game (cards)", ["withheld", "produced"], 1.0),
            _SEATS_PANEL], "The shortage rules against the official one, 9 per resource")),
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
                    rows.append({"arm": f"{name}: {_lab(name, v)}", "group": group,
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
                r["label"] = f"{name}: {_lab(name, v)}"
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


WHO = Part(
    "who", "Who loses the withheld cards",
    "Per seat-game: cards withheld and the share of the cards owed to the seat that it did "
    "not get (withheld / (withheld + produced), ratio of totals with a sandwich interval, "
    "seat-games as units), by final standing (the winner, the others) and by strategy. The "
    "share of withheld cards taken from the player leading alone in visible VP at the roll "
    "comes from a per-game counter (fair share of the cards: 1 / players if shortages hit "
    "everyone alike, but a leader is owed more cards).", (
        Figure("who_loses", lambda r: who_loses_figure(_who_loses(r)),
               when=lambda r: _has(_who_loses(r))),
        Table("who_loses", lambda r: _who_loses(r), "share of owed cards withheld [95% CI] by "
              "final standing; n = seat-games", view=lambda t, r: _group_cells(t),
              when=lambda r: _has(_who_loses(r))),
        Figure("withheld_leader", lambda r: _plots().share_bars(
            _withheld_leader(r), "share", "Of the withheld cards, the sole leader's share",
            "share of the withheld cards owed to the player leading alone (%)",
            reference=(0.25, "1 / players"), n_unit="withheld cards"),
            when=lambda r: _has(_withheld_leader(r))),
        Table("withheld_leader", lambda r: _withheld_leader(r),
              "cards withheld from the sole leader / all withheld cards [95% CI]",
              view=lambda t, r: t.set_index("label")[
                  ["games", "numerator", "denominator", "share", "ci_low", "ci_high"]],
              when=lambda r: _has(_withheld_leader(r))),
        Table("who_by_strategy", lambda r: _withheld_by_strategy(r["mixes.seat_groups"]),
              "mixes: share of owed cards withheld per strategy [95% CI]; n = seat-games",
              view=lambda t, r: _strategy_cells(t),
              when=lambda r: "mixes" in r and len(
                  _withheld_by_strategy(r["mixes.seat_groups"])) > 0)))


def _mixes_outcomes(c: pd.DataFrame) -> list[str]:
    """The mixes contrasts shown: length, withheld cards, shortages, each strategy's wins."""
    strat_rows = [o for o in dict.fromkeys(c.index.get_level_values(2))
                  if o.startswith("win_strategy_")]
    return ["turns", "withheld", "any_shortage", *strat_rows]


MIXES = Part(
    "mixes", "Strategy mixes: city tables to expander tables",
    "Dataset mixes: tables of four city players, two city and two expander players, one each "
    "of builder, city, expander and army (seats rotated), and four expander players, each "
    "under the official rule, the strict rule and an unlimited bank at 19 per resource; "
    "paired within each table.", (
        Figure("mixes_by_resource", lambda r: _plots().sweep_figure(
            _by_resource_tables(r["mixes.arms"]), "table", "resource",
            "Games with a shortage, by table", "table (official rule, 19 per resource)",
            "games with at least one shortage (%)", order=list(RES))),
        _arm_table("mixes", "per game in each arm, mean [95% CI]; n = games"),
        Table("mixes_contrasts", "mixes.contrasts",
              "strict and unlimited against the official rule at each table; strategies' "
              "wins at their seats; * significant after Holm",
              view=lambda c, r: U.contrast_cells(c, _arms("mixes"), _mixes_outcomes(c)))),
    of="mixes")

REPORT = (RULE19, WHEN, SUPPLY, RULE9, WHO, MIXES)


def supply_effects_figure(contrasts: pd.DataFrame):
    """Each official supply against the unlimited bank (``supply_contrasts.csv``)."""
    return _plots().contrast_forest(
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
    arms = [a for a in dict.fromkeys(frame.index.get_level_values(0))
            if a.startswith(("rule19: official", "rule9:", "supply: official"))]
    return _plots().group_bars(frame, ["winner", "others"], arms[:6],
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
                   plan=plan_for, finish=finish,
                   answer=lambda r: make_answer(r.data, r.datasets), answer_note=ANSWER_NOTE,
                   report=REPORT, power_lines=power_lines, budget=tuple(BUDGET))
STUDY = SPEC.study("the supply-shortage rule, the supply's size and strategy mixes, "
                  "paired on common random numbers")
