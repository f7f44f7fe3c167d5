"""Where the board is: its corner holes in the image and, with camera intrinsics, its pose.

The corners come from the vision module's localisation (automatic, or refined from corners a person
clicked or typed). The pose is a perspective-n-point fit of every hole centre to the board's hole
lattice (see `BoardCalibration` for the hole frame), so drops can follow the board when it moves.
"""

from __future__ import annotations

import logging

import cv2
import numpy as np

from calibration.failures import CalibrationFailedError
from calibration.store import BoardCalibration, CameraCalibration

log = logging.getLogger(__name__)

STANDARD_COLUMN_PITCH_M = 0.0347
STANDARD_ROW_PITCH_M = 0.0318


def hole_lattice_m(rows: int, cols: int, column_pitch_m: float, row_pitch_m: float) -> np.ndarray:
    """(rows, cols, 3) hole centres in the hole frame, row 0 at the bottom."""
    lattice = np.zeros((rows, cols, 3))
    lattice[:, :, 0] = np.arange(cols)[None, :] * column_pitch_m
    lattice[:, :, 1] = np.arange(rows)[:, None] * row_pitch_m
    return lattice


def corners_of(hole_centres_px: np.ndarray) -> np.ndarray:
    """The tl, tr, br, bl corner holes of a (rows, cols, 2) lattice whose row 0 is the bottom."""
    return np.array([hole_centres_px[-1, 0], hole_centres_px[-1, -1], hole_centres_px[0, -1], hole_centres_px[0, 0]], float)


def board_pose(
    hole_centres_px: np.ndarray, camera: CameraCalibration, column_pitch_m: float, row_pitch_m: float
) -> tuple[np.ndarray, np.ndarray]:
    """(rvec, tvec_m) of the hole frame in the camera frame from the image of every hole."""
    rows, cols = hole_centres_px.shape[:2]
    object_points = hole_lattice_m(rows, cols, column_pitch_m, row_pitch_m).reshape(-1, 3)
    image_points = np.asarray(hole_centres_px, float).reshape(-1, 1, 2)
    matrix = np.asarray(camera.camera_matrix, float)
    distortion = np.asarray(camera.distortion, float)
    found, rvec, tvec = cv2.solvePnP(object_points, image_points, matrix, distortion, flags=cv2.SOLVEPNP_IPPE)
    if not found:
        raise CalibrationFailedError("the board's pose could not be fitted to its holes: check the corners and the camera calibration")
    rvec, tvec = cv2.solvePnPRefineLM(object_points, image_points, matrix, distortion, rvec, tvec)
    if tvec[2, 0] <= 0:
        raise CalibrationFailedError("the board's pose puts it behind the camera: check the corner order (tl, tr, br, bl)")
    return rvec.ravel(), tvec.ravel()


def register_board(
    image_bgr: np.ndarray,
    shape: tuple[int, int] = (6, 7),
    corners_px: np.ndarray | None = None,
    camera: CameraCalibration | None = None,
    column_pitch_m: float = STANDARD_COLUMN_PITCH_M,
    row_pitch_m: float = STANDARD_ROW_PITCH_M,
) -> BoardCalibration:
    """Find the board in a frame (automatically, or from rough corners) and, with intrinsics, its pose.

    Raises CalibrationFailedError when vision does not find the board.
    """
    import vision

    rows, cols = shape
    reading = vision.read(image_bgr, shape=shape, corners=corners_px)
    if not reading.is_board_found:
        reason = "; ".join(reading.problems) or "no hole lattice seen"
        raise CalibrationFailedError(f"board not found ({reason}): show the whole front of the board, or give its corners")
    centres = np.asarray(reading.hole_centres_px, float)
    rvec = tvec = None
    if camera is not None:
        rvec, tvec = board_pose(centres, camera, column_pitch_m, row_pitch_m)
        log.info("board pose: rvec %s rad, tvec %s m", np.round(rvec, 4), np.round(tvec, 4))
    return BoardCalibration(
        rows=rows, cols=cols, corners_px=corners_of(centres), column_pitch_m=column_pitch_m,
        row_pitch_m=row_pitch_m, rvec_rad=rvec, tvec_m=tvec,
    )
