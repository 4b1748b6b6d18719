"""A tuning's outputs: the preset (TOML), its tables and figures, and the HTML report.

Files written under the output folder (atomically; a rerun replaces them):

- ``<name>.toml``: the tuned strategy as ``[strategies.<name>]`` (base = the start,
  every searched parameter), usable wherever a strategy file is read (``--config``,
  an experiment's ``strategy_defs``, ``PRESETS.with_definitions``);
- ``trials.csv``: every trial: its values, win rate with its Wilson interval, games,
  whether it played every training deal;
- ``summary.json``: the budget spent and the held-out headline numbers;
- ``report.html`` with ``tables/*.csv`` and ``figures/*.png``: convergence with
  intervals, parameter importance, tuned against starting parameters, the head-to-head
  matrix on held-out deals.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import optuna
import pandas as pd

from ..analysis.stats import wilson_ci
from ..files import atomic_write_text
from ..plotting.style import GREY, SIGNIFICANT, colour, finish, new_figure, styled
from ..reports.build import Section
from ..reports.html import render_html
from ..strategies import PARAM_WORDS
from .space import param_range
from .study import TuneResult, full_trials


def preset_toml(name: str, base: str, row: dict[str, float], note: str = "") -> str:
    """``[strategies.<name>]``: ``base`` plus the values of ``row`` (words where a
    parameter has them)."""
    lines = [f"# {line}" for line in note.splitlines()] + [f"[strategies.{name}]",
                                                            f'base = "{base}"']
    for key, value in row.items():
        words = {v: w for w, v in PARAM_WORDS.get(key, {}).items()}
        shown = f'"{words[value]}"' if value in words else f"{value:.6g}"
        lines.append(f"{key} = {shown}")
    return "\n".join(lines) + "\n"


def trials_frame(result: TuneResult) -> pd.DataFrame:
    """One row per finished trial: number, state, full, games, wins, win rate with its
    Wilson interval, the cumulative games of the study, and the sampled values."""
    rows = []
    for t in result.study.get_trials(deepcopy=False):
        if not t.state.is_finished() or not t.user_attrs.get("games"):
            continue  # not a game played (stopped before its first batch)
        rows.append(dict(trial=t.number, state=t.state.name, full=bool(t.user_attrs.get("full")),
                         games=t.user_attrs["games"], wins=t.user_attrs["wins"],
                         **{f"param_{k}": v for k, v in t.user_attrs.get("row", {}).items()}))
    frame = pd.DataFrame(rows)
    if frame.empty:
        return frame
    frame["win_rate"] = frame["wins"] / frame["games"]
    frame["ci_low"], frame["ci_high"] = wilson_ci(frame["wins"], frame["games"])
    frame["cumulative_games"] = frame["games"].cumsum()
    return frame


def importance(result: TuneResult) -> pd.Series:
    """Parameter importance (Optuna's PED-ANOVA) over the trials that played every
    training deal; empty with fewer than 3 such trials or one parameter."""
    trials = full_trials(result.study)
    if len(trials) < 3 or len(result.spec.space) < 2:
        return pd.Series(dtype=float)
    copy = optuna.create_study(direction="maximize")
    copy.add_trials(trials)
    try:
        imp = optuna.importance.get_param_importances(
            copy, evaluator=optuna.importance.PedAnovaImportanceEvaluator())
    except (ValueError, RuntimeError):  # e.g. every trial with the same value
        return pd.Series(dtype=float)
    out = pd.Series(imp, name="importance")
    out.index.name = "parameter"
    return out


def parameters_frame(result: TuneResult) -> pd.DataFrame:
    """Searched parameters: range, start, tuned, change as a share of the range."""
    rows = []
    for d in result.spec.space:
        lo, hi = param_range(d.name)
        start, tuned = result.start_row[d.name], result.row[d.name]
        rows.append(dict(parameter=d.name, allowed=f"{lo:g}..{hi:g}",
                         searched=(", ".join(map(str, d.choices)) if d.choices
                                   else f"{d.low:g}..{d.high:g}" + (" log" if d.log else "")),
                         start=start, tuned=tuned, change_share=(tuned - start) / (hi - lo)))
    return pd.DataFrame(rows).set_index("parameter")


def convergence_figure(trials: pd.DataFrame, spec, best_trial: int):
    """Each full trial's training win rate with its interval against the games spent, the
    best so far, and the start."""
    with styled():
        fig, ax = new_figure(4.2)
        full = trials[trials["full"]]
        dropped = trials[~trials["full"]]
        x = full["cumulative_games"]
        ax.errorbar(x, full["win_rate"], yerr=[full["win_rate"] - full["ci_low"],
                                               full["ci_high"] - full["win_rate"]],
                    fmt="o", ms=3, color=colour(0), ecolor="#9cc3e4", elinewidth=0.8,
                    label="candidate, every training deal (95% Wilson)")
        if len(dropped):
            ax.plot(dropped["cumulative_games"], dropped["win_rate"], "x", ms=3, color=GREY,
                    label="dropped by the race (deals it played)")
        best = full["win_rate"].cummax()
        ax.step(x, best, where="post", color=SIGNIFICANT, label="best so far")
        start = full[full["trial"] == full["trial"].min()]
        if len(start):
            ax.axhline(float(start["win_rate"].iloc[0]), color=colour(1), ls="--", lw=1,
                       label=f"start ({spec.strategy})")
        b = full[full["trial"] == best_trial]
        if len(b):
            ax.fill_between([x.min(), x.max()], float(b["ci_low"].iloc[0]),
                            float(b["ci_high"].iloc[0]), color=SIGNIFICANT, alpha=0.08,
                            label=f"chosen: trial {best_trial}, its interval")
        ax.set_xlabel("training games spent (all trials)")
        ax.set_ylabel("win rate against the field")
        ax.legend(loc="lower right")
        return finish(fig, "Convergence", f"{len(full)} candidates played all "
                      f"{spec.deals:,} training deals, {len(dropped)} were dropped early; "
                      f"n = {int(full['games'].max()):,} games per full candidate")


def importance_figure(imp: pd.Series):
    with styled():
        fig, ax = new_figure(max(2.0, 0.28 * len(imp) + 1.0))
        s = imp.sort_values()
        ax.barh(s.index, s.to_numpy(), color=colour(0))
        ax.set_xlabel("importance (PED-ANOVA, share)")
        return finish(fig, "Parameter importance")


def parameters_figure(params: pd.DataFrame):
    with styled():
        fig, ax = new_figure(max(2.0, 0.28 * len(params) + 1.0))
        s = params["change_share"]
        ax.barh(s.index, s.to_numpy(), color=[colour(0) if v >= 0 else colour(1) for v in s])
        ax.axvline(0, color="#333", lw=0.8)
        ax.set_xlabel("tuned - start, as a share of the allowed range")
        return finish(fig, "Tuned against starting parameters")


def matrix_figure(heldout):
    m = heldout.matrix()
    with styled():
        fig, ax = new_figure(0.5 * len(m) + 1.6)
        vals = m.to_numpy(dtype=float)
        fair = 1.0 / heldout.n_players  # the colour scale is centred on the fair share
        im = ax.imshow(vals, cmap="RdBu_r", vmin=fair - 0.2, vmax=fair + 0.2, aspect="auto")
        ax.set_xticks(range(m.shape[1]), m.columns, rotation=30, ha="right")
        ax.set_yticks(range(m.shape[0]), m.index)
        ax.grid(False)
        for i in range(m.shape[0]):
            for j in range(m.shape[1]):
                if np.isfinite(vals[i, j]):
                    dark = abs(vals[i, j] - fair) > 0.12  # white text on the deep colours
                    ax.text(j, i, f"{vals[i, j]:.3f}", ha="center", va="center", fontsize=8,
                            color="white" if dark else "black")
        fig.colorbar(im, ax=ax, label="win rate alone against copies")
        ax.set_xlabel("opponent (copies)")
        ax.set_ylabel("single strategy")
        return finish(fig, "Head to head on held-out deals",
                      f"{heldout.n_deals:,} deals x every seat per cell")


def headline(result: TuneResult) -> dict:
    """The numbers a closing note gives: budget, and held-out win rates with intervals."""
    spec, h = result.spec, result.heldout
    out = dict(name=spec.name, start=spec.strategy, best_trial=result.best_trial,
               training_games=result.games, search_seconds=round(result.seconds, 1),
               selection_games=result.selection_games,
               selection_seconds=round(result.selection_seconds, 1),
               trials=len([t for t in result.study.get_trials(deepcopy=False)
                           if t.state.is_finished()]),
               full_trials=len(full_trials(result.study)))
    if h is not None:
        cells = {}
        for o in (spec.strategy, *spec.heldout_presets):
            c = h.cell(spec.name, o)
            cells[o] = dict(games=int(c["games"]), wins=int(c["wins"]),
                            win_rate=round(float(c["win_rate"]), 4),
                            ci_low=round(float(c["ci_low"]), 4),
                            ci_high=round(float(c["ci_high"]), 4))
        out["heldout_vs_copies"] = cells
        out["heldout_paired_vs_start"] = {
            o: {k: (int(v) if k in ("deals", "games") else round(float(v), 4))
                for k, v in r.items()} for o, r in h.paired.iterrows()}
    return out


def _sections(result: TuneResult, trials: pd.DataFrame, imp: pd.Series,
              params: pd.DataFrame) -> list[Section]:
    spec, h = result.spec, result.heldout
    conv = Section("convergence", "Convergence",
                   "Every candidate plays the same training deals in every seat (common "
                   "random numbers), in racing instances of "
                   f"{spec.instance} deals; Optuna's Wilcoxon pruner drops a candidate once "
                   f"it is sure at p < {spec.p_threshold:g} (signed-rank test over the paired "
                   "instances) that it is worse than the best. Win rates on the training "
                   "deals with 95% Wilson intervals; the best of many is biased upward, "
                   "so the answer is re-measured on held-out deals below.")
    conv.figure("convergence", convergence_figure(trials, spec, result.best_trial))
    cols = ["trial", "state", "full", "games", "wins", "win_rate", "ci_low", "ci_high"]
    top = trials[trials["full"]].sort_values("win_rate", ascending=False).head(10)
    conv.table("best_trials", top[cols].set_index("trial"),
               "The ten best candidates that played every training deal (training deals; "
               "all trials in trials.csv)", trials.set_index("trial"))
    if result.selection is not None:
        conv.table("finalists", result.selection.drop(columns=["selection_seconds"]),
                   f"The {len(result.selection)} best full candidates, each played again on "
                   f"{spec.selection_deals:,} more deals (the same for each); the answer is the "
                   "best on all its deals (combined, 95% Wilson interval)")
    par = Section("parameters", "Tuned against starting parameters",
                  f"The chosen candidate (trial {result.best_trial}) against the start "
                  f"({spec.strategy}); change as a share of the parameter's allowed range. "
                  "Parameters not searched keep the start's values.")
    par.figure("parameters", parameters_figure(params))
    par.table("parameters", params, "Searched parameters")
    sections = [conv, par]
    if len(imp):
        s = Section("importance", "Parameter importance",
                    "optuna.importance with the PED-ANOVA evaluator over the candidates that "
                    "played every training deal: how much of the variation of the top "
                    "decile's win rate each parameter explains (shares summing to 1). "
                    "With few trials the ranking is rough.")
        s.figure("importance", importance_figure(imp))
        s.table("importance", imp.to_frame(), "Importance per parameter")
        sections.append(s)
    if h is not None:
        s = Section("heldout", "Head to head on held-out deals",
                    f"{h.n_deals:,} fresh deals (seed {spec.heldout_seed}, never searched), "
                    "each played with the single strategy in every seat against copies of "
                    "the other; win rates with 95% Wilson intervals, exact binomial tests "
                    "against the fair share, Holm-corrected over the cells. tuned - start: "
                    "the paired difference on the same deals and seats, mean over deals with "
                    "its t interval.")
        s.figure("heldout_matrix", matrix_figure(h))
        pooled = h.table.xs("all", level="seat").reset_index()
        show = pooled[["strategy", "opponent", "games", "wins", "win_rate", "ci_low",
                       "ci_high", "p_adjusted", "verdict"]]
        s.table("heldout_cells", show.set_index(["strategy", "opponent"]),
                "Pooled over seats (per-seat cells in the CSV)", h.table)
        s.table("paired_vs_start", h.paired,
                f"{spec.name} minus {spec.strategy}, each alone against copies of the "
                "opponent on the same held-out deals")
        sections.append(s)
    return sections


def write_outputs(result: TuneResult, out) -> Path:
    """Write the preset, the tables, the summary and the report under ``out``."""
    out = Path(out)
    spec = result.spec
    for sub in ("figures", "tables"):
        (out / sub).mkdir(parents=True, exist_ok=True)
    note = (f"Tuned by catansim tune (trial {result.best_trial} of study {spec.name!r}, "
            f"{result.games:,} training games); docs/tuning.md")
    atomic_write_text(out / f"{spec.name}.toml", preset_toml(spec.name, spec.strategy,
                                                             result.row, note))
    trials = trials_frame(result)
    atomic_write_text(out / "trials.csv", trials.to_csv(index=False))
    summary = headline(result)
    atomic_write_text(out / "summary.json", json.dumps(summary, indent=2) + "\n")
    imp = importance(result)
    params = parameters_frame(result)
    sections = _sections(result, trials, imp, params)
    info = dict(title=f"catansim tuning: {spec.name}", description=spec.description,
                items=[("start", spec.strategy), ("players", spec.n_players),
                       ("layouts", ", ".join(spec.layouts)),
                       ("field", "; ".join(", ".join(t) for t in spec.tables)),
                       ("searched", ", ".join(d.name for d in spec.space)),
                       ("training", f"{spec.deals:,} deals (seed {spec.seed}), "
                                    f"{spec.games_per_deal} games each"),
                       ("trials", f"{summary['trials']} ({summary['full_trials']} full)"),
                       ("games", f"{result.games:,} training games, "
                                 f"{result.selection_games:,} selecting the finalists"),
                       ("search time", f"{result.seconds:,.0f} s summed over trials, "
                                       f"{result.selection_seconds:,.0f} s selecting")])
    html_text = render_html(sections, info, out)
    atomic_write_text(out / "report.html", html_text)
    return out / "report.html"
