"""``CatanEnv``: a Gymnasium environment, one agent's seat against compiled strategies.

The other seats are played inside the compiled kernel, so one ``step`` runs on to the
agent's next decision. The observation and action mask are ``CatanAEC``'s
(``catansim.envs.spaces``). The reward comes when the game ends: +1 if the agent won,
-1 if another seat did (``terminated``); 0 for a game cut off at the rules'
``max_turns`` (``truncated``).
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np

from ..checks import check_seed
from ..errors import CatansimError
from ..game import Game
from ..rules import Rules
from ..strategies import PRESETS, StrategySet
from .aec import game_settings, observation_space
from .spaces import ACTION_SIZE, Table, action_index, action_name

ILLEGAL = ("raise", "lose")


class CatanEnv(gym.Env):
    """A game of CATAN from ``seat``'s chair; the other seats play ``strategies``.

    Parameters
    ----------
    seat : int
        The agent's seat.
    n_players : int
        3 or 4.
    strategies : tuple of str
        Compiled strategies, one per seat or one for all (the agent's entry is what
        ``game.suggest()`` consults for it).
    illegal : str
        An action whose mask is 0: ``raise`` a ``CatansimError``, or ``lose`` (the
        episode ends with reward -1, as in pgx: for learners without masks, and for
        Gymnasium's ``check_env``, which steps with unmasked samples).
    rules, layout, board, strategy_set
        As for ``catansim.play_game``.

    ``reset(seed=s)`` plays the game of seed ``s``; ``reset()`` draws the next seed from
    ``np_random``. ``action_masks()`` returns the mask (sb3-contrib's convention);
    ``game`` is the ``catansim.Game`` being played.
    """

    metadata = {"render_modes": ["ansi"]}

    def __init__(self, seat: int = 0, n_players: int = 4, strategies=("default",),
                 illegal: str = "raise", rules: Rules | None = None,
                 layout: str = "variable", board=None, strategy_set: StrategySet = PRESETS,
                 render_mode: str | None = None):
        if illegal not in ILLEGAL:
            raise CatansimError(f"illegal: {illegal!r}; allowed: " + ", ".join(ILLEGAL))
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise CatansimError(f"render_mode: {render_mode!r}; allowed: None, 'ansi'")
        if not isinstance(seat, int | np.integer) or isinstance(seat, bool):
            raise CatansimError(f"seat: {seat!r}; allowed: a seat in 0..{n_players - 1}")
        self.settings, seats = game_settings(n_players, strategies, rules, layout, board,
                                             strategy_set, [seat], field="seat")
        self.seat = seats[0]
        self.illegal = illegal
        self.render_mode = render_mode
        self.observation_space = observation_space(self.settings.rules)
        self.action_space = gym.spaces.Discrete(ACTION_SIZE)
        self.game: Game | None = None
        self.table: Table | None = None
        self._done = True

    def _obs(self) -> dict:
        return {"observation": self.table.observe(self.seat),
                "action_mask": self.table.mask().copy()}

    def action_masks(self) -> np.ndarray:
        """The legal actions now (int8[ACTION_SIZE]), as in the observation."""
        return self.table.mask().copy()

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None:  # before Gymnasium's own check, which refuses np.int64
            seed = check_seed(seed, "reset: seed")
        super().reset(seed=seed)
        game_seed = seed if seed is not None else int(self.np_random.integers(2**31))
        self.game = Game(game_seed, settings=self.settings, external=[self.seat], log=False)
        self.table = Table(self.game)
        self._done = False
        return self._obs(), {"seed": game_seed}

    def step(self, action):
        if self.game is None:
            raise CatansimError("step: no episode yet; allowed: reset() first")
        if self._done:
            raise CatansimError("step: the episode is over; allowed: reset()")
        a = action_index(action)
        if self.illegal == "lose" and not (0 <= a < ACTION_SIZE and self.table.mask()[a]):
            self._done = True
            return self._obs(), -1.0, True, False, {"illegal": action_name(a)}
        self.table.act(a)
        if not self.game.over:
            return self._obs(), 0.0, False, False, {}
        self._done = True
        winner = self.game.winner
        info = {"winner": winner, "turns": self.game.turns, "vp": self.game.vp}
        if winner is None:
            return self._obs(), 0.0, False, True, info
        return self._obs(), 1.0 if winner == self.seat else -1.0, True, False, info

    def render(self) -> str | None:
        if self.render_mode == "ansi":
            return repr(self.game)
        return None
