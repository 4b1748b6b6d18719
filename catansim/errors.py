"""Errors raised for bad user input (experiment files, CLI options, boards, strategies)."""


class CatansimError(ValueError):
    """A user-facing input error; its message is one line naming the field and allowed values.

    The CLI prints it as ``catansim: error: <message>`` and exits with status 2.
    """
