"""Python players by name (``python:module:Class``) in tournaments and experiment files,
end to end: the command line, the runner (resume included) and the datasets' labels.

The oracle is ``play_game``: every game of a tournament or a run equals the game the
step interface plays alone for its seed and seating (the same winner and points), and
its rows name the Python seat ``python:module:Class``. ``tests/players_example.py``
holds the players (the tests folder is on pytest's path).
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from cli_harness import one_line, run_main

import catansim
from catansim.engine import batch_seeds, play_game
from catansim.runs.experiment import load_experiment, parse_experiment
from catansim.runs.runner import run_experiment
from catansim.runs.tournament import seat_rotations, tournament

THRIFTY = "python:players_example:Thrifty"
FIELD = (THRIFTY, "default", "random", "default")


def _alone(seed, seating):
    res = play_game(int(seed), 4, list(seating), log=False)
    return res.winner, res.vp


def test_a_tournament_of_a_named_python_player_plays_each_seating_as_play_game_does():
    res = tournament(FIELD, 8, 4, seed=5)
    p = res.players
    seats = p[p["strategy"].astype(str) == THRIFTY]
    assert len(seats) == 8 and sorted(seats["seat"].tolist()) == [0, 0, 1, 1, 2, 2, 3, 3]
    seatings = seat_rotations(FIELD, 4)
    for game, rows in p.groupby("game"):
        deal, k = divmod(int(game), 4)
        assert rows.sort_values("seat")["strategy"].astype(str).tolist() == list(seatings[k])
        winner, vp = _alone(batch_seeds(5, 1, deal)[0], seatings[k])
        assert rows.sort_values("seat")["vp"].tolist() == vp
        won = rows.loc[rows["won"], "seat"].tolist()
        assert won == ([] if winner is None else [winner])
    summary = res.summary()
    assert summary.loc[THRIFTY, "games"] == 8
    assert summary.loc[THRIFTY, "wins"] == int(seats["won"].sum())


def test_the_tournament_command_takes_a_python_player_by_name(capsys):
    code, out, err = run_main(["tournament", "--strategies", ",".join(FIELD), "--games", "8",
                               "--quiet", "--seed", "5"], capsys)
    assert code == 0, err
    row = next(line for line in out.splitlines() if line.startswith(THRIFTY))
    games, wins = (int(x) for x in row.split()[1:3])
    res = tournament(FIELD, 8, 4, seed=5, keep_games=False).summary()
    assert (games, wins) == (8, res.loc[THRIFTY, "wins"])


@pytest.mark.parametrize("name, needles", [
    ("python:no_such_module_here:Player", ["cannot import module 'no_such_module_here'"]),
    ("python:players_example:Nobody", ["has no 'Nobody'"]),
    ("python:players_example:NoDecide", ["has no decide(observation, options)"]),
    ("python:players_example:Unmakeable", ["could not be made", "TypeError"]),
    ("python:players example", ["is not a Python player's name"]),
])
def test_the_tournament_command_refuses_a_bad_player_in_one_line(capsys, name, needles):
    code, out, err = run_main(["tournament", "--strategies", f"default,{name},default,default",
                               "--games", "4", "--quiet"], capsys)
    assert code != 0 and "Tournament" not in out
    one_line(err, "--strategies: ", *needles)


def _experiment_text(strategies, extra=""):
    names = ", ".join(f'"{s}"' for s in strategies)
    return (f'name = "py"\ngames = 12\nseed = 3\nbatch_size = 5\nrotate = true\n'
            f"strategies = [{names}]\n{extra}")


def test_an_experiment_file_with_a_python_player_runs_resumes_and_labels_its_seats(
        tmp_path, capsys):
    path = tmp_path / "py.toml"
    path.write_text(_experiment_text(FIELD, '[variants.friendly]\nrules = { robber = '
                                            '"friendly" }\n'))
    out = tmp_path / "ds"
    exp = load_experiment(path)
    # a run stopped after its first part, then resumed by the command
    with pytest.raises(KeyboardInterrupt):
        run_experiment(exp, out=out, progress=False,
                       on_part=lambda task: (_ for _ in ()).throw(KeyboardInterrupt()))
    code, text, err = run_main(["run", path, "--out", out, "--no-progress"], capsys)
    assert code == 0, err
    done = re.search(r"(\d+) already done \(6 in all\)", text)
    assert done and 1 <= int(done.group(1)) < 6 and THRIFTY in text
    games, players = catansim.load(out)
    assert len(games) == 24 and len(players) == 96
    for (variant, game), rows in players.groupby(["variant", "game"], observed=True):
        seating = exp.seat_strategies(variant, game % 4)
        assert rows.sort_values("seat")["strategy"].astype(str).tolist() == list(seating)
        if variant == "baseline":
            _, vp = _alone(batch_seeds(3, 1, game)[0], seating)
            assert rows.sort_values("seat")["vp"].tolist() == vp
    fresh = tmp_path / "fresh"
    run_experiment(exp, out=fresh, progress=False)
    for a, b in zip(catansim.load(out), catansim.load(fresh), strict=True):
        assert a.equals(b)


@pytest.mark.parametrize("key, toml, needles", [
    ("strategies[0]", _experiment_text(("python:no_such_module_here:P", "default")),
     ["cannot import module"]),
    ("variants.v.strategies[2]",
     _experiment_text(("default",), '[variants.v]\nstrategies = ["default", "default", '
                                    '"python:players_example:NoDecide", "default"]\n'),
     ["has no decide"]),
])
def test_an_experiment_file_names_the_key_of_a_bad_player(tmp_path, capsys, key, toml,
                                                           needles):
    path = tmp_path / "bad.toml"
    path.write_text(toml)
    code, _, err = run_main(["run", path, "--out", tmp_path / "o", "--no-progress"], capsys)
    assert code != 0
    one_line(err, f"{path}: {key}: ", *needles)
    assert not (tmp_path / "o").exists()


def test_an_experiment_sent_to_a_worker_makes_its_players_anew_from_their_names():
    import pickle

    field = ("python:players_example:Unpicklable", *FIELD[1:])
    exp = parse_experiment({"games": 4, "strategies": list(field), "rotate": True})
    here = exp.settings(shift=1).players
    with pytest.raises((pickle.PicklingError, AttributeError, TypeError)):
        pickle.dumps(here[0][1])
    there = pickle.loads(pickle.dumps(exp))
    made = there.settings(shift=1).players
    assert [q for q, _ in made] == [q for q, _ in here] == [1]
    assert made[0][1] is not here[0][1] and type(made[0][1]).__name__ == "Unpicklable"
    assert there.result_hash() == exp.result_hash()
    seeds = np.array([11, 12])
    a = [play_game(int(s), settings=exp.settings(shift=1), log=False).vp for s in seeds]
    b = [play_game(int(s), settings=there.settings(shift=1), log=False).vp for s in seeds]
    assert a == b


def test_a_tournament_takes_player_objects_as_it_takes_their_names():
    from players_example import Thrifty

    by_name = tournament(FIELD, 8, 4, seed=5)
    by_object = tournament((Thrifty(), *FIELD[1:]), 8, 4, seed=5)
    assert by_object.players.equals(by_name.players)
    assert by_object.summary().equals(by_name.summary())
    with pytest.raises(catansim.errors.CatansimError, match="two python:players_example:Thrifty"):
        tournament((Thrifty(), Thrifty(), "default", "default"), 4, 4)


# --- a player that raises (#56): one line naming the game, seat, player and exception -----

FRAGILE = "python:players_example:Fragile"


@pytest.fixture
def fragile(monkeypatch):
    """``Fragile`` with its game count reset: ``fragile(k)`` makes it raise from its k-th
    game of this process on."""
    import players_example

    monkeypatch.setattr(players_example.Fragile, "games", 0)

    def fail_at(k):
        monkeypatch.setattr(players_example.Fragile, "fail_at", k)

    return fail_at


def _raised(err, seed, seat, name, what="decide raised ZeroDivisionError: division by zero"):
    return one_line(err, f"game seed {seed}, seat {seat} ({name}): {what}")


@pytest.mark.parametrize("command", [
    ["play", "--seed", 3],
    ["tournament", "--games", 8, "--quiet", "--seed", 5],
    ["simulate", "--games", 8, "--seed", 5],
])
def test_a_player_raising_in_decide_is_one_line_naming_the_game(command, capsys, fragile):
    fragile(1)
    code, out, err = run_main([*command, "--strategies", f"{FRAGILE},default,default,default"],
                              capsys)
    assert code == 2
    seed = 3 if command[0] == "play" else batch_seeds(5, 1)[0]  # the first game played
    _raised(err, seed, 0, FRAGILE)


def test_a_player_raising_in_new_game_is_one_line(capsys):
    name = "python:players_example:NoTable"
    code, _, err = run_main(["play", "--seed", 4, "--strategies", f"default,{name}"
                             ",default,default"], capsys)
    assert code == 2
    _raised(err, 4, 1, name, "new_game raised RuntimeError: no table")


def test_play_keeps_the_logs_of_the_games_before_a_player_raised(tmp_path, capsys, fragile):
    fragile(3)
    logs = tmp_path / "logs"
    code, out, err = run_main(["play", "--seed", 10, "--games", 5, "--log-dir", logs,
                               "--strategies", f"{FRAGILE},default,default,default"], capsys)
    assert code == 2
    line = _raised(err, 12, 0, FRAGILE)
    assert line.endswith(f"; {logs}: 2 of 5 logs written")
    assert sorted(p.name for p in logs.iterdir()) == ["game-10.jsonl", "game-11.jsonl"]
    assert [x.split(":")[0] for x in out.splitlines() if x.startswith("seed")] == [
        "seed 10", "seed 11"]


def test_debug_lets_the_players_exception_through_with_its_traceback(capsys, fragile):
    from catansim.cli import main

    fragile(1)
    with pytest.raises(ZeroDivisionError, match="division by zero") as info:
        main(["play", "--seed", 3, "--debug", "--strategies",
              f"{FRAGILE},default,default,default"])
    assert info.traceback[-1].name == "decide"  # the player's own frame


def test_a_run_keeps_the_parts_before_a_player_raised_and_resumes(tmp_path, capsys, fragile):
    path = tmp_path / "py.toml"
    path.write_text(_experiment_text((FRAGILE, "default", "default", "default"))
                    .replace("rotate = true", "rotate = false").replace("games = 12",
                                                                          "games = 20"))
    out = tmp_path / "ds"
    fragile(12)  # one warm-up game, two parts of 5, then the first game of part 3
    code, _, err = run_main(["run", path, "--out", out, "--no-progress"], capsys)
    assert code == 2
    line = _raised(err, batch_seeds(3, 11)[10], 0, FRAGILE)
    assert line.endswith(f"; {out}: 2 of 4 parts kept; rerun the same command to resume")
    assert len(catansim.load(out)[0]) == 10
    fragile(10**9)
    code, text, err = run_main(["run", path, "--out", out, "--no-progress"], capsys)
    assert code == 0, err
    assert "2 parts written, 2 already done (4 in all)" in text
    assert len(catansim.load(out)[0]) == 20
