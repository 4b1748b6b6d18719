"""The policy interface: every decision a player makes, chosen by strategy id.

Each ``choose_*_nb`` takes ``sid`` (the seat's integer strategy id) and ``prm``
(its float64 parameter row), the state ``s``, ``topo``, ``rules``, the game's
``rng``, the game's float64 scratch ``work`` (``WORK_SIZE``) and the deciding seat
``p``, and dispatches with ``if``/``elif`` on
``sid`` (no jitted callables: those recompile in every process). A player's
random choices use its own stream ``STREAM_PLAYER0 + p``.

Every other id is a scripted player (``core.scripted``): one decision
framework whose behaviour is set entirely by the parameter row.

Strategy 0 is ``random``: a uniform choice among the legal options of every
decision. Its player-trade offers are one card for one card; as a partner it
accepts a trade it can pay with probability 1/2; it discards a uniformly random
subset of its cards.

Every dispatcher the game loop calls on most turns is an ``inline_kernel``, inlined
into ``loop_nb.run_nb``: a compiled kernel's machine code holds all its callees, so
a dispatcher compiled as a kernel of its own would lower the scripted decision a second
time, and a call passes each array as seven machine words, where the inlined dispatcher
calls the scripted kernel (``action_nb``) or the random one (``random_action_nb``)
with only the arrays that side reads. Victim and Monopoly, a few calls a game, stay
kernels. (The measurements behind this: ``docs/history/performance.md``.)
"""


from ..constants import N_EDGES, N_HEXES, N_NODES
from .actions_nb import can_play_dev_nb, legal_actions_nb, unpack_nb
from .jit import inline_kernel, kernel, typed_kernel
from .layout import S_BANK, S_HAND
from .rng_nb import STREAM_PLAYER0, randint_nb, uniform_nb
from .rules_nb import can_place_road_nb, invention_cards_nb
from .scripted.decisions_nb import (
    action_nb,
    before_roll_nb,
    discard_nb,
    free_road_nb,
    invention_nb,
    monopoly_nb,
    robber_hex_nb,
    setup_road_nb,
    setup_settlement_nb,
    victim_nb,
)
from .scripted.trade_nb import answer_nb
from .scripted.work_nb import WORK_SIZE as WORK_SIZE  # the scratch size games lend players
from .scripted.work_nb import reset_work_nb as reset_work_nb  # a new game's work array

STRATEGY_RANDOM = 0
STRATEGY_SCRIPTED = 1


@typed_kernel("int64(uint64[::1], int64, uint8[::1], int64)")
def _pick_from_mask_nb(rng, stream, mask, n):
    count = 0
    for i in range(n):
        count += mask[i]
    if count == 0:
        return -1
    k = randint_nb(rng, stream, count)
    for i in range(n):
        if mask[i]:
            if k == 0:
                return i
            k -= 1
    return -1


@inline_kernel
def choose_setup_settlement_nb(sid, prm, s, topo, rules, rng, work, p, legal):
    """A starting settlement among ``legal`` (uint8[54])."""
    if sid != STRATEGY_RANDOM:
        return setup_settlement_nb(prm, s, topo, rng, p, legal, work)
    return _pick_from_mask_nb(rng, STREAM_PLAYER0 + p, legal, N_NODES)


@inline_kernel
def choose_setup_road_nb(sid, prm, s, topo, rules, rng, work, p, node, legal):
    """The road next to the settlement just placed on ``node``, among ``legal`` (uint8[72])."""
    if sid != STRATEGY_RANDOM:
        return setup_road_nb(prm, s, topo, p, node, legal, work)
    return _pick_from_mask_nb(rng, STREAM_PLAYER0 + p, legal, N_EDGES)


@inline_kernel
def choose_pre_roll_nb(sid, prm, s, topo, rules, rng, work, p):
    """A development card to play before rolling, or -1 to roll straight away."""
    if sid != STRATEGY_RANDOM:
        return before_roll_nb(prm, s, topo, rules, p)
    # Uniform over "roll straight away" and the playable cards.
    count = 1
    for card in range(5):
        if can_play_dev_nb(s, p, card):
            count += 1
    k = randint_nb(rng, STREAM_PLAYER0 + p, count)
    if k == 0:
        return -1
    for card in range(5):
        if can_play_dev_nb(s, p, card):
            k -= 1
            if k == 0:
                return card
    return -1


@kernel
def random_action_nb(s, topo, rules, rng, p, act, cand):
    """A uniform choice among p's legal actions into ``act``; ``cand`` is the list's scratch."""
    count = legal_actions_nb(s, topo, rules, p, cand)
    unpack_nb(cand[randint_nb(rng, STREAM_PLAYER0 + p, count)], act)


@inline_kernel
def choose_action_nb(sid, prm, s, topo, rules, rng, work, p, act, cand):
    """Fill ``act`` with the next action-phase action (``ACT_END`` ends the turn)."""
    if sid != STRATEGY_RANDOM:
        action_nb(prm, s, topo, rules, rng, p, act, work)
    else:
        random_action_nb(s, topo, rules, rng, p, act, cand)


@inline_kernel
def choose_discard_nb(sid, prm, s, topo, rules, rng, work, p, k, out):
    """Choose ``k`` cards to discard into ``out`` (int32[5])."""
    if sid != STRATEGY_RANDOM:
        discard_nb(prm, s, topo, p, k, out, work)
        return
    total = 0
    for r in range(5):
        total += s[S_HAND + 5 * p + r]
        out[r] = 0
    for _ in range(k):
        pick = randint_nb(rng, STREAM_PLAYER0 + p, total)
        for r in range(5):
            left = s[S_HAND + 5 * p + r] - out[r]
            if pick < left:
                out[r] += 1
                break
            pick -= left
        total -= 1


@inline_kernel
def choose_robber_hex_nb(sid, prm, s, topo, rules, rng, work, p, mask):
    """The hex to move the robber to, among ``mask`` (uint8[19])."""
    if sid != STRATEGY_RANDOM:
        return robber_hex_nb(prm, s, topo, rng, p, mask, work)
    return _pick_from_mask_nb(rng, STREAM_PLAYER0 + p, mask, N_HEXES)


@kernel
def choose_victim_nb(sid, prm, s, topo, rules, rng, work, p, h, victims, n_victims):
    """The seat to steal from among ``victims[:n_victims]`` (n_victims >= 1)."""
    if sid != STRATEGY_RANDOM:
        return victim_nb(prm, s, rng, p, victims, n_victims)
    return victims[randint_nb(rng, STREAM_PLAYER0 + p, n_victims)]


@inline_kernel
def choose_free_road_nb(sid, prm, s, topo, rules, rng, work, p, mask):
    """An edge for a Road Building road; ``mask`` (uint8[72]) is scratch. -1 if none is legal."""
    if sid != STRATEGY_RANDOM:
        return free_road_nb(prm, s, topo, p, work)
    for e in range(N_EDGES):
        mask[e] = 1 if can_place_road_nb(s, topo, p, e) else 0
    return _pick_from_mask_nb(rng, STREAM_PLAYER0 + p, mask, N_EDGES)


@inline_kernel
def choose_invention_nb(sid, prm, s, topo, rules, rng, work, p, out):
    """Two resource cards to take from the supply into ``out`` (int32[5]).

    The caller guarantees the supply holds them; with fewer than two cards in the
    supply the caller asks for what is there.
    """
    if sid != STRATEGY_RANDOM:
        invention_nb(prm, s, topo, p, out, work)
        return
    stream = STREAM_PLAYER0 + p
    for r in range(5):
        out[r] = 0
    want = invention_cards_nb(s)
    # Uniform over the multisets the supply can give: count them, then take the k-th.
    count = 0
    for a in range(5):
        for b in range(a, 5):
            count += _invention_option_nb(s, want, a, b)
    if count == 0:
        return
    k = randint_nb(rng, stream, count)
    for a in range(5):
        for b in range(a, 5):
            if _invention_option_nb(s, want, a, b):
                if k == 0:
                    out[a] += 1
                    if want == 2:
                        out[b] += 1
                    return
                k -= 1


@kernel
def _invention_option_nb(s, want, a, b):
    # 1 if the supply can give {a, b} (want == 2) or the single card a (want == 1, a == b).
    if want == 2:
        return 1 if s[S_BANK + a] >= (2 if a == b else 1) and s[S_BANK + b] >= 1 else 0
    if want == 1 and a == b and s[S_BANK + a] >= 1:
        return 1
    return 0


@kernel
def choose_monopoly_nb(sid, prm, s, topo, rules, rng, work, p):
    """The resource to name for Monopoly."""
    if sid != STRATEGY_RANDOM:
        return monopoly_nb(prm, s, topo, rules, p)
    return randint_nb(rng, STREAM_PLAYER0 + p, 5)


@inline_kernel
def accept_trade_nb(sid, prm, s, topo, rules, rng, work, q, p, act):
    """Whether partner q accepts p's offer ``act`` (q gives ``act[7:12]``, gets ``act[2:7]``).

    The caller has checked that q holds the cards asked for.
    """
    if sid != STRATEGY_RANDOM:
        return answer_nb(prm, s, topo, rules, q, p, act, work)
    return uniform_nb(rng, STREAM_PLAYER0 + q) < 0.5
