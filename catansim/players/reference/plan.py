"""What to build next: the four builds ranked (``docs/strategies.md``, What to build).

``plan`` is asked for the deciding seat's own hand, and by a trade offer for what the
seat reckons a partner holds: the partner is assumed to plan with the deciding seat's
own weights.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ...constants import (
    COST_CITY,
    COST_DEV_CARD,
    COST_ROAD,
    COST_SETTLEMENT,
    KNIGHT,
    LARGEST_ARMY_MIN,
    SETTLEMENTS_PER_PLAYER,
)
from ...game import Observation
from .table import (
    cities_left,
    missing,
    roads_left,
    settlement_spots,
    settlements_left,
)
from .weights import Weights

ROAD, SETTLEMENT, CITY, DEV = "road", "settlement", "city", "development card"
BUILDS = (ROAD, SETTLEMENT, CITY, DEV)  # the order in which ties between builds go
COST = {ROAD: COST_ROAD, SETTLEMENT: COST_SETTLEMENT, CITY: COST_CITY, DEV: COST_DEV_CARD}


@dataclass(frozen=True)
class Plan:
    """The builds of one seat's plan: ``priority`` and cards ``missing`` of each (keys
    ``BUILDS``), and ``top``, the build of highest priority (None when none is wanted:
    every priority 0)."""

    priority: dict[str, float]
    missing: dict[str, int]
    top: str | None

    def ranked(self) -> list[str]:
        """The wanted builds (priority above 0) by falling priority.

        Equal priorities stay in the order a selection sort leaves them that moves to
        each place, in turn, the first build of strictly higher priority it meets,
        swapping it with the build there (the kernel's order; ties between builds are
        rare, and they decide which of two affordable builds comes first).
        """
        order = list(BUILDS)
        for i in range(len(order)):
            for j in range(i + 1, len(order)):
                if self.priority[order[j]] > self.priority[order[i]]:
                    order[i], order[j] = order[j], order[i]
        return [b for b in order if self.priority[b] > 0]


def army_in_reach(obs: Observation, seat: int, unplayed_knights: int) -> bool:
    """Two more Knights (beyond those played and ``unplayed_knights``) would take
    Largest Army from whoever holds it (3 Knights while nobody does)."""
    holder = obs.largest_army
    if holder == seat:
        return False
    mine = int(obs.knights[seat]) + unplayed_knights
    need = LARGEST_ARMY_MIN if holder < 0 else int(obs.knights[holder]) + 1
    return mine + 2 >= need


def build_weights(obs: Observation, w: Weights, seat: int, unplayed_knights: int) -> dict:
    """Each build's weight for ``seat``, 0 where the build is not possible at all.

    - settlement: ``settlement_weight`` while a piece is left and a spot is at the end
      of its roads;
    - road: ``road_weight`` (roads for Longest Route); while a settlement piece is left
      but no spot, the larger of it and ``reach_weight`` x ``settlement_weight`` (roads
      to reach a spot); 0 without road pieces;
    - city: ``city_weight`` while a city piece is left and a settlement has been built;
    - development card: ``dev_weight``, plus ``army_weight`` while Largest Army is in
      reach; 0 once the deck is empty.
    """
    pieces = settlements_left(obs, seat)
    spot = pieces > 0 and bool(settlement_spots(obs, seat))
    road = w.road_weight
    if pieces > 0 and not spot:
        road = max(w.road_weight, w.settlement_weight * w.reach_weight)
    if roads_left(obs, seat) <= 0:
        road = 0.0
    city = w.city_weight if cities_left(obs, seat) > 0 and pieces < SETTLEMENTS_PER_PLAYER \
        else 0.0
    dev = 0.0
    if obs.deck_left > 0:
        dev = w.dev_weight
        if w.army_weight > 0 and army_in_reach(obs, seat, unplayed_knights):
            dev += w.army_weight
    return {ROAD: road, SETTLEMENT: w.settlement_weight if spot else 0.0, CITY: city, DEV: dev}


def plan(obs: Observation, w: Weights, seat: int, hand: Sequence[int],
         unplayed_knights: int) -> Plan:
    """Rank the four builds for ``seat`` holding ``hand``: priority = weight / (1 +
    ``missing_penalty`` x cards still missing). The top is the build of highest
    priority, ties in ``BUILDS`` order."""
    weight = build_weights(obs, w, seat, unplayed_knights)
    short = {b: missing(hand, COST[b]) for b in BUILDS}
    priority = {b: weight[b] / (1.0 + w.missing_penalty * short[b]) for b in BUILDS}
    best = max(priority.values())
    top = next(b for b in BUILDS if priority[b] == best) if best > 0 else None
    return Plan(priority, short, top)


def own_plan(obs: Observation, w: Weights) -> Plan:
    """The observer's plan of its own hand and unplayed Knights."""
    return plan(obs, w, obs.seat, obs.hand.tolist(), int(obs.development_cards[KNIGHT]))
