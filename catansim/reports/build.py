"""Build the report of a dataset: every analysis it supports, in one pass, then its sections.

``build_report(dataset, out)`` runs the analyses of ``report_analyses`` over the
dataset (a range of games at a time, or on a Dask cluster), decides which
sections the results support, draws their figures and writes
``out/report.html`` (self-contained), ``out/tables/*.csv`` and
``out/figures/*.png``.
"""

from __future__ import annotations

import contextlib
import html
import json
import os
import shutil
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from .. import analysis as A
from ..analysis import anatomy as AN
from ..analysis import crossplay as XP
from ..analysis import position as PO
from ..analysis import seats as SE
from ..analysis import strategies as ST
from ..analysis import variants as VA
from ..analysis.driver import run_many
from ..board import Board, beginner_board
from ..errors import CatansimError, CatansimWarning
from ..files import atomic_write_text, display_path, fsync_folder
from ..results import dataset as D
from .html import render_html

REPORT_FILE = "report.html"


def report_analyses(path) -> list:
    """The analyses of a report, in the order of ``ANALYSIS_NAMES``."""
    m = D.read_manifest(path)
    n_players = int(m.get("result_key", {}).get("players") or 4)
    base = "baseline" if "baseline" in m["variants"] else m["variants"][0]
    return [
        AN.GAME_LENGTH, AN.length_distribution_analysis("rolls"), AN.PER_GAME, AN.PER_SEAT,
        AN.DEV_CARDS, AN.EVENT_RATES, AN.FIRST_BUILDS, SE.win_rates_analysis("seat"),
        SE.win_rates_analysis("strategy"), ST.RATING, VA.paired_analysis(),
        PO.START_PIPS_WIN, PO.NODE_WIN,
        PO.win_model_analysis(D.games_present(path).get(base, 0), base, n_players=n_players,
                              too_few="note"),
        XP.crossplay_analysis(),
    ]


ANALYSIS_NAMES = ("length", "distribution", "per_game", "per_seat", "dev_cards", "events",
                  "first_builds", "seats", "strategies", "rating", "paired", "start_pips",
                  "start_nodes", "win_model", "crossplay")


@dataclass
class Section:
    """One section of the report: a title, a method note, tables and figures."""

    key: str
    title: str
    note: str
    blocks: list = field(default_factory=list)  # ("table", name, frame, caption) | ("figure", ...)

    def table(self, name: str, frame: pd.DataFrame, caption: str, csv: pd.DataFrame | None = None):
        self.blocks.append(("table", name, frame, caption, frame if csv is None else csv))

    def figure(self, name: str, fig, caption: str = ""):
        self.blocks.append(("figure", name, fig, caption))

    def text(self, html: str):
        self.blocks.append(("text", html))


def _board(manifest: dict):
    """The fixed board of a dataset, if it has one (a given board or the beginner map)."""
    key = manifest.get("result_key", {})
    if key.get("board") is not None:
        return Board.from_vector(np.asarray(key["board"]))
    if key.get("layout") == "beginner":
        return beginner_board()
    return None


def _layout_text(manifest: dict) -> str | None:
    """The header's layout: a fixed board is named by its ``board_id``, so a reader can
    tell which board the games were played on (``catansim board --file`` prints it)."""
    layout = manifest.get("result_key", {}).get("layout")
    board = _board(manifest) if layout == "given" else None
    if board is None:
        return layout
    return f"given: one board for every game, board_id {board.board_id}"


def _strategies(manifest: dict) -> set[str]:
    out = set()
    for v in manifest.get("result_key", {}).get("variants", {}).values():
        out |= set(v.get("strategies", []))
    return out


def build_sections(results: dict, manifest: dict, games: int | None = None,
                   notes: list | None = None) -> list[Section]:
    """The sections the results support, with their tables and figures.

    ``games``: games per variant present (default the manifest's). A section that
    cannot be drawn from what is there (a dataset of a game or two) is replaced by
    its title and one line saying why it is left out, and the line is added to
    ``notes``; warnings of the libraries (matplotlib, statsmodels) become such lines
    too, once each.
    """
    n_players = int(manifest.get("result_key", {}).get("players") or 4)
    c = _Facts(manifest["variants"], n_players, 1.0 / n_players,
               int(manifest["games"]) if games is None else int(games))
    notes = [] if notes is None else notes
    sections = []
    for key, title, make in _SECTIONS:
        with warnings_as_notes(notes, f"section {title!r}"):
            try:
                s = make(results, manifest, c)
            except Exception as exc:  # too little data for a fit or a figure
                reason = _reason(exc)
                n = c.n_games
                s = Section(key, title, f"Left out: {reason} ({n:,} game{'s' * (n != 1)} "
                                        "per variant).")
                notes.append(f"section {title!r} left out: {reason}")
        if s is not None:
            sections.append(s)
    return sections


@contextlib.contextmanager
def warnings_as_notes(notes: list, where: str):
    """Record the warnings of the block (matplotlib's, statsmodels', NumPy's
    ``RuntimeWarning`` on an empty slice) as one line each in ``notes`` instead of
    printing them with their file paths; a ``CatansimWarning`` passes through."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    for w in caught:
        if issubclass(w.category, CatansimWarning):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
            continue
        note = f"{where}: {_reason(w.message)}"
        if note not in notes:
            notes.append(note)


def _reason(exc) -> str:
    """An exception or warning as a few words: its type and first line (our own errors:
    their line)."""
    text = str(exc).strip().splitlines()
    if isinstance(exc, CatansimError) and text:
        return text[0]
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


@dataclass(frozen=True)
class _Facts:
    """What every section builder needs to know of the dataset."""

    variants: list
    n_players: int
    fair: float
    n_games: int  # games per variant present (the largest count over the variants)


def _section_anatomy(results: dict, manifest: dict, c: _Facts) -> Section | None:
    from .. import plotting as P  # noqa: PLC0415  matplotlib: seconds to import

    variants = c.variants
    s = Section("anatomy", "Game anatomy",
                "Every game of every variant. Means carry 95% Student t intervals (from the "
                "exact histogram of each integer measure); rates 95% Wilson intervals. Per game "
                "figures add up all seats (a player trade counts once). The human figures are "
                "published records of other populations (people, other table habits), given "
                "as context, not as a test.")
    length = results["length"]
    s.table("game_length", show(length, ["n", "mean", "sd", "ci_low", "ci_high", "p10",
                                          "median", "p90", "max", "turn_limit_share"]),
            caption(length, "n = games; sd, quantiles and max describe the games"), length)
    ref = AN.HUMAN_REFERENCE[0]
    s.figure("length_rolls", P.length_histogram(results["distribution"], "rolls",
                                                human=(ref["human_mean"], ref["human_sd"],
                                                       f"human play (n = {ref['human_n']})")))
    human = AN.human_comparison(length, results["per_seat"])
    s.table("human_comparison", show(human, ["who", "sim_n", "sim_mean", "sim_sd",
                                              "sim_ci_low", "sim_ci_high", "human_mean",
                                              "human_sd", "human_n", "human_source"]),
            "simulated (this dataset) beside published human figures: context from other "
            "populations; cards_received = production + the second settlement's cards", human)
    pg = results["per_game"]
    s.table("per_game", wide_table(pg), caption(pg, "mean per game [95% CI]; n = games; sd, "
                                        "quantiles in the CSV"), pg)
    prod = ", ".join(f"{v}: {pg.loc[(v, 'produced'), 'mean']:.1f}" for v in variants
                     if (v, "produced") in pg.index)
    s.figure("cards_per_game", P.means_figure(
        pg, ["trades_bank", "trades_player", "stolen", "discarded", "blocked", "withheld",
             "monopoly_gain"], "Where the cards go: traded, stolen, discarded, blocked",
        "per game, all seats: trades for trades_bank and trades_player, cards for "
        "the others"),
        f"resource cards produced per game (all seats), for scale: {prod}")
    s.figure("robber_per_game", P.means_figure(
        pg, ["sevens", "robber_moves", "shortage_rolls", "dev_bought", "dev_played"],
        "The robber, shortages and development cards per game", "count per game"))
    vp = AN.vp_table(results["per_seat"])
    s.figure("vp_sources", P.vp_sources_figure(vp))
    s.table("vp_sources", show(vp, list(vp.columns)), "mean VP by source at the end; n = seats",
            vp)
    ps = results["per_seat"]
    keep = ps.xs("all", level="strategy", drop_level=False)
    s.table("per_seat", wide_table(keep),
            caption(ps, "mean per seat and game [95% CI], all seats and winners; n = seats; "
                         "by strategy in the CSV"), ps)
    dev = results["dev_cards"]
    s.table("dev_cards", wide_table(dev),
            caption(dev, "development cards per game (all seats) by type [95% CI]; n = games"),
            dev)
    ev = results["events"]
    s.figure("events", P.rates_figure(ev, "How often: shortages, Longest Route, Largest Army"))
    s.table("events", wide_table(ev, "rate", pct=True), caption(ev, "share of games [95% CI]"),
            ev)
    fb = results["first_builds"]
    s.table("first_builds", show(fb, ["seats", "n_built", "built_share", "built_ci_low",
                                       "built_ci_high", "mean", "ci_low", "ci_high", "median",
                                       "p90"]),
            "turn of the first settlement (beyond the starting two) and the first city; "
            "built_share with its Wilson interval; the turn's mean with a t interval over the "
            "seats that built one", fb)
    return s


def _section_seats(results: dict, manifest: dict, c: _Facts) -> Section | None:
    from .. import plotting as P  # noqa: PLC0415  matplotlib: seconds to import

    n_players, fair, n_games = c.n_players, c.fair, c.n_games
    seats = results["seats"]
    test = SE.seat_test(seats)
    s = Section("seats", "Seats",
                "Win rate of each seat (n = games) with 95% Wilson intervals. The chi-square "
                "test compares the wins of the decided games with equal shares (scipy), "
                "Holm-corrected across variants; Cohen's w is its effect size.")
    s.figure("seat_win_rates", P.win_rates_figure(seats, "seat", fair=fair))
    s.table("seat_win_rates", wide_table(seats, "win_rate", pct=True),
            caption(seats, "win rate [95% CI]; n = games (one seat per game)"), seats)
    s.table("seat_test", show(test, ["n", "chi2", "df", "p_value", "p_adjusted", "significant",
                                      "cohens_w", "max_gap", "games_for_w"]),
            caption(test, "n = decided games"), test)
    need = A.stats.games_for_seat_shares([fair + 0.01] + [fair - 0.01 / (n_players - 1)]
                                         * (n_players - 1))
    s.text(f"<p class='power'>Power: an advantage of 1 percentage point for seat 0 (the others "
           f"equally behind) needs about {need:,.0f} decided games to be detected by this test "
           f"(80% power at 0.05; statsmodels GofChisquarePower); this dataset has "
           f"{n_games:,} games per variant.</p>")
    return s


def _section_strategies(results: dict, manifest: dict, c: _Facts) -> Section | None:
    from .. import plotting as P  # noqa: PLC0415  matplotlib: seconds to import

    fair = c.fair
    strat = results["strategies"]
    rating = results["rating"]
    if len(_strategies(manifest)) > 1 or strat.index.get_level_values(1).nunique() > 1:
        s = Section("strategies", "Strategies",
                    "Win rate of each strategy against the field it met (n = seat-games, "
                    "Wilson intervals), and a rating from the multiplayer results: a "
                    "Plackett-Luce top-1 model (the winner among the table), i.e. a "
                    "conditional logit with each game a group, with seat effects; fitted "
                    "exactly as a Poisson GLM of the wins per seating (statsmodels). "
                    "Strength = odds of winning relative to the reference strategy in the "
                    "same seat.")
        s.figure("strategy_win_rates", P.win_rates_figure(strat, "strategy", fair=fair))
        s.table("strategy_win_rates", show(strat, ["seat_games", "wins", "win_rate", "ci_low",
                                                    "ci_high"]),
                caption(strat, "n = seat-games: one per seat the strategy played"), strat)
        cross = results["crossplay"]
        if len(cross):
            s.figure("crossplay", P.crossplay_heatmap(cross.xs("all", level="seat"), fair))
            s.table("crossplay", show(cross, ["games", "wins", "win_rate", "ci_low", "ci_high",
                                               "p_adjusted", "verdict"]),
                    caption(cross, "games with one strategy alone against copies of another; "
                                    "verdicts only where significant after correction"),
                    cross)
        if not strat["wins"].sum():
            s.text("<p class='power'>The rating is left out: no game had a winner.</p>")
        if len(rating):
            s.figure("strategy_rating", P.rating_figure(rating))
            s.table("strategy_rating", show(rating, ["log_strength", "se", "ci_low", "ci_high",
                                                      "strength", "p_value", "games"]),
                    caption(rating), rating)
        return s


def _section_variants(results: dict, manifest: dict, c: _Facts) -> Section | None:
    from .. import plotting as P  # noqa: PLC0415  matplotlib: seconds to import

    variants = c.variants
    paired = results["paired"]
    if len(variants) > 1 and len(paired) and paired["n"].max() < 2:
        raise CatansimError(f"paired differences need 2 or more games played in both arms, "
                            f"{int(paired['n'].max())} given")
    if len(variants) > 1 and len(paired):
        s = Section("variants", "Variants against the baseline (paired)",
                    "Every variant plays the same game seeds as the baseline (same boards, "
                    "dice and deck streams), so each measure is differenced game by game. "
                    "diff = mean of (variant - baseline) per game with its paired t interval; "
                    "beside it the Welch interval an unpaired design would give; width ratio = "
                    "paired / unpaired width. Wins: McNemar's test on the discordant games. "
                    "p-values Holm-corrected over the whole table. Power: games needed for 80% "
                    "power at 0.05 to detect the smallest effect of interest (mde: 5% of the "
                    "baseline mean, 2 points for a rate), paired and unpaired.")
        s.figure("paired_forest", P.forest_plot(paired))
        s.table("paired_differences", show(paired, [
            "n", "base_mean", "mean", "diff", "ci_low", "ci_high", "unpaired_ci_low",
            "unpaired_ci_high", "width_ratio", "dz", "p_adjusted", "significant",
            "pairs_needed", "games_needed_unpaired"]),
            caption(paired, "n = games played in both arms; rows significant after "
                             "correction are shaded; labels and the mde in the CSV"), paired)
        ratio = paired["width_ratio"].dropna()
        if len(ratio):
            s.text(f"<p class='power'>Pairing narrowed the intervals to a median "
                   f"{ratio.median():.2f} of the unpaired width (range {ratio.min():.2f} - "
                   f"{ratio.max():.2f}): for the same precision an unpaired design would need "
                   f"about {1 / ratio.median() ** 2:.1f} times the games.</p>")
        return s


def _section_position(results: dict, manifest: dict, c: _Facts) -> Section | None:
    from .. import plotting as P  # noqa: PLC0415  matplotlib: seconds to import

    variants, fair = c.variants, c.fair
    pips = results["start_pips"]
    nodes = results["start_nodes"]
    model = results["win_model"]
    s = Section("position", "Starting position",
                "Win rate by the pips of the two starting settlements (Wilson intervals), a "
                "logistic regression of winning on the starting position (statsmodels Logit, "
                "Wald intervals) fitted on 70% of the games and checked on the other 30% "
                "(held out by game seed): Brier score against predicting the base rate, and a "
                "reliability table by decile of the prediction. Large datasets are sampled "
                "by game (every k-th game, at most 200,000 seat-games). Win rate per starting "
                "intersection on the board.")
    s.figure("start_pips", P.start_pips_figure(pips, fair=fair))
    if model.get("left_out"):
        why = model["left_out"].removeprefix("win model: ")
        s.text(f"<p class='power'>The win model is left out: {html.escape(why)}.</p>")
    elif model:
        coef = model["coefficients"]
        s.table("win_model", show(coef, ["coef", "se", "ci_low", "ci_high", "p_value",
                                          "odds_ratio", "n"]),
                caption(coef, f"variant {model['sample']['variant'].iloc[0]}; " + (
                    "all games" if int(model["sample"]["stride"].iloc[0]) == 1 else
                    f"every {int(model['sample']['stride'].iloc[0])}th game (a sample under "
                    f"the cap of {int(model['sample']['cap'].iloc[0]):,} seat-games)")), coef)
        cal = model["calibration"]
        s.table("win_model_calibration", show(cal, list(cal.columns), index=False),
                "held-out Brier score (lower is better), that of the base rate, Brier skill "
                "(1 - ratio) and McFadden pseudo-R2", cal)
        s.figure("win_model_reliability", P.reliability_figure(model["reliability"]))
        s.table("win_model_reliability", show(model["reliability"], [
            "n", "wins", "mean_predicted", "observed", "ci_low", "ci_high"]),
            caption(model["reliability"]), model["reliability"])
    board = _board(manifest)
    base = variants[0]
    nv = nodes.xs(base, level="variant")
    values = nv["win_rate"].where(nv["seat_games"] >= 30)
    reference = float(nv["reference"].iloc[0])
    s.figure("start_nodes", P.board_heat_map(
        node_values=values.to_numpy(), board=board, node_significant=nv["significant"].to_numpy(),
        title=f"Win rate by starting intersection ({base})", label="win rate",
        note=(f"n = {int(nv['seat_games'].sum()):,} starting settlements "
              f"({int(nv['seat_games'].min()):,}-{int(nv['seat_games'].max()):,} a node); large "
              f"dots differ from the rate of all starting settlements ({100 * reference:.1f}%), "
              "exact binomial test, Benjamini-Hochberg over the nodes; nodes with fewer than "
              "30 left blank" + ("" if board is not None else
                                 "; a new board every game: nodes are positions only"))))
    s.table("start_pips", wide_table(pips, "win_rate", pct=True),
            caption(pips, "win rate [95% CI] by the pips of both starting settlements; n = "
                           "seat-games"), pips)
    return s




_SECTIONS = (("anatomy", "Game anatomy", _section_anatomy), ("seats", "Seats", _section_seats),
             ("strategies", "Strategies", _section_strategies),
             ("variants", "Variants against the baseline (paired)", _section_variants),
             ("position", "Starting position", _section_position))


def interval(m, lo, hi, pct: bool = False) -> str:
    """``m [lo, hi]`` as a table cell (``pct``: in percent, one decimal); ``""`` for a
    missing ``m``, ``m`` alone without an interval."""
    if pd.isna(m):
        return ""
    if pct:
        return f"{100 * m:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]"
    digits = 3 if abs(m) < 10 else 2 if abs(m) < 100 else 1
    if pd.isna(lo):
        return f"{m:.{digits}f}"
    return f"{m:.{digits}f} [{lo:.{digits}f}, {hi:.{digits}f}]"


def wide_table(frame: pd.DataFrame, value: str = "mean", pct: bool = False,
          extra=("label",)) -> pd.DataFrame:
    """A (variant, ...) table as one row per item and one column per variant holding
    ``value [ci_low, ci_high]``; ``n`` once (per variant if they differ)."""
    t = frame.reset_index()
    keys = [k for k in frame.index.names if k != "variant"]
    variants = list(dict.fromkeys(t["variant"]))
    t["cell"] = [interval(m, lo, hi, pct) for m, lo, hi in
                 zip(t[value], t["ci_low"], t["ci_high"], strict=True)]
    out = t.pivot_table(index=keys, columns="variant", values="cell", aggfunc="first",
                        sort=False)[variants]
    out.columns = [f"{v}: {value} [95% CI]" for v in variants]
    ncol = "seat_games" if "seat_games" in t.columns else "n"
    n = t.pivot_table(index=keys, columns="variant", values=ncol, aggfunc="first",
                      sort=False)[variants]
    if (n.nunique(axis=1) <= 1).all():
        out.insert(0, ncol, n.iloc[:, 0].astype("Int64"))  # a bin a variant lacks: <NA>
    else:
        for v in reversed(variants):
            out.insert(0, f"{ncol} ({v})", n[v].astype("Int64"))
    for e in extra:
        if e in t.columns:
            out.insert(0, e, t.drop_duplicates(keys).set_index(keys)[e].reindex(out.index))
    return out


def show(frame: pd.DataFrame, cols, index: bool = True) -> pd.DataFrame:
    """The columns ``cols`` of ``frame`` that it has, in that order (the page's view of a
    table whose CSV keeps every column); ``index=False`` drops the index."""
    t = frame[[c for c in cols if c in frame.columns]]
    return t if index else t.reset_index(drop=True)


def caption(frame: pd.DataFrame, extra: str = "") -> str:
    """A table's caption: ``extra``, then the interval methods and the correction its
    ``method`` and ``correction`` columns name."""
    parts = [extra] if extra else []
    if "method" in frame.columns and len(frame):
        parts.append("interval: " + "; ".join(dict.fromkeys(frame["method"].astype(str))))
    if "correction" in frame.columns and len(frame):
        parts.append("correction: " + frame["correction"].iloc[0])
    return ". ".join(parts)


def build_report(dataset, out=None, scheduler=None, progress: bool = False) -> Path:
    """Write the report of a dataset; returns the path of ``report.html``.

    ``out`` defaults to ``DATASET/report/``. The folder gets ``report.html`` (figures
    inlined, no network), ``report.json``, ``tables/NAME.csv`` and
    ``figures/NAME.png``, built in a hidden folder inside ``out`` and swapped in
    whole (``_swap_in``): an interrupted build leaves the old report as it was, and
    nothing of an earlier report (a table a section no longer has) survives a new
    one. A dataset refused before anything is written leaves no folder behind.

    An incomplete dataset (an interrupted run) is reported on the games present:
    the header and ``report.json`` say how many of the planned games are there, and
    a ``CatansimWarning`` says it on stderr. Sections that cannot be drawn from what
    is there say in one line why they are left out.
    """
    root = Path(dataset)
    if not root.exists():
        raise CatansimError(f"{root}: no such dataset folder; allowed: a dataset folder "
                            "written by catansim run")
    if not (root / "games").is_dir():
        raise CatansimError(f"{root}: not a catansim dataset (no games/ folder); allowed: a "
                            "dataset folder written by catansim run")
    manifest = D.read_manifest(root)
    out = Path(out) if out is not None else root / "report"
    present = D.games_present(root)
    games = max(present.values(), default=0)
    planned = int(manifest["games"])
    if not games:
        raise CatansimError(f"{root}: no complete parts to analyse; allowed: a dataset with "
                            "complete parts (rerun its catansim run)")
    with _building(out) as tmp:
        t0 = time.perf_counter()
        notes: list[str] = []
        if games < planned:
            each = ("" if len(set(present.values())) == 1 and len(present) == len(
                manifest["variants"]) else " (" + ", ".join(
                    f"{v} {present.get(v, 0):,}" for v in manifest["variants"]) + ")")
            notes.append(f"incomplete dataset: {games:,} of {planned:,} games per variant are "
                         f"present{each} (an interrupted run); this report covers the games "
                         "present")
            warnings.warn(CatansimWarning(f"{root}: {notes[0]}; rerun the run's command to "
                                          "complete it"), stacklevel=2)
        with warnings_as_notes(notes, "analyses"):
            values = run_many(report_analyses(root), root, scheduler=scheduler,
                              progress=progress)
        results = dict(zip(ANALYSIS_NAMES, values, strict=True))
        seconds = time.perf_counter() - t0
        sections = build_sections(results, manifest, games, notes)
        info = {"dataset": display_path(root), "experiment": manifest.get("experiment"),
                "description": manifest.get("description", ""), "games": games,
                "games_planned": planned, "complete": games >= planned,
                "games_present": {v: present.get(v, 0) for v in manifest["variants"]},
                "variants": manifest["variants"],
                "players": manifest.get("result_key", {}).get("players"),
                "strategies": sorted(_strategies(manifest)),
                "layout": _layout_text(manifest),
                "catansim_version": manifest.get("catansim_version"),
                "analysis_seconds": round(seconds, 1), "notes": notes}
        for note in notes:  # sections left out are said on stderr too
            if " left out: " in note:
                warnings.warn(CatansimWarning(f"report: {note}"), stacklevel=2)
        with warnings_as_notes(notes, "figures"):  # in report.json (the page is being drawn)
            html = render_html(sections, info, tmp)
        atomic_write_text(tmp / "report.json", json.dumps(info, indent=2) + "\n")
        atomic_write_text(tmp / REPORT_FILE, html)
    return out / REPORT_FILE


def write_study_report(out, sections: list[Section], title: str, items, description: str = ""
                       ) -> Path:
    """Write ``out/report.html`` of a study (several datasets): ``title``, the header
    ``items`` (``(key, text)`` pairs: what made the numbers) and the sections; each
    table's CSV goes to ``out/tables/``, each figure's PNG to ``out/figures/``. Returns
    the path of the page."""
    out = Path(out)
    for sub in ("tables", "figures"):
        (out / sub).mkdir(parents=True, exist_ok=True)
    page = render_html(sections, {"title": title, "description": description,
                                  "items": list(items)}, out)
    path = out / REPORT_FILE
    atomic_write_text(path, page)
    return path


_BUILD_PREFIX = ".report-build-"
_OLD_PREFIX = ".report-old-"


@contextlib.contextmanager
def _building(out: Path):
    """A hidden folder inside ``out`` (created, with ``tables/`` and ``figures/``) to build
    a report in; when the block ends without error its contents are swapped into
    ``out``, on any error it is removed, with ``out`` itself if this call created it.
    What killed builds left (hidden folders) is removed first."""
    created = [p for p in (out, *out.parents) if not p.exists()]
    try:
        out.mkdir(parents=True, exist_ok=True)
        for old in out.glob(".report-*-*"):
            if old.name.startswith((_BUILD_PREFIX, _OLD_PREFIX)) and old.is_dir():
                shutil.rmtree(old, ignore_errors=True)
        tmp = out / f"{_BUILD_PREFIX}{os.getpid()}"
        for sub in ("tables", "figures"):
            (tmp / sub).mkdir(parents=True, exist_ok=True)
        if not os.access(tmp, os.W_OK):
            raise PermissionError(f"{out} is not writable")
    except OSError as exc:
        _remove_created(created)
        raise CatansimError(f"--out {out}: cannot write there ({exc.strerror or exc}); "
                            "allowed: a writable folder") from None
    try:
        yield tmp
        _swap_in(tmp, out)
    except BaseException as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        _remove_created(created)
        if isinstance(exc, OSError) and exc.filename is not None:  # name the file asked for
            with contextlib.suppress(ValueError):
                exc.filename = str(out / Path(exc.filename).relative_to(tmp))
        raise


def _remove_created(created: list[Path]) -> None:
    """Remove the folders a refused build created, if they are (still) empty."""
    for p in created:  # deepest first
        with contextlib.suppress(OSError):
            p.rmdir()


def _swap_in(tmp: Path, out: Path) -> None:
    """Move a built report from ``tmp`` into ``out``: the old ``report.html`` goes first
    (a page that exists is never older than its tables), then ``tables/``,
    ``figures/`` and ``report.json`` replace the old ones whole, and the new
    ``report.html`` comes last."""
    (out / REPORT_FILE).unlink(missing_ok=True)
    old = out / f"{_OLD_PREFIX}{os.getpid()}"
    old.mkdir(exist_ok=True)
    for name in ("tables", "figures"):
        if (out / name).exists():
            os.replace(out / name, old / name)
        os.replace(tmp / name, out / name)
    os.replace(tmp / "report.json", out / "report.json")
    os.replace(tmp / REPORT_FILE, out / REPORT_FILE)
    shutil.rmtree(old, ignore_errors=True)
    shutil.rmtree(tmp, ignore_errors=True)
    fsync_folder(out)
