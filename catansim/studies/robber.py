"""The robber study: does the robber help trailing players catch up, or only lengthen the
game?

Seven experiment files (``experiments/robber/``, package data), each a dataset whose arms
play the same seeds. The headline (``switch``): games identical up to the end of turn T (20 or
40), then played on with the robber and without it on the same dice, at tables that aim
the robber at the leader and at tables of random robbers; the turn-T sole leader's (and
sole last's) wins and the turns after T are compared game by game: the causal effect of
the robber from T + 1 on. The others: the robber rule (official, off, friendly) over
whole games on four ``default`` players (10^6 games per arm), the robber and victim
policies (leader, production, random; whole tables and one seat against three), the
discard limit (7, 9, none), and the robber rule at a mixed table, at tables of each
preset and with three players. Outcomes of the whole game (length, cards, a seat's win)
are differenced game by game (``analysis.contrasts``), Holm-corrected over each
dataset's table; the catch-up rates of whole-game arms are each arm's own (its leader at
turn t is a state it reached its own way), not pairs. Its words: ``text/robber.md``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..analysis import contrasts as C
from ..analysis import robber as R
from ..analysis import seats as SE
from ..analysis import stats as ST
from ..reports import Table
from . import _rule_study as U
from ._rule_study import SEATS_PANEL, plots, strategy_rows
from ._words import Words

W = Words("robber")
PRESETS = ("builder", "expander", "city", "army", "trader")
THESIS_HIT_LEADER = 0.92  # a knowledge-based robber bot hit the leader 92% of the time
CATCH_TURN = 40  # the checkpoint of the headline catch-up figures (middle of the game)
SWITCH_TURNS = (40, 20)  # the switch dataset's turns: the robber off from T + 1 on
# The switch dataset's contrasts at each turn: (arm, reference, table's robber policy).
SWITCH_PAIRS = {T: [(f"off_after_{T}", "baseline", "leader"),
                    (f"random_off_after_{T}", "random", "random")] for T in SWITCH_TURNS}

ARM_LABELS = {
    "switch": {"baseline": "leader robbers, robber kept",
               "random": "random robbers, robber kept",
               **{f"off_after_{T}": f"leader robbers, off from turn {T + 1}"
                  for T in SWITCH_TURNS},
               **{f"random_off_after_{T}": f"random robbers, off from turn {T + 1}"
                  for T in SWITCH_TURNS}},
    "rule": {"baseline": "official", "off": "off", "friendly": "friendly"},
    "policy": {"baseline": "leader (all)", "all_production": "production (all)",
               "all_random": "random (all)", "lone_production": "one production seat",
               "lone_random": "one random seat", "lone_leader": "one leader seat"},
    "discard": {"baseline": "limit 7", "limit_9": "limit 9", "no_limit": "no limit"},
    "mixed": {"baseline": "official", "off": "off", "friendly": "friendly"},
    "three": {"baseline": "official", "off": "off", "friendly": "friendly"},
    "presets": {"baseline": "builder official", **{
        f"{p}_{r}": f"{p} {r}" for p in PRESETS for r in ("official", "off", "friendly")}},
}


def pairs_of(name: str) -> list[tuple[str, str]]:
    """The (arm, reference) contrasts of each dataset."""
    if name == "switch":
        return [(v, ref) for T in SWITCH_TURNS for v, ref, _ in SWITCH_PAIRS[T]]
    if name in ("rule", "mixed", "three"):
        return [("off", "baseline"), ("friendly", "baseline")]
    if name == "policy":
        return [("all_production", "baseline"), ("all_random", "baseline"),
                ("lone_production", "baseline"), ("lone_random", "baseline"),
                ("lone_leader", "all_random")]
    if name == "discard":
        return [("limit_9", "baseline"), ("no_limit", "baseline")]
    if name == "presets":
        out = []
        for p in PRESETS:
            ref = "baseline" if p == "builder" else f"{p}_official"
            out += [(f"{p}_off", ref), (f"{p}_friendly", ref)]
        return out
    return []


def plan_for(ds: U.Dataset) -> C.Plan:
    n = ds.experiment.players
    plan = C.Plan()
    if ds.name == "switch":  # each turn's pairs, on the outcomes that switch defines
        for T in SWITCH_TURNS:
            plan.add(f"switch_{T}", C.contrasts_analysis(
                [(v, ref) for v, ref, _ in SWITCH_PAIRS[T]], R.switch_outcomes(T),
                name=f"switch_{T}"))
        plan.add("catch", R.catch_up_analysis())
        plan.add("shares", C.shares_analysis(R.ROBBER_SHARES))
        return plan
    outcomes = R.robber_outcomes(n, checkpoints=())
    strat = ds.name in ("policy", "mixed")
    plan.add("contrasts", C.contrasts_analysis(pairs_of(ds.name), outcomes, strategy_wins=strat))
    plan.add("arms", C.arms_analysis(outcomes))
    plan.add("catch", R.catch_up_analysis())
    plan.add("stage", R.stage_analysis())
    plan.add("shares", C.shares_analysis(R.ROBBER_SHARES))
    plan.add("seats", SE.win_rates_analysis("seat"))
    if strat:
        plan.add("strategies", SE.win_rates_analysis("strategy"))
    return plan


def finish(name: str, r: dict) -> dict:
    """The switch dataset's contrasts of every turn in one table (``switch_contrasts``)."""
    if name == "switch":
        r["contrasts"] = switch_contrasts(r)
    return r


# --- the sections -------------------------------------------------------------------


ARMS = U.Arms(ARM_LABELS, pairs_of)
_row = U.contrast_row


def _pp(r, digits=1) -> str:
    if r is None:
        return "n/a"
    return U.ci_text(r["diff"], r["ci_low"], r["ci_high"], 100, digits, " pp", signed=True)


def _num(r, digits=2) -> str:
    if r is None:
        return "n/a"
    return U.ci_text(r["diff"], r["ci_low"], r["ci_high"], 1, digits, signed=True)


def _rate(catch, v, t, key="leader"):
    try:
        r = catch.loc[(v, t)]
    except KeyError:
        return "n/a"
    n = int(r["sole_leader" if key == "leader" else "sole_last"])
    return (U.ci_text(r[f"{key}_win_rate"], r[f"{key}_ci_low"], r[f"{key}_ci_high"], 100, 1,
                      "%") + f" (n = {n:,})")


def _share(shares, v, what="hit_leader"):
    if (v, what) not in shares.index:
        return "n/a"
    r = shares.loc[(v, what)]
    return U.ci_text(r["share"], r["ci_low"], r["ci_high"], 100, 1, "%") + \
        f" (n = {int(r['denominator']):,} robber moves)"


def switch_contrasts(sw: dict) -> pd.DataFrame:
    """The switch dataset's contrasts at every switch turn in one table, Holm over all
    its rows (each turn's analysis corrects only its own)."""
    table = pd.concat([sw[f"switch_{T}"] for T in SWITCH_TURNS if len(sw[f"switch_{T}"])])
    table["p_adjusted"], table["significant"] = ST.adjust(table["p_value"], "holm")
    table["correction"] = f"Holm over the {len(table)} rows"
    return table


def _switch_row(res, T, policy, outcome):
    if "switch" not in res:
        return None
    for v, ref, pol in SWITCH_PAIRS[T]:
        if pol == policy:
            return _row(res["switch"]["contrasts"], v, ref, f"{outcome}_{T}")
    return None


def _kept_off(r, who: str) -> str:
    """'wins A% with the robber kept and B% with it off (kept - off = D [CI], n = N
    games ...)' from a switch contrast row (arm: off, reference: kept)."""
    return W.fill("kept and off", who=who, kept=f"{r['base_mean'] * 100:.1f}",
                  off=f"{r['mean'] * 100:.1f}", diff=_pp(_neg(r)),
                  p=ST.format_p(r["p_value"]), differ=f"{int(r['discordant']):,}",
                  n=f"{int(r['n']):,}")


def _share_of_gap(res: dict, lw, T: int) -> str:
    """The switch effect as a share of the gap between whole games with and without the
    robber in the turn-T sole leader's win rate (each arm's own leaders)."""
    if "rule" not in res or (("baseline", T) not in res["rule"]["catch"]["catch_up"].index):
        return ""
    catch = res["rule"]["catch"]["catch_up"]
    gap = catch.loc[("off", T), "leader_win_rate"] - catch.loc[("baseline", T),
                                                                "leader_win_rate"]
    return (" " + W.fill("share of gap", share=f"{lw['diff'] / gap * 100:.0f}",
                         gap=f"{gap * 100:.1f}") if gap > 0 else "")


def aim_words(leader, rand) -> str:
    """How the random robber's effect on the turn-T leader compares with the aimed one's,
    from the two switch contrasts (arm off, reference kept); "" unless the aimed robber
    has a significant effect to compare with."""
    if leader is None or rand is None or not bool(leader["significant"]):
        return ""
    if rand["ci_low"] <= 0 <= rand["ci_high"]:
        return W["aim none"]
    share = rand["diff"] / leader["diff"] if leader["diff"] else np.nan
    close = np.isfinite(share) and abs(share) < 1 / 3
    return W.fill("aim close" if close else "aim part", share=f"{abs(share) * 100:.0f}")


def make_answer(res: dict) -> list[str]:
    """The answers in plain words: the switch, the rule over whole games, the policy."""
    out = [*_switch_answers(res), *_rule_answers(res), *_policy_answers(res)]
    return [a for a in out if a]


def _switch_answers(res: dict) -> list[str]:
    """The robber switched off mid-game: the leader's and the last player's wins, the
    length of the rest of the game, and the random robber beside the aimed one."""
    out = []
    T = SWITCH_TURNS[0]
    lw = _switch_row(res, T, "leader", "leader_won")
    if lw is not None:
        early = _switch_row(res, SWITCH_TURNS[1], "leader", "leader_won")
        out.append(W.fill(
            "answer switch", verdict=_verdict(lw, _switch_row(res, T, "leader", "turns_after")),
            turn=T, leader=_kept_off(lw, W.fill("who leader", turn=T)),
            early="" if early is None else W.fill(
                "answer switch early", turn=SWITCH_TURNS[1],
                early=_kept_off(early, W["who early leader"])),
            gap=_share_of_gap(res, lw, T)))
        parts = []
        for T2 in SWITCH_TURNS:
            last = _switch_row(res, T2, "leader", "last_won")
            if last is not None:
                parts.append(_kept_off(last, W.fill("who last", turn=T2)))
        length = [(T2, _switch_row(res, T2, "leader", "turns_after")) for T2 in SWITCH_TURNS]
        last = "; ".join(parts)
        out.append(W.fill("answer last and length", last=last[:1].upper() + last[1:],
                          lengths="; ".join(
                              W.fill("length after turn", diff=_num(_neg(r)), turn=T2,
                                     n=f"{int(r['n']):,}")
                              for T2, r in length if r is not None)))
        rand = _switch_row(res, T, "random", "leader_won")
        if rand is not None:
            words = aim_words(lw, rand)
            out.append((f"<b>{words}.</b> " if words else "") + W.fill(
                "answer random", turn=T, random=_kept_off(rand, W["who sole leader"]),
                aimed=_pp(_neg(lw))))
    return out


def _rule_answers(res: dict) -> list[str]:
    """The robber official or off over whole games: length, spread, the leaders' wins,
    the friendly robber and the cards stolen."""
    out = []
    rule = res.get("rule")
    if rule is not None:
        c, catch, arms = rule["contrasts"], rule["catch"]["catch_up"], rule["arms"]
        t = CATCH_TURN
        turns = _row(c, "off", "baseline", "turns")
        rel = -turns["rel_diff"] / (1 + turns["rel_diff"]) * 100 if turns is not None \
            else np.nan
        if turns is not None:
            out.append(W.fill(
                "answer rule", n=f"{int(turns['n']):,}", turns=_num(_neg(turns), 2),
                rel=f"{rel:+.1f}", spread=_num(_neg(_row(c, "off", "baseline", "vp_spread"))),
                turn=t, with_=_rate(catch, "baseline", t), without=_rate(catch, "off", t)))
        e_off = R.stage_effect(rule["stage"], "off", "baseline", t)
        out.append(W.fill("answer standing", turn=t, ratio=_or(e_off), strata=e_off["strata"],
                          games=f"{e_off['games_arm'] + e_off['games_reference']:,}"))
        fr = _row(c, "friendly", "baseline", "turns")
        if fr is not None:
            out.append(W.fill("answer friendly", turns=_num(fr),
                              official=_mean(arms, "baseline", "stolen"),
                              friendly=_mean(arms, "friendly", "stolen")))
        out.append(W.fill("answer cards", **{k: _mean(arms, "baseline", k)
                                             for k in ("stolen", "blocked", "discarded")}))
    return out


def _policy_answers(res: dict) -> list[str]:
    """Whom the robber hits, and what the choice of victim does for the player who chooses."""
    out = []
    pol = res.get("policy")
    if pol is not None:
        pc, pcatch = pol["contrasts"], pol["catch"]["catch_up"]
        t = CATCH_TURN
        out.append(W.fill(
            "answer whom", leader=_share(pol["shares"], "baseline"),
            random=_share(pol["shares"], "all_random"), turn=t,
            random_wins=_rate(pcatch, "all_random", t), leader_wins=_rate(pcatch, "baseline", t),
            turns=_num(_row(pc, "all_random", "baseline", "turns"))))
        lone = _row(pc, "lone_random", "baseline", "win_strategy_default_random")
        lead1 = _row(pc, "lone_leader", "all_random", "win_strategy_default")
        if lone is not None and lead1 is not None:
            out.append(W.fill("answer chooser", **_chooser("lone", lone),
                              **_chooser("leader", lead1)))
    return out


def _chooser(key: str, r) -> dict:
    """The fields ``answer chooser`` takes of one seat's contrast row, named ``key...``."""
    return {key: f"{r['mean'] * 100:.1f}", f"{key}_base": f"{r['base_mean'] * 100:.1f}",
            f"{key}_diff": _pp(r), f"{key}_n": f"{int(r['n']):,}"}


def _verdict(lw, length) -> str:
    """The plain answer from the switch contrasts (robber off - kept) of the turn-T sole
    leader's win and of the turns after T, each counted only when significant after
    Holm."""
    if lw is None or length is None:
        return W["verdict too few"]
    catch = bool(lw["significant"]) and lw["diff"] > 0  # the leader wins more without it
    longer = bool(length["significant"]) and length["diff"] < 0  # shorter without it
    if catch and longer:
        return W["verdict catch-up and longer"]
    if catch:
        return W["verdict catch-up"]
    return W["verdict longer" if longer else "verdict neither"]


def _or(e: dict) -> str:
    return U.ci_text(e["odds_ratio"], e["ci_low"], e["ci_high"], 1, 2)


def _neg(r):
    """A contrast row (or table) as reference - arm."""
    if r is None:
        return None
    r = r.copy()
    r["diff"], r["ci_low"], r["ci_high"] = -r["diff"], -r["ci_high"], -r["ci_low"]
    return r


def _mean(arms, v, o, scale=1.0):
    if (v, o) not in arms.index:
        return "n/a"
    r = arms.loc[(v, o)]
    return U.ci_text(r["mean"], r["ci_low"], r["ci_high"], scale, 2)


def _win_rates_figure(table: pd.DataFrame, by: str, labels: dict):
    from .. import plotting as P  # noqa: PLC0415  matplotlib: seconds to import

    return P.win_rates_figure(table.rename(index=labels, level="variant"), by, fair=0.25)


def _variants(r, name: str) -> list[str]:
    return r.datasets[name].variants


def _arms_table(name: str, dataset: str, caption: str) -> Table:
    """The arms table of ``dataset``: per game in each arm, mean [95% CI]."""
    return Table(name, f"{dataset}.arms", caption,
                 view=lambda t, r: U.arm_cells(t, _variants(r, dataset), ARM_LABELS[dataset],
                                               _ARM_OUTCOMES))


SWITCH = W.part("switch", (
    W.table("switch_effects", "switch.contrasts",
            view=lambda c, r: _switch_cells(c, ARM_LABELS["switch"])),
    W.figure("switch_effects", lambda r: _switch_figure(r["switch.contrasts"])),
    W.table("switch_catch_up", "switch.catch.catch_up",
            view=lambda t, r: _catch_cells(t, ARM_LABELS["switch"])),
    Table("switch_shares", "switch.shares", W["caption shares"],
          view=lambda t, r: _share_cells(t, ARM_LABELS["switch"]))),
    of="switch")

RULE = W.part("rule", (
    _arms_table("rule_arms", "rule", U.WORDS["caption arms"]),
    W.table("rule_contrasts", "rule.contrasts",
            view=lambda c, r: U.contrast_cells(c, ARMS.pairs("rule"))),
    W.figure("rule_effects", lambda r: plots().contrast_forest(
        r["rule.contrasts"], ARMS.pairs("rule"), [
            ("Game length and spread", "difference per game (turns, VP)",
             ["turns", "vp_spread", "winner_margin"], 1.0),
            ("Cards per game (all seats)", "difference per game (cards)",
             ["stolen", "blocked", "discarded", "produced"], 1.0), SEATS_PANEL],
        "What the robber changes over a whole game: each arm against the official robber")),
    Table("rule_shares", "rule.shares", W["caption shares"],
          view=lambda t, r: _share_cells(t, ARM_LABELS["rule"]))))

_POLICY_ARMS = ["baseline", "all_production", "all_random"]  # whole tables

CATCH_UP = W.part("catch_up", (
    W.figure("catch_up_rule", lambda r: plots().catch_up_figure(
        r["rule.catch.catch_up"], _variants(r, "rule"), ARM_LABELS["rule"],
        "Who wins from where: the robber rule")),
    W.figure("lead_size", lambda r: plots().lead_figure(
        r["rule.catch.lead"], CATCH_TURN, _variants(r, "rule"), ARM_LABELS["rule"],
        fair=0.25)),
    W.table("catch_up_rule", "rule.catch.catch_up",
            view=lambda t, r: _catch_cells(t, ARM_LABELS["rule"])),
    W.table("lead_size", "rule.catch.lead",
            view=lambda t, r: _lead_cells(t, ARM_LABELS["rule"])),
    W.figure("equal_standing", lambda r: plots().stage_figure(
        r["rule.stage"], CATCH_TURN, _variants(r, "rule"), ARM_LABELS["rule"])),
    Table("equal_standing", lambda r: stage_effects(r.data),
          W.fill("table equal_standing", turn=CATCH_TURN), view=lambda t, r: _stage_cells(t)),
    W.figure("catch_up_policy", lambda r: plots().catch_up_figure(
        r["policy.catch.catch_up"], _POLICY_ARMS, ARM_LABELS["policy"],
        "Who wins from where: whom the robber hits"), of="policy"),
    W.table("catch_up_policy", "policy.catch.catch_up",
            view=lambda t, r: _catch_cells(t.loc[_POLICY_ARMS], ARM_LABELS["policy"]))))


def _policy_arms(kind: str) -> list[tuple[str, str, str]]:
    """The policy dataset's contrasts of whole tables (``"all_"``) or one seat (``"lone_"``)."""
    return [a for a in ARMS.pairs("policy") if a[0].startswith(kind)]


_LONE_ROWS = [f"win_strategy_{x}" for x in ("default_production", "default_random", "default")]

POLICY = W.part("policy", (
    W.figure("hit_leader", lambda r: _hit_leader_figure(r.data)),
    W.table("policy_shares", "policy.shares",
            view=lambda t, r: _share_cells(t, ARM_LABELS["policy"])),
    W.table("policy_contrasts", "policy.contrasts",
            view=lambda c, r: U.contrast_cells(c, _policy_arms("all_")),
            csv=lambda r: U.select(r["policy.contrasts"], _policy_arms("all_"))),
    W.figure("lone_seat", lambda r: _lone_seat_figure(r.data)),
    W.table("lone_seat", "policy.contrasts",
            view=lambda c, r: U.contrast_cells(c, _policy_arms("lone_"),
                                               _LONE_ROWS + ["turns"]),
            csv=lambda r: U.select(r["policy.contrasts"], _policy_arms("lone_"))),
    W.table("policy_win_rates", "policy.strategies",
            view=lambda t, r: _win_cells(t, ARM_LABELS["policy"]))),
    of="policy")

DISCARD = W.part("discard", (
    _arms_table("discard_arms", "discard", W["table discard_arms"]),
    W.table("discard_contrasts", "discard.contrasts",
            view=lambda c, r: U.contrast_cells(c, ARMS.pairs("discard"))),
    W.figure("discard_effects", lambda r: plots().contrast_forest(
        r["discard.contrasts"], ARMS.pairs("discard"), [
            ("Game length and spread", "difference per game (turns, VP)",
             ["turns", "vp_spread"], 1.0),
            ("Cards per game", "difference per game (cards)",
             ["discarded", "stolen", "produced"], 1.0)],
        "The discard limit against the official 7, game by game"))),
    of="discard")

_TABLES = ("rule", "three", "mixed", "presets")

TABLES = W.part("tables", (
    W.table("across_tables", lambda r: _across(r.data),
            csv=lambda r: pd.concat({k: r[f"{k}.contrasts"] for k in _TABLES if k in r},
                                    names=["dataset"]),
            when=lambda r: len(_across(r.data)) > 0),
    W.figure("across_tables", lambda r: _across_figure(r.data),
             when=lambda r: len(_across(r.data)) > 0),
    W.figure("mixed_strategies", lambda r: _win_rates_figure(
        r["mixed.strategies"], "strategy", ARM_LABELS["mixed"]), of="mixed.strategies"),
    W.table("mixed_strategies", "mixed.strategies",
            view=lambda t, r: _win_cells(t, ARM_LABELS["mixed"])),
    W.table("mixed_strategy_contrasts", "mixed.contrasts",
            view=lambda c, r: U.contrast_cells(c, ARMS.pairs("mixed"), strategy_rows(c)),
            csv=lambda r: U.select(r["mixed.contrasts"], ARMS.pairs("mixed"),
                                   strategy_rows(r["mixed.contrasts"]))),
    W.figure("catch_up_three", lambda r: plots().catch_up_figure(
        r["three.catch.catch_up"], _variants(r, "three"), ARM_LABELS["three"],
        "Who wins from where: three players"), of="three")))

SEATS = W.part("seats", (
    W.figure("rule_seats", lambda r: _win_rates_figure(r["rule.seats"], "seat",
                                                         ARM_LABELS["rule"])),
    W.table("rule_seats", "rule.seats",
            view=lambda t, r: _win_cells(t, ARM_LABELS["rule"], by="seat"))))

REPORT = (SWITCH, RULE, CATCH_UP, POLICY, DISCARD, TABLES, SEATS)


def _switch_figure(c: pd.DataFrame):
    """The switch contrasts as kept - off, leader and last wins and the turns after T."""
    arms = [(v, ref, f"{policy} robbers, after turn {T}")
            for T in SWITCH_TURNS for v, ref, policy in SWITCH_PAIRS[T]]
    outcomes = [f"{o}_{T}" for T in SWITCH_TURNS for o in ("leader_won", "last_won")]
    return plots().contrast_forest(
        _neg(c), arms,
        [("Who wins: the sole leader (last) after turn T", "kept - off (percentage points)",
          outcomes, 100.0),
         ("Turns played after turn T", "kept - off (turns per game)",
          [f"turns_after_{T}" for T in SWITCH_TURNS], 1.0)],
        "The robber from turn T + 1 on: kept against off, on the same games")


def _hit_leader_figure(res: dict):
    """How often the robber robs the sole leader, by rule and policy, against the thesis's
    knowledge-based bot; None without robber moves against a sole leader."""
    rows = []
    for name, v in (("rule", "baseline"), ("rule", "friendly"), ("policy", "all_production"),
                    ("policy", "all_random")):
        sh = res[name]["shares"]
        if (v, "hit_leader") in sh.index:
            r = sh.loc[(v, "hit_leader")].copy()
            r["label"] = f"{ARMS.label(name, v)} robber" + (" (rule)" if name == "rule" else "")
            rows.append(r)
    if not rows:
        return None
    return plots().share_bars(
        pd.DataFrame(rows), "share", "When an opponent leads alone, how often the robber robs "
        "them", "share of robber moves made while an opponent led alone (%)",
        reference=(THESIS_HIT_LEADER, "knowledge-based bot, 2025 thesis: 92%"),
        n_unit="robber moves")


def _lone_seat_figure(res: dict):
    """One seat's change of robber policy against the same seat unchanged, game by game."""
    picked = _picked([("policy", v, ref, f"win_strategy_{LONE[v]}",
                       f"{ARMS.label('policy', v)} among three "
                       + ("random" if v == "lone_leader" else "leader") + " robbers", False)
                      for v, ref, _ in _policy_arms("lone_")], res)
    if picked is None:
        return None
    return plots().contrast_forest(
        picked, [("x", "y", "lone seat - same seat in the reference table")],
        [("The lone seat's win rate", "difference (percentage points)",
          list(picked.index.get_level_values(2)), 100.0)],
        "One seat changes its robber policy: its wins against the same seat unchanged",
        correction=res["policy"]["contrasts"]["correction"].iloc[0])


def _switch_cells(c: pd.DataFrame, labels: dict) -> pd.DataFrame:
    rows = []
    for T in SWITCH_TURNS:
        for v, ref, policy in SWITCH_PAIRS[T]:
            for o in ("leader_won", "last_won", "turns_after"):
                r = _row(c, v, ref, f"{o}_{T}")
                if r is None:
                    continue
                scale, unit = (100, "%") if r["binary"] else (1, "")
                rows.append({
                    "switch after turn": T, "robbers": policy, "outcome": r["label"],
                    "robber kept": f"{r['base_mean'] * scale:.1f}{unit}",
                    "robber off": f"{r['mean'] * scale:.1f}{unit}",
                    "kept - off [95% CI]": (_pp(_neg(r)) if r["binary"] else _num(_neg(r)))
                    + (" *" if r["significant"] else ""),
                    "n": int(r["n"]), "games that differ": int(r["discordant"]),
                    "p (Holm)": ST.p_text(r["p_adjusted"])})
    return pd.DataFrame(rows)


_ARM_OUTCOMES = ["turns", "vp_spread", "winner_margin", "sevens", "robber_moves", "stolen",
                 "blocked", "discarded", "produced", "robbed_leader", "robber_leader_chances"]


def _share_cells(shares: pd.DataFrame, labels: dict) -> pd.DataFrame:
    rows = []
    for (v, _what), r in shares.iterrows():
        if not r["denominator"]:
            continue
        rows.append({"arm": labels.get(v, v), "share of": r["label"],
                     "share [95% CI]": U.ci_text(r["share"], r["ci_low"], r["ci_high"], 100,
                                                 1, "%"),
                     "n (robber moves)": int(r["denominator"]), "games": int(r["games"])})
    return pd.DataFrame(rows)


def _catch_cells(catch: pd.DataFrame, labels: dict) -> pd.DataFrame:
    rows = []
    for (v, turn), r in catch.iterrows():
        rows.append({"arm": labels.get(v, v), "after turn": turn,
                     "games still going": int(r["alive"]),
                     "one leader alone": int(r["sole_leader"]),
                     "leader wins [95% CI]": U.ci_text(r["leader_win_rate"], r["leader_ci_low"],
                                                       r["leader_ci_high"], 100, 1, "%"),
                     "one last alone": int(r["sole_last"]),
                     "last wins [95% CI]": U.ci_text(r["last_win_rate"], r["last_ci_low"],
                                                     r["last_ci_high"], 100, 1, "%")})
    return pd.DataFrame(rows)


def _lead_cells(lead: pd.DataFrame, labels: dict) -> pd.DataFrame:
    t = lead.xs(CATCH_TURN, level="turn", drop_level=False).reset_index()
    t = t[t["turn"].isin(R.HEADLINE_CHECKPOINTS)] if len(t) else t
    t = lead[lead.index.get_level_values("turn").isin(R.HEADLINE_CHECKPOINTS)].reset_index()
    t["cell"] = [U.ci_text(m, lo, hi, 100, 1, "%") + f" (n = {int(n):,})" for m, lo, hi, n in
                 zip(t["win_rate"], t["ci_low"], t["ci_high"], t["games"], strict=True)]
    t["arm"] = [labels.get(v, v) for v in t["variant"]]
    out = t.pivot_table(index=["arm", "turn"], columns="lead", values="cell", aggfunc="first",
                        sort=False)
    out.columns = [f"lead {c} VP" for c in out.columns]
    return out


def _win_cells(table: pd.DataFrame, labels: dict, by: str = "strategy") -> pd.DataFrame:
    t = table.reset_index()
    t["cell"] = [U.ci_text(m, lo, hi, 100, 1, "%") for m, lo, hi in
                 zip(t["win_rate"], t["ci_low"], t["ci_high"], strict=True)]
    t["arm"] = [labels.get(v, v) for v in t["variant"]]
    out = t.pivot_table(index=by, columns="arm", values="cell", aggfunc="first", sort=False)
    n = t.groupby(by, sort=False)["seat_games"].max()
    out.insert(0, "n (seat-games per arm)", n.reindex(out.index).astype("int64"))
    return out


_ACROSS = ("turns", "vp_spread", "stolen", "blocked")


def _across(res: dict) -> pd.DataFrame:
    rows = []
    for name in ("rule", "three", "mixed", "presets"):
        if name not in res:
            continue
        c = res[name]["contrasts"]
        for v, ref, label in ARMS.pairs(name):
            row = {"dataset": name, "contrast": label}
            for o in _ACROSS:
                r = _row(c, v, ref, o)
                if r is None:
                    continue
                row[o] = (_pp(r) if r["binary"] else _num(r)) + (" *" if r["significant"]
                                                                 else "")
                if o == "turns":
                    row["pairs"] = int(r["n"])
            rows.append(row)
    return pd.DataFrame(rows).set_index(["dataset", "contrast"]) if rows else pd.DataFrame()


TABLE_WORDS = {"rule": "four default", "three": "three default",
               "mixed": "mixed (builder, city, expander, army)",
               **{f"presets:{p}": f"four {p}" for p in PRESETS}}
LONE = {"lone_production": "default_production", "lone_random": "default_random",
        "lone_leader": "default"}


def _picked(rows, res, flip_all: bool = False) -> pd.DataFrame | None:
    """A contrasts-shaped table of chosen rows, one outcome per row, for a forest with a
    single arm: ``rows`` are (dataset, variant, reference, outcome, label, flip); a flipped
    row shows reference - variant."""
    out = []
    for name, v, ref, o, label, flip in rows:
        if name not in res:
            continue
        r = _row(res[name]["contrasts"], v, ref, o)
        if r is None:
            continue
        r = _neg(r) if (flip or flip_all) else r
        out.append({"variant": "x", "reference": "y", "outcome": f"{o}|{label}",
                    **r.to_dict(), "label": label})
    if not out:
        return None
    return pd.DataFrame(out).set_index(["variant", "reference", "outcome"])


def _across_figure(res: dict):
    """The robber's effect (official - off) on game length and on the sole leader's
    chance, one row per table, each paired within its own dataset."""
    rows = []
    for name in ("rule", "three", "mixed", "presets"):
        for v, ref, _ in ARMS.pairs(name) if name in res else []:
            if not v.endswith("off"):
                continue
            where = TABLE_WORDS.get(name, TABLE_WORDS.get(f"{name}:{v[:-4]}", name))
            rows += [(name, v, ref, o, where, True) for o in ("turns", "stolen")]
    table = _picked(rows, res)
    if table is None:
        return None
    outcomes = list(table.index.get_level_values(2))
    return plots().contrast_forest(
        table, [("x", "y", "official - off")],
        [("Game length", "official - off (turns per game)",
          [o for o in outcomes if o.startswith("turns|")], 1.0),
         ("Cards stolen", "official - off (cards per game)",
          [o for o in outcomes if o.startswith("stolen|")], 1.0)],
        "The official robber against none, table by table",
        "each table paired within its own dataset",
        correction="Holm within each dataset")


def stage_effects(res: dict) -> pd.DataFrame:
    """The Mantel-Haenszel odds ratio of the sole leader winning at equal standing, for
    every contrast of every dataset, after each headline checkpoint."""
    rows = []
    for name in res:
        if "stage" not in res[name]:
            continue
        for v, ref, label in ARMS.pairs(name):
            for turn in R.HEADLINE_CHECKPOINTS:
                e = R.stage_effect(res[name]["stage"], v, ref, turn)
                rows.append({"dataset": name, "contrast": label, **e})
    out = pd.DataFrame(rows)
    if len(out):
        out["p_adjusted"], out["significant"] = ST.adjust(out["p_value"], "holm")
        out["correction"] = f"Holm over the {len(out)} rows"
    return out.set_index(["dataset", "contrast", "turn"]) if len(out) else out


def _stage_cells(effects: pd.DataFrame) -> pd.DataFrame:
    t = effects.reset_index()
    t = t[t["turn"] == CATCH_TURN]
    return pd.DataFrame({
        "dataset": t["dataset"], "contrast": t["contrast"],
        "leader wins (arm / reference)": [
            f"{a * 100:.1f}% / {b * 100:.1f}%" if np.isfinite(a) else "" for a, b in
            zip(t["arm_rate"], t["reference_rate"], strict=True)],
        "odds ratio at equal standing [95% CI]": [
            (U.ci_text(m, lo, hi, 1, 2) + (" *" if s else "")) if np.isfinite(m) else ""
            for m, lo, hi, s in zip(t["odds_ratio"], t["ci_low"], t["ci_high"],
                                    t["significant"], strict=True)],
        "strata": t["strata"], "games (arm, reference)": [
            f"{a:,}, {b:,}" for a, b in zip(t["games_arm"], t["games_reference"],
                                            strict=True)]}).set_index(["dataset", "contrast"])


def power_lines(res: dict, datasets: dict) -> list[str]:
    """What the sample sizes can detect (``_rule_study.power_lines``): 0.5 turns of game
    length, 1 point in the turn-``CATCH_TURN`` sole leader's chance and in seat 0's win
    rate."""
    return U.power_lines(res, datasets, W, (
        ("turns", 0.5, W["power turns"]),
        (f"leader_won_{CATCH_TURN}", 0.01, W.fill("power leader", turn=CATCH_TURN)),
        ("win_seat_0", 0.01, W["power seat"])))


SPEC = U.RuleStudy(name="robber", title=W["title"], question=W["question"],
                   notebook="04-robber", plan=plan_for, finish=finish,
                   answer=lambda r: make_answer(r.data), answer_note=W["answer note"],
                   report=REPORT, power_lines=power_lines, budget=(W["budget"], ""))
STUDY = SPEC.study(W["description"])
