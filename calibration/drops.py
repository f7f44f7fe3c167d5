"""The arm's drop pose over every column: taught at the ends, interpolated, followed, verified by test drops.

A person jogs the arm over the first and the last column (optionally each); the columns between lie
on the line joining them (`interpolate_drops`). When the board is moved on the table, the camera sees
its new pose and the drops follow it (`follow_board`): the board stands upright on a level table, so
its motion in the arm's frame is a turn about the vertical and a shift along the table. The camera's
orientation relative to the arm need not be known: it is recovered from the taught drop line (the
board's x axis in the arm frame) and the vertical (its y axis). Test drops then check every column
with the camera (`verify_and_correct`), and a disc that lands in a neighbouring column moves that
column's pose by the column pitch.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from calibration.failures import CalibrationFailedError
from calibration.store import ArmPose, BoardCalibration

log = logging.getLogger(__name__)

# How far a drop pose sits above the top hole of its column on a common board (it is over the slot,
# the board's disc plane behind the front face). Only the product with the board's turn matters, so a
# rough figure gives sub-millimetre errors.
ENTRY_HEIGHT_ABOVE_TOP_HOLE_M = 0.05

# A test drop: (0-based column, pose) -> the 0-based column the camera saw the disc land in, or None.
DropTest = Callable[[int, ArmPose], int | None]


@dataclass(frozen=True)
class DropCheck:
    """One column's test drop: where it was aimed, where it landed (None: not seen), the pose used."""

    column: int
    landed: int | None
    pose: ArmPose

    @property
    def is_right(self) -> bool:
        return self.landed == self.column


def interpolate_drops(first: ArmPose, last: ArmPose, cols: int) -> tuple[ArmPose, ...]:
    """Drop poses for `cols` evenly spaced columns from the first column's pose to the last's."""
    if cols < 2:
        raise ValueError(f"a board of {cols} columns: need at least 2 to interpolate")
    row_direction((first, last))
    start = np.array([first.x_m, first.y_m, first.z_m, first.yaw_rad])
    end = np.array([last.x_m, last.y_m, last.z_m, last.yaw_rad])
    return tuple(ArmPose(*(start + (end - start) * column / (cols - 1))) for column in range(cols))


def row_direction(drops: Sequence[ArmPose]) -> np.ndarray:
    """Unit vector in the arm frame, level, from the first column's drop towards the last's."""
    direction = np.array(drops[-1].xyz_m) - np.array(drops[0].xyz_m)
    direction[2] = 0.0
    length = float(np.linalg.norm(direction))
    if length < 1e-3:
        raise ValueError("the first and last drop poses coincide: teach them over the first and the last column")
    return direction / length


def _hole_frame_in_arm(drops: Sequence[ArmPose], board: BoardCalibration) -> np.ndarray:
    """4x4 pose of the hole frame in the arm frame, from the drop line and the vertical (board upright)."""
    x_axis = row_direction(drops)
    y_axis = np.array([0.0, 0.0, 1.0])
    rotation = np.column_stack([x_axis, y_axis, np.cross(x_axis, y_axis)])
    entries = np.array(
        [
            [
                column * board.column_pitch_m,
                (board.rows - 1) * board.row_pitch_m + ENTRY_HEIGHT_ABOVE_TOP_HOLE_M,
                -board.disc_plane_depth_m,
            ]
            for column in range(len(drops))
        ]
    )
    positions = np.array([pose.xyz_m for pose in drops])
    pose = np.eye(4)
    pose[:3, :3] = rotation
    pose[:3, 3] = (positions - entries @ rotation.T).mean(axis=0)
    return pose


def _hole_frame_in_camera(board: BoardCalibration) -> np.ndarray:
    if board.rvec_rad is None or board.tvec_m is None:
        raise ValueError("the board pose is unknown: run `c4robot calibrate camera` then `calibrate board`")
    pose = np.eye(4)
    pose[:3, :3] = cv2.Rodrigues(np.asarray(board.rvec_rad, float))[0]
    pose[:3, 3] = board.tvec_m
    return pose


def follow_board(drops: Sequence[ArmPose], before: BoardCalibration, after: BoardCalibration) -> tuple[ArmPose, ...]:
    """The drop poses moved with the board, from its pose in the camera before and after (both measured)."""
    hole_in_arm = _hole_frame_in_arm(drops, before)
    # The board's motion in the hole frame it had, then in the arm frame.
    motion_in_hole = np.linalg.inv(_hole_frame_in_camera(before)) @ _hole_frame_in_camera(after)
    motion = hole_in_arm @ motion_in_hole @ np.linalg.inv(hole_in_arm)
    x_before = row_direction(drops)
    x_after = motion[:3, :3] @ x_before
    turn_rad = math.atan2(x_after[1], x_after[0]) - math.atan2(x_before[1], x_before[0])
    turn_rad = math.remainder(turn_rad, math.tau)
    positions = np.array([pose.xyz_m for pose in drops])
    centre = positions.mean(axis=0)
    centre_after = motion[:3, :3] @ centre + motion[:3, 3]
    cos_t, sin_t = math.cos(turn_rad), math.sin(turn_rad)
    turn = np.array([[cos_t, -sin_t, 0.0], [sin_t, cos_t, 0.0], [0.0, 0.0, 1.0]])
    shift = np.array([centre_after[0] - centre[0], centre_after[1] - centre[1], 0.0])
    moved = (positions - centre) @ turn.T + centre + shift
    log.info(
        "board moved by %.1f mm and turned %.2f deg in the arm frame",
        1000 * np.linalg.norm(shift),
        math.degrees(turn_rad),
    )
    return tuple(ArmPose(*xyz, pose.yaw_rad + turn_rad) for xyz, pose in zip(moved, drops, strict=False))


def shifted(pose: ArmPose, along: np.ndarray, distance_m: float) -> ArmPose:
    """The pose moved `distance_m` along a level unit vector (the board's row direction)."""
    return ArmPose(pose.x_m + along[0] * distance_m, pose.y_m + along[1] * distance_m, pose.z_m, pose.yaw_rad)


def verify_and_correct(
    drops: Sequence[ArmPose],
    column_pitch_m: float,
    test_drop: DropTest,
    attempts: int = 3,
    on_check: Callable[[DropCheck], None] | None = None,
) -> tuple[tuple[ArmPose, ...], list[DropCheck]]:
    """Test-drop every column; a disc seen in column c' moves that pose by (c - c') pitches and tries again.
    `on_check` is told each check as it is made (for a progress line).

    Returns the corrected poses and every check made. Raises CalibrationFailedError when a column still
    misses after `attempts` drops (the message names the columns, 1-based).
    """
    along = row_direction(drops)
    corrected = list(drops)
    checks: list[DropCheck] = []
    for column in range(len(corrected)):
        for _ in range(attempts):
            landed = test_drop(column, corrected[column])
            checks.append(DropCheck(column, landed, corrected[column]))
            if on_check is not None:
                on_check(checks[-1])
            if landed == column:
                break
            if landed is not None:
                corrected[column] = shifted(corrected[column], along, (column - landed) * column_pitch_m)
    wrong = sorted({check.column + 1 for check in checks} - {check.column + 1 for check in checks if check.is_right})
    if wrong:
        raise CalibrationFailedError(
            f"test drops into column(s) {wrong} kept missing: jog the arm over those columns with `c4robot calibrate drops`"
        )
    return tuple(corrected), checks
