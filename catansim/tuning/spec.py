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

Every error is one line naming the file and the key.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..board import LAYOUTS
from ..checks import SEED_ALLOWED, is_int, parse_toml, read_text, type_name
from ..errors import CatansimError
from ..rules import Rules
from ..strategies import PRESETS, STRATEGY_RANDOM, StrategySet
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


class _Where:
    def __init__(self, path):
        self.prefix = f"{path}: " if path is not None else ""

    def fail(self, key: str, msg: str):
        raise CatansimError(f"{self.prefix}{key}: {msg}")


def _int(raw, key, ctx, lo, hi=None, allowed=None):
    allowed = allowed or (f"an integer >= {lo}" if hi is None else f"an integer in {lo}..{hi}")
    if not is_int(raw):
        ctx.fail(key, f"expected an integer, got {type_name(raw)} ({raw!r}); allowed: {allowed}")
    if raw < lo or (hi is not None and raw > hi):
        ctx.fail(key, f"{raw} is not allowed; allowed: {allowed}")
    return int(raw)


def _table(raw, key, ctx, keys) -> dict:
    if not isinstance(raw, dict):
        ctx.fail(key, f"expected a table, got {type_name(raw)}; allowed: a table of "
                      f"{', '.join(keys)}")
    for k in raw:
        if k not in keys:
            ctx.fail(f"{key}.{k}", f"unknown key; allowed: {', '.join(keys)}")
    return raw


def _tables(raw, ctx, n_players: int, names: StrategySet) -> tuple[tuple[str, ...], ...]:
    allowed = (f"tables of {n_players - 1} names each from {names.allowed} or \"{BEST}\" "
               "(the best candidate so far)")
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
            if name != BEST and (not isinstance(name, str) or name not in names):
                ctx.fail(f"{key}[{j}]", f"unknown strategy {name!r}; allowed: "
                                        f"{names.allowed}, {BEST}")
        out.append(tuple(table))
    return tuple(out)


def parse_spec(data: Mapping, path: Path | None = None) -> TuneSpec:
    """Validate a spec's mapping (a TOML document's) into a ``TuneSpec``."""
    ctx = _Where(path)
    if not isinstance(data, Mapping):
        ctx.fail("spec", f"expected a table, got {type_name(data)}; allowed: {', '.join(KEYS)}")
    for k in data:
        if k not in KEYS:
            ctx.fail(k, f"unknown key; allowed: {', '.join(KEYS)}")
    for k in ("name", "params", "budget"):
        if k not in data:
            ctx.fail(k, f"missing; allowed: {KEYS[k]}")
    name = data["name"]
    if not isinstance(name, str) or not name.isidentifier():
        ctx.fail("name", f"{name!r} is not allowed; allowed: a name of letters, digits and _")
    definitions = data.get("strategies", {})
    try:
        strategy_set = PRESETS.with_definitions(definitions) if definitions else PRESETS
    except CatansimError as exc:
        raise CatansimError(f"{ctx.prefix}{exc}") from None
    for reserved in (CANDIDATE, name):
        if reserved in strategy_set:
            ctx.fail("name" if reserved == name else f"strategies.{reserved}",
                     f"{reserved!r} is already a strategy; allowed: another name")
    strategy = data.get("strategy", "default")
    scripted = sorted(n for n, s in strategy_set.items() if s.sid != STRATEGY_RANDOM)
    if strategy not in scripted:
        ctx.fail("strategy", f"unknown strategy {strategy!r}; allowed: {', '.join(scripted)}")
    players = data.get("players", 4)
    if not is_int(players) or players not in (3, 4):
        ctx.fail("players", f"{players!r} is not allowed; allowed: 3, 4")
    layouts = data.get("layouts", ["variable"])
    if isinstance(layouts, str):
        layouts = [layouts]
    if not isinstance(layouts, list) or not layouts:
        ctx.fail("layouts", f"expected a non-empty array; allowed: {', '.join(LAYOUTS)}")
    for i, lay in enumerate(layouts):
        if lay not in LAYOUTS:
            ctx.fail(f"layouts[{i}]", f"{lay!r} is not allowed; allowed: {', '.join(LAYOUTS)}")
    seed = _int(data.get("seed", 1), "seed", ctx, 0, 2**63 - 1, SEED_ALLOWED)
    heldout_seed = _int(data.get("heldout_seed", seed + 1_000_003), "heldout_seed", ctx, 0,
                        2**63 - 1, SEED_ALLOWED)
    if heldout_seed == seed:
        ctx.fail("heldout_seed", f"{heldout_seed} is the training seed; allowed: another seed")
    sampler = data.get("sampler", "tpe")
    if sampler not in SAMPLERS:
        ctx.fail("sampler", f"{sampler!r} is not allowed; allowed: {', '.join(SAMPLERS)}")
    storage = data.get("storage")
    if storage is not None and (not isinstance(storage, str) or "://" not in storage):
        ctx.fail("storage", f"{storage!r} is not a database URL; allowed: e.g. "
                            "sqlite:///tune.db or postgresql://host/db")
    rules_raw = _table(data.get("rules", {}), "rules", ctx, Rules.names())
    try:
        rules = Rules.from_mapping(rules_raw)
    except CatansimError as exc:
        msg = str(exc)
        raise CatansimError(f"{ctx.prefix}rules.{msg[5:] if msg.startswith('rule ') else msg}"
                            ) from None
    try:
        space = parse_space(data["params"])
    except CatansimError as exc:
        raise CatansimError(f"{ctx.prefix}{exc}") from None
    fld = _table(data.get("field", {"tables": [[strategy] * (players - 1)]}), "field", ctx,
                 ["tables"])
    tables = _tables(fld.get("tables", strategy), ctx, players, strategy_set)
    budget = _table(data["budget"], "budget", ctx, ["games", "minutes", "trials"])
    if not budget:
        ctx.fail("budget", "empty; allowed: games, minutes or trials (at least one)")
    games = (_int(budget["games"], "budget.games", ctx, 1, BUDGET_GAMES_MAX,
                  f"an integer in 1..{BUDGET_GAMES_MAX:,}") if "games" in budget else None)
    trials = (_int(budget["trials"], "budget.trials", ctx, 1, BUDGET_TRIALS_MAX,
                   f"an integer in 1..{BUDGET_TRIALS_MAX:,}") if "trials" in budget else None)
    minutes = budget.get("minutes")
    if minutes is not None and (isinstance(minutes, bool) or not isinstance(minutes, int | float)
                                or not 0 < minutes <= BUDGET_MINUTES_MAX):
        ctx.fail("budget.minutes", f"{minutes!r} is not allowed; allowed: a number > 0 and at "
                                   f"most {BUDGET_MINUTES_MAX} (a year)")
    ev = _table(data.get("evaluation", {}), "evaluation", ctx,
                ["deals", "instance", "p_threshold", "finalists", "selection_deals"])
    instance = _int(ev.get("instance", 10), "evaluation.instance", ctx, 1)
    deals = _int(ev.get("deals", 600), "evaluation.deals", ctx, instance,
                 allowed=f"an integer >= evaluation.instance ({instance})")
    if deals % instance:
        ctx.fail("evaluation.deals", f"{deals} is not a multiple of evaluation.instance "
                                     f"({instance}); allowed: a multiple of it")
    p = ev.get("p_threshold", 0.1)
    if isinstance(p, bool) or not isinstance(p, int | float) or not 0 < p <= 1:
        ctx.fail("evaluation.p_threshold", f"{p!r} is not allowed; allowed: a number in (0, 1] "
                                           "(1: no racing)")
    finalists = _int(ev.get("finalists", 5), "evaluation.finalists", ctx, 1)
    selection_deals = _int(ev.get("selection_deals", deals), "evaluation.selection_deals", ctx,
                           0)
    ho = _table(data.get("heldout", {}), "heldout", ctx, ["deals", "presets"])
    heldout_deals = _int(ho.get("deals", 2000), "heldout.deals", ctx, 1)
    presets = ho.get("presets", "all")
    if presets == "all":
        presets = [n for n in scripted if n != strategy]
    if not isinstance(presets, list):
        ctx.fail("heldout.presets", f"expected an array or \"all\"; allowed: {', '.join(scripted)}")
    for i, p_name in enumerate(presets):
        if p_name not in scripted:
            ctx.fail(f"heldout.presets[{i}]", f"unknown strategy {p_name!r}; allowed: "
                                              f"{', '.join(scripted)}")
    desc = data.get("description", "")
    if not isinstance(desc, str):
        ctx.fail("description", f"expected a string, got {type_name(desc)}; allowed: a sentence")
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
