"""The layouts: where a game's board comes from (the ``Board`` value is ``board.value``).

Layouts (``make_board``, ``LAYOUTS``):

- ``beginner``: the fixed "Starting Set-up for Beginners" map (``board.beginner``).
- ``variable``: 6th-edition set-up; terrains and harbors shuffled, number discs in
  A-R order along a spiral from a random corner.
- ``random_numbers``: terrains, numbers and harbors shuffled, never two 6/8 hexes
  side by side.
- ``balanced``: ``variable`` boards kept only when the fairness index (``board.fairness``)
  predicts fair seats; drawn again until one is.

Seeded layouts are drawn by the compiled core (``core.board_nb``) from a game's
board stream, so ``make_board(layout, seed)`` is exactly the board a game with
that seed plays on.
"""

from __future__ import annotations

import numpy as np

from .. import topology as T
from ..checks import check_seed, did_you_mean
from ..constants import RESOURCE_NAMES, TERRAIN_RESOURCE
from ..core.layout import (
    BOARD_SIZE,
    LAYOUT_BALANCED,
    LAYOUT_GIVEN,
    LAYOUT_RANDOM_NUMBERS,
    LAYOUT_VARIABLE,
)
from ..errors import CatansimError
from .beginner import beginner_board
from .value import Board

# Layout name -> kernel code (``generate_board_nb``); the beginner map is a given board.
LAYOUTS = {
    "beginner": LAYOUT_GIVEN,
    "variable": LAYOUT_VARIABLE,
    "random_numbers": LAYOUT_RANDOM_NUMBERS,
    "balanced": LAYOUT_BALANCED,
}
# Layouts that draw a new board from each game's seed.
SEEDED_LAYOUTS = tuple(name for name, code in LAYOUTS.items() if code != LAYOUT_GIVEN)


def generate_vectors(layout: str, seeds) -> np.ndarray:
    """Board vectors (int32[n, 47]) of a seeded layout for many game seeds."""
    # compiled core: +0.3 s, and every command's --help imports catansim.board
    from ..core.board_nb import BOARD_SCRATCH, generate_board_nb  # noqa: PLC0415
    from ..core.rng_nb import N_STREAMS, seed_streams_nb  # noqa: PLC0415

    code = _layout_code(layout)
    if code == LAYOUT_GIVEN:
        raise CatansimError(f"layout: {layout!r} is a fixed board; seeded layouts: "
                            f"{', '.join(SEEDED_LAYOUTS)}")
    seeds = [check_seed(s) for s in np.atleast_1d(seeds).tolist()]
    out = np.zeros((len(seeds), BOARD_SIZE), dtype=np.int32)
    rng = np.zeros(N_STREAMS, dtype=np.uint64)
    scratch = np.zeros(BOARD_SCRATCH)
    for i, s in enumerate(seeds):
        seed_streams_nb(s, rng)
        generate_board_nb(code, rng, T.TOPO, out[i], scratch)
    return out


def _layout_code(layout: str) -> int:
    if layout not in LAYOUTS:
        raise CatansimError(f"layout: unknown layout {layout!r}"
                            f"{did_you_mean(layout, LAYOUTS)}; allowed: "
                            f"{', '.join(LAYOUTS)}")
    return LAYOUTS[layout]


def make_board(layout: str, seed: int | None = None) -> Board:
    """The board of a layout for a game seed.

    Parameters
    ----------
    layout : str
        ``beginner``, ``variable``, ``random_numbers`` or ``balanced``.
    seed : int or None
        Game seed in [0, 2**63). A game played with this seed draws exactly this
        board (the engine seeds its streams the same way). None picks a fresh
        random seed, recorded in ``Board.seed``. Ignored for ``beginner``.

    Returns
    -------
    Board
    """
    code = _layout_code(layout)
    if code == LAYOUT_GIVEN:
        return beginner_board()
    if seed is None:
        seed = int(np.random.SeedSequence().generate_state(1, np.uint64)[0] >> np.uint64(1))
    seed = check_seed(seed)
    return Board.from_vector(generate_vectors(layout, [seed])[0], layout=layout, seed=seed)


def resource_of_terrain(t: int) -> str | None:
    """Resource name produced by terrain code ``t`` (None for the desert)."""
    r = TERRAIN_RESOURCE[t]
    return RESOURCE_NAMES[r] if r >= 0 else None
