"""Runs: experiment files, the resumable runner (local or Dask), tournaments, benchmarks.

What lives here:

- ``experiment``: experiment files (TOML) read and validated into an ``Experiment``;
- ``file_checks``: the checks experiment files and tuning specs share (``InFile``: the
  file named in every error, a table's keys, a ``[rules]`` table, strategy definitions);
- ``runner``: plays an experiment's parts and writes them to a dataset
  (``catansim.results.dataset``), resumable, locally or on a Dask cluster;
- ``tournament``: strategies against each other with rotated seats, cross-play;
- ``bench``: games per second, end to end, compile times;
- ``pool``: independent tasks in this process or a pool of fresh processes, each
  result as it completes (a ladder's parts, a review's chunks).

May import everything below it on the data path: ``engine``, ``strategies``,
``rules``, ``board``, ``results``; and ``analysis`` for the tables of a tournament's
results (its statistics live there: ``analysis.stats``, ``analysis.crossplay``),
never the other way round. Never ``plotting`` or ``reports``.
"""
