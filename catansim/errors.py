"""Errors raised for bad user input (experiment files, CLI options, boards, strategies)."""


class CatansimError(ValueError):
    """A user-facing input error; its message is one line naming the field and allowed values.

    The CLI prints it as ``catansim: error: <message>`` and exits with status 2.
    """


class IllegalActionError(CatansimError):
    """A strategy chose an illegal action (raised with ``debug=True``, see ``sim.play_game``).

    The one-line message names the game's seed, the turn, the seat and its strategy, the
    decision and the value chosen: the first illegal action of the game, which the
    engine records in the state fields ``illegal_*`` (``core.layout``).
    """

    def __init__(self, seed: int, turn: int, seat: int, strategy: str, decision: str,
                 choice: str, count: int = 1):
        self.seed, self.turn, self.seat, self.strategy = seed, turn, seat, strategy
        self.decision, self.choice, self.count = decision, choice, count
        when = "setup (turn 0)" if turn == 0 else f"turn {turn}"
        more = f"; {count} illegal actions in this game" if count > 1 else ""
        super().__init__(f"illegal action: seed {seed}, {when}, seat {seat} ({strategy}), "
                         f"{decision}: chose {choice}{more}")

    @classmethod
    def from_state(cls, seed: int, strategies, s) -> "IllegalActionError":
        """The error for the first illegal action recorded in a final state ``s``."""
        from .core import layout as L

        seat = int(s[L.S_ILLEGAL_SEAT])
        decision = int(s[L.S_ILLEGAL_DECISION])
        value = s[L.S_ILLEGAL_VALUE : L.S_ILLEGAL_VALUE + L.ACT_SIZE]
        return cls(seed, int(s[L.S_ILLEGAL_TURN]), seat, strategies[seat],
                   L.DECISION_NAMES[decision], L.describe_choice(decision, value),
                   int(s[L.C_ILLEGAL]))
