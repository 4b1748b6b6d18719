"""Describe boards for balance studies: production (pips) by resource, hex and node; clustering.

*Pips* are the number of ways two dice roll a hex's number (2 and 12: 1, 3 and 11:
2, ..., 6 and 8: 5); a hex's pips are its expected production per 36 rolls. The
18 standard discs hold 58 pips in total.

Scalar features (``board_features`` for many boards, ``board_metrics`` for one):

``pips_<resource>``
    Pips of all hexes producing that resource (wood, brick, wool, wheat, ore).
``pips_std``, ``pips_max_min_ratio``
    Spread of production across the five resources: population standard
    deviation of the five ``pips_<resource>`` values, and largest / smallest.
``red_adjacent_pairs``
    Pairs of side-sharing hexes that both show a red number (6 or 8).
``same_terrain_pairs``
    Pairs of side-sharing hexes of the same terrain (clustering of a resource).
``same_number_pairs``
    Pairs of side-sharing hexes with the same number.
``best_node_pips``, ``top5_node_pips``
    Pips of the best intersection (sum over its land hexes) and the mean of the
    five best (ignoring the distance rule).
``desert_hex``, ``desert_ring``
    Where the desert (and the robber) starts; ring 0 is the centre, 2 the coast.
``harbor_node_pips_<resource>``
    Pips of the better of the two intersections at that resource's 2:1 harbor.
``harbor_match_pips_<resource>``
    Pips of hexes producing that resource touching its 2:1 harbor's two
    intersections (a wool harbor next to a wool 6 scores 5).

Tables for one board: ``hex_table``, ``node_table``, ``resource_table``,
``harbor_table``, ``hex_pairs`` and ``best_nodes``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .. import topology as T
from ..constants import (
    HARBOR_ANY,
    HARBOR_KIND_NAMES,
    N_HARBORS,
    N_HEXES,
    N_RESOURCES,
    PIPS,
    RESOURCE_NAMES,
    TERRAIN_NAMES,
    TERRAIN_RESOURCE,
    Terrain,
)
from ..core.layout import B_HARBOR, B_NUMBER, B_TERRAIN, BOARD_SIZE
from ..errors import CatansimError
from ..tunables import FEATURE_CHUNK
from .value import Board

PIPS_TABLE = np.array(PIPS, dtype=np.int16)  # pips by number, 0 for 0 and 7
RED_NUMBERS = (6, 8)
_SEA = N_HEXES  # padded column that stands for "no land hex"
# The 42 pairs of side-sharing land hexes (the edges with land on both sides).
LAND_PAIRS = T.EDGE_HEXES[(T.EDGE_HEXES >= 0).all(axis=1)]
_NODE_HEXES_PAD = np.where(T.NODE_HEXES >= 0, T.NODE_HEXES, _SEA)  # (54, 3)
_HEX_RING = np.array([T.hex_distance(int(q), int(r)) for q, r in T.HEX_COORDS])


def _slot_land_hexes() -> np.ndarray:
    # Land hexes touching either intersection of each harbor slot, padded with _SEA.
    rows = [sorted({int(h) for n in nodes for h in T.NODE_HEXES[n] if h >= 0})
            for nodes in T.HARBOR_NODES]
    width = max(len(r) for r in rows)
    return np.array([r + [_SEA] * (width - len(r)) for r in rows], dtype=np.int64)


SLOT_LAND_HEXES = _slot_land_hexes()  # (9, 3)


def _features_block(v: np.ndarray) -> dict[str, np.ndarray]:
    # Works on the transposed vectors, (slot, board) with boards contiguous, so each
    # step is a few whole-row operations over all boards rather than a gather per
    # board. Integer sums are exact in int16 (at most 58 pips); the two float
    # features (pips_std, top5_node_pips) come from the same integers, in the same
    # layout for the std, as the per-board version had (outputs are bit-identical).
    n = v.shape[0]
    vt = np.ascontiguousarray(v.T)  # (BOARD_SIZE, n)
    terrain = vt[B_TERRAIN : B_TERRAIN + N_HEXES]
    number = vt[B_NUMBER : B_NUMBER + N_HEXES]
    harbor = vt[B_HARBOR : B_HARBOR + N_HARBORS]
    pips_pad = np.zeros((N_HEXES + 1, n), dtype=np.int16)  # row _SEA stays 0
    pips = pips_pad[:N_HEXES]
    pips[...] = PIPS_TABLE[number]
    out: dict[str, np.ndarray] = {}

    # C order: std() below sums each board's pips in resource order (a float sum depends
    # on its order, and the features' digests on the floats)
    res_pips = np.empty((n, N_RESOURCES), dtype=np.int64)
    for r in range(N_RESOURCES):
        res_pips[:, r] = (pips * (terrain == r)).sum(axis=0, dtype=np.int16)
    for r, name in enumerate(RESOURCE_NAMES):
        out[f"pips_{name}"] = res_pips[:, r].copy()
    out["pips_std"] = res_pips.std(axis=1)
    lo = res_pips.min(axis=1)
    out["pips_max_min_ratio"] = np.divide(res_pips.max(axis=1), lo, where=lo > 0,
                                          out=np.full(n, np.inf))

    a, b = LAND_PAIRS[:, 0], LAND_PAIRS[:, 1]
    red = (number == RED_NUMBERS[0]) | (number == RED_NUMBERS[1])
    out["red_adjacent_pairs"] = (red[a] & red[b]).sum(axis=0)
    out["same_terrain_pairs"] = (terrain[a] == terrain[b]).sum(axis=0)
    number_a = number[a]
    out["same_number_pairs"] = ((number_a == number[b]) & (number_a > 0)).sum(axis=0)

    node_pips = pips_pad[_NODE_HEXES_PAD].sum(axis=1, dtype=np.int16)  # (54, n)
    out["best_node_pips"] = node_pips.max(axis=0).astype(np.int64)
    top5 = np.partition(np.ascontiguousarray(node_pips.T), -5, axis=1)[:, -5:]
    out["top5_node_pips"] = top5.mean(axis=1)

    desert = np.argmax(terrain == Terrain.desert, axis=0)
    out["desert_hex"] = desert.astype(np.int64)
    out["desert_ring"] = _HEX_RING[desert]

    boards = np.arange(n)
    terrain_pad = np.concatenate([terrain, np.full((1, n), -1, terrain.dtype)])
    slot_terrain = terrain_pad[SLOT_LAND_HEXES]  # (9, 3, n); the sea pads as -1
    slot_pips = pips_pad[SLOT_LAND_HEXES]  # (9, 3, n)
    slot_node_pips = node_pips[T.HARBOR_NODES].max(axis=1).ravel()  # (9, n) flat
    for r, name in enumerate(RESOURCE_NAMES):
        at = np.argmax(harbor == r, axis=0) * n + boards  # (slot, board) in a flat (9, n)
        out[f"harbor_node_pips_{name}"] = slot_node_pips[at].astype(np.int64)
        match = (slot_pips * (slot_terrain == r)).sum(axis=1, dtype=np.int16).ravel()
        out[f"harbor_match_pips_{name}"] = match[at].astype(np.int64)
    return out


def board_features(vectors) -> dict[str, np.ndarray]:
    """Scalar features of many boards at once (vectorised).

    Parameters
    ----------
    vectors : int array (n, 47) or (47,)
        Board vectors (``Board.vector``, ``B_*`` layout), assumed valid.

    Returns
    -------
    dict of str to ndarray (n,)
        The features listed in the module docstring, one value per board;
        ``pd.DataFrame(board_features(v))`` gives a table.
    """
    v = np.asarray(vectors)
    if v.ndim == 1:
        v = v[None, :]
    if v.ndim != 2 or v.shape[1] != BOARD_SIZE:
        raise CatansimError(f"vectors: expected shape (n, {BOARD_SIZE}), got {v.shape}; "
                            "allowed: board vectors (Board.vector), one per row")
    v = v.astype(np.int16, copy=False)  # small ints keep the temporaries small
    blocks = [_features_block(v[i : i + FEATURE_CHUNK])
              for i in range(0, max(v.shape[0], 1), FEATURE_CHUNK)]
    if len(blocks) == 1:
        return blocks[0]
    return {k: np.concatenate([blk[k] for blk in blocks]) for k in blocks[0]}


def board_metrics(board: Board) -> pd.Series:
    """All scalar features of one board (see the module docstring), plus its ``board_id``."""
    feats = board_features(board.vector)
    s = pd.Series({k: v[0].item() for k, v in feats.items()}, dtype=object)
    s["board_id"] = board.board_id
    s.name = board.layout
    return s


def hex_pips(board: Board) -> np.ndarray:
    """int[19]: pips of each hex (0 for the desert)."""
    return PIPS_TABLE[board.number].astype(np.int64)


def hex_table(board: Board) -> pd.DataFrame:
    """One row per hex: q, r, terrain, resource, number (NA desert), pips, red, ring, robber."""
    pips = hex_pips(board)
    return pd.DataFrame(
        {
            "q": T.HEX_COORDS[:, 0],
            "r": T.HEX_COORDS[:, 1],
            "terrain": [TERRAIN_NAMES[t] for t in board.terrain],
            "resource": [RESOURCE_NAMES[TERRAIN_RESOURCE[t]] if t != Terrain.desert else None
                         for t in board.terrain],
            "number": pd.array([n if n else None for n in board.number.tolist()], dtype="Int64"),
            "pips": pips,
            "red": np.isin(board.number, RED_NUMBERS),
            "ring": _HEX_RING,
            "robber": np.arange(N_HEXES) == board.robber_hex,
        },
        index=pd.RangeIndex(N_HEXES, name="hex"),
    )


def node_table(board: Board) -> pd.DataFrame:
    """One row per intersection (54).

    Columns: ``hexes`` (land hex indices), ``n_land``, ``resources`` (one per
    producing hex in hex order, e.g. ``"wheat+wood+wood"``), ``numbers``, ``pips`` (sum over its
    hexes), ``pips_<resource>``, ``n_resources`` (distinct resources) and
    ``harbor`` (kind name, or None).
    """
    pips = hex_pips(board)
    node_harbor = board.node_harbor
    rows = []
    for n, hexes in enumerate(T.NODE_HEXES):
        land = [int(h) for h in hexes if h >= 0]
        res = [TERRAIN_RESOURCE[board.terrain[h]] for h in land]
        row = {
            "hexes": tuple(land),
            "n_land": len(land),
            "resources": "+".join(RESOURCE_NAMES[r] for r in res if r >= 0),
            "numbers": tuple(int(board.number[h]) for h in land if board.number[h]),
            "pips": int(pips[land].sum()),
        }
        for r, name in enumerate(RESOURCE_NAMES):
            row[f"pips_{name}"] = int(sum(pips[h] for h, rr in zip(land, res, strict=True)
                                          if rr == r))
        row["n_resources"] = len({r for r in res if r >= 0})
        row["harbor"] = HARBOR_KIND_NAMES[node_harbor[n]] if node_harbor[n] >= 0 else None
        rows.append(row)
    return pd.DataFrame(rows, index=pd.RangeIndex(len(rows), name="node"))


def best_nodes(board: Board, k: int = 10) -> pd.DataFrame:
    """The ``k`` intersections with the most pips (ties: more distinct resources, then index)."""
    t = node_table(board)
    return t.sort_values(["pips", "n_resources"], ascending=False, kind="stable").head(k)


def resource_table(board: Board) -> pd.DataFrame:
    """One row per resource: hexes, numbers, pips, share of all pips, 2:1 harbor slot."""
    pips = hex_pips(board)
    rows = []
    for r in range(N_RESOURCES):
        hexes = np.flatnonzero(board.terrain == r)
        rows.append({
            "hexes": len(hexes),
            "numbers": tuple(sorted(int(board.number[h]) for h in hexes)),
            "pips": int(pips[hexes].sum()),
            "harbor_slot": int(np.flatnonzero(board.harbor == r)[0]),
        })
    df = pd.DataFrame(rows, index=pd.Index(RESOURCE_NAMES, name="resource"))
    df.insert(3, "share", df["pips"] / df["pips"].sum())
    return df


def harbor_table(board: Board) -> pd.DataFrame:
    """One row per harbor slot: edge, kind, its two nodes, their best pips, matching pips.

    ``match_pips`` counts pips of hexes producing the harbor's resource that touch
    its intersections (NA for 3:1 harbors).
    """
    pips = hex_pips(board)
    node_pips = np.array([pips[[h for h in hx if h >= 0]].sum() for hx in T.NODE_HEXES])
    rows = []
    for s in range(N_HARBORS):
        kind = int(board.harbor[s])
        land = [int(h) for h in SLOT_LAND_HEXES[s] if h != _SEA]
        match = (None if kind == HARBOR_ANY
                 else int(sum(pips[h] for h in land if board.terrain[h] == kind)))
        rows.append({
            "edge": int(T.HARBOR_EDGES[s]),
            "kind": HARBOR_KIND_NAMES[kind],
            "nodes": tuple(int(n) for n in T.HARBOR_NODES[s]),
            "land_hexes": tuple(land),
            "node_pips": int(node_pips[T.HARBOR_NODES[s]].max()),
            "match_pips": match,
        })
    df = pd.DataFrame(rows, index=pd.RangeIndex(N_HARBORS, name="slot"))
    df["match_pips"] = df["match_pips"].astype("Int64")
    return df


def hex_pairs(board: Board) -> pd.DataFrame:
    """The 42 pairs of side-sharing land hexes with their terrains, numbers and flags."""
    a, b = LAND_PAIRS[:, 0], LAND_PAIRS[:, 1]
    ta, tb = board.terrain[a], board.terrain[b]
    na, nb = board.number[a], board.number[b]
    return pd.DataFrame({
        "hex_a": a, "hex_b": b,
        "terrain_a": [TERRAIN_NAMES[t] for t in ta], "terrain_b": [TERRAIN_NAMES[t] for t in tb],
        "number_a": na, "number_b": nb,
        "red_pair": np.isin(na, RED_NUMBERS) & np.isin(nb, RED_NUMBERS),
        "same_terrain": ta == tb,
        "same_number": (na == nb) & (na > 0),
    })
