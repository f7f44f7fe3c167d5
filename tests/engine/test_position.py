"""engine.Position: move strings and numpy boards in and out, the rules, and every invalid input."""

from __future__ import annotations

import random

import numpy as np
import pytest

from engine import IllegalMoveError, InvalidBoardError, InvalidMoveError, Position


def random_game(rng: random.Random, width: int = 7, height: int = 6, connect: int = 4) -> list[Position]:
    """Every position of one random game, from the empty board to its end."""
    positions = [Position.empty(width, height, connect)]
    while not positions[-1].is_over():
        positions.append(positions[-1].play(rng.choice(positions[-1].legal_moves())))
    return positions


def test_move_string_builds_the_board_bottom_up() -> None:
    position = Position.from_moves("4453")
    expected = np.zeros((6, 7), dtype=np.int8)
    expected[0, 3], expected[1, 3], expected[0, 4], expected[0, 2] = 1, 2, 1, 2
    assert np.array_equal(position.to_array(), expected)
    assert position.to_array().dtype == np.int8
    assert position.moves_played == 4 and position.side_to_move == 1
    assert Position.from_moves("445").side_to_move == 2


@pytest.mark.parametrize("size", [(7, 6, 4), (4, 4, 3), (5, 4, 3), (9, 7, 4), (8, 8, 4), (9, 9, 5)])
def test_array_round_trip_over_random_games(size: tuple[int, int, int]) -> None:
    rng = random.Random(sum(size))
    for _ in range(20):
        for position in random_game(rng, *size):
            again = Position.from_array(position.to_array(), connect=size[2])
            assert again == position
            assert again.key() == position.key()
            assert again.winner() == position.winner()
            assert again.side_to_move == position.side_to_move


def test_big_boards_play_to_the_end() -> None:
    for width, height in [(9, 7), (8, 8)]:
        position = Position.empty(width, height)
        assert not position.fits_64_bits
        column_order = [c for c in range(width) for _ in range(height)]
        # Fill columns left to right in pairs of alternating colours until someone wins or it is full.
        for col in column_order:
            if position.is_over():
                break
            if position.can_play(col):
                position = position.play(col)
        assert position.is_over()


def test_wins_in_every_direction_and_winning_cells() -> None:
    vertical = Position.from_moves("1212121")
    assert vertical.winner() == 1 and vertical.is_over() and not vertical.is_draw()
    assert vertical.winning_cells() == [(0, 0), (0, 1), (0, 2), (0, 3)]
    horizontal = Position.from_moves("1122334")
    assert horizontal.winner() == 1
    assert horizontal.winning_cells() == [(0, 0), (1, 0), (2, 0), (3, 0)]
    diagonal = Position.from_moves("4332243722144")
    assert diagonal.winner() == 1
    assert diagonal.winning_cells() == [(0, 0), (1, 1), (2, 2), (3, 3)]
    anti = Position.from_moves("5474754346556")
    assert anti.winner() == 1
    assert anti.winning_cells() == [(3, 3), (4, 2), (5, 1), (6, 0)]
    second = Position.from_moves("71212121")
    assert second.winner() == 2
    assert Position.from_moves("121212").winning_cells() == []


def test_is_winning_move_matches_play() -> None:
    rng = random.Random(3)
    for _ in range(30):
        for position in random_game(rng)[:-1]:
            for col in position.legal_moves():
                assert position.is_winning_move(col) == (position.play(col).winner() == position.side_to_move)


def test_draw_on_a_full_board() -> None:
    position = Position.from_moves("472424756645422154157737216635626711335331")
    assert position.is_draw() and position.is_over() and position.winner() == 0
    assert position.legal_moves() == []
    with pytest.raises(IllegalMoveError, match="full"):
        position.play(0)


def test_mirror_and_key() -> None:
    position = Position.from_moves("1123")
    mirrored = position.mirror()
    assert mirrored == Position.from_moves("7765")
    assert mirrored.mirror() == position
    assert position.key() != mirrored.key()
    assert Position.from_moves("4").mirror().key() == Position.from_moves("4").key()


def test_str_prints_top_row_first_with_labels() -> None:
    text = str(Position.from_moves("44"))
    lines = text.splitlines()
    assert lines[-1] == "1 2 3 4 5 6 7"
    assert lines[-2] == ". . . X . . ."
    assert lines[-3] == ". . . O . . ."
    assert len(lines) == 7


@pytest.mark.parametrize("moves", ["4a", "40", "48", " 4", "4-5", "x"])
def test_bad_characters_in_move_strings(moves: str) -> None:
    with pytest.raises(InvalidMoveError, match="move"):
        Position.from_moves(moves)


def test_full_column_and_play_after_the_end() -> None:
    with pytest.raises(IllegalMoveError, match="move 7 of '4444444': column 4 is full"):
        Position.from_moves("4444444")
    with pytest.raises(IllegalMoveError, match="already won"):
        Position.from_moves("12121213")
    with pytest.raises(IllegalMoveError, match="already won"):
        Position.from_moves("1212121").play(3)


@pytest.mark.parametrize("col", [-1, 7, 100])
def test_column_out_of_range(col: int) -> None:
    with pytest.raises(InvalidMoveError, match="not on the board"):
        Position.empty().play(col)
    assert not Position.empty().can_play(col)
    assert not Position.empty().is_winning_move(col)


def test_errors_are_value_errors() -> None:
    for error in (InvalidMoveError, IllegalMoveError, InvalidBoardError):
        assert issubclass(error, ValueError)


@pytest.mark.parametrize("board", [np.zeros(7), np.zeros((2, 3, 4)), np.zeros((0, 7)), np.zeros((6, 10))])
def test_wrong_shape(board: np.ndarray) -> None:
    with pytest.raises(InvalidBoardError):
        Position.from_array(board)


def test_values_other_than_0_1_2() -> None:
    board = np.zeros((6, 7), dtype=np.int8)
    board[0, 0] = 3
    with pytest.raises(InvalidBoardError, match="3"):
        Position.from_array(board)
    with pytest.raises(InvalidBoardError, match="cells must be"):
        Position.from_array(np.full((6, 7), 0.5))
    with pytest.raises(InvalidBoardError, match="cells must be"):
        Position.from_array([["a"] * 7] * 6)


def test_floating_disc() -> None:
    board = np.zeros((6, 7), dtype=np.int8)
    board[0, 3], board[2, 3] = 1, 2
    with pytest.raises(InvalidBoardError, match="column 4 .* empty row 2"):
        Position.from_array(board)


def test_impossible_stone_counts() -> None:
    board = np.zeros((6, 7), dtype=np.int8)
    board[0, 0], board[0, 1] = 1, 1
    with pytest.raises(InvalidBoardError, match="2 discs of player 1 and 0 of player 2"):
        Position.from_array(board)
    board = np.zeros((6, 7), dtype=np.int8)
    board[0, 0] = 2
    with pytest.raises(InvalidBoardError, match="player 1 starts"):
        Position.from_array(board)


def test_both_players_with_a_line() -> None:
    board = np.zeros((6, 7), dtype=np.int8)
    board[0:4, 0] = 1
    board[0:4, 1] = 2
    with pytest.raises(InvalidBoardError, match="both players"):
        Position.from_array(board)


def test_play_after_a_line_on_a_board() -> None:
    won = Position.from_moves("1212121").to_array()
    assert Position.from_array(won).winner() == 1
    after = won.copy()
    after[1, 2] = 2  # player 2 moved after player 1's line
    after[0, 2] = 2
    after[0, 3] = 1
    with pytest.raises(InvalidBoardError, match="played after"):
        Position.from_array(after)
    # Two separate lines that no single last disc could have completed together.
    two_lines = np.zeros((6, 7), dtype=np.int8)
    two_lines[0:4, 0] = 1
    two_lines[0:4, 6] = 1
    two_lines[0:3, 2] = 2
    two_lines[0:3, 4] = 2
    two_lines[0, 5] = 2
    with pytest.raises(InvalidBoardError, match="one last disc"):
        Position.from_array(two_lines)


@pytest.mark.parametrize("size", [(0, 6, 4), (10, 6, 4), (7, 0, 4), (7, 6, 2)])
def test_unsupported_sizes(size: tuple[int, int, int]) -> None:
    with pytest.raises(InvalidBoardError):
        Position.empty(*size)
