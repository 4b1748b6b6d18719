"""What the kernel checks as it plays: illegal choices and broken invariants.

These only accept NumPy arrays and scalars. An illegal choice is a strategy's bug:
``illegal_nb`` (``illegal_array_nb`` for a bundle or an action) counts it and records
the game's first in the ``illegal_*`` state fields, and the caller goes on with a
legal substitute (``first_set_nb``: the first legal option of a mask). Under rules
``check=1`` ``checkpoint_nb`` adds ``count_violations_nb``'s count of broken
invariants to the counter ``c_violations`` after the set-up, each action and the end.
"""

import numpy as np

from ..constants import (
    CITIES_PER_PLAYER,
    KNIGHT,
    MAX_PLAYERS,
    N_EDGES,
    N_NODES,
    ROADS_PER_PLAYER,
    SETTLEMENTS_PER_PLAYER,
)
from ..topology import T_NODE_EDGES, T_NODE_HEXES, T_NODE_NEIGHBOURS
from .actions_nb import ACT_SIZE
from .jit import inline_kernel, kernel, typed_kernel
from .layout import (
    C_DEV_PLAYED,
    C_ILLEGAL,
    C_VIOLATIONS,
    END_RUNNING,
    END_WIN,
    NET_WORD_BITS,
    R_BANK,
    R_CHECK,
    R_VP_TO_WIN,
    S_ARMY,
    S_BANK,
    S_CITIES_LEFT,
    S_CUR,
    S_DECK_POS,
    S_DEV_HAND,
    S_DEV_NEW,
    S_EDGE_OWNER,
    S_END,
    S_HAND,
    S_HEX_NUMBER,
    S_HEX_TERRAIN,
    S_ILLEGAL_DECISION,
    S_ILLEGAL_SEAT,
    S_ILLEGAL_TURN,
    S_ILLEGAL_VALUE,
    S_KNIGHTS,
    S_LONGEST,
    S_N_PLAYERS,
    S_NET_NODES,
    S_NODE_FREE,
    S_NODE_LEVEL,
    S_NODE_OPEN,
    S_NODE_OWNER,
    S_OPEN_SPOTS,
    S_OWN_HEXES,
    S_PROD_PIPS,
    S_ROADS_LEFT,
    S_ROUTE_LEN,
    S_SEEN_ABOVE,
    S_SEEN_BELOW,
    S_SETTLEMENTS_LEFT,
    S_TURN,
    S_WINNER,
)
from .record_nb import seen_high_nb, seen_index, seen_low_nb
from .rules_nb import net_nodes_nb, pips_nb, roads_at_nb, route_length_nb, vp_nb

# --- illegal choices ----------------------------------------------------------------


@typed_kernel("boolean(int32[::1], int64, int64, int64)")
def illegal_nb(s, p, decision, value):
    """Count an illegal choice by seat p (a strategy bug; the caller goes on with a legal
    substitute) and record the game's first in the ``illegal_*`` fields.

    ``decision`` is a ``D_*`` code, ``value`` what was chosen. True if it was the first.
    """
    s[C_ILLEGAL] += 1
    if s[S_ILLEGAL_DECISION] >= 0:
        return False
    s[S_ILLEGAL_TURN] = s[S_TURN]
    s[S_ILLEGAL_SEAT] = p
    s[S_ILLEGAL_DECISION] = decision
    for i in range(ACT_SIZE):
        s[S_ILLEGAL_VALUE + i] = 0
    s[S_ILLEGAL_VALUE] = value
    return True


@typed_kernel("boolean(int32[::1], int64, int64, int32[::1], int64)")
def illegal_array_nb(s, p, decision, choice, n):
    """``illegal_nb`` for a choice that is an array: records ``choice[:n]``."""
    first = illegal_nb(s, p, decision, choice[0])
    if first:
        for i in range(n):
            s[S_ILLEGAL_VALUE + i] = choice[i]
    return first


@kernel
def first_set_nb(mask):
    for i in range(mask.shape[0]):
        if mask[i]:
            return i
    return -1


# --- invariants ------------------------------------------------------------------------


@kernel
def _card_violations_nb(s, rules):
    """Resource cards conserved and never negative; the public record holds every
    hand, exactly its own; development cards conserved, Knights counted."""
    n = np.int64(s[S_N_PLAYERS])
    bad = 0
    for r in range(5):
        total = s[S_BANK + r]
        if s[S_BANK + r] < 0:
            bad += 1
        for p in range(n):
            total += s[S_HAND + 5 * p + r]
            if s[S_HAND + 5 * p + r] < 0:
                bad += 1
        if total != rules[R_BANK]:
            bad += 1
    # The public record never contradicts a hand, and each player's record of its own
    # hand is exact (core.record_nb).
    for o in range(n):
        for q in range(n):
            for r in range(5):
                i = seen_index(o, q) + r
                held = s[S_HAND + 5 * q + r]
                if not 0 <= seen_low_nb(s, o, q, r) <= held <= seen_high_nb(s, o, q, r):
                    bad += 1
                if o == q and s[S_SEEN_BELOW + i] + s[S_SEEN_ABOVE + i] != 0:
                    bad += 1
    cards = s[S_DECK_POS]  # drawn cards are held or played
    for p in range(n):
        for k in range(5):
            cards -= s[S_DEV_HAND + 5 * p + k] + s[C_DEV_PLAYED + 5 * p + k]
            if s[S_DEV_NEW + 5 * p + k] > s[S_DEV_HAND + 5 * p + k]:
                bad += 1
        if s[S_KNIGHTS + p] != s[C_DEV_PLAYED + 5 * p + KNIGHT]:
            bad += 1
    if cards != 0:
        bad += 1
    return bad


@kernel
def _piece_violations_nb(s, topo):
    """Each player's pieces on the board match its pieces left, within limits; its
    stored route length is recomputed."""
    n = np.int64(s[S_N_PLAYERS])
    bad = 0
    for p in range(n):
        settlements = 0
        cities = 0
        for m in range(N_NODES):
            if s[S_NODE_OWNER + m] == p:
                if s[S_NODE_LEVEL + m] == 1:
                    settlements += 1
                elif s[S_NODE_LEVEL + m] == 2:
                    cities += 1
                else:
                    bad += 1
        roads = 0
        for e in range(N_EDGES):
            if s[S_EDGE_OWNER + e] == p:
                roads += 1
        if settlements + s[S_SETTLEMENTS_LEFT + p] != SETTLEMENTS_PER_PLAYER:
            bad += 1
        if cities + s[S_CITIES_LEFT + p] != CITIES_PER_PLAYER:
            bad += 1
        if roads + s[S_ROADS_LEFT + p] != ROADS_PER_PLAYER or s[S_ROADS_LEFT + p] < 0:
            bad += 1
        if s[S_SETTLEMENTS_LEFT + p] < 0 or s[S_CITIES_LEFT + p] < 0:
            bad += 1
        if s[S_ROUTE_LEN + p] != route_length_nb(s, topo, p):
            bad += 1
    return bad


@kernel
def _derived_violations_nb(s, topo):
    """The Distance Rule, and the fields derived from the pieces, recomputed."""
    bad = 0
    # Distance Rule holds everywhere, and the derived piece fields are up to date.
    for m in range(N_NODES):
        is_open = s[S_NODE_OWNER + m] < 0
        for k in range(3):
            nb_ = topo[T_NODE_NEIGHBOURS + 3 * m + k]
            if nb_ >= 0 and s[S_NODE_OWNER + nb_] >= 0:
                is_open = False
                if s[S_NODE_OWNER + m] >= 0:
                    bad += 1
        if s[S_NODE_OPEN + m] != (1 if is_open else 0):
            bad += 1
        free = 0
        for k in range(3):
            e = topo[T_NODE_EDGES + 3 * m + k]
            if e >= 0 and s[S_EDGE_OWNER + e] < 0:
                free |= 1 << k
        if s[S_NODE_FREE + m] != free:
            bad += 1
        for q in range(MAX_PLAYERS):
            roads = 0
            for k in range(3):
                e = topo[T_NODE_EDGES + 3 * m + k]
                if e >= 0 and s[S_EDGE_OWNER + e] == q:
                    roads += 1
            if roads_at_nb(s, q, m) != roads:
                bad += 1
    for q in range(MAX_PLAYERS):
        spots = 0
        for m in range(N_NODES):
            if s[S_NODE_OPEN + m] and roads_at_nb(s, q, m) > 0:
                spots += 1
        if s[S_OPEN_SPOTS + q] != spots:
            bad += 1
        net = np.int64(0)
        for m in range(N_NODES):
            touch = s[S_NODE_OWNER + m] == q
            for k in range(3):
                e = topo[T_NODE_EDGES + 3 * m + k]
                if e >= 0 and s[S_EDGE_OWNER + e] == q:
                    touch = True
            if touch:
                net |= np.int64(1) << m
        if net_nodes_nb(s, q) != net or s[S_NET_NODES + 2 * q] >= 1 << NET_WORD_BITS:
            bad += 1
        own = 0
        for m in range(N_NODES):
            if s[S_NODE_OWNER + m] == q:
                for k in range(3):
                    h = topo[T_NODE_HEXES + 3 * m + k]
                    if h >= 0:
                        own |= 1 << h
        if s[S_OWN_HEXES + q] != own:
            bad += 1
        for r in range(5):
            pips = 0
            for m in range(N_NODES):
                if s[S_NODE_OWNER + m] != q:
                    continue
                for k in range(3):
                    h = topo[T_NODE_HEXES + 3 * m + k]
                    if h >= 0 and s[S_HEX_TERRAIN + h] == r:
                        pips += s[S_NODE_LEVEL + m] * pips_nb(s[S_HEX_NUMBER + h])
            if s[S_PROD_PIPS + 5 * q + r] != pips:
                bad += 1
    return bad


@kernel
def _standing_violations_nb(s, rules):
    """Longest Route and Largest Army held only by qualifying players; no winner
    missed while the game runs, none short of the target."""
    n = np.int64(s[S_N_PLAYERS])
    bad = 0
    holder = s[S_LONGEST]
    if holder >= 0:
        if s[S_ROUTE_LEN + holder] < 5:
            bad += 1
        for p in range(n):
            if s[S_ROUTE_LEN + p] > s[S_ROUTE_LEN + holder]:
                bad += 1
    army = s[S_ARMY]
    if army >= 0:
        if s[S_KNIGHTS + army] < 3:
            bad += 1
        for p in range(n):
            if p != army and s[S_KNIGHTS + p] > s[S_KNIGHTS + army]:
                bad += 1
    if s[S_END] == END_RUNNING and s[S_TURN] > 0 and vp_nb(s, s[S_CUR]) >= rules[R_VP_TO_WIN]:
        bad += 1
    if s[S_END] == END_WIN and vp_nb(s, s[S_WINNER]) < rules[R_VP_TO_WIN]:
        bad += 1
    return bad


@kernel
def count_violations_nb(s, topo, rules):
    """Count broken state invariants (0 for a legal state). Used with rules ``check=1``.

    Conservation of every resource (supply + hands = supply size) and of the 25
    development cards; no negative hands or supply; piece counts within limits and
    equal to the pieces on the board; stored route lengths and the fields derived from
    the pieces (``node_open``, ``node_roads``, ``node_free``, ``open_spots``, ``net_nodes``,
    ``prod_pips``, ``own_hexes``) equal a recomputation; every observer's public record
    holds every true hand, and each player's record of its own hand is exact; the bonus
    tiles held only by qualifying players; while the game runs, the player whose turn it
    is is below the winning total.
    """
    return (_card_violations_nb(s, rules) + _piece_violations_nb(s, topo)
            + _derived_violations_nb(s, topo) + _standing_violations_nb(s, rules))


@inline_kernel
def checkpoint_nb(s, topo, rules):
    """With rules ``check=1``, add the current state's violations to ``c_violations``."""
    if rules[R_CHECK]:
        s[C_VIOLATIONS] += count_violations_nb(s, topo, rules)
