"""The opening book: exact scores of every position of the first plies, built by `c4robot book build`.

Stored compactly inside the package (engine/book.npz): sorted uint64 keys (the smaller of a position's
and its mirror's `Position.key()`, so one entry serves both) and one int8 Pons score each, plus the
board size and the depth. A position is answered from the book when all its children are in it (or
win at once): the perfect move then costs a binary search, no solving. Loading takes a few ms.

The builder enumerates the distinct positions up to the depth, solves the missing ones deepest first
(they are the quick ones) in worker processes, each with its own solver, and saves its progress to a
work file every few seconds, so an interrupted build resumes where it stopped.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from engine.position import Position
from engine.scores import column_scores

log = logging.getLogger(__name__)

BOOK_PATH = Path(__file__).with_name("book.npz")
SAVE_EVERY_S = 10.0


def canonical_key(position: Position) -> int:
    """The key shared by a position and its mirror image."""
    return min(position.key(), position.mirror().key())


@dataclass(frozen=True)
class Book:
    """Exact scores of positions (side to move's view, Pons' scale) for one board size."""

    width: int
    height: int
    depth: int  # every position with at most this many stones is in the book
    keys: np.ndarray  # sorted uint64
    scores: np.ndarray  # int8, aligned with keys

    def __len__(self) -> int:
        return int(self.keys.shape[0])

    def score(self, position: Position) -> int | None:
        """The exact score of `position`, or None if it is not in the book."""
        if (position.width, position.height) != (self.width, self.height) or position.is_over():
            return None
        key = np.uint64(canonical_key(position))
        index = int(np.searchsorted(self.keys, key))
        if index < len(self) and self.keys[index] == key:
            return int(self.scores[index])
        return None

    def column_scores(self, position: Position) -> list[int | None] | None:
        """The exact score of every column (None for a full one), or None if a child is missing."""
        if (position.width, position.height) != (self.width, self.height) or position.moves_played >= self.depth:
            return None
        return column_scores(position, self.score)


def load_book(path: Path = BOOK_PATH) -> Book:
    """Read a book file. Raises FileNotFoundError when it is absent, ValueError when it is damaged."""
    if not path.is_file():
        raise FileNotFoundError(f"no opening book at {path}: build one with `c4robot book build`")
    try:
        with np.load(path) as data:
            book = Book(int(data["width"]), int(data["height"]), int(data["depth"]),
                        data["keys"].astype(np.uint64), data["scores"].astype(np.int8))
    except (KeyError, ValueError, OSError) as error:
        raise ValueError(f"opening book {path} is damaged ({error}): rebuild it with `c4robot book build`") from error
    if book.keys.shape != book.scores.shape:
        raise ValueError(f"opening book {path} has {book.keys.shape[0]} keys but {book.scores.shape[0]} scores: rebuild it")
    return book


def positions_up_to(depth: int, width: int = 7, height: int = 6) -> list[str]:
    """Move strings of the distinct unfinished positions (mirrors merged) with at most `depth` stones."""
    layer = {canonical_key(Position.empty(width, height)): ""}
    found = dict(layer)
    for _ in range(depth):
        following: dict[int, str] = {}
        for moves in layer.values():
            position = Position.from_moves(moves, width, height)
            for col in position.legal_moves():
                child = position.play(col)
                if not child.is_over():
                    following.setdefault(canonical_key(child), moves + str(col + 1))
        found.update(following)
        layer = following
    return list(found.values())


def _solve_one(job: tuple[str, int, int]) -> tuple[int, int]:
    """(canonical key, exact score) of one position; runs in a worker process with its own solver."""
    from engine.solver import Solver

    moves, width, height = job
    global _worker_solver
    if "_worker_solver" not in globals():
        _worker_solver = Solver()
    position = Position.from_moves(moves, width, height)
    return canonical_key(position), _worker_solver.solve(position).score


def _save(path: Path, **arrays: np.ndarray) -> None:
    """Write an npz atomically (temp file + os.replace)."""
    handle, temporary = tempfile.mkstemp(dir=path.parent, suffix=".npz.tmp")
    with os.fdopen(handle, "wb") as stream:
        np.savez_compressed(stream, **arrays)
    os.replace(temporary, path)


def build_book(depth: int, work_path: Path, out_path: Path = BOOK_PATH, processes: int = 2, width: int = 7,
               height: int = 6, on_progress: Callable[[int, int, float], None] | None = None) -> Book:
    """Solve every position up to `depth` stones, resuming from `work_path`; write the book to `out_path`.

    `on_progress(done, total, positions_per_s)` is called after each solved position.
    Raises ValueError for a depth below 0.
    """
    if depth < 0:
        raise ValueError(f"book depth {depth} is negative: give 0 or more plies")
    done: dict[int, int] = {}
    if work_path.is_file():
        with np.load(work_path) as data:
            if int(data["width"]) == width and int(data["height"]) == height:
                done = dict(zip(data["keys"].tolist(), data["scores"].tolist()))
        log.info("resuming from %s: %d positions already solved", work_path, len(done))
    wanted = positions_up_to(depth, width, height)
    todo = [moves for moves in wanted if canonical_key(Position.from_moves(moves, width, height)) not in done]
    todo.sort(key=len, reverse=True)  # deep (quick) positions first
    total = len(wanted)
    started = last_save = time.perf_counter()
    solved_now = 0

    def save_work() -> None:
        keys = np.array(list(done), dtype=np.uint64)
        scores = np.array(list(done.values()), dtype=np.int8)
        _save(work_path, keys=keys, scores=scores, width=np.int64(width), height=np.int64(height))

    with multiprocessing.get_context("spawn").Pool(processes) as pool:
        for key, score in pool.imap_unordered(_solve_one, [(m, width, height) for m in todo]):
            done[key] = score
            solved_now += 1
            rate = solved_now / max(1e-9, time.perf_counter() - started)
            if on_progress is not None:
                on_progress(total - len(todo) + solved_now, total, rate)
            if time.perf_counter() - last_save > SAVE_EVERY_S:
                save_work()
                last_save = time.perf_counter()
    save_work()
    wanted_keys = sorted({canonical_key(Position.from_moves(m, width, height)) for m in wanted})
    keys = np.array(wanted_keys, dtype=np.uint64)
    scores = np.array([done[k] for k in wanted_keys], dtype=np.int8)
    _save(out_path, keys=keys, scores=scores, width=np.int64(width), height=np.int64(height), depth=np.int64(depth))
    return Book(width, height, depth, keys, scores)
