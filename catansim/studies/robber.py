"""The robber study: does the robber help trailing players catch up, or only lengthen the
game?

Seven experiment files (``experiments/robber/``, package data), each a dataset whose arms
play the same seeds. The headline (``switch``): games identical up to the end of turn T (20 or
40), then played on with the robber and without it on the same dice, at tables that aim
the robber at the leader and at tables of random robbers; the turn-T sole leader's (and
sole last's) wins and the turns after T are compared game by game: the causal effect of
the robber from T + 1 on. The others: the robber rule (official, off, friendly) over
whole games on four ``classic`` players (10^6 games per arm), the robber and victim
policies (leader, production, random; whole tables and one seat against three), the
discard limit (7, 9, none), and the robber rule at a mixed table, at tables of each
preset and with three players. Outcomes of the whole game (length, cards, a seat's win)
are differenced game by game (``analysis.contrasts``), Holm-corrected over each
dataset's table; the catch-up rates of whole-game arms are each arm's own (its leader at
turn t is a state it reached its own way), not pairs.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..analysis import contrasts as C
from ..analysis import robber as R
from ..analysis import seats as SE
from ..analysis import stats as ST
from ..reports import Figure, Part, Table
from . import _rule_study as U

TITLE = "The robber: catch-up or a longer game?"
QUESTION = ("Does the robber help trailing players catch up, or does it only lengthen the "
            "game?")
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


BUDGET = [
    "Budget: the headline (`switch`) has 200,000 games per arm and `rule` 10^6; the other "
    "datasets are sized by the power lines below. The table above gives each dataset's "
    "games and the engine that played them (a dataset is resumed only by the engine that "
    "began it).", ""]


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


def _lab(name: str, v: str) -> str:
    return U.arm_label(ARM_LABELS, name, v)


def _arms(name: str, pairs=None) -> list[tuple[str, str, str]]:
    return U.labelled_pairs(ARM_LABELS, name, pairs or pairs_of(name))


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


def _kept_off(r, what: str) -> str:
    """'wins A% with the robber kept and B% with it off (kept - off = D [CI], n = N
    games ...)' from a switch contrast row (arm: off, reference: kept)."""
    return (f"{what} {r['base_mean'] * 100:.1f}% with the robber kept and {r['mean'] * 100:.1f}% "
            f"with it off (kept - off = {_pp(_neg(r))}, McNemar {ST.format_p(r['p_value'])}, "
            f"{int(r['discordant']):,} of n = {int(r['n']):,} games differ)")


def _share_of_gap(res: dict, lw, T: int) -> str:
    """The switch effect as a share of the gap between whole games with and without the
    robber in the turn-T sole leader's win rate (each arm's own leaders)."""
    if "rule" not in res or (("baseline", T) not in res["rule"]["catch"]["catch_up"].index):
        return ""
    catch = res["rule"]["catch"]["catch_up"]
    gap = catch.loc[("off", T), "leader_win_rate"] - catch.loc[("baseline", T),
                                                                "leader_win_rate"]
    return (f" The effect is {lw['diff'] / gap * 100:.0f}% of the {gap * 100:.1f}-point gap "
            f"between whole games without and with the robber (below)." if gap > 0 else "")


def aim_words(leader, rand) -> str:
    """How the random robber's effect on the turn-T leader compares with the aimed one's,
    from the two switch contrasts (arm off, reference kept); "" unless the aimed robber
    has a significant effect to compare with."""
    if leader is None or rand is None or not bool(leader["significant"]):
        return ""
    if rand["ci_low"] <= 0 <= rand["ci_high"]:
        return ("The catch-up comes from aiming the robber at the leader: the random robber "
                "is no different from no robber for the leader")
    share = rand["diff"] / leader["diff"] if leader["diff"] else np.nan
    if np.isfinite(share) and abs(share) < 1 / 3:
        return (f"The catch-up comes from aiming the robber at the leader: the random robber "
                f"is close to no robber, its effect on the leader "
                f"{abs(share) * 100:.0f}% of the aimed robber's")
    return (f"The random robber does part of it: its effect on the leader is "
            f"{abs(share) * 100:.0f}% of the aimed robber's")


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
        out.append(
            f"<b>{_verdict(lw, _switch_row(res, T, 'leader', 'turns_after'))}</b> Games "
            f"played alike up to the end of turn {T}, then on "
            f"with the robber and without it (the same dice after turn {T}): "
            + _kept_off(lw, f"the player leading alone in visible VP after turn {T} wins")
            + (f". Switched after turn {SWITCH_TURNS[1]}: "
               + _kept_off(early, "that turn's sole leader wins") if early is not None else "")
            + "." + _share_of_gap(res, lw, T))
        parts = []
        for T2 in SWITCH_TURNS:
            last = _switch_row(res, T2, "leader", "last_won")
            if last is not None:
                parts.append(_kept_off(last, f"after turn {T2}, the player alone in last "
                                             "place wins"))
        length = [(T2, _switch_row(res, T2, "leader", "turns_after")) for T2 in SWITCH_TURNS]
        out.append(
            "; ".join(parts)[:1].upper() + "; ".join(parts)[1:] + ". The robber also "
            "lengthens the rest of the game: kept - off = " + "; ".join(
                f"{_num(_neg(r))} turns after turn {T2} (n = {int(r['n']):,} games still "
                f"going)" for T2, r in length if r is not None) + ".")
        rand = _switch_row(res, T, "random", "leader_won")
        if rand is not None:
            words = aim_words(lw, rand)
            out.append(
                (f"<b>{words}.</b> " if words else "")
                + f"At tables whose players rob a random victim on a random hex, the same "
                f"switch after turn {T}: " + _kept_off(rand, "the sole leader wins")
                + f"; with the robber aimed at the leader the difference was {_pp(_neg(lw))}.")
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
            out.append(
                f"Over whole games (the robber official or off from the first turn, "
                f"{int(turns['n']):,} games each, the same seeds) the robber makes a game "
                f"longer: official - off = {_num(_neg(turns), 2)} turns per game ({rel:+.1f}% "
                f"of a robber-free game), and the final VP spread (first minus last) changes "
                f"by {_num(_neg(_row(c, 'off', 'baseline', 'vp_spread')))} VP. The player "
                f"leading alone after turn {t} wins {_rate(catch, 'baseline', t)} of these "
                f"games with the robber and {_rate(catch, 'off', t)} without it; those "
                f"leaders are states each arm reached its own way (without the robber there "
                f"are more sole leaders, with larger leads), so this gap is a description, "
                f"not the robber's effect on a leader: the switch above measures that.")
        e_off = R.stage_effect(rule["stage"], "off", "baseline", t)
        out.append(
            f"At equal standing after turn {t} (the same visible VP and the same lead over "
            f"the second, each arm's own games), the leader's odds of winning are "
            f"{_or(e_off)} times as high with the robber off as with it (Mantel-Haenszel over "
            f"{e_off['strata']} standings, "
            f"{e_off['games_arm'] + e_off['games_reference']:,} games). At the same standing "
            f"the robber's longer game also leaves the others more turns, so this ratio "
            f"mixes the length with the aim.")
        fr = _row(c, "friendly", "baseline", "turns")
        if fr is not None:
            out.append(
                f"The friendly robber (no robbing players with 2 or fewer visible VP) changes "
                f"the length by {_num(fr)} turns per game; it cuts the cards stolen from "
                f"{_mean(arms, 'baseline', 'stolen')} to {_mean(arms, 'friendly', 'stolen')} "
                f"per game.")
        out.append(
            f"Per game with the official robber: {_mean(arms, 'baseline', 'stolen')} cards "
            f"stolen, {_mean(arms, 'baseline', 'blocked')} blocked, "
            f"{_mean(arms, 'baseline', 'discarded')} discarded on 7s.")
    return out


def _policy_answers(res: dict) -> list[str]:
    """Whom the robber hits, and what the choice of victim does for the player who chooses."""
    out = []
    pol = res.get("policy")
    if pol is not None:
        pc, pcatch = pol["contrasts"], pol["catch"]["catch_up"]
        t = CATCH_TURN
        out.append(
            f"<b>Whom the robber hits.</b> The leader policy robbed the sole leader in "
            f"{_share(pol['shares'], 'baseline')} of the robber moves made while an opponent "
            f"led alone (the 2025 thesis's knowledge-based bot: 92%); random robbers in "
            f"{_share(pol['shares'], 'all_random')}. Over whole games at tables of random "
            f"robbers the sole leader after turn {t} wins {_rate(pcatch, 'all_random', t)}, "
            f"at tables of leader robbers {_rate(pcatch, 'baseline', t)} (each arm's own "
            f"leaders); game length random - leader = "
            f"{_num(_row(pc, 'all_random', 'baseline', 'turns'))} turns per game.")
        lone = _row(pc, "lone_random", "baseline", "win_strategy_classic_random")
        lead1 = _row(pc, "lone_leader", "all_random", "win_strategy_classic")
        if lone is not None and lead1 is not None:
            out.append(
                f"For the player who chooses: one seat robbing at random among three "
                f"leader-robbers wins {lone['mean'] * 100:.1f}% of games against "
                f"{lone['base_mean'] * 100:.1f}% for the same seat robbing the leader "
                f"({_pp(lone)}, n = {int(lone['n']):,} games); one leader-robber among three "
                f"random robbers wins {lead1['mean'] * 100:.1f}% against "
                f"{lead1['base_mean'] * 100:.1f}% ({_pp(lead1)}, n = {int(lead1['n']):,}). "
                f"(The thesis: a knowledge-based robber bot won 27.0% against 19.2% for a "
                f"learned robber.)")
    return out


def _verdict(lw, length) -> str:
    """The plain answer from the switch contrasts (robber off - kept) of the turn-T sole
    leader's win and of the turns after T, each counted only when significant after
    Holm."""
    if lw is None or length is None:
        return "Not enough games for an answer."
    catch = bool(lw["significant"]) and lw["diff"] > 0  # the leader wins more without it
    longer = bool(length["significant"]) and length["diff"] < 0  # shorter without it
    if catch and longer:
        return "Yes, the robber helps trailing players catch up, and it also lengthens the game."
    if catch:
        return "Yes, the robber helps trailing players catch up; it does not lengthen the game."
    if longer:
        return "The robber lengthens the game, with no clear catch-up."
    return "Neither: no clear catch-up and no clear change in length."


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


def _plots():
    from ..plotting import rule_effects as PR  # noqa: PLC0415  matplotlib: seconds to import

    return PR


def _win_rates_figure(table: pd.DataFrame, by: str, labels: dict):
    from .. import plotting as P  # noqa: PLC0415  matplotlib: seconds to import

    return P.win_rates_figure(table.rename(index=labels, level="variant"), by, fair=0.25)


def _variants(r, name: str) -> list[str]:
    return r.datasets[name].variants


ANSWER_NOTE = ("Computed from the tables below: rates with 95% Wilson intervals and their n; "
               "differences game by game on common seeds with 95% paired t intervals "
               "(McNemar's test for 0/1 outcomes), Holm-corrected within each dataset (* in "
               "the tables: significant after correction). 'Leading alone' means strictly "
               "the most visible VP (hidden VP cards do not count), after the turn named.")
_ARMS_CAPTION = "per game in each arm, mean [95% CI] (rates in %); n = games"
_SHARES_CAPTION = "whom the robber hits: share of robber moves [95% CI]; n = robber moves"
_PCT_SEATS = ("Seats", "difference (percentage points)", [f"win_seat_{k}" for k in range(4)],
              100.0)

SWITCH = Part(
    "switch", "The robber from turn T + 1 on, on the same games (headline)",
    "Dataset switch: four classic players play each game alike up to the end of turn T "
    "(official robber), then on from that state with the robber kept or off, on the same "
    "dice; T = 20 and 40. The same at tables of random robbers (every seat puts the robber "
    "on a random hex and robs a random victim). The standing at T, and so its sole leader "
    "and sole last, is the same in both arms: each difference is the robber's effect from "
    "T + 1 on, game by game (95% paired intervals, McNemar's test, Holm over the table).", (
        Table("switch_effects", "switch.contrasts",
                "the robber off from turn T + 1 against kept, on the same games: each arm's "
                "rate and the difference kept - off [95% CI]; n = games with a sole leader "
                "(last) after turn T, or still going; * significant after Holm",
                view=lambda c, r: _switch_cells(c, ARM_LABELS["switch"])),
        Figure("switch_effects", lambda r: _switch_figure(r["switch.contrasts"]),
                 "the same games up to turn T, then the robber kept or off; leader robbers "
                 "aim at the leader, random robbers rob a random victim"),
        Table("switch_catch_up", "switch.catch.catch_up",
                "each arm's win rate [95% CI] of the sole leader and the sole last after "
                "each turn; up to T the arms of a pair are the same games",
                view=lambda t, r: _catch_cells(t, ARM_LABELS["switch"])),
        Table("switch_shares", "switch.shares", _SHARES_CAPTION,
                view=lambda t, r: _share_cells(t, ARM_LABELS["switch"]))),
    of="switch")

RULE = Part(
    "rule", "The robber rule over whole games",
    "Dataset rule: four classic players, robber official (baseline), off and friendly from "
    "the first turn on the same seeds. Arm means with 95% t intervals (rates: Wilson); "
    "differences per game of whole-game outcomes with paired t intervals, McNemar's test "
    "for 0/1 outcomes, Holm over the dataset's table.", (
        Table("rule_arms", "rule.arms", _ARMS_CAPTION,
                view=lambda t, r: U.arm_cells(t, _variants(r, "rule"), ARM_LABELS["rule"],
                                              _ARM_OUTCOMES)),
        Table("rule_contrasts", "rule.contrasts",
                "paired differences against the official robber, diff [95% CI]; rates in "
                "percentage points; * significant after Holm over the whole table",
                view=lambda c, r: U.contrast_cells(c, _arms("rule"))),
        Figure("rule_effects", lambda r: _plots().contrast_forest(
            r["rule.contrasts"], _arms("rule"), [
                ("Game length and spread", "difference per game (turns, VP)",
                 ["turns", "vp_spread", "winner_margin"], 1.0),
                ("Cards per game (all seats)", "difference per game (cards)",
                 ["stolen", "blocked", "discarded", "produced"], 1.0), _PCT_SEATS],
            "What the robber changes over a whole game: each arm against the official robber"),
            "differences game by game against the official robber on the same seeds"),
        Table("rule_shares", "rule.shares", _SHARES_CAPTION,
                view=lambda t, r: _share_cells(t, ARM_LABELS["rule"]))))

_POLICY_ARMS = ["baseline", "all_production", "all_random"]  # whole tables

CATCH_UP = Part(
    "catch_up", "Who wins from where, over whole games",
    "For each checkpoint turn, the games still going after it with one player leading alone "
    "in visible VP: that leader's win rate, and the win rate of the player alone in last "
    "place, with 95% Wilson intervals; fair share = 1 / players. Each arm's rate is over "
    "its own leaders: the standing at the turn is one the arm reached its own way (without "
    "the robber more games have a sole leader, with larger leads), so the arms are "
    "described side by side, not compared game by game; the switch above gives the "
    "robber's effect on the same leaders.", (
        Figure("catch_up_rule", lambda r: _plots().catch_up_figure(
            r["rule.catch.catch_up"], _variants(r, "rule"), ARM_LABELS["rule"],
            "Who wins from where: the robber rule")),
        Figure("lead_size", lambda r: _plots().lead_figure(
            r["rule.catch.lead"], CATCH_TURN, _variants(r, "rule"), ARM_LABELS["rule"],
            fair=0.25)),
        Table("catch_up_rule", "rule.catch.catch_up",
                "win rate [95% CI] of the sole leader and the sole last after each turn; n "
                "= games with a sole leader (last)",
                view=lambda t, r: _catch_cells(t, ARM_LABELS["rule"])),
        Table("lead_size", "rule.catch.lead",
                "the sole leader's win rate by the size of the lead; n = games",
                view=lambda t, r: _lead_cells(t, ARM_LABELS["rule"])),
        Figure("equal_standing", lambda r: _plots().stage_figure(
            r["rule.stage"], CATCH_TURN, _variants(r, "rule"), ARM_LABELS["rule"]),
            "the same standing after the same turn in each arm's own games; at the same "
            "standing a longer game also leaves the others more turns, so the gap mixes the "
            "game's length with whom the robber hits"),
        Table("equal_standing", lambda r: stage_effects(r.data),
                f"after turn {CATCH_TURN}: the sole leader's win rate in each arm and the "
                "Mantel-Haenszel odds ratio (arm vs reference) at equal standing, pooled over "
                "the leader's VP and lead; * significant after Holm over every contrast and "
                "checkpoint (all in the CSV)", view=lambda t, r: _stage_cells(t)),
        Figure("catch_up_policy", lambda r: _plots().catch_up_figure(
            r["policy.catch.catch_up"], _POLICY_ARMS, ARM_LABELS["policy"],
            "Who wins from where: whom the robber hits"), of="policy"),
        Table("catch_up_policy", "policy.catch.catch_up",
                "as above, for the robber and victim policies of whole tables",
                view=lambda t, r: _catch_cells(t.loc[_POLICY_ARMS], ARM_LABELS["policy"]))))


def _policy_arms(kind: str) -> list[tuple[str, str, str]]:
    """The policy dataset's contrasts of whole tables (``"all_"``) or one seat (``"lone_"``)."""
    return [a for a in _arms("policy") if a[0].startswith(kind)]


_LONE_ROWS = [f"win_strategy_{x}" for x in ("classic_production", "classic_random", "classic")]

POLICY = Part(
    "policy", "Whom the robber hits: the robber and victim policies",
    "Dataset policy: four classic players whose robber_policy is leader (baseline: the hex "
    "where the leader produces most, robbing the leader), production (most opponent "
    "production, the largest hand) or random; whole tables, and one seat (rotated through "
    "every seat) against three others. For one seat the win is compared with the same seat "
    "in the reference table, game by game. Shares: ratio of totals with a sandwich "
    "interval, games as units.", (
        Figure("hit_leader", lambda r: _hit_leader_figure(r.data)),
        Table("policy_shares", "policy.shares",
                "share of robber moves [95% CI]; n = robber moves",
                view=lambda t, r: _share_cells(t, ARM_LABELS["policy"])),
        Table("policy_contrasts", "policy.contrasts",
                "whole tables against the leader policy, paired per game; * significant "
                "after Holm", view=lambda c, r: U.contrast_cells(c, _policy_arms("all_")),
                csv=lambda r: U.select(r["policy.contrasts"], _policy_arms("all_"))),
        Figure("lone_seat", lambda r: _lone_seat_figure(r.data),
                 "paired per game: the seat that plays the lone policy against the same seat "
                 "playing the table's policy"),
        Table("lone_seat", "policy.contrasts",
                "the lone seat's wins against the same seat in the reference table (three "
                "leader robbers; for 'one leader seat': three random robbers)",
                view=lambda c, r: U.contrast_cells(c, _policy_arms("lone_"),
                                                   _LONE_ROWS + ["turns"]),
                csv=lambda r: U.select(r["policy.contrasts"], _policy_arms("lone_"))),
        Table("policy_win_rates", "policy.strategies",
                "win rate per seat-game of each strategy in each arm [95% Wilson CI]",
                view=lambda t, r: _win_cells(t, ARM_LABELS["policy"]))),
    of="policy")

DISCARD = Part(
    "discard", "The discard limit on a 7",
    "Dataset discard: four classic players, players holding more than 7 (official), 9, or "
    "any number of cards (no limit) discard half on a 7. Paired per game against the limit "
    "7.", (
        Table("discard_arms", "discard.arms", "per game in each arm, mean [95% CI]; n = games",
                view=lambda t, r: U.arm_cells(t, _variants(r, "discard"),
                                              ARM_LABELS["discard"], _ARM_OUTCOMES)),
        Table("discard_contrasts", "discard.contrasts",
                "paired differences against the limit 7; * significant after Holm",
                view=lambda c, r: U.contrast_cells(c, _arms("discard"))),
        Figure("discard_effects", lambda r: _plots().contrast_forest(
            r["discard.contrasts"], _arms("discard"), [
                ("Game length and spread", "difference per game (turns, VP)",
                 ["turns", "vp_spread"], 1.0),
                ("Cards per game", "difference per game (cards)",
                 ["discarded", "stolen", "produced"], 1.0)],
            "The discard limit against the official 7, game by game"))),
    of="discard")


def _strategy_rows(c: pd.DataFrame) -> list[str]:
    """The per-strategy win outcomes of a contrasts table."""
    return [o for o in dict.fromkeys(c.index.get_level_values(2))
            if o.startswith("win_strategy_")]


_TABLES = ("rule", "three", "mixed", "presets")

TABLES = Part(
    "tables", "Other tables: three players, a mixed table, each preset",
    "The robber rule (off and friendly against official) at three classic players "
    "(dataset three), at a mixed table of builder, city, expander and army with rotated "
    "seats (mixed), and at tables of four copies of each preset (presets), each paired game "
    "by game within its own table.", (
        Table("across_tables", lambda r: _across(r.data),
                "official robber's effect by table: off - official and friendly - official "
                "per game [95% CI]; * significant after Holm within its dataset",
                csv=lambda r: pd.concat({k: r[f"{k}.contrasts"] for k in _TABLES if k in r},
                                        names=["dataset"]),
                when=lambda r: len(_across(r.data)) > 0),
        Figure("across_tables", lambda r: _across_figure(r.data),
                 "the robber's effect (official - off) at each table; presets: tables of "
                 "four copies of the preset", when=lambda r: len(_across(r.data)) > 0),
        Figure("mixed_strategies", lambda r: _win_rates_figure(
            r["mixed.strategies"], "strategy", ARM_LABELS["mixed"]), of="mixed.strategies"),
        Table("mixed_strategies", "mixed.strategies",
                "mixed table: win rate per seat-game of each strategy [95% Wilson CI]",
                view=lambda t, r: _win_cells(t, ARM_LABELS["mixed"])),
        Table("mixed_strategy_contrasts", "mixed.contrasts",
                "mixed table: each strategy's wins against the official robber, paired per "
                "game", view=lambda c, r: U.contrast_cells(c, _arms("mixed"), _strategy_rows(c)),
                csv=lambda r: U.select(r["mixed.contrasts"], _arms("mixed"),
                                       _strategy_rows(r["mixed.contrasts"]))),
        Figure("catch_up_three", lambda r: _plots().catch_up_figure(
            r["three.catch.catch_up"], _variants(r, "three"), ARM_LABELS["three"],
            "Who wins from where: three players"), of="three")))

SEATS = Part(
    "seats", "Seats",
    "Win rate of each seat with 95% Wilson intervals (n = games) per arm of the headline "
    "dataset; the paired seat differences are in the headline's contrasts table.", (
        Figure("rule_seats", lambda r: _win_rates_figure(r["rule.seats"], "seat",
                                                           ARM_LABELS["rule"])),
        Table("rule_seats", "rule.seats", "win rate per seat [95% Wilson CI]; n = games",
                view=lambda t, r: _win_cells(t, ARM_LABELS["rule"], by="seat"))))

REPORT = (SWITCH, RULE, CATCH_UP, POLICY, DISCARD, TABLES, SEATS)


def _switch_figure(c: pd.DataFrame):
    """The switch contrasts as kept - off, leader and last wins and the turns after T."""
    arms = [(v, ref, f"{policy} robbers, after turn {T}")
            for T in SWITCH_TURNS for v, ref, policy in SWITCH_PAIRS[T]]
    outcomes = [f"{o}_{T}" for T in SWITCH_TURNS for o in ("leader_won", "last_won")]
    return _plots().contrast_forest(
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
            r["label"] = f"{_lab(name, v)} robber" + (" (rule)" if name == "rule" else "")
            rows.append(r)
    if not rows:
        return None
    return _plots().share_bars(
        pd.DataFrame(rows), "share", "When an opponent leads alone, how often the robber robs "
        "them", "share of robber moves made while an opponent led alone (%)",
        reference=(THESIS_HIT_LEADER, "knowledge-based bot, 2025 thesis: 92%"),
        n_unit="robber moves")


def _lone_seat_figure(res: dict):
    """One seat's change of robber policy against the same seat unchanged, game by game."""
    picked = _picked([("policy", v, ref, f"win_strategy_{LONE[v]}",
                       f"{_lab('policy', v)} among three "
                       + ("random" if v == "lone_leader" else "leader") + " robbers", False)
                      for v, ref, _ in _policy_arms("lone_")], res)
    if picked is None:
        return None
    return _plots().contrast_forest(
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
        for v, ref, label in _arms(name):
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


TABLE_WORDS = {"rule": "four classic", "three": "three classic",
               "mixed": "mixed (builder, city, expander, army)",
               **{f"presets:{p}": f"four {p}" for p in PRESETS}}
LONE = {"lone_production": "classic_production", "lone_random": "classic_random",
        "lone_leader": "classic"}


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
        for v, ref, _ in _arms(name) if name in res else []:
            if not v.endswith("off"):
                continue
            where = TABLE_WORDS.get(name, TABLE_WORDS.get(f"{name}:{v[:-4]}", name))
            rows += [(name, v, ref, o, where, True) for o in ("turns", "stolen")]
    table = _picked(rows, res)
    if table is None:
        return None
    outcomes = list(table.index.get_level_values(2))
    return _plots().contrast_forest(
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
        for v, ref, label in _arms(name):
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
    """What the sample sizes can detect: pairs needed for 80% power at a Bonferroni
    (conservative for Holm) alpha for 1 percentage point in a win rate and in the
    leader's chance, and 0.5 turns in game length, from the observed sd of the per-game
    differences."""
    lines = ["Power (80%, two-sided, alpha = 0.05 / rows of the dataset's table, a "
             "conservative stand-in for Holm; statsmodels TTestPower on the observed sd of "
             "the per-game differences):"]
    targets = (("turns", 0.5, "0.5 turns of game length"),
               (f"leader_won_{CATCH_TURN}", 0.01,
                f"1 point in the turn-{CATCH_TURN} sole leader's chance"),
               ("win_seat_0", 0.01, "1 point in seat 0's win rate"))
    for name, d in res.items():
        c = d["contrasts"]
        if not len(c):
            continue
        alpha = 0.05 / len(c)
        parts = []
        for o, mde, what in targets:
            rows = c.xs(o, level="outcome") if o in c.index.get_level_values(2) else None
            if rows is None or not len(rows):
                continue
            sd = float(rows["sd_diff"].max())
            need = ST.games_for_paired_mean(mde, sd, alpha=alpha)
            have = int(rows["n"].min())
            if np.isfinite(need):
                parts.append(f"{what}: {need:,.0f} pairs needed, {have:,} there")
        if parts:
            lines.append(f"- {name} ({datasets[name].games:,} games per arm): "
                         + "; ".join(parts) + ".")
    return lines


SPEC = U.RuleStudy(name="robber", title=TITLE, question=QUESTION, notebook="04-robber",
                   plan=plan_for, finish=finish, answer=lambda r: make_answer(r.data),
                   answer_note=ANSWER_NOTE, report=REPORT,
                   power_lines=power_lines, budget=tuple(BUDGET))
STUDY = SPEC.study("the robber rule, its policies and the discard limit, paired on "
                  "common random numbers")
