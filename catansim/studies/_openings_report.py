"""The outputs of the ``openings`` study: report.html, tables/*.csv, figures/*.png, README.md.

Everything here draws and writes what ``studies.openings.analyse`` computed; the numbers
quoted in the text are read from those tables. Its words: ``text/openings.md``.
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
from . import _headlines as H
from ._provenance import provenance
from ._words import Words

W = Words("openings")

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
    return W.fill("seat", seat=seat, colour=seat_colours(players)[int(seat)])


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
        return W["gain none"]
    return W.fill("gain", gain=_pts(r["gain"]), ci=_ci(r["gain_ci_low"], r["gain_ci_high"]))


def _placement_lines(place: pd.DataFrame, players: int) -> list[str]:
    out = []
    for (seat, _kind), r in place.iterrows():
        out.append(W.fill(
            "placement", seat=_seat(seat, players), node=int(r["choice_node"]),
            rate=_pct(r["base_win_rate"]), rank=int(r["rank"]), free=int(r["alternatives"]) + 1,
            better=int(r["n_better"]), best=int(r["best_node"]), diff=_pts(r["best_diff"]),
            ci=_ci(r["best_ci_low"], r["best_ci_high"]), gain=_gain(r)))
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
        lines.append(W.fill(
            "boards line", seat=_seat(seat, 4), boards=int(r["boards"]),
            free=int(r["alternatives"]) + 1, best=_pct(r["own_choice_best"], 0),
            best_low=_pct(r["own_best_ci_low"], 0), best_high=_pct(r["own_best_ci_high"], 0),
            better=_pct(r["some_node_better"], 0), better_low=_pct(r["better_ci_low"], 0),
            better_high=_pct(r["better_ci_high"], 0), alt=_pts(r["mean_alt_diff"]),
            alt_ci=_ci(r["alt_ci_low"], r["alt_ci_high"]), gain=_pts(r["mean_gain"]),
            gain_ci=_ci(r["gain_ci_low"], r["gain_ci_high"]),
            hindsight=_pts(r["mean_best_diff"])))
    f["boards"] = lines
    held = cal.loc["held out"] if "held out" in cal.index else cal.iloc[0]
    held_out = len(res["held_out_boards"])
    f["model"] = W.fill(
        "model", brier=f"{held['brier']:.4f}", base=f"{held['brier_base_rate']:.4f}",
        skill=f"{held['brier_skill']:.3f}", seat_games=f"{int(held['seat_games']):,}",
        boards=W.fill("model board" if held_out == 1 else "model boards", n=held_out))
    mc = res.get("model_choice")
    if mc is not None and len(mc):
        f["model"] += W.fill("model as a rule", diffs=", ".join(
            f"{_pts(r['mean_diff'])} {_ci(r['ci_low'], r['ci_high'])}" for _, r in mc.iterrows()),
            seats=", ".join(str(x) for x in mc.index))
    inter = res["seats"]["beginner4"]["test"]
    f["seats"] = "" if not len(inter) else W.fill(
        "seats interaction",
        significant=W["significant" if inter["p_value"].iloc[0] < 0.05 else "not significant"],
        lr=f"{inter['lr'].iloc[0]:.0f}", df=int(inter["df"].iloc[0]),
        p=format_p(inter["p_value"].iloc[0]),
        size=f"{100 * inter['interaction_sd'].iloc[0]:.1f}")
    f["n_arms_beginner4"] = int(len(v4))
    return f


def _plots():
    from ..plotting import openings as PO  # noqa: PLC0415  matplotlib: seconds to import

    return PO


def _reliability(frame: pd.DataFrame):
    from ..plotting.figures import reliability_figure  # noqa: PLC0415  matplotlib: slow import

    return reliability_figure(frame)


def _question_note(r) -> str:
    return W["note question"] + (" " + W["note question small"] if r.scale == "small" else "")


def _finding(key: str, heading, as_list: bool = True, optional: bool = False) -> Text:
    """The findings ``key`` (lines, or one paragraph) under ``heading`` (``optional``: left
    out when there are none)."""
    return Text(lambda r: f"<h3>{heading(r) if callable(heading) else heading}</h3>"
                + (_ul(r.findings[key]) if as_list else _p(r.findings[key])),
                when=(lambda r: bool(r.findings[key])) if optional else None)


QUESTION = Part("question", W["part question"], _question_note, (
    Text(_p(W["question"])),
    _finding("beginner4", W["finding beginner4"]),
    _finding("second", W["finding second"]),
    _finding("beginner3", W["finding beginner3"]),
    _finding("boards", lambda r: W.fill("finding boards", n=len(r["board_values"]))),
    _finding("seats", W["finding seats"], as_list=False, optional=True),
    _finding("model", W["finding model"], as_list=False)))


def _value_map(name: str, values: str, players: int, title: str, kind: str = "first"
               ) -> Figure:
    """The value map of the arms of ``values.<values>`` on the beginner map."""
    def draw(r):
        v = r[f"values.{values}"]
        return _plots().value_map_figure(v["arms"], beginner_board(), title=title,
                                         choice=_choice(v, kind), n_players=players,
                                         **({"kind": kind} if kind != "first" else {}))
    return Figure(name, draw)


def _placement(name: str) -> Table:
    return W.table(f"{name}_placement", f"place.{name}", view=lambda t, r: t[PLACE_SHOW])


def _top_table(name: str) -> Table:
    return W.table(f"{name}_top", f"values.{name}.arms",
                   view=lambda a, r: _top(a, "first")[ARM_SHOW], csv=lambda r: r[
                       f"values.{name}.arms"][ARM_CSV])


BEGINNER4 = W.part("beginner4", (
        _value_map("beginner4_value_map", "beginner4", 4,
                   "Beginner map, 4 players: value of each first settlement"),
        Figure("beginner4_best", lambda r: _plots().best_openings_figure(
            r["values.beginner4.arms"], top=8, n_players=4)),
        _placement("beginner4"),
        _top_table("beginner4")))


def _pair_figures(r) -> list[Figure]:
    """A pair matrix per seat of the pair arms."""
    ap = r["values.beginner4_pairs.arms"]
    return [Figure(f"beginner4_pairs_seat{seat}",
                   lambda r, seat=seat: _plots().pair_matrix_figure(ap, seat, n_players=4))
            for seat in sorted(ap["seat"].unique())]


SECOND = W.part("second", (
        _value_map("beginner4_second_value_map", "beginner4_second", 4,
                   "Beginner map, 4 players: value of each second settlement (first: the own "
                   "choice)", kind="second"),
        Figure("beginner4_spread", lambda r: _plots().spread_figure(
            r["values.beginner4.arms"], r["values.beginner4_second.arms"], n_players=4)),
        _placement("beginner4_second"),
        Each(_pair_figures),
        W.table("beginner4_pairs_top", "values.beginner4_pairs.arms",
              view=lambda a, r: _best_pairs(a)[
                  ["seat", "node", "node_2", "n", "win_rate", "win_ci_low", "win_ci_high",
                   "diff", "ci_low", "ci_high", "p_adjusted"]],
              csv=lambda r: r["values.beginner4_pairs.arms"][ARM_CSV])))

BEGINNER3 = W.part("beginner3", (
        _value_map("beginner3_value_map", "beginner3", 3,
                   "Beginner map, 3 players: value of each first settlement"),
        _placement("beginner3"),
        _top_table("beginner3")))

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
                          W.fill("table seat_correlation", map=m)),
                    Table(f"{m}_seat_best", f"seats.{m}.by_seat",
                          W.fill("table seat_best", map=m))]
    return out


def boards_interaction_text(r) -> str:
    bi = r["board_interaction"]
    return _p(W.fill("boards interaction", significant=int(bi["significant"].sum()),
                     boards=len(bi), size=f"{100 * bi['interaction_sd'].median():.1f}",
                     net=f"{100 * bi['interaction_sd_net'].median():.1f}",
                     rho=f"{bi['rho_mean'].median():.2f}",
                     rho_last=f"{bi['rho_0_last'].median():.2f}"))


def _any_boards(r) -> bool:
    return len(r["board_interaction"]) > 0


SEATS = W.part("seats", (
        Figure("beginner4_seat_values", lambda r: _plots().seat_values_figure(
            r["values.beginner4.arms"], n_players=4)),
        W.table("seat_interaction", seat_interaction,
                when=lambda r: seat_interaction(r) is not None),
        Each(_seat_tables),
        Text(boards_interaction_text, when=_any_boards),
        W.table("boards_seat_interaction", lambda r: r["board_interaction"].set_index("board"),
              view=lambda t, r: t[
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
    "boards", lambda r: W.fill("part boards", n=len(r["board_values"])), W["note boards"], (
        Figure("boards_gain", lambda r: _plots().gain_figure(board_place(r), n_players=4)),
        W.table("boards_summary", "board_summary", view=lambda t, r: t.drop(columns="method")),
        W.table("boards_placement", lambda r: board_place(r).set_index(["board", "seat"]),
                view=lambda t, r: t[PLACE_SHOW].head(40)),
        Each(_extreme_boards),
        Text(lambda r: _p(W.fill("boards value maps", n=len(r["board_values"])))),
        W.table("boards_value_maps", board_value_maps, view=lambda t, r: t.head(0))))


def model_choice_text(r) -> str:
    return _p(W.fill("model choice", seats=" ".join(
        W.fill("model choice seat", seat=_seat(seat, 4), diff=_pts(x["mean_diff"]),
               ci=_ci(x["ci_low"], x["ci_high"]), boards=int(x["boards"]))
        for seat, x in r["model_choice"].iterrows())))


def _has_choice(r) -> bool:
    mc = r.get("model_choice")
    return mc is not None and len(mc) > 0


def _model_note(r) -> str:
    return W.fill("note model", every=r["held_out_every"])


def _published_caption(r) -> str:
    pub = r["published"]
    return W.fill("table published_comparison",
                  source=pub["source"].iloc[0] if len(pub) else W["the published fit"])


MODEL = Part("model", W["part model"], _model_note, (
    Figure("model_coefficients", lambda r: _plots().coefficients_figure(
        r["model.coefficients"])),
    W.table("model_coefficients", "model.coefficients",
          view=lambda t, r: t[["label", "coef", "ci_low", "ci_high", "p_value", "odds_ratio",
                               "per_sd", "lpm", "lpm_ci_low", "lpm_ci_high", "n",
                               "clusters"]]),
    Table("published_comparison", "published", _published_caption,
          view=lambda t, r: t.drop(columns="source")),
    W.table("model_calibration", "model.calibration"),
    Figure("model_reliability", lambda r: _reliability(r["model.reliability"])),
    Text(model_choice_text, when=_has_choice),
    W.table("model_choice", "model_choice", view=lambda t, r: t.drop(columns="method"),
            when=_has_choice),
    W.table("model_picks", lambda r: r["model_picks"].set_index(["board", "seat"]),
            view=lambda t, r: t.head(12), when=_has_choice),
    W.table("model_resources", "model_resources.coefficients",
          view=lambda t, r: t[["label", "coef", "ci_low", "ci_high", "lpm", "lpm_ci_low",
                               "lpm_ci_high"]])))

RUNS = W.part("runs", (W.table("runs", "runs"),))

REPORT = (QUESTION, BEGINNER4, SECOND, BEGINNER3, SEATS, BOARDS, MODEL, RUNS)


def write(out: Path, res: dict, scale: str, items, title: str) -> Path:
    """Write report.html, tables, figures and README.md into ``out``; returns the report
    (``title``: the study's question)."""
    sections = H.insert("openings", sections_of(REPORT, Results(res, scale=scale,
                                                                findings=findings(res))))
    runs = res["runs"]
    total = int(runs["games"].sum())
    items_ = [("question", title), ("command", "catansim study openings"
                                       + (" --scale small" if scale == "small" else "")),
              ("scale", scale), ("games", f"{total:,} in {len(items)} datasets"),
              ("experiments", ", ".join(runs.index)),
              ("catansim", __version__),
              *provenance({name: root for name, _, root in items}),
              ("analyses", f"{res['analysis_seconds']:.1f} s")]
    path = write_study_report(out, sections, W["report title"], items_)
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
        f"# {W['title']}",
        "",
        W["question"],
        "",
        W["readme rebuild"],
        "",
        "```",
        "catansim study openings" + (" --scale small" if scale == "small" else ""),
        "```",
        "",
        W["readme method"],
        "",
    ]
    if scale == "small":
        lines += [W["readme small"], ""]
    lines += [f"## {W['readme answers']}", ""]
    for key in ("beginner4", "second", "beginner3", "boards"):
        lines += (["", W["readme " + key], ""] if key != "beginner4" else
                  [W["readme " + key], ""]) + [f"- {x}" for x in fnd[key]]
    if fnd["seats"]:
        lines += ["", W.fill("readme seats", seats=fnd["seats"])]
    lines += ["", W.fill("readme model", model=fnd["model"]), ""]
    lines += H.readme_lines(sections)
    lines += [f"## {W['readme runs']}", "",
              "| experiment | datasets | variants | games per variant | games | seconds | CPU "
              "seconds | games/s |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for name, r in runs.iterrows():
        lines.append(f"| {name} | {int(r['datasets'])} | {int(r['variants']):,} | "
                     f"{int(r['games_per_variant']):,} | {int(r['games']):,} | "
                     f"{r['seconds']:,.0f} | {r['cpu_seconds']:,.0f} | "
                     f"{r['games_per_second']:,.0f} |")
    games = f"{int(runs['games'].sum()):,}"
    lines += ["", W.fill("readme games", games=games, engine=res.get("engine", "unknown"),
                         digest=res.get("games_digest", "not recorded")), ""]
    lines += [f"## {W['readme power']}", "", W.fill("readme budget", games=games), "",
              "| experiment | games per arm | sd of a paired difference | 95% half-width "
              "(points) | detectable at 80% power (points) |", "|---|---:|---:|---:|---:|"]
    for name, r in power_table(res).iterrows():
        lines.append(f"| {name} | {int(r['n']):,} | {r['sd']:.2f} | {100 * r['half']:.1f} | "
                     f"{100 * r['mde']:.1f} |")
    lines += ["", W.fill("readme pooled", boards=len(res["board_values"]),
                         seat_games=f"{int(res['model_rows']['seat_games'].sum()):,}"), ""]
    lines += [f"## {W['readme tables']}", ""]
    for s in sections:
        for b in s.blocks:
            if b[0] == "table":
                lines.append(f"- `tables/{b[1]}.csv` ({s.title}): {b[3]}")
            elif b[0] == "figure":
                lines.append(f"- `figures/{b[1]}.png` ({s.title})" + (f": {b[3]}" if b[3]
                                                                     else ""))
    lines.append("")
    return "\n".join(lines)
