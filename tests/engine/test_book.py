"""engine.book: a book built by the project's builder loads, answers, and agrees with the solver."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from engine.book import build_book, canonical_key, load_book, positions_up_to
from engine.position import Position
from engine.solver import Solver

SMALL = {"width": 5, "height": 4}  # solves in milliseconds, so the whole builder runs in the test


@pytest.fixture(scope="module")
def small_book_path(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("book")
    build_book(4, folder / "work.npz", folder / "book.npz", processes=1, **SMALL)
    return folder / "book.npz"


def test_positions_are_distinct_up_to_mirrors() -> None:
    moves = positions_up_to(2, **SMALL)
    keys = {canonical_key(Position.from_moves(m, **SMALL)) for m in moves}
    assert len(keys) == len(moves)
    assert "" in moves and len([m for m in moves if len(m) == 1]) == 3  # columns 1..3 of 5 (mirrors merged)


def test_book_agrees_with_the_solver(small_book_path: Path) -> None:
    book = load_book(small_book_path)
    solver = Solver(16)
    rng = random.Random(4)
    for moves in rng.sample(positions_up_to(4, **SMALL), 25):
        position = Position.from_moves(moves, **SMALL)
        assert book.score(position) == solver.solve(position).score, moves
        assert book.score(position.mirror()) == book.score(position)


def test_book_gives_every_column_below_its_depth(small_book_path: Path) -> None:
    book = load_book(small_book_path)
    position = Position.from_moves("3", **SMALL)
    assert book.column_scores(position) == Solver(16).analyze(position)
    assert book.column_scores(Position.from_moves("3322", **SMALL)) is None  # its children are deeper than the book


def test_resumes_from_its_work_file(tmp_path: Path) -> None:
    build_book(2, tmp_path / "work.npz", tmp_path / "a.npz", processes=1, **SMALL)
    progress: list[int] = []
    build_book(3, tmp_path / "work.npz", tmp_path / "b.npz", processes=1,
               on_progress=lambda done, total, rate: progress.append(done), **SMALL)
    assert progress[0] == len(positions_up_to(2, **SMALL)) + 1  # the first two plies were not solved again


def test_missing_or_damaged_book_is_reported(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="book build"):
        load_book(tmp_path / "absent.npz")
    (tmp_path / "bad.npz").write_bytes(b"not a book")
    with pytest.raises(ValueError, match="damaged"):
        load_book(tmp_path / "bad.npz")
