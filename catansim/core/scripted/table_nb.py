"""What a seat reads of the table: the twin of ``players/reference/table.py``.

Most facts of the table are kept in the state as the rules change it, so their twins
are a read of ``s`` or a rule kernel, not a function here:

=========================  ============================================================
reference ``table``         compiled
=========================  ============================================================
``missing``                 ``missing_nb`` (here)
``production``              ``production_nb`` (here; the state's ``prod_pips``)
``land_hexes``              ``topology.T_NODE_HEXES`` and ``rules_nb.pips_nb``
``resources_at``            the state's ``node_resources`` (bits)
``neighbours``              ``topology.T_NODE_EDGES``, ``T_NODE_NEIGHBOURS``
``other_end``               ``topology.T_EDGE_NODES``
``free_by_distance_rule``   ``rules_nb.distance_ok_nb``
``roads_at``                ``rules_nb.roads_at_nb``
``network``                 ``rules_nb.net_nodes_nb`` (bits)
``settlement_spots``        the state's ``open_spots`` (a count)
``buildings``               the state's ``node_owner`` and ``node_level``
``settlements_left``        the state's ``settlements_left``
``cities_left``             the state's ``cities_left``
``roads_left``              the state's ``roads_left``
``hexes_with_buildings``    the state's ``own_hexes`` (bits)
``harbor_at``               the state's ``node_harbor``
``harbors_of``              the state's ``harbors``
``maritime_rate``           ``rules_nb.maritime_rate_nb``
``may_play``                ``actions_nb.can_play_dev_nb``
=========================  ============================================================

``best_of`` and ``one_card`` are the reference's own helpers (its ties are lists; a
kernel keeps one candidate and draws among equals where the reference returns them all).
"""

from ..jit import inline_kernel, kernel
from ..layout import S_PROD_PIPS
from ..rules_nb import COST_TABLE
from .work_nb import X_PMASK, X_PROD


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


@inline_kernel
def missing_nb(s, hand, kind):
    # Cards the hand at offset ``hand`` of s lacks for ``kind``. Called with a constant
    # kind, so the test on the cost folds away when compiled: a resource the build does
    # not use adds nothing (a hand is never negative) and is not read.
    m = 0
    for r in range(5):
        cost = COST_TABLE[5 * kind + r]
        if cost > 0:
            m += max(cost - s[hand + r], 0)
    return m
