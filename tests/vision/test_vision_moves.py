"""Stabiliser and move detector: a hand or a falling disc is not a move; each event is named."""

from __future__ import annotations

import numpy as np
import pytest

import vision
from vision import MoveKind, Stabiliser, detect_move


def reading_of(grid: np.ndarray, confidence: float = 0.99, found: bool = True) -> vision.BoardReading:
    return vision.BoardReading(
        grid=np.asarray(grid, dtype=np.int8),
        colour_names=("R", "Y"),
        confidence=np.full(np.shape(grid), confidence),
        corners=np.zeros((4, 2)) if found else None,
        elapsed_s=0.0,
    )


def board(*cells: tuple[int, int, int]) -> np.ndarray:
    grid = np.zeros((6, 7), np.int8)
    for row, column, value in cells:
        grid[row, column] = value
    return grid


def test_stabiliser_needs_agreeing_confident_frames() -> None:
    stabiliser = Stabiliser(frames_needed=3)
    before, after = board(), board((0, 3, 1))
    assert stabiliser.update(reading_of(before)) is None
    assert stabiliser.update(reading_of(before)) is None
    assert stabiliser.update(reading_of(before)) is not None
    assert stabiliser.update(reading_of(board((3, 3, 1)))) is None
    assert stabiliser.update(reading_of(after, confidence=0.3)) is None
    assert stabiliser.update(reading_of(after)) is None
    assert stabiliser.update(reading_of(after, found=False)) is None
    for _ in range(2):
        assert stabiliser.update(reading_of(after)) is None
    accepted = stabiliser.update(reading_of(after))
    assert accepted is not None and (accepted.grid == after).all()


def test_stabiliser_rejects_bad_settings() -> None:
    with pytest.raises(ValueError):
        Stabiliser(frames_needed=0)


@pytest.mark.parametrize(
    ("previous", "seen", "kind", "column"),
    [
        (board((0, 3, 1)), board((0, 3, 1), (1, 3, 2)), MoveKind.MOVE, 3),
        (board((0, 3, 1)), board((0, 3, 1)), MoveKind.NONE, None),
        (board((0, 3, 1)), board((0, 3, 1), (0, 2, 2), (0, 4, 2)), MoveKind.TWO_DISCS, None),
        (board((0, 3, 1), (0, 2, 2)), board((0, 3, 1)), MoveKind.DISC_REMOVED, 2),
        (board((0, 3, 1)), board((0, 3, 1), (0, 4, 1)), MoveKind.WRONG_COLOUR, 4),
        (board((0, 3, 1)), board((0, 3, 1), (2, 5, 2)), MoveKind.FLOATING_DISC, 5),
    ],
)
def test_move_events(previous: np.ndarray, seen: np.ndarray, kind: MoveKind, column: int | None) -> None:
    event = detect_move(previous, reading_of(seen), expected_player=2)
    assert event.kind == kind and event.column == column
    assert event.message.endswith((".", "?"))


def test_board_not_found_and_swapped_colour_numbers() -> None:
    previous = board((0, 3, 1), (0, 4, 2), (1, 3, 1))
    assert detect_move(previous, reading_of(board(), found=False), 2).kind == MoveKind.BOARD_NOT_FOUND
    swapped = board((0, 3, 2), (0, 4, 1), (1, 3, 2), (1, 4, 1))
    event = detect_move(previous, reading_of(swapped), expected_player=2)
    assert event.kind == MoveKind.MOVE and event.column == 4 and event.row == 1
    assert "column 5" in event.message


@pytest.mark.parametrize(
    ("previous", "seen", "column"),
    [
        (board(), board((0, 3, 1), (0, 4, 2)), 3),  # the robot's disc and the person's beside it
        (board((0, 3, 1), (0, 4, 2)), board((0, 3, 1), (0, 4, 2), (1, 3, 1), (2, 3, 2)), 3),  # the reply on it
        (board((0, 3, 1), (0, 4, 2)), board((0, 3, 1), (0, 4, 2), (0, 0, 2), (1, 4, 1)), 4),  # the reply elsewhere
        (board((0, 3, 1), (0, 4, 2)), board((0, 3, 1), (0, 4, 2), (1, 3, 2), (2, 3, 1)), None),  # reply under it
        (board((0, 3, 1), (0, 4, 2)), board((0, 3, 1), (0, 4, 2), (1, 3, 1), (1, 4, 1)), None),  # two of mine
        (board((0, 3, 1), (0, 4, 2)), board((0, 3, 1), (0, 4, 2), (0, 0, 1), (2, 5, 2)), None),  # reply floats
        (board((0, 3, 1), (0, 4, 2)), board((0, 3, 1), (0, 4, 2), (2, 3, 1), (0, 5, 2)), None),  # mine floats
        (board(), board((0, 3, 1), (0, 4, 2), (0, 5, 2)), None),  # three new discs
        (board((0, 3, 1), (0, 4, 2)), board((0, 3, 1), (0, 4, 2), (1, 3, 1)), None),  # one disc: detect_move's
        (board((0, 3, 1), (0, 4, 2)), board((0, 4, 2), (0, 0, 1), (0, 1, 2)), None),  # a disc gone
    ],
)
def test_a_quick_reply_after_the_robot_s_disc_is_the_robot_s_move(
    previous: np.ndarray, seen: np.ndarray, column: int | None
) -> None:
    """The person answered before the camera confirmed the robot's disc: the robot's move is taken (its own disc
    resting on the board as it was), the reply left to the person's turn; any other pair stays TWO_DISCS."""
    early = vision.moves.move_before_reply(previous, reading_of(seen), player=1)
    assert (early[0].column if early is not None else None) == column
    if early is not None:
        move, reply = early
        assert move.kind is MoveKind.MOVE and detect_move(previous, reading_of(seen), 1).kind is MoveKind.TWO_DISCS
        after = np.array(previous)
        after[move.row, move.column] = 1
        assert detect_move(after, reading_of(seen), 2).column == reply  # the person's turn finds the reply
