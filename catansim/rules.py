"""Rule settings for studies: validation, CLI parsing, and the kernel array.

Official values by default. ``Rules`` is immutable; build it from a mapping
(experiment files) or from ``NAME=VALUE`` strings (``--rule`` on the CLI).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields

import numpy as np

from .checks import check_choice, check_int, checked_fields
from .core import layout as L
from .errors import CatansimError

ROBBER_MODES = {"official": L.ROBBER_OFFICIAL, "off": L.ROBBER_OFF, "friendly": L.ROBBER_FRIENDLY}
SHORTAGE_MODES = {
    "official": L.SHORTAGE_OFFICIAL,
    "strict": L.SHORTAGE_STRICT,
    "off": L.SHORTAGE_OFF,
}
# Settings that may be "none" (no limit), and the words that say so.
NULLABLE = ("bank_per_resource", "discard_limit", "first_turn")
NONE_WORDS = ("none", "null", "unlimited", "off")


@checked_fields
@dataclass(frozen=True)
class Rules:
    """Rule settings written in the log header's ``rules``.

    Attributes
    ----------
    vp_to_win : int
        Victory points needed to win on your own turn (official 10; 3..20).
    bank_per_resource : int or None
        Cards of each resource in the supply (official 19; 1..1000), None for unlimited.
    discard_limit : int or None
        On a 7, players holding more than this many cards discard half (official 7;
        0..100), None for no discards.
    robber : str
        ``official``, ``off`` (robber unused) or ``friendly`` (may not hit players with
        2 or fewer visible VP unless no other hex is possible).
    shortage : str
        ``official`` (nobody is paid a short resource unless one player alone is owed
        it), ``strict`` (nobody is paid, ever) or ``off`` (paid in turn order from the
        roller until the supply runs out).
    max_turns : int
        Turn cap (counting every player's turn); a game reaching it ends without a
        winner (1..100000, default 1000).
    first_pick : int
        Seat that places first in the set-up (official 0; 0..3, a seat that plays). The
        snake order runs from it: first_pick, first_pick + 1, ... round the table, then
        back. With it "placing first" can be told apart from "being seat 0".
    first_turn : int or None
        Seat that takes turn 1; turns then go round in seat order. None (the official
        rule) means ``first_pick``, the seat that placed first; a seat (0..3, one that
        plays) gives the first move to another seat than the first pick.
        ``first_mover`` is the seat it resolves to.
    """

    vp_to_win: int = 10
    bank_per_resource: int | None = 19
    discard_limit: int | None = 7
    robber: str = "official"
    shortage: str = "official"
    max_turns: int = 1000
    first_pick: int = 0
    first_turn: int | None = None

    def __post_init__(self):
        check_int(self.vp_to_win, "rule vp_to_win", 3, 20)
        if self.bank_per_resource is not None:
            check_int(self.bank_per_resource, "rule bank_per_resource", 1, 1000,
                      "an integer in 1..1000, or unlimited")
        if self.discard_limit is not None:
            check_int(self.discard_limit, "rule discard_limit", 0, 100,
                      "an integer in 0..100, or none")
        check_choice(self.robber, "rule robber", ROBBER_MODES)
        check_choice(self.shortage, "rule shortage", SHORTAGE_MODES)
        check_int(self.max_turns, "rule max_turns", 1, 100_000)
        check_int(self.first_pick, "rule first_pick", 0, 3, "a seat 0..3 that plays")
        if self.first_turn is not None:
            check_int(self.first_turn, "rule first_turn", 0, 3,
                      "a seat 0..3 that plays, or none (the first pick)")

    @property
    def first_mover(self) -> int:
        """The seat that takes turn 1: ``first_turn``, or ``first_pick`` when it is None."""
        return self.first_pick if self.first_turn is None else self.first_turn

    @classmethod
    def names(cls) -> list[str]:
        return [f.name for f in fields(cls)]

    @classmethod
    def from_mapping(cls, mapping: dict, where: str = "rule", base: Rules | None = None) -> Rules:
        """Build from a dict such as an experiment file's ``[rules]`` table.

        Values not given are ``base``'s (default: the official rules); a nullable
        setting also takes one of ``NONE_WORDS`` for "no limit".
        """
        unknown = set(mapping) - set(cls.names())
        if unknown:
            raise CatansimError(
                f"{where} {sorted(unknown)[0]!r}: unknown rule; allowed: {', '.join(cls.names())}"
            )
        values = asdict(base) if base is not None else {}
        for name, v in mapping.items():
            if name in NULLABLE and isinstance(v, str) and v.lower() in NONE_WORDS:
                v = None
            values[name] = v
        return cls(**values)

    @classmethod
    def from_strings(cls, items: list[str] | tuple[str, ...]) -> Rules:
        """Parse ``NAME=VALUE`` strings as given to ``--rule``."""
        values: dict = {}
        for item in items:
            name, sep, raw = item.partition("=")
            name = name.strip()
            if not sep or not name:
                raise CatansimError(f"--rule {item!r}: expected NAME=VALUE; allowed: a rule "
                                    f"name ({', '.join(cls.names())}) = a value, e.g. "
                                    "robber=friendly")
            if name not in cls.names():
                raise CatansimError(
                    f"--rule {name!r}: unknown rule; allowed: {', '.join(cls.names())}"
                )
            values[name] = _parse_value(name, raw.strip())
        try:
            return cls.from_mapping(values)
        except CatansimError as exc:  # "rule vp_to_win: ..." names the option as given
            raise CatansimError(f"--{exc}" if str(exc).startswith("rule ") else str(exc)) \
                from None

    def to_header(self) -> dict:
        """The rule settings as a game-log header's ``rules`` object (every field, with
        ``first_turn`` resolved to the seat that takes turn 1)."""
        return {**asdict(self), "first_turn": self.first_mover}

    def to_array(
        self, max_offers: int = 3, max_actions: int = 200, check: bool = False
    ) -> np.ndarray:
        """The int32 ``rules`` array the kernels take (see ``core.layout.RULE_FIELDS``)."""
        a = np.zeros(L.N_RULES, dtype=np.int32)
        a[L.R_VP_TO_WIN] = self.vp_to_win
        a[L.R_BANK] = L.UNLIMITED_BANK if self.bank_per_resource is None else self.bank_per_resource
        a[L.R_DISCARD_LIMIT] = -1 if self.discard_limit is None else self.discard_limit
        a[L.R_ROBBER] = ROBBER_MODES[self.robber]
        a[L.R_SHORTAGE] = SHORTAGE_MODES[self.shortage]
        a[L.R_MAX_TURNS] = self.max_turns
        a[L.R_FIRST_PICK] = self.first_pick
        a[L.R_FIRST_TURN] = self.first_mover
        a[L.R_MAX_OFFERS] = max_offers
        a[L.R_MAX_ACTIONS] = max_actions
        a[L.R_CHECK] = 1 if check else 0
        return a


def _parse_value(name: str, raw: str):
    """A ``--rule`` value: words stay words (``from_mapping`` reads the none words)."""
    if name in ("robber", "shortage") or (name in NULLABLE and raw.lower() in NONE_WORDS):
        return raw
    try:
        return int(raw)
    except ValueError:
        allowed = "an integer" + (" or none" if name in NULLABLE else "")
        raise CatansimError(f"--rule {name}: {raw!r} is not allowed; allowed: {allowed}") \
            from None
