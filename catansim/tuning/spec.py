"""Tuning specs: a TOML file (or a mapping) read and validated into a ``TuneSpec``.

A spec (docs/tuning.md has every key)::

    name = "allrounder"            # the tuned preset's name
    strategy = "default"           # the starting strategy, whose row the search changes
    players = 4
    layouts = ["variable"]         # deal i is played on layouts[i % len(layouts)]
    seed = 1                       # the training deals; the held-out deals use heldout_seed
    [rules]                        # rule settings (docs/experiments.md)
    [params]                       # what is searched (catansim.tuning.space)
    dev_weight = {low = 0.1, high = 3, log = true}
    [field]                        # the opponents: tables of players - 1 names; "best" is
    tables = [["default", "default", "default"]]   # the best candidate so far (self-play)
    [budget]
    games = 400000                 # and/or minutes = 25, trials = 200
    [evaluation]
    deals = 600                    # training deals a candidate plays at most
    instance = 10                  # deals per racing instance (one paired value each)
    p_threshold = 0.1              # Wilcoxon racing: drop a candidate this sure to be worse
    finalists = 5                  # the best full candidates, played again on
    selection_deals = 600          # this many more deals; the best on all is the answer
    [heldout]
    deals = 2000                   # fresh deals for the final measurement

Every error is one line naming the file and the key (``runs.file_checks``, as for an
experiment file).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..board import LAYOUTS
from ..checks import (
    SEED_ALLOWED,
    check_choice,
    check_int,
    check_players,
    check_str,
    parse_toml,
    read_text,
    type_name,
)
from ..errors import CatansimError
from ..rules import Rules
from ..runs.file_checks import InFile
from ..strategies import PRESETS, STRATEGY_RANDOM, StrategySet, is_shipped_player
from .space import Dimension, parse_space

# A budget must end: at most a year of minutes, and games and trials no run could
# spend in one (a larger number, or inf, would mean "until killed").
BUDGET_MINUTES_MAX = 365 * 24 * 60
BUDGET_GAMES_MAX = 10**12
BUDGET_TRIALS_MAX = 10**6
BEST = "best"  # in a field table: the best candidate so far
CANDIDATE = "candidate"  # the strategy name a candidate plays under
SAMPLERS = ("tpe", "random")
KEYS = {
    "name": "the tuned preset's name",
    "description": "a sentence",
    "strategy": "the starting strategy",
    "players": "3 or 4",
    "layouts": "layout names",
    "seed": "the training deals' base seed",
    "heldout_seed": "the held-out deals' base seed",
    "sampler": ", ".join(SAMPLERS),
    "storage": "a database URL (default: sqlite in the output folder)",
    "rules": "a table of rule settings",
    "params": "the searched parameters",
    "field": "the opponents",
    "budget": "games, minutes, trials",
    "evaluation": "deals, instance, p_threshold, finalists, selection_deals",
    "heldout": "deals, presets",
    "strategies": "[strategies.NAME] tables (docs/strategies.md)",
}


@dataclass(frozen=True)
class TuneSpec:
    """A validated tuning spec (see the module docstring)."""

    name: str
    strategy: str
    space: tuple[Dimension, ...]
    tables: tuple[tuple[str, ...], ...]
    n_players: int = 4
    layouts: tuple[str, ...] = ("variable",)
    rules: Rules = field(default_factory=Rules)
    seed: int = 1
    heldout_seed: int = 2
    sampler: str = "tpe"
    storage: str | None = None
    budget_games: int | None = None
    budget_minutes: float | None = None
    budget_trials: int | None = None
    deals: int = 600
    instance: int = 10
    p_threshold: float = 0.1
    finalists: int = 5
    selection_deals: int = 600
    heldout_deals: int = 2000
    heldout_presets: tuple[str, ...] = ()
    description: str = ""
    strategy_set: StrategySet = field(default=PRESETS, repr=False)
    definitions: dict = field(default_factory=dict, repr=False)

    @property
    def instances(self) -> int:
        """Racing instances a full evaluation plays (``deals / instance``)."""
        return self.deals // self.instance

    @property
    def games_per_deal(self) -> int:
        """A candidate's games per deal: one per seat and field table."""
        return self.n_players * len(self.tables)

    @property
    def uses_best(self) -> bool:
        return any(BEST in t for t in self.tables)

    def with_overrides(self, **changes) -> TuneSpec:
        return replace(self, **changes)


def _tables(raw, ctx, n_players: int, names: StrategySet) -> tuple[tuple[str, ...], ...]:
    allowed = (f"tables of {n_players - 1} names each from {names.allowed_seats} or "
               f"\"{BEST}\" (the best candidate so far)")
    if isinstance(raw, str):
        raw = [[raw] * (n_players - 1)]
    if not isinstance(raw, list) or not raw:
        ctx.fail("field.tables", f"expected a non-empty array; allowed: {allowed}")
    out = []
    for i, table in enumerate(raw):
        key = f"field.tables[{i}]"
        if isinstance(table, str):
            table = [table] * (n_players - 1)
        if not isinstance(table, list) or len(table) != n_players - 1:
            ctx.fail(key, f"expected {n_players - 1} names for {n_players} players; "
                          f"allowed: {allowed}")
        for j, name in enumerate(table):
            if name != BEST and (not isinstance(name, str)
                                 or (name not in names and not is_shipped_player(name))):
                ctx.fail(f"{key}[{j}]", f"unknown strategy {name!r}; allowed: "
                                        f"{names.allowed_seats}, {BEST}")
        out.append(tuple(table))
    return tuple(out)


def parse_spec(data: Mapping, path: Path | None = None) -> TuneSpec:
    """Validate a spec's mapping (a TOML document's) into a ``TuneSpec``."""
    ctx = InFile(path)
    if not isinstance(data, Mapping):
        ctx.fail("spec", f"expected a table, got {type_name(data)}; allowed: {', '.join(KEYS)}")
    ctx.known_keys(data, KEYS)
    for k in ("name", "params", "budget"):
        if k not in data:
            ctx.fail(k, f"missing; allowed: {KEYS[k]}")
    name = data["name"]
    if not isinstance(name, str) or not name.isidentifier():
        ctx.fail("name", f"{name!r} is not allowed; allowed: a name of letters, digits and _")
    definitions = data.get("strategies", {})
    strategy_set = ctx.strategy_set(definitions, "strategies") if definitions else PRESETS
    for reserved in (CANDIDATE, name):
        if reserved in strategy_set:
            ctx.fail("name" if reserved == name else f"strategies.{reserved}",
                     f"{reserved!r} is already a strategy; allowed: another name")
    strategy = data.get("strategy", "default")
    scripted = sorted(n for n, s in strategy_set.items() if s.sid != STRATEGY_RANDOM)
    if strategy not in scripted:
        ctx.fail("strategy", f"unknown strategy {strategy!r}; allowed: {', '.join(scripted)}")
    players = ctx.check(check_players, data.get("players", 4))
    layouts = data.get("layouts", ["variable"])
    if isinstance(layouts, str):
        layouts = [layouts]
    if not isinstance(layouts, list) or not layouts:
        ctx.fail("layouts", f"expected a non-empty array; allowed: {', '.join(LAYOUTS)}")
    for i, lay in enumerate(layouts):
        ctx.check(check_choice, lay, f"layouts[{i}]", LAYOUTS)
    seed = ctx.check(check_int, data.get("seed", 1), "seed", 0, 2**63 - 1, SEED_ALLOWED)
    heldout_seed = ctx.check(check_int, data.get("heldout_seed", seed + 1_000_003),
                             "heldout_seed", 0, 2**63 - 1, SEED_ALLOWED)
    if heldout_seed == seed:
        ctx.fail("heldout_seed", f"{heldout_seed} is the training seed; allowed: another seed")
    sampler = ctx.check(check_choice, data.get("sampler", "tpe"), "sampler", SAMPLERS)
    storage = data.get("storage")
    if storage is not None and (not isinstance(storage, str) or "://" not in storage):
        ctx.fail("storage", f"{storage!r} is not a database URL; allowed: e.g. "
                            "sqlite:///tune.db or postgresql://host/db")
    rules = ctx.rules(data.get("rules", {}), "rules")
    try:
        space = parse_space(data["params"])
    except CatansimError as exc:
        raise CatansimError(f"{ctx.prefix}{exc}") from None
    fld = ctx.table(data.get("field", {"tables": [[strategy] * (players - 1)]}), "field",
                    ["tables"])
    tables = _tables(fld.get("tables", strategy), ctx, players, strategy_set)
    budget = ctx.table(data["budget"], "budget", ["games", "minutes", "trials"])
    if not budget:
        ctx.fail("budget", "empty; allowed: games, minutes or trials (at least one)")
    games = (ctx.check(check_int, budget["games"], "budget.games", 1, BUDGET_GAMES_MAX,
                       f"an integer in 1..{BUDGET_GAMES_MAX:,}") if "games" in budget else None)
    trials = (ctx.check(check_int, budget["trials"], "budget.trials", 1, BUDGET_TRIALS_MAX,
                        f"an integer in 1..{BUDGET_TRIALS_MAX:,}") if "trials" in budget
              else None)
    minutes = budget.get("minutes")
    if minutes is not None and (isinstance(minutes, bool) or not isinstance(minutes, int | float)
                                or not 0 < minutes <= BUDGET_MINUTES_MAX):
        ctx.fail("budget.minutes", f"{minutes!r} is not allowed; allowed: a number > 0 and at "
                                   f"most {BUDGET_MINUTES_MAX} (a year)")
    ev = ctx.table(data.get("evaluation", {}), "evaluation",
                   ["deals", "instance", "p_threshold", "finalists", "selection_deals"])
    instance = ctx.check(check_int, ev.get("instance", 10), "evaluation.instance", 1)
    deals = ctx.check(check_int, ev.get("deals", 600), "evaluation.deals", instance,
                      allowed=f"an integer >= evaluation.instance ({instance})")
    if deals % instance:
        ctx.fail("evaluation.deals", f"{deals} is not a multiple of evaluation.instance "
                                     f"({instance}); allowed: a multiple of it")
    p = ev.get("p_threshold", 0.1)
    if isinstance(p, bool) or not isinstance(p, int | float) or not 0 < p <= 1:
        ctx.fail("evaluation.p_threshold", f"{p!r} is not allowed; allowed: a number in (0, 1] "
                                           "(1: no racing)")
    finalists = ctx.check(check_int, ev.get("finalists", 5), "evaluation.finalists", 1)
    selection_deals = ctx.check(check_int, ev.get("selection_deals", deals),
                                "evaluation.selection_deals", 0)
    ho = ctx.table(data.get("heldout", {}), "heldout", ["deals", "presets"])
    heldout_deals = ctx.check(check_int, ho.get("deals", 2000), "heldout.deals", 1)
    presets = ho.get("presets", "all")
    if presets == "all":
        presets = [n for n in scripted if n != strategy]
    if not isinstance(presets, list):
        ctx.fail("heldout.presets", f"expected an array or \"all\"; allowed: {', '.join(scripted)}")
    for i, p_name in enumerate(presets):
        if p_name not in scripted:
            ctx.fail(f"heldout.presets[{i}]", f"unknown strategy {p_name!r}; allowed: "
                                              f"{', '.join(scripted)}")
    desc = ctx.check(check_str, data.get("description", ""), "description", "a sentence")
    return TuneSpec(
        name=name, strategy=strategy, space=space, tables=tables, n_players=int(players),
        layouts=tuple(layouts), rules=rules, seed=seed, heldout_seed=heldout_seed,
        sampler=sampler, storage=storage, budget_games=games,
        budget_minutes=float(minutes) if minutes is not None else None, budget_trials=trials,
        deals=deals, instance=instance, p_threshold=float(p), finalists=finalists,
        selection_deals=selection_deals, heldout_deals=heldout_deals,
        heldout_presets=tuple(dict.fromkeys(p for p in presets if p != strategy)),
        description=desc, strategy_set=strategy_set, definitions=dict(definitions))


def load_spec(source) -> TuneSpec:
    """A spec from a TOML file (path), a mapping, or a ``TuneSpec`` (returned as is)."""
    if isinstance(source, TuneSpec):
        return source
    if isinstance(source, Mapping):
        return parse_spec(source)
    path = Path(source)
    allowed = "a TOML tuning spec (docs/tuning.md)"
    data = parse_toml(read_text(path, "tuning spec", allowed), path, allowed)
    return parse_spec(data, path)
