"""vision.stale_colours: the calibrated reading checked against the frame's own. Two readings that agree vouch for a
cell, but not where one of them gives its value no more than an even chance (a hole it could not prove empty)."""

from __future__ import annotations

import numpy as np

from vision.classify import Classification
from vision.hole_samples import from_weighted_lab_to_bgr, to_weighted_lab
from vision.stale_colours import checked_against_frame

RED_BGR, YELLOW_BGR = (40, 40, 200), (40, 200, 220)


def _lab(bgr) -> np.ndarray:
    return to_weighted_lab(np.array([[bgr]], np.uint8))[0, 0]


def _reading(colours, confidence: np.ndarray, score: float) -> Classification:
    grid = np.zeros((6, 7), np.int8)
    grid[0, 0], grid[0, 1] = 1, 2
    return Classification(grid, confidence, tuple(colours), [], score)


def test_agreeing_readings_raise_a_cell_only_where_neither_doubts_it() -> None:
    reference = (_lab(RED_BGR), _lab(YELLOW_BGR))
    brighter = tuple(_lab(np.clip(np.array(bgr) * 1.3, 0, 255)) for bgr in (RED_BGR, YELLOW_BGR))
    doubted = np.full((6, 7), 0.8)
    doubted[3, 3] = 0.5  # an empty hole the calibrated reading could not prove empty
    calibrated = _reading(reference, doubted, score=10.0)
    cold = _reading(brighter, np.full((6, 7), 0.95), score=5.0)
    checked = checked_against_frame(calibrated, cold, reference, lambda colours: calibrated)
    assert checked.confidence[3, 3] == 0.5, "a cell the kept reading doubts was vouched for"
    assert checked.confidence[2, 2] == 0.95, "where neither doubts it, the agreeing readings vouch"
    assert np.allclose(from_weighted_lab_to_bgr(checked.colours[0]), from_weighted_lab_to_bgr(reference[0]), atol=2)
