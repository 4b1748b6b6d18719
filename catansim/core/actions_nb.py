"""Action-phase actions: their encoding, legality and enumeration.

An action is an int32 array ``act`` of length ``ACT_SIZE`` (codes in ``core.layout``)::

    act[ACT_KIND]      kind (ACT_*)
    act[ACT_A]         ACT_ROAD: edge; ACT_SETTLEMENT / ACT_CITY: node; ACT_PLAY_DEV:
                       card; ACT_TRADE_BANK: resource given; ACT_TRADE_PLAYER: partner
    act[ACT_B]         ACT_TRADE_BANK: resource received
    act[ACT_GIVE:+5]   ACT_TRADE_PLAYER: bundle given by the player whose turn it is
    act[ACT_RECEIVE:+5] ACT_TRADE_PLAYER: bundle received from the partner

``legal_actions_nb`` lists the legal actions as packed codes
``kind << 16 | a << 8 | b`` (for a player trade ``a`` is the partner and ``b`` is
``5 * give + get``: the enumerated player trades are one card for one card; the
engine itself accepts any bundles).
"""


import numpy as np

from ..constants import (
    BUILD_CITY,
    BUILD_DEV_CARD,
    BUILD_ROAD,
    BUILD_SETTLEMENT,
    N_DEV_CARDS,
    N_EDGES,
    N_NODES,
    VICTORY_POINT,
)
from .jit import inline_kernel, kernel, typed_kernel
from .layout import (
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
    R_MAX_OFFERS,
    S_BANK,
    S_CUR,
    S_DECK_POS,
    S_DEV_HAND,
    S_DEV_NEW,
    S_DEV_PLAYED,
    S_HAND,
    S_N_PLAYERS,
    S_NODE_LEVEL,
    S_NODE_OWNER,
    S_OFFERS,
    S_ROLLED,
)
from .rules_nb import (
    can_afford_nb,
    can_place_city_nb,
    can_place_road_nb,
    can_place_settlement_nb,
    maritime_rate_nb,
)

# The ACT_* codes, positions and ACT_SIZE are defined in core.layout (the state records an
# illegal action in this encoding).
MAX_LEGAL = 512  # > 1 + 72 + 54 + 54 + 1 + 4 + 20 + 60



@inline_kernel
def pack_nb(kind, a, b):
    return (kind << 16) | (a << 8) | b


@kernel
def unpack_nb(code, act):
    """Decode a packed action code into ``act``."""
    for i in range(ACT_SIZE):
        act[i] = 0
    kind = code >> 16
    a = (code >> 8) & 255
    b = code & 255
    act[ACT_KIND] = kind
    act[ACT_A] = a
    if kind == ACT_TRADE_PLAYER:
        act[ACT_GIVE + b // 5] = 1
        act[ACT_RECEIVE + b % 5] = 1
    else:
        act[ACT_B] = b


@typed_kernel("boolean(int32[::1], int64, int64)")
def can_play_dev_nb(s, p, card):
    """A development card may be played: one per turn, not a VP card, not bought this turn."""
    if s[S_DEV_PLAYED] != 0 or card == VICTORY_POINT or card < 0 or card > 4:
        return False
    return s[S_DEV_HAND + 5 * p + card] - s[S_DEV_NEW + 5 * p + card] > 0


@kernel
def trade_bundles_ok_nb(s, p, act):
    """Both sides give at least one card, no resource on both sides, p holds its side."""
    give = 0
    get = 0
    for r in range(5):
        g = act[ACT_GIVE + r]
        t = act[ACT_RECEIVE + r]
        if g < 0 or t < 0 or (g > 0 and t > 0):
            return False
        if s[S_HAND + 5 * p + r] < g:
            return False
        give += g
        get += t
    return give > 0 and get > 0


@inline_kernel
def is_legal_action_nb(s, topo, rules, p, act):
    """Whether ``act`` is legal for p now (the action phase, after the roll).

    Only the player whose turn it is acts: nothing is legal for another seat.
    """
    if p != s[S_CUR]:
        return False
    kind = act[ACT_KIND]
    if kind == ACT_END:
        return True
    if kind == ACT_PLAY_DEV:
        return can_play_dev_nb(s, p, act[ACT_A])
    if s[S_ROLLED] == 0:
        return False
    if kind == ACT_ROAD:
        e = np.int64(act[ACT_A])
        return (
            0 <= e < N_EDGES
            and can_afford_nb(s, p, BUILD_ROAD)
            and can_place_road_nb(s, topo, p, e)
        )
    if kind == ACT_SETTLEMENT:
        n = np.int64(act[ACT_A])
        return (
            0 <= n < N_NODES
            and can_afford_nb(s, p, BUILD_SETTLEMENT)
            and can_place_settlement_nb(s, p, n)
        )
    if kind == ACT_CITY:
        n = np.int64(act[ACT_A])
        return (
            0 <= n < N_NODES and can_afford_nb(s, p, BUILD_CITY) and can_place_city_nb(s, p, n)
        )
    if kind == ACT_BUY_DEV:
        return s[S_DECK_POS] < N_DEV_CARDS and can_afford_nb(s, p, BUILD_DEV_CARD)
    if kind == ACT_TRADE_BANK:
        give = np.int64(act[ACT_A])
        get = np.int64(act[ACT_B])
        if give < 0 or give > 4 or get < 0 or get > 4 or give == get:
            return False
        return s[S_HAND + 5 * p + give] >= maritime_rate_nb(s, p, give) and s[S_BANK + get] > 0
    if kind == ACT_TRADE_PLAYER:
        q = np.int64(act[ACT_A])
        if q < 0 or q >= s[S_N_PLAYERS] or q == p or s[S_OFFERS] >= rules[R_MAX_OFFERS]:
            return False
        return trade_bundles_ok_nb(s, p, act)
    return False


@kernel
def legal_actions_nb(s, topo, rules, p, out):
    """Write the packed codes of p's legal actions to ``out``; return how many.

    Always includes ACT_END. Player trades are listed as 1-for-1 offers to each
    opponent.
    """
    count = 0
    out[count] = pack_nb(ACT_END, 0, 0)
    count += 1
    for card in range(5):
        if can_play_dev_nb(s, p, card):
            out[count] = pack_nb(ACT_PLAY_DEV, card, 0)
            count += 1
    if s[S_ROLLED] == 0:
        return count
    if can_afford_nb(s, p, BUILD_ROAD):
        for e in range(N_EDGES):
            if can_place_road_nb(s, topo, p, e):
                out[count] = pack_nb(ACT_ROAD, e, 0)
                count += 1
    if can_afford_nb(s, p, BUILD_SETTLEMENT):
        for n in range(N_NODES):
            if can_place_settlement_nb(s, p, n):
                out[count] = pack_nb(ACT_SETTLEMENT, n, 0)
                count += 1
    if can_afford_nb(s, p, BUILD_CITY):
        for n in range(N_NODES):
            if s[S_NODE_OWNER + n] == p and s[S_NODE_LEVEL + n] == 1 and can_place_city_nb(s, p, n):
                out[count] = pack_nb(ACT_CITY, n, 0)
                count += 1
    if s[S_DECK_POS] < N_DEV_CARDS and can_afford_nb(s, p, BUILD_DEV_CARD):
        out[count] = pack_nb(ACT_BUY_DEV, 0, 0)
        count += 1
    for give in range(5):
        if s[S_HAND + 5 * p + give] >= maritime_rate_nb(s, p, give):
            for get in range(5):
                if get != give and s[S_BANK + get] > 0:
                    out[count] = pack_nb(ACT_TRADE_BANK, give, get)
                    count += 1
    if s[S_OFFERS] < rules[R_MAX_OFFERS]:
        n_players = np.int64(s[S_N_PLAYERS])
        for q in range(n_players):
            if q == p:
                continue
            for give in range(5):
                if s[S_HAND + 5 * p + give] == 0:
                    continue
                for get in range(5):
                    if get != give:
                        out[count] = pack_nb(ACT_TRADE_PLAYER, q, 5 * give + get)
                        count += 1
    return count
