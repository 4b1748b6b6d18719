"""The robber: what it takes, whom it hits, and whether trailing players catch up.

Outcomes per game (for ``contrasts.paired_contrasts`` and ``contrasts.arm_summary``):
game length, the VP spread at the end, cards stolen, blocked and discarded, robber
moves, robberies on the leader, and **catch-up**: for each checkpoint turn t of
``vp_turn_<t>`` (visible VP after turn t), whether the player leading alone at t
went on to win (``leader_won_<t>``) and whether the player alone in last place did
(``last_won_<t>``); both are undefined in games that ended before t or had a shared
lead (last place).

``catch_up(source)`` gives, per arm and checkpoint, how many games were still going,
how often one player led alone, and the win rate of that leader and of the last
(Wilson intervals), beside the fair share 1 / players; ``lead_table`` the leader's
win rate by the size of the lead. ``ROBBER_SHARES``: the share of robber moves that
robbed the leader when an opponent led alone, and the share of all robberies whose
victim led alone (``contrasts.share_table``).

Reads: games ``turns``, ``sevens``, ``robber_moves``, ``robber_leader_chances``,
``robbed_leader``; players ``seat``, ``won``, ``vp``, ``stolen``, ``blocked``,
``discarded``, ``robbed``, ``vp_turn_<t>``.

A longer game alone gives trailing players more time; ``stage_table`` and
``stage_effect`` separate that from the robber slowing the leader: the leader's chance
at **equal standing** (the same visible VP and the same lead after the same turn), pooled
over the standings by a Mantel-Haenszel odds ratio.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from statsmodels.stats.contingency_tables import StratifiedTable

from ..results.schema import COLUMNS
from . import stats as S
from .contrasts import (
    Outcome,
    Share,
    column_sum,
    measure,
    no_winner,
    seat_matrix,
    seat_win,
    vp_spread,
    winner_margin,
    won_matrix,
)
from .driver import Analysis, Chunk, Context, reads_source, run

CHECKPOINTS = tuple(int(c[len("vp_turn_"):]) for c in COLUMNS["name"]
                    if str(c).startswith("vp_turn_"))
HEADLINE_CHECKPOINTS = (20, 40, 60)  # early, middle and late in a 70-turn game


def _standings(chunk: Chunk, v: str, t: int):
    """Per game of ``v`` at checkpoint t: alive, the sole leader (-1), the sole last
    (-1), the lead over the second (VP)."""
    def make():
        vp = seat_matrix(chunk, v, f"vp_turn_{t}")
        alive = (vp >= 0).all(axis=1)
        order = np.sort(vp, axis=1)
        top, second = order[:, -1], order[:, -2]
        bottom, above = order[:, 0], order[:, 1]
        leader = np.where(alive & (top > second), np.argmax(vp, axis=1), -1)
        last = np.where(alive & (bottom < above), np.argmin(vp, axis=1), -1)
        return alive, leader, last, np.where(alive, top - second, 0)
    return chunk.memo(("standings", v, t), make)


def _won_by(chunk: Chunk, v: str, seat: np.ndarray) -> np.ndarray:
    won = won_matrix(chunk, v)
    return won[np.arange(seat.size), np.maximum(seat, 0)] * (seat >= 0)


def leader_won(t: int) -> Outcome:
    def values(chunk, v):
        _, leader, _, _ = _standings(chunk, v, t)
        return _won_by(chunk, v, leader).astype(np.int64), leader >= 0
    return Outcome(f"leader_won_{t}", f"the player leading alone after turn {t} won",
                   {"players": ("seat", "won", f"vp_turn_{t}")}, values, binary=True,
                   family="catch-up")


def last_won(t: int) -> Outcome:
    def values(chunk, v):
        _, _, last, _ = _standings(chunk, v, t)
        return _won_by(chunk, v, last).astype(np.int64), last >= 0
    return Outcome(f"last_won_{t}", f"the player alone in last place after turn {t} won",
                   {"players": ("seat", "won", f"vp_turn_{t}")}, values, binary=True,
                   family="catch-up")


def turns_after(t: int) -> Outcome:
    """Turns played after turn t, in the games still going after it."""
    def values(chunk, v):
        alive, _, _, _ = _standings(chunk, v, t)
        turns = chunk.games["turns"].to_numpy().astype(np.int64)[chunk.game_rows(v)]
        return turns - t, alive
    return Outcome(f"turns_after_{t}", f"turns played after turn {t} (games still going)",
                   {"games": ("turns",), "players": ("seat", f"vp_turn_{t}")}, values,
                   family="length")


def switch_outcomes(t: int) -> list[Outcome]:
    """The outcomes of a switch at turn t (arms identical up to t): the turn-t sole
    leader's and sole last's wins, and the turns after t. Defined on the same games in
    both arms, since the standing at t is the same in both."""
    return [leader_won(t), last_won(t), turns_after(t)]


def robber_outcomes(n_players: int, checkpoints=HEADLINE_CHECKPOINTS) -> list[Outcome]:
    """The outcomes the robber study differences game by game. ``checkpoints``: the
    turns of the catch-up outcomes; give none for arms that differ from the first turn
    (there the sole leader at t is a state each arm reached its own way, so a game-by-game
    difference between arms would compare different players)."""
    out = [
        measure("turns", family="length"),
        no_winner(),
        vp_spread(),
        winner_margin(),
        measure("sevens", family="robber"),
        measure("robber_moves", family="robber"),
        measure("stolen", family="robber"),
        measure("blocked", family="robber"),
        measure("discarded", family="robber"),
        column_sum("robbed_leader", "robberies whose victim led alone in visible VP",
                   "games", ("robbed_leader",), family="robber"),
        column_sum("robber_leader_chances", "robber moves made while an opponent led alone",
                   "games", ("robber_leader_chances",), family="robber"),
        measure("produced", family="cards"),
    ]
    for t in checkpoints:
        out += [leader_won(t), last_won(t)]
    out += [seat_win(s) for s in range(n_players)]
    return out


ROBBER_SHARES = (
    Share("hit_leader", "when an opponent of the mover led alone: the robber robbed that "
          "leader", column_sum("robbed_leader", "", "games", ("robbed_leader",)),
          column_sum("robber_leader_chances", "", "games", ("robber_leader_chances",)),
          family="robber"),
    Share("on_leader", "of all robberies (a victim chosen): the victim led alone",
          column_sum("robbed_leader", "", "games", ("robbed_leader",)),
          column_sum("robbed", "", "players", ("robbed",)), family="robber"),
)


# --- catch-up tables -------------------------------------------------------------------


def _catch_map(checkpoints):
    def f(chunk: Chunk):
        out = {}
        for v in chunk.variants:
            n = chunk.game_rows(v).size
            for t in checkpoints:
                alive, leader, last, lead = _standings(chunk, v, t)
                lw = _won_by(chunk, v, leader).astype(bool)
                mw = _won_by(chunk, v, last).astype(bool)
                out[(v, t)] = np.array([n, alive.sum(), (leader >= 0).sum(), lw.sum(),
                                        (last >= 0).sum(), mw.sum()], dtype=np.int64)
                gap = np.minimum(lead, 4)[leader >= 0]  # 4 stands for 4 or more
                out[(v, t, "lead")] = np.stack([np.bincount(gap, minlength=5),
                                                np.bincount(gap, weights=lw[leader >= 0],
                                                            minlength=5).astype(np.int64)])
        return out
    return f


def _catch_finish(stats, ctx: Context) -> dict[str, pd.DataFrame]:
    fair = 1.0 / (ctx.n_players or 4)
    rows, lead_rows = [], []
    order = {v: i for i, v in enumerate(ctx.variants)}
    for key in sorted((k for k in stats if len(k) == 2), key=lambda k: (order.get(k[0], 99),
                                                                         k[1])):
        v, t = key
        n, alive, nl, lw, nm, mw = (int(x) for x in stats[key])
        llo, lhi = S.wilson_ci(lw, nl)
        mlo, mhi = S.wilson_ci(mw, nm)
        alo, ahi = S.wilson_ci(alive, n)
        rows.append({"variant": v, "turn": t, "games": n, "alive": alive,
                     "alive_share": alive / n if n else np.nan, "alive_ci_low": alo[0],
                     "alive_ci_high": ahi[0], "sole_leader": nl,
                     "sole_leader_share": nl / alive if alive else np.nan,
                     "leader_wins": lw, "leader_win_rate": lw / nl if nl else np.nan,
                     "leader_ci_low": llo[0], "leader_ci_high": lhi[0], "sole_last": nm,
                     "last_wins": mw, "last_win_rate": mw / nm if nm else np.nan,
                     "last_ci_low": mlo[0], "last_ci_high": mhi[0], "fair": fair,
                     "method": S.WILSON})
        seats, wins = stats[(v, t, "lead")]
        for g in range(1, 5):
            lo, hi = S.wilson_ci(wins[g], seats[g])
            lead_rows.append({"variant": v, "turn": t, "lead": "4+" if g == 4 else str(g),
                              "games": int(seats[g]), "leader_wins": int(wins[g]),
                              "win_rate": wins[g] / seats[g] if seats[g] else np.nan,
                              "ci_low": lo[0], "ci_high": hi[0], "method": S.WILSON})
    catch = pd.DataFrame(rows).set_index(["variant", "turn"]) if rows else pd.DataFrame()
    lead = (pd.DataFrame(lead_rows).set_index(["variant", "turn", "lead"]) if lead_rows
            else pd.DataFrame())
    return {"catch_up": catch, "lead": lead}


# --- at equal standing -----------------------------------------------------------------

MAX_VP = 16  # visible VP after a checkpoint stay below this (10 to win, a few over at most)


def _stage_map(checkpoints):
    def f(chunk: Chunk):
        out = {}
        for v in chunk.variants:
            for t in checkpoints:
                _, leader, _, lead = _standings(chunk, v, t)
                has = leader >= 0
                vp = seat_matrix(chunk, v, f"vp_turn_{t}")
                top = vp.max(axis=1)[has]
                gap = np.minimum(lead[has], 3)  # 3 stands for 3 or more
                won = _won_by(chunk, v, leader)[has]
                cell = np.minimum(top, MAX_VP - 1) * 4 + gap
                out[(v, t)] = np.stack([np.bincount(cell, minlength=MAX_VP * 4),
                                        np.bincount(cell, weights=won,
                                                    minlength=MAX_VP * 4).astype(np.int64)])
        return out
    return f


def _stage_finish(stats, ctx: Context) -> pd.DataFrame:
    rows = []
    order = {v: i for i, v in enumerate(ctx.variants)}
    for (v, t) in sorted(stats, key=lambda k: (order.get(k[0], 99), k[1])):
        games, wins = stats[(v, t)]
        for cell in np.flatnonzero(games):
            lo, hi = S.wilson_ci(wins[cell], games[cell])
            rows.append({"variant": v, "turn": t, "leader_vp": int(cell // 4),
                         "lead": "3+" if cell % 4 == 3 else str(cell % 4),
                         "games": int(games[cell]), "leader_wins": int(wins[cell]),
                         "win_rate": wins[cell] / games[cell], "ci_low": lo[0],
                         "ci_high": hi[0], "method": S.WILSON})
    out = pd.DataFrame(rows)
    return out.set_index(["variant", "turn", "leader_vp", "lead"]) if len(out) else out


def stage_analysis(checkpoints=HEADLINE_CHECKPOINTS) -> Analysis:
    cols = tuple(f"vp_turn_{t}" for t in checkpoints)
    return Analysis("stage", {"players": ("seat", "won", *cols)}, _stage_map(checkpoints),
                    _stage_finish)


@reads_source
def stage_table(source, checkpoints=HEADLINE_CHECKPOINTS, **kw) -> pd.DataFrame:
    """The sole leader's win rate at equal standing: per arm and checkpoint turn, by the
    leader's visible VP and the lead over the second (1, 2, 3+ VP).

    Reads players ``seat``, ``won``, ``vp_turn_<t>``. Returns a DataFrame indexed by
    (variant, turn, leader_vp, lead): ``games``, ``leader_wins``, ``win_rate`` with its
    Wilson interval, ``method``.
    """
    return run(stage_analysis(checkpoints), source, **kw)


def stage_effect(stage: pd.DataFrame, arm: str, reference: str, turn: int,
                 min_games: int = 5) -> dict:
    """Does the arm change the sole leader's chance at **equal standing**? The
    Mantel-Haenszel odds ratio (arm vs reference) of the leader winning, pooled over the
    strata (leader's visible VP, lead) after ``turn`` that both arms reach with at least
    ``min_games`` games (``statsmodels`` StratifiedTable: pooled odds ratio, its interval
    and the test of odds ratio 1). The arms play the same seeds, so their strata are
    positively correlated and this interval, which treats them as independent, is
    conservative."""
    out = {"arm": arm, "reference": reference, "turn": turn, "strata": 0, "games_arm": 0,
           "games_reference": 0, "odds_ratio": np.nan, "ci_low": np.nan, "ci_high": np.nan,
           "p_value": np.nan, "arm_rate": np.nan, "reference_rate": np.nan,
           "method": "Mantel-Haenszel pooled odds ratio over (leader VP, lead) strata "
                     "(statsmodels StratifiedTable); arms taken as independent: conservative"}
    try:
        a = stage.xs((arm, turn), level=("variant", "turn"))
        b = stage.xs((reference, turn), level=("variant", "turn"))
    except KeyError:
        return out
    both = a.index.intersection(b.index)
    both = [k for k in both if a.loc[k, "games"] >= min_games and b.loc[k, "games"] >= min_games]
    tables = []
    for k in both:
        wa, na = a.loc[k, "leader_wins"], a.loc[k, "games"]
        wb, nb = b.loc[k, "leader_wins"], b.loc[k, "games"]
        tables.append(np.array([[wa, na - wa], [wb, nb - wb]], dtype=float))
    if not tables:
        return out
    # a stratum where nobody (or everybody) won in both arms says nothing about the ratio
    tables = [x for x in tables if 0 < x[:, 0].sum() < x.sum()]
    if not tables:
        return out
    st = StratifiedTable(tables)
    lo, hi = st.oddsratio_pooled_confint()
    arr = np.stack(tables)
    out.update(strata=len(tables), games_arm=int(arr[:, 0].sum()),
               games_reference=int(arr[:, 1].sum()), odds_ratio=float(st.oddsratio_pooled),
               ci_low=float(lo), ci_high=float(hi),
               p_value=float(st.test_null_odds(correction=True).pvalue),
               arm_rate=float(arr[:, 0, 0].sum() / arr[:, 0].sum()),
               reference_rate=float(arr[:, 1, 0].sum() / arr[:, 1].sum()))
    return out


def catch_up_analysis(checkpoints=CHECKPOINTS) -> Analysis:
    cols = tuple(f"vp_turn_{t}" for t in checkpoints)
    return Analysis("catch_up", {"players": ("seat", "won", *cols)}, _catch_map(checkpoints),
                    _catch_finish)


@reads_source
def catch_up(source, checkpoints=CHECKPOINTS, **kw) -> pd.DataFrame:
    """Who wins from where, per arm and checkpoint turn t.

    Reads players ``seat``, ``won``, ``vp_turn_<t>``. Returns a DataFrame indexed by
    (variant, turn): ``games``, ``alive`` (games still going after turn t) with
    ``alive_share`` and its Wilson interval, ``sole_leader`` (games with one player
    leading alone in visible VP) and ``sole_leader_share`` (of the alive games),
    ``leader_wins``, ``leader_win_rate`` with ``leader_ci_low``/``_high``,
    ``sole_last``, ``last_wins``, ``last_win_rate`` with its interval, ``fair``
    (1 / players), ``method``.
    """
    return run(catch_up_analysis(checkpoints), source, **kw)["catch_up"]


@reads_source
def lead_table(source, checkpoints=CHECKPOINTS, **kw) -> pd.DataFrame:
    """The sole leader's win rate by the size of the lead (1, 2, 3, 4+ VP over the
    second), per arm and checkpoint: ``games``, ``leader_wins``, ``win_rate`` with its
    Wilson interval. Indexed by (variant, turn, lead)."""
    return run(catch_up_analysis(checkpoints), source, **kw)["lead"]
