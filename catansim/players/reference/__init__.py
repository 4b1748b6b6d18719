"""The scripted player, written for a reader: every decision of ``core.scripted`` in
plain Python, from what the decision may read.

The compiled player (``core/scripted/``) is written for the machine: branchless
selects, bit masks, memos in a float64 work array. This package says the same player
in the game's words, one function per decision, each reading the deciding seat's
``Observation`` (its own cards, the board, the supply, the public record), the
strategy's parameters (``weights``) and the legal options. ``tests/
test_reference_players.py`` drives games of every preset and checks, decision by
decision, that the kernel chooses what this package allows. Change a strategy here
first, then carry the change into the kernel with the test as the judge.

- ``table``: facts of the table (networks, spots, production, harbors, pieces left);
- ``weights``: a strategy's parameters by name;
- ``placement``: the worth of a node, a city and a road, and the best of each;
- ``plan``: the four builds ranked;
- ``trade``: player-trade offers and answers, maritime trades;
- ``decisions``: each decision, and ``choices`` below picks the one pending.

Each module has a compiled twin of the same name in ``core/scripted/`` (``plan`` and
``plan_nb.py``), and each function its twin there (``plan`` and ``plan_nb``), or the
twin module's docstring says which kernel it is folded into. ``tests/
test_reference_players.py`` checks that they match.

Where the kernel draws among equal choices from the seat's own random stream (the
robber's hex and victim, the leader among equals, the partner of a trade offer), a
decision returns every one of the equals; elsewhere exactly one option.

May import: ``game`` (``Observation``, ``Option``), ``rules``, ``strategies`` (the
parameters' names and words), ``constants`` and ``topology``; never the engine, the
kernels or the state.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ...errors import CatansimError
from ...game import Observation, Option
from ...strategies import Strategy
from . import decisions as D
from . import trade as T
from .trade import Hidden
from .weights import Weights, weights


def choices(obs: Observation, options: Sequence[Option], strategy: Strategy | Mapping | Weights,
            offers_made: int = 0, hidden: Hidden | None = None) -> list[Option]:
    """The options the scripted ``strategy`` may choose for ``obs.decision``, the
    observer's pending decision (``options``: its legal options).

    ``offers_made`` is the public count of player-trade offers the observer made this
    turn; ``hidden`` what an ``information = "omniscient"`` strategy reads of the
    others' cards (required for one, refused otherwise).
    """
    w = strategy if isinstance(strategy, Weights) else weights(strategy)
    if (w.information >= 0.5) != (hidden is not None):
        raise CatansimError("hidden: the true cards go with information = 'omniscient' only; "
                            "allowed: hidden=None for a public strategy")
    d = obs.decision
    if d == "action":
        return D.action(obs, w, offers_made, hidden)
    if d in FROM_OPTIONS:
        return FROM_OPTIONS[d](obs, w, options)
    if d in FROM_OBSERVATION:
        return FROM_OBSERVATION[d](obs, w)
    raise CatansimError(f"choices: no decision is pending ({d!r}); allowed: an observation "
                        "whose seat is to decide")


# Each decision (``Observation.decision``) and its function: those that choose among
# the legal options, and those that read the observation alone.
FROM_OPTIONS = {"setup settlement": D.setup_settlement, "setup road": D.setup_road,
                "robber hex": D.robber_hex, "robber victim": D.victim}
FROM_OBSERVATION = {"development card before the roll": D.before_roll, "discard": D.discard,
                    "Road Building road": D.free_road, "Invention": D.invention,
                    "Monopoly": D.monopoly, "trade answer": T.answer}


__all__ = ["Hidden", "Weights", "choices", "weights"]
