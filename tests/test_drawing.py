"""Board drawings and the ``catansim board`` command."""

import matplotlib.colors as mcolors
import matplotlib.image as mpimg
import numpy as np
import pytest

from catansim.board import beginner_board, beginner_openings, make_board, pieces_from_openings
from catansim.board.metrics import node_table
from catansim.cli import main
from catansim.plotting import TERRAIN_COLOURS, draw_board, save_board_png
from catansim.plotting.board import RED_NUMBER_COLOUR, SEAT_COLOURS

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def read_png(path):
    assert path.read_bytes()[:8] == PNG_MAGIC
    assert path.stat().st_size > 20_000
    img = mpimg.imread(path)
    assert img.ndim == 3 and img.shape[0] > 400 and img.shape[1] > 400
    return img[..., :3]


def has_colour(img, colour, tol=0.02, min_pixels=30):
    rgb = np.array(mcolors.to_rgb(colour))
    return int((np.abs(img - rgb).max(axis=2) < tol).sum()) >= min_pixels


def n_colours(img):
    return len(np.unique((img * 255).round().astype(np.uint8).reshape(-1, 3), axis=0))


def test_plain_board(tmp_path):
    img = read_png(save_board_png(make_board("variable", 7), tmp_path / "plain.png"))
    assert n_colours(img) > 50
    for colour in TERRAIN_COLOURS:  # every terrain is drawn in its colour
        assert has_colour(img, colour), colour
    assert has_colour(img, RED_NUMBER_COLOUR)  # the 6s and 8s
    assert not has_colour(img, SEAT_COLOURS["blue"])  # no pieces


def test_beginner_with_pieces(tmp_path):
    pieces = pieces_from_openings(beginner_openings(4))
    assert (pieces["node_owner"] >= 0).sum() == 8 and (pieces["edge_owner"] >= 0).sum() == 8
    img = read_png(save_board_png(beginner_board(), tmp_path / "pieces.png", pieces=pieces))
    for colour in ("red", "blue", "orange"):
        assert has_colour(img, SEAT_COLOURS[colour]), colour


def test_cities_and_three_seat_colours(tmp_path):
    pieces = pieces_from_openings(beginner_openings(3))
    pieces["node_level"][pieces["node_owner"] == 0] = 2  # seat 0 (blue) has cities
    img = read_png(save_board_png(beginner_board(), tmp_path / "three.png", pieces=pieces,
                                  colours=("blue", "white", "orange")))
    assert has_colour(img, SEAT_COLOURS["blue"])
    assert not has_colour(img, SEAT_COLOURS["red"])


def test_indices(tmp_path):
    plain = read_png(save_board_png(beginner_board(), tmp_path / "a.png"))
    idx = read_png(save_board_png(beginner_board(), tmp_path / "b.png", indices=True))
    # Edge labels sit on a pale yellow box that the plain drawing does not have.
    assert has_colour(idx, "#fff3b0", min_pixels=500)
    assert not has_colour(plain, "#fff3b0", min_pixels=500)


def test_heat_maps(tmp_path):
    b = make_board("random_numbers", 3)
    node = read_png(save_board_png(b, tmp_path / "node.png",
                                   node_values=node_table(b)["pips"].to_numpy(),
                                   value_label="pips"))
    hexes = read_png(save_board_png(b, tmp_path / "hex.png", hex_values=np.arange(19.0)))
    for img in (node, hexes):  # both ends of the colour map appear (colour bar)
        assert has_colour(img, "#440154") and has_colour(img, "#fde725")
    assert not has_colour(read_png(save_board_png(b, tmp_path / "p.png")), "#440154")


def test_a_heat_map_with_every_value_blank_has_no_colour_scale(tmp_path):
    """Too few games for any intersection: the nodes are blank and no colour bar claims
    a scale (it used to show -0.1..0.1 and warn "All-NaN slice"); a few known values
    give a scale spanning exactly them."""
    import warnings

    import matplotlib.pyplot as plt

    from catansim.plotting.figures import board_heat_map

    blank = np.full(54, np.nan)
    some = blank.copy()
    some[[3, 40]] = [0.2, 0.3]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for board in (None, make_board("variable", 4)):
            fig = board_heat_map(node_values=blank, board=board, title="t", label="win rate")
            assert len(fig.axes) == 1  # no colour bar
            plt.close(fig)
            fig = board_heat_map(node_values=some, board=board, title="t", label="win rate")
            assert len(fig.axes) == 2
            assert fig.axes[1].get_ylim() == pytest.approx((0.2, 0.3))
            plt.close(fig)


def test_a_blank_hex_or_node_is_drawn_blank_in_both_heat_maps():
    """A NaN hex used to take the colour map's transparent "bad" colour on a drawn
    board, so the sea showed through it; both heat maps now draw it (and a NaN node)
    in the one blank colour."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import RegularPolygon

    from catansim import topology as T
    from catansim.plotting.board import BLANK_HEX_COLOUR, BLANK_NODE_COLOUR
    from catansim.plotting.figures import board_heat_map

    hexes = np.arange(19.0)
    hexes[4] = np.nan
    nodes = np.linspace(0, 1, 54)
    nodes[[0, 7]] = np.nan
    for board in (None, make_board("variable", 4)):
        fig = board_heat_map(hex_values=hexes, board=board, title="t", label="v")
        faces = {tuple(np.round(p.xy, 6)): p.get_facecolor() for p in fig.axes[0].patches
                 if isinstance(p, RegularPolygon) and p.radius == pytest.approx(0.98)}
        for h, xy in enumerate(T.HEX_XY):
            face = faces[tuple(np.round(xy, 6))]
            assert face[3] == 1.0, h  # nothing shows through
            blank = mcolors.to_rgba(BLANK_HEX_COLOUR)
            assert (face == pytest.approx(blank)) == (h == 4), h
        plt.close(fig)
        fig = board_heat_map(node_values=nodes, board=board, title="t", label="v")
        white = [c for c in fig.axes[0].collections
                 if len(c.get_offsets()) == 2
                 and np.allclose(c.get_facecolor()[0], mcolors.to_rgba(BLANK_NODE_COLOUR))]
        assert len(white) == 1
        assert np.allclose(white[0].get_offsets(), T.NODE_XY[[0, 7]])
        plt.close(fig)


def test_bad_overlays():
    b = beginner_board()
    with pytest.raises(ValueError, match="node_values: expected 54"):
        draw_board(b, node_values=np.zeros(19))
    with pytest.raises(ValueError, match="robber"):
        draw_board(b, robber=19)


# --- catansim board ----------------------------------------------------------------

def run(argv, capsys):
    code = 0
    try:
        main(argv)
    except SystemExit as exc:
        code = exc.code
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_variable_with_metrics(tmp_path, capsys):
    out_png = tmp_path / "v.png"
    code, out, err = run(["board", "--layout", "variable", "--seed", "7", "--out", str(out_png),
                          "--metrics"], capsys)
    assert code == 0, err
    read_png(out_png)
    assert f"board_id {make_board('variable', 7).board_id}" in out
    assert "seed 7" in out and "pips_wood" in out and "best intersections" in out


def test_cli_beginner_three_players_and_indices(tmp_path, capsys):
    out_png = tmp_path / "b.png"
    code, _, err = run(["board", "--players", "3", "--indices", "--out", str(out_png)], capsys)
    assert code == 0, err
    img = read_png(out_png)
    assert not has_colour(img, SEAT_COLOURS["red"])  # red sits out with 3 players
    assert has_colour(img, SEAT_COLOURS["blue"])


def test_cli_user_file(tmp_path, capsys):
    f = tmp_path / "mine.txt"
    f.write_text("M10 P2 F9 / G12 H6 P4 H10 / G9 F11 D F3 M8 / F8 M3 G4 P5 / H5 G6 P11\n")
    code, out, err = run(["board", "--file", str(f), "--out", str(tmp_path / "u.png")], capsys)
    assert code == 0, err
    assert f"board_id {beginner_board().board_id}" in out


@pytest.mark.parametrize("argv,fragment", [
    (["--layout", "hexagonal"], "--layout: 'hexagonal' is not allowed; allowed: beginner"),
    (["--layout", "variable", "--seed", "-1"], "--seed: -1 is not allowed; allowed: an integer"),
    (["--players", "5"], "--players: 5 is not allowed; allowed: 3, 4"),
    (["--seed", "3"], "--seed: the beginner layout is fixed"),
    (["--file", "BAD"], "bad.txt.numbers[18]: 7 is not a number disc; allowed: 2-6 or 8-12"),
])
def test_cli_bad_input(tmp_path, capsys, argv, fragment):
    bad = tmp_path / "bad.txt"
    bad.write_text("M10 P2 F9 / G12 H6 P4 H10 / G9 F11 D F3 M8 / F8 M3 G4 P5 / H5 G6 P7\n")
    argv = [str(bad) if a == "BAD" else a for a in argv]
    code, _, err = run(["board", *argv, "--out", str(tmp_path / "x.png")], capsys)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("catansim: error: ")
    assert fragment in lines[0]
    assert not (tmp_path / "x.png").exists()


def test_the_length_histogram_steps_through_every_length_and_starts_at_zero():
    """Five games of lengths 52, 65, 68, 74 and 77: the line is 20% at each and 0 between
    them (a step from 52 to 65 used to draw 20% across every length between)."""
    import matplotlib.pyplot as plt
    import pandas as pd

    from catansim.plotting.figures import length_histogram

    values = [52, 65, 68, 74, 77]
    dist = pd.DataFrame({"games": 1, "share": 0.2},
                        index=pd.MultiIndex.from_product([["baseline"], values],
                                                         names=["variant", "value"]))
    fig = length_histogram(dist)
    x, y = fig.axes[0].lines[0].get_data()
    assert list(x) == list(range(52, 78))
    assert {v: s for v, s in zip(x, y, strict=True) if s > 0} == {v: 20.0 for v in values}
    assert fig.axes[0].get_ylim()[0] == 0
    plt.close(fig)
