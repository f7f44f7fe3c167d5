"""`c4robot move` and `c4robot match`: the playing engine from the command line, and its play benchmark.

`bench_play(args)` is called by `c4robot bench engine --play` (the engine area's parser owns the flags).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

from engine.testsets import read_test_set
from robot.cli.common import COMMON, bounded_int, finite_float, quantile, quoted

STYLES = ("neutral", "expansive", "restrictive", "tactical")
BUDGET_MS = 500.0
THINK_S = 5.0  # the simulated person's thinking time per move in the benchmark games
BUDGET_GAMES_PER_ROUND = 2  # one with the robot first, one second
BUDGET_OPPONENT_S = 0.05  # the opponents only make the games varied: their speed does not matter
MIN_SIZE, MAX_WIDTH, MAX_HEIGHT = 4, 9, 9  # move strings are digits: at most 9 columns
MAX_OPENING_PLIES = 30  # random openings of up to 30 plies are found in milliseconds and leave a game to play
MAX_BOOK_DEPTH = 14  # the shipped opening book's depth; its lines grow about 2.5x a ply past it
MAX_EARLY_DEPTH = 12  # the early book's 11th ply is some 2.4 M positions, about 12 hours of two cores


def register(commands: argparse._SubParsersAction, bench_targets: argparse._SubParsersAction) -> None:
    """Add `move`, `match` and `book build`."""
    move = commands.add_parser("move", parents=[COMMON], help="the column the robot would play")
    move.add_argument("moves", nargs="?", default="", help="1-based move string, e.g. 4453 (empty: new game)")
    move.add_argument("--time-ms", type=finite_float(1, 600_000), default=500.0, help="time budget in ms (default 500)")
    move.add_argument(
        "--level", type=bounded_int(1, 10), default=10, help="skill 1 (beginner) .. 10 (perfect), default 10"
    )
    move.add_argument("--style", choices=STYLES, default="neutral", help="playing style (the Delphi seed's)")
    move.add_argument("--seed", type=bounded_int(0, 2**63 - 1), help="seed for the choice among equally good moves")
    move.add_argument("--width", type=bounded_int(MIN_SIZE, MAX_WIDTH), default=7, help="board columns (default 7)")
    move.add_argument("--height", type=bounded_int(MIN_SIZE, MAX_HEIGHT), default=6, help="board rows (default 6)")
    move.add_argument("--json", action="store_true", help="print JSON")
    move.set_defaults(run=run_move)

    match = commands.add_parser("match", parents=[COMMON], help="engine-vs-engine match with a results table")
    match.add_argument("a", help="player A: a level 1..10 or 'seed' (the robot seed's depth-4 bot)")
    match.add_argument("b", help="player B: a level 1..10 or 'seed'")
    match.add_argument(
        "--games", type=bounded_int(1, 10_000), default=10, help="games, played in pairs with colours swapped"
    )
    match.add_argument(
        "--openings",
        type=bounded_int(0, MAX_OPENING_PLIES),
        default=2,
        help="random opening plies before the players take over",
    )
    match.add_argument(
        "--time-ms",
        type=finite_float(1, 600_000),
        default=500.0,
        help="time per move in ms (default 500, the robot's budget)",
    )
    match.add_argument(
        "--seed", type=bounded_int(0, 2**63 - 1), default=0, help="seed of the openings and the players' variety"
    )
    match.add_argument("--quiet", action="store_true", help="only the table, not every game")
    match.set_defaults(run=run_match)

    book = commands.add_parser("book", parents=[COMMON], help="the opening book")
    book_actions = book.add_subparsers(dest="action", required=True, metavar="ACTION")
    build = book_actions.add_parser(
        "build", parents=[COMMON], help="solve the robot's lines of the first plies (resumable)"
    )
    early = book_actions.add_parser(
        "early",
        parents=[COMMON],
        help="a value-keeping move for every position of the first plies, for games off the robot's lines (resumable)",
    )
    for action, work, out, most in (
        (build, "book-work.npz", "book.npz", MAX_BOOK_DEPTH),
        (early, "early-work.npz", "early_book.npz", MAX_EARLY_DEPTH),
    ):
        action.add_argument(
            "--depth",
            type=bounded_int(1, most),
            default=4,
            help="plies covered (default 4; the early book's 10th ply took about 4 hours of two cores)",
        )
        action.add_argument(
            "--processes", type=bounded_int(1, 64), default=2, help="worker processes (default 2, one per core)"
        )
        action.add_argument("--work", default=work, help=f"progress file to resume from (default ./{work})")
        action.add_argument("--out", help=f"book file (default: engine/{out} inside the package)")
        action.set_defaults(run=run_book_build)
    early.add_argument(
        "--add-solved",
        action="store_true",
        help="solve nothing: add the won and drawn positions the work file holds so far (a deeper ply's "
        "unfinished build) to the book, past its depth",
    )
    early.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="solve on the Dask cluster at ADDRESS (e.g. tcp://host:8786) instead of --processes (docs/cluster-book.md)",
    )


def prepare_engine_aloud() -> float | None:
    """Compile the engine's kernels on the very first run, saying so on stderr (engine.preparation);
    the seconds it took, None when they were ready."""
    from engine.preparation import prepare_engine

    return prepare_engine(lambda line: print(f"c4robot: {line}", file=sys.stderr, flush=True))


def run_move(args: argparse.Namespace) -> int:
    """The robot's move (engine.resident.answer_move): the resident engine's when one is up, at once where the
    books or the rule keep the value, else the engine's once loaded (`waited_ms` in --json says how long)."""
    from engine import resident

    if len(args.moves) > args.width * args.height:
        raise ValueError(
            f"moves {quoted(args.moves)}: a {args.width}x{args.height} board holds at most {args.width * args.height}"
        )
    request = {
        "moves": args.moves,
        "width": args.width,
        "height": args.height,
        "level": args.level,
        "style": args.style,
        "seed": args.seed,
        "time_ms": args.time_ms,
        "known_at": time.monotonic(),  # the budget counts from here
    }
    answer = resident.answer_move(request, say=lambda line: print(f"c4robot: {line}", file=sys.stderr, flush=True))
    result = answer.result
    if args.json:
        print(
            json.dumps(
                {
                    "column": result.column + 1,
                    "score": result.score,
                    "proven": result.proven,
                    "depth": result.depth,
                    "nodes": result.nodes,
                    "ms": round(result.ms, 1),
                    "pv": "".join(str(c + 1) for c in result.pv),
                    "column_scores": list(result.column_scores),
                    "waited_ms": round(answer.waited_ms, 1),
                    "cpu_share": None if result.cpu_share is None else round(result.cpu_share, 2),
                    "threads": result.threads,
                    "answered_by": answer.answered_by,
                }
            )
        )
    else:
        kind = "proven" if result.proven else "heuristic"
        print(
            f"column {result.column + 1}  score {result.score} ({kind})  depth {result.depth}  "
            f"nodes {result.nodes}  {result.ms:.0f} ms  line {''.join(str(c + 1) for c in result.pv)}"
        )
    return 0


def run_match(args: argparse.Namespace) -> int:
    from engine.match import make_player, play_match
    from engine.search import Limit, warm_up

    if args.games < 1:
        raise ValueError(f"--games {args.games} is below 1: play at least one game")
    prepare_engine_aloud()
    warm_up()
    limit = Limit(time=args.time_ms / 1000.0)
    a, b = make_player(args.a, limit), make_player(args.b, limit)
    started = time.perf_counter()

    def show(game) -> None:
        if not args.quiet:
            print(f"{game.first:>10} vs {game.second:<10} {game.moves:<42} {game.winner or 'draw'}", flush=True)

    summary = play_match(a, b, args.games, args.openings, args.seed, on_game=show)
    elapsed_s = time.perf_counter() - started
    print(f"{'player':<12}{'wins':>6}{'as first':>10}{'as second':>11}{'draws':>7}{'score %':>9}")
    for name in (summary.a, summary.b):
        first = sum(1 for g in summary.games if g.winner == name and g.first == name)
        second = sum(1 for g in summary.games if g.winner == name and g.second == name)
        share = summary.score_a if name == summary.a else 1.0 - summary.score_a
        print(f"{name:<12}{first + second:>6}{first:>10}{second:>11}{summary.draws:>7}{100 * share:>9.1f}")
    print(
        f"{len(summary.games)} games, {args.openings}-ply openings, {args.time_ms:.0f} ms per move, {elapsed_s:.0f} s"
    )
    return 0


def bench_play(args: argparse.Namespace) -> int:
    """Value-keeping and exactly optimal shares, proven share and time per robot move, level 10 at 500 ms.

    Flags read from `args` (defined by the engine area's `bench engine` parser): lines (per test
    set), sets, games (against mixed opponents thinking THINK_S each move, from random openings of
    `openings` plies), no_book, no_ponder.
    """
    from engine.play_quality import game_moves, test_set_moves
    from engine.search import Limit, warm_up
    from engine.solver import Solver

    lines, games = args.lines, args.games
    if lines < 1 or games < 0:
        raise ValueError(f"--lines {lines} / --games {games}: give at least one line and zero or more games")
    openings = _opening_plies(args)
    folder = args.testsets
    names = [name.strip() for name in args.sets.split(",") if name.strip()]
    use_book, ponder = not args.no_book, not args.no_ponder
    prepare_engine_aloud()
    warm_up()
    judge = Solver()
    limit = Limit(time=BUDGET_MS / 1000.0)
    print(
        f"level 10, {BUDGET_MS:.0f} ms per move; book {'on' if use_book else 'off'}; pondering "
        f"{'on' if ponder else 'off'} (games only: the opponent thinks {THINK_S:.0f} s)"
    )
    header = (
        f"{'positions from':<16}{'moves':>6}{'judged':>7}{'value kept %':>13}{'optimal %':>10}{'proven %':>9}"
        f"{'median ms':>10}{'p95 ms':>8}{'max ms':>8}"
    )
    print(header)
    print("-" * len(header))
    every = []
    for name in names:
        records = test_set_moves(read_test_set(folder, name, lines), limit, use_book, judge)
        every += records
        _print_row(f"set {name}", records)
    if games:
        records = game_moves(games, limit, use_book, THINK_S, ponder, judge, opening_plies=openings)
        every += records
        _print_row(f"{games} games, {openings}-ply", records)
    _print_row("all", every)
    for record in every:
        if record.kept is False:
            print(f"value lost after {record.moves or '(empty board)'}: column {record.column + 1}")
    slowest = max(record.ms for record in every)
    print(
        f"slowest answer {slowest:.1f} ms (budget {BUDGET_MS:.0f} ms + 10% = {1.1 * BUDGET_MS:.0f} ms): "
        f"{'within' if slowest <= 1.1 * BUDGET_MS else 'OVER'}"
    )
    return 0


def bench_budget(args: argparse.Namespace) -> int:
    """Time `args.budget` answers of level 10 (500 ms, book on, no pondering: no head start) in games from
    random openings (`args.openings` plies, 2 by default: off the book at once, the hard case) against
    mixed opponents on an `args.width` x `args.height` board, and show how the slowest compare with the
    budget."""
    from engine.play_quality import game_moves
    from engine.search import Limit, warm_up

    wanted = args.budget
    if wanted < 1:
        raise ValueError(f"--budget {wanted}: give how many answers to time, e.g. 10000")
    width, height = args.width, args.height
    openings = _opening_plies(args)
    prepare_engine_aloud()
    warm_up(width, height)  # also refuses a board size it cannot play, before any game
    limit = Limit(time=BUDGET_MS / 1000.0)
    records: list = []
    started = time.perf_counter()
    games = 0
    while len(records) < wanted:
        records += game_moves(
            BUDGET_GAMES_PER_ROUND,
            limit,
            use_book=True,
            think_s=0.0,
            ponder=False,
            solver=None,
            seed=games,
            opening_plies=openings,
            opponent_s=BUDGET_OPPONENT_S,
            width=width,
            height=height,
        )
        games += BUDGET_GAMES_PER_ROUND
        print(
            f"\r{len(records)} answers timed in {games} games, {time.perf_counter() - started:.0f} s",
            end="",
            flush=True,
        )
    print()
    times_ms = sorted(record.ms for record in records)
    over = sum(ms > BUDGET_MS for ms in times_ms)
    print(f"{width}x{height} board, {openings}-ply random openings")
    print(f"{'answers':>8}{'proven %':>9}{'median ms':>10}{'p99 ms':>8}{'p99.9 ms':>9}{'max ms':>8}{'over 500':>9}")
    print(
        f"{len(records):>8}{100 * sum(r.proven for r in records) / len(records):>9.1f}"
        f"{statistics.median(times_ms):>10.1f}{quantile(times_ms, 0.99):>8.1f}{quantile(times_ms, 0.999):>9.1f}"
        f"{times_ms[-1]:>8.1f}"
        f"{over:>9}"
    )
    print(
        f"slowest answer {times_ms[-1]:.1f} ms (budget {BUDGET_MS:.0f} ms + 10% = {1.1 * BUDGET_MS:.0f} ms): "
        f"{'within' if times_ms[-1] <= 1.1 * BUDGET_MS else 'OVER'}"
    )
    return 0


def _opening_plies(args: argparse.Namespace) -> int:
    """The random plies before the robot's games (`--openings`), checked."""
    openings = args.openings
    if not 0 <= openings <= MAX_OPENING_PLIES:
        raise ValueError(
            f"--openings {openings}: give 0 (the empty board) to {MAX_OPENING_PLIES} random plies "
            "(a longer random opening leaves no game to play)"
        )
    return openings


def _print_row(label: str, records: list) -> None:
    """One table row: shares over the judged moves, times over all moves."""
    judged = [record for record in records if record.kept is not None]
    times_ms = sorted(record.ms for record in records)
    kept = 100 * sum(record.kept for record in judged) / max(1, len(judged))
    optimal = 100 * sum(record.optimal for record in judged) / max(1, len(judged))
    proven = 100 * sum(record.proven for record in records) / max(1, len(records))
    p95 = quantile(times_ms, 0.95)
    print(
        f"{label:<16}{len(records):>6}{len(judged):>7}{kept:>13.1f}{optimal:>10.1f}{proven:>9.1f}"
        f"{statistics.median(times_ms):>10.1f}{p95:>8.1f}{times_ms[-1]:>8.1f}",
        flush=True,
    )


def run_book_build(args: argparse.Namespace) -> int:
    import sys

    from engine.book import BOOK_PATH, build_book
    from engine.early_book import EARLY_BOOK_PATH, add_solved, build_early_book

    early = args.action == "early"
    work = Path(args.work)
    if early and args.add_solved:
        book, added = add_solved(work, Path(args.out) if args.out else EARLY_BOOK_PATH)
        print(f"book: {added} solved positions added past its {book.depth} plies ({len(book)} in all)")
        return 0
    started = time.perf_counter()

    def progress(done: int, total: int, rate: float) -> None:
        filled = int(30 * done / max(1, total))
        found = "" if early else " found so far"
        print(
            f"\r[{'#' * filled}{'.' * (30 - filled)}] {done}/{total} positions{found}  {rate:.2f} positions/s",
            end="",
            file=sys.stderr,
            flush=True,
        )

    build, default_out = (build_early_book, EARLY_BOOK_PATH) if early else (build_book, BOOK_PATH)
    cluster = {"scheduler": args.scheduler} if early else {}
    book = build(
        args.depth, work, Path(args.out) if args.out else default_out, args.processes, on_progress=progress, **cluster
    )
    print(file=sys.stderr)
    what = "won or drawn positions with a value-keeping move" if early else "robot positions"
    print(f"book: {len(book)} {what} up to {book.depth} plies, built in {time.perf_counter() - started:.0f} s")
    return 0
