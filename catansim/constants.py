"""Game constants: resources, terrains, development cards, costs, piece limits.

Everything here is plain Python ints and tuples, so Numba kernels see them as
compile-time constants. Names follow the 6th edition (wood, wheat, Longest
Route, Invention). Enums are NamedTuple instances of ints (vectorbt style): they
read well in Python and fold to constants inside Numba.
"""

from __future__ import annotations

from typing import NamedTuple

MAX_PLAYERS = 4
N_RESOURCES = 5
N_HEXES = 19
N_NODES = 54
N_EDGES = 72
N_HARBORS = 9
N_DEV_CARDS = 25


class ResourceT(NamedTuple):
    wood: int = 0
    brick: int = 1
    wool: int = 2
    wheat: int = 3
    ore: int = 4


Resource = ResourceT()
RESOURCE_NAMES = ("wood", "brick", "wool", "wheat", "ore")


class TerrainT(NamedTuple):
    forest: int = 0  # wood
    hills: int = 1  # brick
    pasture: int = 2  # wool
    fields: int = 3  # wheat
    mountains: int = 4  # ore
    desert: int = 5


Terrain = TerrainT()
TERRAIN_NAMES = ("forest", "hills", "pasture", "fields", "mountains", "desert")
# Terrain code t < 5 produces resource t; the desert produces nothing.
TERRAIN_RESOURCE = (0, 1, 2, 3, 4, -1)
# 4 forest, 3 hills, 4 pasture, 4 fields, 3 mountains, 1 desert.
TERRAIN_COUNTS = (4, 3, 4, 4, 3, 1)


class DevCardT(NamedTuple):
    knight: int = 0
    victory_point: int = 1
    road_building: int = 2
    invention: int = 3
    monopoly: int = 4


DevCard = DevCardT()
# Plain ints for the kernels (Numba folds module-level ints to constants).
KNIGHT = DevCard.knight
VICTORY_POINT = DevCard.victory_point
ROAD_BUILDING = DevCard.road_building
INVENTION = DevCard.invention
MONOPOLY = DevCard.monopoly
DESERT = Terrain.desert
DEV_CARD_NAMES = ("knight", "victory_point", "road_building", "invention", "monopoly")
DEV_CARD_COUNTS = (14, 5, 2, 2, 2)

# Harbor kinds: 0..4 is a 2:1 harbor of that resource, 5 is a generic 3:1 harbor.
HARBOR_ANY = 5
HARBOR_KIND_NAMES = RESOURCE_NAMES + ("any",)
# One 2:1 harbor per resource and four generic 3:1 harbors.
HARBOR_KINDS_STANDARD = (0, 1, 2, 3, 4, 5, 5, 5, 5)

# Number discs in the 6th-edition A-R order, laid counter-clockwise in a spiral.
NUMBER_DISCS_AR = (5, 2, 6, 3, 8, 10, 9, 12, 11, 4, 8, 10, 9, 4, 5, 6, 3, 11)
# Pips: number of ways two dice roll n (0 for the desert / no number).
PIPS = (0, 0, 1, 2, 3, 4, 5, 0, 5, 4, 3, 2, 1)

# Building costs, as bundles in resource order (wood, brick, wool, wheat, ore).
COST_ROAD = (1, 1, 0, 0, 0)
COST_SETTLEMENT = (1, 1, 1, 1, 0)
COST_CITY = (0, 0, 0, 2, 3)
COST_DEV_CARD = (0, 0, 1, 1, 1)
# The same as one flat table for the kernels: COSTS[5 * kind + resource], by build kind.
BUILD_ROAD = 0
BUILD_SETTLEMENT = 1
BUILD_CITY = 2
BUILD_DEV_CARD = 3
N_BUILD_KINDS = 4
COSTS = COST_ROAD + COST_SETTLEMENT + COST_CITY + COST_DEV_CARD

# Pieces per player.
ROADS_PER_PLAYER = 15
SETTLEMENTS_PER_PLAYER = 5
CITIES_PER_PLAYER = 4

# Bonus tiles.
LONGEST_ROUTE_MIN = 5
LARGEST_ARMY_MIN = 3
BONUS_TILE_VP = 2

# Colours used for seats (beginner board: red is left out with 3 players).
SEAT_COLOURS_4 = ("red", "blue", "white", "orange")
SEAT_COLOURS_3 = ("blue", "white", "orange")


def seat_colours(n_players: int) -> tuple[str, ...]:
    """Colour of each seat: red, blue, white, orange; red sits out with 3 players."""
    return SEAT_COLOURS_4 if n_players == 4 else SEAT_COLOURS_3
