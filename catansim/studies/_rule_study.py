"""What the robber and shortage studies share: playing their experiment files, the run
log, the labels of their arms, the display of contrasts and arm summaries, the power
lines, the report and the README (their shared words: ``text/rule-studies.md``).

A study's experiments are its ``experiment_files()`` (``studies/experiments/<study>/``);
each becomes a resumable dataset ``OUT/data/<name>`` (``OUT/data/small/<name>`` at the
small scale, so the two never mix). ``OUT/runs.json`` keeps, per scale and dataset, the
games played and the seconds they took, summed over the sessions that played them (a
resumed run adds its own), so the README can state both.
"""

from __future__ import annotations

import html
import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from .. import __version__
from ..analysis import stats as ST
from ..analysis.contrasts import Plan
from ..files import atomic_write_text
from ..reports import Part, Results, Section, Table, Text, sections_of, write_study_report
from ..results import dataset as D
from ..runs.experiment import Experiment, load_experiment
from ..runs.runner import plan, run_experiment
from . import Study, get
from . import _headlines as H
from ._provenance import provenance
from ._words import Words

WORDS = Words("rule-studies")

EXPERIMENTS_DIR = "catansim/studies/experiments"  # where the source tree keeps them
SMALL_GAMES = 400  # per variant at the small scale: the whole study in seconds
RUNS_FILE = "runs.json"


@dataclass
class Dataset:
    """One experiment of a study and the dataset it was played into."""

    name: str
    path: Path
    experiment: Experiment
    games: int  # per variant
    seconds: float  # playing, summed over sessions (0 if unknown)
    sessions: int

    @property
    def variants(self) -> list[str]:
        return self.experiment.variant_names

    @property
    def total_games(self) -> int:
        return self.games * len(self.variants)


def play(study, out: Path, scale: str, scheduler=None, progress: bool = True
         ) -> dict[str, Dataset]:
    """Run (or resume) every experiment of ``study`` into ``out/data``; the datasets by
    name, in file order."""
    files = study.experiment_files()
    log_path = out / RUNS_FILE
    log = json.loads(log_path.read_text()) if log_path.exists() else {}
    runs = log.setdefault(scale, {})
    found: dict[str, Dataset] = {}
    for f in files:
        exp = load_experiment(f)
        if scale == "small":
            exp = exp.with_overrides(games=SMALL_GAMES, batch_size=SMALL_GAMES)
        root = out / "data" / ("small" if scale == "small" else "") / exp.name
        if progress:
            print(f"{study.name}: {exp.name} ({exp.games:,} games x {len(exp.variants)} arms)",
                  flush=True)
        t0 = time.time()
        rec = runs.get(exp.name, {})
        if complete(exp, root):
            # nothing to play: read it as it is (a later engine may not resume it, but a
            # complete dataset stays the valid record of the engine that made it)
            found[exp.name] = Dataset(exp.name, root, exp, exp.games, rec.get("seconds", 0.0),
                                      rec.get("sessions", 0))
            continue
        rep = run_experiment(exp, out=root, scheduler=scheduler, progress=progress)
        if rep.parts_skipped == 0 and rep.games_written:  # a fresh dataset
            rec = {}
        if rep.games_written:
            rec["seconds"] = round(rec.get("seconds", 0.0) + rep.seconds, 1)
            rec["sessions"] = rec.get("sessions", 0) + 1
            rec["last_session"] = time.strftime("%Y-%m-%d %H:%M", time.localtime(t0))
        rec.update(games=exp.games, variants=exp.variant_names, file=f.name,
                   total_games=exp.games * len(exp.variants))
        runs[exp.name] = rec
        log_path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(log_path, json.dumps(log, indent=1) + "\n")
        found[exp.name] = Dataset(exp.name, root, exp, exp.games, rec.get("seconds", 0.0),
                                  rec.get("sessions", 0))
    return found


def complete(exp: Experiment, root: Path) -> bool:
    """Every part of ``exp`` is in ``root``, made with the same settings."""
    if not (root / D.MANIFEST).exists():
        return False
    if D.read_manifest(root).get("result_hash") != exp.result_hash():
        return False
    done = set(D.complete_parts(root))
    return all(t in done for t in plan(exp))


def engine_of(root: Path) -> str:
    """The catansim version, engine fingerprint and games digest (where recorded) that
    made a dataset."""
    m = D.read_manifest(root)
    fp, digest = m.get("engine_fingerprint"), m.get("games_digest")
    return f"catansim {m.get('catansim_version')}" + (
        f", engine {fp}" if fp else ", format 1 (no engine fingerprint recorded)") + (
        f", games {digest}" if digest else "")


@dataclass(frozen=True)
class RuleStudy:
    """A study of rule variants as data: its experiment files (``experiments/<name>/``),
    the analyses of each dataset (``plan``: a ``contrasts.Plan``) and what is derived from
    their results (``finish``: dataset name, results -> results), the answer (``answer``:
    its lines, HTML, from the ``Results``) and the note on how it is computed, the
    report's sections between the answer and the runs (``report``, a spec of
    ``reports.Part``s over the results by dataset name), the README's power lines and
    budget, and its notebook. ``build``, one for every such study, plays, analyses and
    writes."""

    name: str
    title: str
    question: str
    notebook: str
    plan: Callable[[Dataset], Plan]
    answer: Callable[[Results], list[str]]
    answer_note: str
    report: tuple[Part, ...]
    power_lines: Callable[[dict, dict], list[str]]
    budget: tuple[str, ...] = ()
    finish: Callable[[str, dict], dict] | None = None

    def build(self, out, scale: str = "full", scheduler=None, progress: bool = True) -> Path:
        """Play (resume) the experiments into ``out/data``, analyse them, write the
        report, tables, figures and README into ``out``; the path of the report."""
        out = Path(out)
        datasets = play(get(self.name), out, scale, scheduler, progress)
        t0 = time.perf_counter()
        res = {}
        for name, ds in datasets.items():
            r = self.plan(ds).run(ds.path, scheduler=scheduler, progress=progress)
            res[name] = self.finish(name, r) if self.finish is not None else r
        results = Results(res, datasets=datasets, scale=scale, question=self.question,
                          power=self.power_lines(res, datasets))
        results.answer = self.answer(results)
        sections = H.insert(self.name, sections_of(
            (answer_part(self.answer_note), *self.report, RUNS), results))
        seconds = time.perf_counter() - t0
        path = write_report(out, self.title, self.question, sections, datasets, scale, seconds)
        write_readme(out, self.name, self.title, self.question, results.answer, sections,
                     datasets, scale, results.power,
                     list(self.budget) if scale == "full" else [], self.notebook)
        return path

    def study(self, description: str) -> Study:
        """The ``Study`` that ``catansim study NAME`` runs."""
        return Study(self.name, self.title, self.build, description)


# --- display --------------------------------------------------------------------------


@dataclass(frozen=True)
class Arms:
    """A study's arms as its report shows them: ``labels`` (dataset -> variant -> label)
    and ``pairs_of`` (dataset -> its (variant, reference) contrasts)."""

    labels: dict
    pairs_of: Callable[[str], list[tuple[str, str]]]

    def label(self, name: str, v: str) -> str:
        """The display label of variant ``v`` of dataset ``name`` (its name if it has
        none)."""
        return self.labels.get(name, {}).get(v, v)

    def pairs(self, name: str, pairs=None) -> list[tuple[str, str, str]]:
        """(variant, reference, "label vs label") of each contrast pair of dataset
        ``name`` (``pairs``, or all its pairs)."""
        return [(v, r, f"{self.label(name, v)} vs {self.label(name, r)}")
                for v, r in pairs or self.pairs_of(name)]


def plots():
    """``plotting.rule_effects``, imported when a figure is drawn (matplotlib takes
    seconds to import)."""
    from ..plotting import rule_effects  # noqa: PLC0415

    return rule_effects


# a forest panel: every seat's win rate, in percentage points
SEATS_PANEL = ("Seats", "difference (percentage points)", [f"win_seat_{k}" for k in range(4)],
               100.0)


def strategy_rows(c: pd.DataFrame) -> list[str]:
    """The per-strategy win outcomes of a contrasts table."""
    return [o for o in dict.fromkeys(c.index.get_level_values(2))
            if o.startswith("win_strategy_")]


def contrast_row(table: pd.DataFrame, v: str, ref: str, outcome: str):
    """The row (variant, reference, outcome) of a contrasts table, or None."""
    return table.loc[(v, ref, outcome)] if (v, ref, outcome) in table.index else None


def ci_text(m, lo, hi, scale: float = 1.0, digits: int | None = None, unit: str = "",
            signed: bool = False) -> str:
    """``m [lo, hi]`` with a sensible number of digits (``scale`` 100: percentages)."""
    if m is None or not np.isfinite(m):
        return ""
    m, lo, hi = m * scale, lo * scale, hi * scale
    if digits is None:
        width = abs(hi - lo) if np.isfinite(hi - lo) else abs(m)
        digits = 3 if width < 0.05 else 2 if width < 0.5 else 1 if width < 20 else 0
    sign = "+" if signed else ""
    if not np.isfinite(lo):
        return f"{m:{sign}.{digits}f}{unit}"
    return f"{m:{sign}.{digits}f}{unit} [{lo:.{digits}f}, {hi:.{digits}f}]"


# a headline's words for how often a change matters, from the 95% interval of the share
# of games it changes: rarely below 1% of games, often from 10% (the cut points are the
# study's, stated in its method note, ``how often note`` of text/rule-studies.md; an
# interval that spans one gives the numbers)
HOW_OFTEN = ((0.01, "rarely"), (0.10, "sometimes"), (np.inf, "often"))


def how_often(lo: float, hi: float) -> str:
    """``"rarely matters"``, ``"sometimes matters"``, ``"often matters"`` when the interval
    [``lo``, ``hi``] of a share of games lies within one band of ``HOW_OFTEN``, else
    ``"matters in lo-hi% of games"``."""
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return "cannot be judged (no games)"
    floor = 0.0
    for cut, word in HOW_OFTEN:
        if floor <= lo and hi < cut:
            return f"{word} matters"
        floor = cut
    digits = 2 if hi < 0.1 else 1
    return f"matters in {100 * lo:.{digits}f}-{100 * hi:.{digits}f}% of games"


def differ_cells(table: pd.DataFrame, arms) -> pd.DataFrame:
    """One row per arm: the share of games whose result differs from the reference's in
    each facet and in any, ``share [95% CI]`` (Wilson), with n (pairs)."""
    rows = []
    for v, ref, label in arms:
        if (v, ref) not in table.index.droplevel("facet"):
            continue
        t = table.xs((v, ref), level=("variant", "reference"))
        row = {"arms": label, "n (pairs)": int(t["n"].iloc[0])}
        for facet, r in t.iterrows():
            cell = ci_text(r["share"], r["ci_low"], r["ci_high"], 100, 2, "%")
            row["any of these" if facet == "any" else r["label"]] = (
                f"{cell} ({int(r['games_differ']):,})")
        rows.append(row)
    return pd.DataFrame(rows).set_index("arms") if rows else pd.DataFrame()


def contrast_cells(table: pd.DataFrame, arms, outcomes=None, pct_binary: bool = True
                   ) -> pd.DataFrame:
    """One row per outcome, one column per arm: ``diff [95% CI]`` (rates in percentage
    points, marked * when significant after the table's correction), and the
    reference's mean."""
    rows = []
    keys = table.index
    names = outcomes or list(dict.fromkeys(keys.get_level_values("outcome")))
    for o in names:
        row = {"outcome": o}
        for v, ref, label in arms:
            if (v, ref, o) not in keys:
                continue
            r = table.loc[(v, ref, o)]
            row["label"] = r["label"]
            scale = 100.0 if (r["binary"] and pct_binary) else 1.0
            unit = " pp" if scale == 100 else ""
            row.setdefault("reference mean", ci_text(r["base_mean"], np.nan, np.nan,
                                                     scale, unit="%" if scale == 100 else ""))
            row[f"{label}: diff [95% CI]"] = (
                ci_text(r["diff"], r["ci_low"], r["ci_high"], scale, unit=unit, signed=True)
                + (" *" if r["significant"] else ""))
            row[f"{label}: n"] = int(r["n"])
        if "label" in row:
            rows.append(row)
    out = pd.DataFrame(rows)
    if not len(out):
        return out
    ns = [c for c in out.columns if c.endswith(": n")]
    if ns and all((out[c] == out[ns[0]]).all() for c in ns):
        out.insert(2, "n (pairs)", out[ns[0]])
    else:
        for c in ns:
            out[c.replace(": n", ": pairs")] = out[c]
    out = out.drop(columns=ns).set_index("outcome")
    return out


def arm_cells(arms_table: pd.DataFrame, variants, labels: dict | None = None,
              outcomes=None) -> pd.DataFrame:
    """One row per outcome, one column per arm: ``mean [95% CI]`` (rates in %), n."""
    labels = labels or {}
    rows = []
    names = outcomes or list(dict.fromkeys(arms_table.index.get_level_values("outcome")))
    for o in names:
        row = {"outcome": o}
        for v in variants:
            if (v, o) not in arms_table.index:
                continue
            r = arms_table.loc[(v, o)]
            row["label"] = r["label"]
            scale = 100.0 if r["binary"] else 1.0
            row[labels.get(v, v)] = ci_text(r["mean"], r["ci_low"], r["ci_high"], scale,
                                            unit="%" if scale == 100 else "")
            row["n"] = int(r["n"])
        if "label" in row:
            rows.append(row)
    out = pd.DataFrame(rows)
    return out.set_index("outcome") if len(out) else out


def select(table: pd.DataFrame, arms, outcomes=None) -> pd.DataFrame:
    """The rows of a contrasts table for the given arms (and outcomes), for a CSV."""
    keep = [(v, r) for v, r, _ in arms]
    idx = [k for k in table.index if (k[0], k[1]) in keep
           and (outcomes is None or k[2] in outcomes)]
    return table.loc[idx]


# --- report and README ----------------------------------------------------------------


def answer_part(note: str) -> Part:
    """The first section of a rule study: the question and the answer's lines."""
    return Part("answer", WORDS["part answer"], note, (
        Text(lambda r: WORDS.fill("question", question=html.escape(r.question))),
        Text(lambda r: "<ul>" + "".join(f"<li>{a}</li>" for a in r.answer) + "</ul>")))


RUNS = WORDS.part("runs", (
    Table("runs", lambda r: runs_frame(r.datasets),
          lambda r: WORDS.fill("table runs", scale=r.scale)),
    Text(lambda r: "\n".join(f"<p class='power'>{x}</p>" for x in r.power),
         when=lambda r: bool(r.power))))


def power_lines(res: dict, datasets: dict, words: Words, targets) -> list[str]:
    """What the sample sizes can detect: the study's ``power`` words, then per dataset the
    pairs needed for 80% power at a Bonferroni (conservative for Holm) alpha for each
    target (outcome, smallest difference, its words), from the largest observed sd of
    the per-game differences, each in the study's ``power need`` words (``$what``,
    ``$need``, ``$have``)."""
    lines = [words["power"]]
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
            n = ST.games_for_paired_mean(mde, sd, alpha=alpha)
            if np.isfinite(n):
                parts.append(words.fill("power need", what=what, need=f"{n:,.0f}",
                                        have=f"{int(rows['n'].min()):,}"))
        if parts:
            lines.append(WORDS.fill("power dataset", name=name,
                                    games=f"{datasets[name].games:,}", parts="; ".join(parts)))
    return lines


def runs_frame(datasets: dict[str, Dataset]) -> pd.DataFrame:
    rows = []
    for d in datasets.values():
        exp = d.experiment
        rows.append({"dataset": d.name, "file": exp.path.name if exp.path else "",
                     "players": exp.players, "arms": len(d.variants),
                     "games per arm": d.games, "games": d.total_games,
                     "seconds": round(d.seconds, 1),
                     "games/s": round(d.total_games / d.seconds) if d.seconds else np.nan,
                     "arms (variants)": ", ".join(d.variants)})
    return pd.DataFrame(rows).set_index("dataset")


def write_report(out: Path, title: str, description: str, sections: list[Section],
                 datasets: dict[str, Dataset], scale: str, seconds: float) -> Path:
    total = sum(d.total_games for d in datasets.values())
    items = [("datasets", ", ".join(f"{d.name} ({d.total_games:,} games)"
                                    for d in datasets.values())),
             ("games in all", f"{total:,}"), ("scale", scale), ("catansim", __version__),
             *provenance({d.name: d.path for d in datasets.values()}),
             ("analyses", f"{seconds:.1f} s")]
    return write_study_report(out, sections, title, items, description)


def write_readme(out: Path, name: str, title: str, question: str, answer: list[str],
                 sections: list[Section], datasets: dict[str, Dataset], scale: str,
                 power_lines: list[str] = (), notes: list[str] = (), notebook: str = ""
                 ) -> Path:
    """``out/README.md``: the question, the answer, the command, the runs, and every
    table and figure with what it shows."""
    lines = [f"# {title}", "", WORDS.fill("readme question", question=question), "",
             WORDS["readme answer"], ""]
    lines += [f"- {_plain(a)}" for a in answer]
    lines += ["", WORDS["readme rebuild"],
              "", "```", f"catansim study {name}" + ("" if scale == "full" else
                                                    f" --scale {scale}"), "```", "",
              WORDS.fill("readme scale", scale=scale, notebook=notebook), "",
              *H.readme_lines(sections),
              f"## {WORDS['readme runs']}", "",
              "| dataset | experiment file | players | arms | games per arm | games | "
              "seconds | games/s | made by |", "|---|---|---:|---:|---:|---:|---:|---:|---|"]
    for d in datasets.values():
        rate = f"{d.total_games / d.seconds:,.0f}" if d.seconds else ""
        lines.append(f"| {d.name} | `{EXPERIMENTS_DIR}/{name}/{d.experiment.path.name}` | "
                     f"{d.experiment.players} | {len(d.variants)} | {d.games:,} | "
                     f"{d.total_games:,} | {d.seconds:,.0f} | {rate} | {engine_of(d.path)} |")
    total = sum(d.total_games for d in datasets.values())
    secs = sum(d.seconds for d in datasets.values())
    lines += [f"| all | | | | | {total:,} | {secs:,.0f} | | |", "",
              WORDS["readme seconds"], ""]
    lines += list(notes)
    lines += list(power_lines)
    lines += ["", f"## {WORDS['readme tables']}", ""]
    for s in sections:
        for b in s.blocks:
            if b[0] == "table":
                lines.append(f"- `{b[1]}.csv` ({s.title}): {_plain(b[3])}")
    lines += ["", f"## {WORDS['readme figures']}", ""]
    for s in sections:
        for b in s.blocks:
            if b[0] == "figure":
                lines.append(f"- `{b[1]}.png` ({s.title})" + (f": {_plain(b[3])}" if b[3]
                                                              else ""))
    lines.append("")
    path = out / "README.md"
    atomic_write_text(path, "\n".join(lines))
    return path


def _plain(text: str) -> str:
    """HTML of an answer line as Markdown-ish plain text."""
    t = re.sub(r"</?b>", "**", str(text))
    t = re.sub(r"<[^>]+>", "", t)
    return html.unescape(t)
