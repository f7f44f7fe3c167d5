"""The camera picture with what vision read drawn on it, as JPEG, made on its own thread.

The game's thread only drops the newest (frame, reading) into a slot; this thread draws the overlay
(vision.overlay: holes, discs read, unsure cells, plus the reading's problems such as a hand in front of
the board) and encodes, at most `max_fps` times a second and only while someone watches the stream. In the
simulation a film (sim.video.Film) also hands it a wide view of the table, drawn beside the webcam, so the
arm is seen moving as the recorded video shows it.
"""

from __future__ import annotations

import threading
import time

import cv2
import numpy as np

from robot.view.slot import LatestSlot
from vision import BoardReading
from vision.overlay import UNSURE_BGR, draw_reading

JPEG_QUALITY = 75
WIDE_LABEL = "the table: the arm and the board"  # the wide view is not what the robot sees

# A picture to encode: the webcam frame, vision's reading of the board (None before the first), the wide view and
# what it is (the sim's table camera, or the real arm drawn from its joint readings).
Picture = tuple[np.ndarray, BoardReading | None, np.ndarray | None, str]


def overlay_jpeg(
    frame: np.ndarray, reading: BoardReading | None, wide: np.ndarray | None = None, wide_label: str = WIDE_LABEL
) -> bytes:
    """The frame with the reading and its problems drawn on it, the wide view (if any) beside it, JPEG-encoded."""
    canvas = frame.copy() if reading is None else draw_reading(frame, reading)
    for index, problem in enumerate([] if reading is None else reading.problems[:3]):
        y = canvas.shape[0] - 12 - 22 * index
        cv2.putText(canvas, problem[:70], (8, y), cv2.FONT_HERSHEY_SIMPLEX, 0.5, UNSURE_BGR, 1, cv2.LINE_AA)
    if wide is not None:
        height = canvas.shape[0]
        table = cv2.resize(wide, (round(wide.shape[1] * height / wide.shape[0]), height))
        (text_w, _), _ = cv2.getTextSize(wide_label, cv2.FONT_HERSHEY_SIMPLEX, 0.5, 1)
        cv2.rectangle(table, (0, height - 28), (text_w + 16, height), (32, 32, 32), -1)
        cv2.putText(table, wide_label, (8, height - 9), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (255, 255, 255), 1, cv2.LINE_AA)
        canvas = np.hstack([canvas, table])
    ok, encoded = cv2.imencode(".jpg", canvas, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
    if not ok:
        raise RuntimeError("OpenCV could not encode the camera frame as JPEG")
    return encoded.tobytes()


class CameraStream:
    """Newest frames in, newest overlay JPEGs out (`jpegs`); `watchers` counts the open MJPEG streams."""

    def __init__(self, max_fps: float = 10.0) -> None:
        self.frames: LatestSlot[Picture] = LatestSlot()
        self.jpegs: LatestSlot[bytes] = LatestSlot()
        self.min_interval_s = 1.0 / max_fps
        self.watchers = 0
        self._reading: BoardReading | None = None
        self._webcam: np.ndarray | None = None
        self._wide: np.ndarray | None = None
        self._wide_label = WIDE_LABEL
        self._watchers_lock = threading.Lock()
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._encode_forever, name="view-jpeg", daemon=True)
        self._thread.start()

    def offer(self, frame: np.ndarray, reading: BoardReading) -> None:
        """Called on the game's thread: keep a reference to the newest frame and return."""
        self._reading, self._webcam = reading, frame
        self.frames.put((frame, reading, self._wide, self._wide_label))

    def offer_film(self, webcam: np.ndarray | None, wide: np.ndarray, label: str = WIDE_LABEL) -> None:
        """Called on the simulation's thread: the webcam (None: the game's last frame) and the wide view of the
        table (`label` says what it is), drawn with the last reading."""
        self._wide, self._wide_label = wide, label
        webcam = self._webcam = self._webcam if webcam is None else webcam
        if webcam is not None:
            self.frames.put((webcam, self._reading, wide, label))

    def count_watcher(self, delta: int) -> None:
        """An MJPEG stream opened (+1) or closed (-1): frames are encoded only while someone watches."""
        with self._watchers_lock:
            self.watchers += delta

    def snapshot_jpeg(self) -> bytes | None:
        """The newest frame with its overlay, encoded now on the caller's thread (None before the first frame)."""
        item = self.frames.get()[1]
        return None if item is None else overlay_jpeg(*item)

    def _encode_forever(self) -> None:
        version = 0
        while not self._stopping.is_set():
            newer, item = self.frames.wait_newer(version, timeout_s=0.5)
            if item is None or newer == version or self.watchers == 0:
                continue
            version = newer
            started = time.monotonic()
            self.jpegs.put(overlay_jpeg(*item))
            self._stopping.wait(max(0.0, self.min_interval_s - (time.monotonic() - started)))

    def close(self) -> None:
        self._stopping.set()
        self._thread.join(timeout=2.0)
