"""The outputs of the ``openings`` study: report.html, tables/*.csv, figures/*.png, README.md.

Everything here draws and writes what ``studies.openings.analyse`` computed; the numbers
quoted in the text are read from those tables.
"""

from __future__ import annotations

import html
from pathlib import Path

import numpy as np
import pandas as pd

from .. import __version__
from ..analysis.stats import format_p
from ..board import beginner_board, make_board
from ..constants import seat_colours
from ..files import atomic_write_text
from ..reports import Section, write_study_report
from ._provenance import provenance

ARM_CSV = ["seat", "kind", "node", "node_2", "n", "wins", "win_rate", "win_ci_low",
           "win_ci_high", "base_win_rate", "diff", "ci_low", "ci_high", "p_value", "p_adjusted",
           "significant", "rank", "legal_share", "chosen_share", "other_node", "other_share",
           "width_ratio", "method", "correction"]
ARM_SHOW = ["seat", "node", "n", "win_rate", "win_ci_low", "win_ci_high", "diff", "ci_low",
            "ci_high", "p_adjusted", "legal_share", "chosen_share", "other_node"]
PLACE_SHOW = ["choice_node", "base_win_rate", "alternatives", "rank", "n_better", "n_worse",
              "best_node", "best_win_rate", "best_diff", "best_ci_low", "best_ci_high", "gain",
              "gain_ci_low", "gain_ci_high"]


def _pts(x, digits: int = 1) -> str:
    return "n/a" if x is None or not np.isfinite(x) else f"{100 * x:+.{digits}f}"


def _pct(x, digits: int = 1) -> str:
    return "n/a" if x is None or not np.isfinite(x) else f"{100 * x:.{digits}f}%"


def _ci(lo, hi) -> str:
    return f"[{_pts(lo)}, {_pts(hi)}]"


def _seat(seat: int, players: int) -> str:
    return f"seat {seat} ({seat_colours(players)[int(seat)]})"


def _top(arms: pd.DataFrame, kind: str, k: int = 10) -> pd.DataFrame:
    t = arms[arms["kind"] == kind]
    return (t.sort_values(["seat", "diff"], ascending=[True, False]).groupby("seat").head(k))


def _choice(values: dict, kind: str = "first") -> dict:
    """The strategy's own node per seat in the baseline (its most frequent choice)."""
    b = values["baseline"]["chosen_share"]
    seats = sorted(set(b.index.get_level_values("seat")))
    return {s: int(b.xs((s, kind), level=("seat", "settlement")).idxmax()) for s in seats}


def _gain(r) -> str:
    """What the cross-fitted choice gains (``placement``'s ``gain``), in words."""
    if r["selected_nodes"] == "strategy/strategy":  # every difference is 0: no interval
        return "a choice made on half the games keeps the strategy's own node on both halves"
    return (f"a choice made on half the games gains {_pts(r['gain'])} "
            f"{_ci(r['gain_ci_low'], r['gain_ci_high'])} on the other half")


def _placement_lines(place: pd.DataFrame, players: int) -> list[str]:
    out = []
    for (seat, _kind), r in place.iterrows():
        out.append(
            f"{_seat(seat, players)}: own choice node {int(r['choice_node'])} wins "
            f"{_pct(r['base_win_rate'])}; it ranks {int(r['rank'])} of "
            f"{int(r['alternatives']) + 1} free nodes, {int(r['n_better'])} significantly "
            f"better; the best-looking node {int(r['best_node'])} "
            f"{_pts(r['best_diff'])} {_ci(r['best_ci_low'], r['best_ci_high'])} points, "
            + _gain(r))
    return out


def _ul(lines) -> str:
    return "<ul>" + "".join(f"<li>{html.escape(x)}</li>" for x in lines) + "</ul>"


def _p(text: str) -> str:
    return f"<p>{html.escape(text)}</p>"


def _best_pairs(arms: pd.DataFrame, k: int = 8) -> pd.DataFrame:
    t = arms[arms["kind"] == "pair"]
    return t.sort_values(["seat", "diff"], ascending=[True, False]).groupby("seat").head(k)


def findings(res: dict) -> dict:
    """The headline numbers, as text pieces (README, report, docs)."""
    v4 = res["values"]["beginner4"]["arms"]
    p4 = res["place"]["beginner4"]
    p3 = res["place"]["beginner3"]
    ps = res["place"]["beginner4_second"]
    bs = res["board_summary"]
    model = res["model"]
    cal = model["calibration"]
    f = {"beginner4": _placement_lines(p4, 4), "beginner3": _placement_lines(p3, 3),
         "second": _placement_lines(ps, 4)}
    lines = []
    for seat, r in bs.iterrows():
        lines.append(
            f"{_seat(seat, 4)}: over {int(r['boards'])} boards the own choice is the best of "
            f"about {int(r['alternatives']) + 1} free nodes on {_pct(r['own_choice_best'], 0)} "
            f"of them [{_pct(r['own_best_ci_low'], 0)}, {_pct(r['own_best_ci_high'], 0)}], "
            f"some node is significantly better on {_pct(r['some_node_better'], 0)} "
            f"[{_pct(r['better_ci_low'], 0)}, {_pct(r['better_ci_high'], 0)}]; the average "
            f"free node is worth {_pts(r['mean_alt_diff'])} "
            f"{_ci(r['alt_ci_low'], r['alt_ci_high'])} points against it; a data-driven "
            f"choice gains {_pts(r['mean_gain'])} {_ci(r['gain_ci_low'], r['gain_ci_high'])} "
            f"points on average (the best-looking alternative, chosen in hindsight on the "
            f"same games: {_pts(r['mean_best_diff'])})")
    f["boards"] = lines
    held = cal.loc["held out"] if "held out" in cal.index else cal.iloc[0]
    f["model"] = (
        f"held-out Brier score {held['brier']:.4f} against {held['brier_base_rate']:.4f} for "
        f"the base rate (skill {held['brier_skill']:.3f}) on {int(held['seat_games']):,} "
        f"seat-games of {len(res['held_out_boards'])} board"
        f"{'s' if len(res['held_out_boards']) != 1 else ''} not used in the fit")
    mc = res.get("model_choice")
    if mc is not None and len(mc):
        f["model"] += ("; used as a placement rule there (its best first settlement per seat), "
                       "it changes the win rate by " + ", ".join(
                           f"{_pts(r['mean_diff'])} {_ci(r['ci_low'], r['ci_high'])}"
                           for _, r in mc.iterrows())
                       + " points (seats " + ", ".join(str(x) for x in mc.index) + ")")
    inter = res["seats"]["beginner4"]["test"]
    f["seats"] = (
        "" if not len(inter) else
        f"beginner map: the node x seat interaction is {'significant' if inter['p_value'].iloc[0] < 0.05 else 'not significant'} "  # noqa: E501
        f"(likelihood ratio {inter['lr'].iloc[0]:.0f} on {int(inter['df'].iloc[0])} df, "
        f"{format_p(inter['p_value'].iloc[0])}); its size: "
        f"{100 * inter['interaction_sd'].iloc[0]:.1f} points of win probability (sd of the "
        "fitted interaction)")
    f["n_arms_beginner4"] = int(len(v4))
    return f


def _sections(res: dict, scale: str) -> list[Section]:
    from ..plotting import openings as PO  # noqa: PLC0415  matplotlib: seconds to import
    from ..plotting.figures import reliability_figure  # noqa: PLC0415  matplotlib: seconds to import

    vals = res["values"]
    fnd = findings(res)
    beginner = beginner_board()
    secs = []

    # --- the question ----------------------------------------------------------------------
    s = Section("question", "The question and the answers",
                "Each arm forces one seat's settlement onto one node and replays the "
                "baseline's games (same board, dice, deck and decision streams); the value of "
                "a node is the paired difference of that seat's win rate against the "
                "strategy's own choice, with a paired t interval; the many nodes of one seat "
                "are corrected together (Benjamini-Hochberg). Four default players unless "
                "said otherwise." + (" SCALE SMALL: a few games, every 9th node, three "
                                     "boards; the numbers are not findings." if scale == "small"
                                     else ""))
    s.text(_p("How much is each starting intersection worth, in win probability, when the "
              "rest of the game is left to the players? Where does our scripted placement "
              "rank among the alternatives, and what makes a good opening across boards?"))
    s.text("<h3>Beginner map, four players: the first settlement</h3>" + _ul(fnd["beginner4"]))
    s.text("<h3>Beginner map, four players: the second settlement (the first the "
           "strategy's own)</h3>" + _ul(fnd["second"]))
    s.text("<h3>Beginner map, three players: the first settlement</h3>"
           + _ul(fnd["beginner3"]))
    s.text(f"<h3>{len(res['board_values'])} variable boards</h3>" + _ul(fnd["boards"]))
    if fnd["seats"]:
        s.text("<h3>Seats</h3>" + _p(fnd["seats"]))
    s.text("<h3>What makes a good opening</h3>" + _p(fnd["model"]))
    secs.append(s)

    # --- beginner map, 4 players ---------------------------------------------------------
    a4 = vals["beginner4"]["arms"]
    s = Section("beginner4", "Beginner map, four players: the first settlement",
                "1 + 4 x 54 variants of the same games: every seat's first settlement on every "
                "node, the second settlement and the roads left to the strategy. The beginner "
                "map's printed pieces are left out (board = \"beginner\"). A node that was not "
                "free at the seat's turn in the baseline is reserved for it by the engine "
                "(the earlier seats settle elsewhere): its value says what getting it would be "
                "worth, not a choice the seat had; placement ranks only the free nodes.")
    s.figure("beginner4_value_map", PO.value_map_figure(
        a4, beginner, title="Beginner map, 4 players: value of each first settlement",
        choice=_choice(vals["beginner4"]), n_players=4))
    s.figure("beginner4_best", PO.best_openings_figure(a4, top=8, n_players=4))
    p4 = res["place"]["beginner4"]
    s.table("beginner4_placement", p4[PLACE_SHOW],
            "the strategy's own first settlement per seat among the nodes free at its turn: "
            "rank by the point estimates, nodes significantly better or worse, the best-looking "
            "node (biased upward: chosen on the same games) and the gain of a node chosen on "
            "half the games, measured on the other half (honest)", p4)
    s.table("beginner4_top", _top(a4, "first")[ARM_SHOW],
            "the 10 best first settlements per seat (all 216 arms in the CSV): win rate with "
            "its Wilson interval, paired difference against the own choice with its t interval, "
            "p after Benjamini-Hochberg over the seat's 54 nodes; legal_share: share of "
            "baseline games with the node free at the seat's turn", a4[ARM_CSV])
    secs.append(s)

    # --- second settlement and pairs -------------------------------------------------------
    a2 = vals["beginner4_second"]["arms"]
    ap = vals["beginner4_pairs"]["arms"]
    s = Section("second", "The second settlement given the first, and pairs",
                "Second-settlement arms force every seat's second settlement onto every node, "
                "the first left to the strategy (on a fixed board the same node in every game); "
                "pair arms force both settlements of seat 0 (the first pick, and the last one "
                "of the set-up) and seat 3 (the double pick in the middle of the snake) over "
                "the best nodes of the first-settlement map. Values are paired against the "
                "baseline, the strategy's own two choices.")
    s.figure("beginner4_second_value_map", PO.value_map_figure(
        a2, beginner, kind="second", choice=_choice(vals["beginner4_second"], "second"),
        title="Beginner map, 4 players: value of each second settlement (first: the own choice)",
        n_players=4))
    s.figure("beginner4_spread", PO.spread_figure(a4, a2, n_players=4))
    ps = res["place"]["beginner4_second"]
    s.table("beginner4_second_placement", ps[PLACE_SHOW],
            "the strategy's own second settlement among the nodes free at its turn, as above",
            ps)
    for seat in sorted(ap["seat"].unique()):
        s.figure(f"beginner4_pairs_seat{seat}", PO.pair_matrix_figure(ap, seat, n_players=4))
    bp = _best_pairs(ap)
    s.table("beginner4_pairs_top", bp[["seat", "node", "node_2", "n", "win_rate", "win_ci_low",
                                       "win_ci_high", "diff", "ci_low", "ci_high",
                                       "p_adjusted"]],
            "the best forced pairs per seat (first node, second node), all pairs in the CSV",
            ap[ARM_CSV])
    secs.append(s)

    # --- beginner map, 3 players -------------------------------------------------------------
    a3 = vals["beginner3"]["arms"]
    s = Section("beginner3", "Beginner map, three players",
                "As for four players: 1 + 3 x 54 variants; the seats are blue, white and orange "
                "(the beginner set-up leaves red out with three players).")
    s.figure("beginner3_value_map", PO.value_map_figure(
        a3, beginner, title="Beginner map, 3 players: value of each first settlement",
        choice=_choice(vals["beginner3"]), n_players=3))
    p3 = res["place"]["beginner3"]
    s.table("beginner3_placement", p3[PLACE_SHOW], "as for four players", p3)
    s.table("beginner3_top", _top(a3, "first")[ARM_SHOW], "the 10 best per seat; all in the CSV",
            a3[ARM_CSV])
    secs.append(s)

    # --- seats ---------------------------------------------------------------------------------
    s = Section("seats", "Does a node's value depend on the seat that takes it?",
                "A binomial GLM of the forced seat's wins with node and seat effects, with and "
                "without their interaction (statsmodels); the likelihood-ratio test says whether "
                "the value of a node changes with the seat beyond a seat's own advantage, "
                "interaction_sd how much (points of win probability). Spearman rank "
                "correlations of the seats' value maps (scipy). On the variable boards the test "
                "is run per board and Holm-corrected across boards.")
    s.figure("beginner4_seat_values", PO.seat_values_figure(a4, n_players=4))
    tests = []
    for name in ("beginner4", "beginner3"):
        t = res["seats"][name]["test"]
        if len(t):
            tests.append(t.reset_index().assign(map=name))
    if tests:
        tt = pd.concat(tests, ignore_index=True).set_index("map")
        s.table("seat_interaction", tt, "likelihood-ratio test of node x seat on the forced "
                                        "seat's wins; n = seat_games", tt)
    for name in ("beginner4", "beginner3"):
        c = res["seats"][name]["correlation"]
        if len(c):
            s.table(f"{name}_seat_correlation", c, f"{name}: Spearman rho of the nodes' paired "
                                                   "values between seats; n = nodes", c)
            bs_ = res["seats"][name]["by_seat"]
            s.table(f"{name}_seat_best", bs_, f"{name}: each seat's best node and the spread of "
                                              "its node values", bs_)
    bi = res["board_interaction"]
    if len(bi):
        s.text(_p(f"Variable boards: the interaction is significant after Holm correction on "
                  f"{int(bi['significant'].sum())} of {len(bi)} boards; median fitted size "
                  f"{100 * bi['interaction_sd'].median():.1f} points, of which sampling noise "
                  f"(80 games a cell) is most: net of its expected share "
                  f"{100 * bi['interaction_sd_net'].median():.1f} points; median Spearman rho "
                  f"between the seats' maps {bi['rho_mean'].median():.2f} (seat 0 against the "
                  f"last seat {bi['rho_0_last'].median():.2f})."))
        s.table("boards_seat_interaction", bi.set_index("board")[
            ["lr", "df", "p_value", "p_adjusted", "significant", "interaction_sd",
             "interaction_sd_net", "rho_mean", "rho_0_last", "seat_games"]].head(12),
            "per board: the test and the rank correlations (the first boards; all in the CSV)",
            bi.set_index("board"))
    secs.append(s)

    # --- variable boards ---------------------------------------------------------------------
    bsum = res["board_summary"]
    bplace = res["board_place"].copy()
    bplace.attrs["summary"] = bsum.rename(columns={"mean_gain": "mean"}).rename(
        columns={"gain_ci_low": "ci_low", "gain_ci_high": "ci_high"})
    s = Section("boards", f"{len(res['board_values'])} variable boards: where the scripted "
                          "placement ranks",
                "Each board variable:k is its own experiment: 1 + 4 x 54 variants of the same "
                "games. Per board and seat: the own choice's rank among the nodes free at its "
                "turn, the nodes significantly better (Benjamini-Hochberg over the seat's "
                "nodes), and the gain of a data-driven choice (the node that looks best on the "
                "even games measured on the odd ones and vice versa). Across boards: means with "
                "t intervals (boards as replicates), shares of boards with Wilson intervals.")
    s.figure("boards_gain", PO.gain_figure(bplace, n_players=4))
    s.table("boards_summary", bsum.drop(columns="method"), "per seat over the boards",
            bsum)
    s.table("boards_placement", bplace.set_index(["board", "seat"])[PLACE_SHOW].head(40),
            "per board and seat (the first boards; all in the CSV)",
            bplace.set_index(["board", "seat"]))
    gains = bplace.groupby("board")["gain"].mean()
    for label, k in (("largest", int(gains.idxmax())), ("smallest", int(gains.idxmin()))):
        arms = res["board_values"][k]["arms"]
        s.figure(f"board{k:03d}_value_map", PO.value_map_figure(
            arms, make_board("variable", k), choice=_choice(res["board_values"][k]),
            title=f"Board variable:{k}, the {label} mean gain over the own choice",
            n_players=4))
    allb = []
    for k, v in res["board_values"].items():
        allb.append(v["arms"][["seat", "node", "n", "win_rate", "win_ci_low", "win_ci_high",
                               "diff", "ci_low", "ci_high", "p_adjusted", "legal_share",
                               "chosen_share"]].assign(board=k))
    # rounded: 21,700 rows, committed (5 decimals are far below the intervals' width)
    allb = pd.concat(allb).reset_index(drop=True).set_index(["board", "seat", "node"]).round(5)
    s.text(_p(f"The value maps of all {len(res['board_values'])} boards are in "
              "tables/boards_value_maps.csv (one row per board, seat and node); "
              "`catansim openings --layout variable --seed K` draws any of them."))
    s.table("boards_value_maps", allb.head(0), "every board's map", allb)
    secs.append(s)

    # --- the win model ------------------------------------------------------------------------
    m = res["model"]
    coef = m["coefficients"]
    s = Section("model", "What makes a good opening",
                "A logistic regression of winning on the opening's features (binomial GLM on "
                "the seat-games of every (variant, seat, opening) of the variable boards: "
                "forced and free openings), intervals cluster-robust by board; beside it the "
                "same terms as a linear probability model (points of win probability per unit). "
                f"Fitted on the boards k with k % {res['held_out_every']} != 0, checked on the "
                "others (held out): "
                "Brier score against predicting the base rate, reliability by decile of the "
                "prediction (Wilson intervals).")
    s.figure("model_coefficients", PO.coefficients_figure(coef))
    s.table("model_coefficients", coef[["label", "coef", "ci_low", "ci_high", "p_value",
                                        "odds_ratio", "per_sd", "lpm", "lpm_ci_low",
                                        "lpm_ci_high", "n", "clusters"]],
            "logistic coefficients (log odds per unit) with cluster-robust 95% intervals; lpm: "
            "win probability per unit; n = seat-games of the training boards", coef)
    pub = res["published"]
    s.table("published_comparison", pub.drop(columns="source"),
            f"our estimates beside {pub['source'].iloc[0] if len(pub) else 'the published fit'}"
            " (its scale is not ours: compare signs and order)", pub)
    cal = m["calibration"]
    s.table("model_calibration", cal, "Brier score (lower is better), that of the training base "
                                      "rate, skill = 1 - ratio; log loss", cal)
    s.figure("model_reliability", reliability_figure(m["reliability"]))
    mc = res.get("model_choice")
    if mc is not None and len(mc):
        s.text(_p("The model as a placement rule: on each held-out board it picks, per seat, the "
                  "first settlement (or the strategy's own) with the highest fitted win "
                  "probability, and the pick is scored by its paired difference on that board's "
                  "games. " + " ".join(
                      f"{_seat(seat, 4)}: {_pts(r['mean_diff'])} "
                      f"{_ci(r['ci_low'], r['ci_high'])} points over {int(r['boards'])} boards;"
                      for seat, r in mc.iterrows())))
        s.table("model_choice", mc.drop(columns="method"),
                "the win model as a placement rule on the held-out boards: mean paired "
                "difference against the strategy's own choice (t interval over boards)", mc)
        s.table("model_picks", res["model_picks"].set_index(["board", "seat"]).head(12),
                "its pick per held-out board and seat (the first rows; all in the CSV)",
                res["model_picks"].set_index(["board", "seat"]))
    rc = res["model_resources"]["coefficients"]
    s.table("model_resources", rc[["label", "coef", "ci_low", "ci_high", "lpm", "lpm_ci_low",
                                   "lpm_ci_high"]],
            "the same model with the pips of each resource in place of the total", rc)
    secs.append(s)

    # --- runs --------------------------------------------------------------------------------
    runs = res["runs"]
    s = Section("runs", "Runs",
                "Games and time of every run (summed over the invocations of catansim study "
                "that played games; a resumed run adds its time). The machine is a 2-core VM "
                "shared with other jobs, so wall time depends on the load; CPU seconds are this "
                "process's own.")
    s.table("runs", runs, "games = variants x games per variant", runs)
    secs.append(s)
    return secs


def write(out: Path, res: dict, scale: str, items, title: str) -> Path:
    """Write report.html, tables, figures and README.md into ``out``; returns the report
    (``title``: the study's question)."""
    sections = _sections(res, scale)
    runs = res["runs"]
    total = int(runs["games"].sum())
    items_ = [("question", title), ("command", "catansim study openings"
                                       + (" --scale small" if scale == "small" else "")),
              ("scale", scale), ("games", f"{total:,} in {len(items)} datasets"),
              ("experiments", ", ".join(runs.index)),
              ("catansim", __version__),
              *provenance({name: root for name, _, root in items}),
              ("analyses", f"{res['analysis_seconds']:.1f} s")]
    path = write_study_report(out, sections, "catansim study: openings", items_)
    atomic_write_text(out / "README.md", readme(res, scale, sections))
    return path


def power_table(res: dict) -> pd.DataFrame:
    """Per experiment: games per arm, the median sd of the per-game paired difference, the
    95% half-width of one arm's difference and the difference detectable at 80% power."""
    from scipy.stats import norm  # noqa: PLC0415  scipy.stats: a second to import

    groups = {n: [v["arms"]] for n, v in res["values"].items() if not n.startswith("board")}
    groups["boards"] = [v["arms"] for v in res["board_values"].values()]
    rows = {}
    for name, frames in groups.items():
        a = pd.concat(frames)
        a = a[a["n"] > 0]
        n, sd = float(a["n"].median()), float(a["sd_diff"].median())
        se = sd / np.sqrt(n)
        rows[name] = {"n": n, "sd": sd, "half": norm.ppf(0.975) * se,
                      "mde": (norm.ppf(0.975) + norm.ppf(0.8)) * se}
    return pd.DataFrame(rows).T


def readme(res: dict, scale: str, sections) -> str:
    runs = res["runs"]
    fnd = findings(res)
    lines = [
        "# The value of starting positions",
        "",
        "How much is each starting intersection worth, in win probability, when the rest of "
        "the game is left to the players? Where does our scripted placement rank among the "
        "alternatives, and what makes a good opening across boards?",
        "",
        "Rebuild everything (resumable; the datasets go to `data/`, never committed):",
        "",
        "```",
        "catansim study openings" + (" --scale small" if scale == "small" else ""),
        "```",
        "",
        "Each arm of a sweep forces one seat's settlement onto one node and replays the "
        "baseline's games (same board, dice, deck and decisions), so a node's value is a "
        "paired difference in win probability against the strategy's own choice. The "
        "report (`report.html`) has the method notes; `docs/findings.md` the discussion.",
        "",
    ]
    if scale == "small":
        lines += ["**Scale small**: a few games, every 9th node, three boards: the numbers "
                  "below are not findings.", ""]
    lines += ["## Answers", "", "Beginner map, four players, first settlement:", ""]
    lines += [f"- {x}" for x in fnd["beginner4"]]
    lines += ["", "Beginner map, four players, second settlement (the first the strategy's "
              "own):", ""] + [f"- {x}" for x in fnd["second"]]
    lines += ["", "Beginner map, three players, first settlement:", ""]
    lines += [f"- {x}" for x in fnd["beginner3"]]
    lines += ["", "Variable boards:", ""] + [f"- {x}" for x in fnd["boards"]]
    if fnd["seats"]:
        lines += ["", f"Seats: {fnd['seats']}."]
    lines += ["", f"Win model: {fnd['model']}.", ""]
    lines += ["## Runs", "",
              "| experiment | datasets | variants | games per variant | games | seconds | CPU "
              "seconds | games/s |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for name, r in runs.iterrows():
        lines.append(f"| {name} | {int(r['datasets'])} | {int(r['variants']):,} | "
                     f"{int(r['games_per_variant']):,} | {int(r['games']):,} | "
                     f"{r['seconds']:,.0f} | {r['cpu_seconds']:,.0f} | "
                     f"{r['games_per_second']:,.0f} |")
    lines += ["", f"In all {int(runs['games'].sum()):,} games. Seconds: playing and writing, "
              "summed over the invocations that played games, on a 2-core VM shared with "
              "other jobs (wall time depends on the load; CPU seconds are the run's own). "
              f"Engine fingerprint of the runs: {res.get('engine', 'unknown')} "
              "(`catansim.core.engine_fingerprint`; a dataset is resumed only by the same "
              "engine, so a rebuild with another one starts in a fresh `--out`).", ""]
    lines += ["## Sample sizes by power", "",
              f"The study's budget was 4 million games ({int(runs['games'].sum()):,} in "
              "these runs, plus one timing run of `catansim openings`). Games per arm were "
              "chosen for the interval each "
              "question needs; the table gives what they deliver, from the per-game sd of "
              "the paired differences measured in the runs (median over arms): the 95% "
              "half-width of one node's value and the difference one node can detect with 80% "
              "power at 0.05 (2.8 standard errors).", "",
              "| experiment | games per arm | sd of a paired difference | 95% half-width "
              "(points) | detectable at 80% power (points) |", "|---|---:|---:|---:|---:|"]
    for name, r in power_table(res).iterrows():
        lines.append(f"| {name} | {int(r['n']):,} | {r['sd']:.2f} | {100 * r['half']:.1f} | "
                     f"{100 * r['mde']:.1f} |")
    lines += ["", "The variable boards' cells are small on purpose: their questions are pooled "
              f"over {len(res['board_values'])} boards (the mean gain, the mean value of the "
              f"alternatives, the win model on {int(res['model_rows']['seat_games'].sum()):,} "
              "seat-games), whose intervals are a few points wide.", ""]
    lines += ["## Tables and figures", ""]
    for s in sections:
        for b in s.blocks:
            if b[0] == "table":
                lines.append(f"- `tables/{b[1]}.csv` ({s.title}): {b[3]}")
            elif b[0] == "figure":
                lines.append(f"- `figures/{b[1]}.png` ({s.title})" + (f": {b[3]}" if b[3]
                                                                     else ""))
    lines.append("")
    return "\n".join(lines)
