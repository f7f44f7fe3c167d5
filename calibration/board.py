"""Where the board is: its corner holes in the image and, with camera intrinsics, its pose.

The hole centres come from the vision module's localisation (automatic, or refined from corners a
person clicked or typed) fitted to the holes' rims: the circles where the front face ends, whatever of
the lit or shaded inner walls and the slot shows through. The pose is a perspective-n-point fit of
those centres to the front face's hole lattice (see `BoardCalibration` for the hole frame), and the
saved corners are that lattice's corners projected with the pose. Without intrinsics the corners are
vision's own.
"""

from __future__ import annotations

import dataclasses
import logging

import cv2
import numpy as np

from calibration.failures import CalibrationFailedError
from calibration.store import BoardCalibration, CameraCalibration

log = logging.getLogger(__name__)

HOLE_SAMPLE_RADIUS_PITCH = 0.22  # well inside a hole even from the front face's centre


def hole_lattice_m(rows: int, cols: int, column_pitch_m: float, row_pitch_m: float) -> np.ndarray:
    """(rows, cols, 3) hole centres on the front face in the hole frame, row 0 at the bottom."""
    lattice = np.zeros((rows, cols, 3))
    lattice[:, :, 0] = np.arange(cols)[None, :] * column_pitch_m
    lattice[:, :, 1] = np.arange(rows)[:, None] * row_pitch_m
    return lattice


def corners_of(hole_centres_px: np.ndarray) -> np.ndarray:
    """The tl, tr, br, bl corner holes of a (rows, cols, 2) lattice whose row 0 is the bottom."""
    return np.array(
        [hole_centres_px[-1, 0], hole_centres_px[-1, -1], hole_centres_px[0, -1], hole_centres_px[0, 0]], float
    )


def board_pose(
    hole_centres_px: np.ndarray, camera: CameraCalibration, column_pitch_m: float, row_pitch_m: float
) -> tuple[np.ndarray, np.ndarray]:
    """(rvec, tvec_m) of the hole frame in the camera frame from the image of every hole centre on the front face."""
    rows, cols = hole_centres_px.shape[:2]
    object_points = hole_lattice_m(rows, cols, column_pitch_m, row_pitch_m).reshape(-1, 3)
    image_points = np.asarray(hole_centres_px, float).reshape(-1, 1, 2)
    matrix = np.asarray(camera.camera_matrix, float)
    distortion = np.asarray(camera.distortion, float)
    found, rvec, tvec = cv2.solvePnP(object_points, image_points, matrix, distortion, flags=cv2.SOLVEPNP_IPPE)
    if not found:
        raise CalibrationFailedError(
            "the board's pose could not be fitted to its holes: check the corners and the camera calibration"
        )
    rvec, tvec = cv2.solvePnPRefineLM(object_points, image_points, matrix, distortion, rvec, tvec)
    if tvec[2, 0] <= 0:
        raise CalibrationFailedError(
            "the board's pose puts it behind the camera: check the corner order (tl, tr, br, bl)"
        )
    return rvec.ravel(), tvec.ravel()


def front_corners_px(
    rvec: np.ndarray, tvec_m: np.ndarray, camera: CameraCalibration, board: BoardCalibration
) -> np.ndarray:
    """The front face's corner hole centres (tl, tr, br, bl) seen with the board at pose (rvec, tvec)."""
    lattice = hole_lattice_m(board.rows, board.cols, board.column_pitch_m, board.row_pitch_m)
    pixels, _ = cv2.projectPoints(
        corners_of(lattice), rvec, tvec_m, np.asarray(camera.camera_matrix, float), np.asarray(camera.distortion, float)
    )
    return pixels.reshape(4, 2)


def register_board(
    image_bgr: np.ndarray,
    dimensions: BoardCalibration | None = None,
    corners_px: np.ndarray | None = None,
    camera: CameraCalibration | None = None,
) -> BoardCalibration:
    """Find the board in a frame (automatically, or from rough corners) and, with intrinsics, its pose.

    `dimensions` gives rows, cols, pitches and disc plane depth (its corners and pose are ignored;
    None: a standard 7x6 board). Raises CalibrationFailedError when vision does not find the board.
    """
    import vision
    from vision.geometry import hole_centres_px
    from vision.localise import fit_to_rims

    dimensions = dimensions or BoardCalibration(rows=6, cols=7, corners_px=((0, 0),) * 4)
    shape = (dimensions.rows, dimensions.cols)
    reading = vision.read(image_bgr, shape=shape, corners=corners_px)
    if not reading.is_board_found:
        reason = "; ".join(reading.problems) or "no hole lattice seen"
        raise CalibrationFailedError(
            f"board not found ({reason}): show the whole front of the board, or give its corners"
        )
    centres = np.asarray(reading.hole_centres_px, float)
    if corners_px is not None:  # a reading from given corners is refined to the holes, not yet to their rims
        centres = hole_centres_px(fit_to_rims(image_bgr, np.asarray(reading.corners, float), shape), shape)
    if camera is None:
        return dataclasses.replace(dimensions, corners_px=corners_of(centres), rvec_rad=None, tvec_m=None)
    rvec, tvec = board_pose(centres, camera, dimensions.column_pitch_m, dimensions.row_pitch_m)
    log.info("board pose: rvec %s rad, tvec %s m", np.round(rvec, 4), np.round(tvec, 4))
    corners = front_corners_px(rvec, tvec, camera, dimensions)
    return dataclasses.replace(dimensions, corners_px=corners, rvec_rad=rvec, tvec_m=tvec)


def hole_colours(frame: np.ndarray, board: BoardCalibration) -> np.ndarray:
    """(rows, cols, 3) mean BGR in a small disc around every hole centre (row 0 at the bottom)."""
    from vision.geometry import hole_centres_px, hole_pitch_px

    corners = np.asarray(board.corners_px, float)
    centres = hole_centres_px(corners, (board.rows, board.cols))
    radius = max(2, int(HOLE_SAMPLE_RADIUS_PITCH * hole_pitch_px(corners, (board.rows, board.cols))))
    offsets = [
        (dx, dy)
        for dx in range(-radius, radius + 1)
        for dy in range(-radius, radius + 1)
        if dx * dx + dy * dy <= radius * radius
    ]
    height, width = frame.shape[:2]
    colours = np.zeros((board.rows, board.cols, 3))
    for row in range(board.rows):
        for col in range(board.cols):
            x, y = np.round(centres[row, col]).astype(int)
            xs = np.clip([x + dx for dx, _ in offsets], 0, width - 1)
            ys = np.clip([y + dy for _, dy in offsets], 0, height - 1)
            colours[row, col] = frame[ys, xs].astype(float).mean(axis=0)
    return colours


def parse_corners(text: str) -> np.ndarray:
    """Four "x,y" corner points typed by a person (tl tr br bl), checked: finite pixel coordinates."""
    try:
        corners = np.array([[float(v) for v in point.split(",")] for point in text.split()], float)
    except ValueError:
        corners = np.zeros(0)
    if corners.shape != (4, 2) or not np.isfinite(corners).all():
        shown = text if len(text) <= 60 else text[:57] + "..."
        raise ValueError(f'corners "{shown}": give four x,y points separated by spaces (tl tr br bl)')
    return corners


def board_dimensions(setup_board: BoardCalibration | None, rows: int | None, cols: int | None) -> BoardCalibration:
    """The board to look for: the file's (else a 7x6 board) with rows/cols replaced if given, its pose dropped."""
    base = setup_board or BoardCalibration(rows=6, cols=7, corners_px=((0.0, 0.0),) * 4)
    return dataclasses.replace(base, rows=rows or base.rows, cols=cols or base.cols, rvec_rad=None, tvec_m=None)


def corner_error_px(measured: BoardCalibration, truth: BoardCalibration) -> float:
    """The largest distance along x or y between two boards' corner holes, in pixels."""
    return float(np.abs(np.asarray(measured.corners_px) - np.asarray(truth.corners_px)).max())
