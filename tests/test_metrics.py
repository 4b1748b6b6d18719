"""Board metrics: the beginner board worked out by hand, and the vectorised features
against the per-board tables and a plain-Python oracle."""

import numpy as np
import pandas as pd
import pytest

from catansim import topology as T
from catansim.board import beginner_board, generate_vectors, make_board, metrics
from catansim.board.metrics import (
    best_nodes,
    board_features,
    board_metrics,
    harbor_table,
    hex_pairs,
    hex_table,
    node_table,
    resource_table,
)
from catansim.topology import node_of_hexes


def ways(n):
    # Ways two dice roll n (0 for no number).
    return 0 if n == 0 else 6 - abs(7 - n)


@pytest.fixture(scope="module")
def beginner():
    return beginner_board()


def test_beginner_pips_per_resource(beginner):
    # From the beginner table (number -> pips: 2,12:1  3,11:2  4,10:3  5,9:4  6,8:5):
    # wood   forest    F9 F11 F3 F8   = 4 + 2 + 2 + 5 = 13
    # brick  hills     H6 H10 H5      = 5 + 3 + 4     = 12
    # wool   pasture   P2 P4 P5 P11   = 1 + 3 + 4 + 2 = 10
    # wheat  fields    G12 G9 G4 G6   = 1 + 4 + 3 + 5 = 13
    # ore    mountains M10 M8 M3      = 3 + 5 + 2     = 10      total 58
    m = board_metrics(beginner)
    assert [m[f"pips_{r}"] for r in ("wood", "brick", "wool", "wheat", "ore")] == [
        13, 12, 10, 13, 10]
    rt = resource_table(beginner)
    assert rt["pips"].sum() == 58
    assert rt.loc["brick", "numbers"] == (5, 6, 10)
    # Spread: mean 11.6, squared deviations 1.96+0.16+2.56+1.96+2.56 = 9.2, /5 = 1.84.
    assert m["pips_std"] == pytest.approx(np.sqrt(1.84))
    assert m["pips_max_min_ratio"] == pytest.approx(13 / 10)


def test_beginner_adjacency_counts(beginner):
    m = board_metrics(beginner)
    # Reds: H6 (0,-1), M8 (2,0), F8 (-2,1), G6 (-1,2); no two are neighbours.
    assert m["red_adjacent_pairs"] == 0
    # Same terrain side by side: P2-P4, G12-G9, F11-F8, G4-G6, P5-P11.
    assert m["same_terrain_pairs"] == 5
    pairs = hex_pairs(beginner)
    got = {(int(a), int(b)) for a, b in pairs.loc[pairs.same_terrain, ["hex_a", "hex_b"]].values}
    want = {(T.hex_index(*x), T.hex_index(*y)) for x, y in [
        ((1, -2), (1, -1)), ((-1, -1), (-2, 0)), ((-1, 0), (-2, 1)), ((0, 1), (-1, 2)),
        ((1, 1), (0, 2))]}
    assert {tuple(sorted(p)) for p in got} == {tuple(sorted(p)) for p in want}
    # Each repeated number (3,4,5,6,8,9,10,11) sits on two hexes that do not touch.
    assert m["same_number_pairs"] == 0


def test_beginner_best_nodes(beginner):
    # 11 pips, the most on this board: F3+M8+P5 = 2+5+4, F8+M3+H5 = 5+2+4,
    # M3+H5+G6 = 2+4+5, G9+F11+F8 = 4+2+5.
    elevens = {node_of_hexes(t) for t in [
        [(1, 0), (2, 0), (1, 1)], [(-2, 1), (-1, 1), (-2, 2)],
        [(-1, 1), (-2, 2), (-1, 2)], [(-2, 0), (-1, 0), (-2, 1)]]}
    top = best_nodes(beginner, 4)
    assert set(top.index) == elevens and (top["pips"] == 11).all()
    m = board_metrics(beginner)
    assert m["best_node_pips"] == 11
    # Fifth best is 10 (e.g. F9+P4+H10 = 4+3+3): (4 * 11 + 10) / 5.
    assert m["top5_node_pips"] == pytest.approx(10.8)
    assert m["desert_hex"] == 9 and m["desert_ring"] == 0


def test_beginner_harbors(beginner):
    m = board_metrics(beginner)
    # Wool 2:1 between P5 (1,1) and the sea; its corners touch P5+P11 (4+2) and P5 alone.
    assert m["harbor_node_pips_wool"] == 6 and m["harbor_match_pips_wool"] == 6
    # Brick 2:1 next to F8 (-2,1): corners F8+G9 (5+4) and F8; no hills there.
    assert m["harbor_node_pips_brick"] == 9 and m["harbor_match_pips_brick"] == 0
    # Ore 2:1 next to H10 (2,-1): corners H10+F9 (3+4) and H10.
    assert m["harbor_node_pips_ore"] == 7 and m["harbor_match_pips_ore"] == 0
    # Wheat 2:1 next to P2 (1,-2): P2+F9 (1+4); wood 2:1 next to G12: G12+G9 (1+4).
    assert m["harbor_node_pips_wheat"] == 5 and m["harbor_node_pips_wood"] == 5
    ht = harbor_table(beginner)
    assert ht["match_pips"].isna().sum() == 4  # the four 3:1 harbors
    nt = node_table(beginner)
    assert nt["harbor"].notna().sum() == 18


def test_tables_shapes(beginner):
    ht = hex_table(beginner)
    assert len(ht) == 19 and ht["robber"].sum() == 1 and pd.isna(ht.loc[9, "number"])
    assert ht["red"].sum() == 4
    nt = node_table(beginner)
    assert len(nt) == 54
    assert (nt["n_land"].value_counts().sort_index().tolist()) == [18, 12, 24]


def oracle(board):
    """Plain-Python features of one board (independent of the vectorised code)."""
    coords = [tuple(c) for c in T.HEX_COORDS.tolist()]
    idx = {c: i for i, c in enumerate(coords)}
    pairs = [(idx[(q, r)], idx[(q + dq, r + dr)]) for q, r in coords
             for dq, dr in ((1, 0), (0, 1), (1, -1)) if (q + dq, r + dr) in idx]
    pips = [ways(int(n)) for n in board.number]
    node_pips = [sum(pips[idx[c]] for c in map(tuple, trio.tolist()) if c in idx)
                 for trio in T.NODE_HEX_COORDS]
    res = [sum(p for p, t in zip(pips, board.terrain, strict=True) if t == r) for r in range(5)]
    out = {
        "red_adjacent_pairs": sum(board.number[a] in (6, 8) and board.number[b] in (6, 8)
                                  for a, b in pairs),
        "same_terrain_pairs": sum(board.terrain[a] == board.terrain[b] for a, b in pairs),
        "same_number_pairs": sum(board.number[a] == board.number[b] > 0 for a, b in pairs),
        "best_node_pips": max(node_pips),
        "top5_node_pips": sum(sorted(node_pips)[-5:]) / 5,
        "pips_std": float(np.std(res)),
    }
    for r, name in enumerate(("wood", "brick", "wool", "wheat", "ore")):
        out[f"pips_{name}"] = res[r]
        slot = list(board.harbor).index(r)
        ends = T.HARBOR_NODES[slot]
        out[f"harbor_node_pips_{name}"] = max(node_pips[n] for n in ends)
        touching = {c for n in ends for c in map(tuple, T.NODE_HEX_COORDS[n].tolist()) if c in idx}
        out[f"harbor_match_pips_{name}"] = sum(pips[idx[c]] for c in touching
                                               if board.terrain[idx[c]] == r)
    return out


@pytest.mark.parametrize("layout", ["variable", "random_numbers"])
def test_features_match_oracle(layout):
    seeds = np.arange(150) * 31 + 5
    vecs = generate_vectors(layout, seeds)
    feats = board_features(vecs)
    assert all(len(v) == len(seeds) for v in feats.values())
    for i, s in enumerate(seeds[:150]):
        want = oracle(make_board(layout, int(s)))
        for k, v in want.items():
            assert feats[k][i] == pytest.approx(v), (k, s)


def test_features_chunked_equal_unchunked(monkeypatch):
    vecs = generate_vectors("variable", np.arange(257))
    whole = board_features(vecs)
    monkeypatch.setattr(metrics, "FEATURE_CHUNK", 50)
    parts = board_features(vecs)
    for k in whole:
        np.testing.assert_array_equal(whole[k], parts[k])


def test_features_single_vector_and_bad_shape(beginner):
    f = board_features(beginner.vector)
    assert f["pips_wood"].tolist() == [13]
    with pytest.raises(ValueError, match="expected shape"):
        board_features(np.zeros((3, 40), int))


def test_red_pairs_counted_when_present(beginner):
    # Move the 8 from M8 (2,0) next to H6 (0,-1): swap numbers of (2,0) and (1,-1).
    v = beginner.vector.copy()
    a, b = 19 + T.hex_index(2, 0), 19 + T.hex_index(1, -1)
    v[a], v[b] = v[b], v[a]
    # The 8 now on P4 (1,-1) touches H6 (0,-1): one red pair.
    assert board_features(v)["red_adjacent_pairs"].tolist() == [1]
