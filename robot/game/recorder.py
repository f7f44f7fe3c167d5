"""`--record DIR`: each move's camera frame with the vision overlay as a PNG, and a video of the game."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from vision import BoardReading
from vision.overlay import draw_reading

VIDEO_FPS = 4.0


class Recorder:
    """Writes `move_NN.png` per move and `game.mp4` of every frame the game looked at."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.folder.mkdir(parents=True, exist_ok=True)
        self._video: cv2.VideoWriter | None = None

    def on_frame(self, frame_bgr: np.ndarray, reading: BoardReading) -> None:
        """Add a frame (with what vision saw drawn on it) to the video."""
        image = draw_reading(frame_bgr, reading)
        if self._video is None:
            height, width = image.shape[:2]
            path = str(self.folder / "game.mp4")
            self._video = cv2.VideoWriter(path, cv2.VideoWriter_fourcc(*"mp4v"), VIDEO_FPS, (width, height))
            if not self._video.isOpened():
                raise OSError(f"cannot write a video to {path}: check that the folder is writable")
        self._video.write(image)

    def save_move(self, move_number: int, frame_bgr: np.ndarray, reading: BoardReading) -> Path:
        """The frame that confirmed move `move_number` (1-based), with the overlay."""
        path = self.folder / f"move_{move_number:02d}.png"
        if not cv2.imwrite(str(path), draw_reading(frame_bgr, reading)):
            raise OSError(f"cannot write {path}: check that the folder is writable")
        return path

    def close(self) -> None:
        if self._video is not None:
            self._video.release()
            self._video = None
