"""Which disc colour is the robot's and which the person's, sampled from the board.

The person puts one disc of each colour on the board, the robot's in a column they name; vision reads
the frame and learns both colours, and the pair is saved (robot first) so later readings name them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from calibration.failures import CalibrationFailedError
from calibration.store import ColourCalibration


def colours_from_reading(reading: Any, robot_column: int) -> ColourCalibration:
    """The colours of a `vision.BoardReading` that shows both colours; the robot's disc lies in `robot_column` (0-based).

    Raises CalibrationFailedError when the board was not found, does not show two colours, or the
    robot's column is empty.
    """
    if not reading.is_board_found:
        raise CalibrationFailedError(f"board not found ({'; '.join(reading.problems)}): show the whole front of the board")
    grid = np.asarray(reading.grid)
    if not 0 <= robot_column < grid.shape[1]:
        raise ValueError(f"robot column {robot_column + 1} is not on a board of {grid.shape[1]} columns")
    values_seen = set(np.unique(grid[grid > 0]).tolist())
    if values_seen != {1, 2} or len(reading.colours_bgr) != 2:
        raise CalibrationFailedError(
            f"the board shows {len(values_seen)} disc colour(s): put one disc of each colour on it, the robot's in column {robot_column + 1}"
        )
    robot_value = int(grid[0, robot_column])
    if robot_value == 0:
        raise CalibrationFailedError(f"column {robot_column + 1} is empty: put one of the robot's discs in it")
    person_value = 3 - robot_value
    return ColourCalibration(
        robot=reading.colour_names[robot_value - 1],
        person=reading.colour_names[person_value - 1],
        robot_bgr=reading.colours_bgr[robot_value - 1],
        person_bgr=reading.colours_bgr[person_value - 1],
    )
