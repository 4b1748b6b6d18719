"""The value of starting positions: forced-opening arms against the free-choice baseline.

A sweep (``docs/experiments.md``) plays the same games (same board, dice, deck and
decision streams) once with every seat choosing its own openings (the baseline) and
once per arm, an arm forcing one seat's first or second settlement (or both) onto a
node. So each arm's value is a **paired** difference in that seat's win probability,
game by game, against what the strategy would have chosen: the per-game differences
take the values -1, 0 and +1, their mean has a paired t interval and McNemar's test
gives its p-value (``paired_binary``, vectorised over arms); the many arms of
one seat are corrected together (Benjamini-Hochberg by default).

- ``opening_values(source)``: one pass, a dict of tables: ``arms`` (the value map:
  one row per arm), ``effects`` (every seat's paired difference in every arm),
  ``tallies`` (seat-games and wins per variant, seat and opening: the rows of the
  win model), ``baseline`` (per seat, settlement and node: how often the node was
  free at that seat's turn in the baseline, and how often the strategy chose it) and
  ``halves`` (the paired counts of even and odd games, for honest selection);
- ``placement(values)``: where the strategy's own choice ranks among the nodes free
  at its turn, how many are significantly better, and what a data-driven choice
  would gain, estimated out of sample (chosen on one half of the games, measured on
  the other);
- ``seat_interaction(arms)``: does a node's value depend on the seat that takes it
  (logistic model with and without the node x seat interaction, likelihood-ratio
  test), with the rank correlation of the seats' value maps;
- ``opening_features(board, openings)`` and ``fit_opening_model(rows)``: what makes a
  good opening, a logistic regression of winning on opening features (total pips,
  pips per resource, diversity, entropy, scarce pips, lowest income, 6/8 access, both
  settlements on one hex, harbors, coast, seat) with cluster-robust intervals and
  out-of-sample calibration on held-out boards.

Arms are read from the variant names (``catansim.results.arms``): nothing else is
needed, so in-memory frames work as well as dataset folders.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import statsmodels.api as sm
import statsmodels.formula.api as smf
from scipy.stats import chi2, spearmanr
from scipy.stats import t as student
from statsmodels.stats.proportion import confint_proportions_2indep

from ..constants import N_NODES, PIPS, RESOURCE_NAMES
from ..core.layout import B_HARBOR, B_NUMBER, B_TERRAIN, BOARD_SIZE
from ..errors import CatansimError
from ..results import dataset as D
from ..results.arms import parse_arm
from ..results.schema import DEFAULT_VARIANT
from ..topology import HARBOR_NODES, NODE_HEXES, NODE_NEIGHBOURS
from . import stats as S
from .driver import Analysis, Chunk, Context, reads_source, run, variant_check

RES = tuple(RESOURCE_NAMES)
SETTLEMENTS = ("first", "second")
HARBOR_ANY = 5  # harbor kind code of a generic 3:1 harbor (0-4: 2:1 of that resource)
DESERT = 5  # terrain code of the desert (0-4 produce the resource of the same code)
MCNEMAR = "McNemar test (statsmodels)"
_NB = np.where(NODE_NEIGHBOURS >= 0, NODE_NEIGHBOURS, N_NODES)  # (54, 3), -1 -> a spare column


# --- one pass over the games -----------------------------------------------------------------


def _codes(chunk: Chunk) -> tuple[np.ndarray, list[str]]:
    """The players rows' variant as integer codes, and the names of the codes."""
    v = chunk.players["variant"]
    if isinstance(v.dtype, pd.CategoricalDtype):
        return v.cat.codes.to_numpy().astype(np.int64), [str(c) for c in v.cat.categories]
    codes, names = pd.factorize(v.astype(str))
    return codes.astype(np.int64), [str(n) for n in names]


def snake_order(n_players: int) -> list[tuple[int, int]]:
    """The set-up's placements in order: (seat, settlement 0 or 1), seat 0 first."""
    return [(s, 0) for s in range(n_players)] + [(s, 1) for s in reversed(range(n_players))]


def _baseline_stats(n1: np.ndarray, n2: np.ndarray) -> dict:
    """From the baseline's starting nodes (games x seats): in how many games each node was
    free (Distance Rule) when each seat placed each settlement, and how often it was chosen."""
    g, n_players = n1.shape
    legal = np.zeros((n_players, 2, N_NODES), dtype=np.int64)
    chosen = np.zeros((n_players, 2, N_NODES), dtype=np.int64)
    blocked = np.zeros((g, N_NODES + 1), dtype=bool)
    rows = np.arange(g)
    for seat, k in snake_order(n_players):
        node = (n1, n2)[k][:, seat]
        legal[seat, k] = (~blocked[:, :N_NODES]).sum(axis=0)
        chosen[seat, k] = np.bincount(node, minlength=N_NODES)
        blocked[rows, node] = True
        for j in range(3):
            blocked[rows, _NB[node, j]] = True
    return {"legal": legal, "chosen": chosen, "games": np.int64(g)}


TALLY_KEYS = ["variant", "seat", "start_node_1", "start_node_2", "opp_pips"]


def _values_map(baseline: str | None):
    def f(chunk: Chunk):
        p = chunk.players
        if not len(p):
            return {}
        codes, names = _codes(chunk)
        base = baseline if baseline is not None else (
            DEFAULT_VARIANT if DEFAULT_VARIANT in chunk.variants else chunk.variants[0])
        game = p["game"].to_numpy().astype(np.int64)
        seat = p["seat"].to_numpy().astype(np.int64)
        won = p["won"].to_numpy().astype(bool)
        node1 = p["start_node_1"].to_numpy().astype(np.int64)
        node2 = p["start_node_2"].to_numpy().astype(np.int64)
        n_players = int(seat.max()) + 1
        n_var = len(names)
        g0 = int(game.min())
        n_games = int(game.max()) - g0 + 1
        gi = game - g0
        out: dict = {}

        # seat-games and wins per variant, seat, opening and the opponents' starting pips
        # (exact, for the win model)
        pips = (p["start_pips_1"].to_numpy().astype(np.int64)
                + p["start_pips_2"].to_numpy().astype(np.int64))
        table = np.zeros((n_var, n_games), dtype=np.int64)
        np.add.at(table, (codes, gi), pips)
        opp = table[codes, gi] - pips
        span = int(opp.max()) + 1
        key = (((codes * n_players + seat) * N_NODES + node1) * N_NODES + node2) * span + opp
        uk, inv = np.unique(key, return_inverse=True)
        rest, ok = np.divmod(uk, span)
        rest, n2k = np.divmod(rest, N_NODES)
        rest, n1k = np.divmod(rest, N_NODES)
        vk, sk = np.divmod(rest, n_players)
        tallies = pd.DataFrame({
            "seat_games": np.bincount(inv, minlength=uk.size).astype(np.int64),
            "wins": np.bincount(inv, weights=won, minlength=uk.size).astype(np.int64)},
            index=pd.MultiIndex.from_arrays(
                [np.asarray(names, dtype=object)[vk], sk, n1k, n2k, ok],
                names=TALLY_KEYS))
        out["tallies"] = tallies

        if base not in names:
            return out
        b = names.index(base)
        present = np.zeros((n_var, n_games), dtype=bool)
        present[codes, gi] = True
        w = np.zeros((n_var, n_games, n_players), dtype=bool)
        w[codes, gi, seat] = won
        rb = codes == b
        bn1 = np.full((n_games, n_players), -1, dtype=np.int64)
        bn2 = np.full((n_games, n_players), -1, dtype=np.int64)
        bn1[gi[rb], seat[rb]] = node1[rb]
        bn2[gi[rb], seat[rb]] = node2[rb]
        out["baseline"] = _baseline_stats(bn1[present[b]], bn2[present[b]])

        both = present & present[b][None, :]  # (V, G): games played in the variant and base
        wb = w[b][None, :, :]
        parity = ((g0 + np.arange(n_games)) % 2).astype(bool)
        pairs = np.zeros((n_var, 2, n_players, 4), dtype=np.int64)  # n, n11, n10, n01
        for half, sel in enumerate((~parity, parity)):
            m = both & sel[None, :]
            mm = m[:, :, None]
            pairs[:, half, :, 0] = m.sum(axis=1)[:, None]
            pairs[:, half, :, 1] = (mm & w & wb).sum(axis=1)
            pairs[:, half, :, 2] = (mm & w & ~wb).sum(axis=1)
            pairs[:, half, :, 3] = (mm & ~w & wb).sum(axis=1)
        out["pairs"] = {names[v]: pairs[v] for v in range(n_var)
                        if v != b and pairs[v, :, 0, 0].sum() > 0}
        out["base"] = base
        return out
    return f


def _combine(a, b):
    if not a:
        return b
    if not b:
        return a
    out = dict(a)
    for k, v in b.items():
        if k == "base":
            out[k] = v
        elif k in out:
            out[k] = _add(out[k], v)
        else:
            out[k] = v
    return out


def _add(a, b):
    if isinstance(a, dict):
        out = dict(a)
        for k, v in b.items():
            out[k] = v if k not in out else _add(out[k], v)
        return out
    if isinstance(a, pd.DataFrame):
        return a.add(b, fill_value=0).astype(np.int64)
    return a + b


PAIRED_BINARY = ("paired: t interval of the per-game difference (scipy.stats.t); unpaired: "
                 "Wald interval of two independent rates (statsmodels "
                 "confint_proportions_2indep); p: " + MCNEMAR)


def paired_binary(n, only_arm, only_base, both, confidence: float = S.CONFIDENCE
                  ) -> pd.DataFrame:
    """Paired comparisons of a win (arm - baseline) from the counts of each pair type,
    vectorised over rows: ``n`` games played in both, ``only_arm`` / ``only_base`` the
    games won in one arm only, ``both`` won in both.

    The per-game difference takes the values +1 (``only_arm`` games), -1 (``only_base``)
    and 0; ``diff`` is its mean with the t interval (``scipy.stats.t.interval``, n - 1
    degrees of freedom, the sample sd of the differences), as
    ``stats.compare_paired`` gives it from the same differences (tested), ``p_value`` is
    McNemar's test (``stats.mcnemar_p``), ``unpaired_ci_low``/``_high`` the Wald interval
    of two independent rates of the same size, ``width_ratio`` paired / unpaired width.
    """
    n, a, b, w11 = (np.asarray(x, dtype=np.int64) for x in (n, only_arm, only_base, both))
    nf = n.astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        diff = (a - b) / nf
        var = np.where(n > 1, ((a + b) / nf - diff ** 2) * nf / (nf - 1), np.nan)
        var = np.maximum(var, 0.0)
        se = np.sqrt(var / nf)
        lo, hi = student.interval(confidence, np.maximum(n - 1, 1), loc=diff,
                                  scale=np.where(se > 0, se, 1.0))
        lo, hi = np.where(se > 0, lo, diff), np.where(se > 0, hi, diff)
        lo, hi = np.where(n > 1, lo, np.nan), np.where(n > 1, hi, np.nan)
        wins, base_wins = a + w11, b + w11
        ok = n > 0
        ulo = np.full(n.shape, np.nan)
        uhi = np.full(n.shape, np.nan)
        if ok.any():
            ulo[ok], uhi[ok] = confint_proportions_2indep(
                wins[ok], n[ok], base_wins[ok], n[ok], method="wald", compare="diff",
                alpha=1 - confidence)
        width = uhi - ulo
        sd = np.sqrt(var)
        out = pd.DataFrame({
            "n": n, "wins": wins, "base_wins": base_wins, "only_arm": a, "only_base": b,
            "base_mean": base_wins / nf, "mean": wins / nf, "diff": diff, "ci_low": lo,
            "ci_high": hi, "unpaired_ci_low": ulo, "unpaired_ci_high": uhi,
            "width_ratio": np.where(width > 0, (hi - lo) / width, np.nan), "sd_diff": sd,
            "dz": np.where(sd > 0, diff / sd, np.nan)})
    out["p_value"] = [S.mcnemar_p(y, x) if m else np.nan for x, y, m in
                      zip(a.tolist(), b.tolist(), n.tolist(), strict=True)]
    return out


def _paired_frame(pairs: dict, arms_only: bool) -> pd.DataFrame:
    keys, counts = [], []
    for v, c in pairs.items():
        arm = parse_arm(v)
        if arms_only and arm is None:
            continue
        tot = c.sum(axis=0)  # both halves: (seats, [n, n11, n10, n01])
        for s in ([arm.seat] if arms_only else range(tot.shape[0])):
            keys.append((v, s))
            counts.append(tot[s])
    if not keys:
        return pd.DataFrame()
    c = np.array(counts)
    out = paired_binary(c[:, 0], c[:, 2], c[:, 3], c[:, 1])
    out.insert(0, "seat", [s for _, s in keys])
    out.insert(0, "variant", [v for v, _ in keys])
    return out


def _values_finish(correction: str):
    def f(stats, ctx: Context) -> dict:
        if not stats or "pairs" not in stats:
            raise CatansimError("openings: no baseline to compare the arms with; allowed: a "
                                "dataset whose baseline variant plays the same games as the arms")
        pairs = stats["pairs"]
        order = {v: i for i, v in enumerate(ctx.variants)}
        pairs = dict(sorted(pairs.items(), key=lambda kv: order.get(kv[0], len(order))))
        bstats = stats["baseline"]
        n_base = int(bstats["games"])
        effects = _paired_frame(pairs, arms_only=False)
        arms = _paired_frame(pairs, arms_only=True)
        if effects.empty:
            effects = pd.DataFrame(columns=["variant", "seat", "n"])
        effects = effects.assign(forced=_forced(effects["variant"], effects["seat"]))
        effects["method"] = PAIRED_BINARY
        effects = effects.set_index(["variant", "seat"])

        tallies = stats["tallies"].astype(np.int64).sort_index()
        if len(arms):
            parsed = [parse_arm(v) for v in arms["variant"]]
            arms["kind"] = [a.kind for a in parsed]
            arms["node"] = [a.node for a in parsed]
            arms["node_2"] = [a.node_2 for a in parsed]
            arms["road"] = [a.roads[0] for a in parsed]
            arms["road_2"] = [a.roads[1] if len(a.roads) > 1 else -1 for a in parsed]
            arms["win_rate"] = arms["wins"] / arms["n"]
            arms["win_ci_low"], arms["win_ci_high"] = S.wilson_ci(arms["wins"], arms["n"])
            arms["base_win_rate"] = arms["base_wins"] / arms["n"]
            legal, chosen = bstats["legal"], bstats["chosen"]
            k = np.array([0 if a.kind == "first" else 1 for a in parsed])
            s = arms["seat"].to_numpy()
            nd = arms["node"].to_numpy()
            arms["legal_share"] = legal[s, k, nd] / n_base if n_base else np.nan
            arms["chosen_share"] = chosen[s, k, nd] / n_base if n_base else np.nan
            pair = arms["kind"].to_numpy() == "pair"
            nd2 = arms["node_2"].to_numpy()
            arms.loc[pair, "legal_share"] = np.nan  # a pair is not one placement
            arms.loc[pair, "chosen_share"] = (
                _pair_share(tallies, DEFAULT_VARIANT if DEFAULT_VARIANT in ctx.variants
                            else stats.get("base"), s[pair], nd[pair], nd2[pair]) / n_base
                if n_base else np.nan)
            other, other_share = _other_settlement(tallies, arms)
            arms["other_node"], arms["other_share"] = other, other_share
            arms["p_adjusted"] = np.nan
            arms["significant"] = False
            for _, idx in arms.groupby(["seat", "kind"], sort=False).groups.items():
                adj, sig = S.adjust(arms.loc[idx, "p_value"], correction)
                arms.loc[idx, "p_adjusted"], arms.loc[idx, "significant"] = adj, sig
            arms["rank"] = (arms.groupby(["seat", "kind"])["diff"]
                            .rank(ascending=False, method="min").astype("Int64"))
            arms["method"] = f"win rate: {S.WILSON}; diff: {PAIRED_BINARY}"
            arms["correction"] = (f"{S.METHOD_NAMES[correction]} over the arms of each seat "
                                  "and kind")
            arms = arms.set_index("variant")[ARM_COLUMNS]
        halves = []
        for v, c in pairs.items():
            arm = parse_arm(v)
            if arm is None:
                continue
            for h in (0, 1):
                n, n11, n10, n01 = (int(x) for x in c[h, arm.seat])
                halves.append({"variant": v, "half": h, "n": n, "only_arm": n10,
                               "only_base": n01, "both": n11})
        halves = (pd.DataFrame(halves).set_index(["variant", "half"]) if halves else
                  pd.DataFrame(columns=["n", "only_arm", "only_base", "both"]))
        base_rows = []
        for seat in range(bstats["legal"].shape[0]):
            for k in (0, 1):
                for node in range(N_NODES):
                    base_rows.append({"seat": seat, "settlement": SETTLEMENTS[k], "node": node,
                                      "games": n_base,
                                      "legal": int(bstats["legal"][seat, k, node]),
                                      "chosen": int(bstats["chosen"][seat, k, node])})
        base = pd.DataFrame(base_rows).set_index(["seat", "settlement", "node"])
        base["legal_share"] = base["legal"] / n_base if n_base else np.nan
        base["chosen_share"] = base["chosen"] / n_base if n_base else np.nan
        return {"arms": arms, "effects": effects, "tallies": tallies, "baseline": base,
                "halves": halves, "correction": correction,
                "baseline_variant": stats.get("base", DEFAULT_VARIANT)}
    return f


ARM_COLUMNS = ["seat", "kind", "node", "node_2", "road", "road_2", "n", "wins", "win_rate",
               "win_ci_low", "win_ci_high", "base_wins", "base_win_rate", "diff", "ci_low",
               "ci_high", "unpaired_ci_low", "unpaired_ci_high", "width_ratio", "sd_diff",
               "p_value", "p_adjusted", "significant", "rank", "legal_share", "chosen_share",
               "other_node", "other_share", "only_arm", "only_base", "method", "correction"]


def _forced(variants, seats) -> list[bool]:
    """Whether each (variant, seat) is the seat an arm forces."""
    arms = {v: parse_arm(v) for v in set(variants)}
    return [arms[v] is not None and arms[v].seat == s
            for v, s in zip(variants, seats, strict=True)]


def _pair_share(tallies: pd.DataFrame, base: str, seats, n1, n2) -> np.ndarray:
    """Seat-games of the baseline in which a seat's openings were exactly (n1, n2)."""
    if base is None or base not in tallies.index.get_level_values("variant"):
        return np.zeros(len(seats))
    t = tallies.xs(base, level="variant")["seat_games"].groupby(
        level=["seat", "start_node_1", "start_node_2"]).sum()
    return np.array([t.get((int(s), int(a), int(b)), 0) for s, a, b in
                     zip(seats, n1, n2, strict=True)], dtype=float)


def _other_settlement(tallies: pd.DataFrame, arms: pd.DataFrame):
    """The strategy's most frequent other settlement in each arm (first arms: the second
    settlement it chose; second arms: its first), and the share of games with it."""
    t = tallies.reset_index()
    t = t[t["variant"].isin(set(arms["variant"]))]
    seat_of = dict(zip(arms["variant"], arms["seat"], strict=True))
    kind_of = dict(zip(arms["variant"], arms["kind"], strict=True))
    t = t[t["seat"].to_numpy() == t["variant"].map(seat_of).to_numpy()]
    t = t.assign(other=np.where(t["variant"].map(kind_of) == "first", t["start_node_2"],
                                t["start_node_1"]))
    g = t.groupby(["variant", "other"])["seat_games"].sum()
    node = pd.Series(-1, index=arms["variant"].unique())
    share = pd.Series(np.nan, index=node.index)
    if len(g):
        top = g.groupby(level="variant").idxmax()
        tot = g.groupby(level="variant").sum()
        for v, (_, o) in top.items():
            node[v] = o
            share[v] = g[(v, o)] / tot[v]
    pair = arms["kind"].to_numpy() == "pair"
    o = node.reindex(arms["variant"]).to_numpy().copy()
    sh = share.reindex(arms["variant"]).to_numpy().copy()
    o[pair], sh[pair] = -1, np.nan  # a pair forces both
    return o, sh


def opening_values_analysis(baseline: str | None = None, correction: str = "fdr_bh"
                            ) -> Analysis:
    return Analysis("opening_values",
                    {"players": ("seat", "won", "start_node_1", "start_node_2",
                                 "start_pips_1", "start_pips_2")},
                    _values_map(baseline), _values_finish(correction), combine=_combine,
                    check=variant_check(baseline))


@reads_source
def opening_values(source, baseline: str | None = None, correction: str = "fdr_bh",
                   **kw) -> dict:
    """The value of every forced opening of a sweep, paired with the baseline game by game.

    Reads ``players``: ``seat``, ``won``, ``start_node_1``, ``start_node_2``,
    ``start_pips_1``, ``start_pips_2`` (and the ``variant`` and ``game`` keys). The arms
    are the variants named by ``catansim.results.arms`` (``seat0_first23``, ...);
    ``baseline`` defaults to ``baseline`` (else the first variant). ``correction``:
    ``fdr_bh`` (default) or ``holm``, over the arms of each seat and kind.

    Returns a dict of DataFrames:

    ``arms``
        index variant (one row per arm): ``seat``, ``kind`` (first, second, pair),
        ``node``, ``node_2`` (pairs; else -1), ``road``, ``road_2`` (-1 free), ``n``
        (paired games), ``wins`` and ``win_rate`` of the forced seat in the arm with its
        Wilson interval ``win_ci_low``/``win_ci_high``, ``base_wins``,
        ``base_win_rate`` (the same seat in the baseline, same games), ``diff`` (arm -
        baseline) with its paired t interval ``ci_low``/``ci_high``, the Welch interval
        of an unpaired design and ``width_ratio``, ``sd_diff``, ``p_value`` (McNemar),
        ``p_adjusted``, ``significant``, ``rank`` (by diff within seat and kind, 1 the
        best), ``legal_share`` (share of baseline games in which the node was free at
        that seat's placement: the alternatives the strategy had), ``chosen_share``
        (share in which the strategy chose it), ``other_node`` / ``other_share`` (the
        strategy's most frequent other settlement in the arm), ``only_arm`` /
        ``only_base`` (discordant games), ``method``, ``correction``.
    ``effects``
        index (variant, seat): every seat's paired difference in every variant (who
        pays for a forced opening), columns as in ``arms`` plus ``forced``.
    ``tallies``
        index (variant, seat, start_node_1, start_node_2, opp_pips: the other seats'
        starting pips together): ``seat_games``, ``wins``.
    ``baseline``
        index (seat, settlement, node): ``games``, ``legal``, ``chosen`` and their shares.
    ``halves``
        index (variant, half 0 = even games, 1 = odd): the forced seat's ``n``,
        ``only_arm``, ``only_base``, ``both`` (for ``placement``).
    """
    return run(opening_values_analysis(baseline, correction), source, **kw)


@reads_source
def value_map(source, **kw) -> pd.DataFrame:
    """The ``arms`` table of ``opening_values``: one row per forced opening."""
    return opening_values(source, **kw)["arms"]


# --- where the strategy's own choice ranks ----------------------------------------------------


def _half_hist(h: pd.DataFrame, variant: str | None, half: int) -> tuple[int, int, int]:
    """(n, only_arm, only_base) of a half; the baseline itself (variant None) has no
    discordant games."""
    if variant is None:
        return 0, 0, 0
    r = h.loc[(variant, half)]
    return int(r["n"]), int(r["only_arm"]), int(r["only_base"])


VERDICTS = ("better", "worse", "better, not free", "worse, not free", "")


def verdicts(values: dict, min_legal: float = 0.5) -> pd.DataFrame:
    """The single-settlement arms of ``opening_values`` (``values["arms"]`` without the
    pairs), each judged against the strategy's own choice, the one computation behind
    ``placement``'s counts and every listing that stars a row.

    Adds ``choice_node`` / ``choice_share`` (the node the strategy chose most often in
    the baseline, and in what share of its games), ``choice`` (this arm forces that
    node), ``free`` (the node was free at the seat's turn in at least ``min_legal`` of
    the baseline games: a real alternative) and ``verdict``: ``better`` / ``worse``
    (significant after the correction of ``opening_values``, by the sign of ``diff``),
    ``better, not free`` / ``worse, not free`` (the same for a node the earlier seats
    usually take, which the forced games kept free for this seat), ``""`` otherwise
    (and for the choice itself).
    """
    arms = values["arms"]
    if not len(arms):
        return arms.assign(choice_node=pd.Series(dtype="int64"), choice_share=np.nan,
                           choice=False, free=False, verdict="")
    out = arms[arms["kind"] != "pair"].copy()
    chosen = values["baseline"]["chosen_share"]
    node, share = {}, {}
    for key in out.groupby(["seat", "kind"]).groups:
        c = chosen.xs(key, level=("seat", "settlement"))
        node[key], share[key] = int(c.idxmax()), float(c.max())
    keys = list(zip(out["seat"], out["kind"], strict=True))
    out["choice_node"] = np.array([node[k] for k in keys], dtype=np.int64)
    out["choice_share"] = [share[k] for k in keys]
    out["choice"] = out["node"].to_numpy() == out["choice_node"].to_numpy()
    out["free"] = (out["legal_share"] >= min_legal).to_numpy()
    sig = out["significant"].astype(bool) & ~out["choice"]
    word = np.where(out["diff"] > 0, "better", "worse")
    out["verdict"] = np.where(sig, np.where(out["free"], word,
                                            np.char.add(word.astype(str), ", not free")), "")
    return out


def placement(values: dict, min_legal: float = 0.5) -> pd.DataFrame:
    """Where the strategy's own placement ranks among the nodes free at its turn.

    ``values``: the dict of ``opening_values``. For each seat and single settlement kind
    (first, second) of the sweep: the strategy's choice (the node it chose most often
    in the baseline, ``choice_share`` of the games), the alternatives (arms whose node
    was free at that seat's turn in at least ``min_legal`` of the baseline games), the
    choice's ``rank`` among them by the point estimates (1 = nothing looked better),
    ``n_better`` / ``n_worse`` (alternatives significantly better / worse than the
    choice after the correction of ``opening_values``), the best-looking alternative
    (``best_node``, ``best_diff`` with its interval: chosen on the same games, so biased
    upward) and the honest estimate of what a data-driven choice gains (``gain``,
    ``gain_ci_low``/``_high``): the node that looks best on the even games is measured
    on the odd games and vice versa (the choice itself is a candidate, worth 0), and
    the pooled per-game differences get a paired t interval. The truth for "how much
    win probability the placement leaves on the table" lies between ``gain`` (a rule
    that can be followed) and ``best_diff`` (the best in hindsight).

    Returns a DataFrame indexed by (seat, kind).
    """
    halves = values["halves"]
    arms = verdicts(values, min_legal)
    rows = []
    if not len(arms):
        return pd.DataFrame()
    for (seat, kind), t in arms.groupby(["seat", "kind"], sort=True):
        alt = t[t["free"]]
        choice_node = int(t["choice_node"].iloc[0])
        match = t.index[t["choice"]]
        choice = t.loc[match[0]] if len(match) else None
        chosen_share = float(t["choice_share"].iloc[0])
        others = alt[~alt["choice"]]
        better = others[others["verdict"] == "better"]
        worse = others[others["verdict"] == "worse"]
        best = others.loc[others["diff"].idxmax()] if len(others) else None
        # cross-fitting: pick on one half of the games, measure on the other; candidate
        # None is "follow the strategy" (the baseline itself: every difference 0)
        cands = [None, *alt.index]
        pooled = np.zeros(3, dtype=np.int64)  # per-game differences -1, 0, +1
        selected = []
        for pick_half, eval_half in ((0, 1), (1, 0)):
            score = {}
            for v in cands:
                n, a, b = _half_hist(halves, v, pick_half)
                score[v] = (a - b) / n if n else 0.0
            sel = max(cands, key=lambda v: (score[v], v is None))
            selected.append(sel)
            n_eval = int(halves.xs(eval_half, level="half").loc[t.index, "n"].max())
            n, a, b = _half_hist(halves, sel, eval_half)
            pooled += np.array([b, n_eval - a - b, a])
        r = paired_binary([pooled.sum()], [pooled[2]], [pooled[0]], [0]).iloc[0]

        def val(row, col):
            return float(row[col]) if row is not None else np.nan

        rows.append({
            "seat": seat, "kind": kind,
            "choice_node": choice_node, "choice_share": chosen_share,
            "choice_diff": val(choice, "diff"),
            "base_win_rate": float(t["base_win_rate"].iloc[0]),
            "alternatives": int(len(others)),
            "rank": int(1 + (others["diff"] > 0).sum()),
            "n_better": int(len(better)), "n_worse": int(len(worse)),
            "best_node": int(best["node"]) if best is not None else -1,
            "best_diff": val(best, "diff"), "best_ci_low": val(best, "ci_low"),
            "best_ci_high": val(best, "ci_high"), "best_win_rate": val(best, "win_rate"),
            "gain": r["diff"], "gain_ci_low": r["ci_low"], "gain_ci_high": r["ci_high"],
            "gain_n": int(pooled.sum()),
            "selected_nodes": "/".join("strategy" if v is None else str(int(arms.loc[v, "node"]))
                                       for v in selected),
            "method": ("alternatives: nodes free at the seat's turn in >= "
                       f"{min_legal:.0%} of the baseline games; rank and n_better/n_worse "
                       "against the strategy's own choice (the baseline), significance "
                       f"after {S.METHOD_NAMES[values['correction']]} correction; gain: the "
                       "node that looks best on one half of the games (the strategy's "
                       "choice included) measured on the other (paired t over the pooled "
                       "per-game differences)"),
        })
    return pd.DataFrame(rows).set_index(["seat", "kind"])


# --- seats ------------------------------------------------------------------------------------


def seat_interaction(arms: pd.DataFrame, kind: str = "first") -> dict:
    """Does the value of a node depend on the seat that takes it?

    ``arms``: the ``arms`` table of ``opening_values`` (one board). On the arms of
    ``kind`` whose node every seat was swept on, fits the forced seat's wins as a
    binomial GLM (statsmodels, logit link) with ``C(node) + C(seat)`` and with
    ``C(node) * C(seat)``; the likelihood-ratio test of the interaction says whether
    the node's value changes with the seat beyond a seat's own advantage. Effect sizes:
    ``interaction_sd`` (sd of the fitted interaction in win-probability points) and the
    Spearman rank correlation of the seats' paired values (``scipy.stats.spearmanr``).

    Returns a dict: ``test`` (one row: ``lr``, ``df``, ``p_value``, ``n_nodes``,
    ``n_seats``, ``seat_games``, ``interaction_sd``, ``method``), ``correlation`` (seat
    x seat Spearman rho of the nodes' diffs, with ``n`` nodes) and ``by_seat`` (per
    seat: the best node, its win rate and diff with intervals, the diff's spread).
    """
    t = arms[arms["kind"] == kind].copy()
    seats = sorted(t["seat"].unique())
    common = set.intersection(*(set(t.loc[t["seat"] == s, "node"]) for s in seats)) \
        if seats else set()
    t = t[t["node"].isin(common)].reset_index()
    if len(seats) < 2 or len(common) < 2:
        return {"test": pd.DataFrame(), "correlation": pd.DataFrame(), "by_seat": pd.DataFrame()}
    t["losses"] = t["n"] - t["wins"]
    t["node_c"] = t["node"].astype(str)
    t["seat_c"] = t["seat"].astype(str)
    fam = sm.families.Binomial()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        add = smf.glm("wins + losses ~ C(node_c) + C(seat_c)", t, family=fam).fit()
        full = smf.glm("wins + losses ~ C(node_c) * C(seat_c)", t, family=fam).fit()
    lr = 2 * (full.llf - add.llf)
    df = int(full.df_model - add.df_model)
    p_full = full.predict(t)
    p_add = add.predict(t)
    test = pd.DataFrame([{
        "kind": kind, "lr": float(lr), "df": df, "p_value": float(chi2.sf(lr, df)),
        "n_nodes": len(common), "n_seats": len(seats), "seat_games": int(t["n"].sum()),
        "interaction_sd": float(np.sqrt(np.average((p_full - p_add) ** 2, weights=t["n"]))),
        "method": "binomial GLM (statsmodels) with and without node x seat, likelihood-ratio "
                  "test; interaction_sd: weighted sd of the fitted difference (win "
                  "probability)"}]).set_index("kind")
    wide = t.pivot(index="node", columns="seat", values="diff")
    rho = pd.DataFrame(index=seats, columns=seats, dtype=float)
    for a in seats:
        for b in seats:
            rho.loc[a, b] = float(spearmanr(wide[a], wide[b]).statistic)
    rho.index.name = "seat"
    rho["n"] = len(wide)
    by_seat = []
    for s in seats:
        u = t[t["seat"] == s]
        best = u.loc[u["diff"].idxmax()]
        by_seat.append({"seat": s, "best_node": int(best["node"]),
                        "best_win_rate": float(best["win_rate"]),
                        "best_win_ci_low": float(best["win_ci_low"]),
                        "best_win_ci_high": float(best["win_ci_high"]),
                        "best_diff": float(best["diff"]), "best_ci_low": float(best["ci_low"]),
                        "best_ci_high": float(best["ci_high"]),
                        "base_win_rate": float(u["base_win_rate"].iloc[0]),
                        "worst_diff": float(u["diff"].min()),
                        "median_diff": float(u["diff"].median()), "nodes": len(u),
                        "n": int(u["n"].iloc[0])})
    return {"test": test, "correlation": rho, "by_seat": pd.DataFrame(by_seat).set_index("seat")}


# --- features of an opening and the win model ---------------------------------------------


FEATURES = ("pips", "min_income", "n_resources", "entropy", "scarce_pips", "red_hexes",
            "same_hex", "harbor_any", "harbor_match", "harbor_other", "coast", "opp_pips")
RESOURCE_FEATURES = tuple(f"pips_{r}" for r in RES)
FEATURE_LABELS = {
    "pips": "total pips of both settlements",
    "min_income": "lowest pips of any resource (0 if one is missing)",
    "n_resources": "distinct resources produced (0-5)",
    "entropy": "entropy of the pips over the five resources (bits)",
    "scarce_pips": "pips of the board's scarcest resource",
    "red_hexes": "6 and 8 hexes touched (counted per settlement)",
    "same_hex": "both settlements on one hex",
    "harbor_any": "a generic 3:1 harbor",
    "harbor_match": "a 2:1 harbor of a resource the settlements produce",
    "harbor_other": "a 2:1 harbor of a resource they do not produce",
    "coast": "settlements on the coast (0-2)",
    "opp_pips": "the opponents' mean total starting pips (a control)",
    **{f"pips_{r}": f"pips of {r}" for r in RES},
}


def _board_arrays(board):
    v = np.asarray(getattr(board, "vector", board)).astype(np.int64).reshape(-1)
    if v.shape != (BOARD_SIZE,):
        raise CatansimError(f"board: expected a Board or a vector of {BOARD_SIZE} values")
    return v[B_TERRAIN:B_TERRAIN + 19], v[B_NUMBER:B_NUMBER + 19], v[B_HARBOR:B_HARBOR + 9]


def node_resource_pips(board) -> np.ndarray:
    """int[54, 5]: pips of each resource at each node of a board (a ``Board`` or its vector)."""
    terrain, number, _ = _board_arrays(board)
    pips = np.asarray(PIPS)[number]
    out = np.zeros((N_NODES, 5), dtype=np.int64)
    for n in range(N_NODES):
        for h in NODE_HEXES[n]:
            if h >= 0 and terrain[h] != DESERT:
                out[n, terrain[h]] += pips[h]
    return out


def node_harbors(board) -> np.ndarray:
    """int[54]: the harbor kind at each node (0-4 a 2:1 of that resource, 5 a 3:1, -1 none)."""
    _, _, harbor = _board_arrays(board)
    out = np.full(N_NODES, -1, dtype=np.int64)
    for slot, nodes in enumerate(HARBOR_NODES):
        out[nodes] = harbor[slot]
    return out


def opening_features(board, openings: pd.DataFrame) -> pd.DataFrame:
    """Features of the two-settlement openings ``openings`` (columns ``start_node_1``,
    ``start_node_2``) on ``board`` (a ``Board`` or its vector): ``FEATURES`` and
    ``RESOURCE_FEATURES`` (``FEATURE_LABELS`` says what each is), aligned with its rows."""
    terrain, number, _ = _board_arrays(board)
    rp = node_resource_pips(board)
    harb = node_harbors(board)
    red = np.isin(number, (6, 8))
    land = NODE_HEXES >= 0
    coast = (~land).any(axis=1)
    red_at = np.array([sum(bool(red[h]) for h in NODE_HEXES[n] if h >= 0)
                       for n in range(N_NODES)])
    board_pips = np.bincount(terrain[terrain != DESERT],
                             weights=np.asarray(PIPS)[number][terrain != DESERT], minlength=5)
    scarce = np.flatnonzero(board_pips == board_pips.min())
    a = openings["start_node_1"].to_numpy().astype(np.int64)
    b = openings["start_node_2"].to_numpy().astype(np.int64)
    res = rp[a] + rp[b]  # (rows, 5)
    tot = res.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.where(tot[:, None] > 0, res / np.maximum(tot[:, None], 1), 0.0)
        ent = -np.where(share > 0, share * np.log2(np.where(share > 0, share, 1)), 0.0).sum(1)
    hexes_a, hexes_b = NODE_HEXES[a], NODE_HEXES[b]
    same = ((hexes_a[:, :, None] == hexes_b[:, None, :]) & (hexes_a[:, :, None] >= 0)).any(
        axis=(1, 2))
    out = pd.DataFrame(index=openings.index)
    out["pips"] = tot
    out["min_income"] = res.min(axis=1)
    out["n_resources"] = (res > 0).sum(axis=1)
    out["entropy"] = ent
    out["scarce_pips"] = res[:, scarce].sum(axis=1)
    out["red_hexes"] = red_at[a] + red_at[b]
    out["same_hex"] = same.astype(np.int64)
    kinds = np.stack([harb[a], harb[b]], axis=1)
    produced = res > 0
    rows = np.arange(len(a))
    match = np.zeros(len(a), dtype=bool)
    other = np.zeros(len(a), dtype=bool)
    for j in range(2):
        k = kinds[:, j]
        two = (k >= 0) & (k < HARBOR_ANY)
        hit = np.zeros(len(a), dtype=bool)
        hit[two] = produced[rows[two], k[two]]
        match |= two & hit
        other |= two & ~hit
    out["harbor_any"] = (kinds == HARBOR_ANY).any(axis=1).astype(np.int64)
    out["harbor_match"] = match.astype(np.int64)
    out["harbor_other"] = other.astype(np.int64)
    out["coast"] = coast[a].astype(np.int64) + coast[b].astype(np.int64)
    for r, name in enumerate(RES):
        out[f"pips_{name}"] = res[:, r]
    return out


def opening_rows(tallies: pd.DataFrame, board, group: str = "") -> pd.DataFrame:
    """The win model's rows of one board: the ``tallies`` of ``opening_values`` (seat-games
    and wins per variant, seat and opening) with the opening's features, whether the seat
    was forced (``forced``), and ``group`` (e.g. the board) for clustering and hold-out."""
    t = tallies.reset_index()
    feats = opening_features(board, t)
    if "opp_pips" in t.columns:  # the tallies hold the sum over the other seats
        n_players = int(t["seat"].max()) + 1
        feats["opp_pips"] = t["opp_pips"] / max(n_players - 1, 1)
        t = t.rename(columns={"opp_pips": "opp_pips_sum"})
    return pd.concat([t, feats], axis=1).assign(forced=_forced(t["variant"], t["seat"]),
                                                group=group)


def fit_opening_model(rows: pd.DataFrame, features=FEATURES, test: np.ndarray | None = None,
                      cluster: str | None = "group", bins: int = 10,
                      confidence: float = 0.95) -> dict:
    """Logistic regression of winning on opening features, with out-of-sample calibration.

    ``rows``: one row per (opening, seat) with ``seat_games`` and ``wins`` (``opening_rows``,
    several boards concatenated), the ``features`` and ``seat``. Fitted as a binomial GLM
    (statsmodels, logit link, ``seat_games`` trials) on the rows where ``test`` is False
    (default: all), seat indicators with seat 0 the reference; intervals are
    cluster-robust by ``cluster`` (the board: games on one board share dice and
    openings) when it has at least two values, else model-based. Beside it, the same
    terms as a linear probability model (weighted least squares, same clusters): its
    coefficients are in win-probability points per unit.

    Returns a dict: ``coefficients`` (term: ``coef``, ``se``, ``ci_low``, ``ci_high``,
    ``p_value``, ``odds_ratio`` with its interval, ``per_sd`` (coef x the feature's sd),
    ``lpm``, ``lpm_ci_low``, ``lpm_ci_high`` (the linear model's points per unit), ``label``,
    ``n`` (seat-games), ``clusters``, ``method``), ``calibration`` (train, held out, and
    held out split into free and forced openings when ``rows`` has ``forced``:
    ``seat_games``, ``brier``, ``brier_base_rate``, ``brier_skill``, ``log_loss``) and
    ``reliability`` (held-out seat-games by decile of the prediction: ``n``, ``wins``,
    ``mean_predicted``, ``observed`` with its Wilson interval), ``fit`` (the statsmodels
    result) and ``predicted`` (the fitted win probability of every row of ``rows``).
    """
    rows = rows.reset_index(drop=True)
    features = [f for f in features if f in rows.columns]
    test = np.zeros(len(rows), dtype=bool) if test is None else np.asarray(test, dtype=bool)
    train = ~test
    n_players = int(rows["seat"].max()) + 1
    x = rows[features].astype(float)
    for s in range(1, n_players):
        x[f"seat_{s}"] = (rows["seat"] == s).astype(float)
    constant = [c for c in x.columns if x.loc[train, c].nunique() < 2]
    x = sm.add_constant(x.drop(columns=constant), has_constant="add")
    wins = rows["wins"].to_numpy().astype(float)
    games = rows["seat_games"].to_numpy().astype(float)
    # every (row, outcome) once, the count as its frequency weight
    xx = pd.concat([x[train], x[train]], ignore_index=True)
    yy = np.r_[np.ones(train.sum()), np.zeros(train.sum())]
    ww = np.r_[wins[train], games[train] - wins[train]]
    keep = ww > 0
    xx, yy, ww = xx[keep].reset_index(drop=True), yy[keep], ww[keep]
    groups = None
    if cluster and cluster in rows.columns:
        g = pd.concat([rows.loc[train, cluster], rows.loc[train, cluster]],
                      ignore_index=True)[keep]
        if g.nunique() >= 2:
            groups = pd.factorize(g)[0]
    cov = {"cov_type": "cluster", "cov_kwds": {"groups": groups}} if groups is not None else {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        glm = sm.GLM(yy, xx, family=sm.families.Binomial(), freq_weights=ww)
        fit = glm.fit(**cov) if groups is None else _cluster_fit(glm, groups)
        lpm = sm.WLS(yy, xx, weights=ww)
        lfit = (lpm.fit() if groups is None else
                lpm.fit(cov_type="cluster", cov_kwds={"groups": groups}))
    alpha = 1 - confidence
    ci = fit.conf_int(alpha=alpha)
    lci = lfit.conf_int(alpha=alpha)
    sd = pd.Series({c: float(np.sqrt(np.cov(xx[c], fweights=ww.astype(np.int64))))
                    if c != "const" else np.nan for c in xx.columns})
    with np.errstate(over="ignore"):
        coef = pd.DataFrame({"coef": fit.params, "se": fit.bse, "ci_low": ci[0],
                             "ci_high": ci[1], "p_value": fit.pvalues,
                             "odds_ratio": np.exp(fit.params),
                             "or_ci_low": np.exp(ci[0]), "or_ci_high": np.exp(ci[1]),
                             "per_sd": fit.params * sd})
    coef["lpm"] = lfit.params
    coef["lpm_ci_low"] = lci[0]
    coef["lpm_ci_high"] = lci[1]
    coef.index.name = "term"
    coef["label"] = [FEATURE_LABELS.get(t, t.replace("_", " ")) for t in coef.index]
    coef["n"] = int(games[train].sum())
    coef["clusters"] = int(len(np.unique(groups))) if groups is not None else 1
    coef["method"] = (
        "binomial GLM (statsmodels, logit link) on seat-games; " +
        (f"cluster-robust intervals by {cluster}" if groups is not None
         else "model-based Wald intervals") +
        "; lpm: weighted least squares (win-probability points per unit), same intervals" +
        (f"; left out (no variation): {', '.join(constant)}" if constant else ""))

    def calib(mask, name):
        p = fit.predict(x[mask])
        n = games[mask]
        k = wins[mask]
        base = float(wins[train].sum() / games[train].sum())
        brier = float(np.sum(k * (1 - p) ** 2 + (n - k) * p ** 2) / n.sum())
        brier0 = float(np.sum(k * (1 - base) ** 2 + (n - k) * base ** 2) / n.sum())
        pc = np.clip(p, 1e-12, 1 - 1e-12)
        ll = float(-np.sum(k * np.log(pc) + (n - k) * np.log(1 - pc)) / n.sum())
        return {"sample": name, "seat_games": int(n.sum()), "rows": int(mask.sum()),
                "brier": brier, "brier_base_rate": brier0,
                "brier_skill": 1 - brier / brier0 if brier0 else np.nan, "log_loss": ll}

    cal = [calib(train, "train")]
    held = test if test.any() else train
    if test.any():
        cal.append(calib(test, "held out"))
        if "forced" in rows.columns:
            forced = rows["forced"].to_numpy().astype(bool)
            for mask, name in ((test & ~forced, "held out, free openings"),
                               (test & forced, "held out, forced openings")):
                if mask.any():
                    cal.append(calib(mask, name))
    calibration = pd.DataFrame(cal).set_index("sample")
    p = np.asarray(fit.predict(x[held]))
    rel = _reliability(p, wins[held], games[held], bins)
    return {"coefficients": coef, "calibration": calibration, "reliability": rel,
            "fit": fit, "predicted": np.asarray(fit.predict(x))}


def _cluster_fit(glm, groups):
    return glm.fit(cov_type="cluster", cov_kwds={"groups": groups})


def _reliability(p: np.ndarray, wins: np.ndarray, games: np.ndarray, bins: int) -> pd.DataFrame:
    """Seat-games by weighted decile of the prediction: predicted and observed win rates."""
    order = np.argsort(p, kind="stable")
    cum = np.cumsum(games[order])
    edges = np.searchsorted(cum, cum[-1] * np.arange(1, bins) / bins, side="left")
    bin_of = np.zeros(len(p), dtype=np.int64)
    bin_of[order] = np.searchsorted(edges, np.arange(len(p)), side="right")
    df = pd.DataFrame({"bin": bin_of, "n": games, "wins": wins, "pn": p * games})
    g = df.groupby("bin").sum()
    g["mean_predicted"] = g["pn"] / g["n"]
    g = g.drop(columns="pn")
    g["n"] = g["n"].astype(np.int64)
    g["wins"] = g["wins"].astype(np.int64)
    return S.rate_table(g, "wins", rate="observed")


def board_of(source):
    """The fixed board of a dataset folder (its manifest's ``result_key.board``), as a
    vector, or None when the games were played on a new board each."""
    if isinstance(source, tuple | list):
        return None
    key = D.read_manifest(source).get("result_key", {})
    return None if key.get("board") is None else np.asarray(key["board"], dtype=np.int64)


def games_for_value(delta: float, sd_diff: float, alpha: float = 0.05, power: float = 0.8
                    ) -> int:
    """Paired games per arm to detect a difference ``delta`` in win probability when the
    per-game differences have sd ``sd_diff`` (``stats.games_for_paired_mean``)."""
    n = S.games_for_paired_mean(delta, sd_diff, alpha, power)
    return int(math.ceil(n)) if np.isfinite(n) else -1


__all__ = ["FEATURES", "FEATURE_LABELS", "RESOURCE_FEATURES", "board_of", "fit_opening_model",
           "games_for_value", "node_harbors", "node_resource_pips", "opening_features",
           "opening_rows", "opening_values", "placement", "seat_interaction", "snake_order",
           "value_map"]
