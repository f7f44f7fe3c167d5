"""Accept a board reading only when several frames in a row agree.

A hand in front of the board, a disc still falling down its column, motion blur: each changes the
reading for a frame or a few. The stabiliser keeps the last readings and hands one out only when the
last `frames_needed` of them show the same grid with the board found and every cell confident enough.
"""

from __future__ import annotations

from collections import deque

import numpy as np

from vision.reading import BoardReading

DEFAULT_FRAMES_NEEDED = 3
DEFAULT_MIN_CONFIDENCE = 0.6


class Stabiliser:
    """Feed readings with `update`; it returns a reading once it has been stable, else None."""

    def __init__(
        self, frames_needed: int = DEFAULT_FRAMES_NEEDED, min_confidence: float = DEFAULT_MIN_CONFIDENCE
    ) -> None:
        if frames_needed < 1:
            raise ValueError(f"frames_needed {frames_needed} must be at least 1")
        if not 0.0 <= min_confidence <= 1.0:
            raise ValueError(f"min_confidence {min_confidence} must be within 0..1")
        self.frames_needed = frames_needed
        self.min_confidence = min_confidence
        self._recent: deque[BoardReading] = deque(maxlen=frames_needed)

    def reset(self) -> None:
        """Forget the frames seen so far (after the arm moved, say)."""
        self._recent.clear()

    def is_usable(self, reading: BoardReading) -> bool:
        """A reading can count towards stability: board found and no cell below the confidence floor."""
        return reading.is_board_found and float(np.min(reading.confidence)) >= self.min_confidence

    def update(self, reading: BoardReading) -> BoardReading | None:
        """Add a frame's reading; return it when the last `frames_needed` usable readings agree, else None.

        An unusable reading (board not found, an unsure cell: a hand, a disc in flight) breaks the run.
        """
        if not self.is_usable(reading):
            self._recent.clear()
            return None
        if self._recent and not np.array_equal(self._recent[-1].grid, reading.grid):
            self._recent.clear()
        self._recent.append(reading)
        if len(self._recent) < self.frames_needed:
            return None
        return reading
