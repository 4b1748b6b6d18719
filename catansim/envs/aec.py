"""``CatanAEC``: a PettingZoo AEC environment, one agent per seat it is given.

The agents are named ``seat_0`` .. ``seat_3`` after their seats; seats that are not
agents are played inside the compiled kernel by their strategies. The agent selected is
always the seat whose decision is pending. Rewards come once, when the game ends: +1 to
the winner, -1 to every other agent (also when a compiled seat wins); a game cut off at
the rules' ``max_turns`` ends with 0 for all, and is reported as a truncation.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from ..checks import check_players, check_seed
from ..errors import CatansimError
from ..game import Game
from ..rules import Rules
from ..settings import GameSettings
from ..strategies import PRESETS, StrategySet
from .spaces import ACTION_SIZE, OBS_SIZE, Table, observation_high


def observation_space(rules: Rules) -> spaces.Dict:
    """``observation``: float32[OBS_SIZE] (bounds: ``observation_high``);
    ``action_mask``: int8[ACTION_SIZE]."""
    return spaces.Dict({
        "observation": spaces.Box(low=0.0, high=observation_high(rules), shape=(OBS_SIZE,),
                                  dtype=np.float32),
        "action_mask": spaces.Box(low=0, high=1, shape=(ACTION_SIZE,), dtype=np.int8),
    })


def game_settings(n_players, strategies, rules, layout, board, strategy_set,
                  agent_seats, field="agent_seats") -> tuple[GameSettings, list[int]]:
    """The settings of the environments' games and their agents' seats, checked."""
    n_players = check_players(n_players, "n_players")
    settings = GameSettings(n_players=n_players, strategies=tuple(strategies),
                            layout=layout, board=board, rules=rules or Rules(),
                            strategy_set=strategy_set)
    if settings.players:
        raise CatansimError("strategies: Python players cannot play beside the agents; "
                            "allowed: names of compiled strategies")
    seats = list(range(n_players)) if agent_seats is None else sorted(
        {int(q) for q in agent_seats})
    if not seats or not all(0 <= q < n_players for q in seats):
        raise CatansimError(f"{field}: {agent_seats!r}; allowed: a non-empty set of "
                            f"seats in 0..{n_players - 1}")
    return settings, seats


class CatanAEC(AECEnv):
    """A game of CATAN for PettingZoo, one agent per seat of ``agent_seats``.

    Parameters
    ----------
    n_players : int
        3 or 4.
    agent_seats : iterable of int, optional
        The seats the agents play (default: all).
    strategies : tuple of str
        Compiled strategies (``catansim.strategies``), one per seat or one for all: they
        play the seats that are not agents, and an agent's entry is what
        ``game.suggest()`` consults for it.
    rules, layout, board, strategy_set
        As for ``catansim.play_game``.

    ``reset(seed=s)`` plays the game of seed ``s`` (as ``play_game(s)`` would, with the
    agents deciding); ``reset()`` draws the next seed from the environment's generator.
    ``game`` is the ``catansim.Game`` being played, ``table`` its ``Table``.
    """

    metadata = {"name": "catan_v0", "render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(self, n_players: int = 4, agent_seats=None, strategies=("default",),
                 rules: Rules | None = None, layout: str = "variable", board=None,
                 strategy_set: StrategySet = PRESETS, render_mode: str | None = None):
        super().__init__()
        self.settings, self._seats = game_settings(n_players, strategies, rules, layout,
                                                   board, strategy_set, agent_seats)
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise CatansimError(f"render_mode: {render_mode!r}; allowed: None, 'ansi'")
        self.render_mode = render_mode
        self.possible_agents = [f"seat_{q}" for q in self._seats]
        self._space = observation_space(self.settings.rules)
        self._action = spaces.Discrete(ACTION_SIZE)
        self.observation_spaces = dict.fromkeys(self.possible_agents, self._space)
        self.action_spaces = dict.fromkeys(self.possible_agents, self._action)
        self._rng = np.random.default_rng()
        self.game: Game | None = None
        self.table: Table | None = None

    def observation_space(self, agent):
        return self._space  # the same object for every agent and call

    def action_space(self, agent):
        return self._action

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            game_seed = check_seed(seed, "reset: seed")
            self._rng = np.random.default_rng(game_seed)
        else:
            game_seed = int(self._rng.integers(2**31))
        self.game = Game(game_seed, settings=self.settings, external=self._seats, log=False)
        self.table = Table(self.game)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = f"seat_{self.game.to_move}"

    def observe(self, agent: str) -> dict:
        if self.game is None:
            raise CatansimError("observe: no game yet; allowed: reset() first")
        seat = int(agent.removeprefix("seat_"))
        mask = (self.table.mask() if seat == self.game.to_move else
                np.zeros(ACTION_SIZE, dtype=np.int8))
        return {"observation": self.table.observe(seat), "action_mask": mask.copy()}

    def step(self, action) -> None:
        if self.game is None:
            raise CatansimError("step: no game yet; allowed: reset() first")
        if not self.agents:
            raise CatansimError("step: the game is over and every agent is done; allowed: "
                                "reset()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:
                raise CatansimError(f"step: {agent} is done (the game is over); allowed: "
                                    "None, PettingZoo's step of an agent that is done")
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0
        self.table.act(action)
        if self.game.over:
            winner = self.game.winner
            for a in self.agents:
                if winner is None:
                    self.truncations[a] = True
                else:
                    self.rewards[a] = 1 if a == f"seat_{winner}" else -1
                    self.terminations[a] = True
                self.infos[a] = {"winner": winner, "turns": self.game.turns,
                                 "vp": self.game.vp}
        else:
            self.agent_selection = f"seat_{self.game.to_move}"
        self._accumulate_rewards()

    def render(self) -> str | None:
        if self.render_mode == "ansi":
            return repr(self.game)
        return None

    def close(self) -> None:
        pass
