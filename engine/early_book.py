"""The early book: a value-keeping move for every won or drawn position of its first plies.

It complements the opening book for games that leave the robot's lines at once: a board set up by
hand, the hard early test positions (Test_L1_R3). Positions of a few plies can take the solver far
more nodes than fit in the 500 ms budget. It holds every position of up to its depth plies that
is won or drawn for the side to move, with a move that keeps that outcome (1 win, 0 draw; lost ones
are left out: any move keeps a loss, and the player's heuristics pick the trickiest). `c4robot book
early` weakly solves only the deepest ply; every shallower position's outcome follows from its
children's, checked before the book is written (check_against_parents). Its solves run on this
machine's cores or on a Dask cluster (engine.cluster_solves, docs/cluster-book.md). A deeper ply can take
several sessions: `c4robot book early --add-solved` ships what its work file holds so far, as entries
past the book's depth (`Book.score` then knows the ones it holds).

Stored as a `Book` with `weak` set (engine/early_book.npz, the opening book's format and lookup).
"""

from __future__ import annotations

import multiprocessing
import random
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from engine.book import (
    SAVE_EVERY_S,
    Book,
    canonical_key,
    load_book,
    oriented,
    perfect_move,
    read_work,
    save_book,
    worker_solver,
    write_work,
)
from engine.position import Position, centre_first

if TYPE_CHECKING:
    from engine.solver import Solver

EARLY_BOOK_PATH = Path(__file__).with_name("early_book.npz")
SIBLINGS_PER_JOB = 7  # the positions after one parent share a worker, and much of their solves in its table
CHECK_SAMPLE = 8  # parent positions each build solves directly, to check its derived outcomes
CHECK_TABLE_MB = 64.0


def positions_by_ply(depth: int, width: int = 7, height: int = 6) -> list[dict[int, str]]:
    """Every position of 0..`depth` plies that is not over, by ply: canonical key -> one move string to it."""
    layers = [{canonical_key(Position.empty(width, height)): ""}]
    for _ in range(depth):
        layer: dict[int, str] = {}
        for moves in layers[-1].values():
            position = Position.from_moves(moves, width, height)
            for col in position.legal_moves():
                if position.is_winning_move(col):
                    continue
                child = position.play(col)
                if not child.is_over():
                    layer.setdefault(canonical_key(child), moves + str(col + 1))
        layers.append(layer)
    return layers


def keeping_solve(solver: Solver, job: tuple[str, int, int]) -> tuple[str, int, int]:
    """(moves, outcome, column keeping it; -1 for a loss) of one job (moves, width, height), weakly solved."""
    moves, width, height = job
    position = Position.from_moves(moves, width, height)
    solved = solver.solve(position, weak=True)
    if solved.score < 0:
        return moves, solved.score, -1
    if solved.column is not None:
        return moves, solved.score, solved.column
    found = perfect_move(position, lambda p: solver.solve(p, weak=True).score)
    return moves, solved.score, found.column


def _keep_one(job: tuple[str, int, int]) -> tuple[str, int, int]:
    """keeping_solve in a worker process of the local pool, with that process's solver."""
    return keeping_solve(worker_solver(), job)


def _keeping_move(position: Position, outcomes: dict[int, tuple[int, int]]) -> tuple[int, int]:
    """(outcome, column) of a position from its children's outcomes: the centre-most move that keeps the best."""
    best = (-2, -1)
    for col in centre_first(position.width):
        if not position.can_play(col):
            continue
        if position.is_winning_move(col):
            return 1, col
        child = position.play(col)
        outcome = 0 if child.is_draw() else -outcomes[canonical_key(child)][0]
        if outcome > best[0]:
            best = (outcome, col)
    return best


def _off_centre(moves: str, width: int) -> float:
    """How far a line's discs lie from the centre column, summed: real games (people, the robot) play
    near the centre, so an unfinished build that solved the central lines first already serves most games."""
    return sum(abs(int(column) - 1 - (width - 1) / 2) for column in moves)


def build_early_book(
    depth: int,
    work_path: Path,
    out_path: Path = EARLY_BOOK_PATH,
    processes: int = 2,
    width: int = 7,
    height: int = 6,
    on_progress: Callable[[int, int, float], None] | None = None,
    scheduler: Any = None,
    check_sample: int = CHECK_SAMPLE,
) -> Book:
    """Weakly solve every position of `depth` plies (resuming from `work_path`), derive the shallower ones,
    check them (check_against_parents) and write the won and drawn ones with a value-keeping move to
    `out_path` as a weak book.

    The solves run in `processes` local worker processes, or on the Dask cluster at `scheduler` (an
    address or a distributed Client: engine.cluster_solves). `on_progress(done, total, positions_per_s)`
    follows them, central lines first (_off_centre), the positions after one parent together. The work
    file is written every few seconds and when the build stops for any reason. Raises ValueError for a
    depth below 0 or solves that disagree with the check, ClusterError when the cluster fails.
    """
    if depth < 0:
        raise ValueError(f"early book depth {depth} is negative: give 0 or more plies")
    layers = positions_by_ply(depth, width, height)
    done = read_work(work_path, width, height)
    deepest = layers[depth]
    jobs = sorted(
        ((moves, width, height) for key, moves in deepest.items() if key not in done),
        key=lambda job: (_off_centre(job[0][:-1], width), job[0]),
    )
    solves = _solves(jobs, processes, scheduler)
    started = last_save = time.perf_counter()
    try:
        for solved_now, (moves, outcome, column) in enumerate(solves, start=1):
            position = Position.from_moves(moves, width, height)
            key = canonical_key(position)
            done[key] = (outcome, column if column < 0 else oriented(column, position, key))
            if on_progress is not None:
                on_progress(
                    len(deepest) - len(jobs) + solved_now,
                    len(deepest),
                    solved_now / max(1e-9, time.perf_counter() - started),
                )
            if time.perf_counter() - last_save > SAVE_EVERY_S:
                write_work(work_path, done, width, height)
                last_save = time.perf_counter()
    finally:
        solves.close()
        write_work(work_path, done, width, height)
    outcomes = {key: done[key] for key in deepest}
    for layer in reversed(layers[:depth]):
        for key, moves in layer.items():
            position = Position.from_moves(moves, width, height)
            outcome, column = _keeping_move(position, outcomes)
            outcomes[key] = (outcome, oriented(column, position, key))
    previous = load_book(out_path) if out_path.is_file() else None
    check_against_parents(layers, outcomes, width, height, previous, check_sample)
    kept = sorted(key for key, (outcome, _) in outcomes.items() if outcome >= 0)
    keys = np.array(kept, dtype=np.uint64)
    scores = np.array([outcomes[key][0] for key in kept], dtype=np.int8)
    columns = np.array([outcomes[key][1] for key in kept], dtype=np.int8)
    book = Book(width, height, depth, keys, scores, columns, weak=True)
    save_book(out_path, book)
    return book


def _solves(jobs: list[tuple[str, int, int]], processes: int, scheduler: Any) -> Iterator[tuple[str, int, int]]:
    """keeping_solve of each job, in the order they finish: on the cluster at `scheduler`, else in a pool of
    `processes` local worker processes; neither is started when there is nothing to solve."""
    if not jobs:
        return
    if scheduler is not None:
        from engine.cluster_solves import solves_on_cluster

        yield from solves_on_cluster(keeping_solve, jobs, scheduler)
        return
    with multiprocessing.get_context("spawn").Pool(processes) as pool:
        yield from pool.imap_unordered(_keep_one, jobs, chunksize=SIBLINGS_PER_JOB)


def check_against_parents(
    layers: list[dict[int, str]],
    outcomes: dict[int, tuple[int, int]],
    width: int,
    height: int,
    previous: Book | None,
    sample: int = CHECK_SAMPLE,
) -> None:
    """Raise ValueError where the outcomes a build derived disagree with what is known without its solves:
    the `previous` book's (the one it replaces, if a weak one of this board), on every position it covers
    or holds, and a direct weak solve of `sample` seeded positions of the ply above the deepest. Wrong
    results from a worker (or a damaged or mixed-up work file) show there before a book is written."""
    wrong = [
        moves for key, moves, outcome in _known_outcomes(layers, width, height, previous) if outcomes[key][0] != outcome
    ]
    depth = len(layers) - 1
    if depth > 0 and sample > 0:
        from engine.solver import Solver

        solver = Solver(CHECK_TABLE_MB)
        above = sorted(layers[depth - 1].items())
        for key, moves in random.Random(0).sample(above, min(sample, len(above))):
            solver.clear()
            if solver.solve(Position.from_moves(moves, width, height), weak=True).score != outcomes[key][0]:
                wrong.append(moves)
    if wrong:
        raise ValueError(
            f"the build's outcomes disagree with {len(wrong)} known position(s), e.g. after moves {wrong[0]!r}: "
            "a worker's results are wrong; no book written, the work file kept for a look"
        )


def _known_outcomes(
    layers: list[dict[int, str]], width: int, height: int, previous: Book | None
) -> Iterator[tuple[int, str, int]]:
    """(key, moves, outcome) of every position of `layers` the previous book covers or holds."""
    if (
        previous is None
        or not previous.weak
        or (previous.width, previous.height) != (width, height)
        or not len(previous)
    ):
        return
    for ply, layer in enumerate(layers):
        keys = np.fromiter(layer, dtype=np.uint64, count=len(layer))
        index = np.minimum(np.searchsorted(previous.keys, keys), len(previous) - 1)
        held = previous.keys[index] == keys
        known = np.where(held, previous.scores[index], -1)
        for (key, moves), outcome, is_held in zip(layer.items(), known.tolist(), held.tolist(), strict=True):
            if is_held or ply <= previous.depth:
                yield key, moves, outcome


def add_solved(work_path: Path, book_path: Path = EARLY_BOOK_PATH) -> tuple[Book, int]:
    """Add the won and drawn positions a (possibly unfinished) build's work file holds to the weak book at
    `book_path`, rewriting it atomically; its depth stays, so `Book.score` keeps calling lost only the
    unheld positions it covers. Returns the new book and how many entries were added.

    Any solved position may go in: a work file's exact score (the opening book's builder) keeps only
    its sign, and a perfect move keeps it. Raises FileNotFoundError for a missing file, ValueError for a
    damaged one or one of another board size."""
    book = load_book(book_path)
    if not book.weak:
        raise ValueError(f"{book_path} is not an early (weak) book: only those take solved positions")
    if not work_path.is_file():
        raise FileNotFoundError(f"no work file at {work_path}: give the one `c4robot book early --work` wrote")
    done = read_work(work_path, book.width, book.height)
    if not done:
        raise ValueError(f"{work_path} holds no solved {book.width}x{book.height} positions")
    fresh = sorted(key for key, (score, column) in done.items() if score >= 0 and 0 <= column < book.width)
    fresh_keys = np.array(fresh, dtype=np.uint64)
    fresh_keys = fresh_keys[~np.isin(fresh_keys, book.keys)]
    fresh_scores = np.array([np.sign(done[int(key)][0]) for key in fresh_keys], dtype=np.int8)
    fresh_columns = np.array([done[int(key)][1] for key in fresh_keys], dtype=np.int8)
    keys = np.concatenate([book.keys, fresh_keys])
    order = np.argsort(keys, kind="stable")
    merged = Book(
        book.width,
        book.height,
        book.depth,
        keys[order],
        np.concatenate([book.scores, fresh_scores])[order],
        np.concatenate([book.columns, fresh_columns])[order],
        weak=True,
    )
    save_book(book_path, merged)
    return merged, len(fresh_keys)
