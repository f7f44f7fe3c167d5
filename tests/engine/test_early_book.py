"""engine.early_book: every won or drawn early position with a move that keeps its outcome."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from engine.book import Book, BookMove, load_book
from engine.early_book import EARLY_BOOK_PATH, add_solved, build_early_book, positions_by_ply
from engine.package_books import book_answer
from engine.position import Position
from engine.solver import Solver

SMALL = {"width": 5, "height": 4}  # solves in milliseconds, so the whole builder runs in the test
DEPTH = 4


@pytest.fixture(scope="module")
def early(tmp_path_factory) -> Book:
    folder = tmp_path_factory.mktemp("early")
    build_early_book(DEPTH, folder / "work.npz", folder / "early.npz", processes=2, **SMALL)
    return load_book(folder / "early.npz")


def outcome(solver: Solver, position: Position) -> int:
    return solver.solve(position, weak=True).score


def test_every_won_or_drawn_early_position_has_a_move_that_keeps_its_outcome(early: Book) -> None:
    assert early.weak and early.depth == DEPTH
    solver = Solver(16)
    layers = positions_by_ply(DEPTH, **SMALL)
    moves = [moves for layer in layers for moves in layer.values()]
    assert len(moves) > 100
    for position in (Position.from_moves(line, **SMALL) for line in moves):
        for oriented in (position, position.mirror()):
            expected, move = outcome(solver, oriented), early.move(oriented)
            assert early.score(oriented) == expected  # a position it covers but does not hold is lost
            if expected < 0:
                assert move is None  # any move keeps a loss: the player's heuristics pick one
                continue
            assert move is not None and move.score == expected
            after = oriented.play(move.column)
            kept = 1 if oriented.is_winning_move(move.column) else (0 if after.is_draw() else -outcome(solver, after))
            assert kept == expected, f"column {move.column + 1} of\n{oriented}\ndoes not keep {expected}"


def test_positions_past_its_depth_or_of_another_size_are_not_in_it(early: Book) -> None:
    deeper = Position.from_moves("12345", **SMALL)
    assert deeper.moves_played > DEPTH and early.move(deeper) is None and early.score(deeper) is None
    assert early.move(Position.empty()) is None and early.score(Position.empty()) is None


def test_a_book_answer_from_the_early_book_keeps_the_outcome_but_is_not_proven_optimal(early: Book) -> None:
    position = Position.empty(**SMALL)
    answer = book_answer(position, early, 0.0)
    assert answer is not None and not answer.proven and answer.score == outcome(Solver(16), position)


def test_resumes_from_its_work_file(tmp_path: Path) -> None:
    build_early_book(2, tmp_path / "work.npz", tmp_path / "a.npz", processes=1, **SMALL)
    progress: list[int] = []
    build_early_book(
        2,
        tmp_path / "work.npz",
        tmp_path / "b.npz",
        processes=1,
        on_progress=lambda done, total, rate: progress.append(done),
        **SMALL,
    )
    assert progress == []  # every position of the deepest ply was solved before
    assert load_book(tmp_path / "a.npz").keys.tolist() == load_book(tmp_path / "b.npz").keys.tolist()
    with pytest.raises(ValueError, match="negative"):
        build_early_book(-1, tmp_path / "work.npz", tmp_path / "c.npz", **SMALL)


def test_the_shipped_early_book_knows_the_first_plies_of_the_standard_game() -> None:
    """Allis' results: only the centre wins the empty board; after a first disc in column 3 or 5 the
    game is drawn, after one in column 1, 2, 6 or 7 the second player wins, after the centre it loses."""
    early = load_book(EARLY_BOOK_PATH)
    assert early.weak and (early.width, early.height) == (7, 6) and early.depth >= 4
    assert early.move(Position.empty()) == BookMove(3, 1)
    for first, expected in zip("1234567", (1, 1, 0, None, 0, 1, 1), strict=False):
        move = early.move(Position.from_moves(first))
        assert (move.score if move is not None else None) == expected, f"after a first disc in column {first}"


def test_the_shipped_early_book_agrees_with_every_early_line_of_the_public_test_sets(shared_dir: Path) -> None:
    """Independent scores: each test line within the book's depth must have the book's outcome."""
    early = load_book(EARLY_BOOK_PATH)
    checked = 0
    for name in ("L1_R1", "L1_R2", "L1_R3"):
        for row in (shared_dir / "engine" / "testsets" / f"Test_{name}").read_text().splitlines():
            moves, score = row.split()
            if len(moves) <= early.depth:
                expected = (int(score) > 0) - (int(score) < 0)
                assert early.score(Position.from_moves(moves)) == expected, f"{name} line {moves} {score}"
                checked += 1
    assert checked >= 100


def test_the_shipped_early_books_deepest_moves_keep_the_public_test_sets_outcomes(shared_dir: Path) -> None:
    """The deepest ply's moves come straight from the builder's solves: each one the book gives for a test
    line of that many plies must keep the line's outcome (its child judged by a full weak solve)."""
    early, solver = load_book(EARLY_BOOK_PATH), Solver(64)
    checked = 0
    for name in ("L1_R2", "L1_R3"):
        for row in (shared_dir / "engine" / "testsets" / f"Test_{name}").read_text().splitlines():
            moves, score = row.split()
            expected = (int(score) > 0) - (int(score) < 0)
            if len(moves) != early.depth or expected < 0:
                continue
            position = Position.from_moves(moves)
            move = early.move(position)
            assert move is not None and move.score == expected, f"{name} line {moves}"
            after = position.play(move.column)
            kept = 1 if position.is_winning_move(move.column) else (0 if after.is_draw() else -outcome(solver, after))
            assert kept == expected, f"{name} line {moves}: column {move.column + 1} does not keep {expected}"
            checked += 1
    assert checked >= 50


def test_a_deeper_plys_unfinished_build_adds_its_solved_positions_past_the_books_depth(tmp_path: Path) -> None:
    build_early_book(DEPTH, tmp_path / "deep-work.npz", tmp_path / "deep.npz", processes=1, **SMALL)
    build_early_book(DEPTH - 1, tmp_path / "work.npz", tmp_path / "early.npz", processes=1, **SMALL)
    with np.load(tmp_path / "deep-work.npz") as data:  # a build stopped half-way: half its solves
        arrays = {name: data[name] for name in data.files}
    half = len(arrays["keys"]) // 2
    np.savez(tmp_path / "half-work.npz", **{k: v[:half] if v.ndim else v for k, v in arrays.items()})
    before = load_book(tmp_path / "early.npz")
    merged, added = add_solved(tmp_path / "half-work.npz", tmp_path / "early.npz")
    assert merged.depth == DEPTH - 1 and added > 20 and len(merged) == len(before) + added
    assert load_book(tmp_path / "early.npz").keys.tolist() == merged.keys.tolist()
    assert np.all(np.diff(merged.keys.astype(np.float64)) > 0)
    solver, held, unheld = Solver(16), 0, 0
    for moves in positions_by_ply(DEPTH, **SMALL)[DEPTH].values():
        position = Position.from_moves(moves, **SMALL)
        move = merged.move(position)
        if move is None:
            unheld += 1
            assert merged.score(position) is None  # past the depth: not held is not known lost
            continue
        held += 1
        expected = outcome(solver, position)
        after = position.play(move.column)
        kept = 1 if position.is_winning_move(move.column) else (0 if after.is_draw() else -outcome(solver, after))
        assert move.score == expected == kept
    assert held == added and unheld > 0
    for moves in positions_by_ply(DEPTH - 1, **SMALL)[DEPTH - 1].values():  # the covered plies as they were
        position = Position.from_moves(moves, **SMALL)
        assert merged.score(position) == before.score(position) and merged.move(position) == before.move(position)
    assert add_solved(tmp_path / "half-work.npz", tmp_path / "early.npz")[1] == 0  # twice adds nothing


def test_adding_from_a_damaged_or_missing_work_file_says_so_and_leaves_the_book(tmp_path: Path) -> None:
    build_early_book(2, tmp_path / "work.npz", tmp_path / "early.npz", processes=1, **SMALL)
    saved = (tmp_path / "early.npz").read_bytes()
    (tmp_path / "cut.npz").write_bytes((tmp_path / "work.npz").read_bytes()[:100])
    with pytest.raises(ValueError, match="damaged"):
        add_solved(tmp_path / "cut.npz", tmp_path / "early.npz")
    with pytest.raises(FileNotFoundError, match="no work file"):
        add_solved(tmp_path / "absent.npz", tmp_path / "early.npz")
    build_early_book(2, tmp_path / "other-work.npz", tmp_path / "other.npz", processes=1, width=4, height=4)
    with pytest.raises(ValueError, match="no solved 5x4 positions"):
        add_solved(tmp_path / "other-work.npz", tmp_path / "early.npz")
    assert (tmp_path / "early.npz").read_bytes() == saved


def _from_key(key: int, width: int, height: int) -> Position:
    """The position whose `Position.key()` (current + mask) is `key`: in each column, key + 1 has its top
    bit just above the stones, and the bits below it are the side to move's."""
    bits = height + 1
    board = np.zeros((height, width), dtype=np.int8)
    columns = []
    for col in range(width):
        shifted = ((key >> (col * bits)) & ((1 << bits) - 1)) + 1
        stones = shifted.bit_length() - 1
        columns.append((stones, shifted - (1 << stones)))
    to_move = 1 if sum(stones for stones, _ in columns) % 2 == 0 else 2
    for col, (stones, mine) in enumerate(columns):
        for row in range(stones):
            board[row, col] = to_move if mine >> row & 1 else 3 - to_move
    return Position.from_array(board)


def test_the_shipped_early_books_entries_past_its_depth_keep_their_outcome() -> None:
    """Entries an unfinished deeper ply added (`book early --add-solved`): a seeded sample, each judged by
    weak solves of the position and of the child its move leads to."""
    early = load_book(EARLY_BOOK_PATH)
    past = [
        position
        for position in (_from_key(int(key), early.width, early.height) for key in early.keys[::97])
        if position.moves_played > early.depth
    ]
    if not past:
        pytest.skip(f"the shipped early book holds nothing past its {early.depth} plies")
    solver = Solver(64)
    for position in past[:: max(1, len(past) // 40)]:
        move = early.move(position)
        assert move is not None and move.score == outcome(solver, position), f"{position!r}"
        after = position.play(move.column)
        kept = 1 if position.is_winning_move(move.column) else (0 if after.is_draw() else -outcome(solver, after))
        assert kept == move.score, f"column {move.column + 1} of\n{position}\ndoes not keep {move.score}"


def test_a_position_rebuilt_from_its_key_is_the_position() -> None:
    for moves in ("", "4", "44", "4455321", "1234567123", "4444333"):
        position = Position.from_moves(moves)
        assert _from_key(position.key(), 7, 6) == position
