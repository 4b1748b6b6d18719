"""Every decision of the scripted player (``docs/strategies.md``, How the scripted player
decides), one function each.

A decision reads the deciding seat's ``Observation`` (its own cards, the board, the
supply, the public record), the strategy's ``Weights`` and, where the decision has
them, the legal ``options``. It returns the options the scripted player may choose:
one, or, where the kernel draws among equals from the seat's own random stream, every
one of the equals. The trades the action phase makes are in ``trade``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...constants import (
    INVENTION,
    KNIGHT,
    LARGEST_ARMY_MIN,
    MONOPOLY,
    PIPS,
    ROAD_BUILDING,
)
from ...game import Observation, Option
from ...topology import HEX_NODES
from .placement import (
    best_city,
    best_road,
    best_settlement_spot,
    node_score,
)
from .plan import BUILDS, CITY, COST, DEV, ROAD, SETTLEMENT, Plan, own_plan
from .table import (
    best_of,
    buildings,
    free_by_distance_rule,
    hexes_with_buildings,
    may_play,
    missing,
    neighbours,
    other_end,
    production,
    roads_at,
    roads_left,
    settlements_left,
)
from .trade import Hidden, maritime_toward, trade_offers
from .weights import Weights

END = Option("end")


# --- the set-up ---------------------------------------------------------------------------


def setup_settlement(obs: Observation, w: Weights, options: Sequence[Option]) -> list[Option]:
    """The starting settlement on the legal node of the best ``node_score`` (its
    production so far counts for the complement and harbor terms, so the second one
    weighs what the first lacks); ties: the lowest node. With ``placement_temperature``
    above 0 the node is drawn (``setup_settlement_chances``): every legal node may be
    chosen."""
    nodes = sorted(o.target for o in options)
    if getattr(w, "placement_temperature", 0.0) > 0:
        return [Option("settlement", n) for n in nodes]
    best = best_of(nodes, lambda n: node_score(obs, w, obs.seat, n, False))
    return [Option("settlement", best[0])]


def setup_settlement_chances(obs: Observation, w: Weights,
                             options: Sequence[Option]) -> dict[int, float]:
    """Each legal starting node's chance under ``placement_temperature`` T > 0: a softmax
    of the node scores, exp((score - best score) / T) over its sum."""
    nodes = sorted(o.target for o in options)
    scores = np.array([node_score(obs, w, obs.seat, n, False) for n in nodes])
    weight = np.exp((scores - scores.max()) / w.placement_temperature)
    return dict(zip(nodes, weight / weight.sum(), strict=True))


def setup_road(obs: Observation, w: Weights, options: Sequence[Option]) -> list[Option]:
    """The starting road toward the best spot two edges away: at the settlement just
    placed, the legal edge whose far end has a neighbour (not the settlement) free by
    the Distance Rule with the best ``node_score`` (0 if none is free or all score
    below 0); ties: the first edge in the topology's order at the settlement."""
    node = next(n for n in buildings(obs, obs.seat, 1) if roads_at(obs, obs.seat, n) == 0)
    legal = {o.target for o in options}

    def toward(edge: int) -> float:
        far = other_end(edge, node)
        value = 0.0
        for _, m in neighbours(far):
            if m != node and free_by_distance_rule(obs, m):
                value = max(value, node_score(obs, w, obs.seat, m, False))
        return value

    edges = [e for e, _ in neighbours(node) if e in legal]
    return [Option("road", best_of(edges, toward)[0])]


# --- development cards --------------------------------------------------------------------


def robber_on_own_hex(obs: Observation) -> bool:
    """The robber sits on a producing hex (not the desert) at one of the observer's
    buildings."""
    return obs.hex_number[obs.robber] != 0 and obs.robber in hexes_with_buildings(obs, obs.seat)


def knight_wanted(obs: Observation, w: Weights) -> bool:
    """Play a Knight: always when ``knight_eager``; else to free its own hex from the
    robber, or when this Knight takes Largest Army now."""
    if w.knight_eager >= 0.5 or robber_on_own_hex(obs):
        return True
    holder = obs.largest_army
    after = int(obs.knights[obs.seat]) + 1
    return holder != obs.seat and after >= LARGEST_ARMY_MIN and (
        holder < 0 or after > obs.knights[holder])


def before_roll(obs: Observation, w: Weights) -> list[Option]:
    """A Knight before the roll when one is wanted (``knight_wanted``), else the roll."""
    if may_play(obs, KNIGHT) and knight_wanted(obs, w):
        return [Option("play", KNIGHT)]
    return [Option("roll")]


def opponents_hold(obs: Observation) -> list[int]:
    """What the opponents hold together of each resource: every card is in the supply
    or a hand, so the supply's size less the supply and the observer's own cards (no
    single opponent's hand is read)."""
    size = obs.rules.supply_size
    return [size - int(obs.supply[r]) - int(obs.hand[r]) for r in range(5)]


def monopoly_resource(obs: Observation) -> int:
    """The resource the opponents hold most of; a hundredth of a card less for each
    card of it the observer holds itself, so ties go to the one it lacks most."""
    held = opponents_hold(obs)
    return best_of(range(5), lambda r: held[r] - 0.01 * int(obs.hand[r]))[0]


def card_to_play(obs: Observation, w: Weights, mine: Plan) -> int:
    """The development card to play in the action phase, -1 for none, in this order:

    - a Knight when wanted (``knight_wanted``);
    - Monopoly when the opponents hold at least ``monopoly_min`` cards of the resource
      it would name;
    - Invention when a wanted build misses one or two cards and the supply holds two;
    - Road Building while a road piece is left, when roads are wanted or two pieces
      are left.
    """
    if may_play(obs, KNIGHT) and knight_wanted(obs, w):
        return KNIGHT
    if may_play(obs, MONOPOLY) and opponents_hold(obs)[monopoly_resource(obs)] >= w.monopoly_min:
        return MONOPOLY
    if may_play(obs, INVENTION) and int(obs.supply.sum()) >= 2 and any(
            mine.priority[b] > 0 and 1 <= mine.missing[b] <= 2 for b in BUILDS):
        return INVENTION
    pieces = roads_left(obs, obs.seat)
    if may_play(obs, ROAD_BUILDING) and pieces > 0 and (mine.priority[ROAD] > 0 or pieces >= 2):
        return ROAD_BUILDING
    return -1


def free_road(obs: Observation, w: Weights) -> list[Option]:
    """A Road Building road goes where a paid road would (``best_road``), even when it
    is worth nothing."""
    edge, _ = best_road(obs, w, obs.seat, settlements_left(obs, obs.seat) > 0)
    return [Option("road", edge)]


def invention(obs: Observation, w: Weights) -> list[Option]:
    """Invention takes what the build of highest priority among those missing at most
    two cards lacks (wood to ore, while the supply has it), then, for each card still
    due, the resource it produces least of (each card taken counts as 5 pips of it)."""
    due = obs.due
    mine = own_plan(obs, w)
    near = [b for b in BUILDS if mine.priority[b] > 0 and mine.missing[b] <= 2]
    take = [0] * 5
    left = [int(x) for x in obs.supply]
    if near:
        target = best_of(near, lambda b: mine.priority[b])[0]
        for r in range(5):
            lack = COST[target][r] - int(obs.hand[r])
            while lack > 0 and sum(take) < due and left[r] > 0:
                take[r] += 1
                left[r] -= 1
                lack -= 1
    pips = production(obs, obs.seat)
    while sum(take) < due:
        r = min((r for r in range(5) if left[r] > 0), key=lambda r: pips[r] + take[r] * 5.0)
        take[r] += 1
        left[r] -= 1
    return [Option("invention", get=tuple(take))]


def monopoly(obs: Observation, w: Weights) -> list[Option]:
    """Monopoly names ``monopoly_resource``."""
    return [Option("monopoly", monopoly_resource(obs))]


# --- the action phase ---------------------------------------------------------------------


def place(obs: Observation, w: Weights, build: str) -> Option | None:
    """Where ``build`` goes, as an option, or None when it has no place: a city on
    ``best_city``, a settlement on ``best_settlement_spot``, a road on ``best_road``
    only where it is worth more than 0; a development card is bought."""
    if build == DEV:
        return Option("buy")
    if build == CITY:
        node = best_city(obs, w, obs.seat)
        return Option("city", node) if node >= 0 else None
    if build == SETTLEMENT:
        node = best_settlement_spot(obs, w, obs.seat)
        return Option("settlement", node) if node >= 0 else None
    edge, value = best_road(obs, w, obs.seat, settlements_left(obs, obs.seat) > 0)
    return Option("road", edge) if edge >= 0 and value > 0 else None


def build_now(obs: Observation, w: Weights, mine: Plan) -> Option | None:
    """The best-ranked build the observer can pay and place (``place``), or None.

    While the top build still misses cards, a lower build may use only the cards the
    top build does not (it never sets the top build back).
    """
    hand = [int(x) for x in obs.hand]
    reserved = COST[mine.top] if mine.missing[mine.top] > 0 else (0, 0, 0, 0, 0)
    for build in mine.ranked():
        spendable = hand if build == mine.top else [max(0, h - c) for h, c in
                                                    zip(hand, reserved, strict=True)]
        if missing(spendable, COST[build]) > 0:
            continue
        option = place(obs, w, build)
        if option is not None:
            return option
    return None


def maritime_trade(obs: Observation, w: Weights, mine: Plan) -> Option | None:
    """A maritime trade toward the first build in the ranking that has one, or None.

    ``bank_trade`` 0: never; below 1.5: only trades that complete the build this turn,
    unless the hand is over the discard limit; 1.5 and above: any trade toward it.
    """
    if w.bank_trade <= 0:
        return None
    limit = obs.rules.discard_limit
    over = limit is not None and int(obs.hand.sum()) > limit
    complete = w.bank_trade < 1.5 and not over
    for build in mine.ranked():
        trade = maritime_toward(obs, build, complete)
        if trade is not None:
            return trade
    return None


def discard_risk(obs: Observation, cards: int) -> float:
    """The cards the observer expects to lose to a 7 before it acts again, if it ends its
    turn holding ``cards``: over the rolls until then (each opponent's, then its own),
    the first 7 comes at roll j with chance (5/6)^(j-1) x 1/6 and takes half of the
    cards then held when they are over the discard limit; the hand grows by its mean
    production a roll (its pips / 36) from roll to roll. 0 without a discard limit."""
    limit = obs.rules.discard_limit
    if limit is None:
        return 0.0
    per_roll = sum(production(obs, obs.seat)) / 36.0
    risk, first = 0.0, 1.0 / 6.0
    for j in range(obs.n_players):
        held = int(cards + j * per_roll)
        if held > limit:
            risk += first * (held // 2)
        first *= 5.0 / 6.0
    return risk


def trade_down(obs: Observation, w: Weights, mine: Plan) -> Option | None:
    """Before ending a turn exposed to a 7 (``hand_guard`` above 0): the build, purchase
    or maritime trade whose worth is highest and above 0, or None.

    An action's worth is ``hand_guard`` x the cards it saves from a discard
    (``discard_risk`` of the hand now, less of the hand after it) less what it sets the
    top build back. The actions, in this order (ties: the first met): each wanted build
    it can pay from its whole hand, in the ranking's order, where ``place`` puts it (it
    sets the top build back by the cards of the top build it uses: cards missing after
    less before, none for the top build itself); then, unless ``bank_trade`` is 0, the
    maritime trade toward the first build in the ranking that has one
    (``maritime_toward``), which sets it back by its rate less 2 (the cards given less
    the one got, less one for bringing the build closer).
    """
    guard = getattr(w, "hand_guard", 0.0)
    if guard <= 0 or mine.top is None:
        return None
    hand = [int(x) for x in obs.hand]
    cards = sum(hand)
    risk = discard_risk(obs, cards)
    if risk <= 0:
        return None
    top_cost = COST[mine.top]
    short = missing(hand, top_cost)
    best, best_v = None, 0.0
    for build in mine.ranked():
        cost = COST[build]
        if missing(hand, cost) > 0:
            continue
        option = place(obs, w, build)
        if option is None:
            continue
        after = [h - c for h, c in zip(hand, cost, strict=True)]
        setback = 0 if build == mine.top else missing(after, top_cost) - short
        v = guard * (risk - discard_risk(obs, cards - sum(cost))) - setback
        if v > best_v:
            best, best_v = option, v
    if w.bank_trade > 0:
        for build in mine.ranked():
            trade = maritime_toward(obs, build, False)
            if trade is not None:
                rate = sum(trade.give)
                v = guard * (risk - discard_risk(obs, cards - rate + 1)) - (rate - 2)
                if v > best_v:
                    best = trade
                break
    return best


def action(obs: Observation, w: Weights, offers_made: int,
           hidden: Hidden | None = None) -> list[Option]:
    """The next action of the turn, in this order: a development card worth playing
    (``card_to_play``); the best build it can pay (``build_now``); when the top build
    misses one or two cards, a player-trade offer (``trade_offers``); a maritime trade
    (``maritime_trade``); a build, purchase or trade that keeps cards from a 7
    (``trade_down``); else the end of the turn. With fewer than two cards it only plays
    a card, or ends the turn."""
    cards = int(obs.hand.sum())
    if cards < 2 and obs.card_played:
        return [END]
    mine = own_plan(obs, w)
    if not obs.card_played:
        card = card_to_play(obs, w, mine)
        if card >= 0:
            return [Option("play", card)]
    if mine.top is None or cards < 2:
        return [END]
    build = build_now(obs, w, mine)
    if build is not None:
        return [build]
    if mine.missing[mine.top] > 0:
        if mine.missing[mine.top] <= 2:
            offers = trade_offers(obs, w, mine, offers_made, hidden)
            if offers:
                return offers
        trade = maritime_trade(obs, w, mine)
        if trade is not None:
            return [trade]
    down = trade_down(obs, w, mine)
    if down is not None:
        return [down]
    return [END]


# --- a 7 ------------------------------------------------------------------------------------


def discard(obs: Observation, w: Weights) -> list[Option]:
    """The cards to discard (``obs.due`` of them), one at a time from the resource with
    the largest excess over what the top build needs plus half of what the second needs
    (a thousandth of a card more per pip it produces of it, so ties go to the resource
    that comes back soonest)."""
    mine = own_plan(obs, w)
    others = [b for b in BUILDS if b != mine.top and mine.priority[b] > 0]
    second = best_of(others, lambda b: mine.priority[b])[0] if others else None
    pips = production(obs, obs.seat)
    keep = []
    for r in range(5):
        want = 0.0
        if mine.top is not None:
            want += COST[mine.top][r]
        if second is not None:
            want += 0.5 * COST[second][r]
        keep.append(want)
    out = [0] * 5
    for _ in range(obs.due):
        held = [int(obs.hand[r]) - out[r] for r in range(5)]
        excess = {r: held[r] - keep[r] + 0.001 * pips[r] for r in range(5) if held[r] > 0}
        out[best_of(list(excess), excess.__getitem__)[0]] += 1
    return [Option("discard", give=tuple(out))]


def robber_policy(w: Weights) -> int:
    """0 hits the leader, 1 the most production, 2 a random hex (and victim)."""
    return int(w.robber_policy + 0.5)


def leaders(obs: Observation) -> list[int]:
    """The opponents of most visible points, then most cards (hand sizes are public)."""
    rivals = [q for q in range(obs.n_players) if q != obs.seat]
    return best_of(rivals, lambda q: 100 * int(obs.visible_points[q]) + int(obs.hand_sizes[q]))


def hex_value(obs: Observation, w: Weights, h: int, leader: int) -> float:
    """What the robber on hex ``h`` costs the others, corner by corner: a building's
    level x the hex's pips, times 1 for the leader's (policy 0; plus 0.1 a building),
    0.1 for another opponent's under policy 0 and 1 under policy 1, and -10 for the
    observer's own; plus 0.05 a building of another opponent who holds cards."""
    policy = robber_policy(w)
    pips = PIPS[obs.hex_number[h]]
    value = 0.0
    for node in HEX_NODES[h]:
        q = int(obs.node_owner[node])
        if q < 0:
            continue
        level = int(obs.node_level[node])
        is_leader = policy == 0 and q == leader
        if q == obs.seat:
            weight = -10.0
        elif is_leader:
            weight = 1.0
        else:
            weight = 0.1 if policy == 0 else 1.0
        value += weight * level * pips + (0.1 if is_leader else 0.0)
        holds = q != obs.seat and not is_leader and obs.hand_sizes[q] > 0
        value += 0.05 if holds else 0.0
    return value


def robber_hex(obs: Observation, w: Weights, options: Sequence[Option]) -> list[Option]:
    """Where the robber goes, among the legal hexes: never a hex at the observer's own
    buildings while another is allowed. Policy 2: any of them (drawn). Otherwise the
    hexes of highest ``hex_value``; under policy 0 for the leader, and with several
    leaders for any of them (the kernel draws the leader, then among equal hexes, from
    the seat's own random stream)."""
    allowed = sorted(o.target for o in options)
    own = hexes_with_buildings(obs, obs.seat)
    hexes = [h for h in allowed if h not in own] or allowed
    policy = robber_policy(w)
    if policy == 2:
        return [Option("robber", h) for h in hexes]
    targets = leaders(obs) if policy == 0 else [-1]
    best = set()
    for leader in targets:
        best.update(best_of(hexes, lambda h, leader=leader: hex_value(obs, w, h, leader)))
    return [Option("robber", h) for h in sorted(best)]


def victim(obs: Observation, w: Weights, options: Sequence[Option]) -> list[Option]:
    """Whom to rob: under policy 0 the victim of most visible points, then most cards;
    under policy 1 the most cards; under policy 2 any. Victims without cards come last;
    equals are drawn. When no victim holds a card nothing can be stolen: the first
    listed (the hex's corners in order; under policy 2 a drawn one)."""
    seats = [o.target for o in options]
    policy = robber_policy(w)
    holding = [q for q in seats if obs.hand_sizes[q] > 0]
    if policy == 2:
        return list(options)
    if not holding:
        return [options[0]]
    if policy == 1:
        best = best_of(holding, lambda q: int(obs.hand_sizes[q]))
    else:
        best = best_of(holding, lambda q: 100 * int(obs.visible_points[q])
                     + int(obs.hand_sizes[q]))
    return [Option("steal", q) for q in best]
