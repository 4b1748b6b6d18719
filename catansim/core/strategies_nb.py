"""Scripted players: one decision framework driven by a float64 parameter row.

These only accept NumPy arrays and scalars. Every archetype (builder, expander,
city, army, trader, default) is just a parameter row ``prm`` for the functions
here; ``core.policy_nb`` calls them for every strategy id other than ``random``.
``PARAM_FIELDS`` documents each slot (index, name, range, meaning);
``catansim.strategies`` validates rows against it and ``docs/strategies.md``
explains the formulas.

Speed: scripted players never enumerate all legal actions. A decision first
looks at the hand (what is affordable, what is missing), and only then scores
the few candidate nodes or edges the chosen build needs. Small functions called
several times per decision (the plan in the action decision and for each trade
partner, the missing and affordable cards, the maritime trade, the development card
to play) are ``inline_kernel``s: a kernel call passes each array as seven machine
words, which inlining saves (``docs/history/performance.md``). ``action_nb`` above
them stays a kernel, as the
two-process cold compile (``catansim.kernels``) compiles it in its own part; it takes
only the arrays the scripted player reads (the random streams for its drawn ties and
offers, no legal-action list).
"""


import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from ..constants import (
    BUILD_CITY,
    BUILD_DEV_CARD,
    BUILD_ROAD,
    BUILD_SETTLEMENT,
    DESERT,
    HARBOR_ANY,
    INVENTION,
    KNIGHT,
    LARGEST_ARMY_MIN,
    MAX_PLAYERS,
    MONOPOLY,
    N_BUILD_KINDS,
    N_DEV_CARDS,
    N_EDGES,
    N_HEXES,
    N_NODES,
    ROAD_BUILDING,
    SETTLEMENTS_PER_PLAYER,
)
from ..topology import T_EDGE_NODES, T_HEX_NODES, T_NODE_EDGES, T_NODE_HEXES, T_NODE_NEIGHBOURS
from .actions_nb import (
    ACT_A,
    ACT_B,
    ACT_BUY_DEV,
    ACT_CITY,
    ACT_END,
    ACT_GIVE,
    ACT_KIND,
    ACT_PLAY_DEV,
    ACT_RECEIVE,
    ACT_ROAD,
    ACT_SETTLEMENT,
    ACT_SIZE,
    ACT_TRADE_BANK,
    ACT_TRADE_PLAYER,
    can_play_dev_nb,
)
from .jit import inline_kernel, kernel, typed_kernel
from .layout import (
    R_BANK,
    R_DISCARD_LIMIT,
    R_MAX_OFFERS,
    S_ARMY,
    S_BANK,
    S_CITIES_LEFT,
    S_DECK_POS,
    S_DEV_HAND,
    S_DEV_PLAYED,
    S_EDGE_OWNER,
    S_HAND,
    S_HARBORS,
    S_HEX_NUMBER,
    S_HEX_TERRAIN,
    S_KNIGHTS,
    S_N_PLAYERS,
    S_NODE_FREE,
    S_NODE_HARBOR,
    S_NODE_LEVEL,
    S_NODE_OWNER,
    S_NODE_RESOURCES,
    S_NODE_ROADS,
    S_OFFERS,
    S_OPEN_SPOTS,
    S_OWN_HEXES,
    S_PROD_PIPS,
    S_ROADS_LEFT,
    S_ROBBER,
    S_SETTLEMENTS_LEFT,
    S_VIEW,
)
from .record_nb import seen_high_nb, seen_low_nb
from .rng_nb import STREAM_PLAYER0, randint_nb, uniform_nb
from .rules_nb import (
    BITS5_TABLE,
    COST_TABLE,
    MOST_COST_TABLE,
    distance_ok_nb,
    empty_edges_nb,
    hand_size_nb,
    invention_cards_nb,
    maritime_rate_nb,
    net_nodes_nb,
    pips_nb,
    roads_at_nb,
    visible_vp_nb,
)

# --- the parameter row ------------------------------------------------------------------
# (name, low, high, meaning). The index of a slot is its position here.
PARAM_FIELDS: tuple[tuple[str, float, float, str], ...] = (
    ("pips_weight", 0.0, 5.0,
     "placement: weight of a node's production (pips x resource target x scarcity)"),
    ("diversity_weight", 0.0, 10.0, "placement: bonus per distinct resource at the node"),
    ("scarcity_weight", 0.0, 3.0,
     "placement: exponent of the scarcity factor (mean resource pips / this resource's pips)"),
    ("harbor_weight", 0.0, 10.0, "placement: weight of harbor synergy"),
    ("complement_weight", 0.0, 10.0,
     "placement: bonus per resource at the node that the player does not produce yet"),
    ("wood_target", 0.0, 3.0, "resource target: multiplier on wood pips"),
    ("brick_target", 0.0, 3.0, "resource target: multiplier on brick pips"),
    ("wool_target", 0.0, 3.0, "resource target: multiplier on wool pips"),
    ("wheat_target", 0.0, 3.0, "resource target: multiplier on wheat pips"),
    ("ore_target", 0.0, 3.0, "resource target: multiplier on ore pips"),
    ("road_weight", 0.0, 5.0, "build priority of roads for Longest Route"),
    ("settlement_weight", 0.0, 5.0, "build priority of settlements"),
    ("city_weight", 0.0, 5.0, "build priority of cities"),
    ("dev_weight", 0.0, 5.0, "build priority of development cards"),
    ("missing_penalty", 0.0, 5.0,
     "priority of a build = weight / (1 + missing_penalty x cards still missing)"),
    ("reach_weight", 0.0, 1.0,
     "priority of roads when no settlement spot is reachable, as a fraction of "
     "settlement_weight"),
    ("bank_trade", 0.0, 2.0,
     "maritime trade: 0 never; 1 when it completes a build this turn (or the hand is over "
     "the discard limit); 2 also whenever it brings the next build closer"),
    ("offers", 0.0, 10.0, "player-trade offers per turn (the engine caps them too)"),
    ("accept", 0.0, 1.0, "1 accepts player trades that help its next build, 0 never trades"),
    ("accept_vp_limit", 0.0, 20.0,
     "refuse trades with a player showing at least this many victory points"),
    ("robber_policy", 0.0, 2.0,
     "robber: 0 hit the leader, 1 hit the most production, 2 a random hex (never its own "
     "when avoidable)"),
    ("knight_eager", 0.0, 1.0,
     "knights: 1 plays one as soon as it may; 0 only to free its own hex or win the "
     "Largest Army race"),
    ("monopoly_min", 1.0, 20.0,
     "plays Monopoly when opponents hold at least this many cards of one resource"),
    ("block_weight", 0.0, 5.0,
     "bonus for nodes and edges next to opponents' roads (blocking their routes)"),
    ("route_weight", 0.0, 5.0, "bonus for roads that extend its longest route"),
    ("army_weight", 0.0, 5.0,
     "extra development-card priority while Largest Army is within reach"),
    ("information", 0.0, 1.0,
     "what the player reads of other hands: 0 public, the public record (cards counted from "
     "public events, core.record_nb); 1 omniscient, every hand and development card as if "
     "face up (to measure what seeing cards is worth)"),
    ("placement_temperature", 0.0, 10.0,
     "starting settlements: 0 the best-scoring node; above 0 a node drawn with probability "
     "proportional to exp((score - best score) / temperature), from the player's own "
     "stream (a board then no longer fixes the draft)"),
    ("offer_ask", 0.0, 3.0,
     "player-trade offers: up to this many more cards asked beyond the one wanted, each "
     "one the partner surely holds beyond its own next build"),
    ("offer_two", 0.0, 1.0,
     "player-trade offers: 1 offers two spare cards for the wanted one when no partner "
     "lacks a spare card, 0 never"),
)
PARAM_INDEX = {name: i for i, (name, _, _, _) in enumerate(PARAM_FIELDS)}
N_USED_PARAMS = len(PARAM_FIELDS)

P_PIPS = 0
P_DIVERSITY = 1
P_SCARCITY = 2
P_HARBOR = 3
P_COMPLEMENT = 4
P_TARGET = 5  # 5..9: wood, brick, wool, wheat, ore
P_W_ROAD = 10
P_W_SETTLEMENT = 11
P_W_CITY = 12
P_W_DEV = 13
P_MISSING = 14
P_REACH = 15
P_BANK_TRADE = 16
P_OFFERS = 17
P_ACCEPT = 18
P_ACCEPT_VP = 19
P_ROBBER = 20
P_KNIGHT = 21
P_MONOPOLY_MIN = 22
P_BLOCK = 23
P_ROUTE = 24
P_ARMY = 25
P_INFORMATION = 26
P_PLACEMENT_TEMPERATURE = 27
P_OFFER_ASK = 28
P_OFFER_TWO = 29

# Build kinds the planner ranks, and their costs (wood, brick, wool, wheat, ore).
K_ROAD = BUILD_ROAD
K_SETTLEMENT = BUILD_SETTLEMENT
K_CITY = BUILD_CITY
K_DEV = BUILD_DEV_CARD
N_KINDS = N_BUILD_KINDS


# Scratch layout of one decision (float64[SCRATCH]): see ``_plan_nb``.
X_SCAR = 0  # [5] scarcity factor ** scarcity_weight (while locate_nb fills a memo)
X_PROD = 5  # [5] the player's pips per resource (cities twice)
X_SCORE = 10  # [4] priority of each build kind
X_MISSING = 14  # [4] cards missing for each build kind
X_ORDER = 18  # [4] build kinds by falling score
X_PMASK = 22  # bit mask of the resources p produces (set with X_PROD)
X_BASE = 23  # offset in the work array of the node base scores in use (see locate_nb)
SCRATCH = 24
# The work array a game lends its players (float64[WORK_SIZE]): a decision uses the
# first SCRATCH slots; a trade offer plans the partner's builds in the next SCRATCH;
# the robber's choice keeps its terms per seat in the next 3 * ROBBER_OWNERS (W_ROBBER);
# then where the turn's trade offers start asking (W_OFFER_START, set at the first).
# Then MEMO_SLOTS memos of the base score of every node, which depends only on the
# board and a few parameters, so a work array serves one board (a game allocates its
# own): key (1, or 0 = empty), the BASE_KEY parameters, the 54 scores, then the 54
# nodes' harbor pips (pips at the node of its 2:1 harbor's resource, 0 for none).
MEMO_SLOTS = 4
# robber_hex_nb's three terms per corner owner, a row of ROBBER_OWNERS slots each
# (slot 0: an empty corner; slot q + 1: seat q): the production multiplier, the
# leader's bonus, the bonus for a seat holding cards.
ROBBER_OWNERS = MAX_PLAYERS + 1
W_ROBBER = 2 * SCRATCH
W_ROBBER_MULT = W_ROBBER
W_ROBBER_LEAD = W_ROBBER + ROBBER_OWNERS
W_ROBBER_HOLD = W_ROBBER + 2 * ROBBER_OWNERS
W_OFFER_START = W_ROBBER + 3 * ROBBER_OWNERS
W_BASE = W_OFFER_START + 1
BASE_KEY = 8  # pips, diversity and scarcity weights and the five resource targets
BASE_STRIDE = 1 + BASE_KEY + 2 * N_NODES
WORK_SIZE = W_BASE + BASE_STRIDE * MEMO_SLOTS


@inline_kernel
def reset_work_nb(x):
    """Make the work array ``x`` as a new game finds it: every slot before the memos zero
    and every memo empty. A memo's scores are read only once its key is set in this
    game, so they need no zeroing (a new board must not reuse them)."""
    for i in range(W_BASE):
        x[i] = 0.0
    for i in range(MEMO_SLOTS):
        x[W_BASE + BASE_STRIDE * i] = 0.0


# --- what p reads of another hand --------------------------------------------------------


@inline_kernel
def _sure_hand_nb(prm, s, p, q):
    """Offset in ``s`` of the five counts p takes for seat q's hand: the cards q surely
    holds by p's public record, written to the scratch field ``view``, or (omniscient)
    q's true hand."""
    if prm[P_INFORMATION] >= 0.5:
        return S_HAND + 5 * q
    for r in range(5):
        s[S_VIEW + r] = seen_low_nb(s, p, q, r)
    return S_VIEW


@inline_kernel
def _sure_count_nb(prm, s, p, q, r):
    """The cards of resource r that p knows seat q surely holds (``_sure_hand_nb``'s
    count of r, without writing the view)."""
    if prm[P_INFORMATION] >= 0.5:
        return s[S_HAND + 5 * q + r]
    return seen_low_nb(s, p, q, r)


@inline_kernel
def _may_hold_nb(prm, s, p, q, r):
    """Whether seat q may hold a card of resource r, as far as p can know."""
    if prm[P_INFORMATION] >= 0.5:
        return s[S_HAND + 5 * q + r] > 0
    return seen_high_nb(s, p, q, r) > 0


@inline_kernel
def _held_knights_nb(prm, s, p, q):
    """The Knights p reckons q holds unplayed: its own exactly; an opponent's, as many as
    its unplayed development cards (a public count: their kinds are hidden), or
    (omniscient) exactly."""
    if q == p or prm[P_INFORMATION] >= 0.5:
        return s[S_DEV_HAND + 5 * q + KNIGHT]
    held = 0
    for k in range(5):
        held += s[S_DEV_HAND + 5 * q + k]
    return held


@inline_kernel
def _pick_tie_nb(rng, p, ties):
    """True with probability 1 / ``ties``: the ``ties``-th of equal candidates replaces the
    one kept, so each is chosen with equal chance (from p's own random stream)."""
    return randint_nb(rng, STREAM_PLAYER0 + p, ties) == 0


# --- board knowledge ---------------------------------------------------------------------


@kernel
def scarcity_nb(s, prm, x):
    """Write each resource's scarcity factor into ``x[X_SCAR:X_SCAR+5]``.

    factor_r = clip(mean pips per resource / pips of r on this board, 0.5, 2) raised to
    ``scarcity_weight``: resources that are rare on this board count more.
    """
    for r in range(5):
        x[X_SCAR + r] = 0.0
    total = 0.0
    for h in range(N_HEXES):
        t = s[S_HEX_TERRAIN + h]
        if t != DESERT:  # terrain t produces resource t
            pips = pips_nb(s[S_HEX_NUMBER + h])
            x[X_SCAR + t] += pips
            total += pips
    mean = total / 5.0
    w = prm[P_SCARCITY]
    for r in range(5):
        f = mean / x[X_SCAR + r] if x[X_SCAR + r] > 0 else 2.0
        f = min(2.0, max(0.5, f))
        x[X_SCAR + r] = f**w if w != 1.0 else f


@kernel
def production_nb(s, topo, p, x):
    """Write p's production in pips per resource (cities count twice) into ``x[X_PROD:]``,
    and the mask of the resources p produces into ``x[X_PMASK]``.

    Read from the state's ``prod_pips`` (integers, so exactly the sums of a scan of
    p's buildings)."""
    mask = 0
    for r in range(5):
        pips = s[S_PROD_PIPS + 5 * p + r]
        x[X_PROD + r] = pips
        if pips > 0:
            mask |= 1 << r
    x[X_PMASK] = mask


@kernel
def locate_nb(s, topo, prm, p, x):
    """Prepare placement scoring for p in ``x``: p's production, and the base score of
    every node (memoised in the work array ``x`` per parameter values: it depends only
    on the board, the pips, diversity and scarcity weights and the resource targets;
    the scarcity factors are computed only to fill a memo) with its harbor pips."""
    production_nb(s, topo, p, x)
    free = -1
    for i in range(MEMO_SLOTS):
        m = W_BASE + BASE_STRIDE * i
        if x[m] == 0.0:
            if free < 0:
                free = i
            continue
        same = x[m + 1] == prm[P_PIPS] and x[m + 2] == prm[P_DIVERSITY]
        same = same and x[m + 3] == prm[P_SCARCITY]
        for r in range(5):
            same = same and x[m + 4 + r] == prm[P_TARGET + r]
        if same:
            x[X_BASE] = m + 1 + BASE_KEY
            return
    m = W_BASE + BASE_STRIDE * (free if free >= 0 else 0)
    scarcity_nb(s, prm, x)
    x[m] = 1.0
    x[m + 1] = prm[P_PIPS]
    x[m + 2] = prm[P_DIVERSITY]
    x[m + 3] = prm[P_SCARCITY]
    for r in range(5):
        x[m + 4 + r] = prm[P_TARGET + r]
    base = m + 1 + BASE_KEY
    for n in range(N_NODES):
        kind = s[S_NODE_HARBOR + n]
        prod = 0.0
        harbor_pips = 0  # a producing terrain t equals kind only at a 2:1 harbor of t
        for k in range(3):
            h = topo[T_NODE_HEXES + 3 * n + k]
            if h < 0:
                continue
            t = s[S_HEX_TERRAIN + h]
            if t == DESERT:
                continue
            pips = pips_nb(s[S_HEX_NUMBER + h])
            prod += pips * prm[P_TARGET + t] * x[X_SCAR + t]
            harbor_pips += pips if t == kind else 0
        distinct = BITS5_TABLE[s[S_NODE_RESOURCES + n]]
        x[base + n] = prm[P_PIPS] * prod + prm[P_DIVERSITY] * distinct
        x[base + N_NODES + n] = harbor_pips
    x[X_BASE] = base


@kernel
def add_blocks_by_edge_nb(s, topo, p, n, v, block):
    """v plus ``block`` once per opponent road at node n, one addition per edge in edge
    order: the plain form of ``_add_blocks_nb`` (tests/test_strategies.py)."""
    for k in range(3):
        e = topo[T_NODE_EDGES + 3 * n + k]
        if e >= 0 and s[S_EDGE_OWNER + e] >= 0 and s[S_EDGE_OWNER + e] != p:
            v += block
    return v


@inline_kernel
def _add_blocks_nb(s, topo, p, n, v, block):
    # ``add_blocks_by_edge_nb`` from the road counts: the opponent roads at n are all
    # roads there less p's (``node_roads``, five reads, no edge to look up), and
    # ``block`` is added once per opponent road by three products with 0 or 1 (adding
    # 0.0 changes nothing, so the sums are the same), not a branch on the board.
    k = -s[S_NODE_ROADS + N_NODES * p + n]
    for q in range(MAX_PLAYERS):
        k += s[S_NODE_ROADS + N_NODES * q + n]
    v += block * (k >= 1)
    v += block * (k >= 2)
    v += block * (k >= 3)
    return v


@inline_kernel
def node_score_nb(s, topo, prm, p, n, x, in_game):
    """Placement value of node ``n`` for player p (see docs/strategies.md); ``x`` must
    have been prepared by ``locate_nb`` for p.

    score = pips_weight * sum_h pips_h * target_r * scarcity_r
          + diversity_weight * distinct resources at n
          + complement_weight * resources at n that p does not produce yet
          + harbor_weight * harbor value
          + block_weight * opponents' roads touching n (in game only)
    """
    # No loop over the node's hexes (their harbor pips are memoised); a term not
    # taken adds 0.0. LLVM still branches on the harbor kind (a choice between two
    # floats); multiplying the terms by their conditions is not faster.
    base = int(x[X_BASE])
    score = x[base + n]
    produced = int(x[X_PMASK])
    complement = prm[P_COMPLEMENT] * BITS5_TABLE[s[S_NODE_RESOURCES + n] & ~produced & 31]
    score += complement if produced != 0 else 0.0
    kind = s[S_NODE_HARBOR + n]
    kc = max(kind, 0)  # kind -1 (no harbor) reads kind 0's fields, then adds nothing
    harbor_w = prm[P_HARBOR]
    # A 2:1 harbor is worth what the player and this node produce of its resource, in
    # quarters (sums of small integers over 4: exact in any order).
    hv = (x[X_PROD + kc] + x[base + N_NODES + n]) / 4.0
    hv = 1.0 if kind == HARBOR_ANY else hv
    use = (kind >= 0) & (harbor_w > 0) & (s[S_HARBORS + 6 * p + kc] == 0)
    score += harbor_w * hv if use else 0.0
    if in_game and prm[P_BLOCK] > 0:
        score = _add_blocks_nb(s, topo, p, n, score, prm[P_BLOCK])
    return score


@kernel
def city_value_nb(s, topo, prm, n):
    """What upgrading node ``n`` adds: its pips weighted by the resource targets."""
    v = 0.0
    for k in range(3):
        h = topo[T_NODE_HEXES + 3 * n + k]
        if h >= 0:
            t = s[S_HEX_TERRAIN + h]
            if t != DESERT:
                pips = pips_nb(s[S_HEX_NUMBER + h])
                if h == s[S_ROBBER]:
                    pips *= 0.5
                v += pips * prm[P_TARGET + t]
    return v


# --- setup --------------------------------------------------------------------------------


@kernel
def setup_settlement_nb(prm, s, topo, rng, p, legal, x):
    """The best-scoring legal starting node (``node_score_nb`` with p's production so far);
    with ``placement_temperature`` above 0, one drawn from p's own random stream with
    probability proportional to exp((score - best score) / temperature)."""
    locate_nb(s, topo, prm, p, x)
    # The legal nodes as bits, gathered without a branch per node (a branch on the
    # board's state mispredicts often: measured), then visited in increasing order.
    nodes = 0
    for n in range(N_NODES):
        nodes |= np.int64(legal[n] != 0) << n
    best = -1
    best_v = -1e18
    m = nodes
    while m != 0:
        n = trailing_zeros(m)
        m &= m - 1
        v = node_score_nb(s, topo, prm, p, n, x, False)
        if v > best_v:
            best_v = v
            best = n
    temperature = prm[P_PLACEMENT_TEMPERATURE]
    if temperature > 0.0 and best >= 0:
        best = _softmax_node_nb(s, topo, prm, rng, p, x, nodes, best_v, temperature)
    return best


@inline_kernel
def _softmax_node_nb(s, topo, prm, rng, p, x, nodes, best_v, temperature):
    """One of the nodes (bits of ``nodes``) drawn with probability proportional to
    exp((score - best_v) / temperature): the weights summed in node order, then the
    node where a uniform draw times the sum falls."""
    total = 0.0
    m = nodes
    while m != 0:
        n = trailing_zeros(m)
        m &= m - 1
        total += np.exp((node_score_nb(s, topo, prm, p, n, x, False) - best_v) / temperature)
    target = uniform_nb(rng, STREAM_PLAYER0 + p) * total
    last = -1
    m = nodes
    while m != 0:
        n = trailing_zeros(m)
        m &= m - 1
        target -= np.exp((node_score_nb(s, topo, prm, p, n, x, False) - best_v) / temperature)
        last = n
        if target < 0.0:
            return n
    return last  # the draw fell on the sum's last rounding


@kernel
def setup_road_nb(prm, s, topo, p, node, legal, x):
    """The legal road from ``node`` pointing at the best spot two edges away (``legal``
    marks edges at ``node`` only, as every setup road is)."""
    locate_nb(s, topo, prm, p, x)
    best = -1
    best_v = -1e18
    # A setup road starts at ``node``: its three edges, in increasing order as the
    # topology lists them (tests/test_topology.py), are the only ones to look at.
    for k in range(3):
        e = topo[T_NODE_EDGES + 3 * node + k]
        if e < 0 or not legal[e]:
            continue
        a = topo[T_EDGE_NODES + 2 * e]
        m = topo[T_EDGE_NODES + 2 * e + 1] if a == node else a
        v = 0.0
        for k in range(3):
            m2 = topo[T_NODE_NEIGHBOURS + 3 * m + k]
            if m2 >= 0 and m2 != node and distance_ok_nb(s, m2):
                v = max(v, node_score_nb(s, topo, prm, p, m2, x, False))
        if v > best_v:
            best_v = v
            best = e
    return best


# --- planning: what to build next ---------------------------------------------------------


@inline_kernel
def _missing_nb(s, hand, kind):
    # Cards the hand at offset ``hand`` of s lacks for ``kind``. Called with a constant
    # kind, so the test on the cost folds away when compiled: a resource the build does
    # not use adds nothing (a hand is never negative) and is not read.
    m = 0
    for r in range(5):
        cost = COST_TABLE[5 * kind + r]
        if cost > 0:
            m += max(cost - s[hand + r], 0)
    return m


@kernel
def best_spot_nb(s, topo, prm, p, x):
    """The best node where p may build a settlement now, or -1.

    The spots are the open nodes of p's network (``net_nodes``: an open node has no
    building, so p has a road there). Ties go to the spot met first when p's roads are
    walked in edge order, each from its first end (key 2 * edge + end, the smallest over
    p's roads at the node), as a scan of all 72 edges in order would break them.
    """
    best = -1
    best_v = -1e18
    best_key = 4 * N_EDGES
    m = net_nodes_nb(s, p)
    while m != 0:
        n = trailing_zeros(m)
        m &= m - 1
        if not distance_ok_nb(s, n):
            continue
        v = node_score_nb(s, topo, prm, p, n, x, True)
        if v < best_v:
            continue
        key = 4 * N_EDGES
        for k in range(3):
            e = topo[T_NODE_EDGES + 3 * n + k]
            if e >= 0 and s[S_EDGE_OWNER + e] == p:
                key = min(key, 2 * e + (0 if topo[T_EDGE_NODES + 2 * e] == n else 1))
        if v > best_v or key < best_key:
            best_v = v
            best = n
            best_key = key
    return best


@kernel
def best_city_nb(s, topo, prm, p):
    """p's settlement whose upgrade adds the most, or -1 (ties: the lowest node)."""
    best = -1
    best_v = -1.0
    m = net_nodes_nb(s, p)  # p's buildings are among these, in increasing order
    while m != 0:
        n = trailing_zeros(m)
        m &= m - 1
        if s[S_NODE_OWNER + n] == p and s[S_NODE_LEVEL + n] == 1:
            v = city_value_nb(s, topo, prm, n)
            if v > best_v:
                best_v = v
                best = n
    return best


@inline_kernel
def _road_value_nb(s, topo, prm, p, x, near, far, far_free, want_spot):
    # Value of a legal road joining p's network at ``near`` and reaching ``far``, whose
    # empty edges are the bits of ``far_free`` (``node_free``).
    v = 0.0
    far_owner = s[S_NODE_OWNER + far]
    far_open = far_owner < 0 and roads_at_nb(s, p, far) == 0
    if want_spot and far_open:
        if distance_ok_nb(s, far):
            v = node_score_nb(s, topo, prm, p, far, x, True)
        else:
            # The open spots one empty edge further, as bits k of far's neighbours,
            # gathered without a branch per neighbour (measured: those branches
            # mispredict often); then visited in k order. Neighbour -1 (no edge, its
            # bit clear) reads node 0, which its bit ignores.
            spots = 0
            for k in range(3):
                m2 = topo[T_NODE_NEIGHBOURS + 3 * far + k]
                ok = (((far_free >> k) & 1) != 0) & (m2 != near)
                spots |= np.int64(ok & distance_ok_nb(s, max(m2, 0))) << k
            while spots != 0:
                k = trailing_zeros(spots)
                spots &= spots - 1
                m2 = topo[T_NODE_NEIGHBOURS + 3 * far + k]
                v = max(v, 0.7 * node_score_nb(s, topo, prm, p, m2, x, True))
    if far_open and prm[P_ROUTE] > 0:
        if s[S_NODE_OWNER + near] == p or roads_at_nb(s, p, near) <= 1:
            v += prm[P_ROUTE]
    if prm[P_BLOCK] > 0 and far_owner < 0:
        v = _add_blocks_nb(s, topo, p, far, v, prm[P_BLOCK])  # the road's edge is empty
    return v


@kernel
def best_road_nb(s, topo, prm, p, x, want_spot):
    """The most useful legal road for p and its value (edge -1 when none is legal).

    An edge is worth the best settlement spot it opens (the node at its far end, or at
    0.7 the nodes one more edge away) when ``want_spot``, plus ``route_weight`` if it
    extends an end of p's roads and ``block_weight`` per opponent road at its far end.
    Only the empty edges at the ends of p's roads and buildings are looked at, read
    from ``node_free``; ``best_road_by_edge_nb`` is the plain form.
    """
    best = -1
    best_v = -1e18
    if s[S_ROADS_LEFT + p] <= 0:
        return best, best_v
    m = net_nodes_nb(s, p)  # the nodes with p's roads or buildings, in increasing order
    while m != 0:
        n = trailing_zeros(m)
        m &= m - 1
        owner = s[S_NODE_OWNER + n]
        if owner >= 0 and owner != p:
            continue  # roads never continue through an opponent's building
        free = np.int64(s[S_NODE_FREE + n])  # n's empty edges, visited in k order
        while free != 0:
            k = trailing_zeros(free)
            free &= free - 1
            far = topo[T_NODE_NEIGHBOURS + 3 * n + k]
            v = _road_value_nb(s, topo, prm, p, x, n, far, s[S_NODE_FREE + far], want_spot)
            if v > best_v:
                best_v = v
                best = topo[T_NODE_EDGES + 3 * n + k]
    return best, best_v


@kernel
def best_road_by_edge_nb(s, topo, prm, p, x, want_spot):
    """``best_road_nb`` with each node's empty edges found from the edge owners
    (``empty_edges_nb``) instead of ``node_free``: its plain form (tests/test_strategies.py)."""
    best = -1
    best_v = -1e18
    if s[S_ROADS_LEFT + p] <= 0:
        return best, best_v
    m = net_nodes_nb(s, p)
    while m != 0:
        n = trailing_zeros(m)
        m &= m - 1
        owner = s[S_NODE_OWNER + n]
        if owner >= 0 and owner != p:
            continue
        for k in range(3):
            e = topo[T_NODE_EDGES + 3 * n + k]
            if e < 0 or s[S_EDGE_OWNER + e] >= 0:
                continue
            far = topo[T_NODE_NEIGHBOURS + 3 * n + k]
            v = _road_value_nb(s, topo, prm, p, x, n, far, empty_edges_nb(s, topo, far),
                               want_spot)
            if v > best_v:
                best_v = v
                best = e
    return best, best_v


@kernel
def _army_in_reach_nb(s, p, held_knights):
    # Knights played plus ``held_knights`` would take Largest Army within two more cards.
    holder = s[S_ARMY]
    if holder == p:
        return False
    mine = s[S_KNIGHTS + p] + held_knights
    need = 3 if holder < 0 else s[S_KNIGHTS + holder] + 1
    return mine + 2 >= need


@inline_kernel
def _plan_nb(s, topo, prm, p, x, hand, held_knights):
    """Rank the four builds for p; return the top kind (-1 if none is wanted).

    p's cards are the five counts at offset ``hand`` of ``s`` and its unplayed Knights
    ``held_knights``: p's own (``plan_nb``), or what another player reckons of them
    (a trade offer plans the partner's next build).

    Writes ``x[X_MISSING + k]`` (cards p still lacks for kind k) and ``x[X_SCORE + k]``
    = weight_k / (1 + missing_penalty * missing_k), where weight_k is the kind's build
    priority when it is possible at all (a piece left, a spot, a card in the deck):
    roads use ``road_weight``, or ``reach_weight * settlement_weight`` when no
    settlement spot is reachable; development cards add ``army_weight`` while Largest
    Army is within reach.
    """
    # The weights from conditional expressions between values read first, not from
    # nested branches on the state. LLVM still branches on the road weight's choice
    # (a choice between two floats); arithmetic or a table in its place is not faster.
    set_left = s[S_SETTLEMENTS_LEFT + p]
    spot = (set_left > 0) & (s[S_OPEN_SPOTS + p] > 0)
    road_w = prm[P_W_ROAD]
    set_w = prm[P_W_SETTLEMENT]
    city_w = prm[P_W_CITY]
    reach_w = max(road_w, set_w * prm[P_REACH])
    w_road = reach_w if (set_left > 0) & (not spot) else road_w
    w_road = w_road if s[S_ROADS_LEFT + p] > 0 else 0.0
    w_set = set_w if spot else 0.0
    city_ok = (s[S_CITIES_LEFT + p] > 0) & (set_left < SETTLEMENTS_PER_PLAYER)  # a settlement built
    w_city = city_w if city_ok else 0.0
    w_dev = 0.0
    if s[S_DECK_POS] < N_DEV_CARDS:
        w_dev = prm[P_W_DEV]
        if prm[P_ARMY] > 0 and _army_in_reach_nb(s, p, np.int64(held_knights)):
            w_dev += prm[P_ARMY]
    # Every read of the hand before the first store to x: Numba tells LLVM nothing of
    # which arrays may overlap, so a store to x between reads makes it read them again.
    m_road = _missing_nb(s, hand, K_ROAD)
    m_set = _missing_nb(s, hand, K_SETTLEMENT)
    m_city = _missing_nb(s, hand, K_CITY)
    m_dev = _missing_nb(s, hand, K_DEV)
    # np.int64: inlined, a literal -1 typed the result as that constant on one pass, and
    # _offer_nb compiled a second time for it (tests/test_kernels.py)
    best = np.int64(-1)
    best_v = 0.0
    for k in range(N_KINDS):
        if k == K_ROAD:
            w, m = w_road, m_road
        elif k == K_SETTLEMENT:
            w, m = w_set, m_set
        elif k == K_CITY:
            w, m = w_city, m_city
        else:
            w, m = w_dev, m_dev
        # w = 0 gives exactly 0.0 (the divisor is >= 1): dividing always costs less
        # than a branch on w (measured)
        v = w / (1.0 + prm[P_MISSING] * m)
        x[X_MISSING + k] = m
        x[X_SCORE + k] = v
        if v > best_v:
            best_v = v
            best = k
    return best


@kernel
def plan_nb(s, topo, prm, p, x):
    """``_plan_nb`` of p's own hand as a kernel of its own, for callers of a few calls a
    game (discard, free road, trade acceptance, the tests). The action decision and
    ``_offer_nb``'s partner plans (about 250 calls a game) inline ``_plan_nb`` instead,
    as a call passes each array as seven machine words (see the module's docstring)."""
    return _plan_nb(s, topo, prm, p, x, S_HAND + 5 * p, s[S_DEV_HAND + 5 * p + KNIGHT])


@inline_kernel
def _bank_trade_nb(s, p, kind, complete):
    """A maritime trade (give, get) toward ``kind``, giving only cards the build does not
    use; with ``complete`` only if such trades can finish the build now. (-1, -1) if none."""
    avail = 0
    give = -1
    give_left = -1
    for r in range(5):
        surplus = s[S_HAND + 5 * p + r] - COST_TABLE[5 * kind + r]
        rate = maritime_rate_nb(s, p, r)
        if surplus >= rate:
            avail += surplus // rate
            left = surplus - rate
            if left > give_left:
                give_left = left
                give = r
    if give < 0:
        return -1, -1
    get = -1
    worst = 0
    missing = 0
    for r in range(5):
        d = COST_TABLE[5 * kind + r] - s[S_HAND + 5 * p + r]
        if d > 0:
            missing += d
            if s[S_BANK + r] < d:
                return -1, -1
            if d > worst:
                worst = d
                get = r
    if get < 0 or (complete and avail < missing):
        return -1, -1
    return give, get


@inline_kernel
def _can_trade_bank_nb(s, p):
    # p holds some resource at its maritime rate. If not, ``_bank_trade_nb`` finds no
    # trade toward any build, so the action decision skips its search.
    found = False
    for r in range(5):  # all five without a branch out: fewer instructions, measured
        if s[S_HAND + 5 * p + r] >= maritime_rate_nb(s, p, r):
            found = True
    return found


@inline_kernel
def _affordable_from_nb(s, p, kind, reserve):
    # p can pay ``kind`` without touching the cards reserved for build ``reserve``
    # (>= 0; with nothing reserved the plan's cards missing say it). The cards short
    # are summed, so all five resources are read without a branch each (measured: an
    # early exit on the hand mispredicts often; LLVM splits a chain of ``&`` back into
    # branches, not a sum).
    short = 0
    for r in range(5):
        h = s[S_HAND + 5 * p + r]
        h -= min(h, COST_TABLE[5 * reserve + r])
        short += max(COST_TABLE[5 * kind + r] - h, 0)
    return short == 0


@typed_kernel("void(int32[::1], int64, int64, int64)")
def _set_act_nb(act, kind, a, b):
    for i in range(ACT_SIZE):
        act[i] = 0
    act[ACT_KIND] = kind
    act[ACT_A] = a
    act[ACT_B] = b


@inline_kernel
def _offer_nb(prm, s, topo, rules, rng, p, kind, act, x):
    """Fill ``act`` with a player-trade offer toward ``kind``; return False if none.

    p offers one card it does not need for ``kind`` for one card of the resource it
    misses most, to an opponent who, as far as p can know (``information``), holds that
    card beyond its own next build and lacks the card offered. The opponents are asked
    in turn from a place drawn from p's random stream at its first offer of the turn,
    so no seat is asked first for its index.
    """
    made = s[S_OFFERS]
    if made >= rules[R_MAX_OFFERS] or made >= prm[P_OFFERS]:
        return False
    want = -1
    worst = 0
    for r in range(5):
        d = COST_TABLE[5 * kind + r] - s[S_HAND + 5 * p + r]
        if d > worst:
            worst = d
            want = r
    if want < 0:
        return False
    # p's spare cards (beyond ``kind``) other than ``want``, bit r: p gives one of them,
    # so with none no partner is asked, and a partner holding as many of each as any
    # build costs lacks none of them whatever it plans (both skip only partners the
    # loop below would pass over, before their plans are made).
    spare = 0
    for r in range(5):
        spare |= np.int64((r != want) & (s[S_HAND + 5 * p + r] > COST_TABLE[5 * kind + r])) << r
    if spare == 0:
        return False
    n = np.int64(s[S_N_PLAYERS])
    # The candidates (opponents who may hold the wanted card) as bits q.
    cands = 0
    n_cand = 0
    for q in range(n):
        c = np.int64((q != p) & _may_hold_nb(prm, s, p, q, want))
        cands |= c << q
        n_cand += c
    if n_cand == 0:
        return False
    # The turn's first offer draws where the asking starts (0..5: uniform modulo 1, 2
    # or 3 candidates); the turn's later offers go on from there, one place a offer.
    if made == 0:
        x[W_OFFER_START] = randint_nb(rng, STREAM_PLAYER0 + p, 6)
    start = (int(x[W_OFFER_START]) + made) % n_cand
    y = x[SCRATCH:]
    partner = -1
    give = -1
    two = prm[P_OFFER_TWO] >= 0.5
    spares = 0  # p's cards beyond ``kind``, ``want`` aside: two of them pay a 2-for-1
    for r in range(5):
        spares += max(s[S_HAND + 5 * p + r] - COST_TABLE[5 * kind + r], 0) if r != want else 0
    two = two and spares >= 2
    partner2 = -1  # the first partner of a 2-for-1, offered when no 1-for-1 is found
    partner_k = -1
    partner2_k = -1
    # The candidates in the order asked, as bits: from the start-th in seat order on
    # (bits q), then those before it (bits MAX_PLAYERS + q). Of them, only those surely
    # holding the wanted card: the others cannot hold it beyond any build (no cost is
    # negative), so the test after their plans would pass over them.
    after = cands
    for _ in range(start):
        after &= after - 1
    sure = 0
    for q in range(n):
        sure |= np.int64(_sure_count_nb(prm, s, p, q, want) > 0) << q
    order = (after | (cands ^ after) << MAX_PLAYERS) & (sure | sure << MAX_PLAYERS)
    while order != 0:
        q = trailing_zeros(order) % MAX_PLAYERS
        order &= order - 1
        hq = _sure_hand_nb(prm, s, p, q)
        # Bits, not a chain of ``&`` and ``|`` on booleans, which LLVM splits back
        # into a branch each.
        low = 0  # bit r: q may hold fewer of r than some build costs
        for r in range(5):
            low |= np.int64(s[hq + r] < MOST_COST_TABLE[r]) << r
        if spare & low == 0 and not (two and partner2 < 0):
            continue
        qk = _plan_nb(s, topo, prm, q, y, hq, _held_knights_nb(prm, s, p, q))
        if qk < 0 or s[hq + want] <= COST_TABLE[5 * qk + want]:
            continue
        give_v = 0
        for r in range(5):
            surplus = s[S_HAND + 5 * p + r] - COST_TABLE[5 * kind + r]
            lack = COST_TABLE[5 * qk + r] - s[hq + r]
            take = (r != want) & (surplus > 0) & (lack > 0) & (surplus > give_v)
            give_v = surplus if take else give_v
            give = r if take else give
        if give >= 0:
            partner = q
            partner_k = qk
            break
        if two and partner2 < 0:
            partner2 = q
            partner2_k = qk
    if partner < 0 and partner2 < 0:
        return False
    for i in range(ACT_SIZE):
        act[i] = 0
    act[ACT_KIND] = ACT_TRADE_PLAYER
    act[ACT_RECEIVE + want] = 1
    if partner < 0:
        # Two spare cards for the wanted one: the partner keeps its next build as close
        # and gets more cards than it pays, which a scripted partner accepts.
        partner = partner2
        partner_k = partner2_k
        for _ in range(2):
            give = -1
            give_v = 0
            for r in range(5):
                surplus = s[S_HAND + 5 * p + r] - COST_TABLE[5 * kind + r] - act[ACT_GIVE + r]
                take = (r != want) & (surplus > give_v)
                give_v = surplus if take else give_v
                give = r if take else give
            act[ACT_GIVE + give] += 1
    else:
        act[ACT_GIVE + give] = 1
    act[ACT_A] = partner
    ask = int(prm[P_OFFER_ASK] + 0.5)
    if ask > 0:
        _ask_more_nb(prm, s, p, partner, partner_k, kind, ask, act)
    return True


@inline_kernel
def _ask_more_nb(prm, s, p, q, qk, kind, ask, act):
    # Up to ``ask`` more cards asked of partner q, each one q surely holds beyond its own
    # next build ``qk`` and the cards already asked: first those p still misses for
    # ``kind``, then the resource p produces least (ties: the lower resource).
    hq = _sure_hand_nb(prm, s, p, q)
    for _ in range(ask):
        best = -1
        best_v = -1e18
        for r in range(5):
            if act[ACT_GIVE + r] > 0:
                continue
            extra = s[hq + r] - COST_TABLE[5 * qk + r] - act[ACT_RECEIVE + r]
            if extra <= 0:
                continue
            need = COST_TABLE[5 * kind + r] - s[S_HAND + 5 * p + r] - act[ACT_RECEIVE + r]
            v = 1000.0 * (need > 0) - s[S_PROD_PIPS + 5 * p + r]
            if v > best_v:
                best_v = v
                best = r
        if best < 0:
            return
        act[ACT_RECEIVE + best] += 1


# --- development cards ---------------------------------------------------------------------


@kernel
def robber_on_own_nb(s, topo, p):
    """The robber sits on a producing hex where p has a building."""
    h = s[S_ROBBER]
    return s[S_HEX_NUMBER + h] != 0 and (s[S_OWN_HEXES + p] >> h) & 1 != 0


@kernel
def _knight_wanted_nb(prm, s, topo, rules, p):
    if prm[P_KNIGHT] >= 0.5 or robber_on_own_nb(s, topo, p):
        return True
    holder = s[S_ARMY]
    mine = s[S_KNIGHTS + p] + 1
    if holder != p and mine >= LARGEST_ARMY_MIN and (holder < 0 or mine > s[S_KNIGHTS + holder]):
        return True  # takes Largest Army now
    return False


@kernel
def _monopoly_pick_nb(s, rules, p):
    # The resource opponents hold most of; ties go to the one p lacks most. What all
    # opponents hold together is public: every card is in the supply or a hand, so they
    # hold the supply's size less the supply and p's own cards.
    best = 0
    best_v = -1.0
    for r in range(5):
        held = rules[R_BANK] - s[S_BANK + r] - s[S_HAND + 5 * p + r]
        v = held - 0.01 * s[S_HAND + 5 * p + r]
        if v > best_v:
            best_v = v
            best = r
    return best, int(best_v + 0.5)


@inline_kernel
def _dev_to_play_nb(prm, s, topo, rules, p, x, top):
    """The development card p plays now in the action phase, or -1."""
    if s[S_DEV_PLAYED] != 0:
        return -1
    if can_play_dev_nb(s, p, KNIGHT) and _knight_wanted_nb(prm, s, topo, rules, p):
        return KNIGHT
    if can_play_dev_nb(s, p, MONOPOLY):
        _, held = _monopoly_pick_nb(s, rules, p)
        if held >= prm[P_MONOPOLY_MIN]:
            return MONOPOLY
    if can_play_dev_nb(s, p, INVENTION):
        bank = 0
        for r in range(5):
            bank += s[S_BANK + r]
        for k in range(N_KINDS):
            m = x[X_MISSING + k]
            if x[X_SCORE + k] > 0 and 1 <= m <= 2 and bank >= 2:
                return INVENTION
    if can_play_dev_nb(s, p, ROAD_BUILDING) and s[S_ROADS_LEFT + p] > 0:
        if x[X_SCORE + K_ROAD] > 0 or s[S_ROADS_LEFT + p] >= 2:
            return ROAD_BUILDING
    return -1


# --- the decisions ---------------------------------------------------------------------------


@inline_kernel
def pre_roll_nb(prm, s, topo, rules, p):
    """Play a knight before rolling to free p's own hex or take Largest Army; else -1."""
    if can_play_dev_nb(s, p, KNIGHT) and _knight_wanted_nb(prm, s, topo, rules, p):
        return KNIGHT
    return -1


@inline_kernel
def _exchange_nb(ki, ci, kj, cj):
    """One compare-exchange of a selection sort by falling score: the kind scored
    strictly higher takes the earlier place; as selects, not a branch."""
    up = cj > ci
    return (kj if up else ki), (cj if up else ci), (ki if up else kj), (ci if up else cj)


@inline_kernel
def _kinds_by_score_nb(x):
    """The four build kinds by falling score ``x[X_SCORE + k]`` and their scores, as
    ``(k0, k1, k2, k3, c0, c1, c2, c3)``: a selection sort's six compare-exchanges on
    locals, each exchange a select (as branches on the scores they mispredict)."""
    k0, c0 = np.int64(0), x[X_SCORE + 0]
    k1, c1 = np.int64(1), x[X_SCORE + 1]
    k2, c2 = np.int64(2), x[X_SCORE + 2]
    k3, c3 = np.int64(3), x[X_SCORE + 3]
    k0, c0, k1, c1 = _exchange_nb(k0, c0, k1, c1)
    k0, c0, k2, c2 = _exchange_nb(k0, c0, k2, c2)
    k0, c0, k3, c3 = _exchange_nb(k0, c0, k3, c3)
    k1, c1, k2, c2 = _exchange_nb(k1, c1, k2, c2)
    k1, c1, k3, c3 = _exchange_nb(k1, c1, k3, c3)
    k2, c2, k3, c3 = _exchange_nb(k2, c2, k3, c3)
    return k0, k1, k2, k3, c0, c1, c2, c3


@kernel
def action_nb(prm, s, topo, rules, rng, p, act, x):
    """Fill ``act`` with p's next action-phase action.

    In order: a development card worth playing now; the best-ranked build p can pay
    (lower-ranked ones only from cards the top build does not use); a player-trade
    offer, then maritime trades, toward the top build; maritime trades to get below
    the discard limit; else end the turn.
    """
    total = hand_size_nb(s, p)
    dev_free = s[S_DEV_PLAYED] == 0
    if total < 2 and not dev_free:
        _set_act_nb(act, ACT_END, 0, 0)
        return
    top = _plan_nb(s, topo, prm, p, x, S_HAND + 5 * p, s[S_DEV_HAND + 5 * p + KNIGHT])
    if dev_free:
        card = _dev_to_play_nb(prm, s, topo, rules, p, x, top)
        if card >= 0:
            _set_act_nb(act, ACT_PLAY_DEV, card, 0)
            return
    if top < 0 or total < 2:
        _set_act_nb(act, ACT_END, 0, 0)
        return
    k0, k1, k2, k3, c0, c1, c2, c3 = _kinds_by_score_nb(x)
    x[X_ORDER + 0] = k0
    x[X_ORDER + 1] = k1
    x[X_ORDER + 2] = k2
    x[X_ORDER + 3] = k3
    # The places i (bit i) of kinds worth building that p can pay from its whole hand
    # (scores fall along the order, so a kind scored 0 ends the list). The first is
    # the top build; while the top build lacks cards, a later kind must also leave
    # the top build's cards (``_affordable_from_nb``), tested only for these few.
    paid = (np.int64((c0 > 0) & (x[X_MISSING + k0] == 0))
            | np.int64((c1 > 0) & (x[X_MISSING + k1] == 0)) << 1
            | np.int64((c2 > 0) & (x[X_MISSING + k2] == 0)) << 2
            | np.int64((c3 > 0) & (x[X_MISSING + k3] == 0)) << 3)
    top_paid = x[X_MISSING + top] == 0
    located = False
    while paid != 0:
        i = trailing_zeros(paid)
        paid &= paid - 1
        k = int(x[X_ORDER + i])
        if not top_paid and not _affordable_from_nb(s, p, k, top):
            continue
        if k == K_DEV:
            _set_act_nb(act, ACT_BUY_DEV, 0, 0)
            return
        if k == K_CITY:
            n = best_city_nb(s, topo, prm, p)
            if n >= 0:
                _set_act_nb(act, ACT_CITY, n, 0)
                return
            continue
        if not located:
            locate_nb(s, topo, prm, p, x)
            located = True
        if k == K_SETTLEMENT:
            n = best_spot_nb(s, topo, prm, p, x)
            if n >= 0:
                _set_act_nb(act, ACT_SETTLEMENT, n, 0)
                return
        else:
            e, v = best_road_nb(s, topo, prm, p, x, s[S_SETTLEMENTS_LEFT + p] > 0)
            if e >= 0 and v > 0:
                _set_act_nb(act, ACT_ROAD, e, 0)
                return
    # Nothing to build: trade toward the top build.
    if x[X_MISSING + top] > 0:
        if x[X_MISSING + top] <= 2 and _offer_nb(prm, s, topo, rules, rng, p, top, act, x):
            return
        mode = prm[P_BANK_TRADE]
        if mode > 0 and _can_trade_bank_nb(s, p):
            over = rules[R_DISCARD_LIMIT] >= 0 and total > rules[R_DISCARD_LIMIT]
            complete = mode < 1.5 and not over
            for i in range(N_KINDS):
                k = int(x[X_ORDER + i])
                if x[X_SCORE + k] <= 0:
                    break
                give, get = _bank_trade_nb(s, p, k, complete)
                if give >= 0:
                    _set_act_nb(act, ACT_TRADE_BANK, give, get)
                    return
    _set_act_nb(act, ACT_END, 0, 0)


@kernel
def discard_nb(prm, s, topo, p, k, out, x):
    """Choose ``k`` cards to discard into ``out``, keeping the cards of p's next builds.

    Each card goes from the resource with the largest excess over what the top build
    needs (plus half of what the second build needs); ties go to the resource p
    produces most, as it comes back soonest.
    """
    top = plan_nb(s, topo, prm, p, x)
    second = -1
    second_v = 0.0
    for j in range(N_KINDS):
        if j != top and x[X_SCORE + j] > second_v:
            second_v = x[X_SCORE + j]
            second = j
    production_nb(s, topo, p, x)
    for r in range(5):
        out[r] = 0
    for _ in range(k):
        best = -1
        best_v = -1e18
        for r in range(5):
            held = s[S_HAND + 5 * p + r] - out[r]
            if held == 0:
                continue
            want = 0.0
            if top >= 0:
                want += COST_TABLE[5 * top + r]
            if second >= 0:
                want += 0.5 * COST_TABLE[5 * second + r]
            v = held - want + 0.001 * x[X_PROD + r]
            if v > best_v:
                best_v = v
                best = r
        out[best] += 1


@kernel
def robber_hex_nb(prm, s, topo, rng, p, mask, x):
    """Where p moves the robber, among ``mask`` (``x``: the work array, as scratch).

    Policy 0 hits the leader (most visible VP, then most cards; among equals, one drawn
    from p's random stream): the hex where the leader's buildings produce most. Policy 1
    hits the most opponent production. Policy 2 picks a random hex. Hexes with p's own
    buildings are avoided whenever another hex is allowed (else every policy chooses
    among them as usual); hexes with victims holding cards count a little more, and
    among equal hexes one is drawn from p's random stream.
    """
    n = np.int64(s[S_N_PLAYERS])
    policy = int(prm[P_ROBBER] + 0.5)
    leader = -1
    lead_v = -1
    ties = 0
    holding = 0  # bit q: q holds cards (hand sizes are public)
    for q in range(n):
        size = hand_size_nb(s, q)
        if size > 0:
            holding |= 1 << q
        if q == p:
            continue
        v = 100 * visible_vp_nb(s, q) + size
        if v > lead_v:
            lead_v = v
            leader = q
            ties = 1
        elif v == lead_v:
            ties += 1
            if policy == 0 and _pick_tie_nb(rng, p, ties):
                leader = q
    own = s[S_OWN_HEXES + p]  # bit h: p has a building at hex h
    # The allowed hexes as bits, counted without a branch per hex (measured: these
    # branches on the board's state were a fifth of the function's mispredictions).
    allowed = 0
    n_allowed = 0
    n_ok = 0
    for h in range(N_HEXES):
        a = np.int64(mask[h] != 0)
        allowed |= a << h
        n_allowed += a
        n_ok += a & ~(own >> h) & 1
    avoid_own = n_ok > 0
    # When every allowed hex has p's buildings, the random pick is among all of them.
    hexes = allowed & ~own if avoid_own else allowed
    pick = -1
    if policy == 2:
        pick = randint_nb(rng, STREAM_PLAYER0 + p, n_ok if avoid_own else n_allowed)
    # Each corner's terms from a table by its owner (slot q + 1; slot 0, an empty
    # corner, adds 0.0), not from branches on it (measured: a branch on the board's
    # state mispredicts often): v += mult * level * pips + lead_add, then v += hold_add,
    # the same sums in the same order as the terms chosen seat by seat.
    for q1 in range(ROBBER_OWNERS):
        q = q1 - 1
        mine = q == p
        lead = policy == 0 and q == leader
        x[W_ROBBER_MULT + q1] = -10.0 if mine else (1.0 if lead else (0.1 if policy == 0 else 1.0))
        x[W_ROBBER_LEAD + q1] = 0.1 if lead else 0.0
        hold = q >= 0 and not mine and not lead and (holding >> q) & 1 == 1
        x[W_ROBBER_HOLD + q1] = 0.05 if hold else 0.0
    best = -1
    best_v = -1e18
    ties = 0
    while hexes != 0:
        h = trailing_zeros(hexes)
        hexes &= hexes - 1
        if policy == 2:
            if pick == 0:
                return h
            pick -= 1
            continue
        pips = pips_nb(s[S_HEX_NUMBER + h])
        v = 0.0
        for j in range(6):
            node = topo[T_HEX_NODES + 6 * h + j]
            q1 = np.int64(s[S_NODE_OWNER + node]) + 1
            level = s[S_NODE_LEVEL + node]  # 0 at an empty corner
            v += x[W_ROBBER_MULT + q1] * level * pips + x[W_ROBBER_LEAD + q1]
            v += x[W_ROBBER_HOLD + q1]
        if v > best_v:
            best_v = v
            best = h
            ties = 1
        elif v == best_v:
            ties += 1
            if _pick_tie_nb(rng, p, ties):
                best = h
    return best


@kernel
def victim_nb(prm, s, rng, p, victims, n_victims):
    """Whom p robs: the leader (policy 0) or the largest hand, among equals one drawn from
    p's random stream; random for policy 2."""
    policy = int(prm[P_ROBBER] + 0.5)
    if policy == 2:
        return victims[randint_nb(rng, STREAM_PLAYER0 + p, n_victims)]
    best = victims[0]
    best_v = -1
    ties = 0
    for i in range(n_victims):
        q = np.int64(victims[i])
        size = hand_size_nb(s, q)
        v = size if policy == 1 else 100 * visible_vp_nb(s, q) + size
        if size == 0:
            v -= 10000
        if v > best_v:
            best_v = v
            best = q
            ties = 1
        elif v == best_v:
            ties += 1
            if _pick_tie_nb(rng, p, ties):
                best = q
    return best


@kernel
def free_road_nb(prm, s, topo, p, x):
    """Where a Road Building road goes: the most useful legal edge, -1 if none is legal."""
    locate_nb(s, topo, prm, p, x)
    e, _ = best_road_nb(s, topo, prm, p, x, s[S_SETTLEMENTS_LEFT + p] > 0)
    return e


@kernel
def invention_nb(prm, s, topo, p, out, x):
    """Two cards from the supply: what the best nearly complete build misses, then the
    resource p produces least of."""
    for r in range(5):
        out[r] = 0
    want = invention_cards_nb(s)
    plan_nb(s, topo, prm, p, x)
    production_nb(s, topo, p, x)
    target = -1
    target_v = 0.0
    for k in range(N_KINDS):
        if x[X_SCORE + k] > target_v and x[X_MISSING + k] <= 2:
            target_v = x[X_SCORE + k]
            target = k
    taken = 0
    if target >= 0:
        for r in range(5):
            d = COST_TABLE[5 * target + r] - s[S_HAND + 5 * p + r]
            while d > 0 and taken < want and s[S_BANK + r] - out[r] > 0:
                out[r] += 1
                taken += 1
                d -= 1
    while taken < want:
        best = -1
        best_v = 1e18
        for r in range(5):
            if s[S_BANK + r] - out[r] > 0:
                v = x[X_PROD + r] + out[r] * 5.0
                if v < best_v:
                    best_v = v
                    best = r
        out[best] += 1
        taken += 1


@kernel
def monopoly_nb(prm, s, topo, rules, p):
    """The resource opponents hold most of (ties: the one p holds least of)."""
    r, _ = _monopoly_pick_nb(s, rules, p)
    return r


@kernel
def accept_nb(prm, s, topo, rules, q, p, act, x):
    """Whether q accepts p's offer: it must bring q's next build closer (or keep it as
    close and give q more cards than it pays), and p must show fewer than
    ``accept_vp_limit`` victory points."""
    if prm[P_ACCEPT] < 0.5 or visible_vp_nb(s, p) >= prm[P_ACCEPT_VP]:
        return False
    top = plan_nb(s, topo, prm, q, x)
    if top < 0:
        return False
    before = 0
    after = 0
    gets = 0
    gives = 0
    for r in range(5):
        h = s[S_HAND + 5 * q + r]
        c = COST_TABLE[5 * top + r]
        h2 = h + act[ACT_GIVE + r] - act[ACT_RECEIVE + r]
        before += max(0, c - h)
        after += max(0, c - h2)
        gets += act[ACT_GIVE + r]
        gives += act[ACT_RECEIVE + r]
    return after < before or (after == before and gets > gives)
