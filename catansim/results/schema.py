"""The result schema: every column of the games and players tables, one home.

The batch kernel returns one ``int32`` counter record per game (the ``c_*``
fields of ``core.layout.STATE_FIELDS``). The specifications below say which
columns each counter becomes, with its dtype and meaning, in the spirit of
vectorbt's ``records_readable``. ``COLUMNS`` lists every column of both tables;
``docs/results.md`` is generated from it (``python -m catansim.results``).

Column names are readable (``produced_wood``); names (strategies, variants,
layouts, end reasons) are categorical; a ``-1`` that means "none" (no winner,
never built a city) becomes ``<NA>`` in a nullable integer column.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ..board.metrics import board_features
from ..constants import DEV_CARD_NAMES, MAX_PLAYERS, RESOURCE_NAMES
from ..core import layout as L

P = MAX_PLAYERS
# The categories of the ``layout`` column, in the order stored since the first datasets:
# the layouts then known, then "given" (a fixed board). A layout added later (balanced) is
# appended to them only in the datasets that use it, so older datasets keep their dtype.
LAYOUT_CATEGORIES = ("variable", "random_numbers", "beginner", "given")


def layout_categories(layout: str) -> tuple[str, ...]:
    """The categories of the ``layout`` column of a dataset played on ``layout``."""
    return LAYOUT_CATEGORIES if layout in LAYOUT_CATEGORIES else (*LAYOUT_CATEGORIES, layout)
END_REASONS = ("win", "turn_limit")  # end_reason codes 1 and 2
DEFAULT_VARIANT = "baseline"

# --- column specifications -------------------------------------------------------
# Game-level counters: (state field, column names, dtype, meaning). "Int8" etc. are
# pandas nullable dtypes: -1 in the record becomes <NA>.
_ROLL_SUMS = tuple(range(2, 13))
_GAME_COUNTERS: tuple[tuple[str, tuple[str, ...], str, str], ...] = (
    ("c_winner", ("winner",), "Int8", "winning seat (0-based); <NA> if nobody won"),
    ("c_turns", ("turns",), "int32", "turns played (every player's turn counts; setup is 0)"),
    ("c_sevens", ("sevens",), "int32", "7s rolled"),
    ("c_rolls", tuple(f"rolls_{k}" for k in _ROLL_SUMS), "int32",
     "times the dice summed to {item}"),
    ("c_shortage_events", tuple(f"shortage_{r}" for r in RESOURCE_NAMES), "int32",
     "rolls on which {item} could not be paid in full from the supply"),
    ("c_first_shortage", tuple(f"first_shortage_{r}" for r in RESOURCE_NAMES), "Int32",
     "turn of the first roll on which {item} could not be paid in full; <NA> if never"),
    ("c_sole_recipient", tuple(f"sole_recipient_{r}" for r in RESOURCE_NAMES), "int32",
     "rolls on which {item} ran short with one player alone owed it (the official rule "
     "pays that player what is left; strict pays nobody)"),
    ("c_robber_moves", ("robber_moves",), "int32", "times the robber moved"),
    ("c_leader_chances", ("robber_leader_chances",), "int32",
     "robber moves made while an opponent of the mover led alone in visible VP (hidden VP "
     "cards not counted)"),
    ("c_robbed_leader", ("robbed_leader",), "int32",
     "robber moves whose victim led alone in visible VP at that moment"),
    ("c_withheld_leader", ("withheld_leader",), "int32",
     "cards the shortage rule withheld from the player leading alone in visible VP at that "
     "roll"),
    ("c_longest_holder", ("longest_holder",), "Int8",
     "seat holding Longest Route at the end; <NA> if nobody"),
    ("c_army_holder", ("army_holder",), "Int8",
     "seat holding Largest Army at the end; <NA> if nobody"),
    ("c_illegal", ("illegal",), "int32",
     "strategy actions the engine rejected (a strategy bug; 0 expected)"),
    ("c_violations", ("violations",), "int32",
     "invariant violations found when rules check=1 (0 expected; 0 when checks are off)"),
)
_GAME_SPECIAL = ("c_end_reason",)  # mapped to a categorical by hand

_RES = tuple(RESOURCE_NAMES)
_DEV = tuple(DEV_CARD_NAMES)
# Per-player counters (P * k slots, seat-major): (field, column names, dtype, meaning).
_PLAYER_COUNTERS: tuple[tuple[str, tuple[str, ...], str, str], ...] = (
    ("c_vp", ("vp",), "int32", "final victory points, hidden VP cards included"),
    ("c_vp_settlements", ("vp_settlements",), "int32", "VP from settlements at the end"),
    ("c_vp_cities", ("vp_cities",), "int32", "VP from cities at the end"),
    ("c_vp_longest", ("vp_longest",), "int32", "VP from Longest Route at the end (0 or 2)"),
    ("c_vp_army", ("vp_army",), "int32", "VP from Largest Army at the end (0 or 2)"),
    ("c_vp_cards", ("vp_cards",), "int32", "VP from victory point cards at the end"),
    ("c_route_len", ("route_len",), "int32", "length of the longest route at the end"),
    ("c_roads", ("roads",), "int32", "roads on the board at the end"),
    ("c_knights", ("knights",), "int32", "knights played"),
    ("c_start_nodes", ("start_node_1", "start_node_2"), "int16",
     "node of the {item} starting settlement"),
    ("c_start_pips", ("start_pips_1", "start_pips_2"), "int32",
     "pips of the land hexes at the {item} starting settlement"),
    ("c_start_cards", tuple(f"start_{r}" for r in _RES), "int32",
     "{item} cards received from the second starting settlement"),
    ("c_produced", tuple(f"produced_{r}" for r in _RES), "int32",
     "{item} cards received from production"),
    ("c_blocked", ("blocked",), "int32", "cards the robber's hex would have paid the player"),
    ("c_withheld", tuple(f"withheld_{r}" for r in _RES), "int32",
     "{item} cards owed by production but not paid because of the shortage rule"),
    ("c_stolen", ("stolen",), "int32", "cards lost to steals"),
    ("c_robbed", ("robbed",), "int32", "times chosen as the robber's victim"),
    ("c_steals", ("steals",), "int32", "cards gained by stealing"),
    ("c_discarded", ("discarded",), "int32", "cards discarded on 7s"),
    ("c_monopoly_gain", ("monopoly_gain",), "int32", "cards gained by Monopoly"),
    ("c_trades_bank", ("trades_bank",), "int32", "maritime trades (bank or harbor)"),
    ("c_trades_player", ("trades_player",), "int32", "player trades completed (either side)"),
    ("c_offers", ("offers",), "int32", "player-trade offers made"),
    ("c_dev_bought", tuple(f"dev_bought_{d}" for d in _DEV), "int32",
     "{item} development cards bought"),
    ("c_dev_played", tuple(f"dev_played_{d}" for d in _DEV), "int32",
     "{item} development cards played"),
    ("c_first_city", ("first_city_turn",), "Int32", "turn of the first city; <NA> if none"),
    ("c_first_settlement", ("first_settlement_turn",), "Int32",
     "turn of the first settlement beyond the starting two; <NA> if none"),
    ("c_vp_at", tuple(f"vp_turn_{t}" for t in L.VP_CHECKPOINTS), "Int8",
     "visible VP (hidden VP cards not counted) after turn {item}; <NA> if the game ended "
     "before that turn"),
)
_ITEM_WORDS = {"start_node_1": "first", "start_node_2": "second",
               "start_pips_1": "first", "start_pips_2": "second"}

_FEATURE_MEANINGS = {
    "pips_std": "board: population standard deviation of the five pips_<resource> values",
    "pips_max_min_ratio": "board: largest / smallest pips_<resource> (inf if one is 0)",
    "red_adjacent_pairs": "board: pairs of side-sharing hexes both showing 6 or 8",
    "same_terrain_pairs": "board: pairs of side-sharing hexes of the same terrain",
    "same_number_pairs": "board: pairs of side-sharing hexes with the same number",
    "best_node_pips": "board: pips of the best intersection",
    "top5_node_pips": "board: mean pips of the five best intersections",
    "desert_hex": "board: hex index of the desert (robber start)",
    "desert_ring": "board: ring of the desert (0 centre, 2 coast)",
}
_FEATURE_PATTERNS = (
    ("harbor_node_pips_", "board: pips of the better intersection at the {item} 2:1 harbor"),
    ("harbor_match_pips_", "board: pips of {item} hexes touching the {item} 2:1 harbor"),
    ("pips_", "board: pips of all hexes producing {item}"),
)


def _feature_meaning(name: str) -> str:
    if name in _FEATURE_MEANINGS:
        return _FEATURE_MEANINGS[name]
    for prefix, text in _FEATURE_PATTERNS:
        if name.startswith(prefix):
            return text.format(item=name[len(prefix):])
    # a developer's mistake (a new feature without a meaning), found when the schema loads
    raise RuntimeError(f"board feature {name!r} has no documented meaning in catansim.results")


def _item_text(col: str, names: tuple[str, ...], template: str) -> str:
    if "{item}" not in template:
        return template
    if col in _ITEM_WORDS:
        return template.format(item=_ITEM_WORDS[col])
    item = col.rsplit("_", 1)[-1]
    for prefix in ("rolls_", "dev_bought_", "dev_played_"):
        if col.startswith(prefix):
            item = col[len(prefix):]
    return template.format(item=item)


def feature_dtypes() -> dict[str, str]:
    feats = board_features(np.zeros((1, L.BOARD_SIZE), dtype=np.int32))
    return {k: str(v.dtype) for k, v in feats.items()}


def _columns_table() -> pd.DataFrame:
    rows = [
        ("games", "game", "int64", "game index in the run (0-based); seeds and parts follow it"),
        ("games", "seed", "int64",
         "the game's own seed: `catansim play --seed SEED` with the same settings replays it"),
        ("games", "variant", "category", "variant name (`baseline` unless the experiment has "
         "variants); all variants play the same seeds"),
        ("games", "board_id", "int64", "stable 63-bit id of the board (`boards.board_ids`)"),
        ("games", "layout", "category", "variable, random_numbers, balanced (a board per game), "
         "beginner or given (one fixed board, or the boards of a board set)"),
        ("games", "n_players", "int8", "seats playing (3 or 4)"),
    ]
    for p in range(P):
        rows.append(("games", f"strategy_{p}", "category",
                     f"strategy at seat {p}; NaN if the seat is unused"))
    rows.append(("games", "end_reason", "category", "win or turn_limit (max_turns reached)"))
    for field, cols, dtype, meaning in _GAME_COUNTERS:
        for c in cols:
            rows.append(("games", c, dtype, _item_text(c, cols, meaning)))
        if field == "c_winner":
            rows.append(("games", "winner_strategy", "category",
                         "strategy of the winning seat; NaN if nobody won"))
    for name, dtype in feature_dtypes().items():
        rows.append(("games", name, dtype, _feature_meaning(name)))
    rows += [
        ("players", "game", "int64", "game index in the run (joins games.game)"),
        ("players", "seed", "int64", "the game's own seed"),
        ("players", "variant", "category", "variant name (joins games.variant)"),
        ("players", "seat", "int8", "seat (0-based, seat 0 starts)"),
        ("players", "strategy", "category", "strategy playing the seat"),
        ("players", "won", "bool", "True if this seat won the game"),
    ]
    for _, cols, dtype, meaning in _PLAYER_COUNTERS:
        for c in cols:
            rows.append(("players", c, dtype, _item_text(c, cols, meaning)))
    return pd.DataFrame(rows, columns=["table", "name", "dtype", "meaning"])


COLUMNS: pd.DataFrame = _columns_table()


def category_columns(table: str) -> tuple[str, ...]:
    """The categorical columns of ``table`` (``games`` or ``players``), from ``COLUMNS``."""
    rows = COLUMNS[(COLUMNS.table == table) & (COLUMNS.dtype == "category")]
    return tuple(rows["name"])


def covered_fields() -> set[str]:
    """The counter fields (``c_*``) that appear in the result tables."""
    return ({f for f, *_ in _GAME_COUNTERS} | {f for f, *_ in _PLAYER_COUNTERS}
            | set(_GAME_SPECIAL))


def render_docs() -> str:
    """The Markdown text of ``docs/results.md`` (generated from ``COLUMNS``)."""
    out = [
        "# Result tables",
        "",
        "<!-- Generated by `python -m catansim.results`; do not edit by hand. -->",
        "",
        "A run writes two tables (`catansim.load(path)` returns both as pandas",
        "DataFrames): **games**, one row per game, and **players**, one row per seat",
        "that played in each game (`n_games * n_players` rows; unused seats of",
        "3-player games have no rows). They join on `(variant, game)`.",
        "",
        "Names are categorical. `Int8`/`Int32` are pandas nullable integers: `<NA>`",
        "stands for \"none\" (no winner, no holder, never built). Seats are 0-based",
        "and seat 0 starts. Resources: " + ", ".join(RESOURCE_NAMES) + "; development "
        "cards: " + ", ".join(DEV_CARD_NAMES) + ".",
        "",
        "On disk (`catansim run`) each part of each table is one Parquet file with",
        "these dtypes in its pandas metadata and a `catansim` metadata key (experiment,",
        "seeds, game range, engine fingerprint). Compression is zstd at level 1. `game`",
        "is delta encoded; `seed` and `board_id` are plain (random 63-bit values, which no",
        "encoding makes smaller); the other integer columns are split into byte streams",
        "(`BYTE_STREAM_SPLIT`: as small as dictionaries, faster to write and to read; it",
        "needs a reader of Parquet 2.11 integers, such as pyarrow 16 or later); names and",
        "floats are dictionary encoded.",
        "",
        "## The dataset folder",
        "",
        "```",
        "manifest.json                                  the run: experiment, settings, engine",
        "parts.jsonl                                    one record per complete part",
        "games/part-<variant>-<start>-<stop>.parquet    one row per game",
        "players/part-<variant>-<start>-<stop>.parquet  one row per seat per game",
        "```",
        "",
        "A part holds the games `start .. stop-1` (zero-padded to 12 digits) of one",
        "variant. **A part is complete exactly when `parts.jsonl` holds its record**: one",
        "JSON line with, for each of its two files, the row count, the size in bytes and",
        "the SHA-256, and the engine fingerprint that played it. A run writes each file",
        "to a hidden temporary file, flushes it to disk and renames it into place, then",
        "appends the record and flushes it; the manifest is replaced atomically. A run",
        "killed at any moment (kill -9 included) leaves complete parts and at worst a",
        "temporary file, part files without a record or a torn last line of",
        "`parts.jsonl`, which readers ignore and the next run removes. Appending a line",
        "per part keeps its cost constant however many parts a dataset holds. Before it",
        "starts, a run estimates the dataset's size (the bytes per game of its own parts,",
        "else 130 bytes a game) and refuses, naming the size and the free space, when the",
        "disk cannot hold it; `--force` starts anyway (a full disk stops the run, which",
        "resumes).",
        "",
        "The manifest holds `format_version` (2), the experiment file's text, the",
        "settings that decide every game (`result_key` and its SHA-256 `result_hash`),",
        "`engine_fingerprint` (`catansim.core.engine_fingerprint()`: a hash of the",
        "compiled core's code), `games_digest` (`catansim.engine.games_digest()`: a hash",
        "of the results of a fixed set of games, so that equal digests say the same",
        "games from newer code), `catansim_version`, `games`, `batch_size`, `players`",
        "and the variants. A run resumes a dataset only with the same settings (a refusal",
        "names each key that changed, e.g. `variants.baseline.rules.robber: 'official' ->",
        "'friendly'`) and the same engine fingerprint (a refusal names both).",
        "",
        "Checks. Readers (`catansim.load`, `iter_parts`, `complete_parts`) take no lock",
        "and write nothing, so a dataset on a read-only file system reads as any other;",
        "they check each recorded file's size and, when they read it, its row count and",
        "the range of its `game` values (the footer's min and max: a file of another part",
        "of the same size is caught). A part that fails is named in a `CatansimWarning`",
        "and left out, as are records that do not fit the manifest (its `games` cut, say).",
        "Every manifest field a reader uses is checked (`games` and `batch_size` >= 1,",
        "`variants` a non-empty list of names); a malformed line of `parts.jsonl` is a",
        "missing part, played again by the next run. `variants=` takes a name or a list of",
        "names of the dataset. Files are opened by Python, so a folder whose name is not",
        "UTF-8 reads as any other. `catansim verify",
        "DATASET` (`catansim.results.dataset.verify`) also checks every SHA-256 and exits",
        "non-zero naming the first bad file; a run that resumes a dataset checks every",
        "part in full and plays the bad ones again, with a warning naming each.",
        "",
        "Datasets written before the records (format version 1) still read: a part is",
        "complete when both its files exist, and both tables' rows and game ranges are",
        "checked (by `load` and `verify`). A run refuses to resume them (they carry no",
        "engine fingerprint); use a new `--out`.",
        "",
    ]
    for table in ("games", "players"):
        out += [f"## {table}", "", "| column | dtype | meaning |", "|---|---|---|"]
        for row in COLUMNS[COLUMNS.table == table].itertuples():
            out.append(f"| `{row.name}` | {row.dtype} | {row.meaning} |")
        out.append("")
    return "\n".join(out)


DOCS_PATH = Path(__file__).resolve().parents[2] / "docs" / "results.md"
