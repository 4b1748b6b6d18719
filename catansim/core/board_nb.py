"""Layout generators: fill a board vector (``int32[BOARD_SIZE]``) from a game's board stream.

These only accept NumPy arrays and other Numba-compatible types. Topology tables
come in through the flat ``topo`` array (``catansim.topology.TOPO``, offsets
``T_*``); randomness comes only from stream ``STREAM_BOARD`` of the game's ``rng``
(filled by ``seed_streams_nb``), so a game with seed S gets the same board as
``catansim.board.make_board(layout, S)``.

Board vector layout (``catansim.core.layout``): ``B_TERRAIN`` terrain code per
hex [19], ``B_NUMBER`` number disc per hex, 0 for the desert [19], ``B_HARBOR``
harbor kind per slot (0-4 2:1 of that resource, 5 generic 3:1) [9].

Order of draws from the board stream (part of the reproducibility contract; do
not reorder): variable -- terrain shuffle, spiral corner, harbor shuffle;
random numbers -- (terrain shuffle, number shuffle) repeated until no two red
numbers touch, then harbor shuffle.
"""


from ..constants import (
    DESERT,
    HARBOR_KINDS_STANDARD,
    N_HARBORS,
    N_HEXES,
    NUMBER_DISCS_AR,
    TERRAIN_COUNTS,
)
from ..topology import T_HEX_NEIGHBOURS, T_SPIRALS
from .jit import kernel
from .layout import B_HARBOR, B_NUMBER, B_TERRAIN, LAYOUT_RANDOM_NUMBERS, LAYOUT_VARIABLE
from .rng_nb import STREAM_BOARD, randint_nb, shuffle_nb

N_CORNERS = 6
N_DISCS = 18


@kernel
def _shuffle_terrains_nb(rng, board):
    """Lay the 19 terrain hexes (4F 3H 4P 4G 3M 1D) in a uniformly random order.

    Returns the index of the desert hex.
    """
    k = 0
    for t in range(6):
        for _ in range(TERRAIN_COUNTS[t]):
            board[B_TERRAIN + k] = t
            k += 1
    shuffle_nb(rng, STREAM_BOARD, board[B_TERRAIN : B_TERRAIN + N_HEXES], N_HEXES)
    desert = 0
    for h in range(N_HEXES):
        if board[B_TERRAIN + h] == DESERT:
            desert = h
    return desert


@kernel
def _shuffle_harbors_nb(rng, board):
    """Lay the 9 harbor kinds (one 2:1 per resource, four 3:1) over the 9 slots."""
    for i in range(N_HARBORS):
        board[B_HARBOR + i] = HARBOR_KINDS_STANDARD[i]
    shuffle_nb(rng, STREAM_BOARD, board[B_HARBOR : B_HARBOR + N_HARBORS], N_HARBORS)


@kernel
def red_numbers_adjacent_nb(topo, board):
    """True if two hexes showing a red number (6 or 8) share a side."""
    for h in range(N_HEXES):
        n = board[B_NUMBER + h]
        if n != 6 and n != 8:
            continue
        for k in range(6):
            g = topo[T_HEX_NEIGHBOURS + 6 * h + k]
            if g > h:
                m = board[B_NUMBER + g]
                if m == 6 or m == 8:
                    return True
    return False


@kernel
def variable_board_nb(rng, topo, board):
    """6th-edition variable set-up.

    Terrains are shuffled over the 19 hexes; the number discs are laid in A-R
    order (``NUMBER_DISCS_AR``) along the counter-clockwise spiral that starts at
    a uniformly random corner (``topo`` spirals), skipping the desert; the 9
    harbor kinds are shuffled over the 9 harbor slots.

    Parameters
    ----------
    rng : uint64[N_STREAMS]
        The game's stream states; only ``STREAM_BOARD`` is advanced.
    topo : int32[TOPO_SIZE]
        Flat topology tables (``catansim.topology.TOPO``).
    board : int32[BOARD_SIZE]
        Output board vector, overwritten.
    """
    _shuffle_terrains_nb(rng, board)
    corner = randint_nb(rng, STREAM_BOARD, N_CORNERS)
    j = 0
    for i in range(N_HEXES):
        h = topo[T_SPIRALS + N_HEXES * corner + i]
        if board[B_TERRAIN + h] == DESERT:
            board[B_NUMBER + h] = 0
        else:
            board[B_NUMBER + h] = NUMBER_DISCS_AR[j]
            j += 1
    _shuffle_harbors_nb(rng, board)


@kernel
def random_numbers_board_nb(rng, topo, board):
    """5th-edition variant: terrains and numbers shuffled, no two red numbers touching.

    Terrains and the 18 number discs are shuffled together and the whole hex
    layout is redrawn until no two 6/8 hexes are adjacent. Rejecting the whole
    draw (not only the numbers) makes every valid (terrain, number) layout equally
    likely, even though the desert's position changes how often a draw is valid.
    Harbors are then shuffled over the 9 slots.

    Parameters
    ----------
    rng : uint64[N_STREAMS]
        The game's stream states; only ``STREAM_BOARD`` is advanced.
    topo : int32[TOPO_SIZE]
        Flat topology tables (``catansim.topology.TOPO``).
    board : int32[BOARD_SIZE]
        Output board vector, overwritten.
    """
    numbers = board[B_NUMBER : B_NUMBER + N_HEXES]
    while True:
        desert = _shuffle_terrains_nb(rng, board)
        for i in range(N_DISCS):
            numbers[i] = NUMBER_DISCS_AR[i]
        shuffle_nb(rng, STREAM_BOARD, numbers, N_DISCS)
        # Open a gap at the desert: discs keep their shuffled order over the other hexes.
        for h in range(N_HEXES - 1, desert, -1):
            numbers[h] = numbers[h - 1]
        numbers[desert] = 0
        if not red_numbers_adjacent_nb(topo, board):
            break
    _shuffle_harbors_nb(rng, board)


@kernel
def generate_board_nb(layout_code, rng, topo, board):
    """Fill ``board`` for ``layout_code`` (``LAYOUT_*``); ``LAYOUT_GIVEN`` leaves it unchanged."""
    if layout_code == LAYOUT_VARIABLE:
        variable_board_nb(rng, topo, board)
    elif layout_code == LAYOUT_RANDOM_NUMBERS:
        random_numbers_board_nb(rng, topo, board)
