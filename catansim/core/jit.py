"""How the core's kernels are compiled.

Only the per-game entry points (``engine_nb.play_game_nb``, ``play_batch_nb``)
allocate arrays: the game's state, its random streams and its scratch. Every
kernel below them is a ``kernel``: it never allocates (scratch comes from its
caller or the state) and is compiled without Numba's reference counting
(``_nrt=False``). With reference counting, every call that passes arrays pays an
atomic increment and decrement per array; measured, that was 15% of a game.

Numba passes the ``nrt`` flag on to callees that do not set it, so every kernel
here sets it explicitly; a kernel that tried to allocate fails to compile.
"""

import numba as nb

kernel = nb.njit(cache=True, _nrt=False)
inline_kernel = nb.njit(cache=True, _nrt=False, inline="always")
