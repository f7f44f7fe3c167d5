"""The board's hole lattice in the image: corners, homography, hole centres and the rectified board view.

Grid coordinates are (column, row_from_top) in hole units: the top-left hole is (0, 0), the bottom-right
hole is (cols - 1, rows - 1). Corners are always the hole centres tl, tr, br, bl in image pixels, as in
the CLI and the calibration file. The rectified view puts hole (c, r_top) at ((c + 0.5) P, (r_top + 0.5) P)
for a pitch of P pixels, so every hole is sampled the same way whatever the camera angle.
"""

from __future__ import annotations

import cv2
import numpy as np

CORNER_NAMES = ("top-left", "top-right", "bottom-right", "bottom-left")


def check_shape(shape: tuple[int, int]) -> tuple[int, int]:
    """Return (rows, cols) as ints; a board needs at least 2 x 2 holes."""
    rows, cols = (int(value) for value in shape)
    if rows < 2 or cols < 2:
        raise ValueError(f"board shape {shape} is too small: give at least 2 rows and 2 columns")
    return rows, cols


def check_corners(corners_px: np.ndarray | list) -> np.ndarray:
    """Return the corners as a float64 (4, 2) array of a convex, clockwise-ordered quadrilateral."""
    corners = np.asarray(corners_px, dtype=np.float64)
    if corners.shape != (4, 2) or not np.all(np.isfinite(corners)):
        raise ValueError(f"corners must be 4 finite x,y points (tl, tr, br, bl), got {corners.tolist()}")
    edges = np.roll(corners, -1, axis=0) - corners
    turns = edges[:, 0] * np.roll(edges, -1, axis=0)[:, 1] - edges[:, 1] * np.roll(edges, -1, axis=0)[:, 0]
    if not (np.all(turns > 0) or np.all(turns < 0)):
        raise ValueError(
            f"corners {corners.round(1).tolist()} do not form a convex quadrilateral: give tl, tr, br, bl in order"
        )
    return corners


def grid_corners(shape: tuple[int, int]) -> np.ndarray:
    """Grid coordinates of the four corner holes tl, tr, br, bl."""
    rows, cols = shape
    return np.array([[0, 0], [cols - 1, 0], [cols - 1, rows - 1], [0, rows - 1]], dtype=np.float64)


def grid_to_image_homography(corners_px: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """The 3x3 homography from grid coordinates (column, row_from_top) to image pixels."""
    return cv2.getPerspectiveTransform(grid_corners(shape).astype(np.float32), corners_px.astype(np.float32))


def project(homography: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Apply a homography to (..., 2) points."""
    flat = points.reshape(-1, 2)
    if len(flat) == 0:
        return np.asarray(points, float)
    mapped = cv2.perspectiveTransform(flat[None].astype(np.float64), homography)[0]
    return mapped.reshape(points.shape)


def grid_points(shape: tuple[int, int]) -> np.ndarray:
    """Grid coordinates of every hole, (rows, cols, 2), row 0 at the TOP (image order)."""
    rows, cols = shape
    column, row = np.meshgrid(np.arange(cols, dtype=np.float64), np.arange(rows, dtype=np.float64))
    return np.stack([column, row], axis=-1)


def hole_centres_px(corners_px: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """Image position of every hole centre, (rows, cols, 2), row 0 at the BOTTOM like the game grid."""
    homography = grid_to_image_homography(corners_px, shape)
    return project(homography, grid_points(shape))[::-1].copy()


def hole_pitch_px(corners_px: np.ndarray, shape: tuple[int, int]) -> float:
    """Mean distance between neighbouring hole centres in the image (a size scale for the board)."""
    rows, cols = shape
    top = np.linalg.norm(corners_px[1] - corners_px[0]) / (cols - 1)
    bottom = np.linalg.norm(corners_px[2] - corners_px[3]) / (cols - 1)
    left = np.linalg.norm(corners_px[3] - corners_px[0]) / (rows - 1)
    right = np.linalg.norm(corners_px[2] - corners_px[1]) / (rows - 1)
    return float((top + bottom + left + right) / 4)


def rectifying_homography(corners_px: np.ndarray, shape: tuple[int, int], pitch_px: int) -> np.ndarray:
    """Image -> front view with `pitch_px` between holes, hole centres at ((c + 0.5) P, (r_top + 0.5) P)."""
    rectified_corners = (grid_corners(shape) + 0.5) * pitch_px
    return cv2.getPerspectiveTransform(corners_px.astype(np.float32), rectified_corners.astype(np.float32))
