"""Accept a board reading only when several frames in a row agree; say why when none does.

A hand in front of the board, a disc still falling down its column, motion blur: each changes the
reading for a frame or a few. The stabiliser keeps the last readings and hands one out only when the
last `frames_needed` of them show the same grid with the board found and every cell confident enough,
or the same columns covered by something in front of the board (the game then waits for it to go:
vision.moves' COVERED). When none is handed out, `complaint` is the sentence for the person.
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
        self.complaint: str | None = None

    def reset(self) -> None:
        """Forget the frames seen so far (after the arm moved, say)."""
        self._recent.clear()
        self.complaint = None

    def is_usable(self, reading: BoardReading) -> bool:
        """A reading can count towards stability: board found, and something covering it or no cell below the
        confidence floor."""
        if not reading.is_board_found:
            return False
        return bool(reading.covered_columns) or float(np.min(reading.confidence)) >= self.min_confidence

    def update(self, reading: BoardReading) -> BoardReading | None:
        """Add a frame's reading; return it when the last `frames_needed` usable readings agree, else None.

        An unusable reading (board not found, an unsure cell: a disc in flight, dim light) breaks the run and
        becomes the `complaint`. Covered readings agree when the same columns are covered.
        """
        if not self.is_usable(reading):
            self._recent.clear()
            self.complaint = _complaint(reading, self.min_confidence)
            return None
        if self._recent and _state(self._recent[-1]) != _state(reading):
            self._recent.clear()
        self._recent.append(reading)
        if len(self._recent) < self.frames_needed:
            return None
        self.complaint = None
        return reading


def _state(reading: BoardReading) -> tuple:
    """What must stay the same over the frames: the covered columns, or with none the grid."""
    if reading.covered_columns:
        return ("covered", tuple(reading.covered_columns))
    return ("grid", reading.grid.tobytes())


def _complaint(reading: BoardReading, min_confidence: float) -> str:
    """The sentence for the person about an unusable reading (1-based columns and rows)."""
    if not reading.is_board_found:
        why = reading.problems[0] if reading.problems else "the board is not in view"
        return f"I cannot see the board ({why}): please keep it in the camera's view, uncovered."
    unsure = np.argwhere(reading.confidence < min_confidence)
    cells = ", ".join(f"column {column + 1} row {row + 1}" for row, column in unsure[:3])
    more = f" and {len(unsure) - 3} more" if len(unsure) > 3 else ""
    why = f" ({'; '.join(reading.problems)})" if reading.problems else ""
    return f"I am not sure what the board shows at {cells}{more}{why}: is the board well lit and in view?"
