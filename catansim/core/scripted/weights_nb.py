"""The parameter row of a scripted strategy: each slot's name, range and meaning.

The twin of ``players/reference/weights.py``, whose ``weights`` reads the same
parameters by name. ``PARAM_FIELDS`` is the one table of the parameters (name, range,
meaning; a slot is its place in the table): ``catansim.strategies`` validates rows
against it, ``docs/strategies.md`` explains the formulas, and the kernels read a slot
through its ``P_*`` constant, which is looked up here by the parameter's name (so a
reordered table rewires every kernel; a name missing from the table fails at import).
"""

from ...constants import RESOURCE_NAMES

# (name, low, high, meaning). The index of a slot is its position here.
PARAM_FIELDS: tuple[tuple[str, float, float, str], ...] = (
    ("pips_weight", 0.0, 5.0,
     "placement: weight of a node's production (pips x resource target x scarcity)"),
    ("diversity_weight", 0.0, 10.0, "placement: bonus per distinct resource at the node"),
    ("scarcity_weight", 0.0, 3.0,
     "placement: exponent of the scarcity factor (mean resource pips / this resource's pips)"),
    ("harbor_weight", 0.0, 10.0, "placement: weight of harbor synergy"),
    ("complement_weight", 0.0, 10.0,
     "placement: bonus per resource at the node that the player does not produce yet"),
    ("wood_target", 0.0, 3.0, "resource target: multiplier on wood pips"),
    ("brick_target", 0.0, 3.0, "resource target: multiplier on brick pips"),
    ("wool_target", 0.0, 3.0, "resource target: multiplier on wool pips"),
    ("wheat_target", 0.0, 3.0, "resource target: multiplier on wheat pips"),
    ("ore_target", 0.0, 3.0, "resource target: multiplier on ore pips"),
    ("road_weight", 0.0, 5.0, "build priority of roads for Longest Route"),
    ("settlement_weight", 0.0, 5.0, "build priority of settlements"),
    ("city_weight", 0.0, 5.0, "build priority of cities"),
    ("dev_weight", 0.0, 5.0, "build priority of development cards"),
    ("missing_penalty", 0.0, 5.0,
     "priority of a build = weight / (1 + missing_penalty x cards still missing)"),
    ("reach_weight", 0.0, 1.0,
     "priority of roads when no settlement spot is reachable, as a fraction of "
     "settlement_weight"),
    ("bank_trade", 0.0, 2.0,
     "maritime trade: 0 never; 1 when it completes a build this turn (or the hand is over "
     "the discard limit); 2 also whenever it brings the next build closer"),
    ("offers", 0.0, 10.0, "player-trade offers per turn (the engine caps them too)"),
    ("accept", 0.0, 1.0, "1 accepts player trades that help its next build, 0 never trades"),
    ("accept_vp_limit", 0.0, 20.0,
     "refuse trades with a player showing at least this many victory points"),
    ("robber_policy", 0.0, 2.0,
     "robber: 0 hit the leader, 1 hit the most production, 2 a random hex (never its own "
     "when avoidable)"),
    ("knight_eager", 0.0, 1.0,
     "knights: 1 plays one as soon as it may; 0 only to free its own hex or win the "
     "Largest Army race"),
    ("monopoly_min", 1.0, 20.0,
     "plays Monopoly when opponents hold at least this many cards of one resource"),
    ("block_weight", 0.0, 5.0,
     "bonus for nodes and edges next to opponents' roads (blocking their routes)"),
    ("route_weight", 0.0, 5.0, "bonus for roads that extend its longest route"),
    ("army_weight", 0.0, 5.0,
     "extra development-card priority while Largest Army is within reach"),
    ("information", 0.0, 1.0,
     "what the player reads of other hands: 0 public, the public record (cards counted from "
     "public events, core.record_nb); 1 omniscient, every hand and development card as if "
     "face up (to measure what seeing cards is worth)"),
    ("placement_temperature", 0.0, 10.0,
     "starting settlements: 0 the best-scoring node; above 0 a node drawn with probability "
     "proportional to exp((score - best score) / temperature), from the player's own "
     "stream (a board then no longer fixes the draft)"),
    ("offer_ask", 0.0, 3.0,
     "player-trade offers: up to this many more cards asked beyond the one wanted, each "
     "one the partner surely holds beyond its own next build"),
    ("offer_two", 0.0, 1.0,
     "player-trade offers: 1 offers two spare cards for the wanted one when no partner "
     "lacks a spare card, 0 never"),
    ("answer_weigh", 0.0, 5.0,
     "trade answers: 0 accepts what brings its next build closer; above 0 weighs both "
     "sides from public information, each side's worth its plan's gain + answer_cards x "
     "its card balance: accepts when its own worth exceeds answer_weigh x (1 + "
     "answer_lead x the offerer's visible points) x the offerer's"),
    ("answer_cards", 0.0, 2.0,
     "trade answers weighing both sides: worth of each card a side receives more than "
     "it pays"),
    ("answer_lead", 0.0, 1.0,
     "trade answers weighing both sides: how much more the offerer's gain counts per "
     "visible point it shows"),
    ("offer_haggle", 0.0, 1.0,
     "player-trade offers asking more (offer_ask): 1 asks more only in the turn's first "
     "offer, 0 in every offer"),
    ("hand_guard", 0.0, 5.0,
     "before ending a turn: 0 never trades down; above 0 builds, buys or trades at sea "
     "when this weight x the expected cards it saves from a discard beats what the "
     "action sets its top build back"),
)
PARAM_INDEX = {name: i for i, (name, _, _, _) in enumerate(PARAM_FIELDS)}
# A seat's kind of player, the kernel's ``strat``: the ``random`` player ignores the
# row; the scripted player reads it.
STRATEGY_RANDOM = 0
STRATEGY_SCRIPTED = 1
# A row's length: the parameters of PARAM_FIELDS, then slots no kernel reads, kept 0. A
# new parameter takes the next slot; past N_PARAMS, raise N_PARAMS (every row and the
# kernels' ``params`` grow with it).
N_PARAMS = 35
if len(PARAM_FIELDS) > N_PARAMS:
    raise ValueError(f"PARAM_FIELDS: {len(PARAM_FIELDS)} parameters; allowed: at most "
                     f"N_PARAMS = {N_PARAMS}")

P_PIPS = PARAM_INDEX["pips_weight"]
P_DIVERSITY = PARAM_INDEX["diversity_weight"]
P_SCARCITY = PARAM_INDEX["scarcity_weight"]
P_HARBOR = PARAM_INDEX["harbor_weight"]
P_COMPLEMENT = PARAM_INDEX["complement_weight"]
P_TARGET = PARAM_INDEX["wood_target"]  # the five targets, wood to ore, from here on
if [name for name, _, _, _ in PARAM_FIELDS[P_TARGET:P_TARGET + 5]] != [
        f"{r}_target" for r in RESOURCE_NAMES]:
    raise ValueError("PARAM_FIELDS: the resource targets must follow each other, wood to "
                     "ore (the kernels read P_TARGET + resource)")
P_W_ROAD = PARAM_INDEX["road_weight"]
P_W_SETTLEMENT = PARAM_INDEX["settlement_weight"]
P_W_CITY = PARAM_INDEX["city_weight"]
P_W_DEV = PARAM_INDEX["dev_weight"]
P_MISSING = PARAM_INDEX["missing_penalty"]
P_REACH = PARAM_INDEX["reach_weight"]
P_BANK_TRADE = PARAM_INDEX["bank_trade"]
P_OFFERS = PARAM_INDEX["offers"]
P_ACCEPT = PARAM_INDEX["accept"]
P_ACCEPT_VP = PARAM_INDEX["accept_vp_limit"]
P_ROBBER = PARAM_INDEX["robber_policy"]
P_KNIGHT = PARAM_INDEX["knight_eager"]
P_MONOPOLY_MIN = PARAM_INDEX["monopoly_min"]
P_BLOCK = PARAM_INDEX["block_weight"]
P_ROUTE = PARAM_INDEX["route_weight"]
P_ARMY = PARAM_INDEX["army_weight"]
P_INFORMATION = PARAM_INDEX["information"]
P_PLACEMENT_TEMPERATURE = PARAM_INDEX["placement_temperature"]
P_OFFER_ASK = PARAM_INDEX["offer_ask"]
P_OFFER_TWO = PARAM_INDEX["offer_two"]
P_ANSWER_WEIGH = PARAM_INDEX["answer_weigh"]
P_ANSWER_CARDS = PARAM_INDEX["answer_cards"]
P_ANSWER_LEAD = PARAM_INDEX["answer_lead"]
P_OFFER_HAGGLE = PARAM_INDEX["offer_haggle"]
P_HAND_GUARD = PARAM_INDEX["hand_guard"]
