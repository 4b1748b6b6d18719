"""Layout of the game state, the rule settings and the event log.

The whole state of one game is a single flat ``int32`` array ``s`` (measured:
helpers taking one flat integer array are several times faster in Numba than
helpers taking a bundle of arrays). Each field below has an offset constant
(``S_<NAME>``) and a length; per-player fields always hold ``MAX_PLAYERS`` (4)
slots, seat-major, e.g. ``s[S_HAND + 5 * p + r]``. Unused seats stay zero.

The counters section (``S_COUNTERS`` .. ``STATE_SIZE``) is the per-game result
record: the batch kernel copies it out verbatim and ``catansim.results`` labels
each slot. Every field is listed with its meaning and sentinel in ``STATE_FIELDS``;
``state_fields_markdown()`` renders them as the table in ``docs/engine.md``.
"""

from __future__ import annotations

from ..constants import (
    DEV_CARD_NAMES,
    MAX_PLAYERS,
    N_DEV_CARDS,
    N_EDGES,
    N_HARBORS,
    N_HEXES,
    N_NODES,
    N_RESOURCES,
    RESOURCE_NAMES,
)

P = MAX_PLAYERS
R = N_RESOURCES
# Turns after which every player's visible VP is recorded (``c_vp_at``): who leads when.
VP_CHECKPOINTS = (10, 20, 30, 40, 50, 60, 80, 100)
N_VP_CHECKPOINTS = len(VP_CHECKPOINTS)

# --- action-phase actions: int32[ACT_SIZE] (encoding in core/actions_nb.py) -----
ACT_END = 0
ACT_ROAD = 1
ACT_SETTLEMENT = 2
ACT_CITY = 3
ACT_BUY_DEV = 4
ACT_PLAY_DEV = 5
ACT_TRADE_BANK = 6
ACT_TRADE_PLAYER = 7
ACT_SIZE = 12
# Positions in ``act``.
ACT_KIND = 0  # ACT_*
ACT_A = 1  # edge, node, card, resource given (bank) or partner seat
ACT_B = 2  # ACT_TRADE_BANK: resource received
ACT_GIVE = 2  # ACT_TRADE_PLAYER: bundle given, act[ACT_GIVE : ACT_GIVE + 5]
ACT_RECEIVE = 7  # ACT_TRADE_PLAYER: bundle received
assert ACT_RECEIVE + 5 == ACT_SIZE
ACTION_NAMES = ("end turn", "road", "settlement", "city", "buy development card",
                "play development card", "maritime trade", "player trade")

# --- decisions: which choice was illegal (state field ``illegal_decision``) --------
# What ``illegal_value`` holds for each is in the comment.
D_SETUP_SETTLEMENT = 0  # [0] node
D_SETUP_ROAD = 1  # [0] edge
D_PRE_ROLL = 2  # [0] development card to play before the roll
D_ACTION = 3  # the action array
D_DISCARD = 4  # [0:5] cards, [5] cards due
D_ROBBER_HEX = 5  # [0] hex
D_VICTIM = 6  # [0] seat
D_FREE_ROAD = 7  # [0] edge (-1: no road while one was legal)
D_INVENTION = 8  # [0:5] cards, [5] cards due
D_MONOPOLY = 9  # [0] resource
D_ANSWER = 10  # [0] 1 accept, 0 refuse (a partner's answer to a player trade offer)
D_NONE = -1  # no decision pending: the game is over
D_UNTIL = -2  # no decision pending: the engine stopped at the phase it was asked to
DECISION_NAMES = (
    "setup settlement",
    "setup road",
    "development card before the roll",
    "action",
    "discard",
    "robber hex",
    "robber victim",
    "Road Building road",
    "Invention",
    "Monopoly",
    "trade answer",
)

# --- phases: where a game stands (state field ``phase``; core.loop_nb runs them) ---
# A decision phase (marked *) asks a seat; the others are the rules' own steps.
PH_SETUP_SETTLEMENT = 0  # * a starting settlement (``step``: placements made)
PH_SETUP_ROAD = 1  # * the road beside it
PH_TURN_START = 2  # a turn begins: its flags reset, a win before the roll ends it
PH_PRE_ROLL = 3  # * a development card before the roll, or the roll
PH_PRE_ROLL_DONE = 4  # after a card played before the roll: a win ends the turn
PH_ROLL = 5  # the dice: production, or a 7
PH_DISCARD = 6  # * a 7: the seat ``step`` and those after it discard half of a big hand
PH_ROBBER_HEX = 7  # * the robber's hex
PH_VICTIM = 8  # * whom the robber steals from (hex in ``robber_target``)
PH_AFTER_ROLL = 9  # the roll is over: the actions start
PH_ACTION = 10  # * an action (build, buy, trade, play a card, end the turn)
PH_ANSWER = 11  # * the partner answers the offer in the action array
PH_ACTION_DONE = 12  # after an action: a win ends the turn
PH_FREE_ROAD = 13  # * a Road Building road (``step``: roads built)
PH_INVENTION = 14  # * Invention's two cards
PH_MONOPOLY = 15  # * Monopoly's resource
PH_TURN_END = 16  # the turn's bought cards become playable
PH_TURN_DONE = 17  # VP checkpoint; the game ends, or the next seat's turn
PH_FINISH = 18  # the result record is written
PH_OVER = 19  # the game is over
PHASE_NAMES = (
    "setup settlement", "setup road", "turn start", "before the roll",
    "after a card before the roll", "roll", "discard", "robber hex", "robber victim",
    "after the roll", "action", "trade answer", "after an action", "Road Building road",
    "Invention", "Monopoly", "turn end", "turn done", "finish", "over",
)

# (name, length, meaning). Sentinel -1 means "none" wherever it is listed.
STATE_FIELDS: tuple[tuple[str, int, str], ...] = (
    # --- game ---
    ("n_players", 1, "number of seats playing (3 or 4)"),
    ("cur_player", 1, "seat whose turn it is (setup: seat placing)"),
    ("turn", 1, "turn number, counting every player's turn from 1; 0 during setup"),
    ("robber_hex", 1, "hex index of the robber"),
    ("winner", 1, "winning seat, -1 none"),
    ("end_reason", 1, "0 running, 1 win, 2 turn limit"),
    ("dev_played", 1, "1 if a development card was played this turn"),
    ("rolled", 1, "1 once the current turn's dice were rolled"),
    ("longest_holder", 1, "seat holding Longest Route, -1 supply"),
    ("army_holder", 1, "seat holding Largest Army, -1 supply"),
    ("deck_pos", 1, "index of the next development card in deck; 25 = empty"),
    ("offers", 1, "player-trade offers made this turn"),
    ("actions", 1, "actions taken this turn (safety bound)"),
    ("log_len", 1, "events written to the log buffer"),
    ("log_on", 1, "1 to record events"),
    ("log_overflow", 1, "1 if the log buffer was too small"),
    # --- control: where the game stands, so that it can pause at a decision ---
    ("phase", 1, "the engine's next step (PH_* codes, PHASE_NAMES)"),
    ("step", 1, "the phase's count: setup placements made; on a 7 the next seat to "
     "discard; Road Building roads built"),
    ("dev_return", 1, "phase after the development card being played"),
    ("robber_return", 1, "phase after the robber's move"),
    ("dev_event", 1, "log row of the development card being played, -1 none"),
    ("robber_target", 1, "hex the robber moves to while its victim is chosen, -1 none"),
    ("vp_checkpoint", 1, "index in VP_CHECKPOINTS of the next turn whose VP is recorded"),
    ("pending", 1, "the decision awaited from outside the kernel (D_* codes), -1 none"),
    ("pending_seat", 1, "the seat it is awaited from, -1 none"),
    ("external", P, "1 if the seat's decisions come from outside the kernel (the step "
     "interface, catansim.game), 0 if its compiled strategy makes them"),
    # --- board ---
    ("hex_terrain", N_HEXES, "terrain code of each hex (constants.Terrain)"),
    ("hex_number", N_HEXES, "number disc of each hex, 0 for the desert"),
    ("harbor_kind", N_HARBORS, "kind of each harbor slot: 0-4 resource 2:1, 5 generic 3:1"),
    ("node_harbor", N_NODES, "harbor kind usable from each node, -1 none"),
    ("node_resources", N_NODES, "bit r set if a hex producing resource r touches the node"),
    ("number_hexes", 13 * 2, "hexes showing number n at [2n], [2n+1], -1 padded"),
    # --- pieces ---
    ("node_owner", N_NODES, "seat with a building on the node, -1 empty"),
    ("node_level", N_NODES, "0 empty, 1 settlement, 2 city"),
    ("edge_owner", N_EDGES, "seat with a road on the edge, -1 empty"),
    # --- derived from the pieces, kept up to date by put_settlement_nb / put_road_nb ---
    ("node_open", N_NODES, "1 if the Distance Rule allows a settlement (all empty around)"),
    ("node_roads", P * N_NODES, "roads the player has at the node (0-3), seat-major"),
    ("node_free", N_NODES,
     "the node's empty edges: bit k set if its k-th edge (topology.NODE_EDGES[n, k]) "
     "exists and has no road; 0 for none"),
    ("open_spots", P, "open nodes where the player has a road (settlement spots)"),
    ("net_nodes", P * 2,
     "nodes the player's network touches (a road of the player ends there or the player "
     "has a building on it): node n is bit n of s[2p] | s[2p + 1] << 27 (27 nodes a word, "
     "so no word is negative); 0 for none"),
    ("prod_pips", P * R,
     "the player's production: pips of the hexes at its buildings per resource, a city "
     "twice (the robber ignored); 0 for none"),
    ("own_hexes", P, "bit h set if the player has a building at a corner of hex h; 0 for none"),
    # --- supply ---
    ("bank", R, "resource cards left in the supply"),
    ("deck", N_DEV_CARDS, "development deck in draw order (constants.DevCard)"),
    # --- players ---
    ("hand", P * R, "resource cards held"),
    ("dev_hand", P * 5, "unplayed development cards held, by kind (VP cards included)"),
    ("dev_new", P * 5, "of dev_hand, cards bought this turn (not playable yet)"),
    ("knights", P, "knights played (Largest Army)"),
    ("roads_left", P, "road pieces not on the board"),
    ("settlements_left", P, "settlement pieces not on the board"),
    ("cities_left", P, "city pieces not on the board"),
    ("harbors", P * 6, "1 if the player has a harbor of kind k (0-4 2:1, 5 3:1)"),
    ("route_len", P, "length of the player's longest route"),
    # --- the public record: what each player can know of every hand (core.record_nb) ---
    ("seen_below", P * P * R,
     "the record of observer o of seat q (core.record_nb), at [(P * o + q) * R + r]: q's "
     "cards of resource r less those o knows q surely holds; 0 where o knows the count, "
     "always 0 for o's own hand and for unused seats"),
    ("seen_above", P * P * R,
     "the record of observer o of seat q, at [(P * o + q) * R + r]: the cards of resource "
     "r q may hold at most, as far as o knows, less q's cards; 0 where o knows the count"),
    # --- scratch: meaningless between kernel calls ---
    ("route_stack", 3 * 16, "Longest Route search stack: (node, next k, edge) per depth"),
    ("route_marks", 2 * N_EDGES, "Longest Route search: roads in the trail, then roads ever used"),
    ("view", R, "a hand as a player reckons it: a trade offer plans its partner's next build "
     "from it"),
    # --- the game's first illegal action (c_illegal counts them all) ---
    ("illegal_turn", 1, "turn of the first illegal action (0 setup), -1 none"),
    ("illegal_seat", 1, "seat that chose it, -1 none"),
    ("illegal_decision", 1, "which decision it was (D_* codes, DECISION_NAMES), -1 none"),
    ("illegal_value", ACT_SIZE,
     "what was chosen (0 padded): [0] node, edge, hex, seat, card or resource; for a "
     "discard or Invention the cards at [0:5] and the number due at [5]; for an action "
     "the action array (actions_nb); all 0 while illegal_decision is -1"),
    # --- counters: the per-game result record ---
    ("c_turns", 1, "turns played"),
    ("c_winner", 1, "winning seat, -1 none"),
    ("c_end_reason", 1, "1 win, 2 turn limit"),
    ("c_sevens", 1, "7s rolled"),
    ("c_rolls", 11, "how often each sum 2..12 was rolled"),
    ("c_shortage_events", R, "rolls on which a resource could not be paid in full"),
    ("c_first_shortage", R, "turn of the first roll on which a resource could not be paid in "
     "full, -1 never"),
    ("c_sole_recipient", R, "rolls on which a resource ran short with one player alone owed it "
     "(the official rule pays that player what is left)"),
    ("c_longest_holder", 1, "Longest Route holder at the end, -1 supply"),
    ("c_army_holder", 1, "Largest Army holder at the end, -1 supply"),
    ("c_robber_moves", 1, "times the robber moved"),
    ("c_illegal", 1, "strategy actions the engine rejected (a strategy bug: 0 expected)"),
    ("c_violations", 1, "invariant violations found with rules check=1 (0 expected)"),
    ("c_vp", P, "final victory points, hidden included"),
    ("c_vp_settlements", P, "VP from settlements at the end"),
    ("c_vp_cities", P, "VP from cities at the end"),
    ("c_vp_longest", P, "VP from Longest Route at the end"),
    ("c_vp_army", P, "VP from Largest Army at the end"),
    ("c_vp_cards", P, "VP from victory point cards at the end"),
    ("c_route_len", P, "longest route length at the end"),
    ("c_roads", P, "roads on the board at the end"),
    ("c_knights", P, "knights played"),
    ("c_start_nodes", P * 2, "the two starting settlement nodes"),
    ("c_start_pips", P * 2, "pips of the hexes at each starting node"),
    ("c_start_cards", P * R, "starting resources by resource"),
    ("c_produced", P * R, "resource cards received from production, by resource"),
    ("c_blocked", P, "cards the robber's hex would have paid the player"),
    ("c_withheld", P * R, "cards owed but not paid by the shortage rule, by resource"),
    ("c_stolen", P, "cards lost to steals"),
    ("c_robbed", P, "times the player was chosen as robber victim"),
    ("c_steals", P, "cards gained by stealing"),
    ("c_discarded", P, "cards discarded on 7s"),
    ("c_monopoly_gain", P, "cards gained by Monopoly"),
    ("c_trades_bank", P, "maritime trades"),
    ("c_trades_player", P, "player trades completed (either side)"),
    ("c_offers", P, "player-trade offers made"),
    ("c_dev_bought", P * 5, "development cards bought, by kind"),
    ("c_dev_played", P * 5, "development cards played, by kind"),
    ("c_first_city", P, "turn of the first city, -1 never"),
    ("c_first_settlement", P, "turn of the first settlement beyond the starting two, -1 never"),
    ("c_vp_at", P * N_VP_CHECKPOINTS, "visible VP after turn VP_CHECKPOINTS[k] at [seat * "
     "N_VP_CHECKPOINTS + k], -1 if the game ended before that turn"),
    ("c_leader_chances", 1, "robber moves made while an opponent of the mover led alone in "
     "visible VP"),
    ("c_robbed_leader", 1, "robber moves whose victim led alone in visible VP"),
    ("c_withheld_leader", 1, "cards withheld by the shortage rule from the player leading alone "
     "in visible VP at that roll"),
)

STATE_OFFSETS: dict[str, int] = {}
_pos = 0
for _name, _n, _ in STATE_FIELDS:
    STATE_OFFSETS[_name] = _pos
    _pos += _n
STATE_SIZE = _pos
STATE_LENGTHS = {name: n for name, n, _ in STATE_FIELDS}

S_N_PLAYERS = STATE_OFFSETS["n_players"]
S_CUR = STATE_OFFSETS["cur_player"]
S_TURN = STATE_OFFSETS["turn"]
S_ROBBER = STATE_OFFSETS["robber_hex"]
S_WINNER = STATE_OFFSETS["winner"]
S_END = STATE_OFFSETS["end_reason"]
S_DEV_PLAYED = STATE_OFFSETS["dev_played"]
S_ROLLED = STATE_OFFSETS["rolled"]
S_LONGEST = STATE_OFFSETS["longest_holder"]
S_ARMY = STATE_OFFSETS["army_holder"]
S_DECK_POS = STATE_OFFSETS["deck_pos"]
S_OFFERS = STATE_OFFSETS["offers"]
S_ACTIONS = STATE_OFFSETS["actions"]
S_LOG_LEN = STATE_OFFSETS["log_len"]
S_LOG_ON = STATE_OFFSETS["log_on"]
S_LOG_OVERFLOW = STATE_OFFSETS["log_overflow"]
S_PHASE = STATE_OFFSETS["phase"]
S_STEP = STATE_OFFSETS["step"]
S_DEV_RETURN = STATE_OFFSETS["dev_return"]
S_ROBBER_RETURN = STATE_OFFSETS["robber_return"]
S_DEV_EVENT = STATE_OFFSETS["dev_event"]
S_ROBBER_TARGET = STATE_OFFSETS["robber_target"]
S_VP_CHECKPOINT = STATE_OFFSETS["vp_checkpoint"]
S_PENDING = STATE_OFFSETS["pending"]
S_PENDING_SEAT = STATE_OFFSETS["pending_seat"]
S_EXTERNAL = STATE_OFFSETS["external"]
S_ILLEGAL_TURN = STATE_OFFSETS["illegal_turn"]
S_ILLEGAL_SEAT = STATE_OFFSETS["illegal_seat"]
S_ILLEGAL_DECISION = STATE_OFFSETS["illegal_decision"]
S_ILLEGAL_VALUE = STATE_OFFSETS["illegal_value"]
S_HEX_TERRAIN = STATE_OFFSETS["hex_terrain"]
S_HEX_NUMBER = STATE_OFFSETS["hex_number"]
S_HARBOR_KIND = STATE_OFFSETS["harbor_kind"]
S_NODE_HARBOR = STATE_OFFSETS["node_harbor"]
S_NODE_RESOURCES = STATE_OFFSETS["node_resources"]
S_NUMBER_HEXES = STATE_OFFSETS["number_hexes"]
S_NODE_OWNER = STATE_OFFSETS["node_owner"]
S_NODE_LEVEL = STATE_OFFSETS["node_level"]
S_EDGE_OWNER = STATE_OFFSETS["edge_owner"]
S_NODE_OPEN = STATE_OFFSETS["node_open"]
S_NODE_ROADS = STATE_OFFSETS["node_roads"]
S_NODE_FREE = STATE_OFFSETS["node_free"]
S_OPEN_SPOTS = STATE_OFFSETS["open_spots"]
S_NET_NODES = STATE_OFFSETS["net_nodes"]
NET_WORD_BITS = 27  # nodes per word of ``net_nodes``
S_PROD_PIPS = STATE_OFFSETS["prod_pips"]
S_OWN_HEXES = STATE_OFFSETS["own_hexes"]
S_BANK = STATE_OFFSETS["bank"]
S_DECK = STATE_OFFSETS["deck"]
S_HAND = STATE_OFFSETS["hand"]
S_DEV_HAND = STATE_OFFSETS["dev_hand"]
S_DEV_NEW = STATE_OFFSETS["dev_new"]
S_KNIGHTS = STATE_OFFSETS["knights"]
S_ROADS_LEFT = STATE_OFFSETS["roads_left"]
S_SETTLEMENTS_LEFT = STATE_OFFSETS["settlements_left"]
S_CITIES_LEFT = STATE_OFFSETS["cities_left"]
S_HARBORS = STATE_OFFSETS["harbors"]
S_ROUTE_LEN = STATE_OFFSETS["route_len"]
S_SEEN_BELOW = STATE_OFFSETS["seen_below"]
S_SEEN_ABOVE = STATE_OFFSETS["seen_above"]
S_ROUTE_STACK = STATE_OFFSETS["route_stack"]
S_ROUTE_MARKS = STATE_OFFSETS["route_marks"]
S_VIEW = STATE_OFFSETS["view"]

S_COUNTERS = STATE_OFFSETS["c_turns"]
N_COUNTERS = STATE_SIZE - S_COUNTERS
# Each counter's first column in a result row (``s[S_COUNTERS:]``; a batch's
# ``counters[n, N_COUNTERS]``). Read counters by name with ``counter``.
COUNTER_OFFSETS = {name: off - S_COUNTERS for name, off in STATE_OFFSETS.items()
                   if off >= S_COUNTERS}
C_TURNS = STATE_OFFSETS["c_turns"]
C_WINNER = STATE_OFFSETS["c_winner"]
C_END_REASON = STATE_OFFSETS["c_end_reason"]
C_SEVENS = STATE_OFFSETS["c_sevens"]
C_ROLLS = STATE_OFFSETS["c_rolls"]
C_SHORTAGE_EVENTS = STATE_OFFSETS["c_shortage_events"]
C_LONGEST_HOLDER = STATE_OFFSETS["c_longest_holder"]
C_ARMY_HOLDER = STATE_OFFSETS["c_army_holder"]
C_ROBBER_MOVES = STATE_OFFSETS["c_robber_moves"]
C_ILLEGAL = STATE_OFFSETS["c_illegal"]
C_VIOLATIONS = STATE_OFFSETS["c_violations"]
C_VP = STATE_OFFSETS["c_vp"]
C_VP_SETTLEMENTS = STATE_OFFSETS["c_vp_settlements"]
C_VP_CITIES = STATE_OFFSETS["c_vp_cities"]
C_VP_LONGEST = STATE_OFFSETS["c_vp_longest"]
C_VP_ARMY = STATE_OFFSETS["c_vp_army"]
C_VP_CARDS = STATE_OFFSETS["c_vp_cards"]
C_ROUTE_LEN = STATE_OFFSETS["c_route_len"]
C_ROADS = STATE_OFFSETS["c_roads"]
C_KNIGHTS = STATE_OFFSETS["c_knights"]
C_START_NODES = STATE_OFFSETS["c_start_nodes"]
C_START_PIPS = STATE_OFFSETS["c_start_pips"]
C_START_CARDS = STATE_OFFSETS["c_start_cards"]
C_PRODUCED = STATE_OFFSETS["c_produced"]
C_BLOCKED = STATE_OFFSETS["c_blocked"]
C_WITHHELD = STATE_OFFSETS["c_withheld"]
C_STOLEN = STATE_OFFSETS["c_stolen"]
C_ROBBED = STATE_OFFSETS["c_robbed"]
C_STEALS = STATE_OFFSETS["c_steals"]
C_DISCARDED = STATE_OFFSETS["c_discarded"]
C_MONOPOLY_GAIN = STATE_OFFSETS["c_monopoly_gain"]
C_TRADES_BANK = STATE_OFFSETS["c_trades_bank"]
C_TRADES_PLAYER = STATE_OFFSETS["c_trades_player"]
C_OFFERS = STATE_OFFSETS["c_offers"]
C_DEV_BOUGHT = STATE_OFFSETS["c_dev_bought"]
C_DEV_PLAYED = STATE_OFFSETS["c_dev_played"]
C_FIRST_CITY = STATE_OFFSETS["c_first_city"]
C_FIRST_SETTLEMENT = STATE_OFFSETS["c_first_settlement"]
C_FIRST_SHORTAGE = STATE_OFFSETS["c_first_shortage"]
C_SOLE_RECIPIENT = STATE_OFFSETS["c_sole_recipient"]
C_VP_AT = STATE_OFFSETS["c_vp_at"]
C_LEADER_CHANCES = STATE_OFFSETS["c_leader_chances"]
C_ROBBED_LEADER = STATE_OFFSETS["c_robbed_leader"]
C_WITHHELD_LEADER = STATE_OFFSETS["c_withheld_leader"]

END_RUNNING = 0
END_WIN = 1
END_TURN_LIMIT = 2

# --- rule settings: one int32 array ``rules`` -------------------------------------
RULE_FIELDS: tuple[tuple[str, str], ...] = (
    ("vp_to_win", "victory points needed to win (official 10)"),
    ("bank_per_resource", "cards per resource in the supply (19); UNLIMITED_BANK for unlimited"),
    ("discard_limit", "a 7 makes players holding more than this discard half; -1 none"),
    ("robber", "ROBBER_OFFICIAL, ROBBER_OFF or ROBBER_FRIENDLY"),
    ("shortage", "SHORTAGE_OFFICIAL, SHORTAGE_STRICT or SHORTAGE_OFF"),
    ("max_turns", "turn cap: the game ends with no winner after this many turns"),
    ("first_pick", "seat that places first in the set-up (official 0); the snake order "
     "runs from it: first_pick, first_pick + 1, ..., then back"),
    ("first_turn", "seat that takes turn 1 (official: first_pick, the seat that placed first "
     "in the set-up); turns then go round in seat order"),
    ("max_offers", "player-trade offers a player may make per turn (engine bound)"),
    ("max_actions", "actions a player may take per turn (engine bound)"),
    ("check", "1: verify the state invariants after every step (tests); 0 off"),
    ("switch_turn", "when this turn is over the rules after the switch (``after_*``) replace "
     "the fields above, for the rest of the game; -1 never"),
)
# The rules after the switch: one copy of each field before ``switch_turn``, in the same
# order (``after_vp_to_win`` ...). Every game plays on its own working copy of the
# array (``turn_done_nb`` writes the after-rules into it at the switch).
R_SWITCH_TURN = len(RULE_FIELDS) - 1
RULE_FIELDS = RULE_FIELDS + tuple(
    (f"after_{name}", f"{name} from the turn after ``switch_turn`` on")
    for name, _ in RULE_FIELDS[:R_SWITCH_TURN])
RULE_INDEX = {name: i for i, (name, _) in enumerate(RULE_FIELDS)}
N_RULES = len(RULE_FIELDS)
R_AFTER = R_SWITCH_TURN + 1
R_VP_TO_WIN = RULE_INDEX["vp_to_win"]
R_BANK = RULE_INDEX["bank_per_resource"]
R_DISCARD_LIMIT = RULE_INDEX["discard_limit"]
R_ROBBER = RULE_INDEX["robber"]
R_SHORTAGE = RULE_INDEX["shortage"]
R_MAX_TURNS = RULE_INDEX["max_turns"]
R_FIRST_PICK = RULE_INDEX["first_pick"]
R_FIRST_TURN = RULE_INDEX["first_turn"]
R_MAX_OFFERS = RULE_INDEX["max_offers"]
R_MAX_ACTIONS = RULE_INDEX["max_actions"]
R_CHECK = RULE_INDEX["check"]

# An "unlimited" supply holds more cards than a game can ever hand out, so the
# conservation invariant (supply + hands = supply size) still holds exactly.
UNLIMITED_BANK = 1_000_000
ROBBER_OFFICIAL = 0
ROBBER_OFF = 1
ROBBER_FRIENDLY = 2
SHORTAGE_OFFICIAL = 0
SHORTAGE_STRICT = 1
SHORTAGE_OFF = 2

# --- event log: int32 rows of LOG_WIDTH ----------------------------------------
# Every event row starts with its code and the acting seat; the payload follows at
# the named columns below (a bundle of 5 cards takes 5 columns from its start).
# The writer kernels and ``catansim.logs.format`` both read these names.
LOG_WIDTH = 32
LOG_CODE = 0  # event code EV_*
LOG_SEAT = 1  # acting seat, -1 none
LOG_A = 2  # first scalar of the payload
LOG_B = 3  # second scalar
LOG_C = 4  # third scalar
LOG_CARDS = 2  # a bundle: starting resources, discard cards, a maritime trade's give
LOG_BANK_GET = 7  # maritime trade: the bundle received
LOG_GAINS = 2  # production: seat i's gains at LOG_GAINS + 5 * i (i < 4)
LOG_WITHHELD = 22  # production: cards withheld by the shortage rule
LOG_GIVE = 3  # player trade (partner in LOG_A): the bundle given
LOG_GET = 8  # player trade: the bundle received
LOG_INVENTION = 3  # play_dev Invention: the cards taken
LOG_TAKEN = 4  # play_dev Monopoly (resource in LOG_B): taken from seat i at LOG_TAKEN + i
LOG_FINAL_VP = 5  # game end: seat i's VP at LOG_FINAL_VP + i
assert LOG_WITHHELD >= LOG_GAINS + 5 * 4 and LOG_WITHHELD + 5 <= LOG_WIDTH

EV_SETUP_SETTLEMENT = 1  # a=node
EV_SETUP_ROAD = 2  # a=edge
EV_STARTING_RESOURCES = 3  # cards at LOG_CARDS
EV_TURN_START = 4  # a=turn
EV_ROLL = 5  # a=d1, b=d2
EV_PRODUCTION = 6  # gains at LOG_GAINS, withheld at LOG_WITHHELD
EV_DISCARD = 7  # cards at LOG_CARDS
EV_ROBBER = 8  # a=hex, b=victim (-1), c=stolen resource (-1)
EV_TRADE_BANK = 9  # give at LOG_CARDS, get at LOG_BANK_GET
EV_TRADE_PLAYER = 10  # a=partner, give at LOG_GIVE, get at LOG_GET
EV_BUILD_ROAD = 11  # a=edge, b=free (0/1)
EV_BUILD_SETTLEMENT = 12  # a=node
EV_BUILD_CITY = 13  # a=node
EV_BUY_DEV = 14  # a=card
EV_PLAY_DEV = 15  # a=card; Invention: cards at LOG_INVENTION; Monopoly: b=resource, LOG_TAKEN
EV_LONGEST_ROUTE = 16  # p=holder (-1 supply), a=length
EV_LARGEST_ARMY = 17  # p=holder, a=knights
EV_TURN_END = 18
EV_GAME_END = 19  # a=winner (-1), b=turn, c=reason (1 win, 2 turn limit), VP at LOG_FINAL_VP
EVENT_NAMES = {
    EV_SETUP_SETTLEMENT: "setup_settlement",
    EV_SETUP_ROAD: "setup_road",
    EV_STARTING_RESOURCES: "starting_resources",
    EV_TURN_START: "turn_start",
    EV_ROLL: "roll",
    EV_PRODUCTION: "production",
    EV_DISCARD: "discard",
    EV_ROBBER: "robber",
    EV_TRADE_BANK: "trade_bank",
    EV_TRADE_PLAYER: "trade_player",
    EV_BUILD_ROAD: "build_road",
    EV_BUILD_SETTLEMENT: "build_settlement",
    EV_BUILD_CITY: "build_city",
    EV_BUY_DEV: "buy_dev",
    EV_PLAY_DEV: "play_dev",
    EV_LONGEST_ROUTE: "longest_route",
    EV_LARGEST_ARMY: "largest_army",
    EV_TURN_END: "turn_end",
    EV_GAME_END: "game_end",
}

# --- board vector: int32[BOARD_SIZE] ----------------------------------------------
# The compact board every layout produces and the engine takes.
B_TERRAIN = 0  # [19] terrain code per hex
B_NUMBER = 19  # [19] number disc per hex, 0 for the desert
B_HARBOR = 38  # [9] harbor kind per slot (topology.HARBOR_SLOT_HEXES order)
BOARD_SIZE = 47

# How the kernel obtains the board of a game.
LAYOUT_GIVEN = 0  # use the board vector passed in (fixed, beginner, user boards)
LAYOUT_VARIABLE = 1  # 6th-edition variable setup, from the game's board stream
LAYOUT_RANDOM_NUMBERS = 2  # 5th-edition variant: numbers shuffled, no adjacent 6/8
LAYOUT_BALANCED = 3  # variable boards kept only when the fairness index says they are fair

# Forced openings: int32[MAX_PLAYERS * 4] = (node1, edge1, node2, edge2) per seat, -1 free.
OPENING_WIDTH = 4


def describe_choice(decision: int, value) -> str:
    """The choice recorded in ``illegal_value`` in words, e.g. ``hex 7``."""
    v = [int(x) for x in value]
    if decision in (D_SETUP_SETTLEMENT,):
        return f"node {v[0]}"
    if decision in (D_SETUP_ROAD, D_FREE_ROAD):
        return "no road" if v[0] < 0 else f"edge {v[0]}"
    if decision == D_ROBBER_HEX:
        return f"hex {v[0]}"
    if decision == D_VICTIM:
        return f"seat {v[0]}"
    if decision == D_PRE_ROLL:
        return f"card {_name(DEV_CARD_NAMES, v[0])}"
    if decision == D_MONOPOLY:
        return f"resource {_name(RESOURCE_NAMES, v[0])}"
    if decision in (D_DISCARD, D_INVENTION):
        return f"cards {_cards(v[0:5])} ({v[5]} due)"
    if decision == D_ACTION:
        kind = v[0]
        name = _name(ACTION_NAMES, kind)
        if kind in (ACT_ROAD,):
            return f"{name} on edge {v[1]}"
        if kind in (ACT_SETTLEMENT, ACT_CITY):
            return f"{name} on node {v[1]}"
        if kind == ACT_PLAY_DEV:
            return f"{name} {_name(DEV_CARD_NAMES, v[1])}"
        if kind == ACT_TRADE_BANK:
            return f"{name} {_name(RESOURCE_NAMES, v[1])} for {_name(RESOURCE_NAMES, v[2])}"
        if kind == ACT_TRADE_PLAYER:
            return f"{name} with seat {v[1]}: gives {_cards(v[2:7])}, gets {_cards(v[7:12])}"
        return f"{name} {v}" if kind not in (ACT_END, ACT_BUY_DEV) else name
    return f"value {v}"


def _name(names, i: int) -> str:
    return names[i] if 0 <= i < len(names) else f"{i} (no such code)"


def _cards(bundle) -> str:
    return "{" + ", ".join(f"{RESOURCE_NAMES[r]} {n}" for r, n in enumerate(bundle) if n) + "}"


def state_fields_markdown() -> str:
    """The state layout as a Markdown table (offset, name, length, meaning); dtype int32."""
    rows = ["| offset | field | length | meaning |", "|---:|---|---:|---|"]
    for name, n, meaning in STATE_FIELDS:
        rows.append(f"| {STATE_OFFSETS[name]} | `{name}` | {n} | {meaning} |")
    return "\n".join(rows)


def rule_fields_markdown() -> str:
    """The kernel's ``rules`` array as a Markdown table (index, name, meaning); dtype int32."""
    rows = ["| index | name | meaning |", "|---:|---|---|"]
    for i, (name, meaning) in enumerate(RULE_FIELDS):
        rows.append(f"| {i} | `{name}` | {meaning} |")
    return "\n".join(rows)


def counter(counters, name: str):
    """Counter ``name`` (a ``c_*`` field of ``STATE_FIELDS``) of result rows: one game's
    row (int32[N_COUNTERS]) or a batch's (int32[n, N_COUNTERS]). A one-slot counter
    gives its value in each row; a counter of several slots (per seat, per resource)
    its slots along the last axis."""
    off = COUNTER_OFFSETS[name]
    width = STATE_LENGTHS[name]
    return counters[..., off] if width == 1 else counters[..., off:off + width]
