"""Names of forced-opening arms: the variants a ``[sweep]`` of an experiment file makes.

A sweep (``docs/experiments.md``) turns one table into hundreds of variants, each
forcing one seat's starting settlement(s) on top of the baseline. Their names say
what they force, so that any reader of a dataset (the analysis layer included, from
the ``variant`` column alone) knows the arm without the experiment file:

=================================  ==================================================
``seat0_first23``                  seat 0's first settlement on node 23 (road free)
``seat0_first23_road31``           ... with its road on edge 31
``seat2_second40``                 seat 2's second settlement on node 40
``seat3_pair23_40``                seat 3's first on 23 and second on 40
``seat3_pair23_40_roads31_-1``     ... with the first road on edge 31, the second free
=================================  ==================================================

Everything not forced (the other seats, the other settlement, free roads) is the
strategies' choice, as in the baseline.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import CatansimError

KINDS = ("first", "second", "pair")
_RE = re.compile(r"^seat(\d)_(first|second|pair)(\d+)(?:_(\d+))?(?:_roads?(-?\d+)(?:_(-?\d+))?)?$")


@dataclass(frozen=True)
class Arm:
    """One forced opening: ``seat``, ``kind`` (first, second or pair), its ``nodes`` and
    ``roads`` (one per forced settlement, -1 = left to the strategy)."""

    seat: int
    kind: str
    nodes: tuple[int, ...]
    roads: tuple[int, ...]

    @property
    def name(self) -> str:
        return arm_name(self.seat, self.kind, self.nodes, self.roads)

    @property
    def settlements(self) -> tuple[int, ...]:
        """Which settlements (0 = first, 1 = second) the arm forces, in ``nodes`` order."""
        return {"first": (0,), "second": (1,), "pair": (0, 1)}[self.kind]

    @property
    def node(self) -> int:
        return self.nodes[0]

    @property
    def node_2(self) -> int:
        """The second node of a pair (-1 for a single settlement)."""
        return self.nodes[1] if len(self.nodes) > 1 else -1


def arm_name(seat: int, kind: str, nodes, roads=None) -> str:
    """The variant name of a forced opening (see the module docstring)."""
    nodes = tuple(int(n) for n in nodes)
    roads = tuple(int(e) for e in roads) if roads is not None else (-1,) * len(nodes)
    if kind not in KINDS or len(nodes) != (2 if kind == "pair" else 1) or len(roads) != len(nodes):
        raise CatansimError(f"arm: kind {kind!r} with nodes {nodes} and roads {roads}; "
                            f"allowed: a kind in {', '.join(KINDS)} with one node and road "
                            "(two for a pair)")
    name = f"seat{seat}_{kind}" + "_".join(str(n) for n in nodes)
    if any(e >= 0 for e in roads):
        name += ("_roads" if kind == "pair" else "_road") + "_".join(str(e) for e in roads)
    return name


def parse_arm(name: str) -> Arm | None:
    """The ``Arm`` a variant name stands for, or None (the baseline, a hand-written variant)."""
    m = _RE.match(str(name))
    if m is None:
        return None
    seat, kind = int(m.group(1)), m.group(2)
    nodes = (int(m.group(3)),) + ((int(m.group(4)),) if m.group(4) is not None else ())
    roads = tuple(int(g) for g in m.group(5, 6) if g is not None) or (-1,) * len(nodes)
    if len(nodes) != (2 if kind == "pair" else 1) or len(roads) != len(nodes):
        return None
    arm = Arm(seat, kind, nodes, roads)
    return arm if arm.name == name else None
