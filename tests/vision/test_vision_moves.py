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
