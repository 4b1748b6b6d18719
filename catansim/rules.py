"""Rule settings for studies: validation, CLI parsing, and the kernel array.

Official values by default. ``Rules`` is immutable; build it from a mapping
(experiment files) or from ``NAME=VALUE`` strings (``--rule`` on the CLI).
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

import numpy as np

from .checks import check_choice, check_int, checked_fields, did_you_mean
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
# Settings that act in the set-up or on the supply's size: a switch at a turn, or a fork
# with other rules, must leave them as they were.
FIXED = ("first_pick", "first_turn", "bank_per_resource")
# The fields of a rule switch (``Rules.switched``), beside the rule settings.
SWITCH_FIELDS = ("switch_turn", "rules_after")
# Player-trade offers a player may make in one turn: a bound of the engine, not a rule
# setting (the kernels read it from the rules array, ``R_MAX_OFFERS``).
MAX_OFFERS = 3


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
    switch_turn : int or None
        With ``rules_after``: when this turn is over (1..max_turns - 1) the game plays on
        under ``rules_after``, on the same dice; None (default) for no switch.
    rules_after : Rules or None
        The rules from turn ``switch_turn + 1`` on: a ``Rules`` without a switch of its
        own whose ``FIXED`` settings (first_pick, first_turn, bank_per_resource) are
        these rules' (``switched`` builds it from overrides).
    """

    vp_to_win: int = 10
    bank_per_resource: int | None = 19
    discard_limit: int | None = 7
    robber: str = "official"
    shortage: str = "official"
    max_turns: int = 1000
    first_pick: int = 0
    first_turn: int | None = None
    switch_turn: int | None = None
    rules_after: Rules | None = None

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
        if self.switch_turn is not None or self.rules_after is not None:
            self._check_switch()

    def _check_switch(self) -> None:
        after = self.rules_after
        if self.switch_turn is None or after is None:
            missing = "switch_turn" if self.switch_turn is None else "rules_after"
            raise CatansimError(f"rule {missing}: missing; allowed: switch_turn and "
                                "rules_after together, or neither")
        allowed = f"a turn 1..{self.max_turns - 1} (before max_turns), after which the " \
                  "rules switch"
        check_int(self.switch_turn, "rule switch_turn", 1, None, allowed)
        if self.switch_turn >= self.max_turns:
            raise CatansimError(f"rule switch_turn: {self.switch_turn} is not before max_turns"
                                f" ({self.max_turns}); allowed: {allowed}")
        if not isinstance(after, Rules) or after.switch_turn is not None:
            raise CatansimError(f"rule rules_after: {type(after).__name__} is not allowed; "
                                "allowed: a catansim.Rules without a switch of its own")
        self.check_mid_game(after, "rule switch")

    def check_mid_game(self, after: Rules, where: str) -> None:
        """Refuse ``after`` as the rules of a game begun under these: it must keep the
        ``FIXED`` settings (the set-up's and the supply size)."""
        for key in FIXED:
            was, now = getattr(self, key), getattr(after, key)
            if key == "first_turn":
                was, now = self.first_mover, after.first_mover
            if was != now:
                changeable = ", ".join(k for k in self.names() if k not in FIXED)
                raise CatansimError(f"{where}: rule {key}: cannot change mid-game ({was!r} "
                                    f"before, {now!r} after); allowed: a change of "
                                    f"{changeable}")

    def switched(self, turn: int, **after) -> Rules:
        """These rules up to the end of turn ``turn``, then these with the settings
        ``after`` (e.g. ``robber="off"``; none words as in ``from_mapping``)."""
        plain = self.before
        return replace(plain, switch_turn=turn,
                       rules_after=Rules.from_mapping(after, "switch rule", base=plain))

    @property
    def before(self) -> Rules:
        """The rules before the switch, without it (these rules when there is none)."""
        return self if self.switch_turn is None else replace(
            self, switch_turn=None, rules_after=None)

    def at_turn(self, turn: int) -> Rules:
        """The rules turn ``turn`` is played under (without the switch)."""
        if self.switch_turn is not None and turn > self.switch_turn:
            return self.rules_after
        return self.before

    @property
    def first_mover(self) -> int:
        """The seat that takes turn 1: ``first_turn``, or ``first_pick`` when it is None."""
        return self.first_pick if self.first_turn is None else self.first_turn

    @classmethod
    def names(cls) -> list[str]:
        """The rule settings (the log header's ``rules`` keys), without the switch."""
        return [f.name for f in fields(cls) if f.name not in SWITCH_FIELDS]

    @classmethod
    def from_mapping(cls, mapping: dict, where: str = "rule", base: Rules | None = None) -> Rules:
        """Build from a dict such as an experiment file's ``[rules]`` table.

        Values not given are ``base``'s (default: the official rules); a nullable
        setting also takes one of ``NONE_WORDS`` for "no limit".
        """
        unknown = sorted(set(mapping) - set(cls.names()))
        if unknown:
            raise CatansimError(
                f"{where} {unknown[0]!r}: unknown rule{did_you_mean(unknown[0], cls.names())}; "
                f"allowed: {', '.join(cls.names())}"
            )
        values = {f: getattr(base, f) for f in cls.names()} if base is not None else {}
        for name, v in mapping.items():
            if name in NULLABLE and isinstance(v, str) and v.lower() in NONE_WORDS:
                v = None
            values[name] = v
        return cls(**values)

    @classmethod
    def from_strings(cls, items: list[str] | tuple[str, ...], option: str = "--rule",
                     base: Rules | None = None) -> Rules:
        """Parse ``NAME=VALUE`` strings as given to ``--rule`` (or ``option``), over
        ``base`` (default: the official rules)."""
        values = cls._string_values(items, option)
        try:
            return cls.from_mapping(values, base=base)
        except CatansimError as exc:  # "rule vp_to_win: ..." names the option as given
            raise CatansimError(_option_message(str(exc), option)) from None

    @classmethod
    def from_cli(cls, rule_items, switch_turn: int | None = None, switch_items=()) -> Rules:
        """``--rule`` strings, then the switch of ``--switch-turn`` and ``--switch-rule``
        strings (the settings after it, over the ``--rule`` ones)."""
        rules = cls.from_strings(rule_items)
        if switch_turn is None:
            if switch_items:
                raise CatansimError("--switch-rule: needs --switch-turn; allowed: "
                                    "--switch-turn T with the settings after turn T")
            return rules
        values = cls._string_values(switch_items, "--switch-rule")
        try:
            return rules.switched(switch_turn, **values)
        except CatansimError as exc:
            msg = str(exc)
            if msg.startswith("rule switch_turn"):
                raise CatansimError("--switch-turn" + msg[len("rule switch_turn"):]) from None
            raise CatansimError(_option_message(msg.removeprefix("rule switch: "),
                                                "--switch-rule")) from None

    @classmethod
    def _string_values(cls, items, option: str) -> dict:
        values: dict = {}
        for item in items:
            name, sep, raw = item.partition("=")
            name = name.strip()
            if not sep or not name:
                raise CatansimError(f"{option} {item!r}: expected NAME=VALUE; allowed: a rule "
                                    f"name ({', '.join(cls.names())}) = a value, e.g. "
                                    "robber=friendly")
            if name not in cls.names():
                raise CatansimError(
                    f"{option} {name!r}: unknown rule{did_you_mean(name, cls.names())}; "
                    f"allowed: {', '.join(cls.names())}"
                )
            values[name] = _parse_value(name, raw.strip(), option)
        return values

    def to_header(self) -> dict:
        """The rule settings as a game-log header's ``rules`` object (every field, with
        ``first_turn`` resolved to the seat that takes turn 1); with a switch, also
        ``switch_turn`` and ``rules_after`` (the after-rules' own ``to_header``)."""
        plain = {f: getattr(self, f) for f in self.names()}
        out = {**plain, "first_turn": self.first_mover}
        if self.switch_turn is not None:
            out["switch_turn"] = self.switch_turn
            out["rules_after"] = self.rules_after.to_header()
        return out

    @property
    def supply_size(self) -> int:
        """Cards of each resource in the game: ``bank_per_resource``, or for an unlimited
        supply the stack no game can empty that the kernels stand in for it."""
        return L.UNLIMITED_BANK if self.bank_per_resource is None else self.bank_per_resource

    def to_array(
        self, max_offers: int = MAX_OFFERS, max_actions: int = 200, check: bool = False
    ) -> np.ndarray:
        """The int32 ``rules`` array the kernels take (see ``core.layout.RULE_FIELDS``)."""
        a = np.zeros(L.N_RULES, dtype=np.int32)
        after = self.rules_after if self.rules_after is not None else self
        if after is not self:
            a[L.R_AFTER:] = after.to_array(max_offers, max_actions, check)[:L.R_SWITCH_TURN]
        a[L.R_SWITCH_TURN] = -1 if self.switch_turn is None else self.switch_turn
        a[L.R_VP_TO_WIN] = self.vp_to_win
        a[L.R_BANK] = self.supply_size
        a[L.R_DISCARD_LIMIT] = -1 if self.discard_limit is None else self.discard_limit
        a[L.R_ROBBER] = ROBBER_MODES[self.robber]
        a[L.R_SHORTAGE] = SHORTAGE_MODES[self.shortage]
        a[L.R_MAX_TURNS] = self.max_turns
        a[L.R_FIRST_PICK] = self.first_pick
        a[L.R_FIRST_TURN] = self.first_mover
        a[L.R_MAX_OFFERS] = max_offers
        a[L.R_MAX_ACTIONS] = max_actions
        a[L.R_CHECK] = 1 if check else 0
        if after is self:
            a[L.R_AFTER:] = a[:L.R_SWITCH_TURN]
        return a


def _option_message(msg: str, option: str) -> str:
    """A ``Rules`` error ("rule vp_to_win: ...") named by the option that gave it."""
    return f"{option} {msg[len('rule '):]}" if msg.startswith("rule ") else msg


def _parse_value(name: str, raw: str, option: str = "--rule"):
    """A ``--rule`` value: words stay words (``from_mapping`` reads the none words)."""
    if name in ("robber", "shortage") or (name in NULLABLE and raw.lower() in NONE_WORDS):
        return raw
    try:
        return int(raw)
    except ValueError:
        allowed = "an integer" + (" or none" if name in NULLABLE else "")
        raise CatansimError(f"{option} {name}: {raw!r} is not allowed; allowed: {allowed}") \
            from None
