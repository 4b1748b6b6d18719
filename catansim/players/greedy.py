"""``GreedyBuilder``: a small Python player that builds whatever it can, best first.

It reads only its ``Observation`` (its own cards, the board, the public counts) and
picks one of the options it is given:

- set-up: the settlement of most worth (its node's pips, the ways two dice roll the
  numbers of its hexes, plus half a point per distinct resource and two per resource
  none of its buildings gets yet), and the road towards the best free site;
- its turn: a city, else a settlement, else a development card played (a Knight
  whenever it holds one, before the roll when the robber blocks one of its hexes; Road
  Building when it aims at a road or a settlement; Invention and Monopoly always),
  else a road if a road is its aim, else a maritime trade that brings it closer to its
  aim, else a development card bought, else a road towards the best free site, else
  the end of the turn;
- its aim is the settlement (a road while no free site is at the end of its roads) or
  the city it lacks fewest cards for, the settlement on a tie; it buys a card or
  builds a road only when that does not set the aim back, or when it holds more than
  7 cards (a 7 would take half);
- it never offers a trade, and accepts one that brings it closer to its aim unless
  some seat has 8 visible points or more (the observation does not say who offers);
- on a 7: it discards what its aim needs least, puts the robber on the hex that
  costs the leaders most (pips times the level of their buildings there), never on
  its own while another hex is free of it, and steals from the seat holding most
  cards;
- Invention takes what its aim lacks, Monopoly names the resource the others hold
  most of (by the public record's intervals).

Ties are broken at random by its own generator, seeded by ``new_game(seed, seat)``
for each game the engine plays, so a game depends only on its seed and settings.
"""

from __future__ import annotations

import numpy as np

from ..constants import (
    CITIES_PER_PLAYER,
    COST_CITY,
    COST_DEV_CARD,
    COST_ROAD,
    COST_SETTLEMENT,
    INVENTION,
    KNIGHT,
    MONOPOLY,
    PIPS,
    ROAD_BUILDING,
    SETTLEMENTS_PER_PLAYER,
    TERRAIN_RESOURCE,
)
from ..game import Observation, Option
from ..topology import EDGE_NODES, HEX_NODES, NODE_HEXES, NODE_NEIGHBOURS

COSTS = {"city": COST_CITY, "settlement": COST_SETTLEMENT, "buy": COST_DEV_CARD,
         "road": COST_ROAD}
# A settlement's worth grows by this for each resource none of its buildings gets yet.
NEW_RESOURCE = 2.0
# Over this many cards a 7 takes half: it spends on a card or a road rather than wait.
HAND_LIMIT = 7
# While a seat has this many visible points, every offer is refused.
REFUSE_FROM_POINTS = 8


def missing(hand, cost) -> int:
    """Cards ``hand`` lacks to pay ``cost``."""
    return sum(max(0, int(c) - int(h)) for h, c in zip(hand, cost, strict=True))


def node_value(obs: Observation, node: int) -> float:
    """Pips of the land hexes at ``node`` plus half a point per distinct resource."""
    hexes = [h for h in NODE_HEXES[node] if h >= 0]
    pips = sum(PIPS[obs.hex_number[h]] for h in hexes)
    kinds = {TERRAIN_RESOURCE[obs.hex_terrain[h]] for h in hexes} - {-1}
    return pips + 0.5 * len(kinds)


def is_site(obs: Observation, node: int) -> bool:
    """No building on ``node`` or next to it (the Distance Rule)."""
    return obs.node_owner[node] < 0 and all(
        obs.node_owner[m] < 0 for m in NODE_NEIGHBOURS[node] if m >= 0)


def road_value(obs: Observation, edge: int) -> float:
    """The best free site a road on ``edge`` leads to: a site at its ends counts in
    full, a site one road further counts half."""
    best = 0.0
    for end in EDGE_NODES[edge]:
        if is_site(obs, end):
            best = max(best, node_value(obs, end))
        for far in NODE_NEIGHBOURS[end]:
            if far >= 0 and is_site(obs, far):
                best = max(best, node_value(obs, far) / 2)
    return best


class GreedyBuilder:
    """Builds the best it can afford, cities first (the module's docstring has every
    rule). ``seed`` varies its tie-breaks between otherwise equal runs."""

    def __init__(self, seed: int = 0):
        self.seed = seed
        self.rng = np.random.default_rng(seed)

    def new_game(self, seed: int, seat: int) -> None:
        self.rng = np.random.default_rng([seed, seat, self.seed])

    def decide(self, obs: Observation, options) -> Option:
        return getattr(self, _DECISIONS[obs.decision])(obs, options)

    # --- helpers ------------------------------------------------------------------

    def best(self, options, score) -> Option:
        """The option of highest ``score``; ties broken at random."""
        values = [score(o) for o in options]
        top = max(values)
        tied = [o for o, v in zip(options, values, strict=True) if v == top]
        return tied[int(self.rng.integers(len(tied)))] if len(tied) > 1 else tied[0]

    def aim(self, obs: Observation) -> str | None:
        """What it saves for: the settlement (a road while no free site is in reach) or
        the city it lacks fewest cards for, the settlement on a tie; a development card
        once it has no piece left to build."""
        me, hand = obs.seat, obs.hand
        mine = obs.node_owner == me
        settlements = int((mine & (obs.node_level == 1)).sum())
        cities = int((mine & (obs.node_level == 2)).sum())
        aims = []
        if settlements + cities < SETTLEMENTS_PER_PLAYER:
            aims.append("settlement" if self.sites_in_reach(obs) else "road")
        if settlements and cities < CITIES_PER_PLAYER:
            aims.append("city")
        if aims:  # the first on a tie
            return min(aims, key=lambda a: missing(hand, COSTS[a]))
        return "buy" if obs.deck_left else None

    @staticmethod
    def sites_in_reach(obs: Observation) -> list[int]:
        """Free sites at the end of its roads."""
        ends = EDGE_NODES[obs.edge_owner == obs.seat].ravel()
        return [int(n) for n in set(ends.tolist()) if is_site(obs, n)]

    @staticmethod
    def my_hexes(obs: Observation) -> set[int]:
        nodes = np.flatnonzero(obs.node_owner == obs.seat)
        return {int(h) for h in NODE_HEXES[nodes].ravel() if h >= 0}

    def shortfall(self, obs: Observation, hand) -> tuple[int, int]:
        """Cards ``hand`` lacks for the aim, then for a city and a settlement both."""
        aim = self.aim(obs)
        first = missing(hand, COSTS[aim]) if aim else 0
        return first, missing(hand, COST_CITY) + missing(hand, COST_SETTLEMENT)

    # --- the decisions --------------------------------------------------------------

    def place_settlement(self, obs, options):
        return self.best(options, lambda o: self.site_value(obs, o.target))

    def site_value(self, obs: Observation, node: int) -> float:
        """A settlement's worth: its node's pips, two more per resource new to it."""
        have = {TERRAIN_RESOURCE[obs.hex_terrain[h]] for h in self.my_hexes(obs)}
        new = {TERRAIN_RESOURCE[obs.hex_terrain[h]] for h in NODE_HEXES[node] if h >= 0}
        return node_value(obs, node) + NEW_RESOURCE * len(new - have - {-1})

    def place_road(self, obs, options):
        return self.best(options, lambda o: road_value(obs, o.target))

    def before_roll(self, obs, options):
        knight = Option("play", KNIGHT)
        if knight in options and obs.robber in self.my_hexes(obs):
            return knight
        return Option("roll")

    def action(self, obs, options):
        by_kind: dict[str, list[Option]] = {}
        for o in options:
            by_kind.setdefault(o.kind, []).append(o)
        if "city" in by_kind:
            return self.best(by_kind["city"], lambda o: node_value(obs, o.target))
        if "settlement" in by_kind:
            return self.place_settlement(obs, by_kind["settlement"])
        play = self.card_to_play(obs, by_kind.get("play", ()))
        if play is not None:
            return play
        aim, hand = self.aim(obs), obs.hand
        if aim == "road" and "road" in by_kind:
            road = self.place_road(obs, by_kind["road"])
            if road_value(obs, road.target) > 0:
                return road
        if aim is not None and "maritime" in by_kind:
            trade = self.trade_towards(hand, COSTS[aim], by_kind["maritime"])
            if trade is not None:
                return trade
        for kind in ("buy", "road"):
            if kind not in by_kind:
                continue
            after = np.asarray(hand) - np.asarray(COSTS[kind])
            if aim is None or missing(after, COSTS[aim]) <= missing(hand, COSTS[aim]) \
                    or hand.sum() > HAND_LIMIT:
                choice = self.place_road(obs, by_kind[kind]) if kind == "road" \
                    else by_kind[kind][0]
                if kind == "buy" or road_value(obs, choice.target) > 0:
                    return choice
        return Option("end")

    def card_to_play(self, obs, plays) -> Option | None:
        cards = {o.target for o in plays}
        if KNIGHT in cards:
            return Option("play", KNIGHT)
        if ROAD_BUILDING in cards and self.aim(obs) in ("road", "settlement"):
            return Option("play", ROAD_BUILDING)
        for card in (INVENTION, MONOPOLY):
            if card in cards:
                return Option("play", card)
        return None

    @staticmethod
    def trade_towards(hand, cost, trades) -> Option | None:
        """The cheapest maritime trade that gets a card ``cost`` lacks for cards beyond
        it (so a trade never undoes another); None if there is none."""
        useful = []
        for o in trades:
            get, give = int(np.argmax(o.get)), int(np.argmax(o.give))
            if hand[get] < cost[get] and hand[give] - o.give[give] >= cost[give]:
                useful.append((o.give[give], give, get, o))
        return min(useful, key=lambda t: t[:3])[3] if useful else None

    def answer(self, obs, options):
        offer = obs.offer  # the maker's option: it gives ``give`` to me, gets ``get``
        if max(obs.visible_points) >= REFUSE_FROM_POINTS:
            return Option("refuse")  # the maker is not in the observation: any leader
        hand = obs.hand
        after = np.asarray(hand) + np.asarray(offer.give) - np.asarray(offer.get)
        return Option("accept" if self.shortfall(obs, after) < self.shortfall(obs, hand)
                      else "refuse")

    def discard(self, obs, options):
        hand = np.asarray(obs.hand)
        return self.best(options, lambda o: tuple(-x for x in self.shortfall(
            obs, hand - np.asarray(o.give))))

    def robber(self, obs, options):
        others = [q for q in range(obs.n_players) if q != obs.seat]
        top = max(obs.visible_points[q] for q in others)
        leaders = {q for q in others if obs.visible_points[q] == top}

        def harm(o):
            pips = PIPS[obs.hex_number[o.target]]
            score = 0.0
            for node in HEX_NODES[o.target]:
                owner = int(obs.node_owner[node])
                if owner == obs.seat:
                    return -1.0  # its own hex: only if every hex is
                if owner in leaders:
                    score += pips * obs.node_level[node]
                elif owner >= 0:
                    score += 0.1 * pips * obs.node_level[node]
            return score

        return self.best(options, harm)

    def steal(self, obs, options):
        return self.best(options, lambda o: (obs.hand_sizes[o.target],
                                             obs.visible_points[o.target]))

    def invention(self, obs, options):
        hand = np.asarray(obs.hand)
        return self.best(options, lambda o: tuple(-x for x in self.shortfall(
            obs, hand + np.asarray(o.get))))

    def monopoly(self, obs, options):
        others = np.arange(obs.n_players) != obs.seat
        held = (obs.known_low[others] + obs.known_high[others]).sum(axis=0)
        return self.best(options, lambda o: int(held[o.target]))


_DECISIONS = {
    "setup settlement": "place_settlement",
    "setup road": "place_road",
    "development card before the roll": "before_roll",
    "action": "action",
    "discard": "discard",
    "robber hex": "robber",
    "robber victim": "steal",
    "Road Building road": "place_road",
    "Invention": "invention",
    "Monopoly": "monopoly",
    "trade answer": "answer",
}
