"""Which disc colour is the robot's and which the person's, sampled from the board.

The person puts one disc of each colour in the bottom row, the robot's and the person's in columns
they name; the camera's colour at those two holes, compared with the empty hole above each, gives
both reference colours (BGR, as the camera sees them in this light) and their letters, saved robot
first so that vision names and tells them apart in every later frame.
"""

from __future__ import annotations

import numpy as np

from calibration.board import hole_colours
from calibration.failures import CalibrationFailedError
from calibration.store import BoardCalibration, ColourCalibration

# A hole holds a disc when its colour differs this much (BGR distance) from the empty hole above it, or from
# itself in a frame of the empty board (same room, same light: a webcam's noise moves a mean by a few levels).
DISC_CONTRAST_MIN = 40.0
DISC_CHANGE_MIN = 15.0
# Two discs are of different colours when they differ at least this much.
COLOUR_DIFFERENCE_MIN = 40.0


def colours_from_frame(
    frame_bgr: np.ndarray,
    board: BoardCalibration,
    robot_column: int,
    person_column: int,
    empty_frame_bgr: np.ndarray | None = None,
) -> ColourCalibration:
    """The colours of the discs in the bottom holes of `robot_column` and `person_column` (0-based).

    A disc is told from an empty hole by the empty hole above it, or, given `empty_frame_bgr` (the board before
    the discs went in), by its own hole in that frame: a room of nearly a disc's colour behind the board can make
    the hole above look like the disc.

    Raises ValueError for columns off the board or equal, CalibrationFailedError when a column looks
    empty or both discs look the same.
    """
    from vision.colour_names import colour_letters
    from vision.hole_samples import in_board_light, local_light, sample_holes, to_weighted_lab

    for name, column in (("robot", robot_column), ("person", person_column)):
        if not 0 <= column < board.cols:
            raise ValueError(f"{name} column {column + 1} is not on a board of {board.cols} columns")
    if robot_column == person_column:
        raise ValueError(f"the robot's and the person's discs need different columns, both are {robot_column + 1}")
    colours = hole_colours(frame_bgr, board)
    before = None if empty_frame_bgr is None else hole_colours(empty_frame_bgr, board)
    samples = []
    for column in (robot_column, person_column):
        disc, empty = colours[0, column], colours[1, column] if before is None else before[0, column]
        if np.linalg.norm(disc - empty) < (DISC_CONTRAST_MIN if before is None else DISC_CHANGE_MIN):
            raise CalibrationFailedError(f"column {column + 1} looks empty: put a disc in it (and none above it)")
        samples.append(disc)
    if np.linalg.norm(samples[0] - samples[1]) < COLOUR_DIFFERENCE_MIN:
        raise CalibrationFailedError(
            f"the discs in columns {robot_column + 1} and {person_column + 1} look alike: use one disc of each colour"
        )
    # The bottom corners may be darker or brighter than the board as a whole (a lamp above, a window to one side):
    # the references are kept in the board's light, as the reader looks for them in each hole's own light.
    light = local_light(sample_holes(frame_bgr, np.asarray(board.corners_px, float), (board.rows, board.cols)))
    samples = [
        in_board_light(disc, float(light[column]))
        for disc, column in zip(samples, (robot_column, person_column), strict=True)
    ]
    lab = to_weighted_lab(np.array([samples], np.float64).clip(0, 255).astype(np.uint8))[0]
    robot_letter, person_letter = colour_letters([lab[0], lab[1]])
    return ColourCalibration(robot_letter, person_letter, tuple(samples[0]), tuple(samples[1]))
