"""A picture of what was read, for a person to check: hole centres, disc classes, confidence, corners."""

from __future__ import annotations

import cv2
import numpy as np

from vision.geometry import hole_pitch_px
from vision.reading import BoardReading

EMPTY_BGR = (200, 200, 200)
CORNER_BGR = (255, 0, 255)
UNSURE_BGR = (0, 0, 255)
UNSURE_CONFIDENCE = 0.8


def draw_reading(image_bgr: np.ndarray, reading: BoardReading) -> np.ndarray:
    """A copy of the frame with the reading drawn on it (an unsure cell gets a red ring and its confidence)."""
    canvas = np.ascontiguousarray(image_bgr).copy()
    rows, cols = reading.grid.shape
    if reading.corners is None or reading.hole_centres_px is None:
        cv2.putText(canvas, "board not found", (10, 30), cv2.FONT_HERSHEY_SIMPLEX, 0.8, UNSURE_BGR, 2, cv2.LINE_AA)
        return canvas
    pitch = hole_pitch_px(reading.corners, (rows, cols))
    radius = max(2, int(round(0.22 * pitch)))
    thickness = max(1, int(round(pitch / 25)))
    font_scale = max(0.3, pitch / 90)
    for row in range(rows):
        for column in range(cols):
            x, y = (int(round(v)) for v in reading.hole_centres_px[row, column])
            value = int(reading.grid[row, column])
            if value and value <= len(reading.colours_bgr):
                cv2.circle(canvas, (x, y), radius, reading.colours_bgr[value - 1], -1, cv2.LINE_AA)
                cv2.circle(canvas, (x, y), radius, (0, 0, 0), thickness, cv2.LINE_AA)
            else:
                cv2.circle(canvas, (x, y), max(2, radius // 3), EMPTY_BGR, -1, cv2.LINE_AA)
            confidence = float(reading.confidence[row, column])
            if confidence < UNSURE_CONFIDENCE:
                cv2.circle(canvas, (x, y), radius + 2 * thickness, UNSURE_BGR, thickness, cv2.LINE_AA)
                cv2.putText(
                    canvas,
                    f"{confidence:.2f}",
                    (x - radius, y - radius - 2 * thickness),
                    cv2.FONT_HERSHEY_SIMPLEX,
                    font_scale,
                    UNSURE_BGR,
                    max(1, thickness // 2),
                    cv2.LINE_AA,
                )
    corners = np.rint(reading.corners).astype(np.int32)
    cv2.polylines(canvas, [corners.reshape(-1, 1, 2)], True, CORNER_BGR, thickness, cv2.LINE_AA)
    return canvas
