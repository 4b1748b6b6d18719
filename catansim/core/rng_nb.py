"""Counter-free random streams for the kernels (splitmix64).

Each game owns a small ``uint64`` array ``rng`` with one state word per stream
(``STREAM_*`` below), so dice, the deck and steals, the board and each player's
decisions never share a generator: paired experiments that change a strategy
keep the same dice. A game's streams are derived from its 63-bit seed alone, so
the game is the same on any machine and with any number of threads.
"""

import numpy as np

from .jit import inline_kernel, kernel, typed_kernel

STREAM_BOARD = 0
STREAM_DICE = 1
STREAM_CHANCE = 2  # deck shuffle and stolen cards
STREAM_PLAYER0 = 3  # + seat: each player's decisions
N_STREAMS = 8

_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S11 = np.uint64(11)
_INV53 = 1.0 / 9007199254740992.0


@inline_kernel
def mix64_nb(z):
    """splitmix64 finaliser: a bijective hash of a uint64."""
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@kernel
def seed_streams_nb(seed, rng):
    """Fill ``rng`` (uint64[N_STREAMS]) with independent stream states for a game seed."""
    base = mix64_nb(np.uint64(seed))
    for i in range(rng.shape[0]):
        rng[i] = mix64_nb(base + np.uint64(i + 1) * _GAMMA)


@inline_kernel
def next_u64_nb(rng, stream):
    """Advance ``stream`` and return its next 64-bit output."""
    rng[stream] += _GAMMA
    return mix64_nb(rng[stream])


@inline_kernel
def uniform_nb(rng, stream):
    """A float in [0, 1) with 53 random bits."""
    return float(next_u64_nb(rng, stream) >> _S11) * _INV53


@inline_kernel
def randint_nb(rng, stream, n):
    """A uniform integer in [0, n) (n >= 1); bias below 2**-40 for n < 2**13."""
    return int(uniform_nb(rng, stream) * n)


@typed_kernel("void(uint64[::1], int64, int32[::1], int64)")
def shuffle_nb(rng, stream, arr, n):
    """Fisher-Yates shuffle of ``arr[:n]`` in place."""
    for i in range(n - 1, 0, -1):
        j = randint_nb(rng, stream, i + 1)
        t = arr[i]
        arr[i] = arr[j]
        arr[j] = t
