"""Each study's headlines, read from the tables it writes, beside the same headlines of
the players the study was first built with (``classic``).

A headline is one row of one of the study's tables (``tables/TABLE.csv``): an estimate,
its 95% interval and its n. ``HEADLINES`` names them per study, as data, so the same
reading serves the tables of any build: the study's report and README show this build's
headlines beside ``classic``'s (``insert``, ``readme_lines``), and ``tables/headlines.csv``
holds both.

``classic``'s headlines are package data, ``classic/<study>.csv``, read by ``freeze`` from
the tables the studies committed when ``classic`` was their players (the commit is in
each row's ``source``), never typed by hand. Those tables named the preset ``default``
(it was renamed ``classic`` by issue #51), which is why a headline's row names the
players ``default`` in both: a table names the preset the study plays.

Words: ``text/headlines.md``. Imports pandas and the reports' ``Section``, nothing of a
study.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import CatansimError
from ..files import atomic_write_text
from ..reports import Section
from ._words import Words

W = Words("headlines")
CLASSIC = resources.files(__package__) / "classic"  # classic/<study>.csv
# search/<study>.csv: the search player's headlines, written by
# experiments/strength/strength.py from its runs (a study without one: not measured)
SEARCH = resources.files(__package__) / "search"
KEY = "headlines"  # the report's section, its table and the CSV's name


@dataclass(frozen=True)
class Headline:
    """One headline: the row of ``tables/TABLE.csv`` whose columns equal ``row``, its
    ``estimate``, ``low`` and ``high`` (95% interval) and ``n`` columns (``detail``: a
    column shown after it, e.g. the node). ``negate``: shown as reference minus arm (the
    table holds arm minus reference); ``sqrt``: the interval columns are of a variance
    whose square root the estimate is. Shown as ``unit``: ``%`` (a rate), ``points`` (a
    difference of rates, in percentage points), or a plain number (turns, r)."""

    key: str
    table: str
    row: dict = field(default_factory=dict)
    estimate: str = "estimate"
    low: str = "ci_low"
    high: str = "ci_high"
    n: str = "n"
    unit: str = "points"
    digits: int = 1
    signed: bool = True
    negate: bool = False
    sqrt: bool = False
    detail: str | None = None

    @property
    def label(self) -> str:
        return W["headline " + self.key]


def _seat_rate(key, table, seat):
    return Headline(key, table, {"variant": "default", "seat": seat}, "win_rate",
                    n="seat_games", unit="%", signed=False)


def _order(key, n_players, contrast):
    return Headline(key, f"order_contrasts_{n_players}p", {"contrast": contrast})


_PICK = "first pick: pick 0 minus the other picks"
_MOVE = "first move: turn 0 minus the other turns"
_SEAT = "seat index: seat 0 minus the other seats"


def _switch(key, variant, outcome, **kw):
    return Headline(key, "switch_effects", {"variant": variant, "outcome": outcome}, "diff",
                    negate=True, **kw)


def _differ(key, table, variant, facet):
    return Headline(key, table, {"variant": variant, "facet": facet}, "share", unit="%",
                    digits=2, signed=False)


HEADLINES: dict[str, tuple[Headline, ...]] = {
    "seats-and-boards": (
        _seat_rate("seat0_4p", "seats_4p", 0),
        _seat_rate("seat0_3p", "seats_3p", 0),
        _order("first_pick_4p", 4, _PICK), _order("first_move_4p", 4, _MOVE),
        Headline("seat_index_4p", "order_contrasts_4p", {"contrast": _SEAT}, digits=2),
        _order("first_pick_3p", 3, _PICK), _order("first_move_3p", 3, _MOVE),
        Headline("board_sd_seat0", "board_variance_boards_4p",
                 {"variant": "baseline", "measure": "seat_0"}, "between_sd",
                 "between_ci_low", "between_ci_high", "boards", signed=False, sqrt=True),
        Headline("board_spread", "board_variance_boards_4p",
                 {"variant": "baseline", "measure": "spread"}, "mean", n="boards",
                 signed=False),
        Headline("index_r", "index_fit", {"board_set": "index-preregistered",
                                          "predictor": "index, calibrated"},
                 "r", "r_ci_low", "r_ci_high", "boards", unit="", digits=2, signed=False),
        Headline("balanced_seat0", "balanced_vs_variable", {"set": "balanced",
                                                           "measure": "seat_0"},
                 "diff", "diff_ci_low", "diff_ci_high", "boards"),
    ),
    "openings": (
        *(Headline(f"best_first_{s}_4p", "beginner4_seat_best", {"seat": s}, "best_diff",
                   "best_ci_low", "best_ci_high", detail="best_node") for s in range(4)),
        Headline("best_first_0_3p", "beginner3_seat_best", {"seat": 0}, "best_diff",
                 "best_ci_low", "best_ci_high", detail="best_node"),
        *(Headline(f"boards_gain_{s}", "boards_summary", {"seat": s}, "mean_gain",
                   "gain_ci_low", "gain_ci_high", "boards") for s in range(4)),
        Headline("pip", "model_coefficients", {"term": "pips"}, "lpm", "lpm_ci_low",
                 "lpm_ci_high"),
    ),
    "robber": (
        _switch("leader_40", "off_after_40", "leader_won_40"),
        _switch("leader_20", "off_after_20", "leader_won_20"),
        _switch("last_40", "off_after_40", "last_won_40"),
        _switch("turns_after_40", "off_after_40", "turns_after_40", unit="", digits=2),
        _switch("random_leader_40", "random_off_after_40", "leader_won_40"),
        Headline("game_turns", "rule_contrasts", {"variant": "off", "outcome": "turns"},
                 "diff", unit="", digits=2, negate=True),
        Headline("hit_leader", "policy_shares", {"variant": "baseline",
                                                 "share_of": "hit_leader"},
                 "share", n="denominator", unit="%", signed=False),
        Headline("lone_random", "lone_seat", {"variant": "lone_random",
                                              "outcome": "win_strategy_default_random"},
                 "diff"),
        Headline("lone_leader", "lone_seat", {"variant": "lone_leader",
                                              "outcome": "win_strategy_default"}, "diff"),
    ),
    "shortages": (
        Headline("short_19", "rule19_arms", {"variant": "baseline",
                                             "outcome": "any_shortage"},
                 "mean", unit="%", digits=2, signed=False),
        Headline("sole_recipient_19", "rule19_shares", {"variant": "baseline",
                                                         "share_of": "sole_recipient"},
                 "share", n="denominator", unit="%", signed=False),
        _differ("strict_any_19", "rule19_differ", "strict", "any"),
        _differ("strict_winner_19", "rule19_differ", "strict", "winner"),
        _differ("unlimited_any_19", "rule19_differ", "unlimited", "any"),
        _differ("unlimited_winner_19", "rule19_differ", "unlimited", "winner"),
        Headline("short_9", "supply_arms", {"variant": "official_9",
                                            "outcome": "any_shortage"},
                 "mean", unit="%", signed=False),
        _differ("strict_any_9", "rule9_differ", "strict", "any"),
        _differ("strict_winner_9", "rule9_differ", "strict", "winner"),
    ),
}

COLUMNS = ["estimate", "ci_low", "ci_high", "n"]

# How a headline reads under the second kind of player against the first, from the two
# 95% intervals alone (``verdict``).
HOLDS, CHANGES_SIZE, CHANGES_SIGN = "holds", "changes size", "changes sign"
VERDICTS = (HOLDS, CHANGES_SIZE, CHANGES_SIGN)


def verdict(lo_a: float, hi_a: float, lo_b: float, hi_b: float) -> str | None:
    """How headline ``b`` reads against headline ``a``, from their 95% intervals
    ``[lo, hi]`` (each its own interval; no paired difference):

    - ``changes sign``: one interval lies wholly above zero and the other wholly below;
    - ``holds``: the intervals share at least one point (touching counts);
    - ``changes size``: otherwise (disjoint intervals on the same side of zero, or one of
      them holding zero).

    The three are exclusive and cover every pair: two intervals on opposite sides of zero
    share no point. Overlap is not a test of equality at 5% (two intervals can overlap
    while their difference excludes zero), so ``holds`` errs towards holding. A rate or
    an r is never below zero, so it holds or changes size. None when either interval is
    missing (NaN); an interval with ``lo > hi`` is an error.
    """
    ends = np.array([lo_a, hi_a, lo_b, hi_b], dtype=float)
    if np.isnan(ends).any():
        return None
    if lo_a > hi_a or lo_b > hi_b:
        raise CatansimError(f"verdict: an interval with its low end above its high end "
                            f"([{lo_a}, {hi_a}], [{lo_b}, {hi_b}]); allowed: lo <= hi")
    if (lo_a > 0 and hi_b < 0) or (hi_a < 0 and lo_b > 0):
        return CHANGES_SIGN
    if lo_a <= hi_b and lo_b <= hi_a:
        return HOLDS
    return CHANGES_SIZE


def _pick(table: pd.DataFrame, h: Headline) -> int | None:
    """The position of the one row of ``table`` that ``h`` names (None if there is none)."""
    hit = np.ones(len(table), dtype=bool)
    for col, value in h.row.items():
        if col not in table.columns:
            return None
        hit &= (table[col] == value).to_numpy()
    rows = np.flatnonzero(hit)
    if len(rows) > 1:
        raise CatansimError(f"headline {h.key}: {len(rows)} rows of {h.table} match {h.row}; "
                            "allowed: columns that pick one row")
    return int(rows[0]) if len(rows) else None


def read(name: str, tables: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Study ``name``'s headlines from its tables (``tables``: name -> the frame as read
    from ``tables/NAME.csv``), one row per headline: estimate, ci_low, ci_high, n and
    detail, as shown (negated, square-rooted); NaN where the table has no such row."""
    rows = []
    for h in HEADLINES[name]:
        t = tables.get(h.table)
        i = _pick(t, h) if t is not None else None
        est, lo, hi, n, detail = (np.nan,) * 4 + ("",)
        if i is not None:
            r = {c: t[c].iloc[i] for c in t.columns}  # each column keeps its type
            est, lo, hi = (float(r[c]) for c in (h.estimate, h.low, h.high))
            n = float(r[h.n])
            if h.sqrt:
                lo, hi = np.sqrt(max(lo, 0.0)), np.sqrt(max(hi, 0.0))
            if h.negate:
                est, lo, hi = -est, -hi, -lo
            if h.detail is not None:
                detail = str(r[h.detail])
        rows.append({"key": h.key, "headline": h.label, "table": h.table, "estimate": est,
                     "ci_low": lo, "ci_high": hi, "n": n, "detail": detail})
    return pd.DataFrame(rows).set_index("key")


def tables_of(sections: list[Section]) -> dict[str, pd.DataFrame]:
    """Every table of a report's sections as its CSV reads back (``tables/NAME.csv``)."""
    return {b[1]: pd.read_csv(io.StringIO(b[4].to_csv())) for s in sections
            for b in s.blocks if b[0] == "table"}


def tables_in(folder: Path) -> dict[str, pd.DataFrame]:
    """Every ``*.csv`` of a study's ``tables/`` folder, by name."""
    return {p.stem: pd.read_csv(p) for p in sorted(Path(folder).glob("*.csv"))}


def classic(name: str) -> pd.DataFrame:
    """``classic``'s headlines of study ``name`` (``classic/<name>.csv``)."""
    path = CLASSIC / f"{name}.csv"
    if not path.is_file():
        raise CatansimError(f"study {name}: no classic headlines at {path}; allowed: a "
                            "catansim installed with its package data")
    return pd.read_csv(io.StringIO(path.read_text()), index_col="key",
                       dtype={"detail": str})


def search(name: str) -> pd.DataFrame | None:
    """The search player's headlines of study ``name`` (``search/<name>.csv``; its rows
    are the headlines measured), or None when none are."""
    path = SEARCH / f"{name}.csv"
    if not path.is_file():
        return None
    return pd.read_csv(io.StringIO(path.read_text()), index_col="key",
                       dtype={"detail": str})


def write_search(name: str, h: pd.DataFrame) -> None:
    """Write ``search/<name>.csv``: rows of ``read``'s form with a ``source`` column,
    only the headlines measured."""
    atomic_write_text(Path(str(SEARCH / f"{name}.csv")), h.to_csv())


def freeze(name: str, folder: Path, commit: str, to: Path | None = None) -> pd.DataFrame:
    """Write ``classic/<name>.csv`` (or ``to``): the headlines of the tables in
    ``folder`` (``results/<name>/tables`` of a checkout at ``commit``), each row's
    ``source`` naming its table and the commit. Returns the frame."""
    h = read(name, tables_in(folder))
    h["source"] = [f"results/{name}/tables/{t}.csv at commit {commit}" for t in h["table"]]
    to = Path(to) if to is not None else Path(str(CLASSIC / f"{name}.csv"))
    atomic_write_text(to, h.to_csv())
    return h


def compare(name: str, this: pd.DataFrame) -> pd.DataFrame:
    """One row per headline of study ``name``: ``classic``'s figure, this build's
    (``this``, as ``read`` gives it) and, where ``search/<name>.csv`` exists, the search
    player's (NaN for a headline it does not hold), side by side."""
    old = classic(name).reindex(this.index)
    out = this[["headline", "table"]].copy()
    out["unit"] = [h.unit for h in HEADLINES[name]]
    kinds = [("classic", old), ("default", this)]
    found = search(name)
    if found is not None:
        kinds.append(("search", found.reindex(this.index)))
    for who, frame in kinds:
        out[who] = frame["estimate"].to_numpy(dtype=float)
        for c in ("ci_low", "ci_high", "n"):
            out[f"{who}_{c}"] = frame[c].to_numpy(dtype=float)
        out[f"{who}_detail"] = frame["detail"].fillna("").astype(str).to_numpy()
    out["method"] = W["method"]
    return out


# The kinds of player a headline is shown under, weakest first; the first is the one each
# other is read against. ``search`` (the search player in every seat) has a column in
# ``compare`` once ``search/<study>.csv`` exists; a headline without a row there shows as
# not measured.
PLAYERS = ("classic", "default", "search")


def strength_verdict(r) -> str | None:
    """One headline's verdict across the kinds of player measured (a row of ``compare``):
    the furthest, by ``VERDICTS``' order, of ``verdict(classic, other)`` over each other
    kind with an interval; None when no other kind has one."""
    first = PLAYERS[0]
    found = [verdict(r[f"{first}_ci_low"], r[f"{first}_ci_high"], r[f"{who}_ci_low"],
                     r[f"{who}_ci_high"])
             for who in PLAYERS[1:] if f"{who}_ci_low" in r]
    found = [v for v in found if v is not None]
    return max(found, key=VERDICTS.index) if found else None


def shown(name: str, cmp: pd.DataFrame) -> pd.DataFrame:
    """The comparison as the report and README show it: each figure with its interval
    and n, in the headline's unit, under each kind of player (``PLAYERS``; not measured
    where ``cmp`` has no column of it), and the row's ``strength_verdict``."""
    specs = {h.key: h for h in HEADLINES[name]}
    rows = []
    for key, r in cmp.iterrows():
        h = specs[key]
        cells = {who: (cell(h, r[who], r[f"{who}_ci_low"], r[f"{who}_ci_high"],
                            r[f"{who}_n"], r[f"{who}_detail"]) if who in r
                       else W["not measured"]) for who in PLAYERS}
        rows.append({"headline": r["headline"], **cells,
                     "verdict": strength_verdict(r) or W["not measured"]})
    return pd.DataFrame(rows).set_index("headline")


def cell(h: Headline, est, lo, hi, n, detail: str = "") -> str:
    """``29.2% [28.8, 29.7] (n = 40,000)`` in the headline's unit; ``not measured`` for
    NaN."""
    if not np.isfinite(est):
        return W["not measured"]
    scale = 100.0 if h.unit in ("%", "points") else 1.0
    sign = "+" if h.signed else ""
    d = h.digits
    unit = {"%": "%", "points": " points"}.get(h.unit, "")
    text = (f"{scale * est:{sign}.{d}f}{unit} [{scale * lo:{sign}.{d}f}, "
            f"{scale * hi:{sign}.{d}f}]")
    extra = [f"n = {int(n):,}"] if np.isfinite(n) else []
    if detail:
        extra.insert(0, W.fill("detail " + h.detail, value=detail) if h.detail else detail)
    return text + (f" ({'; '.join(extra)})" if extra else "")


def section(name: str, sections: list[Section]) -> Section:
    """The report section of the headlines, classic beside this build, read from the
    other sections' tables; its table's CSV is the comparison (``compare``)."""
    cmp = compare(name, read(name, tables_of(sections)))
    s = Section(KEY, W["part headlines"], W["note headlines"])
    s.table(KEY, shown(name, cmp), W["table headlines"], cmp)
    return s


def insert(name: str, sections: list[Section], at: int = 1) -> list[Section]:
    """``sections`` with the headlines' section at position ``at`` (after the answers)."""
    return [*sections[:at], section(name, sections), *sections[at:]]


def readme_lines(sections: list[Section]) -> list[str]:
    """The README's headlines: a Markdown table, classic beside this build."""
    block = next((b for s in sections if s.key == KEY for b in s.blocks
                  if b[0] == "table" and b[1] == KEY), None)
    if block is None:
        return []
    t = block[2]
    lines = [f"## {W['readme title']}", "", W["readme note"], "",
             "| headline | " + " | ".join(f"`{who}`" for who in PLAYERS) + " | verdict |",
             "|---" * (len(PLAYERS) + 2) + "|"]
    lines += ["| " + " | ".join([k, *(r[who] for who in PLAYERS), r["verdict"]]) + " |"
              for k, r in t.iterrows()]
    return lines + [""]
