"""The headline measures: per game and per seat, with the columns each one reads.

A per-game measure is one integer per game (``turns``, ``rolls``, cards stolen
at the table, ...); a per-seat measure is one integer per seat per game (``vp``,
cards produced by the seat, ...). Game anatomy summarises them, paired variant
comparisons difference them game by game.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..constants import DEV_CARD_NAMES, RESOURCE_NAMES
from .driver import Chunk

RES = tuple(RESOURCE_NAMES)
DEV = tuple(DEV_CARD_NAMES)
ROLL_COLS = tuple(f"rolls_{k}" for k in range(2, 13))
SHORTAGE_COLS = tuple(f"shortage_{r}" for r in RES)
PRODUCED_COLS = tuple(f"produced_{r}" for r in RES)
START_COLS = tuple(f"start_{r}" for r in RES)
WITHHELD_COLS = tuple(f"withheld_{r}" for r in RES)
BOUGHT_COLS = tuple(f"dev_bought_{d}" for d in DEV)
PLAYED_COLS = tuple(f"dev_played_{d}" for d in DEV)
VP_SOURCES = ("vp_settlements", "vp_cities", "vp_longest", "vp_army", "vp_cards")


@dataclass(frozen=True)
class Measure:
    """An integer measure: its name, what it is (with its unit), the columns it adds up."""

    name: str
    label: str
    table: str  # where its columns are: games or players
    columns: tuple[str, ...]
    halve: bool = False  # each event counted on two seats (player trades)


GAME_MEASURES: tuple[Measure, ...] = (
    Measure("turns", "turns per game (every player's turn counts)", "games", ("turns",)),
    Measure("rolls", "dice rolls per game", "games", ROLL_COLS),
    Measure("sevens", "7s rolled per game", "games", ("sevens",)),
    Measure("robber_moves", "robber moves per game", "games", ("robber_moves",)),
    Measure("produced", "resource cards produced per game (all seats)", "players",
            PRODUCED_COLS),
    Measure("trades_bank", "maritime trades per game (bank or harbor)", "players",
            ("trades_bank",)),
    Measure("trades_player", "player trades per game", "players", ("trades_player",),
            halve=True),
    Measure("stolen", "cards stolen per game", "players", ("stolen",)),
    Measure("discarded", "cards discarded on 7s per game", "players", ("discarded",)),
    Measure("blocked", "cards blocked by the robber per game", "players", ("blocked",)),
    Measure("shortage_rolls", "rolls with a supply shortage per game (summed over resources)",
            "games", SHORTAGE_COLS),
    Measure("withheld", "cards withheld by the shortage rule per game", "players",
            WITHHELD_COLS),
    Measure("monopoly_gain", "cards taken by Monopoly per game", "players", ("monopoly_gain",)),
    Measure("dev_bought", "development cards bought per game", "players", BOUGHT_COLS),
    Measure("dev_played", "development cards played per game", "players", PLAYED_COLS),
)

SEAT_MEASURES: tuple[Measure, ...] = (
    Measure("vp", "final VP", "players", ("vp",)),
    *(Measure(c, f"VP from {c[3:]}", "players", (c,)) for c in VP_SOURCES),
    Measure("cards_received", "resource cards received from production and the starting "
            "settlement", "players", PRODUCED_COLS + START_COLS),
    Measure("produced", "resource cards produced", "players", PRODUCED_COLS),
    Measure("steals", "cards gained by stealing", "players", ("steals",)),
    Measure("stolen", "cards lost to steals", "players", ("stolen",)),
    Measure("discarded", "cards discarded on 7s", "players", ("discarded",)),
    Measure("blocked", "cards blocked by the robber", "players", ("blocked",)),
    Measure("withheld", "cards withheld by the shortage rule", "players", WITHHELD_COLS),
    Measure("trades_bank", "maritime trades", "players", ("trades_bank",)),
    Measure("trades_player", "player trades", "players", ("trades_player",)),
    Measure("dev_bought", "development cards bought", "players", BOUGHT_COLS),
    Measure("dev_played", "development cards played", "players", PLAYED_COLS),
    Measure("knights", "knights played", "players", ("knights",)),
    Measure("route_len", "longest route at the end", "players", ("route_len",)),
)

GAME_MEASURE = {m.name: m for m in GAME_MEASURES}
SEAT_MEASURE = {m.name: m for m in SEAT_MEASURES}


def columns_of(measures) -> dict[str, tuple[str, ...]]:
    """The games and players columns a set of measures reads."""
    g: list[str] = []
    p: list[str] = []
    for m in measures:
        target = g if m.table == "games" else p
        target += [c for c in m.columns if c not in target]
    return {"games": tuple(g), "players": tuple(p)}


def game_values(chunk: Chunk, variant: str, m: Measure) -> np.ndarray:
    """One integer per game of ``variant`` in the chunk (games-row order)."""
    def make():
        if m.table == "games":
            rows = chunk.game_rows(variant)
            out = np.zeros(rows.size, dtype=np.int64)
            for c in m.columns:
                out += chunk.games[c].to_numpy()[rows].astype(np.int64)
        else:
            out = sum(chunk.per_game(variant, c) for c in m.columns)
        return out // 2 if m.halve else out
    return chunk.memo(("game_measure", variant, m.name), make)


def seat_values(chunk: Chunk, variant: str, m: Measure) -> np.ndarray:
    """One integer per seat-row of ``variant`` in the chunk (players-row order)."""
    def make():
        rows = chunk.player_rows(variant)
        out = np.zeros(rows.size, dtype=np.int64)
        for c in m.columns:
            out += chunk.players[c].to_numpy()[rows].astype(np.int64)
        return out
    return chunk.memo(("seat_measure", variant, m.name), make)
