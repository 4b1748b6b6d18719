"""Tuning: a strategy's parameters searched against a field, judged game by game.

What lives here:

- ``spec``: tuning specs (TOML) read and validated into a ``TuneSpec``: the strategy
  and the parameters to search, the field, players, rules, layouts, the budget;
- ``space``: the search space, built at run time from ``PARAM_FIELDS`` of the compiled
  core (through ``strategies``: the parameters and their ranges have one home);
- ``arena``: one candidate's games: the same deals for every candidate (common random
  numbers), the candidate in every seat, locally or on Dask workers;
- ``study``: the Optuna study (TPE sampler, Wilcoxon racing on the paired deals),
  stored in a database (SQLite by default), resumed after any interruption; the
  finalists replayed and the answer chosen;
- ``heldout``: the answer re-measured on fresh deals against the start and every preset;
- ``report``: the tuned preset (TOML), the tables and figures, the HTML report;
- ``run``: ``tune``, the steps above in order.

Sits beside ``runs``: it plays games through the engine as a run does. May import
``engine``, ``strategies``, ``rules``, ``board``, ``checks``, ``errors``, ``files``,
``constants``, ``core.layout`` (the winner's counter), ``runs`` (tournament seatings,
the Dask client, the checks of an input file), ``analysis`` (the statistics and the
cross-play tables), ``plotting`` (the style) and ``reports`` (HTML rendering). Never
``commands`` or ``cli``.

Every module here needs Optuna (the ``tune`` extra); without it, importing this
package is a one-line ``CatansimError`` saying what to install.
"""

from __future__ import annotations

from ..errors import CatansimError

try:
    import optuna  # noqa: F401
except ImportError:
    raise CatansimError("tune: optuna is not installed; allowed: pip install "
                        "'catansim[tune]'") from None

from .run import tune

__all__ = ["tune"]
