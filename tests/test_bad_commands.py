"""Malformed command lines, table-driven: every command and its options with bad
values, missing, unknown or empty ones, missing, unwritable and folder paths where a
file is expected (and the reverse), binary and broken files.

Each runs in this process (``catansim.cli.main``) from an empty working folder; for
each: a non-zero exit, exactly one line on stderr naming the option, argument or
path, with what is allowed (faults of the machine: with what state the data is in),
no traceback, and nothing written anywhere under the test's folder (a dataset used
by a row is unchanged and still loads).

BAD_COMMANDS (asserted below) counts the rows: 208.
"""

from __future__ import annotations

import re
import shutil

import pytest
from cli_harness import IS_ROOT, one_line, read_only, run_main, tree

import catansim
from catansim.runs.experiment import load_experiment
from catansim.runs.runner import run_experiment

BAD_COMMANDS = 208

# Placeholders: T the test's folder, BIN a binary file, DIR an empty folder, FILE a text
# file ("x"), EMPTY an empty file, EXP a good experiment, LOG a good game log, TRUNC a
# log cut short, BADSEED a log whose header has seed "abc", CFG a broken strategies
# file, NOWHERE a path that does not exist, RO a read-only folder (a bind mount; rows
# using it need root), DS a dataset of other settings than EXP, BADDS a dataset with a
# damaged part. (argv, needles, options): options may set code (default 2) and
# fault=True (a fault's line says the state of the data instead of what is allowed).
CASES = {
    # -- the group
    "unknown-command": (["nope"], ["nope: unknown command; allowed: analyse, bench, board, "
                                   "ladder, openings, play"]),
    "unknown-command-prefix": (["pla"], ["pla: unknown command"]),
    "unknown-group-option": (["--nope"], ["--nope: unknown option; allowed: --version"]),
    # -- run
    "run-no-file": (["run"], ["EXPERIMENT: missing; allowed: a TOML experiment file"]),
    "run-missing-file": (["run", "NOWHERE/x.toml"], ["EXPERIMENT: NOWHERE/x.toml: file not "
                                                      "found; allowed: a TOML experiment"]),
    "run-folder": (["run", "DIR"], ["EXPERIMENT: DIR: is a folder"]),
    "run-binary": (["run", "BIN"], ["BIN: not a text file (byte 0x80"]),
    "run-empty-path": (["run", ""], ["EXPERIMENT: an empty path is not allowed"]),
    "run-empty-file": (["run", "EMPTY"], ["EMPTY: games: missing"]),
    "run-out-empty": (["run", "EXP", "--out", ""], ["--out: an empty path is not allowed"]),
    "run-out-file": (["run", "EXP", "--out", "FILE"], ["--out: FILE: is a file, not a folder"]),
    "run-out-under-file": (["run", "EXP", "--out", "FILE/sub"],
                           ["--out: FILE/sub: FILE is a file, not a folder"]),
    "run-out-needs-value": (["run", "EXP", "--out"], ["--out: needs a value; allowed: a folder"]),
    "run-scheduler-empty": (["run", "EXP", "--scheduler", ""],
                            ["--scheduler: an empty address is not allowed; allowed: a Dask"]),
    "run-scheduler-word": (["run", "EXP", "--scheduler", "nowhere"],
                           ["--scheduler: 'nowhere' is not an address"]),
    "run-scheduler-port": (["run", "EXP", "--scheduler", "tcp://h:0"],
                           ["--scheduler: port 0 is out of range"]),
    "run-scheduler-no-port": (["run", "EXP", "--scheduler", "tcp://h"],
                              ["--scheduler: 'tcp://h' is not an address"]),
    "run-games-zero": (["run", "EXP", "--games", "0"],
                       ["--games: 0 is not allowed; allowed: an integer >= 1"]),
    "run-games-word": (["run", "EXP", "--games", "abc"], ["--games: 'abc' is not allowed"]),
    "run-games-empty": (["run", "EXP", "--games", ""], ["--games: '' is not allowed"]),
    "run-games-too-many": (["run", "EXP", "--games", "10000000000000"],
                           ["--games: 10000000000000 is out of range; allowed: an integer in "
                            "1..1000000000000"]),
    "run-games-float": (["run", "EXP", "--games", "1.5"], ["--games: '1.5' is not allowed"]),
    "run-seed-negative": (["run", "EXP", "--seed", "-1"], ["--seed: -1 is not allowed; allowed: "
                                                           "an integer in [0, 2**63)"]),
    "run-seed-2**63": (["run", "EXP", "--seed", "9223372036854775808"],
                       ["--seed: 9223372036854775808 is not allowed"]),
    "run-seed-float": (["run", "EXP", "--seed", "1.5"], ["--seed: '1.5' is not allowed"]),
    "run-batch-zero": (["run", "EXP", "--batch-size", "0"], ["--batch-size: 0 is not allowed"]),
    "run-batch-10**7": (["run", "EXP", "--batch-size", "10000000"],
                        ["--batch-size: 10000000 is out of range; allowed: an integer in "
                         "1..1000000"]),
    "run-threads-zero": (["run", "EXP", "--threads", "0"],
                         ["--threads: 0 is not allowed; allowed: an integer in 1..1024"]),
    "run-threads-word": (["run", "EXP", "--threads", "many"], ["--threads: 'many' is not"]),
    "run-threads-huge": (["run", "EXP", "--threads", "5000"], ["--threads: 5000 is not allowed"]),
    "run-unknown-option": (["run", "EXP", "--gmaes", "3"],
                           ["--gmaes: unknown option; allowed: --games, --seed"]),
    "run-extra-argument": (["run", "EXP", "extra"],
                           ["extra: unexpected argument; allowed: see catansim run --help"]),
    "run-other-settings": (["run", "EXP", "--out", "DS"],
                           ["DS: holds results of different settings (changed: seed: 9 -> 0)"]),
    "run-read-only-new": (["run", "EXP", "--out", "RO/new"],
                          ["RO/new: cannot create the dataset folder (read-only file system); "
                           "nothing written"], {"code": 1, "fault": True}),
    # -- play
    "play-players-5": (["play", "--players", "5"], ["--players: 5 is not allowed; allowed: 3, 4"]),
    "play-players-word": (["play", "--players", "three"], ["--players: 'three' is not allowed"]),
    "play-players-needs-value": (["play", "--players"], ["--players: needs a value; allowed: 3"]),
    "play-seed-negative": (["play", "--seed", "-5"], ["--seed: -5 is not allowed"]),
    "play-seed-word": (["play", "--seed", "abc"], ["--seed: 'abc' is not allowed"]),
    "play-strategy-typo": (["play", "--strategies", "buildr"],
                           ["--strategies: unknown strategy 'buildr' (did you mean 'builder'?); "
                            "allowed: army, builder"]),
    "play-strategies-two": (["play", "--strategies", "default,random"],
                            ["--strategies: 2 strategies for 4 players; allowed: one name"]),
    "play-strategies-empty": (["play", "--strategies", ""], ["--strategies: "]),
    "play-strategies-five": (["play", "--strategies", "default,random,city,army,trader"],
                             ["--strategies: 5 strategies for 4 players"]),
    "play-layout-typo": (["play", "--layout", "varible"],
                         ["--layout: 'varible' is not allowed (did you mean 'variable'?); "
                          "allowed: beginner, variable"]),
    "play-board-missing": (["play", "--board", "NOWHERE/b.json"],
                           ["--board: NOWHERE/b.json: file not found; allowed: a board file"]),
    "play-board-binary": (["play", "--board", "BIN"], ["BIN: not a text file (byte 0x80"]),
    "play-board-folder": (["play", "--board", "DIR"], ["--board: DIR: is a folder"]),
    "play-board-text": (["play", "--board", "FILE"],
                        ["afile.txt.terrains: expected a list of 19 hexes, got 1"]),
    "play-board-empty-path": (["play", "--board", ""], ["--board: an empty path is not allowed"]),
    "play-rule-word": (["play", "--rule", "robber=sometimes"],
                       ["--rule robber: 'sometimes' is not allowed; allowed: official, off"]),
    "play-rule-unknown": (["play", "--rule", "robbers=off"],
                          ["--rule 'robbers': unknown rule (did you mean 'robber'?); allowed: "
                           "vp_to_win"]),
    "play-rule-word-typo": (["play", "--rule", "robber=friendy"],
                            ["--rule robber: 'friendy' is not allowed (did you mean 'friendly'?); "
                             "allowed: official, off, friendly"]),
    "play-rule-not-int": (["play", "--rule", "vp_to_win=abc"],
                          ["--rule vp_to_win: 'abc' is not allowed; allowed: an integer"]),
    "play-rule-range": (["play", "--rule", "vp_to_win=99"],
                        ["--rule vp_to_win: 99 is out of range; allowed: an integer in 3..20"]),
    "play-rule-no-equals": (["play", "--rule", "noequals"],
                            ["--rule 'noequals': expected NAME=VALUE; allowed: a rule name"]),
    "play-rule-no-name": (["play", "--rule", "=5"], ["--rule '=5': expected NAME=VALUE"]),
    "play-switch-rule-alone": (["play", "--switch-rule", "robber=off"],
                               ["--switch-rule: needs --switch-turn; allowed: --switch-turn"]),
    "play-switch-turn-zero": (["play", "--switch-turn", "0", "--switch-rule", "robber=off"],
                              ["--switch-turn: 0 is out of range; allowed: a turn 1..999"]),
    "play-switch-past-cap": (["play", "--rule", "max_turns=30", "--switch-turn", "30"],
                             ["--switch-turn: 30 is not before max_turns (30)"]),
    "play-switch-first-pick": (["play", "--switch-turn", "20", "--switch-rule", "first_pick=1"],
                               ["--switch-rule first_pick: cannot change mid-game (0 before, 1 "
                                "after); allowed: a change of vp_to_win"]),
    "play-switch-rule-word": (["play", "--switch-turn", "20", "--switch-rule", "robber=x"],
                              ["--switch-rule robber: 'x' is not allowed; allowed: official"]),
    "simulate-switch-unknown": (["simulate", "--switch-turn", "20", "--switch-rule", "robbers=1"],
                                ["--switch-rule 'robbers': unknown rule (did you mean "
                                 "'robber'?); allowed: vp_to_win"]),
    "simulate-strategy-near": (["simulate", "--strategies", "defualt"],
                               ["--strategies: unknown strategy 'defualt' (did you mean "
                                "'default'?); allowed: army"]),
    "tournament-switch-supply": (["tournament", "--switch-turn", "20", "--switch-rule",
                                  "bank_per_resource=none"],
                                 ["--switch-rule bank_per_resource: cannot change mid-game"]),
    "play-rule-bank-word": (["play", "--rule", "bank_per_resource=lots"],
                            ["--rule bank_per_resource: 'lots' is not allowed; allowed: an "
                             "integer or none"]),
    "play-opening-node": (["play", "--opening", "0=999,-"],
                          ["node 999 is not a node; allowed: 0..53"]),
    "play-opening-garbage": (["play", "--opening", "x"],
                             ["--opening 'x': expected SEAT=NODE,EDGE[,NODE,EDGE]"]),
    "play-opening-seat": (["play", "--opening", "7=12,17"], ["--opening '7=12,17': expected"]),
    "play-opening-beginner": (["play", "--opening", "0=12,-", "--layout", "beginner"],
                              ["--opening: the beginner layout fixes every opening; allowed: "
                               "--layout variable, random_numbers or balanced, or --board"]),
    "play-opening-distance": (["play", "--opening", "0=14,16", "--opening", "1=19,21"],
                              ["breaks the Distance Rule"]),
    "play-log-missing-folder": (["play", "--log", "NOWHERE/x.jsonl"],
                                ["--log: NOWHERE/x.jsonl: folder NOWHERE does not exist; "
                                 "allowed: a file path in an existing folder"]),
    "play-log-folder": (["play", "--log", "DIR"], ["--log: DIR: is a folder"]),
    "play-log-empty": (["play", "--log", ""], ["--log: an empty path is not allowed"]),
    "play-log-under-file": (["play", "--log", "FILE/x.jsonl"],
                            ["--log: FILE/x.jsonl: folder FILE is not a folder"]),
    "play-log-read-only": (["play", "--log", "RO/x.jsonl"],
                           ["--log: RO/x.jsonl: folder RO is not writable (read-only file "
                            "system)"]),
    "play-log-several-games": (["play", "--games", "2", "--log", "T/x.jsonl"],
                               ["--log: one file holds one game; allowed: --games 1"]),
    "play-games-zero": (["play", "--games", "0"], ["--games: 0 is not allowed"]),
    "play-log-dir-file": (["play", "--games", "2", "--log-dir", "FILE"],
                          ["--log-dir: FILE: is a file, not a folder"]),
    "play-log-dir-under-file": (["play", "--games", "2", "--log-dir", "FILE/sub"],
                                ["--log-dir: FILE/sub: FILE is a file, not a folder"]),
    "play-log-dir-empty": (["play", "--games", "2", "--log-dir", ""],
                           ["--log-dir: an empty path is not allowed"]),
    "play-log-dir-read-only": (["play", "--games", "2", "--log-dir", "RO/logs"],
                               ["--log-dir: RO/logs: folder RO is not writable (read-only"]),
    "play-seeds-overflow": (["play", "--seed", "9223372036854775807", "--games", "2"],
                            ["--games: seeds would pass 9223372036854775807; allowed: at most 1"]),
    "play-config-missing": (["play", "--config", "NOWHERE/s.toml"],
                            ["--config: NOWHERE/s.toml: file not found"]),
    "play-config-binary": (["play", "--config", "BIN"], ["BIN: not a text file"]),
    "play-config-broken": (["play", "--config", "CFG"], ["CFG: invalid TOML"]),
    "play-config-folder": (["play", "--config", "DIR"], ["--config: DIR: is a folder"]),
    "play-unknown-option": (["play", "--sed", "3"], ["--sed: unknown option; allowed: --seed"]),
    # -- replay
    "replay-no-log": (["replay"], ["GAME.jsonl: missing; allowed: a game log"]),
    "replay-missing": (["replay", "NOWHERE/g.jsonl"], ["GAME.jsonl: NOWHERE/g.jsonl: file not "
                                                        "found"]),
    "replay-folder": (["replay", "DIR"], ["GAME.jsonl: DIR: is a folder"]),
    "replay-binary": (["replay", "BIN"], ["BIN: not a text file (byte 0x80"]),
    "replay-text": (["replay", "FILE"], ["FILE:1: not JSON"]),
    "replay-empty-file": (["replay", "EMPTY"], ["EMPTY: empty game log (no header)"]),
    "replay-truncated": (["replay", "TRUNC"], ["TRUNC: event 49", "log ends without game_end; "
                                               "allowed: a log that follows the rules"]),
    "replay-truncated-no-check": (["replay", "TRUNC", "--no-check"],
                                  ["TRUNC: incomplete game log: it ends after 49 events without "
                                   "game_end; allowed: a complete game log"]),
    "replay-bad-seed": (["replay", "BADSEED"],
                        ["BADSEED:1: header.seed: 'abc' is not allowed; allowed: an integer"]),
    "replay-png-suffix": (["replay", "LOG", "--png", "f.txt"],
                          ["--png: f.txt: not a .png file name; allowed: a .png file path"]),
    "replay-png-missing-folder": (["replay", "LOG", "--png", "NOWHERE/f.png"],
                                  ["--png: NOWHERE/f.png: folder NOWHERE does not exist"]),
    "replay-png-folder": (["replay", "LOG", "--png", "DIR"], ["--png: DIR: is a folder"]),
    "replay-png-empty": (["replay", "LOG", "--png", ""], ["--png: an empty path is not allowed"]),
    "replay-png-read-only": (["replay", "LOG", "--png", "RO/f.png"],
                             ["--png: RO/f.png: folder RO is not writable"]),
    "replay-extra": (["replay", "LOG", "extra"], ["extra: unexpected argument"]),
    "replay-unknown-option": (["replay", "LOG", "--nocheck"],
                              ["--nocheck: unknown option; allowed: --png, --html, --no-check"]),
    # -- board
    "board-layout-typo": (["board", "--layout", "varible"], ["--layout: 'varible' is not "
                                                             "allowed"]),
    "board-seed-negative": (["board", "--seed", "-1"], ["--seed: -1 is not allowed"]),
    "board-beginner-seed": (["board", "--layout", "beginner", "--seed", "3"],
                            ["--seed: the beginner layout is fixed; allowed: a seed with "
                             "--layout variable, random_numbers or balanced"]),
    "board-file-missing": (["board", "--file", "NOWHERE/b.txt"], ["--file: NOWHERE/b.txt: file "
                                                                  "not found"]),
    "board-file-binary": (["board", "--file", "BIN"], ["BIN: not a text file (byte 0x80"]),
    "board-file-folder": (["board", "--file", "DIR"], ["--file: DIR: is a folder"]),
    "board-file-text": (["board", "--file", "FILE"], ["afile.txt.terrains: expected a list"]),
    "board-out-suffix": (["board", "--out", "b.txt"],
                         ["--out: b.txt: not a .png file name; allowed: a .png file path"]),
    "board-out-missing-folder": (["board", "--out", "NOWHERE/b.png"],
                                 ["--out: NOWHERE/b.png: folder NOWHERE does not exist"]),
    "board-out-folder": (["board", "--out", "DIR"], ["--out: DIR: is a folder"]),
    "board-out-empty": (["board", "--out", ""], ["--out: an empty path is not allowed"]),
    "board-out-read-only": (["board", "--out", "RO/b.png"],
                            ["--out: RO/b.png: folder RO is not writable (read-only"]),
    "board-out-under-file": (["board", "--out", "FILE/b.png"],
                             ["--out: FILE/b.png: folder FILE is not a folder"]),
    "board-dpi-low": (["board", "--dpi", "5"], ["--dpi: 5 is not allowed; allowed: an integer "
                                                "in 50..600"]),
    "board-dpi-word": (["board", "--dpi", "x"], ["--dpi: 'x' is not allowed"]),
    "board-players-2": (["board", "--players", "2"], ["--players: 2 is not allowed"]),
    "board-flag-with-value": (["board", "--indices", "yes"], ["yes: unexpected argument"]),
    "board-fairness-games-few": (["board", "--fairness", "--games", "5"],
                                 ["--games: 5 is not allowed; allowed: an integer in 10.."]),
    "board-fairness-strategy-typo": (["board", "--fairness", "--strategies", "nobody"],
                                     ["--strategies: unknown strategy 'nobody'; allowed: army"]),
    "board-fairness-strategies-two": (["board", "--fairness", "--strategies", "default,army"],
                                      ["--strategies: 2 strategies for 4 players; allowed:"]),
    "board-fairness-seed-negative": (["board", "--fairness", "--game-seed", "-1"],
                                     ["--game-seed: -1 is not allowed"]),
    "board-fairness-threads-zero": (["board", "--fairness", "--threads", "0"],
                                    ["--threads: 0 is not allowed"]),
    "board-games-without-fairness": (["board", "--games", "500"],
                                     ["--games: it only applies when the board is played; "
                                      "allowed: add --fairness"]),
    "board-strategies-without-fairness": (["board", "--strategies", "army"],
                                          ["--strategies: it only applies when the board is "
                                           "played"]),
    # -- simulate
    "simulate-games-zero": (["simulate", "--games", "0"], ["--games: 0 is not allowed"]),
    "simulate-games-too-many": (["simulate", "--games", "2000000"],
                                ["--games: 2000000 is not allowed; allowed: an integer in "
                                 "1..1000000"]),
    "simulate-strategy-typo": (["simulate", "--strategies", "buildr"],
                               ["--strategies: unknown strategy 'buildr'"]),
    "simulate-players-5": (["simulate", "--players", "5"], ["--players: 5 is not allowed"]),
    "simulate-board-word": (["simulate", "--board", "nowhere"],
                            ["--board: 'nowhere' is neither LAYOUT:SEED", "'balanced:SEED'"]),
    "simulate-board-seed": (["simulate", "--board", "variable:99999999999999999999"],
                            ["--board: 99999999999999999999 is not allowed"]),
    "simulate-board-binary": (["simulate", "--board", "BIN"], ["BIN: not a text file"]),
    "simulate-board-beginner": (["simulate", "--layout", "beginner", "--board", "variable:3"],
                                ["--board: layout 'beginner' already fixes the board"]),
    "simulate-rule-word": (["simulate", "--rule", "robber=x"], ["--rule robber: 'x' is not"]),
    "simulate-threads-zero": (["simulate", "--threads", "0"], ["--threads: 0 is not allowed"]),
    "simulate-seed-word": (["simulate", "--seed", "abc"], ["--seed: 'abc' is not allowed"]),
    "simulate-rotate-value": (["simulate", "--rotate", "x"], ["x: unexpected argument; "
                                                              "allowed: see catansim simulate"]),
    "simulate-rule-needs-value": (["simulate", "--rule"], ["--rule: needs a value; allowed:"]),
    # -- tournament
    "tournament-typo": (["tournament", "--strategies", "buildr,city,army,trader"],
                        ["--strategies: unknown strategy 'buildr'"]),
    "tournament-empty": (["tournament", "--strategies", ""], ["--strategies: "]),
    "tournament-two-for-four": (["tournament", "--strategies", "builder,city"],
                                ["--strategies: 2 names for 4 players; allowed: exactly 4 (one "
                                 "per seat, seats rotated), or two or more with --matrix"]),
    "tournament-games-zero": (["tournament", "--games", "0"], ["--games: 0 is not allowed"]),
    "tournament-players-5": (["tournament", "--players", "5"], ["--players: 5 is not allowed"]),
    "tournament-config-missing": (["tournament", "--config", "NOWHERE/c.toml"],
                                  ["--config: NOWHERE/c.toml: file not found"]),
    "tournament-matrix-one": (["tournament", "--strategies", "city", "--matrix"],
                              ["--strategies: --matrix plays each name against copies of "
                               "the others, 1 given; allowed: two or more"]),
    "tournament-rule-bank": (["tournament", "--rule", "bank_per_resource=-3"],
                             ["--rule bank_per_resource: -3 is out of range"]),
    "tournament-extra": (["tournament", "x"], ["x: unexpected argument"]),
    "tournament-four-for-three": (["tournament", "--players", "3"],
                                  ["strategies: 4 names for 3 players; allowed: exactly 3"]),
    "tournament-threads-zero": (["tournament", "--threads", "0"], ["--threads: 0 is not"]),
    # -- bench
    "bench-games-few": (["bench", "--games", "10"], ["--games: 10 is not allowed; allowed: an "
                                                     "integer in 100..100000000"]),
    "bench-strategy": (["bench", "--strategies", "nobody"], ["--strategies: unknown strategy"]),
    "bench-e2e-few": (["bench", "--e2e-games", "5"], ["--e2e-games: 5 is not allowed"]),
    "bench-players": (["bench", "--players", "7"], ["--players: 7 is not allowed"]),
    "bench-games-many": (["bench", "--games", "1000000000"], ["--games: 1000000000 is not "
                                                              "allowed"]),
    # -- report
    "report-no-dataset": (["report"], ["DATASET: missing; allowed: a dataset folder"]),
    "report-missing": (["report", "NOWHERE/ds"], ["DATASET: NOWHERE/ds: folder not found"]),
    "report-file": (["report", "FILE"], ["DATASET: FILE: is a file, not a folder"]),
    "report-not-dataset": (["report", "DIR", "--out", "T/rep"],
                           ["DIR: not a catansim dataset (no games/ folder); allowed:"]),
    "report-out-file": (["report", "DS", "--out", "FILE"], ["--out: FILE: is a file, not a "
                                                            "folder"]),
    "report-out-read-only": (["report", "DS", "--out", "RO/rep"],
                             ["--out: RO/rep: folder RO is not writable (read-only"]),
    "report-scheduler": (["report", "DS", "--scheduler", "nowhere"],
                         ["--scheduler: 'nowhere' is not an address"]),
    # -- study
    "study-unknown": (["study", "nope"], ["study: 'nope' is not a study; allowed:"]),
    "study-scale": (["study", "nope", "--scale", "huge"],
                    ["--scale: 'huge' is not allowed; allowed: small, full"]),
    "study-out-file": (["study", "nope", "--out", "FILE"], ["--out: FILE: is a file, not a "
                                                            "folder"]),
    "study-scheduler": (["study", "nope", "--scheduler", "nowhere"],
                        ["--scheduler: 'nowhere' is not an address"]),
    # -- openings
    "openings-seat-out": (["openings", "--seat", "4"],
                          ["--seat: '4' is not allowed; allowed: 'all' or seats 0..3"]),
    "openings-seat-twice": (["openings", "--seat", "0,0"], ["--seat: '0,0' is not allowed"]),
    "openings-settlement-3": (["openings", "--settlement", "3"],
                              ["--settlement: '3' is not allowed; allowed: 1, 2"]),
    "openings-games-zero": (["openings", "--games", "0"], ["--games: 0 is not allowed"]),
    "openings-file-missing": (["openings", "--file", "NOWHERE/b.json"],
                              ["--file: NOWHERE/b.json is not a file"]),
    "openings-beginner-seed": (["openings", "--seed", "3"],
                               ["--seed: the beginner map is fixed"]),
    "openings-png-missing-folder": (["openings", "--png", "NOWHERE/o.png"],
                                    ["--png: NOWHERE/o.png: folder NOWHERE does not exist"]),
    "openings-png-suffix": (["openings", "--png", "o.svg"],
                            ["--png: o.svg: not a .png file name; allowed: a .png file path"]),
    "openings-csv-read-only": (["openings", "--csv", "RO/o.csv"],
                               ["--csv: RO/o.csv: folder RO is not writable (read-only"]),
    # -- ladder
    "ladder-no-field": (["ladder", "--out", "T/l"], ["--field: missing"]),
    "ladder-one-player": (["ladder", "--field", "default", "--out", "T/l"],
                          ["--field: 1 player given; allowed: two or more"]),
    "ladder-twice": (["ladder", "--field", "default,default", "--out", "T/l"],
                     ["--field: default is named twice; allowed: each player once"]),
    "ladder-unknown": (["ladder", "--field", "default,buildr", "--out", "T/l"],
                       ["--field[1]: unknown strategy 'buildr' (did you mean 'builder'?); "
                        "allowed: army, builder"]),
    "ladder-bad-bot": (["ladder", "--field", "default,catanatron:Nope", "--out", "T/l"],
                       ["--field[1]: catanatron:Nope: catanatron has no player 'Nope'",
                        "allowed: RandomPlayer"]),
    "ladder-reference": (["ladder", "--field", "default,builder", "--reference", "city",
                          "--out", "T/l"],
                         ["--reference: 'city' is not in --field; allowed: default, builder"]),
    "ladder-out-file": (["ladder", "--field", "default,builder", "--out", "FILE"],
                        ["--out: FILE: is a file, not a folder"]),
    "ladder-deals-zero": (["ladder", "--field", "default,builder", "--deals", "0", "--out",
                           "T/l"], ["--deals: 0 is not allowed; allowed: an integer >= 1"]),
    # -- analyse
    "analyse-no-log": (["analyse", "--out", "T/a"], ["GAME.jsonl: missing; allowed: a game log"]),
    "analyse-no-out": (["analyse", "LOG"], ["--out: missing; allowed: a folder"]),
    "analyse-missing-log": (["analyse", "NOWHERE/g.jsonl", "--out", "T/a"],
                            ["GAME.jsonl: NOWHERE/g.jsonl: file not found"]),
    "analyse-not-a-log": (["analyse", "FILE", "--out", "T/a"], ["FILE:1: not JSON"]),
    "analyse-bad-seed": (["analyse", "BADSEED", "--out", "T/a"],
                         ["BADSEED:1: header.seed: 'abc' is not allowed"]),
    "analyse-seat": (["analyse", "LOG", "--out", "T/a", "--seat", "4"],
                     ["--seat: 4 is not allowed; allowed: a seat in 0..3"]),
    "analyse-observer": (["analyse", "LOG", "--out", "T/a", "--observer", "me"],
                         ["--observer: 'me' is not allowed; allowed: a seat in 0..3, or full"]),
    "analyse-events": (["analyse", "LOG", "--out", "T/a", "--events", "5,x"],
                       ["--events: 'x' is not an event of the log; allowed: turns, all, or "
                        "event indices in -1.."]),
    "analyse-budget": (["analyse", "LOG", "--out", "T/a", "--budget", "2"],
                       ["--budget: 2 is not allowed; allowed: an integer in 8..100000"]),
    "analyse-threshold": (["analyse", "LOG", "--out", "T/a", "--threshold", "101"],
                          ["--threshold: 101 is not allowed; allowed: a number in 0..100"]),
    "analyse-strategy": (["analyse", "LOG", "--out", "T/a", "--strategy", "search"],
                         ["--strategy: 'search' is not a compiled strategy; allowed: army"]),
    "analyse-out-file": (["analyse", "LOG", "--out", "FILE"],
                         ["--out: FILE: is a file, not a folder"]),
    "analyse-workers-zero": (["analyse", "LOG", "--out", "T/a", "--workers", "0"],
                             ["--workers: 0 is not allowed; allowed: an integer >= 1"]),
    # -- tune (bad specs: tests/test_tune_errors.py)
    "tune-no-file": (["tune"], ["SPEC: missing; allowed: a TOML tuning spec"]),
    "tune-missing-file": (["tune", "NOWHERE/t.toml"], ["SPEC: NOWHERE/t.toml: file not found"]),
    "tune-folder": (["tune", "DIR"], ["SPEC: DIR: is a folder"]),
    "tune-empty-file": (["tune", "EMPTY"], ["EMPTY: name: missing"]),
    "tune-not-toml": (["tune", "FILE"], ["FILE: invalid TOML"]),
    "tune-out-file": (["tune", "EXP", "--out", "FILE"], ["--out: FILE: is a file, not a folder"]),
    # -- verify
    "verify-no-folder": (["verify"], ["DATASET: missing; allowed: a dataset folder"]),
    "verify-missing": (["verify", "NOWHERE/ds"], ["DATASET: NOWHERE/ds: folder not found"]),
    "verify-file": (["verify", "FILE"], ["DATASET: FILE: is a file, not a folder"]),
    "verify-not-dataset": (["verify", "DIR"], ["DIR: no manifest.json, not a catansim dataset; "
                                               "allowed: a dataset folder"]),
    "verify-damaged": (["verify", "BADDS"], ["BADDS: incomplete: 1 of 2 parts verified",
                                             "1 bad: BADDS/games/part-baseline-000000000002",
                                             "rerun the run's command"],
                       {"code": 1, "fault": True}),
}


def test_the_table_has_the_documented_number_of_rows():
    assert len(CASES) == BAD_COMMANDS and f"the rows: {BAD_COMMANDS}." in __doc__
    commands = {argv[0] for argv, *_ in CASES.values() if argv and not argv[0].startswith("-")}
    from catansim.cli import _command_names

    assert commands - {"nope", "pla"} == set(_command_names())  # every command has rows


EXP = 'name = "exp"\ngames = 4\nbatch_size = 2\n'


@pytest.fixture(scope="module")
def material(tmp_path_factory):
    """Files every row may use, made once: a game log, datasets."""
    from catansim.engine import play_game
    from catansim.logs import event_rows_to_dicts, make_header, write_log

    tmp = tmp_path_factory.mktemp("material")
    g = play_game(3, n_players=4, strategies=["default"] * 4, log=True)
    write_log(tmp / "game.jsonl", make_header(g.seed, g.n_players, g.strategies, g.rules,
                                              g.board),
              event_rows_to_dicts(g.events, g.n_players))
    (tmp / "exp.toml").write_text(EXP)
    (tmp / "other.toml").write_text(EXP + "seed = 9\n")
    run_experiment(load_experiment(tmp / "other.toml"), out=tmp / "ds", progress=False)
    run_experiment(load_experiment(tmp / "exp.toml"), out=tmp / "badds", progress=False)
    victim = sorted((tmp / "badds" / "games").glob("part-*.parquet"))[1]
    data = bytearray(victim.read_bytes())
    data[len(data) // 2] ^= 0x01
    victim.write_bytes(bytes(data))
    return tmp


@pytest.fixture(scope="module")
def ro_folder(tmp_path_factory):
    if not IS_ROOT:
        yield None
        return
    tmp = tmp_path_factory.mktemp("ro")
    (tmp / "src").mkdir()
    with read_only(tmp / "src", tmp / "ro") as ro:
        yield ro


def _place(tmp, material, ro):
    log_lines = (material / "game.jsonl").read_text().splitlines(keepends=True)
    files = {
        "BIN": ("bin.dat", bytes(range(256)) * 8),
        "FILE": ("afile.txt", b"x\n"),
        "EMPTY": ("empty.toml", b""),
        "EXP": ("exp.toml", EXP.encode()),
        "LOG": ("game.jsonl", "".join(log_lines).encode()),
        "TRUNC": ("trunc.jsonl", "".join(log_lines[:50]).encode()),
        "BADSEED": ("badseed.jsonl", "".join(
            [log_lines[0].replace('"seed": 3,', '"seed": "abc",'), *log_lines[1:]]).encode()),
        "CFG": ("cfg.toml", b"[strategies.x\n"),
    }
    out = {"T": str(tmp), "NOWHERE": str(tmp / "nowhere"), "DIR": str(tmp / "adir")}
    (tmp / "adir").mkdir()
    for key, (name, data) in files.items():
        (tmp / name).write_bytes(data)
        out[key] = str(tmp / name)
    shutil.copytree(material / "ds", tmp / "ds")
    shutil.copytree(material / "badds", tmp / "badds")
    out["DS"], out["BADDS"] = str(tmp / "ds"), str(tmp / "badds")
    if ro is not None:
        out["RO"] = str(ro)
    return out


def _fill(text: str, places: dict) -> str:
    """Placeholders are whole upper-case words (EXP, not the EXP of EXPERIMENT)."""
    return re.sub(r"\b(" + "|".join(sorted(places, key=len, reverse=True)) + r")\b",
                  lambda m: places[m.group(1)], text)


@pytest.mark.parametrize("argv, needles, options",
                         [pytest.param(*row, *([{}] if len(row) == 2 else []), id=name)
                          for name, row in CASES.items()])
def test_a_malformed_command_line_is_one_line_and_writes_nothing(argv, needles, options, tmp_path,
                                                                material, ro_folder, capsys,
                                                                monkeypatch):
    if any("RO" in a for a in argv) and ro_folder is None:
        pytest.skip("needs root to mount a read-only folder")
    places = _place(tmp_path, material, ro_folder)
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    loaded = catansim.load(tmp_path / "ds")
    before = tree(tmp_path)
    code, _, err = run_main([_fill(a, places) for a in argv], capsys)
    assert code == options.get("code", 2)
    extra = [] if options.get("fault") else ["; allowed: "]
    one_line(err, *[_fill(n, places) for n in needles], *extra)
    assert tree(tmp_path) == before
    for a, b in zip(catansim.load(tmp_path / "ds"), loaded, strict=True):
        assert a.equals(b)
    if ro_folder is not None:
        assert tree(ro_folder) == {}
