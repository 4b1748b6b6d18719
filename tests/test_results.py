"""Result tables: schema, dtypes, sentinels, documentation, replay of a row."""

import numpy as np
import pandas as pd
import pytest

from catansim import results as R
from catansim.core import layout as L
from catansim.engine import BatchResult, batch_seeds, play_batch, play_game
from catansim.rules import Rules
from catansim.settings import GameSettings


@pytest.fixture(scope="module")
def batch4():
    st = GameSettings(n_players=4, strategies=("default", "random", "builder", "city"))
    return play_batch(batch_seeds(11, 40), st)


@pytest.fixture(scope="module")
def batch3():
    return play_batch(batch_seeds(12, 30), GameSettings(n_players=3, strategies=("random",)))


def _doc(table):
    c = R.COLUMNS[R.COLUMNS.table == table]
    return list(c.name), list(c.dtype)


@pytest.mark.parametrize("which", ["batch4", "batch3"])
def test_columns_and_dtypes_match_the_documentation(which, request):
    b = request.getfixturevalue(which)
    g, p = R.games_frame(b), R.players_frame(b)
    for table, df in (("games", g), ("players", p)):
        names, dtypes = _doc(table)
        assert list(df.columns) == names
        assert [str(d) for d in df.dtypes] == dtypes
    assert len(g) == b.seeds.size
    assert len(p) == b.seeds.size * b.settings.n_players  # no rows for unused seats
    seats = np.tile(np.arange(b.settings.n_players), b.seeds.size)
    np.testing.assert_array_equal(p.seat.to_numpy(), seats)


def test_every_counter_field_is_in_a_table():
    counters = {name for name, _, _ in L.STATE_FIELDS if name.startswith("c_")}
    assert R.covered_fields() == counters
    assert R.COLUMNS.meaning.str.len().gt(5).all()
    assert not R.COLUMNS.duplicated(["table", "name"]).any()


def test_docs_are_in_sync():
    assert R.schema.DOCS_PATH.read_text() == R.render_docs(), "run: python -m catansim.results"


def test_values_come_from_the_right_slots(batch4):
    g, p = R.games_frame(batch4), R.players_frame(batch4)
    c = batch4.counters
    off = L.S_COUNTERS
    i = 7
    assert g.turns[i] == c[i, L.C_TURNS - off]
    assert [g[f"rolls_{k}"][i] for k in range(2, 13)] == list(c[i, L.C_ROLLS - off:][:11])
    assert g.sevens[i] == g.rolls_7[i]
    row = p[(p.game == i) & (p.seat == 2)].iloc[0]
    assert row.produced_wheat == c[i, L.C_PRODUCED - off + 5 * 2 + 3]
    assert row.dev_bought_knight == c[i, L.C_DEV_BOUGHT - off + 5 * 2 + 0]
    assert row.start_node_2 == c[i, L.C_START_NODES - off + 2 * 2 + 1]
    assert row.strategy == "builder"
    # VP add up, and winners are consistent between the tables
    vp = p[[f"vp_{s}" for s in ("settlements", "cities", "longest", "army", "cards")]].sum(axis=1)
    assert (vp == p.vp).all()
    won = p[p.won].set_index("game").seat
    assert (g.set_index("game").winner.dropna().astype(int) == won).all()
    assert (g.winner_strategy.astype(str)[g.winner.notna()]
            == np.array(batch4.settings.strategies)[g.winner.dropna().astype(int)]).all()


def test_categoricals_and_null_sentinels():
    st = GameSettings(n_players=4, strategies=("random",), rules=Rules(max_turns=12))
    b = play_batch(batch_seeds(3, 20), st)
    g, p = R.games_frame(b, variant="short", variants=["baseline", "short"]), R.players_frame(b)
    assert (g.end_reason == "turn_limit").all()
    assert g.winner.isna().all() and g.winner_strategy.isna().all()
    assert list(g.variant.cat.categories) == ["baseline", "short"]
    assert list(g.end_reason.cat.categories) == ["win", "turn_limit"]
    assert g.strategy_0.dtype == "category" and p.strategy.dtype == "category"
    assert p.first_city_turn.isna().all()  # nobody builds a city in 12 turns
    assert not p.won.any()
    assert str(g.longest_holder.dtype) == "Int8"


def test_three_player_games_leave_seat_3_empty(batch3):
    g = R.games_frame(batch3)
    assert g.strategy_3.isna().all() and (g.n_players == 3).all()
    assert set(R.players_frame(batch3).seat) == {0, 1, 2}


def test_fixed_board_features_are_the_boards(batch3):
    from catansim.board import make_board
    from catansim.board.metrics import board_features

    board = make_board("variable", 5)
    b = play_batch(batch_seeds(1, 5), GameSettings(layout="given", board=board))
    g = R.games_frame(b)
    assert (g.board_id == board.board_id).all() and (g.layout == "given").all()
    assert (g.pips_ore == board_features(board.vector)["pips_ore"][0]).all()
    gv = R.games_frame(batch3)
    assert gv.board_id.nunique() == len(gv)  # a new board per game


def test_a_row_replays_through_play_game(batch4):
    g = R.games_frame(batch4)
    row = g.iloc[13]
    res = play_game(int(row.seed), settings=batch4.settings, log=False)
    np.testing.assert_array_equal(res.counters, batch4.counters[13])
    one = BatchResult(np.array([row.seed]), res.counters[None, :], res.board.vector[None, :],
                      batch4.settings)
    again = R.games_frame(one, game_index=[13])
    pd.testing.assert_frame_equal(again, g.iloc[[13]].reset_index(drop=True))


def test_win_rates_have_wilson_intervals(batch4):
    from catansim.analysis import summarize
    from catansim.analysis.summary import win_rates

    p = R.players_frame(batch4)
    w = win_rates(p, "seat")
    assert (w.seat_games == 40).all()
    assert w.wins.sum() == R.games_frame(batch4).winner.notna().sum()
    assert ((w.ci_low <= w.win_rate) & (w.win_rate <= w.ci_high)).all()
    summary = summarize(R.games_frame(batch4), p)
    assert set(summary) == {"by_strategy", "by_seat", "length", "per_game", "vp_sources"}


@pytest.mark.parametrize("which", ["batch4", "batch3"])
def test_arrow_tables_equal_the_frames_through_from_pandas(which, request):
    """The runner writes games_table/players_table: the same schema (pandas metadata
    included) and values as pyarrow's conversion of the frames."""
    import pyarrow as pa

    b = request.getfixturevalue(which)
    kw = dict(game_index=np.arange(100, 100 + b.seeds.size), variant="v", variants=["u", "v"],
              strategy_names=["army", "builder", "city", "default", "random"])
    for frame, table in ((R.games_frame, R.games_table), (R.players_frame, R.players_table)):
        expected = pa.Table.from_pandas(frame(b, **kw), preserve_index=False)
        got = table(b, **kw)
        assert got.schema.equals(expected.schema, check_metadata=True)
        assert got.equals(expected)
        pd.testing.assert_frame_equal(got.to_pandas(), expected.to_pandas())


def test_rotated_batches_make_one_table_in_game_order():
    """Batches of one part played with shifted seats (as the runner plays rotations)
    give the concatenation of their frames sorted by game."""
    names = ("default", "random", "builder", "city")
    idx = np.arange(50, 71)
    seeds = batch_seeds(8, idx.size, 50)
    batches, index = [], []
    for shift in range(4):
        sel = idx % 4 == shift
        st = GameSettings(n_players=4, strategies=names[-shift:] + names[:-shift])
        batches.append(play_batch(seeds[sel], st))
        index.append(idx[sel])
    kw = dict(strategy_names=sorted(names))
    for frame in (R.games_frame, R.players_frame):
        parts = [frame(b, i, **kw) for b, i in zip(batches, index, strict=True)]
        expected = (pd.concat(parts, ignore_index=True).sort_values("game", kind="stable")
                    .reset_index(drop=True))
        pd.testing.assert_frame_equal(frame(batches, index, **kw), expected)
    g = R.games_frame(batches, index)
    assert list(g.game) == list(idx) and list(g.seed) == list(seeds)
    assert list(g.strategy_0.cat.categories) == sorted(names)
    with pytest.raises(ValueError, match="one index array per batch"):
        R.games_frame(batches)
