"""One aggregation mechanism for every analysis: columns, map, combine, finish.

An ``Analysis`` names the columns it reads, a ``map`` from one chunk of games to
sufficient statistics (counts, histograms, sums: things that add up), a
``combine`` of two such statistics (default ``add_stats``) and a ``finish`` that
turns the combined statistics into the result (a DataFrame or a dict of them).

``run(analysis, source)`` and ``run_many([...], source)`` drive it over a source:

- a dataset folder (``str`` or ``Path``): one range of games at a time
  (``results.dataset.iter_game_ranges``: the part of every variant for the same
  games, so paired analyses see both arms of a game together), reading only the
  columns the analyses need; memory is that of one range whatever the number of
  games;
- in-memory frames ``(games, players)`` (e.g. from ``catansim.load``): one chunk;
- a dataset folder with ``scheduler=`` (a ``dask.distributed.Client`` or a scheduler
  address): one task per range (``dask.delayed`` semantics through
  ``Client.submit``), the maps run on the workers, the statistics are combined
  here in the same order as a local run, so the results are identical.

The statistics are integers wherever they can be (counts, histograms of integer
measures), so the order of combination cannot change a result.
"""

from __future__ import annotations

import functools
import inspect
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from ..errors import CatansimError
from ..results import dataset as D
from ..results.schema import DEFAULT_VARIANT


def add_stats(a, b):
    """Add two sufficient statistics of the same shape: numbers, arrays (padded),
    ``Hist``, pandas objects (aligned, missing as 0), lists (concatenated), dicts
    (key by key); ``None`` is the empty statistic."""
    if a is None:
        return b
    if b is None:
        return a
    if isinstance(a, dict):
        out = dict(a)
        for k, v in b.items():
            out[k] = add_stats(out.get(k), v)
        return out
    if isinstance(a, list):
        return a + b
    if isinstance(a, pd.DataFrame | pd.Series):
        if a.index.equals(b.index) and (not isinstance(a, pd.DataFrame)
                                        or a.columns.equals(b.columns)):
            return a + b
        return a.add(b, fill_value=0)
    if isinstance(a, np.ndarray):
        if a.shape == b.shape:
            return a + b
        shape = tuple(max(x, y) for x, y in zip(a.shape, b.shape, strict=True))
        out = np.zeros(shape, dtype=np.result_type(a, b))
        out[tuple(slice(0, s) for s in a.shape)] += a
        out[tuple(slice(0, s) for s in b.shape)] += b
        return out
    return a + b


@dataclass(frozen=True)
class Context:
    """What a finish needs to know about the source besides the statistics."""

    variants: tuple[str, ...]
    baseline: str
    n_players: int | None = None
    manifest: dict | None = None


@dataclass(frozen=True)
class Analysis:
    """columns + map(chunk) -> statistics + combine + finish(statistics, context)."""

    name: str
    columns: dict[str, tuple[str, ...]]
    map: Callable[[Chunk], Any]
    finish: Callable[[Any, Context], Any]
    combine: Callable[[Any, Any], Any] = add_stats
    # Raises a one-line CatansimError when the source cannot answer this analysis (a
    # baseline that is not one of its variants), before anything is read.
    check: Callable[[Context], None] | None = None


def check_variant(name: str, ctx: Context, field: str) -> None:
    """``name`` is one of the source's variants (after the ``variants`` filter)."""
    if name not in ctx.variants:
        raise CatansimError(f"{field}: {name!r} is not a variant of the source; allowed: "
                            f"{', '.join(ctx.variants) or 'none (no variant selected)'}")


def variant_check(name: str | None, field: str = "baseline"):
    """An ``Analysis.check`` for a named variant (None: the default, always there)."""
    if name is None:
        return None
    return lambda ctx: check_variant(name, ctx, field)


class Chunk:
    """The games and players rows of one range of games (every variant), with memoised
    per-game quantities that several analyses share."""

    def __init__(self, games: pd.DataFrame, players: pd.DataFrame):
        self.games = games
        self.players = players
        self._memo: dict[Any, Any] = {}

    def memo(self, key, make: Callable[[], Any]):
        if key not in self._memo:
            self._memo[key] = make()
        return self._memo[key]

    @property
    def variants(self) -> list[str]:
        """The variants present, in order of appearance."""
        def make():
            v = self.games["variant"]
            if not len(v):
                return []
            if isinstance(v.dtype, pd.CategoricalDtype):
                codes = pd.unique(v.cat.codes.to_numpy())
                return [str(v.cat.categories[c]) for c in codes if c >= 0]
            return [str(x) for x in pd.unique(v.to_numpy())]
        return self.memo("variants", make)

    def labels(self, table: str, column: str) -> np.ndarray:
        """A column as a NumPy array; a categorical one as its names (object array, NaN
        where missing), without a string conversion per row."""
        def make():
            col = (self.games if table == "games" else self.players)[column]
            if isinstance(col.dtype, pd.CategoricalDtype):
                names = np.asarray([str(c) for c in col.cat.categories] + [np.nan], dtype=object)
                return names[col.cat.codes.to_numpy()]  # code -1 -> the trailing NaN
            return col.to_numpy()
        return self.memo(("labels", table, column), make)

    def game_rows(self, variant: str) -> np.ndarray:
        """Row positions of ``variant`` in ``games``."""
        return self.memo(("g", variant), lambda: np.flatnonzero(
            (self.games["variant"] == variant).to_numpy()))

    def player_rows(self, variant: str) -> np.ndarray:
        return self.memo(("p", variant), lambda: np.flatnonzero(
            (self.players["variant"] == variant).to_numpy()))

    def per_game(self, variant: str, column: str) -> np.ndarray:
        """Sum of a players column over the seats of each game of ``variant``, aligned
        with ``games`` rows of that variant (int64)."""
        return self.memo(("sum", variant, column), lambda: self._per_game(variant, column))

    def game_of_player(self, variant: str) -> np.ndarray:
        """For each players row of ``variant``, the position of its game among the
        variant's games rows."""
        def make():
            g = self.games["game"].to_numpy()[self.game_rows(variant)]
            pg = self.players["game"].to_numpy()[self.player_rows(variant)]
            pos = np.searchsorted(g, pg)
            if g.size and (np.any(np.diff(g) < 0)
                           or np.any(g[np.minimum(pos, g.size - 1)] != pg)):
                raise CatansimError("players rows do not match the games rows (sort by game)")
            return pos
        return self.memo(("pos", variant), make)

    def _per_game(self, variant: str, column: str) -> np.ndarray:
        n = self.game_rows(variant).size
        vals = self.players[column].to_numpy()[self.player_rows(variant)]
        return np.bincount(self.game_of_player(variant), weights=vals,
                           minlength=n).astype(np.int64)


# --- sources ------------------------------------------------------------------------------


def _columns(analyses: Sequence[Analysis]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {"games": ["variant", "game"], "players": ["variant", "game"]}
    for a in analyses:
        for table, cols in a.columns.items():
            out[table] += [c for c in cols if c not in out[table]]
    return out


def _order_variants(names) -> tuple[str, ...]:
    names = [str(n) for n in names]
    if DEFAULT_VARIANT in names:
        names.remove(DEFAULT_VARIANT)
        names.insert(0, DEFAULT_VARIANT)
    return tuple(names)


def _frame_variants(games: pd.DataFrame) -> tuple[str, ...]:
    """The variants present in a games frame, in the order a context lists them."""
    v = games["variant"]
    if isinstance(v.dtype, pd.CategoricalDtype):
        present = set(v.astype(str))
        names = [c for c in v.cat.categories if c in present]
    else:
        names = list(pd.unique(v.astype(str)))
    return _order_variants(names)


def _frames_context(games: pd.DataFrame, players: pd.DataFrame,
                    names: tuple[str, ...] | None = None) -> Context:
    """The context of frames in memory; ``names``: their variants, if known already."""
    names = _frame_variants(games) if names is None else names
    n_players = None
    if "n_players" in games.columns and len(games):
        n_players = int(games["n_players"].iloc[0])
    elif "seat" in players.columns and len(players):
        n_players = int(players["seat"].max()) + 1
    return Context(names, names[0] if names else DEFAULT_VARIANT, n_players)


def _dataset_context(root: Path, variants=None) -> Context:
    m = D.read_manifest(root)
    if variants is not None:
        _check_variants(variants, tuple(m["variants"]))
    names = [v for v in m["variants"] if variants is None or v in set(variants)]
    players = m.get("result_key", {}).get("players")
    base = DEFAULT_VARIANT if DEFAULT_VARIANT in names else (names[0] if names else "")
    return Context(tuple(names), base, players, m)


def _map_all(analyses: Sequence[Analysis], games: pd.DataFrame, players: pd.DataFrame) -> list:
    chunk = Chunk(games, players)
    return [a.map(chunk) for a in analyses]


def _map_range(path: str, parts, columns, analyses) -> list:
    games, players = D.read_range(path, parts, columns)
    return _map_all(analyses, games, players)


def _client(scheduler):
    try:
        from dask.distributed import Client  # noqa: PLC0415  (the dask extra)
    except ImportError:
        raise CatansimError("scheduler: dask.distributed is not installed; "
                            "pip install 'catansim[dask]'") from None
    if isinstance(scheduler, Client):
        return scheduler, False
    try:
        return Client(scheduler, timeout="20s"), True
    except (OSError, TimeoutError) as exc:
        raise CatansimError(f"scheduler {scheduler}: cannot connect ({exc})") from None


def run_many(analyses: Sequence[Analysis], source, *, variants=None, scheduler=None,
             progress: bool = False) -> list:
    """Run several analyses over one source in a single pass; their results in order.

    Parameters
    ----------
    analyses : sequence of Analysis
    source : str, Path or (games, players)
        A dataset folder written by ``catansim run``, or the two tables in memory.
    variants : sequence of str, optional
        Only these variants (dataset sources).
    scheduler : dask.distributed.Client or str, optional
        Run the per-range maps on a Dask cluster (dataset sources only); same results.
    progress : bool
        A tqdm bar over the ranges of games.
    """
    analyses = list(analyses)
    cols = _columns(analyses)
    if isinstance(variants, str):
        variants = [variants]
    if isinstance(source, tuple | list) and len(source) == 2 and isinstance(
            source[0], pd.DataFrame):
        if scheduler is not None:
            raise CatansimError("scheduler: needs a dataset folder, not frames in memory")
        games, players = source
        for table, frame in (("games", games), ("players", players)):
            missing = [c for c in cols[table] if c not in frame.columns]
            if missing:
                raise CatansimError(f"{table}: missing columns {', '.join(missing)}")
        names = _frame_variants(games)
        if variants is not None:
            _check_variants(variants, names)
            games = games[games["variant"].isin(list(variants))]
            players = players[players["variant"].isin(list(variants))]
            names = tuple(v for v in names if v in set(variants))
        ctx = _frames_context(games, players, names)
        _check_analyses(analyses, ctx)
        games, players = _sorted(games[cols["games"]], players[cols["players"]])
        stats = _map_all(analyses, games, players)
        return [a.finish(s, ctx) for a, s in zip(analyses, stats, strict=True)]

    if not isinstance(source, str | os.PathLike):
        raise CatansimError(f"source: {type(source).__name__} given; allowed: a dataset "
                            "folder written by catansim run, or a (games, players) pair of "
                            "DataFrames")
    root = Path(source)
    if not (root / "games").is_dir():
        raise CatansimError(f"{root}: not a catansim dataset (no games/ folder); allowed: a "
                            "dataset folder written by catansim run")
    ctx = _dataset_context(root, variants)
    _check_analyses(analyses, ctx)
    ranges = D.game_ranges(root, variants)
    if not ranges:
        raise CatansimError(f"{root}: no complete parts to analyse; allowed: a dataset with "
                            "complete parts (rerun its catansim run)")
    bar = _bar(progress, len(ranges), root)
    acc: list = [None] * len(analyses)

    def fold(stats):
        for i, (a, s) in enumerate(zip(analyses, stats, strict=True)):
            acc[i] = s if acc[i] is None else a.combine(acc[i], s)
        bar.update(1)

    try:
        if scheduler is None:
            # read the next range on a thread (pyarrow decodes without the GIL) while
            # this one is mapped: two ranges in memory at most

            with ThreadPoolExecutor(max_workers=1, thread_name_prefix="catansim-read") as pool:
                pending = pool.submit(D.read_range, root, ranges[0][2], cols)
                for i in range(len(ranges)):
                    games, players = pending.result()
                    if i + 1 < len(ranges):
                        pending = pool.submit(D.read_range, root, ranges[i + 1][2], cols)
                    fold(_map_all(analyses, games, players))
                    del games, players
        else:
            client, own = _client(scheduler)
            try:
                futures = [client.submit(_map_range, str(root.resolve()), parts, cols, analyses,
                                         pure=False) for _, _, parts in ranges]
                for fut in futures:  # combined in range order, like a local run
                    fold(fut.result())
                    fut.release()
            finally:
                if own:
                    client.close()
    finally:
        bar.close()
    return [a.finish(s, ctx) for a, s in zip(analyses, acc, strict=True)]


def run(analysis: Analysis, source, *, variants=None, scheduler=None, progress: bool = False):
    """Run one analysis over a source (see ``run_many``)."""
    return run_many([analysis], source, variants=variants, scheduler=scheduler,
                    progress=progress)[0]


def _run_keywords() -> dict[str, inspect.Parameter]:
    return {name: p for name, p in inspect.signature(run_many).parameters.items()
            if p.kind is p.KEYWORD_ONLY}


def reads_source(func: Callable) -> Callable:
    """Mark a public analysis function ``func(source, ..., **kw)`` that hands ``**kw``
    on to ``run`` or ``run_many``.

    Its signature (``help``, Jupyter's ``?``) then lists run_many's keywords
    (``variants``, ``scheduler``, ``progress``) instead of ``**kw``, and an unknown
    keyword is a one-line CatansimError naming ``func`` and the keywords it takes
    (Python's own TypeError would name run_many).
    """
    sig = inspect.signature(func)
    own = [p for p in sig.parameters.values() if p.kind is not p.VAR_KEYWORD]
    names = {p.name for p in own}
    extra = [p for name, p in _run_keywords().items() if name not in names]
    allowed = sorted({p.name for p in own if p.kind is not p.POSITIONAL_ONLY}
                     | {p.name for p in extra})

    @functools.wraps(func)
    def wrapper(*args, **kw):
        unknown = [k for k in kw if k not in allowed]
        if unknown:
            raise CatansimError(f"{func.__name__}: unknown keyword argument {unknown[0]!r}; "
                                f"allowed: {', '.join(allowed)}")
        return func(*args, **kw)

    wrapper.__signature__ = sig.replace(parameters=own + extra)
    return wrapper


def _sorted(games: pd.DataFrame, players: pd.DataFrame):
    gk = [k for k in ("variant", "game") if k in games.columns]
    pk = [k for k in ("variant", "game", "seat") if k in players.columns]
    g = games.sort_values(gk, kind="stable").reset_index(drop=True)
    p = players.sort_values(pk, kind="stable").reset_index(drop=True)
    return g, p


def _check_variants(variants, names: tuple[str, ...]) -> None:
    unknown = [str(v) for v in variants if v not in names]
    if unknown:
        raise CatansimError(f"variants: {', '.join(map(repr, unknown))} not in the source; "
                            f"allowed: {', '.join(names)}")


def _check_analyses(analyses, ctx: Context) -> None:
    for a in analyses:
        if a.check is not None:
            a.check(ctx)


def _bar(progress: bool, total: int, root: Path):
    return tqdm(total=total, unit="part", desc=f"analysing {root.name}", disable=not progress,
                dynamic_ncols=True, leave=False)


@dataclass
class Accumulator:
    """Feed chunks by hand (``add(games, players)``) and finish when done: the same
    results as ``run_many`` over the concatenation of everything added."""

    analyses: Sequence[Analysis]
    stats: list = field(default_factory=list)
    _seen: list = field(default_factory=list)

    def add(self, games: pd.DataFrame, players: pd.DataFrame) -> Accumulator:
        games, players = _sorted(games, players)
        new = _map_all(self.analyses, games, players)
        if not self.stats:
            self.stats = new
        else:
            self.stats = [a.combine(s, t) for a, s, t in
                          zip(self.analyses, self.stats, new, strict=True)]
        ctx = _frames_context(games, players)
        known = {v for c in self._seen for v in c.variants}
        if not set(ctx.variants) <= known or not any(c.n_players for c in self._seen):
            self._seen.append(ctx)  # only what is new: memory stays flat over many chunks
        return self

    def context(self) -> Context:
        """The context of everything added (its variants and number of players)."""
        names: list[str] = []
        n_players = None
        for c in self._seen:
            names += [v for v in c.variants if v not in names]
            n_players = n_players or c.n_players
        names = list(_order_variants(names))
        return Context(tuple(names), names[0] if names else DEFAULT_VARIANT, n_players)

    def results(self) -> list:
        ctx = self.context()
        return [a.finish(s, ctx) for a, s in zip(self.analyses, self.stats, strict=True)]
