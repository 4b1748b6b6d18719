"""Issue #53's three alpha-beta cells read together: each cell's win rate, one rating for
the three players, and the two catansim players compared seat by seat against the same
alpha-beta opponents.

The cells are ladder folders of the same deals (``--seed 53 --block 1``): catanatron's
depth-2 alpha-beta player alone against three `default`, `default` alone against three
of it, and the search player alone against three of it (results/ladder/README.md). This
script reads each folder's games (``games.csv``, or the part files of a ladder's
``--out`` while it runs) and writes into ``--out``:

- ``cells.csv``: each cell's games, wins and win rate with its 95% Wilson interval, the
  exact binomial test against the fair share (Holm over the cells: the ladder's matrix,
  ``analysis.ladder.ladder_matrix``), and against a half
  (one-sided: above 0.5, the issue's goal for the search player);
- ``rating.csv``: the top-1 Plackett-Luce rating of the three players from all the
  cells' games together (``analysis.ladder.ladder_rating``, seat effects fitted),
  relative to `default`;
- ``paired.csv``: the two catansim players, each alone against three alpha-beta players,
  compared in the same deal and seat: the difference in win rate with its t interval
  over deals (each deal's mean over its seats) and McNemar's test over the seatings;
- with ``--field FOLDER`` (a round-robin ladder folder, results/ladder/field), also
  ``field-rating.csv``: one top-1 Plackett-Luce rating of the field's players and the
  alpha-beta player together, from the field's games and the cells' (relative to
  `default`), which places the alpha-beta player among the field's.

    python experiments/ladder/alphabeta_cells.py --out results/ladder/alphabeta-cells \\
        results/ladder/alphabeta-alone-1000 results/ladder/default-vs-alphabeta-1000 \\
        results/ladder/search-vs-alphabeta-1000 --field results/ladder/field

Only deals present in every folder are read, and each is checked to have the same seed
in all of them; ``--deals N`` reads deals 0 to N-1 only.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd
from scipy.stats import binomtest

from catansim.analysis.ladder import ladder_matrix, ladder_rating, seat_columns
from catansim.analysis.stats import mcnemar_p, mean_ci, p_text
from catansim.errors import CatansimError
from catansim.files import atomic_write_text

REFERENCE = "default"
COLUMNS = ("pair", "deal", "seed", "strategy", "opponent", "single_seat", "winner")


def read_games(folder: Path) -> pd.DataFrame:
    """A ladder folder's games: ``games.csv`` if there is one, else its part files."""
    if (folder / "games.csv").is_file():
        paths = [folder / "games.csv"]
    else:
        paths = sorted((folder / "games").glob("*.csv"))
    if not paths:
        raise CatansimError(f"{folder}: no games.csv and no games/*.csv; allowed: a ladder "
                            "folder (catansim ladder --out) or a published copy of one")
    games = pd.concat([pd.read_csv(p) for p in paths], ignore_index=True)
    missing = [c for c in COLUMNS if c not in games.columns]
    if missing:
        raise CatansimError(f"{paths[0]}: no column {missing[0]!r}; allowed: the games "
                            "table of catansim ladder")
    games["folder"] = folder.name
    return games


def common_deals(frames: list[pd.DataFrame], deals: int | None) -> pd.DataFrame:
    """The games of the deals every folder holds in all its seatings (below ``deals``),
    after checking that each deal has one seed across the folders."""
    complete = []
    for g in frames:
        per_deal = g.groupby("deal")["single_seat"].nunique()
        complete.append(set(per_deal.index[per_deal == len(seat_columns(g))]))
    keep = set.intersection(*complete)
    if deals is not None:
        keep = {d for d in keep if d < deals}
    if not keep:
        raise CatansimError("folders: no deal is complete in all of them; allowed: ladder "
                            "folders of the same --seed and --block with games played")
    games = pd.concat(frames, ignore_index=True)
    games = games[games["deal"].isin(keep)]
    twice = games.duplicated(["strategy", "opponent", "deal", "single_seat"])
    if twice.any():
        row = games[twice].iloc[0]
        raise CatansimError(f"folders: the game of {row['strategy']} alone against "
                            f"{row['opponent']}, deal {row['deal']}, seat "
                            f"{row['single_seat']}, is in two of them; allowed: each cell once")
    seeds = games.groupby("deal")["seed"].nunique()
    if (seeds > 1).any():
        deal = int(seeds.index[seeds > 1][0])
        raise CatansimError(f"folders: deal {deal} has different seeds in them; allowed: "
                            "ladders of the same --seed and --block")
    return games


def cells_table(games: pd.DataFrame) -> pd.DataFrame:
    """Each cell pooled over the seats, as the ladder's matrix gives it (Wilson interval,
    exact binomial test against the fair share, Holm over the cells), and the one-sided
    exact binomial test against a half."""
    cells = ladder_matrix(games).xs("all", level="seat").reset_index()
    cells = cells.rename(columns={"strategy": "single", "opponent": "against_three"})
    cells["p_above_half"] = [binomtest(int(w), int(n), 0.5, alternative="greater").pvalue
                             for w, n in zip(cells["wins"], cells["games"], strict=True)]
    return cells.drop(columns=["method", "correction"])


def paired_table(games: pd.DataFrame, first: str, second: str, opponent: str) -> pd.DataFrame:
    """``first`` less ``second``, each alone against three ``opponent``: the win in the
    same deal and seat."""
    won = games.assign(won=(games["winner"] == games["single_seat"]).astype(float))
    won = won[won["opponent"] == opponent]
    wide = won.pivot_table(index=["deal", "single_seat"], columns="strategy", values="won")
    if first not in wide or second not in wide:
        raise CatansimError(f"paired: no games of {first!r} and {second!r} each alone against "
                            f"{opponent!r}; allowed: the folders of both cells")
    wide = wide[[first, second]].dropna()
    per_deal = (wide[first] - wide[second]).groupby(level="deal").mean()
    ci = mean_ci(per_deal.to_numpy())
    only_first = int(((wide[first] == 1) & (wide[second] == 0)).sum())
    only_second = int(((wide[first] == 0) & (wide[second] == 1)).sum())
    return pd.DataFrame([{
        "first": first, "second": second, "against_three": opponent,
        "seatings": len(wide), "deals": ci["n"],
        "first_rate": wide[first].mean(), "second_rate": wide[second].mean(),
        "difference": ci["mean"], "ci_low": ci["ci_low"], "ci_high": ci["ci_high"],
        "only_first_won": only_first, "only_second_won": only_second,
        "p_mcnemar": mcnemar_p(only_second, only_first)}])


def field_rating(field: pd.DataFrame, cells: pd.DataFrame) -> pd.DataFrame:
    """One rating of the field's players and the cells' from both sets of games: the
    model groups games by seating, so games of different ladders fit together."""
    if len(seat_columns(field)) != len(seat_columns(cells)):
        raise CatansimError(f"--field: a ladder of {len(seat_columns(field))} players; "
                            f"allowed: one of {len(seat_columns(cells))}, as the cells")
    if REFERENCE not in set(field["strategy"]):
        raise CatansimError(f"--field: {REFERENCE!r} is not in its field; allowed: a "
                            "ladder with it, the players' reference")
    games = pd.concat([field, cells], ignore_index=True)
    return ladder_rating(games, REFERENCE).reset_index()


P_OF_CELLS = ("p_value", "p_adjusted", "p_above_half")


def shown(frame: pd.DataFrame, p_columns) -> pd.DataFrame:
    """``frame`` for the terminal: numbers to 4 places, p-values as ``p_text`` (4 places
    would print 1.8e-15 as 0.0)."""
    return frame.round(4).assign(**{c: frame[c].map(p_text) for c in p_columns})


def strategy_rows(rating: pd.DataFrame) -> str:
    """The players' rows of a rating for the terminal: each estimate with its interval
    and n."""
    rows = rating[rating["kind"] == "strategy"]
    return rows[["name", "log_strength", "ci_low", "ci_high", "games", "wins"]].round(4) \
        .to_string(index=False)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", type=Path, nargs="+", help="the cells' ladder folders")
    ap.add_argument("--out", type=Path, required=True, help="where the tables go")
    ap.add_argument("--deals", type=int, default=None, help="read deals 0 to N-1 only")
    ap.add_argument("--search", default="search:200", help="the search player's name")
    ap.add_argument("--field", type=Path, default=None,
                    help="a round-robin ladder folder to rate the alpha-beta player among")
    ap.add_argument("--bot", default="catanatron:AlphaBetaPlayer:2",
                    help="the alpha-beta player's name")
    a = ap.parse_args(argv)
    if a.deals is not None and a.deals < 1:
        raise CatansimError(f"--deals: {a.deals} is not allowed; allowed: an integer >= 1")
    for folder in a.folders:
        if not folder.is_dir():
            raise CatansimError(f"{folder}: not a folder; allowed: a ladder folder")
    games = common_deals([read_games(f) for f in a.folders], a.deals)
    cells = cells_table(games)
    rating = ladder_rating(games, REFERENCE).reset_index()
    paired = paired_table(games, a.search, REFERENCE, a.bot)
    tables = {"cells": cells, "rating": rating, "paired": paired}
    if a.field is not None:
        tables["field-rating"] = field_rating(read_games(a.field), games)
    print(shown(cells, P_OF_CELLS).to_string(index=False))
    print(strategy_rows(rating))
    print(shown(paired, ("p_mcnemar",)).T.to_string(header=False))
    a.out.mkdir(parents=True, exist_ok=True)
    if a.field is not None:
        f = tables["field-rating"]
        print(strategy_rows(f.sort_values("log_strength", ascending=False)))
    for name, frame in tables.items():
        atomic_write_text(a.out / f"{name}.csv", frame.to_csv(index=False))
    print(f"wrote {a.out}/" + ", ".join(f"{name}.csv" for name in tables))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (CatansimError, OSError) as e:
        print(f"alphabeta_cells: error: {e}", file=sys.stderr)
        sys.exit(2)
