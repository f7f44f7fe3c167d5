"""Camera intrinsics and lens distortion from views of a printed chessboard.

Each view is checked before it counts: the whole chessboard must be found (OpenCV's sector-based
detector, sub-pixel accurate) and sharp (the black-to-white edge width that
`cv2.estimateChessboardSharpness` measures). The result is refused, with the reason, when too few
views remain, when the corners seen cover too little of the image (the distortion model would be
guessed at the edges), or when the reprojection error is too large.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import cv2
import numpy as np

from calibration.failures import CalibrationFailedError
from calibration.store import CameraCalibration

log = logging.getLogger(__name__)

MIN_VIEWS = 8
MAX_EDGE_WIDTH_PX = 3.5  # wider black-to-white transitions mean a blurred view
MIN_COVERAGE = 0.45  # share of the image's 6x6 cells that some view's corners fall in
MAX_REPROJECTION_ERROR_PX = 1.0
COVERAGE_CELLS = 6


@dataclass(frozen=True)
class Chessboard:
    """A printed chessboard: inner corner counts along its width and height, and the square size."""

    inner_cols: int = 9
    inner_rows: int = 6
    square_m: float = 0.025

    def __post_init__(self) -> None:
        if min(self.inner_cols, self.inner_rows) < 3 or self.inner_cols == self.inner_rows:
            raise ValueError(
                f"chessboard of {self.inner_cols}x{self.inner_rows} inner corners: use at least 3 each, "
                "and different counts so its orientation is unambiguous"
            )
        if self.square_m <= 0:
            raise ValueError(f"chessboard square of {self.square_m} m: must be positive")

    @property
    def pattern_size(self) -> tuple[int, int]:
        return self.inner_cols, self.inner_rows

    def object_points_m(self) -> np.ndarray:
        """(N, 3) inner corner positions on the board plane (z = 0), in OpenCV's detection order."""
        xs, ys = np.meshgrid(np.arange(self.inner_cols), np.arange(self.inner_rows))
        points = np.zeros((self.inner_rows * self.inner_cols, 3), np.float32)
        points[:, 0] = xs.ravel() * self.square_m
        points[:, 1] = ys.ravel() * self.square_m
        return points


@dataclass(frozen=True)
class ChessboardView:
    """The chessboard found in one image: corners (N, 2) px and the edge width (px; small is sharp)."""

    corners_px: np.ndarray
    edge_width_px: float

    @property
    def is_sharp(self) -> bool:
        return self.edge_width_px <= MAX_EDGE_WIDTH_PX


def find_chessboard(image_bgr: np.ndarray, board: Chessboard) -> ChessboardView | None:
    """The chessboard's inner corners in an image, or None when it is not wholly visible."""
    grey = cv2.cvtColor(image_bgr, cv2.COLOR_BGR2GRAY) if image_bgr.ndim == 3 else image_bgr
    flags = cv2.CALIB_CB_NORMALIZE_IMAGE | cv2.CALIB_CB_EXHAUSTIVE | cv2.CALIB_CB_ACCURACY
    found, corners = cv2.findChessboardCornersSB(grey, board.pattern_size, flags=flags)
    if not found:
        return None
    edge_width_px = float(cv2.estimateChessboardSharpness(grey, board.pattern_size, corners)[0][0])
    return ChessboardView(corners.reshape(-1, 2).astype(np.float32), edge_width_px)


def is_new_view(view: ChessboardView, kept: list[ChessboardView], image_size_px: tuple[int, int]) -> bool:
    """True when the corners moved by a tenth of the image diagonal from every view kept so far."""
    diagonal_px = float(np.hypot(*image_size_px))
    return all(
        float(np.mean(np.linalg.norm(view.corners_px - other.corners_px, axis=1))) > 0.1 * diagonal_px for other in kept
    )


def coverage(views: list[ChessboardView], image_size_px: tuple[int, int]) -> float:
    """Share of the image's COVERAGE_CELLS x COVERAGE_CELLS cells that hold a corner of some view."""
    width, height = image_size_px
    touched = np.zeros((COVERAGE_CELLS, COVERAGE_CELLS), bool)
    for view in views:
        cells_x = np.clip((view.corners_px[:, 0] / width * COVERAGE_CELLS).astype(int), 0, COVERAGE_CELLS - 1)
        cells_y = np.clip((view.corners_px[:, 1] / height * COVERAGE_CELLS).astype(int), 0, COVERAGE_CELLS - 1)
        touched[cells_y, cells_x] = True
    return float(touched.mean())


def calibrate_camera(
    images_bgr: Iterable[np.ndarray], board: Chessboard, on_image: Callable[[int, int], None] | None = None
) -> CameraCalibration:
    """Intrinsics and distortion from chessboard images; CalibrationFailedError says why it refused.

    `on_image(images_looked_at, views_kept)` is called after each image (for a progress line)."""
    views: list[ChessboardView] = []
    image_size_px: tuple[int, int] | None = None
    missed = blurred = 0
    for looked_at, image in enumerate(images_bgr, start=1):
        size = (int(image.shape[1]), int(image.shape[0]))
        if image_size_px is not None and size != image_size_px:
            raise ValueError(f"calibration images differ in size ({size} vs {image_size_px}): use one camera mode")
        image_size_px = size
        view = find_chessboard(image, board)
        if view is None:
            missed += 1
        elif not view.is_sharp:
            blurred += 1
        else:
            views.append(view)
        if on_image is not None:
            on_image(looked_at, len(views))
    return calibrate_from_views(views, image_size_px or (0, 0), board, missed=missed, blurred=blurred)


def calibrate_from_views(
    views: list[ChessboardView], image_size_px: tuple[int, int], board: Chessboard, missed: int = 0, blurred: int = 0
) -> CameraCalibration:
    """Intrinsics from views already found and checked; missed/blurred counts only explain a refusal."""
    if len(views) < MIN_VIEWS:
        raise CalibrationFailedError(
            f"too few views: {len(views)} usable (need {MIN_VIEWS}); {missed} without the whole chessboard, "
            f"{blurred} blurred: show the whole board, hold it still, and tilt it in different directions"
        )
    covered = coverage(views, image_size_px)
    if covered < MIN_COVERAGE:
        raise CalibrationFailedError(
            f"poor coverage: the chessboard covered {covered:.0%} of the image (need {MIN_COVERAGE:.0%}): "
            "show it near the edges and corners of the picture too"
        )
    object_points = [board.object_points_m()] * len(views)
    image_points = [view.corners_px.reshape(-1, 1, 2) for view in views]
    error_px, matrix, distortion, _, _ = cv2.calibrateCamera(
        object_points, image_points, image_size_px, None, None, flags=cv2.CALIB_FIX_K3
    )
    log.info("camera calibrated from %d views: rms reprojection error %.3f px", len(views), error_px)
    if not error_px <= MAX_REPROJECTION_ERROR_PX:
        raise CalibrationFailedError(
            f"reprojection error {error_px:.2f} px is above {MAX_REPROJECTION_ERROR_PX} px: check that the chessboard "
            "is flat and its square size right, and drop blurred views"
        )
    return CameraCalibration(
        camera_matrix=matrix, distortion=distortion.ravel(), image_size_px=image_size_px, reprojection_error_px=error_px
    )


def parse_chessboard(text: str, square_mm: float) -> Chessboard:
    """A chessboard from "COLSxROWS" inner corners and the printed square size in millimetres."""
    try:
        cols, rows = (int(v) for v in text.lower().split("x"))
    except ValueError:
        shown = text if len(text) <= 40 else text[:37] + "..."
        raise ValueError(f"chessboard {shown!r}: give inner corners as COLSxROWS, e.g. 9x6") from None
    if not (3 <= cols <= 40 and 3 <= rows <= 40):
        raise ValueError(f"chessboard {cols}x{rows}: give between 3 and 40 inner corners each way")
    if not (math.isfinite(square_mm) and 1.0 <= square_mm <= 500.0):
        raise ValueError(f"--square-mm {square_mm}: give the printed square size in mm, between 1 and 500")
    return Chessboard(cols, rows, square_mm / 1000.0)


def collect_live_views(
    read_frame: Callable[[], np.ndarray],
    board: Chessboard,
    wanted: int,
    frame_limit: int,
    on_view: Callable[[int], None],
) -> tuple[list[ChessboardView], tuple[int, int]]:
    """Sharp, new chessboard views from a live camera until `wanted` are kept or `frame_limit` frames were read."""
    views: list[ChessboardView] = []
    size = (0, 0)
    for _ in range(frame_limit):
        frame = read_frame()
        size = (frame.shape[1], frame.shape[0])
        view = find_chessboard(frame, board)
        if view is not None and view.is_sharp and is_new_view(view, views, size):
            views.append(view)
            on_view(len(views))
            if len(views) >= wanted:
                break
    return views, size
