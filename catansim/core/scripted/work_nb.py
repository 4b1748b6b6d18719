"""The float64 work array a game lends its scripted players, and its layout.

Compiled only: the reference (``players/reference``) keeps nothing between calls, and
recomputes what the kernels keep here (a decision's plan, the node base scores of a
board).
"""

from ...constants import MAX_PLAYERS, N_NODES
from ..jit import inline_kernel

# Scratch layout of one decision (float64[SCRATCH]): see ``plan_nb``.
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
