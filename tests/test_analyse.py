"""The review of a game log (``catansim analyse``, ``catansim.review``), on tiny budgets.

- The decisions a log records (``review.choices``) are, in order, the choices the
  writing game's seats made, but the offers refused and their answers (which a log
  does not keep), and the roll the rules make after a card played before it.
- Known answers: at the game's last event the winner's chance is 1 and the others' 0
  (no rollouts); the move that wins on the spot has a win share of 1; a decision with
  one legal option has no row and is counted as forced, and rows, forced decisions and
  those without an alternative add up to the seat's decisions in the writing game.
- Every row has the columns and dtypes of ``results.review``; shares lie in their
  intervals; the flags follow the threshold and the interval; the files on disk hold
  the tables returned.
- Rows depend only on the seed and the log: the same with another chunk size, in a
  pool of two processes, and when a log in another writer's numbering is reviewed; a
  deleted chunk is computed again on a rerun, alone, to the same tables; another
  seed gives other numbers.
- A review folder of other settings is refused naming the setting; a new threshold
  flags anew from the chunks written; bad inputs are one-line errors naming the field.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from helpers import reversed_numbering

from catansim import Game
from catansim.errors import CatansimError
from catansim.logs import game_log, write_log
from catansim.logs.position import standing
from catansim.results.review import MOVES, TIMELINE, names
from catansim.review import analyse
from catansim.review import values as V
from catansim.review.choices import log_choices
from catansim.settings import GameSettings

TINY = dict(rollouts=8, budget=8, workers=1)


def writing_game(seed: int, settings: GameSettings):
    """The game ``play_game`` plays for ``seed``, every seat external taking its
    suggestion; and each decision made: (seat, decision, number of options, option)."""
    game = Game(seed, settings=settings, external=range(settings.n_players))
    made = []
    while not game.over:
        option = game.suggest()
        made.append((game.to_move, game.decision, len(game.legal_options()), option))
        game.step(option)
    return game, made


def logged(made):
    """The decisions a log keeps: not an offer refused (by its partner's answer, or at
    once, the partner lacking the cards), nor its answer."""
    out, i = [], 0
    while i < len(made):
        if made[i][3].kind == "offer" and made[i + 1][1] != "trade answer":
            i += 1
            continue
        if made[i][3].kind == "offer" and made[i + 1][3].kind == "refuse":
            i += 2
            continue
        out.append(made[i])
        i += 1
    return out


@pytest.fixture(scope="module")
def game():
    """A game of four default players (offers, cards, robbers), its log and decisions."""
    settings = GameSettings(n_players=4, strategies=("default",) * 4)
    played, made = writing_game(5, settings)
    return game_log(played.result()), made, played


@pytest.fixture(scope="module")
def review(game, tmp_path_factory):
    (header, events), _, _ = game
    return analyse((header, events), tmp_path_factory.mktemp("review") / "r", seat=0,
                   seed=1, **TINY)


@pytest.mark.parametrize("strategies", [("random",), ("trader", "default", "army"),
                                        ("default",)])
def test_the_choices_a_log_records_are_those_the_writing_game_made(strategies):
    settings = GameSettings(n_players=len(strategies) if len(strategies) > 1 else 4,
                            strategies=strategies)
    for seed in (3, 4):
        played, made = writing_game(seed, settings)
        header, events = game_log(played.result())
        from_log = [(c.seat, c.option) for each in log_choices(header, events) for c in each]
        assert from_log == [(q, o) for q, _, _, o in logged(made)], seed
        kinds = {o.kind for _, o in from_log}
        assert {"settlement", "road", "roll", "end"} <= kinds


def test_the_choices_of_a_log_in_another_numbering_are_the_same(game):
    (header, events), _, _ = game
    theirs = reversed_numbering(header, events)
    assert log_choices(*theirs) == log_choices(header, events)


def test_at_the_last_event_the_winner_has_won(game, review):
    (header, events), _, played = game
    t = review.timeline
    end = t[t["event"] == len(events) - 1]
    assert list(end["seat"]) == [0, 1, 2, 3]
    assert list(end["win"]) == [float(q == played.winner) for q in range(4)]
    assert (end["rollouts"] == 0).all()
    assert (end["win_low"] == end["win"]).all() and (end["win_high"] == end["win"]).all()


def test_the_timeline_stands_at_the_start_every_turn_and_the_end(game, review):
    (header, events), _, played = game
    t = review.timeline
    turns = [k for k, ev in enumerate(events) if ev["e"] == "turn_start"]
    assert sorted(t["event"].unique()) == [-1, *turns, len(events) - 1]
    assert t.groupby("event").size().eq(4).all()
    assert list(t.drop_duplicates("event")["turn"]) == [0, *range(1, played.turns + 1),
                                                        played.turns]
    assert (t["observer"] == 0).all()
    running = t[t["rollouts"] > 0]
    assert (running["rollouts"] == TINY["rollouts"]).all()
    assert running.groupby("event")["win"].sum().le(1 + 1e-12).all()  # a turn-cap: none


def test_every_row_has_the_columns_of_the_review_tables(review):
    for table, frame in ((TIMELINE, review.timeline), (MOVES, review.moves)):
        assert tuple(frame.columns) == names(table)
        assert [str(t) for t in frame.dtypes] == [d for _, d, _ in table]
        assert len(frame)
    for name, frame in (("timeline", review.timeline), ("moves", review.moves)):
        on_disk = pd.read_parquet(review.out / f"{name}.parquet")
        pd.testing.assert_frame_equal(on_disk, frame)
        csv = pd.read_csv(review.out / f"{name}.csv")
        assert list(csv.columns) == list(frame.columns) and len(csv) == len(frame)


def test_shares_lie_in_their_intervals_and_flags_follow_the_threshold(review):
    t, m = review.timeline, review.moves
    assert ((t["win_low"] <= t["win"] + 1e-12) & (t["win"] <= t["win_high"] + 1e-12)).all()
    assert np.allclose(m["loss"], m["win_best"] - m["win_played"])
    assert ((m["loss_low"] <= m["loss"] + 1e-12) & (m["loss"] <= m["loss_high"] + 1e-12)).all()
    assert (m["flagged"] == ((m["loss"] > 0.05) & (m["loss_low"] > 0))).all()
    assert (m["rollouts"] == TINY["budget"] // 4).all()
    assert (m["played"] != m["best"]).all() and (m["seat"] == 0).all()
    assert review.summary["flagged"] == int(m["flagged"].sum())


def test_the_rows_and_counts_are_the_seats_decisions(game, review):
    """Rows, forced decisions (one option) and those with no alternative searched add
    up to seat 0's decisions the log keeps. A decision of one option in the writing
    game is forced in the review, or has no alternative: after offers refused (which
    a log does not keep) the writing game had closed the turn's offers, a position of
    the log lists them (``Game.from_log``), and the search tries no offer."""
    _, made, _ = game
    mine = [d for d in logged(made) if d[0] == 0]
    s = review.summary
    assert s["skipped"] == {}
    one = sum(k == 1 for _, _, k, _ in mine)
    assert s["forced"] <= one <= s["forced"] + s["no_alternative"]
    assert len(review.moves) + s["forced"] + s["no_alternative"] == len(mine)
    decided = iter([(d, str(o)) for _, d, _, o in mine])
    rows = zip(review.moves["decision"], review.moves["played"], strict=True)
    assert all(row in decided for row in rows)  # in order, skipping those not valued


def test_the_move_that_wins_on_the_spot_has_a_win_share_of_one(game, tmp_path):
    (header, events), _, played = game
    winning = max(k for k, ev in enumerate(events) if ev.get("p") == played.winner
                  and ev["e"] in ("build_settlement", "build_city", "build_road", "buy_dev",
                                  "play_dev"))
    assert events[winning + 1]["e"] in ("game_end", "longest_route", "largest_army")
    r = analyse((header, events), tmp_path / "w", seat=played.winner, events=[-1], seed=2,
                **TINY)
    row = r.moves[r.moves["event"] == winning]
    assert len(row) == 1 and float(row["win_played"].iloc[0]) == 1.0
    assert float(row["loss"].iloc[0]) <= 0


def test_the_numbers_depend_on_the_seed_and_the_log_only(game, review, tmp_path):
    (header, events), _, _ = game
    other_blocks = analyse((header, events), tmp_path / "b", seat=0, seed=1, block=50,
                           **TINY)
    pd.testing.assert_frame_equal(other_blocks.timeline, review.timeline)
    pd.testing.assert_frame_equal(other_blocks.moves, review.moves)
    theirs = analyse(reversed_numbering(header, events), tmp_path / "n", seat=0, seed=1,
                     **TINY)
    pd.testing.assert_frame_equal(theirs.timeline, review.timeline)
    pd.testing.assert_frame_equal(theirs.moves, review.moves)
    other_seed = analyse((header, events), tmp_path / "s", seat=0, seed=2, **TINY)
    assert not other_seed.timeline["win"].equals(review.timeline["win"])


def test_a_pool_of_processes_gives_what_one_process_gives(game, review, tmp_path):
    (header, events), _, _ = game
    pooled = analyse((header, events), tmp_path / "p", seat=0, seed=1,
                     **{**TINY, "workers": 2})
    pd.testing.assert_frame_equal(pooled.timeline, review.timeline)
    pd.testing.assert_frame_equal(pooled.moves, review.moves)
    assert pooled.summary["this_run"]["workers"] == 2


def test_a_rerun_computes_a_deleted_chunk_again_and_only_it(game, review, tmp_path):
    (header, events), _, _ = game
    out = tmp_path / "r"
    first = analyse((header, events), out, seat=0, seed=1, **TINY)
    chunks = sorted((out / "chunks").glob("c*.json"))
    assert first.summary["this_run"]["chunks"] == len(chunks) > 3
    (out / "chunks" / "c0002-moves.parquet").unlink()
    again = analyse((header, events), out, seat=0, seed=1, **TINY)
    assert again.summary["this_run"]["chunks"] == 1
    pd.testing.assert_frame_equal(again.timeline, first.timeline)
    pd.testing.assert_frame_equal(again.moves, first.moves)
    assert again.summary["rollouts_played"] == first.summary["rollouts_played"]
    done = analyse((header, events), out, seat=0, seed=1, **TINY)
    assert done.summary["this_run"]["chunks"] == 0


def test_a_new_threshold_flags_anew_and_other_settings_are_refused(game, tmp_path):
    (header, events), _, _ = game
    out = tmp_path / "t"
    low = analyse((header, events), out, seat=0, seed=1, threshold=0, **TINY)
    high = analyse((header, events), out, seat=0, seed=1, threshold=100, **TINY)
    assert high.summary["this_run"]["chunks"] == 0 and not high.moves["flagged"].any()
    assert (low.moves["flagged"] == (low.moves["loss_low"] > 0)
            & (low.moves["loss"] > 0)).all()
    assert json.loads((out / "review.json").read_text())["summary"]["threshold"] == 100
    with pytest.raises(CatansimError, match=r"holds another review \(seed: 1 there, 3 now\); "
                                            r"allowed: the same seed, or a new folder"):
        analyse((header, events), out, seat=0, seed=3, **TINY)
    with pytest.raises(CatansimError, match=r"\(log_sha256: '[0-9a-f]{64}' there, "):
        analyse((header, events[:-40]), out, seat=0, seed=1, **TINY)
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "x.txt").write_text("x")
    with pytest.raises(CatansimError, match="holds other files and no review.json"):
        analyse((header, events), tmp_path / "busy", **TINY)


def test_the_full_state_splits_its_rollouts_over_orders_of_the_deck(game, tmp_path):
    (header, events), _, _ = game
    r = analyse((header, events), tmp_path / "f", seat=1, observer="full", events=[200, 300],
                rollouts=16, budget=16, workers=1, seed=4)
    assert (r.timeline["observer"] == -1).all() and len(r.moves)
    manifest = json.loads((tmp_path / "f" / "review.json").read_text())
    assert manifest["information"] == "omniscient" and manifest["observer"] == -1
    assert V.DECK_ORDERS > 1


def test_a_position_that_does_not_load_is_counted(game, tmp_path, monkeypatch):
    (header, events), _, _ = game
    real = Game.from_position

    def refuse_late(pos, **kw):
        if pos.at >= 300:
            raise CatansimError("determinize: no deal of the hidden cards fits")
        return real(pos, **kw)

    monkeypatch.setattr(Game, "from_position", refuse_late)
    r = analyse((header, events), tmp_path / "x", seat=0, seed=1, **TINY)
    s = r.summary
    assert s["skipped"][V.NO_DEAL] > 0
    assert (r.moves["event"] <= 300).all() and (r.timeline["event"] < 300).all()


def test_a_log_file_and_the_command(game, tmp_path, capsys):
    from catansim.cli import main

    (header, events), _, _ = game
    write_log(tmp_path / "g.jsonl", header, events)
    main(["analyse", str(tmp_path / "g.jsonl"), "--out", str(tmp_path / "c"),
          "--rollouts", "4", "--budget", "8", "--workers", "1", "--events", "-1,100",
          "--quiet", "--threshold", "0"])  # returns: exit status 0
    out = capsys.readouterr().out
    assert "win chances at 2 positions, from seat 0's public information" in out
    assert "flagged (cost more than 0 points" in out
    manifest = json.loads((tmp_path / "c" / "review.json").read_text())
    assert manifest["log"] == str(tmp_path / "g.jsonl")
    assert manifest["events"] == [-1, standing(events, 100)]  # a roll: with its production
    page = (tmp_path / "c" / "review.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and 'id="review-data"' in page


@pytest.mark.parametrize("kwargs, message", [
    (dict(seat=4), r"^seat: 4 is out of range; allowed: a seat in 0\.\.3"),
    (dict(observer=5), r"^observer: 5 is not allowed; allowed: a seat in 0\.\.3, or full"),
    (dict(observer="all"), r"^observer: 'all' is not allowed"),
    (dict(events="some"), r"^events: 'some' is not allowed; allowed: turns, all, or event"),
    (dict(events=[3, 10**6]), r"^events: 1000000 is not an event of the log"),
    (dict(events=[]), r"^events: none given"),
    (dict(rollouts=1), r"^rollouts: 1 is out of range; allowed: an integer in 2\.\.100000"),
    (dict(budget=7), r"^budget: 7 is out of range; allowed: an integer in 8\.\.100000"),
    (dict(candidates=1), r"^candidates: 1 is out of range"),
    (dict(threshold=-1), r"^threshold: -1 is out of range; allowed: a number in 0\.\.100"),
    (dict(strategy="search"), r"^strategy: 'search' is not a compiled strategy"),
    (dict(seed=-1), r"^seed: -1 is not allowed"),
    (dict(workers=0), r"^workers: 0 is out of range"),
    (dict(block=0), r"^block: 0 is out of range"),
])
def test_bad_input_is_one_line_naming_the_field(game, tmp_path, kwargs, message):
    (header, events), _, _ = game
    with pytest.raises(CatansimError, match=message) as err:
        analyse((header, events), tmp_path / "bad", **{**TINY, **kwargs})
    assert "\n" not in str(err.value) and "; allowed: " in str(err.value)
    assert not (tmp_path / "bad").exists()


def test_a_bad_log_is_one_line_naming_it(game, tmp_path):
    (header, events), _, _ = game
    bad = [dict(ev) for ev in events]
    bad[3] = {**bad[3], "edge": 999}
    with pytest.raises(CatansimError, match=r"^log: event 3 .*; allowed: ") as err:
        analyse((header, bad), tmp_path / "bad", **TINY)
    assert "\n" not in str(err.value)
    with pytest.raises(CatansimError, match=r"^log: int is not allowed; allowed: a path"):
        analyse(7, tmp_path / "bad", **TINY)
    with pytest.raises(CatansimError, match=r"nowhere\.jsonl"):
        analyse(tmp_path / "nowhere.jsonl", tmp_path / "bad", **TINY)
    with pytest.raises(CatansimError, match=r"^log: the log has no events"):
        analyse((header, []), tmp_path / "bad", **TINY)
    assert not (tmp_path / "bad").exists()


def test_the_docs_show_the_columns_of_the_review_tables():
    from pathlib import Path

    from catansim.results.review import markdown

    text = (Path(__file__).resolve().parents[1] / "docs" / "analyse.md").read_text()
    assert markdown(TIMELINE) in text and markdown(MOVES) in text
