"""Where a point set some depth behind the board's face shows in the image: the camera recovered from the face alone.

The face's holes give the homography from grid coordinates to the image. With square pixels and the principal point
in the frame's middle, the holes' right angle gives the focal length, and with it the face's normal in the camera's
frame (Zhang's single-view constraint). A point `depth` column pitches behind grid point g then shows at
H (g, 1) + depth * lambda * K n, in homogeneous pixels. A view from nearly straight on leaves the focal length
undetermined; a typical webcam's is taken then (the parallax is small there whatever it is).
"""

from __future__ import annotations

import functools

import cv2
import numpy as np

from vision.geometry import grid_points, grid_to_image_homography

# A webcam's focal length in widths of its frame (a horizontal field of view of about 60 degrees), for views too
# near straight on to measure it, and the range a measured one is kept in.
TYPICAL_FOCAL_WIDTHS = 0.9
FOCAL_WIDTHS_RANGE = (0.5, 4.0)
PARALLAX_CACHE_SIZE = 8


@functools.lru_cache(maxsize=PARALLAX_CACHE_SIZE)
def _depth_direction(corners_key: bytes, shape: tuple[int, int], image_size: tuple[int, int]) -> np.ndarray:
    """(3,) homogeneous pixels a column pitch of depth adds to a point's image (see the module)."""
    corners = np.frombuffer(corners_key, dtype=np.float64).reshape(4, 2)
    homography = grid_to_image_homography(corners, shape)
    width, height = image_size
    centre_x, centre_y = width / 2, height / 2
    across, down = homography[:, 0], homography[:, 1]
    product = (across[0] - centre_x * across[2]) * (down[0] - centre_x * down[2])
    product += (across[1] - centre_y * across[2]) * (down[1] - centre_y * down[2])
    denominator = across[2] * down[2]
    focal_squared = -product / denominator if abs(denominator) > 1e-15 else -1.0
    focal = np.sqrt(focal_squared) if focal_squared > 0 else TYPICAL_FOCAL_WIDTHS * width
    focal = float(np.clip(focal, FOCAL_WIDTHS_RANGE[0] * width, FOCAL_WIDTHS_RANGE[1] * width))
    camera = np.array([[focal, 0.0, centre_x], [0.0, focal, centre_y], [0.0, 0.0, 1.0]])
    inverse = np.linalg.inv(camera)
    along_columns, along_rows = inverse @ across, inverse @ down
    scale = float(np.linalg.norm(along_columns))
    normal = np.cross(along_columns / scale, along_rows / np.linalg.norm(along_rows))
    normal /= np.linalg.norm(normal)
    if normal @ (inverse @ homography[:, 2]) < 0:  # away from the camera, into the board
        normal = -normal
    return scale * (camera @ normal)


def depth_shifts(
    corners_px: np.ndarray, shape: tuple[int, int], image_size: tuple[int, int], depth: float
) -> np.ndarray:
    """(rows * cols, 2) in grid units (columns, rows from the top), holes row 0 at the BOTTOM first: where a point
    `depth` column pitches behind each hole's centre shows, relative to that centre, seen on the face's plane."""
    corners = np.ascontiguousarray(corners_px, dtype=np.float64)
    homography = grid_to_image_homography(corners, shape)
    direction = _depth_direction(corners.tobytes(), tuple(shape), tuple(image_size))
    grid = grid_points(shape)[::-1].reshape(-1, 2)
    homogeneous = np.column_stack([grid, np.ones(len(grid))]) @ homography.T + depth * direction
    image = homogeneous[:, :2] / homogeneous[:, 2:]
    on_face = cv2.perspectiveTransform(image[None], np.linalg.inv(homography))[0]
    return on_face - grid
