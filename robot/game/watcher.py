"""The game's eyes: camera frames in, stable readings out (`BoardWatcher`), or the sentence that says why none came.

Readings are in players' values once the game compares them (vision.moves); here they are only made steady
(vision.Stabiliser): a reading is handed out when several frames agree, and when none does within the
timeout, `BoardUnseenError` carries what to tell the person (the board out of view, something in front of it,
cells the reader is unsure of and why).
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from vision import BoardReading, Stabiliser, read
from vision.cameras import Camera


class BoardUnseenError(TimeoutError):
    """The camera gave no stable reading of the board in time; the message is the sentence for the person
    (board out of frame, unsure cells and why: dim light, colours alike)."""


class BoardWatcher:
    """Turns camera frames into stable readings in players' values (1 the first player, 2 the second).

    `colours` are the reference disc colours (BGR) of the first and the second player, from calibration.
    `frame_observer` (set by `Game.watch`) is called with each frame and its reading (a live view, a recording).
    """

    def __init__(
        self,
        camera: Camera,
        shape: tuple[int, int],
        corners: np.ndarray | None,
        colours: tuple[tuple[float, float, float], tuple[float, float, float]] | None,
        stable_frames: int = 3,
    ) -> None:
        self.camera = camera
        self.shape = shape
        self.corners = corners
        self.colours = colours
        self.stabiliser = Stabiliser(frames_needed=stable_frames)
        self.last_frame: np.ndarray | None = None
        self.last_reading: BoardReading | None = None
        self.frame_observer: Callable[[np.ndarray, BoardReading], None] | None = None

    def look(self, timeout_s: float) -> BoardReading:
        """The next reading that stays the same over several frames. Raises BoardUnseenError after `timeout_s`."""
        self.stabiliser.reset()
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            frame = self.camera.read()
            reading = read(frame, self.shape, self.corners, self.colours)
            self.last_frame, self.last_reading = frame, reading
            if self.frame_observer is not None:
                self.frame_observer(frame, reading)
            stable = self.stabiliser.update(reading)
            if stable is not None:
                return stable
        why = self.stabiliser.complaint or f"I have seen no steady view of the board for {timeout_s:.0f} s."
        raise BoardUnseenError(why)
