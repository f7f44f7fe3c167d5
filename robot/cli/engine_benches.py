"""`c4robot bench engine sets|versus|play|budget|keeps-value`: one subcommand per measurement, each with
only the options it uses.

`sets` times the exact solver on the public test sets beside the C++ reference's published figures,
`versus` runs a reference binary on the same lines in the same run, `keeps-value` judges the robot's
moves by full solves; `play` and `budget` measure the player (robot.cli.player_commands).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path
from typing import TYPE_CHECKING

from engine.testsets import DEFAULT_TESTSETS, SET_NAMES, read_test_set
from robot.cli.common import COMMON, bounded_int, finite_float, quantile
from robot.cli.load_beside import parse_beside, running_beside
from robot.cli.player_commands import bench_budget, bench_play, prepare_engine_aloud

if TYPE_CHECKING:
    from engine import Solver

KEEPS_VALUE_PLIES = 12  # keeps-value: test-set lines and random positions up to this many plies
LOADING_POSITION = "2252576253462244111563365343671351441"  # solved once to load (or compile) the kernels

# The Pons C++ solver measured on a 2-core machine like ours (../shared/engine/REFERENCE.md):
# (median ms, p95 ms, max ms, mean nodes) per set and mode, first 200 lines (22-24 for L1_R3).
REFERENCE = {
    ("L3_R1", False): (0.0011, 0.026, 0.16, 50),
    ("L2_R1", False): (0.005, 0.19, 3.2, 334),
    ("L2_R2", False): (1.56, 18.3, 77, 38_893),
    ("L1_R1", False): (0.015, 1.6, 8.9, 3_985),
    ("L1_R2", False): (66, 756, 3_420, 1_116_296),
    ("L1_R3", False): (4_696, 19_206, 168_244, 58_241_333),
    ("L1_R2", True): (29, 435, 1_823, 424_707),
    ("L1_R3", True): (2_966, 46_258, 76_093, 39_127_065),
}


def set_names(text: str) -> str:
    """An argparse type: comma-separated public test set names, at least one, checked; returned comma-joined."""
    names = [name.strip() for name in text.split(",") if name.strip()]
    if not names:
        raise argparse.ArgumentTypeError(f"{text!r} names no set: give one or more of {','.join(SET_NAMES)}")
    unknown = [name for name in names if name not in SET_NAMES]
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown set {unknown[0]!r}: choose from {','.join(SET_NAMES)}")
    return ",".join(names)


def register(bench_targets: argparse._SubParsersAction) -> None:
    """Add `bench engine` and its five modes."""
    engine = bench_targets.add_parser(
        "engine", parents=[COMMON], help="the exact solver and the player: sets, versus, play, budget, keeps-value"
    )
    modes = engine.add_subparsers(dest="mode", required=True, metavar="sets|versus|play|budget|keeps-value")

    sets = modes.add_parser(
        "sets", parents=[COMMON], help="the exact solver on the public test sets, beside the C++ reference's figures"
    )
    _add_test_set_flags(sets, lines=50)
    _add_weak_flag(sets)
    sets.add_argument(
        "--warm",
        action="store_true",
        help="keep the table between positions (default: cleared before each, untimed, as in the reference)",
    )
    _add_table_flag(sets)
    sets.set_defaults(run=bench_sets)

    versus = modes.add_parser(
        "versus",
        parents=[COMMON],
        help="a reference solver binary and ours on the same lines in the same run: medians, p95 and their ratio",
    )
    versus.add_argument(
        "binary",
        type=Path,
        metavar="PATH",
        help="the reference binary (Pons' c4solver, engine/reference/build_pons.sh)",
    )
    _add_test_set_flags(versus, lines=50)
    _add_weak_flag(versus)
    _add_table_flag(versus)
    versus.set_defaults(run=bench_sets)

    play = modes.add_parser(
        "play", parents=[COMMON], help="the player's moves (level 10, 500 ms) judged on test-set lines and in games"
    )
    _add_test_set_flags(play, lines=20)
    play.add_argument(
        "--games", type=bounded_int(0, 10_000), default=4, help="games against mixed opponents (0: test-set lines only)"
    )
    _add_openings_flag(play, "before each game")
    play.add_argument("--no-book", action="store_true", help="without the opening book")
    play.add_argument("--no-ponder", action="store_true", help="without pondering on the opponent's time")
    play.set_defaults(run=bench_play)

    budget = modes.add_parser(
        "budget",
        parents=[COMMON],
        help="time the robot's answers in games from random openings (book on, no pondering): all within 500 ms?",
    )
    budget.add_argument(
        "--answers", dest="budget", type=bounded_int(1, 1_000_000), default=1000, help="answers to time (default 1000)"
    )
    _add_openings_flag(budget, "before the robot's games")
    budget.add_argument(
        "--width",
        type=bounded_int(4, 9),
        default=7,
        help="board columns (default 7; 9x7 and 8x8 play by the heuristic search alone)",
    )
    budget.add_argument("--height", type=bounded_int(4, 9), default=6, help="board rows (default 6)")
    budget.set_defaults(run=bench_budget)

    keeps = modes.add_parser(
        "keeps-value",
        parents=[COMMON],
        help="does `move` (level 10, 500 ms, a cold engine) keep the value on every line of up to 12 plies of "
        "the sets and on random 8-12-ply positions? Each move judged by a full weak solve",
    )
    keeps.add_argument(
        "--sets", type=set_names, default=",".join(SET_NAMES), help="comma-separated test sets (default: all six)"
    )
    _add_testsets_flag(keeps)
    keeps.add_argument(
        "--randoms", type=bounded_int(0, 100_000), default=300, help="random 8-12-ply positions (default 300)"
    )
    keeps.add_argument(
        "--hard",
        type=bounded_int(0, 100_000),
        default=0,
        help="also N random 10-12-ply positions whose cold weak solve needs over 2 M nodes "
        "(too many for the budget: the heuristics and the loss check decide; default 0)",
    )
    keeps.add_argument(
        "--judged",
        type=Path,
        metavar="FILE",
        help="keep the judge's solves in FILE (JSON): re-runs solve only new moves",
    )
    keeps.add_argument(
        "--beside",
        type=parse_beside,
        default=(),
        metavar="game,busy",
        help="while measuring, run whole simulated games (game) and a process that keeps a core busy (busy)",
    )
    keeps.set_defaults(run=bench_keeps_value)


def _add_test_set_flags(parser: argparse.ArgumentParser, lines: int) -> None:
    parser.add_argument(
        "--lines", type=bounded_int(1, 1000), default=lines, help=f"first N lines of each set (default {lines})"
    )
    parser.add_argument(
        "--sets", type=set_names, default=",".join(SET_NAMES), help="comma-separated test sets (default: all six)"
    )
    _add_testsets_flag(parser)


def _add_testsets_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--testsets", type=Path, default=DEFAULT_TESTSETS, help=f"folder of Test_* files (default {DEFAULT_TESTSETS})"
    )


def _add_weak_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--weak", action="store_true", help="win/draw/loss only")


def _add_openings_flag(parser: argparse.ArgumentParser, when: str) -> None:
    parser.add_argument(
        "--openings",
        type=bounded_int(0, 30),
        default=2,
        metavar="K",
        help=f"random plies {when} (default 2: off the robot's book at once; 0: from the empty board)",
    )


def _add_table_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--table-mb", type=finite_float(0.125, 4096), default=None, help="table size in MB (default: the L2 cache's)"
    )


def bench_sets(args: argparse.Namespace) -> int:
    """`sets` (our timings beside the reference's published figures) and `versus` (a reference binary run now)."""
    from engine import Position, Solver

    if not args.testsets.is_dir():
        raise FileNotFoundError(f"test sets folder {args.testsets} not found: give it with --testsets DIR")
    sets = {name: read_test_set(args.testsets, name, args.lines) for name in args.sets.split(",")}
    solver = Solver(args.table_mb)
    prepare_engine_aloud()
    started = time.perf_counter()
    solver.solve_many([Position.from_moves(LOADING_POSITION)])
    if args.mode == "versus":
        return bench_versus(args.binary, sets, solver, args.weak)
    return _time_sets(sets, solver, args.weak, args.warm, time.perf_counter() - started)


def _time_sets(sets: dict[str, list[tuple[str, int]]], solver: Solver, weak: bool, warm: bool, load_s: float) -> int:
    """One row per set: our times and nodes, and the reference's published figures beside them."""
    from engine import Position
    from engine.scores import outcome

    print(
        f"kernels ready in {load_s:.2f} s; table {solver.table.size_mb:g} MB "
        f"{'kept' if warm else 'cleared before each position (untimed)'}; "
        f"{'weak' if weak else 'strong'} mode"
    )
    print(
        f"times are each position's search, timed inside the kernel; one call of Solver.solve from Python "
        f"adds {_python_call_us(solver):.1f} us (bench solves each set in one call)"
    )
    header = (
        f"{'set':<7}{'pos':>5}{'exact':>6}{'median ms':>11}{'p95 ms':>10}{'max ms':>10}{'mean nodes':>12}"
        f"{'Mnodes/s':>9} | {'ref med':>8}{'ref p95':>9}{'ref max':>9}{'ref nodes':>11}"
    )
    print(header)
    print("-" * len(header))
    for name, rows in sets.items():
        results = solver.solve_many([Position.from_moves(moves) for moves, _ in rows], weak, cold=not warm)
        expected_scores = [outcome(e) if weak else e for _, e in rows]
        exact = all(result.score == expected for result, expected in zip(results, expected_scores, strict=False))
        times_ms = sorted(result.elapsed_s * 1e3 for result in results)
        nodes = sum(result.nodes for result in results)
        p95 = quantile(times_ms, 0.95)
        rate = nodes / max(sum(times_ms) / 1e3, 1e-9) / 1e6
        reference = REFERENCE.get((name, weak))
        ref_text = "{:>8g}{:>9g}{:>9g}{:>11,}".format(*reference) if reference else f"{'-':>8}{'-':>9}{'-':>9}{'-':>11}"
        print(
            f"{name:<7}{len(rows):>5}{'yes' if exact else 'NO':>6}{statistics.median(times_ms):>11.4f}{p95:>10.3f}"
            f"{times_ms[-1]:>10.1f}{nodes / len(rows):>12,.0f}{rate:>9.2f} | {ref_text}",
            flush=True,
        )
    return 0


def _python_call_us(solver: Solver) -> float:
    """Median wall time of Solver.solve on a position won at once: the cost of a call, not of a search."""
    from engine import Position

    won_at_once = Position.from_moves("112233")
    times = []
    for _ in range(200):
        started = time.perf_counter()
        solver.solve(won_at_once)
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1e6


def bench_versus(binary: Path, sets: dict[str, list[tuple[str, int]]], solver: Solver, weak: bool) -> int:
    """Each set solved by the reference binary and by ours (table cleared before each position, untimed,
    both), side by side: the ratio of the medians is what to compare, machines differ from day to day.

    Twice, in the order reference, ours, ours, reference, each position's time the quicker of its two:
    on a shared machine a burst of someone else's work otherwise lands on one side only."""
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

    names = args.sets.split(",")
    rows = [row for name in names for row in read_test_set(args.testsets, name, 1000)]
    positions = positions_to_check(rows, args.randoms, KEEPS_VALUE_PLIES, seed=0)
    prepare_engine_aloud()
    warm_up()
    judge = Judge(args.judged)
    hard: list[tuple[str, int | None]] = []
    try:
        if args.hard:
            print(f"finding {args.hard} hard positions (a weak solve each)...", flush=True)
            hard = list(hard_positions(args.hard, KEEPS_VALUE_PLIES, seed=0, judge=judge))
        print(
            f"{len(positions) + len(hard)} positions: {len(positions) - args.randoms} test-set lines of up to "
            f"{KEEPS_VALUE_PLIES} plies ({','.join(names)}), {args.randoms} random ones, {len(hard)} hard random "
            "ones (seed 0); level 10, 500 ms, cold table",
            flush=True,
        )
        with running_beside(args.beside):
            verdicts = check_moves(
                positions + hard, judge, on_verdict=lambda v: None if v.kept else print(describe_miss(v), flush=True)
            )
            load = os.getloadavg()[1]
    finally:
        judge.save()
    print(summary(verdicts) + f"; load {load:.1f} (5 min) with {','.join(args.beside) or 'nothing'} beside")
    return 0 if all(verdict.kept for verdict in verdicts) else 1
