"""The move detector: the board a move ago plus a stable reading gives one new disc, or a named event.

Grids here use the engine's values (1 first player, 2 second, row 0 at the bottom). A reading's values
are matched to the players by agreeing with the discs already on the board, so a reading whose colour
numbering differs (colours learnt from the frame) still compares correctly.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

import numpy as np

from vision.occlusion import column_span
from vision.reading import BoardReading


class MoveKind(StrEnum):
    """What changed between the previous board and the reading."""

    MOVE = "move"
    NONE = "none"
    TWO_DISCS = "two_discs"
    DISC_REMOVED = "disc_removed"
    WRONG_COLOUR = "wrong_colour"
    FLOATING_DISC = "floating_disc"
    BOARD_NOT_FOUND = "board_not_found"
    COVERED = "covered"


@dataclass(frozen=True)
class MoveEvent:
    """kind; column and row (0-based, row 0 at the bottom) of the new disc when there is one; a sentence for the person."""

    kind: MoveKind
    column: int | None
    row: int | None
    message: str


def players_grid(previous_grid: np.ndarray, reading_grid: np.ndarray) -> np.ndarray:
    """The reading's grid with its colour values renamed to players, choosing the naming that agrees with the old discs."""
    swapped = np.where(reading_grid == 0, 0, 3 - reading_grid).astype(np.int8)
    old = previous_grid != 0
    if (swapped[old] == previous_grid[old]).sum() > (reading_grid[old] == previous_grid[old]).sum():
        return swapped
    return reading_grid.astype(np.int8)


def detect_move(previous_grid: np.ndarray, reading: BoardReading, expected_player: int) -> MoveEvent:
    """Compare the board before the move with an accepted reading; exactly one new disc of `expected_player`
    resting on a filled cell (or the bottom) is a move, anything else is an event the game loop handles
    (COVERED while something in front of the board hides any hole).
    """
    previous = np.asarray(previous_grid, dtype=np.int8)
    if expected_player not in (1, 2):
        raise ValueError(f"expected_player {expected_player} must be 1 or 2")
    if not reading.is_board_found:
        return MoveEvent(
            MoveKind.BOARD_NOT_FOUND, None, None, "I cannot see the board: please keep it in view of the camera."
        )
    if previous.shape != reading.grid.shape:
        raise ValueError(f"previous grid shape {previous.shape} differs from the reading's {reading.grid.shape}")
    if reading.covered is not None and reading.covered.any():
        # What is behind a hand is unknown: never a move nor a disc taken away, whatever the rest shows.
        return MoveEvent(
            MoveKind.COVERED,
            None,
            None,
            f"Something covers {column_span(reading.covered_columns)} of the board: I am waiting until I can see it.",
        )
    current = players_grid(previous, reading.grid)
    gone = np.argwhere((previous != 0) & (current != previous))
    if len(gone):
        row, column = (int(v) for v in gone[0])
        what = "is gone" if current[row, column] == 0 else "changed colour"
        return MoveEvent(
            MoveKind.DISC_REMOVED,
            column,
            row,
            f"The disc in column {column + 1}, row {row + 1} {what}: please put the board back as it was.",
        )
    new = np.argwhere((previous == 0) & (current != 0))
    if len(new) == 0:
        return MoveEvent(MoveKind.NONE, None, None, "No new disc yet.")
    if len(new) > 1:
        columns = sorted({int(column) + 1 for _, column in new})
        return MoveEvent(
            MoveKind.TWO_DISCS,
            None,
            None,
            f"I see {len(new)} new discs (columns {', '.join(map(str, columns))}): please play one disc per turn.",
        )
    row, column = (int(v) for v in new[0])
    if not _rests(current, row, column):
        return MoveEvent(
            MoveKind.FLOATING_DISC,
            column,
            row,
            f"The new disc in column {column + 1} seems to float above an empty cell: is a hand or something in the way?",
        )
    if current[row, column] != expected_player:
        return MoveEvent(
            MoveKind.WRONG_COLOUR,
            column,
            row,
            f"The new disc in column {column + 1} is the other player's colour: please take it out and play your own colour.",
        )
    return MoveEvent(MoveKind.MOVE, column, row, f"Disc played in column {column + 1}.")


def move_before_reply(previous_grid: np.ndarray, reading: BoardReading, player: int) -> tuple[MoveEvent, int] | None:
    """`player`'s move and the reply's column when the reading's two new discs can be that move and then the other
    player's reply (a person quick to answer the robot's disc before the camera confirmed it); None for any other
    pair. The reply is left for the next look, which finds it as one new disc. Only the order is assumed, so the
    game says so (a disc dropped while the arm moved looks the same). A reply under the move's disc, or two of one
    colour, is no such pair: `detect_move`'s TWO_DISCS stands.
    """
    previous = np.asarray(previous_grid, dtype=np.int8)
    if detect_move(previous, reading, player).kind is not MoveKind.TWO_DISCS:
        return None
    current = players_grid(previous, reading.grid)
    new = [(int(row), int(column)) for row, column in np.argwhere((previous == 0) & (current != 0))]
    mine = [cell for cell in new if current[cell] == player]
    if len(new) != 2 or len(mine) != 1:
        return None
    (row, column), (reply_row, reply_column) = mine[0], next(cell for cell in new if cell != mine[0])
    if not _rests(previous, row, column) or not _rests(current, reply_row, reply_column):
        return None  # the move's disc rests on the board as it was; the reply on that, or on the move's disc
    return MoveEvent(MoveKind.MOVE, column, row, f"Disc played in column {column + 1}."), reply_column


def _rests(grid: np.ndarray, row: int, column: int) -> bool:
    """Whether a disc at (row, column) rests on the bottom or on a disc of `grid`."""
    return row == 0 or grid[row - 1, column] != 0
