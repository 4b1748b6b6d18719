"""Board layouts: composition, the A-R spiral, statistics of the shuffles, user boards, headers."""

import hashlib
import json
import random
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from catansim import topology as T
from catansim.board import (
    Board,
    beginner_board,
    beginner_openings,
    board_ids,
    generate_vectors,
    make_board,
    parse_board,
)
from catansim.constants import (
    HARBOR_KIND_NAMES,
    HARBOR_KINDS_STANDARD,
    NUMBER_DISCS_AR,
    RESOURCE_NAMES,
    TERRAIN_COUNTS,
    TERRAIN_NAMES,
    TERRAIN_RESOURCE,
)
from catansim.core.board_nb import BOARD_SCRATCH, generate_board_nb
from catansim.core.layout import (
    B_HARBOR,
    B_NUMBER,
    B_TERRAIN,
    BOARD_SIZE,
    LAYOUT_BALANCED,
    LAYOUT_GIVEN,
    LAYOUT_RANDOM_NUMBERS,
    LAYOUT_VARIABLE,
)
from catansim.core.rng_nb import N_STREAMS, seed_streams_nb
from catansim.errors import CatansimError

DESERT = TERRAIN_NAMES.index("desert")
BEGINNER_JSON = Path(__file__).parents[1] / "catansim" / "data" / "beginner-board.json"
P_MIN = 1e-4  # chi-square threshold; seeds are fixed, so the tests are deterministic
N_STAT = 3000

# Rows of the beginner map, copied from the rule book's "Starting Set-up for Beginners".
BEGINNER_TEXT = "M10 P2 F9 / G12 H6 P4 H10 / G9 F11 D F3 M8 / F8 M3 G4 P5 / H5 G6 P11"
# Harbors clockwise from the top-left, from the same file.
BEGINNER_HARBORS = "any wheat ore any wool any any brick wood"
STANDARD_DISCS = Counter([2, 12] + [n for n in (3, 4, 5, 6, 8, 9, 10, 11) for _ in (0, 1)])


def split(v):
    return (v[B_TERRAIN : B_TERRAIN + 19], v[B_NUMBER : B_NUMBER + 19],
            v[B_HARBOR : B_HARBOR + 9])


def land_pairs():
    # Side-sharing land hexes by axial arithmetic.
    coords = [tuple(c) for c in T.HEX_COORDS.tolist()]
    steps = [(1, 0), (0, 1), (1, -1)]
    idx = {c: i for i, c in enumerate(coords)}
    return [(idx[(q, r)], idx[(q + dq, r + dr)]) for q, r in coords for dq, dr in steps
            if (q + dq, r + dr) in idx]


def spiral(corner):
    """Counter-clockwise spiral from a corner, walked ring by ring (independent of topology)."""
    dirs = [(1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1)]  # E NE NW W SW SE: CCW on page
    out = []
    for radius in (2, 1):
        q, r = dirs[corner][0] * radius, dirs[corner][1] * radius
        for side in range(6):
            dq, dr = dirs[(corner + 2 + side) % 6]
            for _ in range(radius):
                out.append((q, r))
                q, r = q + dq, r + dr
    out.append((0, 0))
    return [T.hex_index(q, r) for q, r in out]


def corners_matching(terrain, number):
    found = []
    for c in range(6):
        want = np.zeros(19, int)
        discs = iter(NUMBER_DISCS_AR)
        for h in spiral(c):
            want[h] = 0 if terrain[h] == DESERT else next(discs)
        if (want == number).all():
            found.append(c)
    return found


@pytest.fixture(scope="module")
def variable_vectors():
    return generate_vectors("variable", np.arange(N_STAT))


@pytest.fixture(scope="module")
def random_number_vectors():
    return generate_vectors("random_numbers", np.arange(10_000) + 10**6)


# --- composition and determinism ---------------------------------------------------

@pytest.mark.parametrize("layout", ["variable", "random_numbers"])
def test_composition_over_many_seeds(layout):
    vecs = generate_vectors(layout, np.arange(500) * 7919 + 3)
    for v in vecs:
        terrain, number, harbor = split(v)
        assert tuple(np.bincount(terrain, minlength=6)) == TERRAIN_COUNTS
        assert Counter(number[number > 0].tolist()) == STANDARD_DISCS
        assert (number[terrain == DESERT] == 0).all() and (number[terrain != DESERT] > 0).all()
        assert sorted(harbor.tolist()) == sorted(HARBOR_KINDS_STANDARD)


def test_beginner_composition():
    b = beginner_board()
    assert tuple(np.bincount(b.terrain, minlength=6)) == TERRAIN_COUNTS
    assert Counter(b.number[b.number > 0].tolist()) == STANDARD_DISCS


@pytest.mark.parametrize("layout", ["variable", "random_numbers"])
def test_same_seed_same_board_different_seeds_differ(layout):
    assert make_board(layout, 42) == make_board(layout, 42)
    assert (make_board(layout, 42).vector == make_board(layout, 42).vector).all()
    vecs = generate_vectors(layout, np.arange(200))
    assert len({v.tobytes() for v in vecs}) == 200


@pytest.mark.parametrize("layout,code", [("variable", LAYOUT_VARIABLE),
                                         ("random_numbers", LAYOUT_RANDOM_NUMBERS),
                                         ("balanced", LAYOUT_BALANCED)])
def test_make_board_is_the_board_a_game_seed_draws(layout, code):
    # The engine derives the game's streams from its seed and calls generate_board_nb.
    for seed in (0, 1, 12345, 2**63 - 1):
        rng = np.zeros(N_STREAMS, np.uint64)
        seed_streams_nb(seed, rng)
        board = np.zeros(BOARD_SIZE, np.int32)
        generate_board_nb(code, rng, T.TOPO, board, np.zeros(BOARD_SCRATCH))
        b = make_board(layout, seed)
        assert (b.vector == board).all() and b.seed == seed and b.layout == layout


def test_layout_given_leaves_board_unchanged():
    rng = np.zeros(N_STREAMS, np.uint64)
    seed_streams_nb(5, rng)
    before = rng.copy()
    board = beginner_board().vector
    generate_board_nb(LAYOUT_GIVEN, rng, T.TOPO, board, np.zeros(0))
    assert (board == beginner_board().vector).all() and (rng == before).all()


def test_unseeded_board_records_its_seed():
    b = make_board("variable")
    assert 0 <= b.seed < 2**63
    assert make_board("variable", b.seed) == b


@pytest.mark.parametrize("seed", [-1, 2**63, "7", 1.5, True])
def test_bad_seed(seed):
    with pytest.raises(CatansimError,
                       match=r"^seed: .* is not allowed; allowed: an integer in \[0, 2\*\*63\)"):
        make_board("variable", seed)


def test_unknown_layout():
    with pytest.raises(CatansimError) as exc:
        make_board("tournament", 1)
    assert str(exc.value) == ("layout: unknown layout 'tournament'; allowed: beginner, "
                              "variable, random_numbers, balanced")


# --- the A-R spiral ----------------------------------------------------------------

@pytest.mark.parametrize("corner", range(6))
def test_spiral_tables(corner):
    order = spiral(corner)
    assert sorted(order) == list(range(19))
    assert T.SPIRALS[corner].tolist() == order


def test_variable_numbers_follow_a_spiral_from_a_uniform_corner(variable_vectors):
    corners = []
    for v in variable_vectors:
        terrain, number, _ = split(v)
        found = corners_matching(terrain, number)
        assert found, "numbers are not the A-R discs along any spiral"
        corners.append(found[0])
    counts = np.bincount(corners, minlength=6)
    assert (counts > 0).all()
    assert stats.chisquare(counts).pvalue > P_MIN


# --- statistics of the shuffles ----------------------------------------------------

def test_variable_terrain_uniform_per_hex(variable_vectors):
    terrain = variable_vectors[:, B_TERRAIN : B_TERRAIN + 19]
    expected = np.array(TERRAIN_COUNTS) / 19 * len(terrain)
    for h in range(19):
        observed = np.bincount(terrain[:, h], minlength=6)
        assert stats.chisquare(observed, expected).pvalue > P_MIN, h


@pytest.mark.parametrize("layout", ["variable", "random_numbers"])
def test_harbor_shuffle_covers_every_slot(layout, variable_vectors, random_number_vectors):
    vecs = variable_vectors if layout == "variable" else random_number_vectors[:N_STAT]
    harbor = vecs[:, B_HARBOR : B_HARBOR + 9]
    expected = np.bincount(HARBOR_KINDS_STANDARD, minlength=6) / 9 * len(harbor)
    for s in range(9):
        observed = np.bincount(harbor[:, s], minlength=6)
        assert (observed > 0).all()
        assert stats.chisquare(observed, expected).pvalue > P_MIN, s


def test_random_numbers_never_adjacent_reds(random_number_vectors):
    pairs = np.array(land_pairs())
    assert len(pairs) == 42
    number = random_number_vectors[:, B_NUMBER : B_NUMBER + 19]
    red = np.isin(number, (6, 8))
    assert not (red[:, pairs[:, 0]] & red[:, pairs[:, 1]]).any()


def test_random_numbers_reach_every_placement(random_number_vectors):
    # The constraint must not freeze anything: every hex sees the desert and a red number.
    terrain = random_number_vectors[:, B_TERRAIN : B_TERRAIN + 19]
    number = random_number_vectors[:, B_NUMBER : B_NUMBER + 19]
    assert ((terrain == DESERT).sum(axis=0) > 0).all()
    assert (np.isin(number, (6, 8)).sum(axis=0) > 0).all()
    assert ((number == 2).sum(axis=0) > 0).all()


def test_variable_spiral_never_puts_reds_together():
    # The A-R disc order is designed so that, from any corner and wherever the desert
    # lies, no 6 or 8 touches another: check all 6 x 19 cases exhaustively.
    pairs = land_pairs()
    for corner in range(6):
        for desert in range(19):
            number = np.zeros(19, int)
            discs = iter(NUMBER_DISCS_AR)
            for h in spiral(corner):
                number[h] = 0 if h == desert else next(discs)
            assert not any(number[a] in (6, 8) and number[b] in (6, 8) for a, b in pairs)


# --- beginner board and openings -------------------------------------------------

def test_beginner_board_matches_rules_text():
    b = beginner_board()
    assert b == parse_board(BEGINNER_TEXT + " | " + BEGINNER_HARBORS)
    assert [HARBOR_KIND_NAMES[k] for k in b.harbor] == BEGINNER_HARBORS.split()
    assert T.HEX_COORDS[b.robber_hex].tolist() == [0, 0]
    assert b.layout == "beginner"


def test_beginner_board_equals_json():
    data = json.loads(BEGINNER_JSON.read_text())
    b = beginner_board()
    for hx in data["hexes"]:
        h = T.hex_index(hx["q"], hx["r"])
        assert TERRAIN_NAMES[b.terrain[h]] == hx["terrain"]
        assert b.number[h] == (hx["number"] or 0)
    header = b.to_header()
    edge_kinds = {h["edge"]: h["kind"] for h in header["harbors"]}
    for hb in data["harbors"]:
        # The harbor edge is the side between its land and sea hex.
        e = [e for e, (u, v) in enumerate(T.EDGE_NODES.tolist())
             if {tuple(c) for c in T.NODE_HEX_COORDS[u].tolist()}
             & {tuple(c) for c in T.NODE_HEX_COORDS[v].tolist()}
             == {tuple(hb["land"]), tuple(hb["sea"])}]
        assert edge_kinds[e[0]] == hb["kind"]


def _opening_rows(n):
    return beginner_openings(n).reshape(4, 4)


@pytest.mark.parametrize("n_players", [3, 4])
def test_beginner_openings_legal(n_players):
    rows = _opening_rows(n_players)
    used = rows[:n_players]
    assert (rows[n_players:] == -1).all()
    nodes = used[:, [0, 2]].ravel().tolist()
    assert len(set(nodes)) == 2 * n_players
    for a in nodes:  # distance rule: no two settlements on neighbouring intersections
        assert not set(T.NODE_NEIGHBOURS[a].tolist()) & set(nodes)
        assert (T.NODE_HEXES[a] >= 0).all()  # on three land hexes
    for n1, e1, n2, e2 in used.tolist():
        assert n1 in T.EDGE_NODES[e1] and n2 in T.EDGE_NODES[e2]
    edges = used[:, [1, 3]].ravel().tolist()
    assert len(set(edges)) == 2 * n_players


def test_three_players_drop_red():
    four, three = _opening_rows(4), _opening_rows(3)
    assert (three[:3] == four[1:]).all()


def test_star_settlement_is_second_and_reproduces_star_resources():
    data = json.loads(BEGINNER_JSON.read_text())
    b = beginner_board()
    rows = _opening_rows(4)
    for seat, colour in enumerate(("red", "blue", "white", "orange")):
        node2 = rows[seat, 2]
        res = [RESOURCE_NAMES[TERRAIN_RESOURCE[b.terrain[h]]]
               for h in T.NODE_HEXES[node2] if h >= 0 and b.terrain[h] != DESERT]
        assert sorted(res) == sorted(data["start"][colour]["star_resources"]), colour
        star = data["start"][colour]["settlements"][data["start"][colour]["star_settlement_index"]]
        assert {tuple(c) for c in T.NODE_HEX_COORDS[node2].tolist()} == {tuple(c) for c in star}


def test_beginner_openings_bad_players():
    with pytest.raises(CatansimError, match="n_players"):
        beginner_openings(2)


# --- user boards ----------------------------------------------------------------

def test_parse_compact_json_toml_agree(tmp_path):
    b = beginner_board()
    assert parse_board(BEGINNER_TEXT) == b  # harbors default to the beginner frame
    names = [TERRAIN_NAMES[t] for t in b.terrain]
    numbers = [int(n) if n else None for n in b.number]
    obj = {"terrains": names, "numbers": numbers,
           "harbors": ["3:1", "wheat", "ore", "any", "wool", "any", "any", "brick", "wood"]}
    assert parse_board(json.dumps(obj)) == b
    p = tmp_path / "mine.json"
    p.write_text(json.dumps(obj))
    assert parse_board(p) == b and parse_board(str(p)) == b
    toml = tmp_path / "mine.toml"
    toml.write_text("terrains = [" + ", ".join(f'"{t}"' for t in names) + "]\n"
                    "numbers = [" + ", ".join(str(n or 0) for n in numbers) + "]\n")
    assert parse_board(toml) == b
    txt = tmp_path / "mine.txt"
    txt.write_text("# beginner map\n" + BEGINNER_TEXT.replace(" / ", "\n") + "\n")
    assert parse_board(txt) == b


def _swap(text, old, new):
    assert old in text
    return text.replace(old, new, 1)


BAD_BOARDS = [
    ("hex count", BEGINNER_TEXT.rsplit(" ", 1)[0],
     "board.terrains: expected a list of 19 hexes, got 18"),
    ("terrain counts", _swap(BEGINNER_TEXT, "F9", "M9"),
     "board.terrains: got 3 forest, 3 hills, 4 pasture, 4 fields, 4 mountains, 1 desert; "
     "allowed: 4 forest, 3 hills, 4 pasture, 4 fields, 3 mountains, 1 desert"),
    ("unknown terrain", _swap(BEGINNER_TEXT, "P2", "X2"),
     "board.terrains[1]: unknown terrain 'X'; allowed: forest (F)"),
    ("number 7", _swap(BEGINNER_TEXT, "M8", "M7"),
     "board.numbers[11]: 7 is not a number disc; allowed: 2-6 or 8-12"),
    ("number 13", _swap(BEGINNER_TEXT, "P11", "P13"),
     "board.numbers[18]: 13 is not a number disc; allowed: 2-6 or 8-12"),
    ("number on desert", _swap(BEGINNER_TEXT, " D ", " D5 "),
     "board.numbers[9]: hex 9 is the desert and takes no number, got 5; allowed: none"),
    ("hex without number", _swap(BEGINNER_TEXT, "F11", "F"),
     "board.numbers[8]: hex 8 is forest and needs a number, got none; allowed: 2-6 or 8-12"),
    ("number multiset", _swap(BEGINNER_TEXT, "P2", "P3"),
     "board.numbers: extra [3], missing [2]; allowed: the 18 standard discs (2 and 12 once, "
     "3-6 and 8-11 twice)"),
    ("harbor count", BEGINNER_TEXT + " | any wheat",
     "board.harbors: expected a list of 9 harbor kinds, got 2"),
    ("unknown harbor", BEGINNER_TEXT + " | any wheat ore any wool any any brick gold",
     "board.harbors[8]: unknown harbor kind 'gold'; allowed: any (3:1), wood, brick"),
    ("harbor counts", BEGINNER_TEXT + " | any wheat ore any wool any any brick brick",
     "board.harbors: got {'any': 4, 'brick': 2, 'ore': 1, 'wheat': 1, 'wool': 1}; allowed: "
     "one 2:1 harbor per resource and 4 'any' (3:1)"),
    ("json numbers count", json.dumps({"terrains": list("MPF") * 6 + ["D"], "numbers": [5] * 18}),
     "board.numbers: expected a list of 19 numbers (one per hex), got 18"),
    ("json unknown key", json.dumps({"terrains": [], "numbers": [], "robber": 9}),
     "board: unknown key 'robber'; allowed: terrains, numbers, harbors"),
    ("json word number", json.dumps({"terrains": ["F"] * 19, "numbers": ["six"] * 19}),
     "board.numbers[0]: 'six' is not a number disc"),
]


@pytest.mark.parametrize("text,message", [b[1:] for b in BAD_BOARDS],
                         ids=[b[0] for b in BAD_BOARDS])
def test_invalid_user_boards(text, message):
    with pytest.raises(CatansimError) as exc:
        parse_board(text)
    msg = str(exc.value)
    assert msg.startswith(message)
    assert "\n" not in msg and "; allowed: " in msg


def test_invalid_file_names_the_file(tmp_path):
    p = tmp_path / "oops.toml"
    p.write_text('terrains = ["F"]\nnumbers = [5]\n')
    with pytest.raises(CatansimError, match=r"^oops\.toml\.terrains: expected a list of 19"):
        parse_board(p)


def test_from_vector_validates():
    v = beginner_board().vector
    v[B_NUMBER + 9] = 6  # a number on the desert
    with pytest.raises(CatansimError, match="desert"):
        Board.from_vector(v)
    with pytest.raises(CatansimError, match="board vector: expected 47"):
        Board.from_vector(v[:40])


# --- ids and headers -----------------------------------------------------------------

def test_board_id_is_a_stable_hash():
    b = beginner_board()
    raw = b.vector.astype("<i4").tobytes()
    expect = int.from_bytes(hashlib.blake2b(raw, digest_size=8).digest(), "little") >> 1
    assert b.board_id == expect == 2580695264946523211
    vecs = generate_vectors("variable", [1, 2, 3])
    assert board_ids(vecs).tolist() == [make_board("variable", s).board_id for s in (1, 2, 3)]


def test_header_shape():
    b = make_board("variable", 3)
    h = json.loads(json.dumps(b.to_header()))
    assert set(h) == {"hexes", "nodes", "edges", "harbors", "robber"}
    assert len(h["hexes"]) == 19 and len(h["nodes"]) == 54 and len(h["edges"]) == 72
    assert all(len(n) == 3 and all(len(c) == 2 for c in n) for n in h["nodes"])
    assert h["hexes"][h["robber"]] == {**h["hexes"][h["robber"]], "terrain": "desert",
                                       "number": None}
    assert sorted(x["kind"] for x in h["harbors"]) == sorted(
        ["any"] * 4 + list(RESOURCE_NAMES))
    for x in h["harbors"]:  # harbor edges are coastal
        a, b2 = h["edges"][x["edge"]]
        shared = {tuple(c) for c in h["nodes"][a]} & {tuple(c) for c in h["nodes"][b2]}
        assert sum(max(abs(q), abs(r), abs(q + r)) <= 2 for q, r in shared) == 1


@pytest.mark.parametrize("board", [beginner_board(), make_board("variable", 9),
                                   make_board("random_numbers", 9)])
def test_header_round_trip(board):
    h = json.loads(json.dumps(board.to_header()))
    back = Board.from_header(h)
    assert back == board and (back.vector == board.vector).all()


def renumber(header, seed):
    """The same board as another program might number it: hexes, nodes, edges shuffled."""
    rnd = random.Random(seed)
    hexes = list(range(19))
    nodes = list(range(54))
    edges = list(range(72))
    for xs in (hexes, nodes, edges):
        rnd.shuffle(xs)  # xs[new] = old
    node_new = {old: new for new, old in enumerate(nodes)}
    edge_new = {old: new for new, old in enumerate(edges)}
    hex_new = {old: new for new, old in enumerate(hexes)}
    out_nodes = []
    for old in nodes:
        trio = list(header["nodes"][old])
        rnd.shuffle(trio)
        out_nodes.append(trio)
    out_edges = []
    for old in edges:
        a, b = header["edges"][old]
        pair = [node_new[a], node_new[b]]
        rnd.shuffle(pair)
        out_edges.append(pair)
    harbors = [{"edge": edge_new[x["edge"]], "kind": x["kind"]} for x in header["harbors"]]
    rnd.shuffle(harbors)
    return {"hexes": [header["hexes"][old] for old in hexes], "nodes": out_nodes,
            "edges": out_edges, "harbors": harbors, "robber": hex_new[header["robber"]]}


@pytest.mark.parametrize("seed", range(5))
def test_header_from_another_numbering(seed):
    board = make_board("variable", 100 + seed)
    other = renumber(board.to_header(), seed)
    assert other["nodes"] != board.to_header()["nodes"]
    assert Board.from_header(other) == board


def test_header_with_wrong_robber():
    h = beginner_board().to_header()
    h["robber"] = 0
    with pytest.raises(CatansimError, match="header.board.robber: hex 0 is not the desert"):
        Board.from_header(h)


def test_header_harbor_off_slot():
    h = beginner_board().to_header()
    h["harbors"][0]["edge"] = int(T.COASTAL_EDGES[1])  # a coastal edge without a harbor slot
    assert int(T.COASTAL_EDGES[1]) not in T.HARBOR_EDGES
    with pytest.raises(CatansimError, match=r"header.board.harbors\[0\]"):
        Board.from_header(h)


def test_header_malformed():
    h = beginner_board().to_header()
    del h["hexes"][3]["q"]
    with pytest.raises(CatansimError, match=r"^header.board: malformed board object"):
        Board.from_header(h)
    with pytest.raises(CatansimError, match="missing key 'robber'"):
        Board.from_header({k: v for k, v in beginner_board().to_header().items()
                           if k != "robber"})
