"""The fixed action space, the observation vector, and ``Table``: a ``Game`` seen through
them (needs neither PettingZoo nor Gymnasium).

Seats are counted from the observer: "seat k" is the seat k places after you in turn
order (k = 0 is you), in the observation and in the actions that name a seat (offers,
steals), so one policy can play every seat.

A discard or Invention takes a whole bundle in the game (``Option.give`` / ``get``);
here the deciding seat picks one card per step (``discard`` / ``invention`` actions)
and ``Table`` applies the bundle through ``Game.step`` once the cards due are picked.
A card may be picked while some legal bundle still holds the cards picked and it, so
every sequence of masked picks ends in a legal bundle. A bundle of no cards (Invention
with an empty supply) is applied without asking.
"""

from __future__ import annotations

import numpy as np

from ..checks import is_int
from ..constants import (
    BONUS_TILE_VP,
    CITIES_PER_PLAYER,
    DEV_CARD_COUNTS,
    DEV_CARD_NAMES,
    HARBOR_KIND_NAMES,
    INVENTION,
    KNIGHT,
    MAX_PLAYERS,
    MONOPOLY,
    N_DEV_CARDS,
    N_EDGES,
    N_HARBORS,
    N_HEXES,
    N_NODES,
    N_RESOURCES,
    RESOURCE_NAMES,
    ROAD_BUILDING,
    ROADS_PER_PLAYER,
    SETTLEMENTS_PER_PLAYER,
    TERRAIN_NAMES,
    VICTORY_POINT,
)
from ..core.layout import D_DISCARD, D_INVENTION, DECISION_NAMES
from ..errors import CatansimError
from ..game import Game, Observation, Option
from ..rules import Rules

# The development cards a seat can play, in the order of the ``play`` actions.
PLAYABLE = (KNIGHT, ROAD_BUILDING, INVENTION, MONOPOLY)
_OTHERS = MAX_PLAYERS - 1  # seats an offer or a steal can name
_PAIRS = N_RESOURCES * (N_RESOURCES - 1)  # (give, get) of two different resources

# (name, size, what action ``offset + i`` does). ``give, get`` of a trade: i // 4 is the
# resource given, i % 4 indexes the four others (wood to ore, skipping the one given).
ACTIONS: tuple[tuple[str, int, str], ...] = (
    ("road", N_EDGES, "a road on edge i: placed in the set-up, built, or free (Road "
     "Building)"),
    ("settlement", N_NODES, "a settlement on node i: placed in the set-up, or built"),
    ("city", N_NODES, "a city on node i"),
    ("buy", 1, "buy a development card"),
    ("play", len(PLAYABLE), "play a development card: " + ", ".join(
        f"{i} {DEV_CARD_NAMES[c]}" for i, c in enumerate(PLAYABLE))),
    ("roll", 1, "roll the dice"),
    ("end", 1, "end the turn"),
    ("maritime", _PAIRS, "trade with the supply at your rate: give resource i // 4, get "
     "the (i % 4)-th of the four others"),
    ("offer", _OTHERS * _PAIRS, "offer one card for one to seat i // 20 + 1: give resource "
     "(i % 20) // 4, get the ((i % 20) % 4)-th of the four others"),
    ("accept", 1, "accept the offer pending"),
    ("refuse", 1, "refuse the offer pending"),
    ("robber", N_HEXES, "move the robber to hex i"),
    ("steal", _OTHERS, "steal a random card from seat i + 1"),
    ("monopoly", N_RESOURCES, "name resource i (Monopoly)"),
    ("discard", N_RESOURCES, "pick one card of resource i to discard (applied once the "
     "cards due are picked)"),
    ("invention", N_RESOURCES, "pick one card of resource i to take (Invention; applied "
     "once the cards due are picked)"),
)
ACTION_OFFSET: dict[str, int] = {}
for _name, _size, _ in ACTIONS:
    ACTION_OFFSET[_name] = sum(s for _, s, _ in ACTIONS[: len(ACTION_OFFSET)])
ACTION_SIZE = sum(s for _, s, _ in ACTIONS)
_ACTION_KIND = np.concatenate([np.full(s, k) for k, (_, s, _) in enumerate(ACTIONS)])
_TARGETED = ("road", "settlement", "city", "robber", "monopoly")
_PICKS = {D_DISCARD: "discard", D_INVENTION: "invention"}
_PICK_DECISIONS = {DECISION_NAMES[d]: kind for d, kind in _PICKS.items()}

# (name, size, bound, meaning): every value lies in 0..the bound's value under the game's
# rules (``observation_high``): ``1`` a flag or one-hot; ``cards`` a resource's cards in
# the game (``bank_per_resource``); ``hand`` five times that; ``devs`` the development
# cards; ``points`` a seat's most points; ``route`` its roads; ``turn`` ``max_turns``.
OBSERVATION: tuple[tuple[str, int, str, str], ...] = (
    ("hex_terrain", N_HEXES * 6, "1", "hex h's terrain, one-hot at 6 h + t ("
     + ", ".join(TERRAIN_NAMES) + ")"),
    ("hex_number", N_HEXES * 11, "1", "hex h's number, one-hot at 11 h + number - 2 (the "
     "desert: none)"),
    ("robber", N_HEXES, "1", "the robber's hex, one-hot"),
    ("harbors", N_HARBORS * 6, "1", "harbor j's kind, one-hot at 6 j + kind ("
     + ", ".join(HARBOR_KIND_NAMES) + ")"),
    ("node_pieces", N_NODES * 8, "1", "node i's piece, one-hot at 8 i + 2 k + level - 1: "
     "seat k's settlement (level 1) or city (2)"),
    ("edge_roads", N_EDGES * 4, "1", "edge e's road, one-hot at 4 e + k: seat k's"),
    ("hand", N_RESOURCES, "cards", "your resource cards, wood to ore"),
    ("development_cards", 5, "devs", "your unplayed development cards by kind ("
     + ", ".join(DEV_CARD_NAMES) + ")"),
    ("new_development_cards", 5, "devs", "of them, those bought this turn"),
    ("victory_points", 1, "points", "your points, victory point cards included"),
    ("supply", N_RESOURCES, "cards", "resource cards left in the supply"),
    ("deck_left", 1, "devs", "development cards left to buy"),
    ("seats", MAX_PLAYERS, "1", "1 where seat k plays (slot 3 is 0 with 3 players)"),
    ("hand_sizes", MAX_PLAYERS, "hand", "seat k's resource cards"),
    ("development_counts", MAX_PLAYERS, "devs", "seat k's unplayed development cards"),
    ("knights", MAX_PLAYERS, "devs", "seat k's knights played"),
    ("visible_points", MAX_PLAYERS, "points", "seat k's points on the table (no hidden cards)"),
    ("route_length", MAX_PLAYERS, "route", "seat k's longest route"),
    ("known_low", MAX_PLAYERS * N_RESOURCES, "cards", "at 5 k + r: the cards of resource r "
     "seat k surely holds, by your record of the public events (exact for you)"),
    ("known_high", MAX_PLAYERS * N_RESOURCES, "hand", "at 5 k + r: the most it may hold "
     "(the record is not narrowed by the supply's size)"),
    ("longest_route", MAX_PLAYERS + 1, "1", "Longest Route's holder, one-hot: seat k, or 4 "
     "the supply"),
    ("largest_army", MAX_PLAYERS + 1, "1", "Largest Army's holder, one-hot: seat k, or 4 the "
     "supply"),
    ("turn", 1, "turn", "the turn (0 in the set-up)"),
    ("decision", len(DECISION_NAMES), "1", "the pending decision, one-hot ("
     + ", ".join(DECISION_NAMES) + "); none once over"),
    ("to_move", MAX_PLAYERS, "1", "the seat k whose decision it is, one-hot; none once over"),
    ("dice_rolled", 1, "1", "this turn's dice are rolled"),
    ("card_played", 1, "1", "a development card was played this turn"),
    ("offer", 1 + 2 * N_RESOURCES, "cards", "an offer awaiting an answer: 1, the cards its "
     "maker gives, the cards it asks for"),
    ("due", 1, "hand", "cards a pending discard or Invention takes"),
    ("picked", N_RESOURCES, "cards", "the cards you picked so far for your pending discard or "
     "Invention (the environment's, not yet the game's)"),
)
OBS_OFFSET: dict[str, int] = {}
for _name, _size, _, _ in OBSERVATION:
    OBS_OFFSET[_name] = sum(s for _, s, _, _ in OBSERVATION[: len(OBS_OFFSET)])
OBS_SIZE = sum(s for _, s, _, _ in OBSERVATION)
_DECISION_INDEX = {name: i for i, name in enumerate(DECISION_NAMES)}
_HEX, _NODE, _EDGE = np.arange(N_HEXES), np.arange(N_NODES), np.arange(N_EDGES)
_HARBOR = np.arange(N_HARBORS)


def _pair(give: int, get: int) -> int:
    return 4 * give + get - (get > give)


def _unpair(i: int) -> tuple[int, int]:
    give, j = divmod(i, 4)
    return give, j + (j >= give)


def _resource(cards: tuple) -> int:
    """The one resource of a trade's side."""
    return cards.index(max(cards))


def option_index(option: Option, seat: int, n_players: int) -> int:
    """The action that stands for ``option`` (not a discard or Invention: those are
    picked card by card) when ``seat`` of ``n_players`` decides."""
    kind = option.kind
    off = ACTION_OFFSET.get(kind)
    if off is None or kind in ("discard", "invention"):
        raise CatansimError(f"option_index: {option} has no single action; allowed: an "
                            "option other than a discard or Invention")
    if kind in _TARGETED:
        return off + option.target
    if kind == "play":
        return off + PLAYABLE.index(option.target)
    if kind == "maritime":
        return off + _pair(_resource(option.give), _resource(option.get))
    if kind == "offer":
        if sum(option.give) != 1 or sum(option.get) != 1:
            raise CatansimError(f"option_index: {option} is not one card for one; allowed: "
                                "the offers Game.legal() lists")
        k = (option.target - seat) % n_players
        return off + _PAIRS * (k - 1) + _pair(_resource(option.give), _resource(option.get))
    if kind == "steal":
        return off + (option.target - seat) % n_players - 1
    return off  # buy, roll, end, accept, refuse


# option_index of the options seen (shared: options are immutable, and few).
_INDEX: dict[tuple, int] = {}


def action_index(action) -> int:
    """``action`` as an index: a Python or NumPy integer (or a 0-d integer array), never a
    boolean or a number with a fraction, which ``int`` would quietly turn into another
    action (72.9 into 72, True into 1)."""
    if isinstance(action, np.ndarray) and action.ndim == 0:
        action = action[()]
    if not is_int(action):
        raise CatansimError(f"step: action {action!r} is not an integer; allowed: "
                            f"0..{ACTION_SIZE - 1} with action_mask 1")
    return int(action)


def action_name(action: int) -> str:
    """An action in words, e.g. ``road 17`` or ``offer seat+1 wood for ore``."""
    if not 0 <= action < ACTION_SIZE:
        return f"{action} (outside 0..{ACTION_SIZE - 1})"
    name = ACTIONS[int(_ACTION_KIND[action])][0]
    i = action - ACTION_OFFSET[name]
    if name in ("buy", "roll", "end", "accept", "refuse"):
        return name
    if name == "play":
        return f"play {DEV_CARD_NAMES[PLAYABLE[i]]}"
    if name == "maritime":
        give, get = _unpair(i)
        return f"maritime {RESOURCE_NAMES[give]} for {RESOURCE_NAMES[get]}"
    if name == "offer":
        k, p = divmod(i, _PAIRS)
        give, get = _unpair(p)
        return f"offer seat+{k + 1} {RESOURCE_NAMES[give]} for {RESOURCE_NAMES[get]}"
    if name == "steal":
        return f"steal from seat+{i + 1}"
    if name in ("monopoly", "discard", "invention"):
        return f"{name} {RESOURCE_NAMES[i]}"
    return f"{name} {i}"


def encode(obs: Observation, picked=None) -> np.ndarray:
    """The observation vector (float32[OBS_SIZE], ``OBSERVATION``) of ``obs``, with
    ``picked`` the cards its seat has picked for its pending discard or Invention."""
    v = np.zeros(OBS_SIZE, dtype=np.float32)
    o = OBS_OFFSET
    n, me = obs.n_players, obs.seat
    order = (me + np.arange(n)) % n  # seat k's index

    def seat_k(q):
        return (q - me) % n

    v[o["hex_terrain"] + 6 * _HEX + obs.hex_terrain] = 1
    num = obs.hex_number
    has = num > 0
    v[o["hex_number"] + 11 * _HEX[has] + num[has] - 2] = 1
    v[o["robber"] + obs.robber] = 1
    v[o["harbors"] + 6 * _HARBOR + obs.harbors] = 1
    owner = obs.node_owner
    has = owner >= 0
    v[o["node_pieces"] + 8 * _NODE[has] + 2 * seat_k(owner[has]) + obs.node_level[has]
      - 1] = 1
    owner = obs.edge_owner
    has = owner >= 0
    v[o["edge_roads"] + 4 * _EDGE[has] + seat_k(owner[has])] = 1
    for name in ("hand", "development_cards", "new_development_cards", "supply"):
        v[o[name] : o[name] + 5] = getattr(obs, name)
    v[o["victory_points"]] = obs.victory_points
    v[o["deck_left"]] = obs.deck_left
    v[o["seats"] : o["seats"] + n] = 1
    for name in ("hand_sizes", "development_counts", "knights", "visible_points",
                 "route_length"):
        v[o[name] : o[name] + n] = getattr(obs, name)[order]
    for name in ("known_low", "known_high"):
        v[o[name] : o[name] + 5 * n] = getattr(obs, name)[order].ravel()
    for name in ("longest_route", "largest_army"):
        q = getattr(obs, name)
        v[o[name] + (MAX_PLAYERS if q < 0 else seat_k(q))] = 1
    v[o["turn"]] = obs.turn
    if obs.to_move >= 0:
        v[o["decision"] + _DECISION_INDEX[obs.decision]] = 1
        v[o["to_move"] + seat_k(obs.to_move)] = 1
    v[o["dice_rolled"]] = obs.dice_rolled
    v[o["card_played"]] = obs.card_played
    if obs.offer is not None:
        at = o["offer"]
        v[at] = 1
        v[at + 1 : at + 6] = obs.offer.give
        v[at + 6 : at + 11] = obs.offer.get
    v[o["due"]] = obs.due
    if picked is not None:
        v[o["picked"] : o["picked"] + 5] = picked
    return v


def observation_high(rules: Rules) -> np.ndarray:
    """float32[OBS_SIZE]: the most each value of the observation can be under ``rules``."""
    cards = rules.supply_size
    value = {"1": 1, "cards": cards, "hand": N_RESOURCES * cards, "devs": N_DEV_CARDS,
             "points": (SETTLEMENTS_PER_PLAYER + 2 * CITIES_PER_PLAYER + 2 * BONUS_TILE_VP
                        + DEV_CARD_COUNTS[VICTORY_POINT]),
             "route": ROADS_PER_PLAYER, "turn": rules.max_turns}
    return np.concatenate([np.full(size, value[bound], dtype=np.float32)
                           for _, size, bound, _ in OBSERVATION])


def _markdown(rows, bounds: bool) -> str:
    at = 0
    lines = ["| offset | size | name | at most | meaning |" if bounds else
             "| offset | size | name | meaning |"]
    lines.append("| ---: | ---: | --- | --- | --- |" if bounds else "| ---: | ---: | --- | --- |")
    for name, size, *bound, meaning in rows:
        cells = [str(at), str(size), f"`{name}`", *(f"`{b}`" for b in bound), meaning]
        lines.append("| " + " | ".join(cells) + " |")
        at += size
    return "\n".join(lines)


def actions_markdown() -> str:
    """The action table of docs/envs.md."""
    return _markdown(ACTIONS, False) + f"\n\n{ACTION_SIZE} actions in all."


def observation_markdown() -> str:
    """The observation table of docs/envs.md."""
    return _markdown(OBSERVATION, True) + f"\n\n{OBS_SIZE} values in all (float32)."


class Table:
    """A ``Game`` seen through the fixed action space: the mask of the pending decision,
    an action applied, an observation vector. Both environments play through it.

    ``picked`` holds the cards the seat to move has picked for its pending discard or
    Invention; every other change of the game clears it.
    """

    def __init__(self, game: Game):
        self.game = game
        self.picked = np.zeros(N_RESOURCES, dtype=np.int64)
        self._settle()

    def _settle(self) -> None:
        """After the game moved on: no cards picked, an empty bundle applied unasked."""
        self.picked[:] = 0
        self._mask = None
        self._by_action: dict[int, Option] = {}
        self._bundles = None
        while self._pick_kind() and self._pick_bundles()[0].sum() == 0:
            self.game.step(self.game.legal_options()[0])
            self._bundles = None

    def _pick_kind(self) -> str | None:
        """``discard`` or ``invention`` while one is pending, else None."""
        return _PICK_DECISIONS.get(self.game.decision)

    def _pick_bundles(self) -> np.ndarray:
        """The legal bundles of the pending discard or Invention, one per row."""
        if self._bundles is None:
            side = "give" if self._pick_kind() == "discard" else "get"
            self._bundles = np.array([getattr(o, side) for o in self.game.legal_options()],
                                     dtype=np.int64).reshape(-1, N_RESOURCES)
        return self._bundles

    def mask(self) -> np.ndarray:
        """int8[ACTION_SIZE]: 1 exactly for the actions legal now (all 0 once over)."""
        if self._mask is None:
            m = np.zeros(ACTION_SIZE, dtype=np.int8)
            game = self.game
            kind = self._pick_kind()
            if kind:
                b = self._pick_bundles()
                holds = b[(b >= self.picked).all(axis=1)]
                off = ACTION_OFFSET[kind]
                m[off : off + N_RESOURCES] = (holds > self.picked).any(axis=0)
            elif not game.over:
                seat, n = game.to_move, game.n_players
                for option in game.legal_options():
                    i = _INDEX.get((option, seat, n))
                    if i is None:
                        i = _INDEX[option, seat, n] = option_index(option, seat, n)
                    m[i] = 1
                    self._by_action[i] = option
            self._mask = m
        return self._mask

    def option(self, action: int) -> Option | None:
        """The option a legal ``action`` stands for; None for a card picked."""
        self.mask()
        return self._by_action.get(int(action))

    def act(self, action) -> None:
        """Apply a legal action to the game (a picked card: once the bundle is whole)."""
        game = self.game
        if game.over:
            raise CatansimError("step: the game is over; allowed: reset()")
        a = action_index(action)
        if not 0 <= a < ACTION_SIZE or not self.mask()[a]:
            raise CatansimError(f"step: action {action_name(a)} is not legal for the "
                                f"pending {game.decision} of seat {game.to_move}; allowed: "
                                "an action whose action_mask is 1")
        kind = self._pick_kind()
        if kind is None:
            game.step(self._by_action[a])
            self._settle()
            return
        self.picked[a - ACTION_OFFSET[kind]] += 1
        self._mask = None
        if self.picked.sum() == self._pick_bundles()[0].sum():
            cards = tuple(int(x) for x in self.picked)
            game.step(Option(kind, give=cards) if kind == "discard" else
                      Option(kind, get=cards))
            self._settle()

    def observe(self, seat: int) -> np.ndarray:
        """The observation vector of ``seat`` (``encode``)."""
        picking = seat == self.game.to_move and self._pick_kind() is not None
        return encode(self.game.observation(seat), self.picked if picking else None)
