"""`c4robot solve` and `c4robot analyze`: the exact solver on the command line (`bench engine`:
robot.cli.engine_benches)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import TYPE_CHECKING

from robot.cli.common import COMMON, finite_float, quoted
from robot.cli.engine_benches import register as register_bench
from robot.cli.player_commands import prepare_engine_aloud

if TYPE_CHECKING:
    from engine import Position
    from engine.solver import SolveResult


MAX_MOVES = 42  # a 7x6 board
SOLVE_HELP = "exact scores of positions: move strings on stdin, 'MOVES SCORE NODES MICROSECONDS' on stdout"
ANALYZE_HELP = (
    "the exact score of every column of a position, and the best move; the books answer for the "
    "robot's lines and (--weak) the first plies at once, the solver does the rest"
)


def register(commands: argparse._SubParsersAction, bench_targets: argparse._SubParsersAction) -> None:
    """Add `solve`, `analyze` and `bench engine`."""
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

    register_bench(bench_targets)


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
