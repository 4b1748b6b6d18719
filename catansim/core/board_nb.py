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
numbers touch, then harbor shuffle; balanced -- variable draws repeated until the
fairness index accepts one.

The fairness index (``fairness_index_nb``) scores a board alone: it replays the
snake set-up of default players on it (``draft_nb``), describes each seat's two
settlements (``opening_features_nb``) and predicts each seat's win rate with a
linear model fitted on simulated games (``FAIRNESS_COEF_4P``/``_3P``, study
``seats-and-boards``); the index is the root-mean-square distance of the
predicted win rates from the fair share 1 / players.
"""


import math

from ..constants import (
    DESERT,
    HARBOR_ANY,
    HARBOR_KINDS_STANDARD,
    N_HARBORS,
    N_HEXES,
    N_NODES,
    NUMBER_DISCS_AR,
    PIPS,
    TERRAIN_COUNTS,
)
from ..topology import (
    T_HARBOR_NODES,
    T_HEX_NEIGHBOURS,
    T_NODE_HEXES,
    T_NODE_NEIGHBOURS,
    T_SPIRALS,
)
from .jit import kernel
from .layout import (
    B_HARBOR,
    B_NUMBER,
    B_TERRAIN,
    LAYOUT_BALANCED,
    LAYOUT_RANDOM_NUMBERS,
    LAYOUT_VARIABLE,
)
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


# --- the fairness index ---------------------------------------------------------------------

# The reference draft: the set-up placement weights of the default preset
# (placement_nb.node_score_nb outside the game) when the index was fitted. They are
# part of the index, not a link to the preset: retuning the preset leaves them alone.
DRAFT_PIPS = 1.0
DRAFT_DIVERSITY = 1.15
DRAFT_SCARCITY = 0.45
DRAFT_HARBOR = 0.55
DRAFT_COMPLEMENT = 2.1
DRAFT_TARGET = (1.0, 1.0, 0.9, 1.25, 1.15)

# What the index knows of a seat's two starting settlements (``opening_features_nb``).
OPENING_FEATURES = (
    "pips_wood", "pips_brick", "pips_wool", "pips_wheat", "pips_ore",  # pips by resource
    "kinds",  # distinct resources
    "numbers",  # distinct numbers
    "harbors",  # settlements on a harbor
    "harbor_match",  # on a 2:1 harbor of a resource the seat produces
    "wood_brick",  # min(wood pips, brick pips): roads and settlements
    "wheat_ore",  # min(wheat pips, ore pips): cities and development cards
    "expansion_best",  # pips of the best spot two roads away, still open after the draft
    "expansion_spots",  # open spots two roads away
)
N_FEATURES = 13

# Linear model of a seat's win rate on a board: seat intercepts, then one weight per
# opening feature, applied to the seat's features minus the table's mean. Fitted by the
# study seats-and-boards (OLS, four default players, 100 games per board) on the 8,000
# training boards of boards-4p and the 4,000 of boards-3p; every fifth board was held
# out to check it (docs/boards.md, results/seats-and-boards/).
FAIRNESS_COEF_4P = (0.26031, 0.24799, 0.24617, 0.24554,
                    0.03229, 0.03670, 0.03529, 0.04170, 0.04321, 0.04928, -0.01647, 0.03719,
                    0.01573, 0.01501, 0.03563, 0.01208, 0.01480)
FAIRNESS_COEF_3P = (0.33512, 0.32786, 0.33702,
                    0.03696, 0.04193, 0.04410, 0.04877, 0.04521, 0.06749, -0.02802, 0.05499,
                    -0.00843, 0.02366, 0.04331, 0.02443, 0.01405)
# The balanced layout keeps a variable board when its index is at most this (win-rate
# points, RMS over the seats), and gives up after BALANCED_MAX_DRAWS draws (keeping the last).
BALANCED_MAX_SPREAD = 0.04
BALANCED_MAX_DRAWS = 100000

# Scratch (float64[BOARD_SCRATCH]) of the index kernels.
X_NRP = 0  # [54 * 5] pips of each node by resource
X_BASE = X_NRP + 5 * N_NODES  # [54] the draft's score of each node before complements and harbors
X_FREE = X_BASE + N_NODES  # [54] 1 while the Distance Rule allows a settlement
X_NHARB = X_FREE + N_NODES  # [54] harbor kind at each node, -1 none
X_SCAR = X_NHARB + N_NODES  # [5] scarcity factor of each resource
X_PICK = X_SCAR + 5  # [8] the draft: node of (seat, first or second settlement)
X_FEAT = X_PICK + 8  # [4 * N_FEATURES] opening features by seat
X_PRED = X_FEAT + 4 * N_FEATURES  # [4] predicted win rate by seat
X_NMASK = X_PRED + 4  # [54] resources at each node (bit r)
BOARD_SCRATCH = X_NMASK + N_NODES

_BITS5 = tuple(bin(i).count("1") for i in range(32))


@kernel
def _prepare_nb(topo, board, x):
    """Node pips by resource, harbors, scarcity and the draft's base scores; all nodes open."""
    for r in range(5):
        x[X_SCAR + r] = 0.0
    total = 0.0
    for h in range(N_HEXES):
        t = board[B_TERRAIN + h]
        if t != DESERT:
            pips = PIPS[board[B_NUMBER + h]]
            x[X_SCAR + t] += pips
            total += pips
    mean = total / 5.0
    for r in range(5):
        f = mean / x[X_SCAR + r] if x[X_SCAR + r] > 0 else 2.0
        f = min(2.0, max(0.5, f))
        x[X_SCAR + r] = f**DRAFT_SCARCITY
    for n in range(N_NODES):
        x[X_FREE + n] = 1.0
        x[X_NHARB + n] = -1.0
        for r in range(5):
            x[X_NRP + 5 * n + r] = 0.0
        prod = 0.0
        mask = 0
        for k in range(3):
            h = topo[T_NODE_HEXES + 3 * n + k]
            if h < 0:
                continue
            t = board[B_TERRAIN + h]
            if t == DESERT:
                continue
            pips = PIPS[board[B_NUMBER + h]]
            x[X_NRP + 5 * n + t] += pips
            prod += pips * DRAFT_TARGET[t] * x[X_SCAR + t]
            mask |= 1 << t
        x[X_BASE + n] = DRAFT_PIPS * prod + DRAFT_DIVERSITY * _BITS5[mask]
        x[X_NMASK + n] = mask
    for slot in range(N_HARBORS):
        for j in range(2):
            x[X_NHARB + topo[T_HARBOR_NODES + 2 * slot + j]] = board[B_HARBOR + slot]


@kernel
def draft_nb(topo, board, n_players, x):
    """The reference draft: the snake set-up (seat 0 first) of default players, replayed
    from the board alone; writes the nodes into ``x[X_PICK:X_PICK+8]`` (seat-major,
    first settlement then second) and leaves the open nodes in ``x[X_FREE:]``."""
    _prepare_nb(topo, board, x)
    for i in range(8):
        x[X_PICK + i] = -1.0
    for step in range(2 * n_players):
        second = step >= n_players
        p = 2 * n_players - 1 - step if second else step
        first = int(x[X_PICK + 2 * p]) if second else -1
        produced = int(x[X_NMASK + first]) if second else 0
        owned = int(x[X_NHARB + first]) if second else -1
        best = -1
        best_v = -1e18
        for n in range(N_NODES):
            if x[X_FREE + n] == 0.0:
                continue
            v = x[X_BASE + n]
            if produced != 0:
                v += DRAFT_COMPLEMENT * _BITS5[int(x[X_NMASK + n]) & ~produced & 31]
            kind = int(x[X_NHARB + n])
            if kind >= 0 and kind != owned:
                if kind == HARBOR_ANY:
                    hv = 1.0
                else:
                    # a 2:1 harbor is worth what the seat (and this node) produce of it
                    hv = (x[X_NRP + 5 * first + kind] if second else 0.0) / 4.0
                    for k in range(3):
                        h = topo[T_NODE_HEXES + 3 * n + k]
                        if h >= 0 and board[B_TERRAIN + h] == kind:
                            hv += PIPS[board[B_NUMBER + h]] / 4.0
                v += DRAFT_HARBOR * hv
            if v > best_v:
                best_v = v
                best = n
        x[X_PICK + 2 * p + (1 if second else 0)] = best
        x[X_FREE + best] = 0.0
        for k in range(3):
            m = topo[T_NODE_NEIGHBOURS + 3 * best + k]
            if m >= 0:
                x[X_FREE + m] = 0.0


@kernel
def opening_features_nb(topo, board, n_players, x):
    """Each seat's ``OPENING_FEATURES`` after ``draft_nb``, into ``x[X_FEAT:]`` (seat-major)."""
    for p in range(n_players):
        f = X_FEAT + N_FEATURES * p
        a = int(x[X_PICK + 2 * p])
        c = int(x[X_PICK + 2 * p + 1])
        kinds = 0
        for r in range(5):
            x[f + r] = x[X_NRP + 5 * a + r] + x[X_NRP + 5 * c + r]
            if x[f + r] > 0:
                kinds += 1
        x[f + 5] = kinds
        numbers = 0
        harbors = 0
        match = 0
        for node in (a, c):
            for k in range(3):
                h = topo[T_NODE_HEXES + 3 * node + k]
                if h >= 0 and board[B_NUMBER + h] > 0:
                    numbers |= 1 << board[B_NUMBER + h]
            kind = int(x[X_NHARB + node])
            if kind >= 0:
                harbors += 1
                if kind != HARBOR_ANY and x[f + kind] > 0:
                    match += 1
        count = 0
        for v in range(13):
            if (numbers >> v) & 1:
                count += 1
        x[f + 6] = count
        x[f + 7] = harbors
        x[f + 8] = match
        x[f + 9] = min(x[f + 0], x[f + 1])
        x[f + 10] = min(x[f + 3], x[f + 4])
        seen = 0
        spots = 0
        best = 0.0
        for node in (a, c):
            for k in range(3):
                m1 = topo[T_NODE_NEIGHBOURS + 3 * node + k]
                if m1 < 0:
                    continue
                for j in range(3):
                    m2 = topo[T_NODE_NEIGHBOURS + 3 * m1 + j]
                    if m2 < 0 or m2 == node or x[X_FREE + m2] == 0.0 or (seen >> m2) & 1:
                        continue
                    seen |= 1 << m2
                    spots += 1
                    pips = 0.0
                    for r in range(5):
                        pips += x[X_NRP + 5 * m2 + r]
                    best = max(best, pips)
        x[f + 11] = best
        x[f + 12] = spots


@kernel
def predict_seats_nb(n_players, x):
    """Each seat's predicted win rate into ``x[X_PRED:]`` (after ``opening_features_nb``)."""
    for p in range(n_players):
        v = FAIRNESS_COEF_4P[p] if n_players == 4 else FAIRNESS_COEF_3P[p]
        for i in range(N_FEATURES):
            mean = 0.0
            for q in range(n_players):
                mean += x[X_FEAT + N_FEATURES * q + i]
            mean /= n_players
            w = (FAIRNESS_COEF_4P[n_players + i] if n_players == 4
                 else FAIRNESS_COEF_3P[n_players + i])
            v += w * (x[X_FEAT + N_FEATURES * p + i] - mean)
        x[X_PRED + p] = v


@kernel
def fairness_index_nb(topo, board, n_players, x):
    """The board's fairness index: the RMS distance of the predicted seat win rates from
    1 / n_players (0 is fair); ``x`` (float64[BOARD_SCRATCH]) keeps the draft, the
    features and the predictions."""
    draft_nb(topo, board, n_players, x)
    opening_features_nb(topo, board, n_players, x)
    predict_seats_nb(n_players, x)
    total = 0.0
    for p in range(n_players):
        d = x[X_PRED + p] - 1.0 / n_players
        total += d * d
    return math.sqrt(total / n_players)


@kernel
def balanced_board_nb(rng, topo, board, x):
    """Variable boards drawn until the four-player fairness index is at most
    ``BALANCED_MAX_SPREAD`` (at most ``BALANCED_MAX_DRAWS`` draws; the last one stays).

    Returns the number of draws it took.
    """
    for draws in range(1, BALANCED_MAX_DRAWS + 1):
        variable_board_nb(rng, topo, board)
        if fairness_index_nb(topo, board, 4, x) <= BALANCED_MAX_SPREAD:
            return draws
    return BALANCED_MAX_DRAWS


@kernel
def generate_board_nb(layout_code, rng, topo, board, x):
    """Fill ``board`` for ``layout_code`` (``LAYOUT_*``); ``LAYOUT_GIVEN`` leaves it unchanged.

    ``x``: scratch of at least ``BOARD_SCRATCH`` float64 for ``LAYOUT_BALANCED`` (the
    other layouts do not touch it).
    """
    if layout_code == LAYOUT_VARIABLE:
        variable_board_nb(rng, topo, board)
    elif layout_code == LAYOUT_RANDOM_NUMBERS:
        random_numbers_board_nb(rng, topo, board)
    elif layout_code == LAYOUT_BALANCED:
        balanced_board_nb(rng, topo, board, x)
