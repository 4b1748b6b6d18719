"""The step interface: a game of the one engine, paused at each decision of a Python seat.

What lives here: ``Game`` (``observation``, ``legal``, ``step``, ``suggest``, ``fork``,
for search players ``determinize`` and ``rollouts``, and ``Game.from_log``: the position
after an event of a game log, ``Game.from_position`` the same from a position of
``logs.position.positions``),
``Option`` (a choice in the game's words), ``Observation`` (what one seat may know),
the ``Player`` protocol, ``RandomPlayer`` and ``play_settings`` (a game of Python
players and compiled strategies, as ``play_game`` plays it). May import:
``catansim.core``, ``settings``, ``board``, ``rules``, ``strategies``,
``logs`` and the constants; never the engine's batch API (it calls this module), the
runner, datasets or analyses.

A ``Game`` runs the same compiled loop as the batch kernel (``core.loop_nb.run_nb``):
the seats listed as ``external`` pause it at each of their decisions, every other seat
is played inside it by its compiled strategy. ``step`` applies a choice and runs on to
the next external decision. So a game whose external seats always take ``suggest()`` is,
event for event, the game ``play_game`` plays for that seed.

Example::

    game = Game(7, strategies=("default",) * 4, external=[0])
    while not game.over:
        options = game.legal()
        game.step(my_choice(game.observation(game.to_move), options))
    game.winner, game.turns, game.vp
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import os
from typing import NamedTuple, Protocol, runtime_checkable

import numpy as np

from . import board as B
from .checks import check_bool, check_choice, check_instance, check_int, check_seed, is_int
from .constants import (
    BONUS_TILE_VP,
    CITIES_PER_PLAYER,
    DEV_CARD_NAMES,
    MAX_PLAYERS,
    N_DEV_CARDS,
    N_EDGES,
    N_NODES,
    N_RESOURCES,
    RESOURCE_NAMES,
    ROADS_PER_PLAYER,
    SETTLEMENTS_PER_PLAYER,
    VICTORY_POINT,
)
from .core import determinize_nb, engine_nb
from .core import layout as L
from .core.actions_nb import is_legal_action_nb
from .core.compiling import batch_kernel
from .core.phases_nb import finish_counters_nb
from .core.rng_nb import STREAM_CHANCE, shuffle_nb
from .core.rules_nb import (
    derive_piece_fields_nb,
    maritime_rate_nb,
    node_pips_nb,
    robber_for_rules_nb,
)
from .errors import CatansimError
from .logs import event_rows_to_dicts, read_log
from .logs.position import position
from .rules import Rules
from .settings import GameResult, GameSettings, settings_of
from .strategies import PRESETS, StrategySet
from .topology import TOPO

# Rows of event log a game starts with; it grows while a decision is pending, so that
# the run to the next decision (at most a round of the compiled seats' turns) fits.
_LOG_ROWS = 4096
_LOG_ROOM = 1024

_NO_CARDS = (0, 0, 0, 0, 0)
_INT32_MAX = 2**31 - 1  # the engine's numbers are int32: an option's fields fit in one


class Option(NamedTuple):
    """One choice of a pending decision, in the game's words.

    ``kind`` is one of ``KINDS``; ``target`` is the node, edge, hex, seat, card (an
    index of ``DEV_CARD_NAMES``) or resource (of ``RESOURCE_NAMES``) it names, -1 for
    none; ``give`` and ``get`` are cards (five counts, wood to ore) that leave and reach
    the deciding seat's hand. ``str(option)`` reads it out.
    """

    kind: str
    target: int = -1
    give: tuple = _NO_CARDS
    get: tuple = _NO_CARDS

    def __str__(self) -> str:
        return describe(self)


KINDS = {
    "settlement": "build (or, in the set-up, place) a settlement on node ``target``",
    "road": "build (or place, or build free with Road Building) a road on edge ``target``",
    "city": "upgrade the settlement on node ``target`` to a city",
    "buy": "buy a development card",
    "play": "play the development card ``target``",
    "roll": "roll the dice (no card before the roll)",
    "end": "end the turn",
    "maritime": "trade ``give`` to the supply for ``get``",
    "offer": "offer seat ``target`` the cards ``give`` for its cards ``get``",
    "accept": "accept the offer pending",
    "refuse": "refuse the offer pending",
    "discard": "discard ``give`` (a 7, more than the discard limit held)",
    "robber": "move the robber to hex ``target``",
    "steal": "steal a random card from seat ``target``",
    "invention": "take ``get`` from the supply (Invention)",
    "monopoly": "name resource ``target`` (Monopoly)",
}


def _cards_text(cards) -> str:
    parts = [f"{n} {RESOURCE_NAMES[r]}" for r, n in enumerate(cards) if n]
    return ", ".join(parts) if parts else "nothing"


def describe(o: Option) -> str:
    """An option in words, e.g. ``road on edge 17`` or ``offer seat 2 1 wood for 1 ore``."""
    k = o.kind
    if k in ("settlement", "city"):
        return f"{k} on node {o.target}"
    if k == "road":
        return f"road on edge {o.target}"
    if k == "play":
        return f"play {DEV_CARD_NAMES[o.target]}"
    if k == "maritime":
        return f"maritime trade {_cards_text(o.give)} for {_cards_text(o.get)}"
    if k == "offer":
        return f"offer seat {o.target} {_cards_text(o.give)} for {_cards_text(o.get)}"
    if k == "discard":
        return f"discard {_cards_text(o.give)}"
    if k == "invention":
        return f"Invention: take {_cards_text(o.get)}"
    if k == "monopoly":
        return f"Monopoly on {RESOURCE_NAMES[o.target]}"
    if k == "robber":
        return f"robber to hex {o.target}"
    if k == "steal":
        return f"steal from seat {o.target}"
    return {"buy": "buy a development card", "roll": "roll the dice", "end": "end the turn",
            "accept": "accept the offer", "refuse": "refuse the offer"}.get(k, k)


def _plain_cards(cards) -> bool:
    return cards is _NO_CARDS or (type(cards) is tuple and len(cards) == N_RESOURCES and all(
        type(n) is int and 0 <= n <= _INT32_MAX for n in cards))


def _checked_option(choice) -> Option:
    """``choice`` as the engine takes it (plain ints, five counts a bundle), or the one-line
    error naming the field: a player's option is checked before it reaches the kernels."""
    if (type(choice) is Option and type(choice.kind) is str and choice.kind in KINDS
            and type(choice.target) is int
            and -1 <= choice.target <= _INT32_MAX and _plain_cards(choice.give)
            and _plain_cards(choice.get)):
        return choice  # the options the game lists: plain already (the fast path)
    if not isinstance(choice, Option):
        raise CatansimError(f"step: {choice!r} is not an Option; allowed: one of "
                            "Game.legal()")
    if not isinstance(choice.kind, str) or choice.kind not in KINDS:
        raise CatansimError(f"step: option kind {choice.kind!r} is not allowed; allowed: "
                            f"{', '.join(KINDS)}")
    if not is_int(choice.target) or not -1 <= choice.target <= _INT32_MAX:
        raise CatansimError(f"step: option target {choice.target!r} is not allowed; allowed: "
                            "the number of a node, edge, hex, seat, card or resource, or -1")
    bundles = []
    for name in ("give", "get"):
        cards = getattr(choice, name)
        cards = tuple(cards) if isinstance(cards, tuple | list | np.ndarray) else None
        if cards is None or len(cards) != N_RESOURCES or not all(
                is_int(n) and 0 <= n <= _INT32_MAX for n in cards):
            raise CatansimError(f"step: option {name} {getattr(choice, name)!r} is not "
                                f"allowed; allowed: {N_RESOURCES} card counts, integers >= 0 "
                                f"({', '.join(RESOURCE_NAMES)})")
        bundles.append(tuple(int(n) for n in cards))
    return Option(choice.kind, int(choice.target), *bundles)


class PlayerError(CatansimError):
    """A Python player raised in ``decide`` or ``new_game``: one line naming the game's
    seed, the seat, the player and its exception, which is the ``__cause__`` (its
    traceback). ``play_game(..., debug=True)`` lets the exception itself through."""


def _call_player(what: str, fn, seed: int, seat: int, name: str, debug: bool, *args):
    """``fn(*args)``, a player's own code: an exception of it is a ``PlayerError``."""
    try:
        return fn(*args)
    except Exception as exc:
        if debug:
            raise
        text = str(exc).splitlines()[0] if str(exc) else ""
        raise PlayerError(f"game seed {seed}, seat {seat} ({name}): {what} raised "
                          f"{type(exc).__name__}" + (f": {text}" if text else "")) from exc


def _one(r: int, n: int = 1) -> tuple:
    cards = [0] * N_RESOURCES
    cards[r] = n
    return tuple(cards)


def _bundles(total: int, limits) -> list[tuple]:
    """Every way to pick ``total`` cards with at most ``limits[r]`` of resource r."""
    out: list[tuple] = []

    def walk(r, left, acc):
        if r == N_RESOURCES - 1:
            if left <= limits[r]:
                out.append((*acc, left))
            return
        for k in range(min(left, limits[r]) + 1):
            walk(r + 1, left - k, (*acc, k))

    walk(0, total, ())
    return out


# The kernel's action kinds and the option kinds, both ways.
_ACTION_KIND = {L.ACT_END: "end", L.ACT_ROAD: "road", L.ACT_SETTLEMENT: "settlement",
                L.ACT_CITY: "city", L.ACT_BUY_DEV: "buy", L.ACT_PLAY_DEV: "play",
                L.ACT_TRADE_BANK: "maritime", L.ACT_TRADE_PLAYER: "offer"}
_KIND_ACTION = {v: k for k, v in _ACTION_KIND.items()}
# The option of each packed action code (a maritime trade's rate in bits 24 and up):
# options are immutable, so every game shares them.
_PACKED: dict[int, Option] = {}


class Observation:
    """What ``seat`` may know at one moment: its own hand and development cards, the
    board, the supply, and the public record (every other hand as the interval of each
    resource the public events allow, development cards as counts). Never another
    seat's hidden cards.

    It holds a copy of the state taken when it was made and reads each attribute from
    it on first use, so a player pays only for what it looks at.

    Attributes (numpy int64 arrays)
    ----------
    seat, n_players, turn : int
        The observer, the seats playing, the turn (0 in the set-up).
    to_move : int
        The seat whose decision is pending (-1 once the game is over).
    current_player : int
        The seat whose turn it is (in the set-up: the seat placing); it makes every
        offer and moves the robber.
    rules : Rules
        The game's rule settings (points to win, discard limit, supply size, ...).
    decision : str
        The pending decision (``core.layout.DECISION_NAMES``), "" once over.
    hand : int[5]
        The observer's resource cards, wood to ore.
    development_cards, new_development_cards : int[5]
        The observer's unplayed development cards by kind (``DEV_CARD_NAMES``), and of
        them those bought this turn.
    victory_points : int
        The observer's points, its victory point cards included.
    hex_terrain, hex_number : int[19]
        The board (``constants.Terrain``; 0 for the desert's number).
    harbors : int[9]
        The harbor kinds (0-4 a resource's 2:1, 5 the generic 3:1).
    robber : int
        The robber's hex.
    node_owner, node_level : int[54]; edge_owner : int[72]
        Pieces: the seat (-1 none) and 1 settlement / 2 city.
    supply : int[5]
        Resource cards left in the supply. ``deck_left``: development cards left.
    hand_sizes, development_counts, knights, visible_points, route_length : int[n]
        Every seat's public counts.
    new_development_counts : int[n]
        Every seat's development cards bought this turn (a public count).
    development_played : int[n, 5]
        Every seat's development cards played, by kind.
    known_low, known_high : int[n, 5]
        The observer's record of every seat's hand: the cards of each resource the
        seat surely holds and may hold at most (exact for the observer's own).
    longest_route, largest_army : int
        Their holders, -1 the supply.
    dice_rolled, card_played : bool
        This turn's dice are rolled; a development card was played this turn.
    offer : Option or None
        The offer awaiting an answer (as its maker's ``offer`` option).
    due : int
        Cards a pending discard or Invention takes (0 otherwise).
    """

    FIELDS = ("seat", "n_players", "turn", "to_move", "current_player", "decision", "hand",
              "development_cards",
              "new_development_cards", "victory_points", "hex_terrain", "hex_number",
              "harbors", "robber", "node_owner", "node_level", "edge_owner", "supply",
              "deck_left", "hand_sizes", "development_counts", "new_development_counts",
              "development_played", "knights", "visible_points", "route_length", "known_low",
              "known_high", "longest_route", "largest_army", "dice_rolled", "card_played",
              "offer", "due", "rules")

    def __init__(self, s: np.ndarray, seat: int, n_players: int, offer: Option | None,
                 due: int, rules: Rules):
        self._s = s
        self.seat, self.n_players, self.offer, self.due = seat, n_players, offer, due
        self.rules = rules
        self.current_player = int(s[L.S_CUR])
        self.turn = int(s[L.S_TURN])
        pending = int(s[L.S_PENDING])
        self.to_move = int(s[L.S_PENDING_SEAT]) if pending >= 0 else -1
        self.decision = L.DECISION_NAMES[pending] if pending >= 0 else ""
        self.robber = int(s[L.S_ROBBER])
        self.longest_route, self.largest_army = int(s[L.S_LONGEST]), int(s[L.S_ARMY])
        self.dice_rolled, self.card_played = bool(s[L.S_ROLLED]), bool(s[L.S_DEV_PLAYED])
        self.deck_left = N_DEV_CARDS - int(s[L.S_DECK_POS])

    def _field(self, name: str) -> np.ndarray:
        off = L.STATE_OFFSETS[name]
        return self._s[off : off + L.STATE_LENGTHS[name]].astype(np.int64)

    def _seats(self, name: str, width: int) -> np.ndarray:
        return self._field(name).reshape(MAX_PLAYERS, width)[: self.n_players]

    @functools.cached_property
    def hand(self):
        return self._seats("hand", N_RESOURCES)[self.seat]

    @functools.cached_property
    def development_cards(self):
        return self._seats("dev_hand", 5)[self.seat]

    @functools.cached_property
    def new_development_cards(self):
        return self._seats("dev_new", 5)[self.seat]

    @functools.cached_property
    def victory_points(self):
        return int(self.visible_points[self.seat] + self.development_cards[VICTORY_POINT])

    hex_terrain = functools.cached_property(lambda self: self._field("hex_terrain"))
    hex_number = functools.cached_property(lambda self: self._field("hex_number"))
    harbors = functools.cached_property(lambda self: self._field("harbor_kind"))
    node_owner = functools.cached_property(lambda self: self._field("node_owner"))
    node_level = functools.cached_property(lambda self: self._field("node_level"))
    edge_owner = functools.cached_property(lambda self: self._field("edge_owner"))
    supply = functools.cached_property(lambda self: self._field("bank"))
    knights = functools.cached_property(lambda self: self._field("knights")[: self.n_players])
    route_length = functools.cached_property(
        lambda self: self._field("route_len")[: self.n_players])

    @functools.cached_property
    def hand_sizes(self):
        return self._seats("hand", N_RESOURCES).sum(axis=1)

    @functools.cached_property
    def development_counts(self):
        return self._seats("dev_hand", 5).sum(axis=1)

    @functools.cached_property
    def new_development_counts(self):
        return self._seats("dev_new", 5).sum(axis=1)

    @functools.cached_property
    def development_played(self):
        return self._seats("c_dev_played", 5)

    @functools.cached_property
    def visible_points(self):
        n = self.n_players
        built = (SETTLEMENTS_PER_PLAYER - self._field("settlements_left")[:n]
                 + 2 * (CITIES_PER_PLAYER - self._field("cities_left")[:n]))
        seats = np.arange(n)
        return (built + BONUS_TILE_VP * (seats == self.longest_route)
                + BONUS_TILE_VP * (seats == self.largest_army))

    def _record(self, name: str) -> np.ndarray:
        return self._field(name).reshape(MAX_PLAYERS, MAX_PLAYERS, N_RESOURCES)[
            self.seat, : self.n_players]

    @functools.cached_property
    def known_low(self):
        return self._seats("hand", N_RESOURCES) - self._record("seen_below")

    @functools.cached_property
    def known_high(self):
        return self._seats("hand", N_RESOURCES) + self._record("seen_above")

    def as_dict(self) -> dict:
        """Every attribute as plain Python values (lists for arrays): for tests and JSON."""
        out = {}
        for name in self.FIELDS:
            v = getattr(self, name)
            out[name] = (v.tolist() if isinstance(v, np.ndarray) else
                         dataclasses.asdict(v) if isinstance(v, Rules) else v)
        return out

    def __repr__(self) -> str:
        return (f"Observation(seat={self.seat}, turn={self.turn}, decision={self.decision!r}, "
                f"hand={self.hand.tolist()})")


@runtime_checkable
class Player(Protocol):
    """A player of your own: ``decide`` returns one of ``options`` (the legal choices of
    the pending decision, ``Game.legal()``), or for an action any legal ``offer``.

    A player with a ``base_strategy`` attribute (a strategy name) may also return None:
    its seat's compiled strategy, that one, then decides (``Game.suggest``), so a player
    can decide some decisions itself and leave the rest to a preset."""

    def decide(self, observation: Observation, options: list[Option]) -> Option: ...


class RandomPlayer:
    """A uniform choice among the options, from its own ``numpy`` generator (seeded
    anew for each game the engine plays, from the game's seed, the seat and ``seed``)."""

    def __init__(self, seed: int = 0):
        self.seed = seed
        self.rng = np.random.default_rng(seed)

    def new_game(self, seed: int, seat: int) -> None:
        self.rng = np.random.default_rng([seed, seat, self.seed])

    def decide(self, observation: Observation, options) -> Option:
        return options[int(self.rng.integers(len(options)))]


def _external_seats(settings: GameSettings, external) -> list[int]:
    """The seats decided from outside: those asked for and every Python player's (which
    can only decide from outside); a seat that does not play is a one-line error."""
    n = settings.n_players
    seats = sorted({int(q) for q in external} | set(settings.python_seats))
    for q in seats:
        if not 0 <= q < n:
            raise CatansimError(f"external: seat {q} does not play; allowed: 0..{n - 1}")
    return seats


def _kernels():
    batch_kernel()  # the cold compile, split over two processes where it can be
    return engine_nb, maritime_rate_nb


class Game:
    """One game, paused at each decision of its ``external`` seats.

    Parameters
    ----------
    seed : int
        The game's seed: with the same settings, the same game as ``play_game(seed)``
        while the external seats choose what their strategies would.
    strategies, n_players, layout, board, rules, openings, strategy_set
        As for ``play_game`` (or pass ``settings``, a ``GameSettings``). An external
        seat's strategy is what ``suggest`` consults for it.
    external : iterable of int
        Seats whose decisions come from ``step``.
    log : bool
        Record the events (``events``).
    to_turn : int, optional
        Wait at the end of this turn (``play_to``) instead of playing on to the first
        Python seat's decision or the end.

    ``Game.from_log(log, at=k, seed=s)`` is instead the position after event ``k`` of a
    game log (what the log cannot say drawn from ``s``); its ``at`` is the last event the
    position includes (None for a game started from its seed).
    """

    def __init__(self, seed: int, strategies=None, n_players: int = 4, layout: str = "variable",
                 board: B.Board | None = None, rules: Rules | None = None, openings=None,
                 external=(), log: bool = True, settings: GameSettings | None = None,
                 strategy_set: StrategySet = PRESETS, to_turn: int | None = None):
        self._start(seed, settings_of(settings, n_players, strategies, layout, board, rules,
                                      openings, strategy_set), external, log)
        if to_turn is None:
            self.resume()
        else:
            self.play_to(to_turn)

    def _start(self, seed: int, settings: GameSettings, external, log: bool) -> None:
        # The game of ``seed`` set up, its first placement next (nothing played yet).
        self.seed = check_seed(seed)
        log = check_bool(log, "log")
        self.settings = settings
        self.at: int | None = None
        n = settings.n_players
        seats = _external_seats(settings, external)
        self._nb, self._rate = _kernels()
        (_, self._layout, board_vec, self._openings, _, self._rules, self._strat,
         self._params) = settings.kernel_args()
        self.s = np.zeros(L.STATE_SIZE, dtype=np.int32)
        self.s[L.S_LOG_ON] = 1 if log else 0
        for q in seats:
            self.s[L.S_EXTERNAL + q] = 1
        self.log = np.zeros((_LOG_ROWS if log else 1, L.LOG_WIDTH), dtype=np.int32)
        ((self._rng, self._act, self._cand, self._mask, self._victims, self._bundle,
          self._owed, self._work), board_x, self._board, rules) = self._nb.new_scratch()
        rules[:] = self._rules  # the game's working copy: a rule switch writes into it
        self._rules = rules
        self._board[:] = board_vec
        self._options: list[Option] | None = None
        self._nb.step_start_nb(self.seed, n, self._layout, self._board, self._openings, TOPO,
                               self._rules, self.s, self._scratch(), board_x)

    @classmethod
    def from_log(cls, log, *, at: int | None = None, seed: int, strategies=None,
                 external=None, record: bool = True,
                 strategy_set: StrategySet = PRESETS) -> Game:
        """The position after event ``at`` of a game log, as a game to step, fork,
        determinize and search.

        The log is any valid log of the format (``docs/game-log.md``): a path, or the
        pair ``(header, events)`` of ``logs.read_log`` or ``logs.game_log``; ours or
        written by hand. The checker replays it up to event ``at`` (``logs.position``;
        a malformed event or a broken rule is its one-line ``LogError``, the events after
        ``at`` are not read) and its state becomes the game's: the board, pieces,
        robber, hands and supply, every seat's development cards, the tiles, the turn and
        where it stands, and each seat's public record of the others' hands. Where the
        rules make events at once after event ``at`` (the starting resources, the
        production after a roll, a Longest Route or Largest Army change, the game's end)
        the position includes them: ``game.at`` is its last event.

        What the log cannot say is drawn from ``seed``: the game's random streams are
        seeded from it, as a new game's are (the future dice, steals and each seat's
        decisions), and the undrawn development cards (the log gives how many of each
        kind are left) are shuffled from its chance stream. The player-trade offers
        refused this turn are not logged: the turn's count of offers and actions (the
        engine's bound per turn) counts those logged only, and the compiled strategies'
        memory of the turn (where their offers start asking) starts afresh. Of the result
        record
        (``core.layout``'s ``c_*`` counters) these are not rebuilt and count from the
        position on: ``FROM_LOG_UNCOUNTED``.

        Parameters
        ----------
        log : path or (dict, list of dict)
            The game log.
        at : int, optional
            The index of the event (0 the first after the header; -1 the start, before
            the first event); None: the last.
        seed : int
            The seed of what the log cannot say (above).
        strategies : str or sequence, optional
            The seats' strategies as ``Game`` takes them (what ``suggest`` and the seats
            not external play); default the header's.
        external : iterable of int, optional
            Seats whose decisions come from ``step``; default every seat, so the game
            stands at the first decision after the position (the rules' own steps
            before it, such as the next turn's start, played). Other seats are played
            by their strategies on to the first external decision, as in ``Game``.
        record : bool
            Record the events played from the position on (``events``).
        strategy_set : StrategySet
            Where the strategy names are looked up.

        Example::

            game = Game.from_log("game.jsonl", at=120, seed=1)
            game.decision, game.to_move, game.legal()
            game.determinize(game.to_move, seed=7).rollouts(...)
        """
        record = check_bool(record, "from_log: record")
        header, events = _log_pair(log)
        return cls.from_position(position(header, events, at), seed=seed,
                                 strategies=strategies, external=external, record=record,
                                 strategy_set=strategy_set)

    @classmethod
    def from_position(cls, pos, *, seed: int, strategies=None, external=None,
                      record: bool = True, strategy_set: StrategySet = PRESETS) -> Game:
        """The game of a log's position (``logs.position.Position``), as ``from_log``
        makes it (the same parameters). ``logs.position.positions`` gives the positions
        after several events of a log in one replay, where ``from_log`` replays the log
        from its start each time::

            header, events = read_log("game.jsonl")
            for pos in positions(header, events, [10, 120, 300]):
                game = Game.from_position(pos, seed=1)
        """
        record = check_bool(record, "from_log: record")
        header = pos.header
        rules = _header_rules(header)
        board = B.Board.from_header(pos.state.board)
        n = pos.state.n_players
        names = tuple(header["strategies"]) if strategies is None else strategies
        try:
            settings = GameSettings(n_players=n, strategies=names, layout="given",
                                    board=board, rules=rules, strategy_set=strategy_set)
        except CatansimError as exc:
            if strategies is not None:
                raise
            raise CatansimError(f"from_log: the header's {exc} (or pass strategies=..., "
                                "the seats' strategies)") from None
        game = cls.__new__(cls)
        game._start(seed, settings, range(n) if external is None else external, record)
        _write_position(game, pos)
        game.at = pos.at
        game.resume()
        return game

    # --- where the game stands ------------------------------------------------------

    @property
    def n_players(self) -> int:
        return self.settings.n_players

    @property
    def over(self) -> bool:
        return int(self.s[L.S_PHASE]) == L.PH_OVER

    @property
    def waiting(self) -> bool:
        """The game waits at the end of a turn (``play_to``) with no decision pending;
        ``resume()`` plays on."""
        return int(self.s[L.S_PENDING]) == L.D_NONE and not self.over

    @property
    def to_move(self) -> int:
        """The seat whose decision is pending; -1 once the game is over."""
        return int(self.s[L.S_PENDING_SEAT]) if self.s[L.S_PENDING] >= 0 else -1

    @property
    def decision(self) -> str:
        """The pending decision's name (``core.layout.DECISION_NAMES``); "" once over."""
        d = int(self.s[L.S_PENDING])
        return L.DECISION_NAMES[d] if d >= 0 else ""

    @property
    def rules(self) -> Rules:
        return self.settings.rules

    @property
    def winner(self) -> int | None:
        self._need_over("winner")
        w = int(self.s[L.S_WINNER])
        return None if w < 0 else w

    @property
    def turns(self) -> int:
        self._need_over("turns")
        return int(self.s[L.S_TURN])

    @property
    def vp(self) -> list[int]:
        self._need_over("vp")
        return [int(v) for v in self.s[L.C_VP : L.C_VP + self.n_players]]

    @property
    def events(self) -> list[dict]:
        """The events so far, as the game-log format's objects (``catansim.logs``)."""
        return event_rows_to_dicts(self.log[: self.s[L.S_LOG_LEN]], self.n_players)

    def result(self) -> GameResult:
        """The finished game as ``play_game`` returns it."""
        self._need_over("result()")
        played = (self.settings.board if self._layout == L.LAYOUT_GIVEN else
                  B.Board.from_vector(self._board.copy(), layout=self.settings.layout,
                                      seed=self.seed))
        events = self.log[: self.s[L.S_LOG_LEN]].copy() if self.s[L.S_LOG_ON] else None
        return GameResult(seed=self.seed, settings=self.settings, board=played,
                          state=self.s.copy(), events=events)

    def _need_over(self, what: str) -> None:
        if not self.over:
            raise CatansimError(f"{what}: the game is not over (pending: {self.decision} of "
                                f"seat {self.to_move})")

    # --- what a seat may know ---------------------------------------------------------

    def observation(self, seat: int) -> Observation:
        """What ``seat`` may know now (``Observation``): never another seat's hidden cards."""
        return _observe(self._nb, self.s, self._rules, self._mask, self._victims,
                        self._cand, self._act, seat, self.settings)

    # --- the pending decision ---------------------------------------------------------

    def _options_raw(self) -> np.ndarray:
        k = self._nb.step_options_nb(self.s, TOPO, self._rules, self._mask, self._victims,
                                     self._cand)
        return self._cand[:k]

    def legal(self) -> list[Option]:
        """The legal options of the pending decision (a new list; [] once over). Player
        trades are listed one card for one; ``step`` takes any legal offer."""
        return list(self.legal_options())

    def legal_options(self) -> tuple[Option, ...]:
        """``legal()`` as the tuple the game keeps (no copy: for fast players)."""
        if self._options is None:
            self._options = tuple(self._list_options())
        return self._options

    def _list_options(self) -> list[Option]:
        d = int(self.s[L.S_PENDING])
        if d == L.D_NONE:
            return []
        raw = [int(x) for x in self._options_raw()]
        q = self.to_move
        if d == L.D_ACTION:
            return [self._packed_option(code, q) for code in raw]
        if d == L.D_PRE_ROLL:
            return [Option("roll") if c < 0 else Option("play", c) for c in raw]
        if d == L.D_ANSWER:
            return [Option("accept"), Option("refuse")]
        if d == L.D_DISCARD:
            hand = self.s[L.S_HAND + 5 * q : L.S_HAND + 5 * q + 5]
            return [Option("discard", give=b) for b in _bundles(raw[0], hand)]
        if d == L.D_INVENTION:
            supply = self.s[L.S_BANK : L.S_BANK + 5]
            return [Option("invention", get=b) for b in _bundles(raw[0], supply)]
        kind = {L.D_SETUP_SETTLEMENT: "settlement", L.D_SETUP_ROAD: "road",
                L.D_FREE_ROAD: "road", L.D_ROBBER_HEX: "robber", L.D_VICTIM: "steal",
                L.D_MONOPOLY: "monopoly"}[d]
        return [Option(kind, x) for x in raw]

    def _packed_option(self, code: int, q: int) -> Option:
        kind, a, b = code >> 16, (code >> 8) & 255, code & 255
        if kind == L.ACT_TRADE_BANK:
            code |= int(self._rate(self.s, q, a)) << 24
        o = _PACKED.get(code)
        if o is None:
            if kind == L.ACT_TRADE_BANK:
                o = Option("maritime", give=_one(a, code >> 24), get=_one(b))
            elif kind == L.ACT_TRADE_PLAYER:
                o = Option("offer", a, give=_one(b // 5), get=_one(b % 5))
            else:
                name = _ACTION_KIND[kind]
                o = Option(name, a if name in ("road", "settlement", "city", "play") else -1)
            _PACKED[code] = o
        return o

    def _action_option(self, act) -> Option:
        kind = int(act[L.ACT_KIND])
        a, b = int(act[L.ACT_A]), int(act[L.ACT_B])
        if kind == L.ACT_TRADE_BANK:
            q = int(self.s[L.S_CUR])
            return Option("maritime", give=_one(a, int(self._rate(self.s, q, a))), get=_one(b))
        if kind == L.ACT_TRADE_PLAYER:
            return _act_offer(act)
        name = _ACTION_KIND[kind]
        return Option(name, a if name in ("road", "settlement", "city", "play") else -1)

    def suggest(self, seat: int | None = None) -> Option:
        """What the seat's compiled strategy chooses for the pending decision. It draws
        from that seat's own random stream as the batch kernel would, so a seat that
        always takes the suggestion plays the kernel's game."""
        if self.over or self.waiting:
            raise CatansimError("suggest: no decision is pending")
        if seat is not None and seat != self.to_move:
            raise CatansimError(f"suggest: seat {seat} has no decision pending; allowed: "
                                f"{self.to_move} (pending: {self.decision})")
        d = int(self.s[L.S_PENDING])
        v = int(self._nb.step_suggest_nb(self.s, TOPO, self._rules, self._strat, self._params,
                                         self._scratch()))
        if d == L.D_ACTION:
            return self._action_option(self._act)
        if d == L.D_PRE_ROLL:
            return Option("roll") if v < 0 else Option("play", v)
        if d == L.D_ANSWER:
            return Option("accept" if v else "refuse")
        if d == L.D_DISCARD:
            return Option("discard", give=tuple(int(x) for x in self._bundle))
        if d == L.D_INVENTION:
            return Option("invention", get=tuple(int(x) for x in self._bundle))
        kind = {L.D_SETUP_SETTLEMENT: "settlement", L.D_SETUP_ROAD: "road",
                L.D_FREE_ROAD: "road", L.D_ROBBER_HEX: "robber", L.D_VICTIM: "steal",
                L.D_MONOPOLY: "monopoly"}[d]
        return Option(kind, v)

    def step(self, choice: Option) -> None:
        """Apply ``choice`` (one of ``legal()``, or for an action any legal offer) for
        the pending decision, and play on to the next decision of an external seat."""
        if self.over:
            raise CatansimError("step: the game is over")
        if self.waiting:
            raise CatansimError("step: no decision is pending (the game waits at the end of "
                                f"turn {int(self.s[L.S_TURN])}); resume() plays on")
        choice = _checked_option(choice)
        d = int(self.s[L.S_PENDING])
        value = 0
        if d == L.D_ACTION and choice.kind == "offer":
            self._encode_action(choice)
            if not is_legal_action_nb(self.s, TOPO, self._rules, int(self.s[L.S_CUR]),
                                      self._act):
                raise CatansimError(f"step: {choice} is not a legal offer now; allowed: a "
                                    "partner that plays, at least one card each way, no "
                                    "resource on both sides, cards you hold, offers left")
        else:
            if choice not in self.legal_options():
                raise CatansimError(f"step: {choice} is not legal for the pending "
                                    f"{self.decision} of seat {self.to_move}; allowed: one "
                                    "of Game.legal()")
            if d == L.D_ACTION:
                self._encode_action(choice)
            elif d == L.D_DISCARD:
                self._bundle[:] = choice.give
            elif d == L.D_INVENTION:
                self._bundle[:] = choice.get
            elif d == L.D_ANSWER:
                value = 1 if choice.kind == "accept" else 0
            elif choice.kind != "roll":
                value = choice.target
            else:
                value = -1
        self._grow_log()
        out = self._nb.step_resolve_nb(*self._run_args(), value)
        self._settled(out)

    def _encode_action(self, o: Option) -> None:
        act = self._act
        act[:] = 0
        act[L.ACT_KIND] = _KIND_ACTION[o.kind]
        if o.kind == "maritime":
            act[L.ACT_A] = int(np.argmax(o.give))
            act[L.ACT_B] = int(np.argmax(o.get))
        elif o.kind == "offer":
            act[L.ACT_A] = o.target
            act[L.ACT_GIVE : L.ACT_GIVE + 5] = o.give
            act[L.ACT_RECEIVE : L.ACT_RECEIVE + 5] = o.get
        elif o.target >= 0:
            act[L.ACT_A] = o.target

    def _grow_log(self) -> None:
        if not self.s[L.S_LOG_ON]:
            return
        if self.log.shape[0] - int(self.s[L.S_LOG_LEN]) < _LOG_ROOM:
            self.log = np.concatenate([self.log, np.zeros_like(self.log)])

    def _settled(self, d: int) -> None:
        self._options = None
        if self.s[L.S_LOG_OVERFLOW]:
            raise CatansimError(f"game {self.seed}: the event log overflowed between two "
                                "decisions; play it with log=False or report this")
        assert d == int(self.s[L.S_PENDING]) or (d == L.D_UNTIL and self.waiting)

    # --- branching ----------------------------------------------------------------------

    def play_to(self, turn: int) -> Game:
        """Play on (the compiled seats, and nothing else) until turn ``turn`` is over; the
        game then waits there, unless a Python seat's decision comes first or the game
        ends. Fork it and ``resume()`` each copy to continue from the same state, on the
        same dice. Returns the game."""
        turn = check_int(turn, "turn", 1, None, "a turn number >= 1")
        if self.s[L.S_PENDING] >= 0:
            raise CatansimError(f"play_to: a decision is pending ({self.decision} of seat "
                                f"{self.to_move}); step it first")
        now = int(self.s[L.S_TURN])
        if self.waiting and turn < now:
            raise CatansimError(f"play_to: turn {turn} is over (the game waits at the end of "
                                f"turn {now}); allowed: a turn >= {now}")
        if not self.over:
            self._grow_log()
            self._settled(self._nb.step_to_turn_nb(*self._run_args(), turn))
        return self

    def resume(self) -> Game:
        """Play on from where the game waits (``play_to``) to the next Python seat's
        decision or the end. Returns the game."""
        if self.waiting:
            self._grow_log()
            self._settled(self._nb.step_run_nb(*self._run_args()))
        return self

    def _scratch(self) -> tuple:
        # the game's scratch arrays as run_nb takes them (engine_nb.play_scratch); made
        # at each call, as fork copies the arrays one by one
        return (self._rng, self._act, self._cand, self._mask, self._victims, self._bundle,
                self._owed, self._work)

    def _run_args(self) -> tuple:
        return (self.s, TOPO, self._rules, self._strat, self._params, self._openings,
                self.log, self._scratch())

    def fork(self, rules: Rules | None = None) -> Game:
        """An independent copy of the game as it stands; with ``rules``, the copy plays on
        under those rules (the settings ``rules.FIXED``, of the set-up and the supply size,
        must stay as they were), as a rule switch would: the robber turned off rests on
        the desert."""
        other = copy.copy(self)
        for name, v in vars(self).items():
            if isinstance(v, np.ndarray):
                setattr(other, name, v.copy())
        other._options = None
        if rules is not None:
            check_instance(rules, "rules", Rules, "a catansim.Rules")
            self.rules.at_turn(int(self.s[L.S_TURN])).check_mid_game(rules, "fork")
            players = dict(self.settings.players)  # the same player objects, not new ones
            seats = tuple(players.get(q, name) for q, name in enumerate(self.settings.strategies))
            other.settings = GameSettings(
                n_players=self.n_players, strategies=seats,
                layout=self.settings.layout, board=self.settings.board, rules=rules,
                openings=self.settings.openings, strategy_set=self.settings.strategy_set)
            if rules.robber == "off" and int(self.s[L.S_PHASE]) in (L.PH_ROBBER_HEX,
                                                                    L.PH_VICTIM):
                raise CatansimError("fork: rule robber: cannot turn off while the robber "
                                    "moves; allowed: a fork before the 7 or knight, or "
                                    "after its steal")
            other._rules[:] = rules.to_array()
            robber_for_rules_nb(other.s, other._rules)
        return other

    def determinize(self, seat: int, seed: int) -> Game:
        """A fork in which what ``seat`` cannot see is dealt anew, drawn from ``seed``:
        the opponents' resource cards (within the seat's record, each hand's size and
        what the supply leaves), their unplayed development cards and the undrawn deck
        (from the cards the seat has not seen), and every random stream (the future
        dice, deck and steals) reseeded; the record of every other seat becomes the
        seat's own. The seat's cards, its record and the board are as they were. Every
        deal that fits is equally likely, cards told apart (``core.determinize_nb``);
        the same seed and what the seat knows give the same fork. The fork keeps no
        events (they would say what the seat did not see), and plays on under the rules
        in force, a pending switch left out: the players are not told of a switch."""
        n = self.n_players
        seat = check_int(seat, "determinize: seat", 0, n - 1, f"a seat in 0..{n - 1}")
        seed = check_seed(seed)
        if self.over:
            raise CatansimError("determinize: the game is over")
        plan, table = self.deal_plan(seat)
        other = self.fork()
        other.log = np.zeros((1, L.LOG_WIDTH), dtype=np.int32)
        other._rules[:] = self._rules_in_force()
        other.settings = dataclasses.replace(
            self.settings, rules=self.rules.at_turn(int(self.s[L.S_TURN])))
        determinize_nb.redeal_nb(other.s, other._rules, other._rng, seat, seed, plan, table)
        return other

    def _rules_in_force(self) -> np.ndarray:
        """The kernel's rules array of the rules this turn is played under, with no
        switch pending: what a seat may know of the rules. A switch is the
        experimenter's change, not announced to the players, so that a switched game
        is the unswitched one up to the switch turn whoever plays it
        (docs/experiments.md)."""
        rules = self._rules.copy()
        rules[L.R_SWITCH_TURN] = -1
        return rules

    def rollouts(self, seat: int, choices, seeds, strategies, information: str = "public",
                 strategy_set: StrategySet = PRESETS) -> np.ndarray:
        """Play one game on from here for each pair ``choices[j]``, ``seeds[j]``, in one
        compiled call: ``determinize(seat, seeds[j])`` (with ``information="omniscient"``
        the true position, only its random streams reseeded from ``seeds[j]``), option
        ``choices[j]`` of the pending decision taken (an index of ``legal_options()``;
        -1: the seat's strategy of ``strategies`` decides), then every seat played to the
        end by its compiled strategy ``strategies`` (names of ``strategy_set``, one per
        seat or one for all). Each plays on under the rules in force, a pending switch
        left out, as in ``determinize``. Returns the games' counters (int32[len(seeds),
        N_COUNTERS]; ``core.layout.counter`` reads them)."""
        n = self.n_players
        seat = check_int(seat, "rollouts: seat", 0, n - 1, f"a seat in 0..{n - 1}")
        if self.over or self.waiting:
            raise CatansimError("rollouts: no decision is pending")
        information = check_choice(information, "rollouts: information",
                                   ("public", "omniscient"))
        seeds = np.ascontiguousarray(seeds, dtype=np.int64)
        choices = np.ascontiguousarray(choices, dtype=np.int64)
        if seeds.ndim != 1 or choices.shape != seeds.shape:
            raise CatansimError(f"rollouts: {choices.shape} choices for {seeds.shape} seeds; "
                                "allowed: one choice per seed")
        k = len(self.legal_options())
        if seeds.size and (choices.min() < -1 or choices.max() >= k):
            raise CatansimError(f"rollouts: a choice is out of range; allowed: -1..{k - 1}")
        if seeds.size and (seeds.min() < 0):
            raise CatansimError("rollouts: a seed is negative; allowed: 0 <= seed < 2**63")
        names = [strategy_set.compiled(x, "rollouts: strategies")
                 for x in strategy_set.seat_names(strategies, n, "rollouts: strategies")]
        strat, params = strategy_set.seat_arrays([x.name for x in names])
        omniscient = information == "omniscient"
        if omniscient:
            plan = np.zeros(determinize_nb.PLAN_SIZE, dtype=np.int32)
            table = np.zeros(1, dtype=np.float64)
        else:
            plan, table = self.deal_plan(seat)
        out = np.zeros((seeds.size, L.N_COUNTERS), dtype=np.int32)
        self._nb.rollouts_nb(self.s, TOPO, self._rules_in_force(), self._scratch(),
                             self._openings, seat,
                             omniscient, plan, table, choices, seeds,
                             strat, params, np.zeros(L.STATE_SIZE, dtype=np.int32),
                             np.zeros((1, L.LOG_WIDTH), dtype=np.int32),
                             self._nb.new_scratch(), out)
        return out

    def deal_plan(self, seat: int) -> tuple[np.ndarray, np.ndarray]:
        """What ``seat`` knows of the cards it cannot see (``determinize_nb.hidden_plan_nb``)
        and the table of its deals' weights (``deal_table_nb``): the same for every
        determinization of this position for this seat."""
        plan = np.zeros(determinize_nb.PLAN_SIZE, dtype=np.int32)
        size = determinize_nb.hidden_plan_nb(self.s, self._rules, self._act, seat, plan)
        table = np.zeros(size, dtype=np.float64)
        if determinize_nb.deal_table_nb(plan, table) <= 0.0:
            raise CatansimError(f"determinize: no deal of the hidden cards fits seat {seat}'s "
                                "record, the hand sizes and the supply (a position made by "
                                "hand?); allowed: a position the game reached")
        return plan, table

    def __repr__(self) -> str:
        where = ("over" if self.over else "waiting" if self.waiting else
                 f"{self.decision} of seat {self.to_move}")
        return (f"Game(seed={self.seed}, turn={int(self.s[L.S_TURN])}, {where}, "
                f"strategies={self.settings.strategies})")


def play_settings(seed: int, settings: GameSettings, log: bool = True,
                  external=(), debug: bool = False) -> GameResult:
    """Play the game of ``seed`` under ``settings``: its Python players
    (``settings.players``) decide in Python, every other seat in the kernel. A player
    with a ``new_game(seed, seat)`` method is told of each game first (to seed itself:
    then a game depends only on its seed and the settings), one with a ``watch(game)``
    method is given the ``Game`` (a search player plays its rollouts in it); one with a
    ``base_strategy`` that returns None gets that strategy's choice. A player that raises is a
    ``PlayerError`` (with ``debug``: its exception as it is)."""
    players = dict(settings.players)
    names = settings.strategies
    for seat, player in players.items():
        start = getattr(player, "new_game", None)
        if callable(start):
            _call_player("new_game", start, seed, seat, names[seat], debug, seed, seat)
    game = Game(seed, settings=settings, external=set(players) | set(external), log=log)
    for seat, player in players.items():
        watch = getattr(player, "watch", None)
        if callable(watch):
            _call_player("watch", watch, seed, seat, names[seat], debug, game)
    while not game.over:
        q = game.to_move
        choice = _call_player("decide", players[q].decide, seed, q, names[q], debug,
                              game.observation(q), game.legal_options())
        if choice is None and getattr(players[q], "base_strategy", None) is not None:
            choice = game.suggest(q)  # left to the seat's compiled strategy
        try:
            game.step(choice)
        except CatansimError as e:
            raise CatansimError(f"game {seed}, seat {q} ({settings.strategies[q]}): "
                                f"{e}") from None
    return game.result()


class GameBatch:
    """Many games in lockstep, each paused at its Python seats' decisions: for policies
    that decide for all games at once (numpy, a learned policy on a batch), with one
    compiled call a step for the whole batch.

    The games are those ``Game`` plays for the same seeds and settings: option ``i`` of
    game ``g`` is ``Game.legal()[i]`` of that game, in the same order.

    Parameters
    ----------
    seeds : sequence of int
        One game per seed.
    strategies, n_players, layout, board, rules, openings, strategy_set, settings
        As for ``Game``.
    external : iterable of int
        The seats whose decisions come from ``choose``.

    Attributes
    ----------
    counts : int64[n]
        How many options each game's pending decision has (0: the game is over).
    """

    def __init__(self, seeds, strategies=None, n_players: int = 4, layout: str = "variable",
                 board: B.Board | None = None, rules: Rules | None = None, openings=None,
                 external=(), settings: GameSettings | None = None,
                 strategy_set: StrategySet = PRESETS):
        seeds = [check_seed(x) for x in seeds]
        self.settings = settings = settings_of(settings, n_players, strategies, layout, board,
                                               rules, openings, strategy_set)
        if settings.players:  # choose() would decide for it: it would never be asked
            seat = settings.python_seats[0]
            raise CatansimError(f"strategies[{seat}]: {settings.strategies[seat]} is a Python "
                                "player, which a GameBatch never asks (choose() decides for "
                                "every external seat); allowed: compiled strategies, with the "
                                "seats choose() decides in external")
        n = settings.n_players
        seats = _external_seats(settings, external)
        self._nb, _ = _kernels()
        (_, layout_code, board_vec, self._openings, _, self._rules, self._strat,
         self._params) = settings.kernel_args()
        self.seeds = np.array(seeds, dtype=np.int64)
        g = len(seeds)
        one = self._nb.new_scratch()
        self._rules = np.ascontiguousarray(np.tile(self._rules, (g, 1)))  # each game's own
        self.states = np.zeros((g, L.STATE_SIZE), dtype=np.int32)
        for q in seats:
            self.states[:, L.S_EXTERNAL + q] = 1
        self._log = np.zeros((1, L.LOG_WIDTH), dtype=np.int32)  # the games are not logged
        (self._rngs, self._acts, self._cands, self._masks, self._victims, self._bundles,
         self._owed, self._works) = (np.zeros((g, *a.shape), dtype=a.dtype) for a in one[0])
        self.boards = np.zeros((g, L.BOARD_SIZE), dtype=np.int32)
        self.counts = np.zeros(g, dtype=np.int64)
        self._nb.batch_start_nb(self.seeds, n, layout_code, board_vec, self._openings, TOPO,
                                self._rules, self._strat, self._params, self.states,
                                self._log, self._rngs, self._acts, self._cands, self._masks,
                                self._victims, self._bundles, self._owed, self._works, one[1],
                                self.boards, self.counts)

    def __len__(self) -> int:
        return len(self.seeds)

    @property
    def over(self) -> bool:
        """Every game is over."""
        return not self.counts.any()

    @property
    def to_move(self) -> np.ndarray:
        """Each game's seat with a decision pending (-1: over)."""
        return np.where(self.counts > 0, self.states[:, L.S_PENDING_SEAT], -1)

    @property
    def decisions(self) -> np.ndarray:
        """Each game's pending decision (``D_*`` codes, ``DECISION_NAMES``; -1: over)."""
        return np.where(self.counts > 0, self.states[:, L.S_PENDING], L.D_NONE)

    def choose(self, choice) -> None:
        """Take option ``choice[g]`` of each game g (an index below ``counts[g]``; -1 or
        a game that is over: nothing) and play each on to its next external decision."""
        choice = np.asarray(choice)
        if choice.shape != self.counts.shape or (choice.size and choice.dtype.kind not in "iu"):
            raise CatansimError(f"choose: expected {len(self)} integer indices, got "
                                f"{choice.shape} {choice.dtype}; allowed: 0..counts[g] - 1, "
                                "or -1 to leave a game")
        choice = np.ascontiguousarray(choice, dtype=np.int64)
        bad = (choice >= self.counts) & (choice >= 0) | (choice < -1)
        if bad.any():
            g = int(np.flatnonzero(bad)[0])
            raise CatansimError(f"choose: game {g} has {self.counts[g]} options, index "
                                f"{choice[g]} is out of range; allowed: 0.."
                                f"{self.counts[g] - 1}, or -1")
        self._nb.batch_choose_nb(choice, TOPO, self._rules, self._strat, self._params,
                                 self._openings, self.states, self._log, self._rngs,
                                 self._acts, self._cands, self._masks, self._victims,
                                 self._bundles, self._owed, self._works, self.counts)

    def observation(self, g: int, seat: int) -> Observation:
        """What ``seat`` may know in game ``g``."""
        g = check_int(g, "observation: game", 0, len(self) - 1,
                      f"a game index in 0..{len(self) - 1}")
        return _observe(self._nb, self.states[g], self._rules[g], self._masks[g],
                        self._victims[g], self._cands[g], self._acts[g], seat, self.settings)

    @property
    def counters(self) -> np.ndarray:
        """Each game's result record (int32[n, N_COUNTERS]; final once it is over)."""
        return self.states[:, L.S_COUNTERS:]


def _act_offer(act) -> Option:
    give = tuple(int(x) for x in act[L.ACT_GIVE : L.ACT_GIVE + 5])
    get = tuple(int(x) for x in act[L.ACT_RECEIVE : L.ACT_RECEIVE + 5])
    return Option("offer", int(act[L.ACT_A]), give=give, get=get)


def _observe(nb, s, rules, mask, victims, cand, act, seat, settings) -> Observation:
    """What ``seat`` may know in the game of state ``s`` (a copy), with the pending offer
    (from ``act``) or the cards due (from the options' list, into ``cand``)."""
    n = settings.n_players
    if not is_int(seat) or not 0 <= seat < n:
        raise CatansimError(f"observation: seat {seat!r} does not play; allowed: 0..{n - 1}")
    d = int(s[L.S_PENDING])
    offer = _act_offer(act) if d == L.D_ANSWER else None
    due = 0
    if d in (L.D_DISCARD, L.D_INVENTION):
        nb.step_options_nb(s, TOPO, rules, mask, victims, cand)
        due = int(cand[0])
    return Observation(s.copy(), int(seat), n, offer, due,
                       settings.rules.at_turn(int(s[L.S_TURN])))


# --- a position of a game log (Game.from_log) ---------------------------------------------

# Counters of the result record a log position does not rebuild (they count from the
# position on): what a log cannot say, the offers made (refused ones are not logged), the
# illegal choices and the invariant checker's count.
FROM_LOG_UNCOUNTED = ("c_offers", "c_illegal", "c_violations")

_DEV_RETURN = {None: 0, "pre_roll": L.PH_PRE_ROLL_DONE, "main": L.PH_ACTION_DONE}
_ROBBER_RETURN = {None: 0, "seven": L.PH_AFTER_ROLL, "pre_roll": L.PH_PRE_ROLL_DONE,
                  "main": L.PH_ACTION_DONE}
# Events that are actions of the turn's player (each one of the engine's per-turn count).
_ACTION_EVENTS = ("trade_bank", "trade_player", "build_road", "build_settlement",
                  "build_city", "buy_dev", "play_dev")


def _log_pair(log) -> tuple[dict, list]:
    """``log`` as (header, events): read from a path, or the pair itself."""
    if isinstance(log, tuple) and len(log) == 2 and isinstance(log[0], dict):
        return log[0], list(log[1])
    if isinstance(log, str | os.PathLike):
        return read_log(log)
    raise CatansimError(f"from_log: log {type(log).__name__} is not allowed; allowed: a path "
                        "of a game log, or its (header, events)")


def _header_rules(header: dict) -> Rules:
    """The rules a log's header gives (checked by the checker already)."""
    rules = Rules.from_mapping(header["rules"], "header.rules")
    if header.get("switch_turn") is not None:
        rules = rules.switched(header["switch_turn"], **header["rules_after"])
    return rules


def _phase_of(pos) -> int:
    """The engine's phase where the position stands (nothing pending)."""
    ph = pos.phase
    if ph == "over":
        return L.PH_OVER
    if ph == "setup":
        return L.PH_SETUP_ROAD if pos.setup_road_due else L.PH_SETUP_SETTLEMENT
    if ph == "between":
        return L.PH_TURN_START if pos.turn == 0 else L.PH_TURN_DONE
    if ph == "discard":
        return L.PH_DISCARD
    if ph == "robber" or pos.knight_robber_due:
        return L.PH_ROBBER_HEX
    if pos.free_roads is not None:
        return L.PH_FREE_ROAD
    if ph == "pre_roll":
        return L.PH_PRE_ROLL_DONE if pos.dev_played else L.PH_PRE_ROLL
    return L.PH_AFTER_ROLL if pos.after_roll else L.PH_ACTION_DONE


def _turn_events(pos) -> list[dict]:
    """The events of the turn the position stands in (from its ``turn_start``)."""
    start = max((i for i, ev in enumerate(pos.events) if ev["e"] == "turn_start"),
                default=len(pos.events))
    return pos.events[start:]


def _write_position(game: Game, pos) -> None:
    """Make ``game``'s state (a new game of the log's board and rules) the position
    ``pos`` (``logs.position``): every field the log determines, and what it cannot
    say from the game's random streams."""
    s, st, n = game.s, pos.state, pos.state.n_players
    rules = game._rules
    switch = int(rules[L.R_SWITCH_TURN])
    if switch >= 0 and (pos.turn > switch or (pos.phase == "over" and pos.turn >= switch)):
        rules[: L.R_SWITCH_TURN] = rules[L.R_AFTER:]  # the rule switch is behind
    phase = _phase_of(pos)
    s[L.S_PHASE] = phase
    s[L.S_TURN] = 1 if phase == L.PH_TURN_START else pos.turn
    if pos.phase == "setup":
        i = pos.setup_placements
        first = int(rules[L.R_FIRST_PICK])
        s[L.S_CUR] = (first + (i if i < n else 2 * n - 1 - i)) % n
    else:
        s[L.S_CUR] = rules[L.R_FIRST_TURN] if phase == L.PH_TURN_START else pos.active
    s[L.S_STEP] = pos.discards_due[0] if phase == L.PH_DISCARD else pos.count
    s[L.S_DEV_RETURN] = _DEV_RETURN[pos.last_card]
    s[L.S_ROBBER_RETURN] = _ROBBER_RETURN[pos.last_robber]
    if phase == L.PH_ROBBER_HEX:  # the move pending returns where its 7 or knight leads
        s[L.S_ROBBER_RETURN] = (L.PH_AFTER_ROLL if pos.phase == "robber"
                                else _DEV_RETURN[pos.last_card])
    s[L.S_ROBBER] = st.robber
    s[L.S_WINNER] = -1 if st.winner is None else st.winner
    s[L.S_END] = {None: L.END_RUNNING, "win": L.END_WIN, "turn_limit": L.END_TURN_LIMIT}[
        st.reason]
    s[L.S_DEV_PLAYED] = pos.dev_played
    s[L.S_ROLLED] = pos.rolled and phase != L.PH_AFTER_ROLL
    s[L.S_LONGEST] = -1 if st.longest_route is None else st.longest_route
    s[L.S_ARMY] = -1 if st.largest_army is None else st.largest_army
    turn = _turn_events(pos) if pos.turn > 0 else []
    s[L.S_ACTIONS] = _turn_actions(turn)
    s[L.S_OFFERS] = sum(ev["e"] == "trade_player" for ev in turn)
    # the deck: the cards drawn in their order, the rest shuffled from the chance stream
    deck = s[L.S_DECK : L.S_DECK + N_DEV_CARDS]
    drawn = len(pos.drawn)
    deck[:drawn] = pos.drawn
    deck[drawn:] = [c for c, k in enumerate(pos.deck_left) for _ in range(k)]
    shuffle_nb(game._rng, STREAM_CHANCE, deck[drawn:], N_DEV_CARDS - drawn)
    s[L.S_DECK_POS] = drawn
    # the pieces and what the engine derives from them
    s[L.S_NODE_OWNER : L.S_NODE_OWNER + N_NODES] = st.node_owner
    s[L.S_NODE_LEVEL : L.S_NODE_LEVEL + N_NODES] = st.node_level
    s[L.S_EDGE_OWNER : L.S_EDGE_OWNER + N_EDGES] = st.edge_owner
    derive_piece_fields_nb(s, TOPO)
    owner, level = np.array(st.node_owner), np.array(st.node_level)
    for q in range(n):
        s[L.S_SETTLEMENTS_LEFT + q] = SETTLEMENTS_PER_PLAYER - int(np.sum((owner == q)
                                                                         & (level == 1)))
        s[L.S_CITIES_LEFT + q] = CITIES_PER_PLAYER - int(np.sum((owner == q) & (level == 2)))
        s[L.S_ROADS_LEFT + q] = ROADS_PER_PLAYER - st.edge_owner.count(q)
        for node in np.flatnonzero(owner == q):
            kind = int(s[L.S_NODE_HARBOR + node])
            if kind >= 0:
                s[L.S_HARBORS + 6 * q + kind] = 1
        s[L.S_ROUTE_LEN + q] = 0 if pos.phase == "setup" else st.route_lengths[q]
        s[L.S_KNIGHTS + q] = st.knights[q]
        s[L.S_HAND + 5 * q : L.S_HAND + 5 * q + 5] = st.hands[q]
        s[L.S_DEV_HAND + 5 * q : L.S_DEV_HAND + 5 * q + 5] = [st.dev_cards[q][c]
                                                              for c in DEV_CARD_NAMES]
        new = ([0] * 5 if pos.phase == "between" or st.reason == "turn_limit"
               else [pos.dev_new[q][c] for c in DEV_CARD_NAMES])
        s[L.S_DEV_NEW + 5 * q : L.S_DEV_NEW + 5 * q + 5] = new
    held = np.array(st.hands).sum(axis=0)
    s[L.S_BANK : L.S_BANK + 5] = int(rules[L.R_BANK]) - held
    # the public record: its ends as distances from the hands
    for o in range(MAX_PLAYERS):
        for q in range(n):
            i = (MAX_PLAYERS * o + q) * N_RESOURCES
            hand = np.array(st.hands[q])
            s[L.S_SEEN_BELOW + i : L.S_SEEN_BELOW + i + 5] = hand - pos.record_low[o][q]
            s[L.S_SEEN_ABOVE + i : L.S_SEEN_ABOVE + i + 5] = np.array(pos.record_high[o][q]
                                                                      ) - hand
    _write_counters(s, pos)
    if phase == L.PH_OVER:
        finish_counters_nb(s)


def _turn_actions(turn: list[dict]) -> int:
    """The actions of the turn's events (the engine's count per turn): those after the
    roll, a free road not one, and the end of the turn."""
    rolled, k = False, 0
    for ev in turn:
        e = ev["e"]
        if e == "roll":
            rolled = True
        elif e == "turn_end" or (rolled and e in _ACTION_EVENTS and not ev.get("free")):
            k += 1
    return k


def _write_counters(s: np.ndarray, pos) -> None:
    """The result record's counters the log's events up to the position give (all but
    ``FROM_LOG_UNCOUNTED``)."""
    n = pos.state.n_players
    turn = 0
    for ev in pos.events:
        e, p = ev["e"], ev.get("p")
        if e == "turn_start":
            turn = ev["turn"]
        elif e == "starting_resources":
            s[L.C_START_CARDS + 5 * p : L.C_START_CARDS + 5 * p + 5] += ev["cards"]
        elif e == "roll":
            total = sum(ev["dice"])
            s[L.C_ROLLS + total - 2] += 1
            s[L.C_SEVENS] += total == 7
        elif e == "production":
            for q, gains in enumerate(ev["gains"]):
                s[L.C_PRODUCED + 5 * q : L.C_PRODUCED + 5 * q + 5] += gains
            for r, k in enumerate(ev["withheld"]):
                if k > 0:
                    s[L.C_SHORTAGE_EVENTS + r] += 1
                    if s[L.C_FIRST_SHORTAGE + r] < 0:
                        s[L.C_FIRST_SHORTAGE + r] = turn
        elif e == "discard":
            s[L.C_DISCARDED + p] += sum(ev["cards"])
        elif e == "robber":
            s[L.C_ROBBER_MOVES] += 1
            if ev["victim"] is not None:
                s[L.C_ROBBED + ev["victim"]] += 1
            if ev["stolen"] is not None:
                s[L.C_STOLEN + ev["victim"]] += 1
                s[L.C_STEALS + p] += 1
        elif e == "trade_bank":
            s[L.C_TRADES_BANK + p] += 1
        elif e == "trade_player":
            s[L.C_TRADES_PLAYER + p] += 1
            s[L.C_TRADES_PLAYER + ev["partner"]] += 1
        elif e == "build_settlement" and s[L.C_FIRST_SETTLEMENT + p] < 0:
            s[L.C_FIRST_SETTLEMENT + p] = turn
        elif e == "build_city" and s[L.C_FIRST_CITY + p] < 0:
            s[L.C_FIRST_CITY + p] = turn
        elif e == "buy_dev":
            s[L.C_DEV_BOUGHT + 5 * p + DEV_CARD_NAMES.index(ev["card"])] += 1
        elif e == "play_dev":
            s[L.C_DEV_PLAYED + 5 * p + DEV_CARD_NAMES.index(ev["card"])] += 1
            if ev["card"] == "monopoly":
                s[L.C_MONOPOLY_GAIN + p] += sum(ev["taken"])
    tally = pos.tallies
    s[L.C_WITHHELD_LEADER] = tally["withheld_leader"]
    s[L.C_LEADER_CHANCES] = tally["leader_chances"]
    s[L.C_ROBBED_LEADER] = tally["robbed_leader"]
    s[L.C_SOLE_RECIPIENT : L.C_SOLE_RECIPIENT + 5] = tally["sole_recipient"]
    for q in range(n):
        s[L.C_BLOCKED + q] = tally["blocked"][q]
        s[L.C_WITHHELD + 5 * q : L.C_WITHHELD + 5 * q + 5] = tally["withheld"][q]
        for k, node in enumerate(pos.start_nodes[q]):
            s[L.C_START_NODES + 2 * q + k] = node
            if node >= 0:
                s[L.C_START_PIPS + 2 * q + k] = node_pips_nb(s, TOPO, node)
    # each checkpoint's visible points, once its turn's end was played (over: the last)
    done = pos.turn + (pos.phase == "over") - 1 if pos.turn > 0 else 0
    k = 0
    while k < L.N_VP_CHECKPOINTS and L.VP_CHECKPOINTS[k] <= done:
        for q in range(n):
            s[L.C_VP_AT + L.N_VP_CHECKPOINTS * q + k] = pos.visible_at_turn_end[
                L.VP_CHECKPOINTS[k]][q]
        k += 1
    s[L.S_VP_CHECKPOINT] = k
