"""The tables of a game's review (``catansim analyse``): their columns, one home.

A review reads one game log and writes two tidy tables:

- ``TIMELINE``: each seat's chance of winning at each position analysed (one row per
  position and seat);
- ``MOVES``: at each decision of the seat reviewed, the search player's value of the
  move played beside its best alternative (one row per decision that has one: a
  forced decision has none).

The review (which plays the rollouts) writes them and the viewer draws them; both
name a column only through the names below.
"""

from __future__ import annotations

import pandas as pd

# (column, dtype, meaning)
TIMELINE: tuple[tuple[str, str, str], ...] = (
    ("event", "int32", "the last log event the position includes (Game.from_log's at, with "
     "the events the rules make at once after it, such as a roll's production; -1 the "
     "start, before the first event)"),
    ("turn", "int32", "the game's turn at that position (set-up is 0)"),
    ("seat", "int8", "the seat whose chance of winning this row gives"),
    ("win", "float64", "the share of rollouts the seat won (1 or 0, with no rollouts, once "
     "the game is over)"),
    ("win_low", "float64", "95% Wilson interval of win, lower bound"),
    ("win_high", "float64", "95% Wilson interval of win, upper bound"),
    ("rollouts", "int32", "games played on from the position"),
    ("observer", "int8", "the seat whose public information the rollouts were dealt from; "
     "-1: the full state (every hand as the log has it)"),
)

MOVES: tuple[tuple[str, str, str], ...] = (
    ("event", "int32", "the log event the decision made (its index in the log)"),
    ("turn", "int32", "the game's turn at the decision"),
    ("seat", "int8", "the seat that decided"),
    ("decision", "string", "the kind of decision (as Game.decision names it)"),
    ("played", "string", "the option played, in the game's words (str of the Option; "
     "nodes, edges and hexes in catansim's numbering)"),
    ("best", "string", "the best alternative: the option other than the one played that "
     "the search valued highest"),
    ("win_played", "float64", "the seat's win share after the move played"),
    ("win_best", "float64", "the seat's win share after the best option"),
    ("loss", "float64", "win_best - win_played: what the move played cost, paired on "
     "the same rollout seeds"),
    ("loss_low", "float64", "95% interval of loss, lower bound"),
    ("loss_high", "float64", "95% interval of loss, upper bound"),
    ("rollouts", "int32", "rollouts each for the move played and the best, on the same "
     "seeds (besides the search's)"),
    ("flagged", "bool", "loss above the review's threshold and loss_low above 0: a move "
     "that cost more than the threshold, beyond the rollouts' noise"),
)


def names(table: tuple[tuple[str, str, str], ...]) -> tuple[str, ...]:
    """The column names of ``table`` (``TIMELINE`` or ``MOVES``), in order."""
    return tuple(c for c, _, _ in table)


def empty(table: tuple[tuple[str, str, str], ...]) -> pd.DataFrame:
    """An empty frame with ``table``'s columns and dtypes."""
    return pd.DataFrame({c: pd.Series(dtype=d) for c, d, _ in table})


def markdown(table: tuple[tuple[str, str, str], ...]) -> str:
    """``table``'s columns as a Markdown table (docs/analyse.md shows both)."""
    rows = [f"| `{c}` | {d} | {m} |" for c, d, m in table]
    return "\n".join(["| column | dtype | meaning |", "|---|---|---|", *rows])
