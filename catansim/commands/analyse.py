"""``catansim analyse``: a game log's win chances through the game and the cost of a seat's
every decision (docs/analyse.md)."""

from __future__ import annotations

import click

from ..errors import Interrupted
from . import _options as O

# How the checks that need the log name this command's inputs.
FIELDS = {"log": "", "seat": "--seat", "observer": "--observer", "events": "--events"}
SHOWN = 10  # flagged moves printed


def _events(text: str | None):
    """``--events``: turns, all, or comma-separated event indices (as text until the log
    says which are events)."""
    if text is None or text.strip() in ("turns", "all"):
        return None if text is None else text.strip()
    out = []
    for part in text.split(","):
        part = part.strip()
        try:
            out.append(int(part))
        except ValueError:
            out.append(part)  # named in the error the log's check gives
    return out


def _observer(text: str | None):
    if text is None or text.strip() == "full":
        return None if text is None else "full"
    try:
        return int(text)
    except ValueError:
        return text


@click.command("analyse")
@click.argument("log_file", metavar="GAME.jsonl",
                type=O.InFile("a game log (JSON Lines, docs/game-log.md)"))
@click.option("--out", type=O.OutDir("a folder for the review (created if missing)"),
              required=True, help="Output folder; rerunning with it resumes the review.")
@click.option("--seat", type=O.IntIn(0, 3, "a seat in 0..3"), default=0, show_default=True,
              help="The seat whose decisions are valued.")
@click.option("--observer", default=None, metavar="SEAT|full",
              help="Whose public information the win chances are dealt from (default: "
                   "--seat); full: the full state, every hand as the log has it.")
@click.option("--events", "events", default=None, metavar="turns|all|K,K,...",
              help="The positions of the timeline: turns (the start, each turn's start and "
                   "the end; the default), all, or event indices (-1: the start).")
@click.option("--rollouts", type=O.IntIn(2, 100_000), default=400, show_default=True,
              help="Rollouts a position of the timeline.")
@click.option("--budget", type=O.IntIn(8, 100_000), default=1600, show_default=True,
              help="Rollouts a decision: half to search its candidates, a quarter each to "
                   "the move played and the best alternative, on the same seeds.")
@click.option("--candidates", type=O.IntIn(2, 64), default=8, show_default=True,
              help="Options searched at most at a decision (the search player's shortlist).")
@click.option("--strategy", default="default", show_default=True,
              help="The compiled strategy playing every seat in the rollouts.")
@click.option("--threshold", type=O.NumberIn(0, 100), default=5.0, show_default=True,
              help="Flag a move that costs more than this many points of winning chance "
                   "(its interval above 0).")
@O.seed("Seed of every rollout, an integer in [0, 2**63).")
@click.option("--workers", type=O.IntIn(1), default=None,
              help="Processes (default: every core).")
@click.option("--block", type=O.IntIn(1), default=8, show_default=True,
              help="Positions and decisions a chunk (the unit written and resumed).")
@O.config()
@click.option("--quiet", is_flag=True, help="No progress bar.")
def command(log_file, out, seat, observer, events, rollouts, budget, candidates, strategy,
            threshold, seed, workers, block, config, quiet):
    """Review a game log: each seat's chance of winning at every turn, and at every
    decision of --seat the move played against its best alternative.

    Win chances come from rollouts (games played on by --strategy) dealt from
    --observer's public information, with 95% Wilson intervals. Each decision is
    searched as the search player searches; the move played and the best alternative
    are then played on the same seeds, and a move is flagged when it cost more than
    --threshold points with its 95% interval above 0. Writes timeline and moves
    tables (Parquet and CSV), review.json and the viewer page review.html into --out.
    """
    from ..review import analyse
    from ..review.run import check_inputs

    strategy_set = O.strategy_set(config)
    strategy_set.compiled(strategy, "--strategy")
    observer, events = _observer(observer), _events(events)
    check_inputs(log_file, seat, observer, events, FIELDS)  # in the options' words
    from ..compile_progress import say_if_compiling

    say_if_compiling()
    try:
        review = analyse(log_file, out, seat=seat, observer=observer, events=events,
                         rollouts=rollouts, budget=budget, candidates=candidates,
                         strategy=strategy, threshold=threshold, seed=seed, workers=workers,
                         block=block, progress=not quiet, strategy_set=strategy_set)
    except Interrupted as exc:
        raise Interrupted(exc.signum, f"{out}: the chunks written are kept; rerun the same "
                                      "command to resume") from None
    for line in report_lines(review):
        click.echo(line)


def report_lines(review) -> list[str]:
    """What the command prints: the settings, the budget, the counts, the cost, the
    costliest flagged moves and the files written."""
    s, m = review.summary, review.moves
    seat = int(review.timeline["observer"].iloc[0]) if len(review.timeline) else None
    source = ("the full state" if seat == -1 else f"seat {seat}'s public information")
    d = s["rollouts_a_decision"]
    skipped = ", ".join(f"{k} {v}" for k, v in s["skipped"].items()) or "none"
    run = s["this_run"]
    lines = [
        f"win chances at {s['positions']} positions, from {source}; "
        f"{s['rollouts_a_position']} rollouts a position (95% Wilson intervals)",
        f"seeds: {s['seeds']}",
        f"decisions valued: {s['decisions']} (forced, one option: {s['forced']}; no "
        f"alternative searched: {s['no_alternative']}; not valued: {skipped}); "
        f"{d['search']} rollouts to search, {d['move_played']} each for the move played "
        "and the best, same seeds",
        f"cost: {s['rollouts_played']:,} rollouts, {s['chunk_cpu_seconds']:.1f} CPU s in "
        f"all; this run {run['chunks']} chunks, {run['cpu_seconds']:.1f} CPU s, "
        f"{run['wall_seconds']:.1f} s on {run['workers']} "
        f"worker{'s' if run['workers'] > 1 else ''}",
        f"flagged (cost more than {s['threshold']:g} points, 95% interval above 0): "
        f"{s['flagged']}",
    ]
    for _, r in review.flagged.head(SHOWN).iterrows():
        lines.append(f"  event {r['event']}, turn {r['turn']}, {r['decision']}: played "
                     f"{r['played']}, best {r['best']}, -{100 * r['loss']:.1f} points "
                     f"[{100 * r['loss_low']:.1f}, {100 * r['loss_high']:.1f}]")
    if len(m) and s["flagged"] > SHOWN:
        lines.append(f"  ... {s['flagged'] - SHOWN} more in moves.csv")
    lines.append(f"wrote {review.out}/timeline.parquet, moves.parquet (and .csv), "
                 f"review.json, {review.page.name}")
    return lines
