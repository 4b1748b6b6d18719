"""The catanatron bridge (``catansim.players.outside.catanatron``), with catanatron's PyPI
release: the two boards' geometry, every mirrored position's legal actions against
catansim's legal options (one to one, both ways, but for the rule differences that
docs/ladder.md lists), the mirrored state against the game's, and whole games of
catanatron's random, weighted-random and victory-point players that pass the log
checker. Skipped without catanatron (``pip install 'catansim[catanatron]'``).
"""

from __future__ import annotations

import numpy as np
import pytest

catanatron = pytest.importorskip("catanatron")

from catansim import Game  # noqa: E402
from catansim.constants import (  # noqa: E402
    COST_ROAD,
    DEV_CARD_COUNTS,
    HARBOR_ANY,
    INVENTION,
    KNIGHT,
    ROAD_BUILDING,
    TERRAIN_RESOURCE,
)
from catansim.errors import CatansimError  # noqa: E402
from catansim.game import Option, RandomPlayer  # noqa: E402
from catansim.logs import game_log, replay  # noqa: E402
from catansim.players.outside import catanatron as CB  # noqa: E402
from catansim.settings import GameSettings  # noqa: E402
from catansim.topology import EDGE_NODES, HARBOR_NODES, HEX_NODES, NODE_HEXES  # noqa: E402

C = CB.modules()
G = CB.geometry()
BOTS = ("RandomPlayer", "WeightedRandomPlayer", "VictoryPointPlayer")


# --- the boards ------------------------------------------------------------------------------


def test_geometry_is_a_bijection_that_keeps_every_adjacency():
    assert sorted(G.node.values()) == list(range(54))
    assert sorted(G.node_back) == sorted(G.node)
    assert len(set(G.edge_back)) == 72 and None not in G.edge_back
    # catanatron's own graph of the land nodes is catansim's, edge for edge
    land = C.board.STATIC_GRAPH.subgraph(G.node)
    theirs = {frozenset((G.node[a], G.node[b])) for a, b in land.edges()}
    assert theirs == {frozenset(map(int, pair)) for pair in EDGE_NODES}
    for e, (a, b) in enumerate(G.edge_back):
        assert {G.node[a], G.node[b]} == set(map(int, EDGE_NODES[e]))


def test_each_tile_has_its_hex_corners_in_order_and_each_harbor_its_nodes():
    tiles = C.map.CatanMap.from_template(C.map.BASE_MAP_TEMPLATE).tiles
    for coord, tile in tiles.items():
        if isinstance(tile, C.map.LandTile):
            h = G.hex_of[coord]
            corners = [G.node[tile.nodes[ref]] for ref in
                       sorted(tile.nodes, key=lambda r: CB.CORNERS.index(r.value))]
            assert corners == HEX_NODES[h].tolist()  # clockwise from the top, both
        elif isinstance(tile, C.map.Port):
            a, b = C.map.PORT_DIRECTION_TO_NODEREFS[tile.direction]
            ends = {G.node[tile.nodes[a]], G.node[tile.nodes[b]]}
            assert ends == set(HARBOR_NODES[G.slot_of[coord]].tolist())
    assert sorted(G.slot_of.values()) == list(range(9))


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_a_mirrored_board_produces_what_catansim_s_board_produces(seed):
    obs = Game(seed, strategies=("default",) * 4, external=[0]).observation(0)
    cmap = CB.catan_map(obs.hex_terrain, obs.hex_number, obs.harbors)
    for nid, n in G.node.items():  # each node's hexes: resource and number
        want = sorted((CB.RESOURCES[TERRAIN_RESOURCE[int(obs.hex_terrain[h])]],
                       int(obs.hex_number[h])) for h in NODE_HEXES[n]
                      if h >= 0 and TERRAIN_RESOURCE[int(obs.hex_terrain[h])] >= 0)
        got = sorted((t.resource, t.number) for t in cmap.adjacent_tiles[nid]
                     if t.resource is not None)
        assert got == want, n
    for kind, nodes in cmap.port_nodes.items():  # each harbor kind on its slots' nodes
        k = HARBOR_ANY if kind is None else CB.RESOURCES.index(kind)
        slots = np.flatnonzero(obs.harbors == k)
        assert {G.node[x] for x in nodes} == set(HARBOR_NODES[slots].ravel().tolist())
    desert = int(np.flatnonzero(obs.hex_terrain == 5)[0])
    assert G.hex_of[C.board.Board(cmap).robber_coordinate] == desert


# --- positions -------------------------------------------------------------------------------


def _key(action):
    """A catanatron action as the option it maps to (a discarded card: its resource)."""
    name = action.action_type.name
    if name == "DISCARD_RESOURCE":
        return ("discard", CB.RESOURCES.index(action.value))
    if name == "DISCARD":  # catanatron 3.2: one action, the cards drawn at random
        return ("discard",)
    return CB.to_option(action)


def _option_keys(options, per_card: bool) -> set:
    out = set()
    for o in options:
        if o.kind == "offer":
            continue  # catanatron's bots make no player trades
        if o.kind == "discard":
            out |= ({("discard", r) for r, k in enumerate(o.give) if k} if per_card
                    else {("discard",)})
        else:
            out.add(o)
    return out


def _rule_differences(game, cg, seat, obs) -> tuple[set, set]:
    """The options only catansim lists, and only catanatron, where the rules differ
    (docs/ladder.md, "Where the rules differ")."""
    ours_only, theirs_only = set(), set()
    color = cg.state.colors[seat]
    roads_left = cg.state.player_state[f"P{seat}_ROADS_AVAILABLE"]
    if not (roads_left and cg.state.board.buildable_edges(color)):
        ours_only.add(Option("play", ROAD_BUILDING))  # played with no road to build
    if obs.supply.sum() == 0:
        ours_only.add(Option("play", INVENTION))  # takes nothing from an empty supply
    if not C.per_card_discards:  # catanatron 3.2: only a Knight before the roll; Road
        if obs.decision == "development card before the roll":  # Building only with the
            ours_only |= {Option("play", c) for c in range(5) if c != KNIGHT}  # price of
        if not (obs.hand >= np.array(COST_ROAD)).all():  # a road; a card bought this turn
            ours_only.add(Option("play", ROAD_BUILDING))
        for c in np.flatnonzero(obs.new_development_cards):
            theirs_only.add(Option("play", int(c)))
    return ours_only, theirs_only


def _check_state(game, cg, seat):
    """The mirrored catanatron state holds the catansim game's numbers."""
    obs = game.observation(seat)
    st, ps = cg.state, cg.state.player_state
    assert st.resource_freqdeck == obs.supply.tolist()
    assert G.hex_of[st.board.robber_coordinate] == obs.robber
    assert len(st.development_listdeck) == obs.deck_left
    assert st.current_player_index == seat and st.current_turn_index == obs.current_player
    for q in range(obs.n_players):
        view = game.observation(q)
        hand = [ps[f"P{q}_{r}_IN_HAND"] for r in CB.RESOURCES]
        assert hand == view.hand.tolist()
        devs = [ps[f"P{q}_{d}_IN_HAND"] for d in CB.DEV_CARDS]
        assert devs == view.development_cards.tolist()
        assert ps[f"P{q}_VICTORY_POINTS"] == obs.visible_points[q]
        assert ps[f"P{q}_ACTUAL_VICTORY_POINTS"] == view.victory_points
        assert ps[f"P{q}_PLAYED_KNIGHT"] == obs.knights[q]
        mine = {G.node[n] for n, (c, _) in st.board.buildings.items() if c == st.colors[q]}
        assert mine == set(np.flatnonzero(obs.node_owner == q).tolist())
    # every development card is in the deck, a hand, or played
    held = sum(ps[f"P{q}_{d}_IN_HAND"] + ps[f"P{q}_PLAYED_{d}"] for q in range(obs.n_players)
               for d in CB.DEV_CARDS)
    assert held + len(st.development_listdeck) == sum(DEV_CARD_COUNTS)


def _positions(seeds, per_kind: int = 25):
    """(game, seat, played-cards record) at decisions of games four seeded random players
    play: the first ``per_kind`` of each decision the bridge mirrors, in each game."""
    for seed in seeds:
        game = Game(seed, strategies=("random",) * 4, external=range(4), log=True)
        players = [RandomPlayer(seed * 10 + q) for q in range(4)]
        played, seen = CB.PlayedCards(), {}
        while not game.over:
            q, d = game.to_move, game.decision
            seen[d] = seen.get(d, 0) + 1
            if d in CB.PROMPTS and d != "robber victim" and seen[d] <= per_kind:
                yield game, q, played
            game.step(players[q].decide(game.observation(q), game.legal_options()))


def test_every_mirrored_position_maps_one_to_one():
    seen: dict[str, int] = {}
    for game, seat, played in _positions(range(10)):
        obs = game.observation(seat)
        options = game.legal_options()
        cg = CB.mirror(game, seat, played=played)
        theirs = {_key(a) for a in cg.playable_actions}
        ours = _option_keys(options, C.per_card_discards)
        ours_only, theirs_only = _rule_differences(game, cg, seat, obs)
        assert ours - theirs <= ours_only, (obs.decision, ours - theirs)
        assert theirs - ours <= theirs_only, (obs.decision, theirs - ours)
        for a in cg.playable_actions:  # and each action maps back to a catansim option
            k = _key(a)
            if isinstance(k, Option):
                assert k in options or k in theirs_only
        seen[obs.decision] = seen.get(obs.decision, 0) + 1
        if seen[obs.decision] % 3 == 1:
            _check_state(game, cg, seat)
    assert set(seen) == set(CB.PROMPTS) - {"robber victim"}, seen


def test_the_mirror_leaves_python_s_random_as_it_was():
    game, seat, _ = next(_positions([3]))
    state = CB.random.getstate()
    CB.mirror(game, seat, seed=99)
    assert CB.random.getstate() == state


def test_the_bridge_needs_the_game_it_plays_in():
    p = CB.CatanatronPlayer("RandomPlayer")
    p.new_game(1, 0)
    game = Game(1, settings=GameSettings(strategies=(p, "default", "default", "default")))
    with pytest.raises(CatansimError, match="no game to read"):
        p.decide(game.observation(0), game.legal_options())


@pytest.mark.parametrize("name, message", [
    ("catanatron:NoSuchPlayer", "has no player 'NoSuchPlayer'"),
    ("catanatron:os:getcwd", "has no player .os."),
    ("catanatron:os.path:join", "has no player class .join."),
    ("catanatron:catanatron.models.player:Color", "has no player class 'Color'"),
    ("catanatron:", "not a player class name"),
])
def test_a_bad_bot_name_is_one_line(name, message):
    with pytest.raises(CatansimError, match=message) as e:
        CB.player(name)
    assert "\n" not in str(e.value)


# --- whole games -------------------------------------------------------------------------------


DECIDED: dict[str, int] = {}  # the decisions the bridge took in the whole games, by kind


def _play(seed, seats):
    """A game with catanatron bots at ``seats`` (bot names by seat) and ``default`` at the
    others, logged."""
    players = {q: CB.player(CB.PREFIX + b) for q, b in seats.items()}
    names = tuple(players.get(q, "default") for q in range(4))
    for q, p in players.items():
        p.new_game(seed, q)
    game = Game(seed, settings=GameSettings(strategies=names), log=True)
    for p in players.values():
        p.watch(game)
    while not game.over:
        q = game.to_move
        DECIDED[game.decision] = DECIDED.get(game.decision, 0) + 1
        game.step(players[q].decide(game.observation(q), game.legal_options()))
    return game


@pytest.mark.parametrize("bot", BOTS)
def test_whole_games_finish_and_pass_the_log_checker(bot):
    for seed, seats in ((11, {0: bot}), (12, {1: bot, 2: bot, 3: bot}),
                        (13, dict.fromkeys(range(4), bot))):
        game = _play(seed, seats)
        res = game.result()
        assert game.winner is not None and max(game.vp) >= 10
        replay(*game_log(res))  # raises at a broken rule


def test_the_whole_games_took_every_kind_of_decision():
    every = set(CB.PROMPTS) | {"trade answer", "Invention", "Monopoly"}
    if set(DECIDED) != every:
        # run apart from the whole-games tests (this test alone, or split from them over
        # workers): play the games it looks at
        DECIDED.clear()
        for bot in BOTS:
            test_whole_games_finish_and_pass_the_log_checker(bot)
    assert set(DECIDED) == every, DECIDED


def test_a_game_depends_only_on_its_seed():
    a, b = _play(21, {0: "WeightedRandomPlayer", 2: "VictoryPointPlayer"}), \
        _play(21, {0: "WeightedRandomPlayer", 2: "VictoryPointPlayer"})
    assert a.events == b.events


# --- the public view: a state dealt from the seat's public record -----------------------------


def test_a_view_is_read_from_the_name_and_a_bad_one_is_one_line():
    p = CB.player("catanatron:WeightedRandomPlayer:view=public")
    assert (p.view, p.args, p.name) == ("public", (), "catanatron:WeightedRandomPlayer:view=public")
    assert CB.player("catanatron:WeightedRandomPlayer").view == "true"
    with pytest.raises(CatansimError, match=r": view=all is not a view; allowed: view=true "
                                            r"\(every seat's true cards\), view=public") as e:
        CB.player("catanatron:RandomPlayer:view=all")
    assert "\n" not in str(e.value)
    with pytest.raises(CatansimError, match="2 views given; allowed: one"):
        CB.player("catanatron:RandomPlayer:view=true:view=public")


def test_the_public_view_deals_the_hidden_cards_and_keeps_the_rest():
    dealt_anew = 0
    for game, seat, _ in _positions([3, 4], per_kind=10):
        fork = game.determinize(seat, 7)
        # the played cards come from the game's record: a fork keeps no events
        cg = CB.mirror(fork, seat, played=CB.PlayedCards(), seed=5, record=game)
        _check_state(fork, cg, seat)
        ps = cg.state.player_state
        own, true = fork.observation(seat), game.observation(seat)
        assert own.hand.tolist() == true.hand.tolist()
        assert own.development_cards.tolist() == true.development_cards.tolist()
        for q in range(game.n_players):
            hand = [ps[f"P{q}_{r}_IN_HAND"] for r in CB.RESOURCES]
            assert sum(hand) == game.observation(q).hand.sum()
            dealt_anew += hand != game.observation(q).hand.tolist()
    assert dealt_anew >= 10  # the other seats' hands are not the true ones


def test_the_public_view_depends_only_on_what_the_seat_knows():
    for game, seat, _ in _positions([5], per_kind=5):
        twin = game.determinize(seat, 999)  # the same public record, other hidden cards
        a = CB.mirror(game.determinize(seat, 7), seat, seed=5, record=game)
        b = CB.mirror(twin.determinize(seat, 7), seat, seed=5, record=game)
        assert a.state.player_state == b.state.player_state
        assert a.state.development_listdeck == b.state.development_listdeck


@pytest.mark.parametrize("bot", ("WeightedRandomPlayer", "VictoryPointPlayer"))
def test_whole_games_of_the_public_view_finish_and_pass_the_log_checker(bot):
    for seed, seats in ((31, {0: f"{bot}:view=public"}),
                        (32, dict.fromkeys(range(4), f"{bot}:view=public"))):
        game = _play(seed, seats)
        assert game.winner is not None and max(game.vp) >= 10
        replay(*game_log(game.result()))


def test_a_game_of_the_public_view_depends_only_on_its_seed():
    seats = {1: "WeightedRandomPlayer:view=public", 3: "VictoryPointPlayer:view=public"}
    assert _play(33, seats).events == _play(33, seats).events


class Broken:
    """A catanatron player whose code fails."""

    def __init__(self, color):
        self.color = color

    def decide(self, game, playable_actions):
        raise ZeroDivisionError("division by zero\nand more")


def test_a_failing_bot_is_one_line():
    p = CB.CatanatronPlayer("test_ladder_bridge:Broken")
    with pytest.raises(CatansimError, match=r"the bot failed at turn 0 \(BUILD_INITIAL_SETTLEMENT"
                                            r"\): ZeroDivisionError: division by zero$"):
        _play_with(p, 4)


def _play_with(p, seed):
    p.new_game(seed, 0)
    game = Game(seed, settings=GameSettings(strategies=(p, "default", "default", "default")),
                log=True)
    p.watch(game)
    while not game.over:
        game.step(p.decide(game.observation(0), game.legal_options()))
