"""The scripted player, compiled: one decision framework driven by a float64 parameter row.

These only accept NumPy arrays and scalars. Every archetype (builder, expander, city,
army, trader, default) is just a parameter row ``prm`` for the kernels here;
``core.policy_nb`` calls them for every strategy id other than ``random``.

The same player is written for a reader in ``catansim.players.reference``, and the
modules here are its twins, module for module and name for name (``name`` there,
``name_nb`` here); where a reference function is folded into a larger kernel, the
module's docstring says into which one:

- ``table_nb``: what a seat reads of the table (most of it is a field of the state);
- ``weights_nb``: the parameter row, slot by slot (``PARAM_FIELDS``);
- ``placement_nb``: the worth of a node, a city and a road, and the best of each;
- ``plan_nb``: the four builds ranked;
- ``trade_nb``: player-trade offers and answers, maritime trades;
- ``decisions_nb``: each decision;
- ``work_nb`` (compiled only): the work array a game lends its players.

To change a decision, change the reference first, then its twin here, with
``tests/test_reference_players.py`` as the judge (``docs/strategies.md``, Changing a
decision).

Speed: scripted players never enumerate all legal actions. A decision first looks at
the hand (what is affordable, what is missing), and only then scores the few candidate
nodes or edges the chosen build needs. Small functions called several times per
decision (the plan in the action decision and for each trade partner, the missing
and affordable cards, the maritime trade, the development card to play) are
``inline_kernel``s: a kernel call passes each array as seven machine words, which
inlining saves (``docs/history/performance.md``). ``action_nb`` above them stays a
kernel, as the two-process cold compile (``core.compiling``) compiles it in its own
part; it takes only the arrays the scripted player reads (the random streams for its
drawn ties and offers, no legal-action list).

May import: numpy, numba, the rest of ``catansim.core``, ``catansim.constants`` and
``catansim.topology`` (the core's rule).
"""
