"""`c4robot bench engine --versus` and `--keeps-value`: our solver timed beside the C++ reference, and the
robot's moves judged by full solves."""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path
from typing import TYPE_CHECKING

from engine.testsets import read_test_set
from robot.cli.common import quantile
from robot.cli.player_commands import prepare_engine_aloud

if TYPE_CHECKING:
    from engine import Solver

KEEPS_VALUE_PLIES = 12  # bench engine --keeps-value: test-set lines and random positions up to this many plies


def bench_versus(binary: Path, sets: dict[str, list[tuple[str, int]]], solver: Solver, weak: bool) -> int:
    """Each set solved by the reference binary and by ours (table cleared before each position, untimed,
    both), side by side: the ratio of the medians is what to compare, machines differ from day to day.

    Twice, in the order reference, ours, ours, reference, each position's time the quicker of its two:
    on a shared machine a burst of someone else's work otherwise lands on one side only (measured:
    single passes put L1_R1's ratio anywhere from 0.67 to 1.45 within minutes)."""
    from engine import Position
    from engine.reference_solver import run_reference
    from engine.scores import outcome

    header = (
        f"{'set':<7}{'pos':>5}{'ours med ms':>12}{'ours p95':>10}{'ref med ms':>12}{'ref p95':>10}"
        f"{'med ratio':>10}{'agree':>7}"
    )
    print(
        f"ours: table {solver.table.size_mb:g} MB cleared before each position; reference: {binary}; "
        "each time the quicker of two passes (reference, ours, ours, reference)"
    )
    print(header)
    print("-" * len(header))
    worst = 0.0
    for name, rows in sets.items():
        lines = [moves for moves, _ in rows]
        positions = [Position.from_moves(moves) for moves in lines]
        first = run_reference(binary, lines, weak)
        ours = [solver.solve_many(positions, weak, cold=True) for _ in range(2)]
        second = run_reference(binary, lines, weak)
        expected = [outcome(e) if weak else e for _, e in rows]
        theirs = [[outcome(score) if weak else score for score in run.scores] for run in (first, second)]
        # (outcome: Pons' weak solve answers a win at once with its full score)
        agree = all([r.score for r in run] == expected for run in ours) and all(run == expected for run in theirs)
        ours_ms = sorted(min(a.elapsed_s, b.elapsed_s) * 1e3 for a, b in zip(*ours, strict=True))
        ref_ms = sorted(min(a, b) * 1e3 for a, b in zip(first.seconds, second.seconds, strict=True))
        ratio = statistics.median(ours_ms) / max(statistics.median(ref_ms), 1e-6)
        worst = max(worst, ratio)
        print(
            f"{name:<7}{len(rows):>5}{statistics.median(ours_ms):>12.4f}{quantile(ours_ms, 0.95):>10.3f}"
            f"{statistics.median(ref_ms):>12.4f}{quantile(ref_ms, 0.95):>10.3f}{ratio:>10.2f}"
            f"{'yes' if agree else 'NO':>7}",
            flush=True,
        )
    print(f"reference timed by {first.timed_by}; worst median ratio {worst:.2f} (ours / reference)")
    return 0


def bench_keeps_value(args: argparse.Namespace) -> int:
    """Every move judged (engine.value_check); the misses named; exit status 1 if any."""
    from engine.search import warm_up
    from engine.value_check import Judge, check_moves, describe_miss, hard_positions, positions_to_check, summary

    names = [name.strip() for name in args.sets.split(",") if name.strip()]
    rows = [row for name in names for row in read_test_set(args.testsets, name, 1000)]
    positions = positions_to_check(rows, args.randoms, KEEPS_VALUE_PLIES, seed=0)
    prepare_engine_aloud()
    warm_up()
    judge = Judge(args.judged)
    hard: list[tuple[str, int | None]] = []
    if args.hard:
        print(f"finding {args.hard} hard positions (a weak solve each)...", flush=True)
        hard = list(hard_positions(args.hard, KEEPS_VALUE_PLIES, seed=0, judge=judge))
    print(
        f"{len(positions) + len(hard)} positions: {len(positions) - args.randoms} test-set lines of up to "
        f"{KEEPS_VALUE_PLIES} plies ({','.join(names)}), {args.randoms} random ones, {len(hard)} hard random ones "
        "(seed 0); level 10, 500 ms, cold table",
        flush=True,
    )
    try:
        verdicts = check_moves(
            positions + hard, judge, on_verdict=lambda v: None if v.kept else print(describe_miss(v), flush=True)
        )
    finally:
        judge.save()
    print(summary(verdicts))
    return 0 if all(verdict.kept for verdict in verdicts) else 1
