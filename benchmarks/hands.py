"""Hand management of a preset, from its game logs: how often its players sit on cards.

Plays ``--games`` games of four copies of a preset (seeds from ``--seed``), replays
each log (``catansim.logs.replay``) and counts the cards every seat holds at every end
of a turn (what the next roll's 7 would find), and apart from that at the ends of the
seat's own turns::

    python benchmarks/hands.py --strategy default --games 4000

- seat-games in which the seat holds 12 or more cards at the end of a turn (any
  player's turn; and its own turns only);
- seat hands over the discard limit at the end of a turn (more cards than the limit:
  a 7 on the next roll takes half): every seat at every turn end, and the seat whose
  turn it was;
- seats that never build a city.

Shares of seat-games carry 95% Wilson intervals; the shares of hands at turn ends,
which cluster in games, 95% bootstrap intervals over games (``scipy.stats.bootstrap``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from scipy.stats import bootstrap

from catansim.analysis.stats import wilson_ci
from catansim.engine import play_game
from catansim.errors import CatansimError
from catansim.logs import game_log, replay
from catansim.rules import Rules
from catansim.strategies import PRESETS, StrategySet, load_strategies

BIG_HAND = 12


def game_hands(seed: int, strategy: str, rules: Rules,
               strategy_set: StrategySet = PRESETS) -> dict:
    """One game's counts: per seat, its largest hand at any turn end and at its own, and
    whether it built a city; over the game, the hands counted at turn ends (every seat's,
    and the seat whose turn ended) and those over the discard limit."""
    res = play_game(seed, 4, [strategy] * 4, rules=rules, strategy_set=strategy_set)
    header, events = game_log(res)
    limit = rules.discard_limit if rules.discard_limit is not None else 10**9
    largest, largest_own = [0] * 4, [0] * 4
    counts = dict(hands=0, over=0, own=0, own_over=0)

    def observe(state, ev):
        if ev["e"] != "turn_end":
            return
        for q in range(4):
            cards = sum(state.hands[q])
            largest[q] = max(largest[q], cards)
            counts["hands"] += 1
            counts["over"] += int(cards > limit)
            if q == ev["p"]:
                largest_own[q] = max(largest_own[q], cards)
                counts["own"] += 1
                counts["own_over"] += int(cards > limit)

    replay(header, events, check=False, observer=observe)
    city = [any(e["e"] == "build_city" and e["p"] == q for e in events) for q in range(4)]
    return dict(largest=largest, largest_own=largest_own, city=city, **counts)


def _share(over: np.ndarray, total: np.ndarray, seed: int) -> tuple[float, float, float]:
    """sum(over) / sum(total) with its 95% bootstrap interval over games."""
    ci = bootstrap((over, total), lambda o, e: o.sum() / e.sum(), paired=True,
                   vectorized=False, n_resamples=2000, method="percentile",
                   random_state=np.random.default_rng(seed)).confidence_interval
    return float(over.sum() / total.sum()), float(ci.low), float(ci.high)


def figures(strategy: str, games: int, seed: int, rules: Rules | None = None,
            strategy_set: StrategySet = PRESETS) -> dict:
    """The figures over ``games`` games of four ``strategy`` players."""
    rules = rules or Rules()
    rows = [game_hands(seed + i, strategy, rules, strategy_set) for i in range(games)]
    out = dict(strategy=strategy, games=games, seat_games=4 * games)

    def column(key):
        return np.array([r[key] for r in rows])

    for name, k in (("big_hand", (column("largest") >= BIG_HAND).sum()),
                    ("big_hand_own", (column("largest_own") >= BIG_HAND).sum()),
                    ("no_city", (~column("city")).sum())):
        lo, hi = wilson_ci(int(k), 4 * games)
        out[name] = (int(k) / (4 * games), float(lo[0]), float(hi[0]))
    out["over_limit"] = _share(column("over").astype(float), column("hands").astype(float), seed)
    out["over_limit_own"] = _share(column("own_over").astype(float),
                                   column("own").astype(float), seed)
    out["hands"], out["own"] = int(column("hands").sum()), int(column("own").sum())
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--strategy", default="default", help="the preset playing all four seats")
    ap.add_argument("--games", type=int, default=4000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--config", type=Path, default=None, help="a TOML file of "
                    "[strategies.NAME] tables (docs/strategies.md) --strategy may name")
    a = ap.parse_args(argv)
    strategies = load_strategies(a.config) if a.config is not None else PRESETS
    strategies.compiled(a.strategy, "--strategy")
    if a.games < 1:
        raise CatansimError(f"--games: {a.games}; allowed: an integer of at least 1")
    f = figures(a.strategy, a.games, a.seed, strategy_set=strategies)

    def rate(key):
        r, lo, hi = f[key]
        return f"{r:.3f} [{lo:.3f}, {hi:.3f}]"

    print(f"four {a.strategy}, {a.games:,} games (seeds {a.seed}..{a.seed + a.games - 1})")
    n = f"n = {f['seat_games']:,} seat-games"
    print(f"seat-games holding {BIG_HAND}+ cards at a turn end: {rate('big_hand')}; "
          f"at its own: {rate('big_hand_own')} ({n})")
    print(f"hands over the discard limit at turn ends: {rate('over_limit')} "
          f"(n = {f['hands']:,} seat hands); at its own: {rate('over_limit_own')} "
          f"(n = {f['own']:,}); bootstrap over games")
    print(f"seats that never build a city: {rate('no_city')} ({n})")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except CatansimError as e:
        sys.exit(f"hands: error: {e}")
