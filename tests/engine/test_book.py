"""engine.book: a book built by the project's builder covers the robot's lines with perfect moves."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.book import Book, build_book, load_book, perfect_move
from engine.position import Position
from engine.solver import Solver

SMALL = {"width": 5, "height": 4}  # solves in milliseconds, so the whole builder runs in the test
DEPTH = 5


@pytest.fixture(scope="module")
def small_book(tmp_path_factory) -> Book:
    folder = tmp_path_factory.mktemp("book")
    build_book(DEPTH, folder / "work.npz", folder / "book.npz", processes=2, **SMALL)
    return load_book(folder / "book.npz")


def robot_positions(book: Book) -> list[Position]:
    """Walk the robot's lines as a game would: the book's move, then every reply of the person."""
    width, height = book.width, book.height
    found: list[Position] = []
    frontier = [Position.empty(width, height)] + [Position.empty(width, height).play(col) for col in range(width)]
    while frontier:
        position = frontier.pop()
        if position.moves_played > book.depth or position.is_over():
            continue
        move = book.move(position)
        assert move is not None, f"the book misses {position.moves_played}-ply position\n{position}"
        found.append(position)
        if not position.is_winning_move(move.column):
            after = position.play(move.column)
            frontier.extend(after.play(reply) for reply in after.legal_moves())
    return found


def test_every_book_move_is_perfect(small_book: Book) -> None:
    solver = Solver(16)
    positions = robot_positions(small_book)
    assert len(positions) > 50
    for position in positions:
        scores = solver.analyze(position)
        move = small_book.move(position)
        assert move.score == max(s for s in scores if s is not None) == scores[move.column], str(position)


def test_mirror_image_gets_the_mirrored_move(small_book: Book) -> None:
    position = Position.from_moves("2", **SMALL)
    move, mirrored = small_book.move(position), small_book.move(position.mirror())
    assert mirrored.column == SMALL["width"] - 1 - move.column and mirrored.score == move.score


def test_positions_off_the_robots_lines_are_not_in_it(small_book: Book) -> None:
    first = small_book.move(Position.empty(**SMALL)).column
    elsewhere = next(col for col in range(SMALL["width"]) if col not in (first, SMALL["width"] - 1 - first))
    assert small_book.move(Position.empty(**SMALL).play(elsewhere).play(0)) is None
    assert small_book.move(Position.empty()) is None  # another board size


def test_perfect_move_matches_the_solver_on_the_standard_board() -> None:
    solver = Solver(16)
    for moves in ("44444435553", "2252576253462244111563365343671351441", "5554224333234511764415115"):
        position = Position.from_moves(moves)
        scores = solver.analyze(position)
        found = perfect_move(position, lambda p: solver.solve(p).score)
        assert found.score == max(s for s in scores if s is not None) == scores[found.column], moves


def test_resumes_from_its_work_file(tmp_path: Path) -> None:
    first = build_book(3, tmp_path / "work.npz", tmp_path / "a.npz", processes=1, **SMALL)
    progress: list[int] = []
    build_book(
        DEPTH,
        tmp_path / "work.npz",
        tmp_path / "b.npz",
        processes=1,
        on_progress=lambda done, known, rate: progress.append(done),
        **SMALL,
    )
    assert progress[0] == len(first) + 1  # the first three plies were not solved again


def test_missing_or_damaged_book_is_reported(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="book build"):
        load_book(tmp_path / "absent.npz")
    (tmp_path / "bad.npz").write_bytes(b"not a book")
    with pytest.raises(ValueError, match="damaged"):
        load_book(tmp_path / "bad.npz")


def test_the_shipped_book_answers_every_reply_with_a_perfect_move() -> None:
    """The book inside the package covers the robot's lines to its depth; its deepest moves agree with the solver."""
    book = load_book()
    assert (book.width, book.height) == (7, 6) and book.depth >= 8
    assert book.move(Position.empty()).column == 3  # the centre: the first player's only winning move
    deepest = [
        p
        for p in robot_positions(book)
        if p.moves_played + 2 > book.depth and not p.is_winning_move(book.move(p).column)
    ]
    solver = Solver(64)
    for position in deepest[:: max(1, len(deepest) // 3)][:3]:
        move = book.move(position)
        assert solver.solve(position).score == move.score
        assert solver.solve(position.play(move.column)).score == -move.score
