"""The environments (``catansim.envs``): PettingZoo's and Gymnasium's own checkers pass;
the mask is exactly the legal options and every masked action plays one of them; a
seat's observation does not change when only hidden information does; an agent that
takes every suggestion plays the kernel's game.
"""

from __future__ import annotations

import sys
import warnings

import numpy as np
import pytest
from test_honest_players import _deal_hidden
from test_invariants import CONFIGS

pytest.importorskip("pettingzoo")
from gymnasium.utils.env_checker import check_env  # noqa: E402
from pettingzoo.test import api_test  # noqa: E402

from catansim.engine import play_game  # noqa: E402
from catansim.envs import CatanAEC, CatanEnv  # noqa: E402
from catansim.envs.spaces import (  # noqa: E402
    ACTION_OFFSET,
    ACTION_SIZE,
    ACTIONS,
    OBS_OFFSET,
    Table,
    action_name,
    actions_markdown,
    encode,
    observation_markdown,
    option_index,
)
from catansim.errors import CatansimError  # noqa: E402
from catansim.rules import Rules  # noqa: E402


def _quiet_api_test(env, cycles):
    with warnings.catch_warnings():
        # Dict observations and all-zero masks of seats not to move are by design
        warnings.filterwarnings("ignore", message="Observation (space for each agent|is not)")
        api_test(env, num_cycles=cycles)


def test_the_aec_environment_passes_pettingzoo_api_test():
    _quiet_api_test(CatanAEC(), 400)  # four agents
    env = CatanAEC(n_players=3, agent_seats=[1], strategies=("default",))
    _quiet_api_test(env, 300)  # one agent among compiled seats: games end within it
    assert env.possible_agents == ["seat_1"]


def _random_game(env, seed, rng, check):
    """Play env's game of ``seed`` with random masked actions, calling ``check(env)``
    before each; returns the final infos."""
    env.reset(seed=seed)
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        assert agent == f"seat_{env.game.to_move}"
        check(env, obs)
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return info, reward


@pytest.mark.parametrize("name", ["official-4", "friendly-3", "strict-bank6-4",
                                  "unlimited-nodiscard-4"])
def test_random_masked_actions_are_legal_options_and_games_finish(name):
    n, layout, rules, _ = CONFIGS[name]
    rules = Rules(**{**rules, "max_turns": 300})
    env = CatanAEC(n_players=n, layout=layout, rules=rules)
    rng = np.random.default_rng(1)
    kinds_seen = set()

    def check(env, obs):
        mask, table, game = obs["action_mask"], env.table, env.game
        assert mask.dtype == np.int8 and set(np.unique(mask)) <= {0, 1}
        assert env.observation_space(env.agent_selection).contains(obs)
        options = game.legal_options()
        if game.decision in ("discard", "Invention"):
            kind = "discard" if game.decision == "discard" else "invention"
            off = ACTION_OFFSET[kind]
            assert mask.sum() == mask[off : off + 5].sum() > 0
            side = "give" if kind == "discard" else "get"
            bundles = np.array([getattr(o, side) for o in options])
            for r in np.flatnonzero(mask[off : off + 5]):  # some legal bundle holds it
                more = table.picked.copy()
                more[r] += 1
                assert (bundles >= more).all(axis=1).any()
            kinds_seen.add(kind)
            return
        assert mask.sum() == len(options)  # one action per option, none shared
        for o in options:
            a = option_index(o, game.to_move, n)
            assert mask[a] == 1 and table.option(a) == o
            words = action_name(a).split()
            assert words[0] == o.kind
            if o.kind in ("road", "settlement", "city", "robber"):
                assert words[1] == str(o.target)
            kinds_seen.add(o.kind)

    for seed in range(4):
        info, reward = _random_game(env, seed, rng, check)
        assert env.game.over and env.agents == []
        if info["winner"] is None:
            assert info["turns"] == 300 and reward == 0
        else:
            assert info["vp"][info["winner"]] >= rules.vp_to_win and reward in (1, -1)
    assert kinds_seen >= {"road", "settlement", "roll", "end", "robber", "steal"}


def test_every_action_kind_is_reached_by_random_agents():
    env = CatanAEC()
    rng = np.random.default_rng(2)
    seen = np.zeros(ACTION_SIZE, dtype=bool)

    def check(env, obs):
        seen[:] |= obs["action_mask"].astype(bool)

    for seed in range(3):
        _random_game(env, seed, rng, check)
    for name, size, _ in ACTIONS:
        off = ACTION_OFFSET[name]
        assert seen[off : off + size].any(), name


def test_an_observation_vector_does_not_change_when_only_hidden_information_does():
    rng = np.random.default_rng(3)
    env = CatanAEC(agent_seats=[0, 2])
    compared = hidden_differed = 0
    for seed in range(12):
        env.reset(seed=seed)
        turn_at = OBS_OFFSET["turn"]
        while env.agents and env.observe(env.agent_selection)["observation"][turn_at] < \
                6 + 4 * (seed % 9):
            obs = env.observe(env.agent_selection)
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        if env.game.over:
            continue
        seat = env.game.to_move
        s1, s2 = _deal_hidden(env.game.s, seat, rng)
        views, masks = [], []
        for s in (s1, s2):
            twin = env.game.fork()
            twin.s[:] = s
            views.append(encode(twin.observation(seat)))
            masks.append(Table(twin).mask())
        assert np.array_equal(views[0], views[1])
        assert np.array_equal(masks[0], masks[1])
        compared += 1
        hidden_differed += not np.array_equal(s1, s2)
        # the comparison has teeth: the seat's own cards do show
        own = env.game.fork()
        own.s[:] = s1
        from catansim.core import layout as L

        own.s[L.S_HAND + 5 * seat] += 1
        assert not np.array_equal(encode(own.observation(seat)), views[0])
    assert compared >= 10 and hidden_differed >= 6


def _follow_suggestions(env):
    """Step ``env`` (a CatanEnv, reset) with the agent seat's suggestions to the end."""
    while True:
        game = env.game
        o = game.suggest()
        if o.kind in ("discard", "invention"):
            cards = o.give if o.kind == "discard" else o.get
            actions = [ACTION_OFFSET[o.kind] + r for r in range(5) for _ in range(cards[r])]
        else:
            actions = [option_index(o, game.to_move, game.n_players)]
        for a in actions:
            obs, reward, term, trunc, info = env.step(a)
        if term or trunc:
            return reward, term, trunc, info


# default's offers may ask more cards than the action space's one-for-one offers hold
@pytest.mark.parametrize("strategy", ["classic", "trader", "random"])
def test_an_agent_taking_the_suggestions_plays_the_kernels_game(strategy):
    for seed in range(6):
        n = 3 + seed % 2
        env = CatanEnv(seat=seed % n, n_players=n, strategies=(strategy,))
        env.reset(seed=seed)
        reward, term, trunc, info = _follow_suggestions(env)
        kernel = play_game(seed, n, (strategy,), log=False)
        assert env.game.result().counters.tolist() == kernel.counters.tolist()
        assert (info["winner"], info["turns"], info["vp"]) == (kernel.winner, kernel.turns,
                                                               kernel.vp)
        assert reward == (0 if kernel.winner is None else
                          1 if kernel.winner == env.seat else -1)
        assert (term, trunc) == (kernel.winner is not None, kernel.winner is None)


def test_the_gymnasium_environment_passes_check_env():
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*alternative render modes")
        check_env(CatanEnv(illegal="lose"))
        check_env(CatanEnv(seat=2, n_players=3, illegal="lose",
                           rules=Rules(bank_per_resource=None)))


def test_the_gymnasium_environment_is_reproducible_and_ends_with_its_reward():
    runs = []
    for _ in range(2):
        env = CatanEnv(seat=1)
        rng = np.random.default_rng(5)
        obs, info = env.reset(seed=11)
        assert info["seed"] == 11 and np.array_equal(obs["action_mask"], env.action_masks())
        trace = [obs["observation"]]
        while True:
            a = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            obs, reward, term, trunc, info = env.step(a)
            trace.append(obs["observation"])
            if term or trunc:
                break
        assert not obs["action_mask"].any()
        assert reward == (1 if info["winner"] == 1 else -1)
        runs.append(np.array(trace))
    assert np.array_equal(runs[0], runs[1])
    env.reset()  # the next game's seed comes from the generator: a different board
    again = env.reset(seed=11)[0]["observation"]
    assert np.array_equal(again, runs[0][0])


def test_illegal_actions_raise_or_lose_as_asked():
    env = CatanEnv()
    obs, _ = env.reset(seed=3)
    bad = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    with pytest.raises(CatansimError, match="not legal for the pending setup settlement"):
        env.step(bad)
    with pytest.raises(CatansimError, match="not an integer"):
        env.step("road")
    lose = CatanEnv(illegal="lose")
    lose.reset(seed=3)
    _, reward, term, trunc, info = lose.step(bad)
    assert (reward, term, trunc) == (-1.0, True, False) and "illegal" in info
    with pytest.raises(CatansimError, match="episode is over"):
        lose.step(bad)


@pytest.mark.parametrize("make, message", [
    (lambda: CatanAEC(agent_seats=[5]), "agent_seats"),
    (lambda: CatanAEC(agent_seats=[]), "agent_seats"),
    (lambda: CatanAEC(strategies=("nobody",)), "unknown strategy"),
    (lambda: CatanAEC(render_mode="human"), "render_mode"),
    (lambda: CatanEnv(illegal="skip"), "illegal"),
    (lambda: CatanEnv(seat=4), "seats in 0..3"),
    (lambda: CatanEnv(n_players=5), "n_players"),
])
def test_bad_settings_are_one_line(make, message):
    with pytest.raises(CatansimError, match=message) as e:
        make()
    assert "\n" not in str(e.value)


def test_a_missing_extra_is_one_line(monkeypatch):
    import catansim.envs as envs

    monkeypatch.setitem(sys.modules, "pettingzoo", None)
    monkeypatch.delitem(sys.modules, "catansim.envs.aec", raising=False)
    with pytest.raises(CatansimError, match=r"pip install 'catansim\[env\]'"):
        _ = envs.CatanAEC


def test_the_docs_tables_are_generated_from_the_spaces():
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs" / "envs.md").read_text()
    assert actions_markdown() in text
    assert observation_markdown() in text


def test_the_gymnasium_id_makes_a_catan_env_that_check_env_passes_as_it_is():
    import gymnasium

    from catansim import envs

    assert envs.ENV_ID == "catansim/Catan-v0" and envs.ENV_ID in gymnasium.registry
    env = gymnasium.make("catansim/Catan-v0")
    assert isinstance(env.unwrapped, CatanEnv) and env.unwrapped.illegal == "lose"
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*(alternative render modes|render fps)")
        check_env(env.unwrapped)
    # keyword arguments reach CatanEnv; the same seed plays the same game as CatanEnv's
    made = gymnasium.make("catansim/Catan-v0", seat=2, n_players=3, illegal="raise").unwrapped
    assert (made.seat, made.settings.n_players, made.illegal) == (2, 3, "raise")
    direct = CatanEnv(seat=2, n_players=3)
    obs_made, _ = made.reset(seed=11)
    obs_direct, _ = direct.reset(seed=11)
    assert np.array_equal(obs_made["observation"], obs_direct["observation"])
    assert np.array_equal(obs_made["action_mask"], obs_direct["action_mask"])
    with pytest.raises(CatansimError, match="seat"):
        gymnasium.make("catansim/Catan-v0", seat=7)


def test_the_gymnasium_id_imports_catansim_envs_itself():
    import subprocess

    code = ("import gymnasium; env = gymnasium.make('catansim.envs:catansim/Catan-v0'); "
            "print(type(env.unwrapped).__name__, env.unwrapped.illegal)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.split() == ["CatanEnv", "lose"]


# --- the edges (#56): one line, never a raw numpy, KeyError or AttributeError ---------------


@pytest.mark.parametrize("action", [72.9, 1.0, True, np.float64(3), np.array(2.5), "1", None])
def test_an_action_that_is_no_integer_is_refused_not_rounded(action):
    """72.9 played action 72 and True action 1: both environments, both illegal modes."""
    for env in (CatanEnv(), CatanEnv(illegal="lose"), CatanAEC()):
        env.reset(seed=3)
        before = env.game.s.copy()
        with pytest.raises(CatansimError, match=r"^step: action .* is not an integer; "
                           r"allowed: 0\.\.\d+ with action_mask 1$"):
            env.step(action)
        assert np.array_equal(env.game.s, before)  # nothing played


def test_numpy_integer_actions_play_as_plain_ones():
    plain, numpy_ = CatanEnv(seat=1), CatanEnv(seat=1)
    obs, _ = plain.reset(seed=11)
    numpy_.reset(seed=np.int64(11))
    rng = np.random.default_rng(2)
    for k in range(200):
        a = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        obs, *_, term, trunc, _ = plain.step(a)
        numpy_.step(np.int64(a) if k % 2 else np.array(a, dtype=np.int32))
        assert np.array_equal(plain.game.s, numpy_.game.s)
        if term or trunc:
            break


@pytest.mark.parametrize("seed, needle", [
    (-5, "-5 is not allowed"), (2**63, "9223372036854775808 is not allowed"),
    (1.5, "1.5 is not allowed"), (True, "True is not allowed"), ("7", "'7' is not allowed"),
])
@pytest.mark.parametrize("make", [CatanEnv, CatanAEC])
def test_a_bad_seed_is_one_line_and_numpy_seeds_are_seeds(make, seed, needle):
    env = make()
    with pytest.raises(CatansimError, match=rf"^reset: seed: {needle}; allowed: an integer in "
                       r"\[0, 2\*\*63\)$"):
        env.reset(seed=seed)
    env.reset(seed=np.int64(9))
    first = env.game.s.copy()
    env.reset(seed=9)
    assert np.array_equal(env.game.s, first)  # np.int64(9) is seed 9


def test_the_aec_environment_before_reset_and_after_the_end_is_one_line():
    env = CatanAEC(n_players=3, agent_seats=[1], strategies=("default",))
    with pytest.raises(CatansimError, match=r"^step: no game yet; allowed: reset\(\) first$"):
        env.step(0)
    with pytest.raises(CatansimError, match=r"^observe: no game yet; allowed: reset\(\) first$"):
        env.observe("seat_1")
    env.reset(seed=4)
    rng = np.random.default_rng(0)
    for agent in env.agent_iter():  # the game played to its end with random masked actions
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            with pytest.raises(CatansimError, match=rf"^step: {agent} is done \(the game is "
                               r"over\); allowed: None"):
                env.step(0)
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert env.game.over and env.agents == []
    with pytest.raises(CatansimError, match=r"^step: the game is over and every agent is done; "
                       r"allowed: reset\(\)$"):
        env.step(None)


def test_the_gymnasium_environment_before_reset_is_one_line():
    with pytest.raises(CatansimError, match=r"^step: no episode yet; allowed: reset\(\) first"):
        CatanEnv().step(0)
