"""`c4robot solve`, `c4robot analyze` and `c4robot bench engine`: the exact solver on the command line."""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from engine.testsets import DEFAULT_TESTSETS, SET_NAMES, read_test_set
from robot.cli.common import COMMON, bounded_int, finite_float, quantile, quoted
from robot.cli.engine_benches import bench_keeps_value, bench_versus
from robot.cli.player_commands import bench_budget, bench_play, prepare_engine_aloud

if TYPE_CHECKING:
    from engine import Position, Solver
    from engine.solver import SolveResult


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

MAX_MOVES = 42  # a 7x6 board
SOLVE_HELP = "exact scores of positions: move strings on stdin, 'MOVES SCORE NODES MICROSECONDS' on stdout"
ANALYZE_HELP = (
    "the exact score of every column of a position, and the best move; the books answer for the "
    "robot's lines and (--weak) the first plies at once, the solver does the rest"
)


def register(commands: argparse._SubParsersAction, bench_targets: argparse._SubParsersAction) -> None:
    """Add `solve`, `analyze` and the `engine` benchmark."""
    solve = commands.add_parser(
        "solve",
        parents=[COMMON],
        help=SOLVE_HELP,
        description=SOLVE_HELP
        + (". A line may carry a second field (the expected score of the public test sets), which is ignored."),
    )
    solve.add_argument("--weak", action="store_true", help="only win (1), draw (0) or loss (-1): faster")
    _add_table_flag(solve)
    solve.set_defaults(run=run_solve)

    analyze = commands.add_parser("analyze", parents=[COMMON], help=ANALYZE_HELP, description=ANALYZE_HELP)
    analyze.add_argument("moves", metavar="MOVES", help="1-based column digits played so far, e.g. 4453 ('' = empty)")
    analyze.add_argument("--weak", action="store_true", help="only win, draw or loss per column: faster")
    analyze.add_argument("--json", action="store_true", help="print JSON instead of a table")
    _add_table_flag(analyze)
    analyze.set_defaults(run=run_analyze)

    bench = bench_targets.add_parser(
        "engine",
        parents=[COMMON],
        help="the exact solver on the public test sets, beside the C++ reference (--play: the player's moves instead)",
    )
    bench.add_argument("--lines", type=bounded_int(1, 1000), default=50, help="first N lines of each set (default 50)")
    bench.add_argument("--sets", default=",".join(SET_NAMES), help="comma-separated sets (default: all six)")
    bench.add_argument("--weak", action="store_true", help="win/draw/loss only")
    bench.add_argument(
        "--testsets", type=Path, default=DEFAULT_TESTSETS, help=f"folder of Test_* files (default {DEFAULT_TESTSETS})"
    )
    bench.add_argument(
        "--warm",
        action="store_true",
        help="keep the table between positions (default: cleared before each, untimed, as in the reference)",
    )
    bench.add_argument(
        "--versus",
        type=Path,
        metavar="PATH",
        help="a reference solver binary (Pons' c4solver, engine/reference/build_pons.sh) run on the same "
        "lines in the same run: median and p95 of both and the ratio of the medians",
    )
    bench.add_argument("--play", action="store_true", help="measure the player's moves (engine.search) instead")
    bench.add_argument(
        "--games", type=bounded_int(0, 10_000), default=None, help="with --play: games to play (0: test-set lines only)"
    )
    bench.add_argument("--no-book", action="store_true", help="with --play: without the opening book")
    bench.add_argument("--no-ponder", action="store_true", help="with --play: without pondering")
    bench.add_argument(
        "--openings",
        type=bounded_int(0, 30),
        default=2,
        metavar="K",
        help="with --games or --budget: random "
        "plies before the robot plays (default 2: off its book at once; 0: from the empty board)",
    )
    bench.add_argument(
        "--budget",
        type=bounded_int(1, 1_000_000),
        metavar="N",
        help="time N robot answers in games from random "
        "openings (book on, no pondering): does every answer keep the 500 ms budget?",
    )
    bench.add_argument(
        "--width",
        type=bounded_int(4, 9),
        default=7,
        help="with --budget: board columns (default 7; 9x7 and 8x8 play by the heuristic search alone)",
    )
    bench.add_argument("--height", type=bounded_int(4, 9), default=6, help="with --budget: board rows (default 6)")
    bench.add_argument(
        "--keeps-value",
        action="store_true",
        help="does `move` (level 10, 500 ms, a cold engine) keep the value on every line of up to 12 plies of "
        "--sets and on --randoms random 8-12-ply positions? Each move judged by a full weak solve",
    )
    bench.add_argument(
        "--randoms",
        type=bounded_int(0, 100_000),
        default=300,
        help="with --keeps-value: random positions (default 300)",
    )
    bench.add_argument(
        "--hard",
        type=bounded_int(0, 100_000),
        default=0,
        help="with --keeps-value: also N random 10-12-ply positions whose cold weak solve needs over 2 M nodes "
        "(too many for the budget: the heuristics and the loss check decide; default 0)",
    )
    bench.add_argument(
        "--judged",
        type=Path,
        metavar="FILE",
        help="with --keeps-value: keep the judge's solves in FILE (JSON), so re-runs only solve new moves",
    )
    _add_table_flag(bench)
    bench.set_defaults(run=run_bench)


def _add_table_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--table-mb", type=finite_float(0.125, 4096), default=None, help="table size in MB (default: the L2 cache's)"
    )


def run_solve(args: argparse.Namespace) -> int:
    """One output line per input line; bad lines are reported on stderr and make the exit status 2.

    Typed lines are answered one by one; piped input is read whole and solved in one kernel call. What
    the books know (engine.package_books.book_score) is answered from them, with 0 nodes.
    """
    from engine import Position, Solver

    solver = Solver(args.table_mb)
    prepare_engine_aloud()
    status = 0
    batches = ([line] for line in sys.stdin) if sys.stdin.isatty() else iter([sys.stdin.readlines()])
    number = 0
    for lines in batches:
        parsed: list[tuple[str, Position | str]] = []  # (moves, position or the error's sentence)
        expected: dict[int, tuple[int, str]] = {}  # index in parsed -> (expected score, the line)
        for line in lines:
            number += 1
            fields = line.split()
            if not fields:
                continue
            try:
                if len(fields) > 2 or (len(fields) == 2 and not fields[1].lstrip("-").isdigit()):
                    raise ValueError("expected the moves, optionally followed by a score")
                if len(fields[0]) > MAX_MOVES:
                    raise ValueError(f"{len(fields[0])} moves: a 7x6 board holds at most {MAX_MOVES}")
                position = Position.from_moves(fields[0])
                solver.check(position)
                if len(fields) == 2:
                    expected[len(parsed)] = (int(fields[1]), f"line {number} {quoted(line.strip())}")
                parsed.append((fields[0], position))
            except ValueError as error:
                parsed.append((fields[0], f"c4robot solve: line {number} {quoted(line.strip())}: {error}"))
        booked = {index: _book_result(p, args.weak) for index, (_, p) in enumerate(parsed) if isinstance(p, Position)}
        to_solve = [p for index, (_, p) in enumerate(parsed) if isinstance(p, Position) and booked[index] is None]
        results = iter(solver.solve_many(to_solve, weak=args.weak))
        for index, (moves, position) in enumerate(parsed):
            if isinstance(position, str):
                print(position, file=sys.stderr, flush=True)
                status = 2
                continue
            result = booked[index] or next(results)
            print(f"{moves} {result.score} {result.nodes} {round(result.elapsed_s * 1e6)}", flush=True)
            if index in expected and expected[index][0] != result.score:
                score, where = expected[index]
                print(
                    f"c4robot solve: {where} is read as the moves {moves!r} and an expected score {score}, "
                    f"but the position scores {result.score} (moves are written without spaces)",
                    file=sys.stderr,
                    flush=True,
                )
                status = max(status, 1)
    return status


def _book_result(position: Position, weak: bool) -> SolveResult | None:
    """The books' score of `position` as a solve's result (no node searched), or None when they do not know it."""
    from engine.package_books import book_score
    from engine.solver import SolveResult

    started = time.perf_counter()
    score = book_score(position, weak)
    return None if score is None else SolveResult(score, 0, time.perf_counter() - started)


def describe_score(score: int, stones_to_move: int, stones_other: int, weak: bool) -> str:
    """'win in N' / 'draw' / 'loss in N' (N counts the winner's moves including the winning one)."""
    if score == 0:
        return "draw"
    if weak:
        return "win" if score > 0 else "loss"
    if score > 0:
        return f"win in {stones_to_move + 1 - score}"
    return f"loss in {stones_other + 1 + score}"


def run_analyze(args: argparse.Namespace) -> int:
    from engine import Position, Solver
    from engine.package_books import book_score
    from engine.position import centre_first

    if len(args.moves) > MAX_MOVES:
        raise ValueError(f"moves {quoted(args.moves)}: a 7x6 board holds at most {MAX_MOVES}")
    position = Position.from_moves(args.moves)
    prepare_engine_aloud()
    started = time.perf_counter()
    scores = Solver(args.table_mb).analyze(position, args.weak, lambda child: book_score(child, args.weak))
    elapsed_s = time.perf_counter() - started
    empty = position.width * position.height - position.moves_played
    mine, theirs = (empty + 1) // 2, empty // 2
    best = max((col for col in centre_first(position.width) if scores[col] is not None), key=lambda col: scores[col])
    outcomes = [None if s is None else describe_score(s, mine, theirs, args.weak) for s in scores]
    if args.json:
        print(
            json.dumps(
                {
                    "moves": args.moves,
                    "to_move": position.side_to_move,
                    "weak": args.weak,
                    "columns": [
                        None if s is None else {"column": col + 1, "score": s, "outcome": outcomes[col]}
                        for col, s in enumerate(scores)
                    ],
                    "best": best + 1,
                    "score": scores[best],
                    "seconds": round(elapsed_s, 6),
                }
            )
        )
        return 0
    print(position)
    print(f"player {position.side_to_move} to move")
    for col, score in enumerate(scores):
        text = "full" if score is None else f"{outcomes[col]:<12} (score {score:+d})"
        print(f"column {col + 1}: {text}{'   <- best' if col == best else ''}")
    print(f"best move: column {best + 1} ({outcomes[best]}), {elapsed_s:.3f} s")
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


def run_bench(args: argparse.Namespace) -> int:
    if args.keeps_value:
        return bench_keeps_value(args)
    if args.play or args.budget is not None:
        return bench_budget(args) if args.budget is not None else bench_play(args)
    from engine import Position, Solver
    from engine.scores import outcome

    if args.lines < 1:
        raise ValueError(f"--lines {args.lines} is below 1: give how many lines of each set to run")
    names = [name.strip() for name in args.sets.split(",") if name.strip()]
    unknown = [name for name in names if name not in SET_NAMES]
    if unknown:
        raise ValueError(f"unknown set {unknown[0]!r}: choose from {','.join(SET_NAMES)}")
    if not args.testsets.is_dir():
        raise FileNotFoundError(f"test sets folder {args.testsets} not found: give it with --testsets DIR")
    sets = {name: read_test_set(args.testsets, name, args.lines) for name in names}
    solver = Solver(args.table_mb)
    prepare_engine_aloud()
    started = time.perf_counter()
    solver.solve_many([Position.from_moves("2252576253462244111563365343671351441")])  # loads (or compiles) the kernels
    if args.versus is not None:
        return bench_versus(args.versus, sets, solver, args.weak)
    print(
        f"kernels ready in {time.perf_counter() - started:.2f} s; table {solver.table.size_mb:g} MB "
        f"{'kept' if args.warm else 'cleared before each position (untimed)'}; "
        f"{'weak' if args.weak else 'strong'} mode"
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
        results = solver.solve_many([Position.from_moves(moves) for moves, _ in rows], args.weak, cold=not args.warm)
        expected_scores = [outcome(e) if args.weak else e for _, e in rows]
        exact = all(result.score == expected for result, expected in zip(results, expected_scores, strict=False))
        times_ms = sorted(result.elapsed_s * 1e3 for result in results)
        nodes = sum(result.nodes for result in results)
        p95 = quantile(times_ms, 0.95)
        rate = nodes / max(sum(times_ms) / 1e3, 1e-9) / 1e6
        reference = REFERENCE.get((name, args.weak))
        ref_text = "{:>8g}{:>9g}{:>9g}{:>11,}".format(*reference) if reference else f"{'-':>8}{'-':>9}{'-':>9}{'-':>11}"
        print(
            f"{name:<7}{len(rows):>5}{'yes' if exact else 'NO':>6}{statistics.median(times_ms):>11.4f}{p95:>10.3f}"
            f"{times_ms[-1]:>10.1f}{nodes / len(rows):>12,.0f}{rate:>9.2f} | {ref_text}",
            flush=True,
        )
    return 0
