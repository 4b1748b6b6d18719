"""How fair is a board? The fairness index, the reference draft, and published balance measures.

The **fairness index** scores a board alone, before anyone plays on it. It replays
the snake set-up of default players on the board (the *reference draft*: each
seat in turn takes the intersection the default preset's placement score rates
highest, seat 0 first, under the Distance Rule), describes each seat's two
starting settlements (``OPENING_FEATURES``: pips by resource, distinct resources
and numbers, harbors, wood-brick and wheat-ore pairs, room to expand) and predicts
each seat's win rate with a linear model fitted on simulated games (study
``seats-and-boards``). The index is the root-mean-square distance of those
predicted win rates from the fair share 1 / players: 0 is a perfectly fair board,
0.10 means the seats' predicted win rates are typically 10 points off their fair
share. The kernels are in ``core.board_nb`` (the ``balanced`` layout uses them).

The **published balance measures** (``balance_measures``) are what "balanced
board" generators score: pips per resource and their spread, 6/8 and
same-number adjacency, same-terrain neighbours and the largest same-terrain
cluster, how far apart each resource's hexes lie, pip clustering (pips of
neighbouring hexes multiplied), hot intersections and the number of red numbers on
one resource. The study tests whether any of them predicts a fair board.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .. import topology as T
from ..checks import check_players
from ..constants import N_HEXES, N_RESOURCES, PIPS, RESOURCE_NAMES, Terrain
from ..core import board_nb as K
from ..core.layout import B_NUMBER, B_TERRAIN, BOARD_SIZE
from ..errors import CatansimError
from .value import Board

OPENING_FEATURES = K.OPENING_FEATURES
BALANCED_MAX_SPREAD = K.BALANCED_MAX_SPREAD


def _vectors(boards) -> np.ndarray:
    if isinstance(boards, Board):
        return boards.vector[None, :]
    if isinstance(boards, list | tuple) and boards and isinstance(boards[0], Board):
        return np.stack([b.vector for b in boards])
    v = np.asarray(boards, dtype=np.int32)
    if v.ndim == 1:
        v = v[None, :]
    if v.ndim != 2 or v.shape[1] != BOARD_SIZE:
        raise CatansimError(f"boards: board vectors of shape {v.shape}; allowed: a Board, "
                            f"a list of Boards or an array of shape (n, {BOARD_SIZE})")
    return np.ascontiguousarray(v)


def coefficients(n_players: int = 4) -> pd.Series:
    """The index's linear model: seat intercepts (``seat_<k>``) and feature weights."""
    n_players = check_players(n_players)
    coef = K.FAIRNESS_COEF_4P if n_players == 4 else K.FAIRNESS_COEF_3P
    names = [f"seat_{k}" for k in range(n_players)] + list(OPENING_FEATURES)
    return pd.Series(coef, index=names, name=f"fairness index, {n_players} players")


@dataclass(frozen=True)
class Fairness:
    """The fairness index of one board.

    Attributes
    ----------
    index : float
        RMS distance of the predicted seat win rates from 1 / players (0 = fair).
    predicted : ndarray (players,)
        Predicted win rate of each seat.
    draft : ndarray (players, 2)
        The reference draft: each seat's first and second settlement node.
    features : DataFrame
        The opening features of each seat (rows: seats).
    """

    index: float
    predicted: np.ndarray
    draft: np.ndarray
    features: pd.DataFrame
    n_players: int

    @property
    def balanced(self) -> bool:
        """True if the ``balanced`` layout would keep this board (four players' index)."""
        return self.n_players == 4 and self.index <= BALANCED_MAX_SPREAD


def _run(vec: np.ndarray, n_players: int, x: np.ndarray) -> float:
    return float(K.fairness_index_nb(T.TOPO, vec, n_players, x))


def fairness(board, n_players: int = 4) -> Fairness:
    """The fairness index of a board (a ``Board`` or a board vector), with the reference
    draft, each seat's opening features and its predicted win rate."""
    n_players = check_players(n_players)
    vec = _vectors(board)[0]
    x = np.zeros(K.BOARD_SCRATCH)
    index = _run(vec, n_players, x)
    draft = x[K.X_PICK : K.X_PICK + 2 * n_players].astype(np.int64).reshape(n_players, 2)
    feats = x[K.X_FEAT : K.X_FEAT + K.N_FEATURES * n_players].reshape(n_players, K.N_FEATURES)
    return Fairness(index, x[K.X_PRED : K.X_PRED + n_players].copy(), draft,
                    pd.DataFrame(feats, columns=list(OPENING_FEATURES),
                                 index=pd.RangeIndex(n_players, name="seat")), n_players)


def fairness_indices(boards, n_players: int = 4) -> np.ndarray:
    """The fairness index of many boards (board vectors (n, 47) or ``Board`` values)."""
    n_players = check_players(n_players)
    v = _vectors(boards)
    x = np.zeros(K.BOARD_SCRATCH)
    return np.array([_run(row, n_players, x) for row in v])


def draft_table(boards, n_players: int = 4, board_ids=None) -> pd.DataFrame:
    """The reference draft and the opening features of every seat of many boards.

    Returns one row per (board, seat): ``board`` (position in ``boards``, or the id
    from ``board_ids``), ``seat``, ``node_1``, ``node_2`` (first and second settlement),
    the ``OPENING_FEATURES``, ``predicted`` (the index's win rate for the seat) and
    ``index`` (the board's fairness index, repeated on its seats).
    """
    n_players = check_players(n_players)
    v = _vectors(boards)
    x = np.zeros(K.BOARD_SCRATCH)
    n = v.shape[0]
    feats = np.zeros((n, n_players, K.N_FEATURES))
    picks = np.zeros((n, n_players, 2), dtype=np.int64)
    pred = np.zeros((n, n_players))
    index = np.zeros(n)
    for i in range(n):
        index[i] = _run(v[i], n_players, x)
        picks[i] = x[K.X_PICK : K.X_PICK + 2 * n_players].reshape(n_players, 2)
        feats[i] = x[K.X_FEAT : K.X_FEAT + K.N_FEATURES * n_players].reshape(
            n_players, K.N_FEATURES)
        pred[i] = x[K.X_PRED : K.X_PRED + n_players]
    ids = np.arange(n) if board_ids is None else np.asarray(board_ids)
    out = pd.DataFrame({"board": np.repeat(ids, n_players),
                        "seat": np.tile(np.arange(n_players), n),
                        "node_1": picks[:, :, 0].ravel(), "node_2": picks[:, :, 1].ravel()})
    for j, name in enumerate(OPENING_FEATURES):
        out[name] = feats[:, :, j].ravel()
    out["predicted"] = pred.ravel()
    out["index"] = np.repeat(index, n_players)
    return out


# --- published balance measures ------------------------------------------------------------

_PIPS = np.array(PIPS, dtype=np.int64)
_HEX_DIST = np.array([[T.hex_distance(int(a[0] - b[0]), int(a[1] - b[1])) for b in T.HEX_COORDS]
                      for a in T.HEX_COORDS])
_LAND_PAIRS = T.EDGE_HEXES[(T.EDGE_HEXES >= 0).all(axis=1)]
_HEX_NEIGHBOURS = [[int(g) for g in row if g >= 0] for row in
                   np.asarray(T.TOPO[T.T_HEX_NEIGHBOURS : T.T_HEX_NEIGHBOURS + 6 * N_HEXES]
                              ).reshape(N_HEXES, 6)]
_HEXES_OF = np.array([4, 3, 4, 4, 3])  # hexes of each resource (forest .. mountains)

BALANCE_MEASURES = {
    "pips_per_hex_std": "sd over the resources of (pips of the resource / its hexes)",
    "resource_distance": "mean over the resources of the mean distance (in hexes) between "
                         "two hexes of that resource: how far apart each resource lies",
    "largest_cluster": "hexes in the largest group of side-sharing hexes of one terrain",
    "pip_clustering": "sum over side-sharing land hexes of pips x pips (hot hexes together)",
    "hot_intersections": "intersections with 11 or more pips",
    "reds_on_one_resource": "most 6s and 8s on hexes of one resource",
    "red_ring": "mean ring of the four red numbers (0 centre, 2 coast)",
}


def _largest_cluster(terrain: np.ndarray) -> int:
    best = 0
    seen = np.zeros(N_HEXES, dtype=bool)
    for h in range(N_HEXES):
        if seen[h] or terrain[h] == Terrain.desert:
            continue
        stack, size = [h], 0
        seen[h] = True
        while stack:
            g = stack.pop()
            size += 1
            for m in _HEX_NEIGHBOURS[g]:
                if not seen[m] and terrain[m] == terrain[h]:
                    seen[m] = True
                    stack.append(m)
        best = max(best, size)
    return best


def balance_measures(boards) -> dict[str, np.ndarray]:
    """The published balance measures of many boards (``BALANCE_MEASURES``), one array
    each; ``catansim.board.metrics.board_features`` has the others (pips per resource
    and their spread, red and same-number adjacency, same-terrain pairs, best
    intersections, desert, harbors)."""
    v = _vectors(boards).astype(np.int64)
    terrain = v[:, B_TERRAIN : B_TERRAIN + N_HEXES]
    number = v[:, B_NUMBER : B_NUMBER + N_HEXES]
    pips = _PIPS[number]
    n = v.shape[0]
    res_pips = np.stack([(pips * (terrain == r)).sum(axis=1) for r in range(N_RESOURCES)],
                        axis=1)
    out = {"pips_per_hex_std": (res_pips / _HEXES_OF).std(axis=1)}
    dist = np.zeros(n)
    for r in range(N_RESOURCES):
        mask = (terrain == r).astype(float)  # (n, 19)
        pair_sum = np.einsum("bi,ij,bj->b", mask, _HEX_DIST, mask)
        k = _HEXES_OF[r]
        dist += pair_sum / (k * (k - 1))
    out["resource_distance"] = dist / N_RESOURCES
    out["largest_cluster"] = np.array([_largest_cluster(t) for t in terrain])
    a, b = _LAND_PAIRS[:, 0], _LAND_PAIRS[:, 1]
    out["pip_clustering"] = (pips[:, a] * pips[:, b]).sum(axis=1)
    node_hexes = np.where(T.NODE_HEXES >= 0, T.NODE_HEXES, N_HEXES)
    pad = np.concatenate([pips, np.zeros((n, 1), dtype=np.int64)], axis=1)
    node_pips = pad[:, node_hexes].sum(axis=2)
    out["hot_intersections"] = (node_pips >= 11).sum(axis=1)
    red = (number == 6) | (number == 8)
    out["reds_on_one_resource"] = np.stack(
        [(red & (terrain == r)).sum(axis=1) for r in range(N_RESOURCES)], axis=1).max(axis=1)
    ring = np.array([T.hex_distance(int(q), int(r)) for q, r in T.HEX_COORDS])
    out["red_ring"] = (red * ring).sum(axis=1) / np.maximum(red.sum(axis=1), 1)
    return out


__all__ = ["BALANCED_MAX_SPREAD", "BALANCE_MEASURES", "OPENING_FEATURES", "RESOURCE_NAMES",
           "Fairness", "balance_measures", "coefficients", "draft_table", "fairness",
           "fairness_indices"]
