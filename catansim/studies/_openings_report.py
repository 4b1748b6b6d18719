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
from ..reports import Each, Figure, Part, Results, Table, Text, sections_of, write_study_report
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


def _plots():
    from ..plotting import openings as PO  # noqa: PLC0415  matplotlib: seconds to import

    return PO


def _reliability(frame: pd.DataFrame):
    from ..plotting.figures import reliability_figure  # noqa: PLC0415  matplotlib: slow import

    return reliability_figure(frame)


def _question_note(r) -> str:
    return ("Each arm forces one seat's settlement onto one node and replays the baseline's "
            "games (same board, dice, deck and decision streams); the value of a node is the "
            "paired difference of that seat's win rate against the strategy's own choice, "
            "with a paired t interval; the many nodes of one seat are corrected together "
            "(Benjamini-Hochberg). Four classic players unless said otherwise."
            + (" SCALE SMALL: a few games, every 9th node, three boards; the numbers are not "
               "findings." if r.scale == "small" else ""))


def _finding(key: str, heading, as_list: bool = True, optional: bool = False) -> Text:
    """The findings ``key`` (lines, or one paragraph) under ``heading`` (``optional``: left
    out when there are none)."""
    return Text(lambda r: f"<h3>{heading(r) if callable(heading) else heading}</h3>"
                + (_ul(r.findings[key]) if as_list else _p(r.findings[key])),
                when=(lambda r: bool(r.findings[key])) if optional else None)


QUESTION = Part("question", "The question and the answers", _question_note, (
    Text(_p("How much is each starting intersection worth, in win probability, when the rest "
            "of the game is left to the players? Where does our scripted placement rank among "
            "the alternatives, and what makes a good opening across boards?")),
    _finding("beginner4", "Beginner map, four players: the first settlement"),
    _finding("second", "Beginner map, four players: the second settlement (the first the "
             "strategy's own)"),
    _finding("beginner3", "Beginner map, three players: the first settlement"),
    _finding("boards", lambda r: f"{len(r['board_values'])} variable boards"),
    _finding("seats", "Seats", as_list=False, optional=True),
    _finding("model", "What makes a good opening", as_list=False)))


def _value_map(name: str, values: str, players: int, title: str, kind: str = "first"
               ) -> Figure:
    """The value map of the arms of ``values.<values>`` on the beginner map."""
    def draw(r):
        v = r[f"values.{values}"]
        return _plots().value_map_figure(v["arms"], beginner_board(), title=title,
                                         choice=_choice(v, kind), n_players=players,
                                         **({"kind": kind} if kind != "first" else {}))
    return Figure(name, draw)


def _placement(name: str, caption: str) -> Table:
    return Table(f"{name}_placement", f"place.{name}", caption,
                 view=lambda t, r: t[PLACE_SHOW])


def _top_table(name: str, caption: str) -> Table:
    return Table(f"{name}_top", f"values.{name}.arms", caption,
                 view=lambda a, r: _top(a, "first")[ARM_SHOW], csv=lambda r: r[
                     f"values.{name}.arms"][ARM_CSV])


BEGINNER4 = Part(
    "beginner4", "Beginner map, four players: the first settlement",
    "1 + 4 x 54 variants of the same games: every seat's first settlement on every node, the "
    "second settlement and the roads left to the strategy. The beginner map's printed pieces "
    "are left out (board = \"beginner\"). A node that was not free at the seat's turn in the "
    "baseline is reserved for it by the engine (the earlier seats settle elsewhere): its "
    "value says what getting it would be worth, not a choice the seat had; placement ranks "
    "only the free nodes.", (
        _value_map("beginner4_value_map", "beginner4", 4,
                   "Beginner map, 4 players: value of each first settlement"),
        Figure("beginner4_best", lambda r: _plots().best_openings_figure(
            r["values.beginner4.arms"], top=8, n_players=4)),
        _placement("beginner4", "the strategy's own first settlement per seat among the nodes "
                   "free at its turn: rank by the point estimates, nodes significantly better "
                   "or worse, the best-looking node (biased upward: chosen on the same games) "
                   "and the gain of a node chosen on half the games, measured on the other "
                   "half (honest)"),
        _top_table("beginner4", "the 10 best first settlements per seat (all 216 arms in the "
                   "CSV): win rate with its Wilson interval, paired difference against the own "
                   "choice with its t interval, p after Benjamini-Hochberg over the seat's 54 "
                   "nodes; legal_share: share of baseline games with the node free at the "
                   "seat's turn")))


def _pair_figures(r) -> list[Figure]:
    """A pair matrix per seat of the pair arms."""
    ap = r["values.beginner4_pairs.arms"]
    return [Figure(f"beginner4_pairs_seat{seat}",
                   lambda r, seat=seat: _plots().pair_matrix_figure(ap, seat, n_players=4))
            for seat in sorted(ap["seat"].unique())]


SECOND = Part(
    "second", "The second settlement given the first, and pairs",
    "Second-settlement arms force every seat's second settlement onto every node, the first "
    "left to the strategy (on a fixed board the same node in every game); pair arms force "
    "both settlements of seat 0 (the first pick, and the last one of the set-up) and seat 3 "
    "(the double pick in the middle of the snake) over the best nodes of the "
    "first-settlement map. Values are paired against the baseline, the strategy's own two "
    "choices.", (
        _value_map("beginner4_second_value_map", "beginner4_second", 4,
                   "Beginner map, 4 players: value of each second settlement (first: the own "
                   "choice)", kind="second"),
        Figure("beginner4_spread", lambda r: _plots().spread_figure(
            r["values.beginner4.arms"], r["values.beginner4_second.arms"], n_players=4)),
        _placement("beginner4_second", "the strategy's own second settlement among the nodes "
                   "free at its turn, as above"),
        Each(_pair_figures),
        Table("beginner4_pairs_top", "values.beginner4_pairs.arms",
              "the best forced pairs per seat (first node, second node), all pairs in the CSV",
              view=lambda a, r: _best_pairs(a)[
                  ["seat", "node", "node_2", "n", "win_rate", "win_ci_low", "win_ci_high",
                   "diff", "ci_low", "ci_high", "p_adjusted"]],
              csv=lambda r: r["values.beginner4_pairs.arms"][ARM_CSV])))

BEGINNER3 = Part(
    "beginner3", "Beginner map, three players",
    "As for four players: 1 + 3 x 54 variants; the seats are blue, white and orange (the "
    "beginner set-up leaves red out with three players).", (
        _value_map("beginner3_value_map", "beginner3", 3,
                   "Beginner map, 3 players: value of each first settlement"),
        _placement("beginner3", "as for four players"),
        _top_table("beginner3", "the 10 best per seat; all in the CSV")))

_MAPS = ("beginner4", "beginner3")


def seat_interaction(r) -> pd.DataFrame | None:
    """The node x seat test of each beginner map that has one, by map; None if none."""
    tests = [r[f"seats.{m}.test"].reset_index().assign(map=m) for m in _MAPS
             if len(r[f"seats.{m}.test"])]
    return pd.concat(tests, ignore_index=True).set_index("map") if tests else None


def _seat_tables(r) -> list[Table]:
    """Per beginner map with a correlation: its seats' rank correlations and best nodes."""
    out = []
    for m in _MAPS:
        if len(r[f"seats.{m}.correlation"]):
            out += [Table(f"{m}_seat_correlation", f"seats.{m}.correlation",
                          f"{m}: Spearman rho of the nodes' paired values between seats; n = "
                          "nodes"),
                    Table(f"{m}_seat_best", f"seats.{m}.by_seat",
                          f"{m}: each seat's best node and the spread of its node values")]
    return out


def boards_interaction_text(r) -> str:
    bi = r["board_interaction"]
    return _p(f"Variable boards: the interaction is significant after Holm correction on "
              f"{int(bi['significant'].sum())} of {len(bi)} boards; median fitted size "
              f"{100 * bi['interaction_sd'].median():.1f} points, of which sampling noise (80 "
              f"games a cell) is most: net of its expected share "
              f"{100 * bi['interaction_sd_net'].median():.1f} points; median Spearman rho "
              f"between the seats' maps {bi['rho_mean'].median():.2f} (seat 0 against the "
              f"last seat {bi['rho_0_last'].median():.2f}).")


def _any_boards(r) -> bool:
    return len(r["board_interaction"]) > 0


SEATS = Part(
    "seats", "Does a node's value depend on the seat that takes it?",
    "A binomial GLM of the forced seat's wins with node and seat effects, with and without "
    "their interaction (statsmodels); the likelihood-ratio test says whether the value of a "
    "node changes with the seat beyond a seat's own advantage, interaction_sd how much "
    "(points of win probability). Spearman rank correlations of the seats' value maps "
    "(scipy). On the variable boards the test is run per board and Holm-corrected across "
    "boards.", (
        Figure("beginner4_seat_values", lambda r: _plots().seat_values_figure(
            r["values.beginner4.arms"], n_players=4)),
        Table("seat_interaction", seat_interaction, "likelihood-ratio test of node x seat on "
              "the forced seat's wins; n = seat_games",
              when=lambda r: seat_interaction(r) is not None),
        Each(_seat_tables),
        Text(boards_interaction_text, when=_any_boards),
        Table("boards_seat_interaction", lambda r: r["board_interaction"].set_index("board"),
              "per board: the test and the rank correlations (the first boards; all in the "
              "CSV)", view=lambda t, r: t[
                  ["lr", "df", "p_value", "p_adjusted", "significant", "interaction_sd",
                   "interaction_sd_net", "rho_mean", "rho_0_last", "seat_games"]].head(12),
              when=_any_boards)))


def board_place(r) -> pd.DataFrame:
    """Every board's placement, with the summary over boards the gain figure draws."""
    bplace = r["board_place"].copy()
    bplace.attrs["summary"] = r["board_summary"].rename(columns={"mean_gain": "mean"}).rename(
        columns={"gain_ci_low": "ci_low", "gain_ci_high": "ci_high"})
    return bplace


def _extreme_boards(r) -> list[Figure]:
    """The value maps of the boards with the largest and the smallest mean gain."""
    gains = board_place(r).groupby("board")["gain"].mean()
    out = []
    for label, k in (("largest", int(gains.idxmax())), ("smallest", int(gains.idxmin()))):
        v = r.data["board_values"][k]
        out.append(Figure(f"board{k:03d}_value_map",
                          lambda r, v=v, k=k, label=label: _plots().value_map_figure(
                              v["arms"], make_board("variable", k), choice=_choice(v),
                              title=f"Board variable:{k}, the {label} mean gain over the own "
                                    "choice", n_players=4)))
    return out


def board_value_maps(r) -> pd.DataFrame:
    """Every board's value map, one row per board, seat and node."""
    allb = [v["arms"][["seat", "node", "n", "win_rate", "win_ci_low", "win_ci_high", "diff",
                       "ci_low", "ci_high", "p_adjusted", "legal_share", "chosen_share"]]
            .assign(board=k) for k, v in r.data["board_values"].items()]
    # rounded: 21,700 rows, committed (5 decimals are far below the intervals' width)
    return pd.concat(allb).reset_index(drop=True).set_index(["board", "seat", "node"]).round(5)


BOARDS = Part(
    "boards", lambda r: f"{len(r['board_values'])} variable boards: where the scripted "
                        "placement ranks",
    "Each board variable:k is its own experiment: 1 + 4 x 54 variants of the same games. Per "
    "board and seat: the own choice's rank among the nodes free at its turn, the nodes "
    "significantly better (Benjamini-Hochberg over the seat's nodes), and the gain of a "
    "data-driven choice (the node that looks best on the even games measured on the odd ones "
    "and vice versa). Across boards: means with t intervals (boards as replicates), shares of "
    "boards with Wilson intervals.", (
        Figure("boards_gain", lambda r: _plots().gain_figure(board_place(r), n_players=4)),
        Table("boards_summary", "board_summary", "per seat over the boards",
              view=lambda t, r: t.drop(columns="method")),
        Table("boards_placement", lambda r: board_place(r).set_index(["board", "seat"]),
              "per board and seat (the first boards; all in the CSV)",
              view=lambda t, r: t[PLACE_SHOW].head(40)),
        Each(_extreme_boards),
        Text(lambda r: _p(f"The value maps of all {len(r['board_values'])} boards are in "
                          "tables/boards_value_maps.csv (one row per board, seat and node); "
                          "`catansim openings --layout variable --seed K` draws any of "
                          "them.")),
        Table("boards_value_maps", board_value_maps, "every board's map",
              view=lambda t, r: t.head(0))))


def model_choice_text(r) -> str:
    return _p("The model as a placement rule: on each held-out board it picks, per seat, the "
              "first settlement (or the strategy's own) with the highest fitted win "
              "probability, and the pick is scored by its paired difference on that board's "
              "games. " + " ".join(
                  f"{_seat(seat, 4)}: {_pts(x['mean_diff'])} {_ci(x['ci_low'], x['ci_high'])} "
                  f"points over {int(x['boards'])} boards;"
                  for seat, x in r["model_choice"].iterrows()))


def _has_choice(r) -> bool:
    mc = r.get("model_choice")
    return mc is not None and len(mc) > 0


def _model_note(r) -> str:
    return ("A logistic regression of winning on the opening's features (binomial GLM on the "
            "seat-games of every (variant, seat, opening) of the variable boards: forced and "
            "free openings), intervals cluster-robust by board; beside it the same terms as a "
            "linear probability model (points of win probability per unit). Fitted on the "
            f"boards k with k % {r['held_out_every']} != 0, checked on the others (held out): "
            "Brier score against predicting the base rate, reliability by decile of the "
            "prediction (Wilson intervals).")


def _published_caption(r) -> str:
    pub = r["published"]
    return (f"our estimates beside {pub['source'].iloc[0] if len(pub) else 'the published fit'}"
            " (its scale is not ours: compare signs and order)")


MODEL = Part("model", "What makes a good opening", _model_note, (
    Figure("model_coefficients", lambda r: _plots().coefficients_figure(
        r["model.coefficients"])),
    Table("model_coefficients", "model.coefficients",
          "logistic coefficients (log odds per unit) with cluster-robust 95% intervals; lpm: "
          "win probability per unit; n = seat-games of the training boards",
          view=lambda t, r: t[["label", "coef", "ci_low", "ci_high", "p_value", "odds_ratio",
                               "per_sd", "lpm", "lpm_ci_low", "lpm_ci_high", "n",
                               "clusters"]]),
    Table("published_comparison", "published", _published_caption,
          view=lambda t, r: t.drop(columns="source")),
    Table("model_calibration", "model.calibration", "Brier score (lower is better), that of "
          "the training base rate, skill = 1 - ratio; log loss"),
    Figure("model_reliability", lambda r: _reliability(r["model.reliability"])),
    Text(model_choice_text, when=_has_choice),
    Table("model_choice", "model_choice", "the win model as a placement rule on the held-out "
          "boards: mean paired difference against the strategy's own choice (t interval over "
          "boards)", view=lambda t, r: t.drop(columns="method"), when=_has_choice),
    Table("model_picks", lambda r: r["model_picks"].set_index(["board", "seat"]),
          "its pick per held-out board and seat (the first rows; all in the CSV)",
          view=lambda t, r: t.head(12), when=_has_choice),
    Table("model_resources", "model_resources.coefficients",
          "the same model with the pips of each resource in place of the total",
          view=lambda t, r: t[["label", "coef", "ci_low", "ci_high", "lpm", "lpm_ci_low",
                               "lpm_ci_high"]])))

RUNS = Part(
    "runs", "Runs",
    "Games and time of every run (summed over the invocations of catansim study that played "
    "games; a resumed run adds its time). The machine is a 2-core VM shared with other jobs, "
    "so wall time depends on the load; CPU seconds are this process's own.", (
        Table("runs", "runs", "games = variants x games per variant"),))

REPORT = (QUESTION, BEGINNER4, SECOND, BEGINNER3, SEATS, BOARDS, MODEL, RUNS)


def write(out: Path, res: dict, scale: str, items, title: str) -> Path:
    """Write report.html, tables, figures and README.md into ``out``; returns the report
    (``title``: the study's question)."""
    sections = sections_of(REPORT, Results(res, scale=scale, findings=findings(res)))
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
              "engine, so a rebuild with another one starts in a fresh `--out`); games "
              f"digest {res.get('games_digest', 'not recorded')} "
              "(`catansim.engine.games_digest`: an engine with the same digest plays the "
              "same games).", ""]
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
