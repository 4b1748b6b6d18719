"""Rule settings for studies: validation, CLI parsing, and the kernel array.

Official values by default. ``Rules`` is immutable; build it from a mapping
(experiment files) or from ``NAME=VALUE`` strings (``--rule`` on the CLI).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields

import numpy as np

from .core import layout as L
from .errors import CatansimError

ROBBER_MODES = {"official": L.ROBBER_OFFICIAL, "off": L.ROBBER_OFF, "friendly": L.ROBBER_FRIENDLY}
SHORTAGE_MODES = {
    "official": L.SHORTAGE_OFFICIAL,
    "strict": L.SHORTAGE_STRICT,
    "off": L.SHORTAGE_OFF,
}
_NONE_WORDS = {"none", "null", "unlimited", "off"}


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
    """

    vp_to_win: int = 10
    bank_per_resource: int | None = 19
    discard_limit: int | None = 7
    robber: str = "official"
    shortage: str = "official"
    max_turns: int = 1000

    def __post_init__(self):
        _check_int("vp_to_win", self.vp_to_win, 3, 20)
        if self.bank_per_resource is not None:
            _check_int("bank_per_resource", self.bank_per_resource, 1, 1000, "or unlimited")
        if self.discard_limit is not None:
            _check_int("discard_limit", self.discard_limit, 0, 100, "or none")
        if self.robber not in ROBBER_MODES:
            raise CatansimError(
                f"rule robber: {self.robber!r} is not one of {', '.join(ROBBER_MODES)}"
            )
        if self.shortage not in SHORTAGE_MODES:
            raise CatansimError(
                f"rule shortage: {self.shortage!r} is not one of {', '.join(SHORTAGE_MODES)}"
            )
        _check_int("max_turns", self.max_turns, 1, 100_000)

    @classmethod
    def names(cls) -> list[str]:
        return [f.name for f in fields(cls)]

    @classmethod
    def from_mapping(cls, mapping: dict, where: str = "rule") -> Rules:
        """Build from a dict such as an experiment file's ``[rules]`` table."""
        unknown = set(mapping) - set(cls.names())
        if unknown:
            raise CatansimError(
                f"{where} {sorted(unknown)[0]!r}: unknown rule; allowed: {', '.join(cls.names())}"
            )
        return cls(**mapping)

    @classmethod
    def from_strings(cls, items: list[str] | tuple[str, ...]) -> Rules:
        """Parse ``NAME=VALUE`` strings as given to ``--rule``."""
        values: dict = {}
        for item in items:
            name, sep, raw = item.partition("=")
            name = name.strip()
            if not sep or not name:
                raise CatansimError(f"--rule {item!r}: expected NAME=VALUE, e.g. robber=friendly")
            if name not in cls.names():
                raise CatansimError(
                    f"--rule {name!r}: unknown rule; allowed: {', '.join(cls.names())}"
                )
            values[name] = _parse_value(name, raw.strip())
        return cls.from_mapping(values)

    def to_header(self) -> dict:
        """The six keys of a game-log header's ``rules`` object."""
        return asdict(self)

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
        a[L.R_MAX_OFFERS] = max_offers
        a[L.R_MAX_ACTIONS] = max_actions
        a[L.R_CHECK] = 1 if check else 0
        return a


def _check_int(name, value, lo, hi, extra=""):
    allowed = f"{lo}..{hi}" + (f" {extra}" if extra else "")
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise CatansimError(f"rule {name}: {value!r} is not an integer; allowed: {allowed}")
    if not lo <= value <= hi:
        raise CatansimError(f"rule {name}: {value} is out of range; allowed: {allowed}")


def _parse_value(name: str, raw: str):
    if name in ("robber", "shortage"):
        return raw
    if name in ("bank_per_resource", "discard_limit") and raw.lower() in _NONE_WORDS:
        return None
    try:
        return int(raw)
    except ValueError:
        nullable = name in ("bank_per_resource", "discard_limit")
        allowed = "an integer" + (" or none" if nullable else "")
        raise CatansimError(f"--rule {name}={raw}: not {allowed}") from None
