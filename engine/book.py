"""The opening book: the perfect move of every position the robot can meet in its first moves.

A book of every position up to N plies grows 5x per ply; the robot only meets the positions on its
own lines. So the book follows them: from the empty board (the robot moves first) and from each first
move of the person (the robot moves second), it stores for every robot-to-move position its exact
score (Pons' scale) and one perfect move (the quickest win, else a draw, else the slowest loss, the
centre-most on ties); then it follows that move and every reply the person can make, down to the
depth. A position outside these lines (the robot played otherwise, or the game started elsewhere) is
not in the book and goes to the solver.

Stored compactly inside the package (engine/book.npz): sorted uint64 keys (the smaller of a position's
and its mirror's `Position.key()`, so one entry serves both), an int8 score and an int8 column each
(the column for the orientation whose key is stored), plus the board size and the depth. A lookup is
a binary search; loading takes a few ms. `c4robot book build` solves the positions in worker processes (shallow plies first: their moves
decide which deeper positions exist), each worker with its own solver, and saves its progress to a
work file every few seconds, so an interrupted build resumes where it stopped.

The early book (engine.early_book) is its complement for games that leave the robot's lines at once.
"""

from __future__ import annotations

import functools
import heapq
import logging
import multiprocessing
import os
import tempfile
import time
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from engine.position import Position, centre_first

if TYPE_CHECKING:  # the solver's numba kernels load only in the build's worker processes
    from engine.solver import Solver

log = logging.getLogger(__name__)

BOOK_PATH = Path(__file__).with_name("book.npz")
SAVE_EVERY_S = 10.0
WORKER_TABLE_MB = 512.0  # the first plies' solves gain from a big table; the builder is not the robot's process


def canonical_key(position: Position) -> int:
    """The key shared by a position and its mirror image."""
    return min(position.key(), position.mirror().key())


def oriented(column: int, position: Position, key: int) -> int:
    """`column` of `position` as seen in the orientation whose key is `key` (the position's or its
    mirror's); mirroring is its own inverse, so this also maps a stored column back."""
    return column if position.key() == key else position.width - 1 - column


@dataclass(frozen=True)
class BookMove:
    """What the book knows of a position: its score and a 0-based column that reaches it."""

    column: int
    score: int  # exact (Pons' scale), or the outcome (1 win, 0 draw) in a weak book


@dataclass(frozen=True)
class Book:
    """Positions with a move each, for one board size: perfect moves of the robot-to-move positions on
    the robot's lines, or (`weak`) value-keeping moves of every won or drawn early position."""

    width: int
    height: int
    depth: int  # every position the book covers with at most this many stones is in it
    keys: np.ndarray  # sorted uint64
    scores: np.ndarray  # int8, aligned with keys
    columns: np.ndarray  # int8, aligned with keys, for the orientation whose key is stored
    weak: bool = False  # scores are outcomes and moves keep them (else exact scores and perfect moves)

    def __len__(self) -> int:
        return int(self.keys.shape[0])

    def move(self, position: Position) -> BookMove | None:
        """The perfect move of `position`, or None if it is not in the book."""
        if (position.width, position.height) != (self.width, self.height) or position.is_over():
            return None
        key = canonical_key(position)
        index = int(np.searchsorted(self.keys, np.uint64(key)))
        if index == len(self) or int(self.keys[index]) != key:
            return None
        return BookMove(oriented(int(self.columns[index]), position, key), int(self.scores[index]))

    def score(self, position: Position) -> int | None:
        """The score of `position` if the book knows it, else None. A weak book holds every won or drawn
        position it covers, so a covered position it does not hold is lost (-1)."""
        found = self.move(position)
        if found is not None:
            return found.score
        covered = (
            self.weak
            and (position.width, position.height) == (self.width, self.height)
            and position.moves_played <= self.depth
            and not position.is_over()
        )
        return -1 if covered else None


def load_book(path: Path = BOOK_PATH) -> Book:
    """Read a book file. Raises FileNotFoundError when it is absent, ValueError when it is damaged."""
    if not path.is_file():
        raise FileNotFoundError(f"no opening book at {path}: build one with `c4robot book build`")
    try:
        with np.load(path) as data:
            book = Book(
                int(data["width"]),
                int(data["height"]),
                int(data["depth"]),
                data["keys"].astype(np.uint64),
                data["scores"].astype(np.int8),
                data["columns"].astype(np.int8),
                bool(data["weak"]) if "weak" in data else False,
            )
    except (KeyError, ValueError, OSError, EOFError, zipfile.BadZipFile) as error:
        raise ValueError(f"opening book {path} is damaged ({error}): rebuild it with `c4robot book build`") from error
    if not book.keys.shape == book.scores.shape == book.columns.shape:
        raise ValueError(
            f"opening book {path} has {len(book.keys)} keys but {len(book.scores)} scores and "
            f"{len(book.columns)} columns: rebuild it with `c4robot book build`"
        )
    return book


def perfect_move(position: Position, solve: Callable[[Position], int]) -> BookMove:
    """The exact score of `position` and its centre-most perfect move, given an exact `solve`."""
    order = [col for col in centre_first(position.width) if position.can_play(col)]
    for col in order:
        if position.is_winning_move(col):
            return BookMove(col, (position.width * position.height + 1 - position.moves_played) // 2)
    score = solve(position)
    for col in order:
        child = position.play(col)
        if child.is_draw() or -solve(child) == score:  # a full board after this move scores 0
            return BookMove(col, score)
    raise AssertionError(f"no move of {position.moves_played}-ply position reaches its score {score}")


def robot_successors(moves: str, column: int, depth: int, width: int, height: int) -> Iterator[str]:
    """The robot-to-move positions after the robot plays `column` and the person any reply."""
    position = Position.from_moves(moves, width, height)
    if position.moves_played + 2 > depth or position.is_winning_move(column):
        return
    after = position.play(column)
    for reply in after.legal_moves():
        if not after.is_winning_move(reply) and not after.play(reply).is_over():
            yield moves + str(column + 1) + str(reply + 1)


@functools.cache
def worker_solver() -> Solver:
    """This worker process's solver, made on its first job; its table then serves every later one."""
    from engine.solver import Solver

    return Solver(WORKER_TABLE_MB)


def _solve_one(job: tuple[str, int, int]) -> tuple[str, int, int]:
    """(moves, score, perfect column) of one position; runs in a worker process with its own solver."""
    moves, width, height = job
    found = perfect_move(Position.from_moves(moves, width, height), lambda p: worker_solver().solve(p).score)
    return moves, found.score, found.column


def read_work(work_path: Path, width: int, height: int) -> dict[int, tuple[int, int]]:
    """What an interrupted build already solved: canonical key -> (score, column), if for this board size."""
    if not work_path.is_file():
        return {}
    try:
        with np.load(work_path) as data:
            if (int(data["width"]), int(data["height"])) != (width, height):
                return {}
            done = {
                k: (s, c)
                for k, s, c in zip(
                    data["keys"].tolist(), data["scores"].tolist(), data["columns"].tolist(), strict=True
                )
            }
    except (KeyError, ValueError, OSError, EOFError, zipfile.BadZipFile) as error:
        raise ValueError(f"work file {work_path} is damaged ({error}): move it away to start afresh") from error
    log.info("resuming from %s: %d positions already solved", work_path, len(done))
    return done


def write_work(work_path: Path, done: dict[int, tuple[int, int]], width: int, height: int) -> None:
    keys = np.array(list(done), dtype=np.uint64)
    values = np.array(list(done.values()), dtype=np.int8).reshape(-1, 2)
    _save(
        work_path, keys=keys, scores=values[:, 0], columns=values[:, 1], width=np.int64(width), height=np.int64(height)
    )


def _save(path: Path, **arrays: np.ndarray) -> None:
    """Write an npz atomically (temp file + os.replace)."""
    handle, temporary = tempfile.mkstemp(dir=path.parent, suffix=".npz.tmp")
    with os.fdopen(handle, "wb") as stream:
        np.savez_compressed(stream, **arrays)
    os.chmod(temporary, 0o644)  # mkstemp's 0600 would hide a shipped book from other users
    os.replace(temporary, path)


def save_book(path: Path, book: Book) -> None:
    """Write a book as load_book reads it, atomically."""
    _save(
        path,
        keys=book.keys,
        scores=book.scores,
        columns=book.columns,
        width=np.int64(book.width),
        height=np.int64(book.height),
        depth=np.int64(book.depth),
        weak=np.bool_(book.weak),
    )


def build_book(
    depth: int,
    work_path: Path,
    out_path: Path = BOOK_PATH,
    processes: int = 2,
    width: int = 7,
    height: int = 6,
    on_progress: Callable[[int, int, float], None] | None = None,
) -> Book:
    """Solve the robot's lines up to `depth` stones, resuming from `work_path`; write the book to `out_path`.

    `on_progress(done, known, positions_per_s)` is called after each solved position; `known` grows as
    solved positions reveal the ones after them. Raises ValueError for a depth below 0.
    """
    if depth < 0:
        raise ValueError(f"book depth {depth} is negative: give 0 or more plies")
    done = read_work(work_path, width, height)  # canonical key -> (score, column in the stored key's orientation)

    wanted: set[int] = set()
    ready: list[tuple[int, str]] = []  # (plies, moves) heap: shallow first

    def discover(moves: str) -> None:
        """Queue a robot-to-move position; one already solved is expanded at once."""
        position = Position.from_moves(moves, width, height)
        key = canonical_key(position)
        if key in wanted:
            return
        wanted.add(key)
        if key in done:
            score, column = done[key]
            expand(moves, oriented(column, position, key))
        else:
            heapq.heappush(ready, (len(moves), moves))

    def expand(moves: str, column: int) -> None:
        for successor in robot_successors(moves, column, depth, width, height):
            discover(successor)

    discover("")
    if depth >= 1:
        for first in range(width):
            discover(str(first + 1))
    total_before = len(wanted) - len(ready)
    started = last_save = time.perf_counter()
    solved_now = 0

    with multiprocessing.get_context("spawn").Pool(processes) as pool:
        running: dict[str, multiprocessing.pool.AsyncResult] = {}
        while ready or running:
            while ready and len(running) < processes:  # only as many jobs as workers, so shallow ones go first
                _, moves = heapq.heappop(ready)
                running[moves] = pool.apply_async(_solve_one, ((moves, width, height),))
            finished = [moves for moves, result in running.items() if result.ready()]
            if not finished:
                time.sleep(0.005)
                continue
            for moves in finished:
                moves, score, column = running.pop(moves).get()
                position = Position.from_moves(moves, width, height)
                key = canonical_key(position)
                done[key] = (score, oriented(column, position, key))
                expand(moves, column)
                solved_now += 1
                if on_progress is not None:
                    on_progress(
                        total_before + solved_now, len(wanted), solved_now / max(1e-9, time.perf_counter() - started)
                    )
            if time.perf_counter() - last_save > SAVE_EVERY_S:
                write_work(work_path, done, width, height)
                last_save = time.perf_counter()
    write_work(work_path, done, width, height)
    keys = np.array(sorted(wanted), dtype=np.uint64)
    scores = np.array([done[int(k)][0] for k in keys], dtype=np.int8)
    columns = np.array([done[int(k)][1] for k in keys], dtype=np.int8)
    book = Book(width, height, depth, keys, scores, columns)
    save_book(out_path, book)
    return book
