"""Drop poses: interpolation, following a moved board seen by the camera, correction from test drops."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from calibration.board import board_pose, hole_lattice_m
from calibration.drops import follow_board, interpolate_drops, verify_and_correct
from calibration.failures import CalibrationFailedError
from calibration.store import ArmPose, BoardCalibration, CameraCalibration

ROWS, COLS, COLUMN_PITCH_M, ROW_PITCH_M = 6, 7, 0.0347, 0.0318
CAMERA = CameraCalibration(((580.0, 0.0, 320.0), (0.0, 580.0, 240.0), (0.0, 0.0, 1.0)), (0.0,) * 5, (640, 480), 0.1)
# True entry point of each column in the hole frame: unlike calibration's nominal figures on purpose.
ENTRY_HEIGHT_M, ENTRY_DEPTH_M = 0.058, 0.009


def transform(rotation: np.ndarray, translation: np.ndarray) -> np.ndarray:
    pose = np.eye(4)
    pose[:3, :3], pose[:3, 3] = rotation, translation
    return pose


def yaw_rotation(angle_rad: float) -> np.ndarray:
    c, s = math.cos(angle_rad), math.sin(angle_rad)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def hole_frame_in_arm(board_yaw_rad: float, origin: np.ndarray) -> np.ndarray:
    """The board upright, facing -y turned by board_yaw: x along the row, y up, z out of the front face."""
    x_axis = yaw_rotation(board_yaw_rad) @ np.array([-1.0, 0.0, 0.0])
    y_axis = np.array([0.0, 0.0, 1.0])
    return transform(np.column_stack([x_axis, y_axis, np.cross(x_axis, y_axis)]), origin)


def true_drops(hole_in_arm: np.ndarray, wrist_yaw_rad: float) -> tuple[ArmPose, ...]:
    entries = [
        np.array([c * COLUMN_PITCH_M, (ROWS - 1) * ROW_PITCH_M + ENTRY_HEIGHT_M, -ENTRY_DEPTH_M, 1.0])
        for c in range(COLS)
    ]
    return tuple(ArmPose(*(hole_in_arm @ entry)[:3], wrist_yaw_rad) for entry in entries)


def seen_board(
    hole_in_arm: np.ndarray, camera_in_arm: np.ndarray, noise_px: float, rng: np.random.Generator
) -> BoardCalibration:
    """The board as the camera measures it: project the holes, add noise, fit the pose."""
    hole_in_camera = np.linalg.inv(camera_in_arm) @ hole_in_arm
    rvec = cv2.Rodrigues(hole_in_camera[:3, :3])[0]
    lattice = hole_lattice_m(ROWS, COLS, COLUMN_PITCH_M, ROW_PITCH_M)
    pixels, _ = cv2.projectPoints(
        lattice.reshape(-1, 3), rvec, hole_in_camera[:3, 3], np.array(CAMERA.camera_matrix), None
    )
    pixels = pixels.reshape(ROWS, COLS, 2) + rng.normal(0.0, noise_px, (ROWS, COLS, 2))
    rvec_fit, tvec_fit = board_pose(pixels, CAMERA, COLUMN_PITCH_M, ROW_PITCH_M)
    corners = [pixels[-1, 0], pixels[-1, -1], pixels[0, -1], pixels[0, 0]]
    return BoardCalibration(ROWS, COLS, corners, COLUMN_PITCH_M, ROW_PITCH_M, rvec_rad=rvec_fit, tvec_m=tvec_fit)


def camera_in_arm() -> np.ndarray:
    """A webcam 0.4 m in front of the board (arm frame: the board at x ~ 0.14 m), looking at it, a bit above."""
    eye, target = np.array([0.54, 0.0, 0.04]), np.array([0.14, 0.0, -0.03])
    forward = (target - eye) / np.linalg.norm(target - eye)
    right = np.cross(forward, [0.0, 0.0, 1.0])
    right /= np.linalg.norm(right)
    return transform(np.column_stack([right, np.cross(forward, right), forward]), eye)


@pytest.mark.parametrize("noise_px", [0.0, 0.25])
def test_drops_follow_a_board_moved_2_cm_and_turned_3_degrees(noise_px: float) -> None:
    rng = np.random.default_rng(1)
    before = hole_frame_in_arm(0.0, np.array([0.14 + 0.007, 0.104, -0.13]))
    motion = transform(yaw_rotation(math.radians(3.0)), np.array([0.014, -0.014, 0.0]))
    after = motion @ before
    taught = true_drops(before, wrist_yaw_rad=0.2)
    expected = true_drops(after, wrist_yaw_rad=0.2 + math.radians(3.0))
    followed = follow_board(
        taught, seen_board(before, camera_in_arm(), noise_px, rng), seen_board(after, camera_in_arm(), noise_px, rng)
    )
    errors_mm = [1000 * np.linalg.norm(np.subtract(a.xyz_m, b.xyz_m)) for a, b in zip(followed, expected, strict=False)]
    yaw_errors_deg = [math.degrees(abs(a.yaw_rad - b.yaw_rad)) for a, b in zip(followed, expected, strict=False)]
    assert max(errors_mm) < (1.0 if noise_px == 0 else 2.5), errors_mm
    assert max(yaw_errors_deg) < (0.05 if noise_px == 0 else 0.6), yaw_errors_deg


def test_interpolation_spans_first_to_last() -> None:
    first, last = ArmPose(0.1, -0.1, 0.3, 0.0), ArmPose(0.1, 0.1, 0.32, 0.06)
    drops = interpolate_drops(first, last, 5)
    assert drops[0] == first and drops[-1] == last
    assert (
        drops[2].y_m == pytest.approx(0.0)
        and drops[2].z_m == pytest.approx(0.31)
        and drops[2].yaw_rad == pytest.approx(0.03)
    )
    with pytest.raises(ValueError):
        interpolate_drops(first, first, 7)


def test_a_drop_into_the_neighbour_moves_that_pose_by_one_pitch() -> None:
    true_xs = [0.1 + COLUMN_PITCH_M * c for c in range(COLS)]
    drops = [ArmPose(x, 0.0, 0.3, 0.0) for x in true_xs]
    drops[4] = ArmPose(true_xs[4] + 0.03, 0.0, 0.3, 0.0)  # 3 cm off: lands in column 6 (index 5)

    def landed(column: int, pose: ArmPose) -> int:
        return int(np.argmin([abs(pose.x_m - x) for x in true_xs]))

    corrected, checks = verify_and_correct(drops, COLUMN_PITCH_M, landed)
    assert corrected[4].x_m == pytest.approx(true_xs[4] + 0.03 - COLUMN_PITCH_M)
    assert [check.landed for check in checks if check.column == 4] == [5, 4]


def test_a_column_that_keeps_missing_is_refused() -> None:
    drops = interpolate_drops(ArmPose(0.1, 0.0, 0.3, 0.0), ArmPose(0.1 + 6 * COLUMN_PITCH_M, 0.0, 0.3, 0.0), COLS)
    with pytest.raises(CalibrationFailedError, match=r"\[3\]"):
        verify_and_correct(drops, COLUMN_PITCH_M, lambda column, pose: None if column == 2 else column)
