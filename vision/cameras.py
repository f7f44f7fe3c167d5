"""Frame sources behind one interface: an OpenCV camera (index or URL), a video file, a folder of images, a still
frame, and the simulated camera. Each is a context manager whose `read()` returns one BGR frame.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import cv2
import numpy as np

from calibration.store import CameraSettings
from calibration.store.sections import MAX_WHITE_BALANCE_K, MIN_WHITE_BALANCE_K

log = logging.getLogger(__name__)

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff")
WARMUP_FRAMES = 5
# A webcam's automatic exposure and white balance have settled when the frame's mean brightness has moved less than
# SETTLED_CHANGE (a share) over SETTLED_FRAMES frames; after SETTLE_FRAMES_MAX frames (a few seconds) what it has
# then is held.
SETTLED_FRAMES = 5
SETTLED_CHANGE = 0.02
SETTLE_FRAMES_MAX = 90


@runtime_checkable
class Camera(Protocol):
    """A source of BGR frames (np.uint8, (H, W, 3))."""

    def read(self) -> np.ndarray: ...

    def close(self) -> None: ...

    def __enter__(self) -> Camera: ...

    def __exit__(self, *exc_info: object) -> None: ...


class _ClosingContext:
    def __enter__(self):  # type: ignore[no-untyped-def]
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Release the source (nothing to release by default)."""


class SettingsCapture(Protocol):
    """What fixing the settings needs of a capture (cv2.VideoCapture has it)."""

    def get(self, prop: int) -> float: ...

    def set(self, prop: int, value: float) -> bool: ...


class Capture(SettingsCapture, Protocol):
    """What OpenCVCamera needs of a capture: cv2.VideoCapture, or a stand-in with its methods (tests)."""

    def isOpened(self) -> bool: ...  # noqa: N802 (OpenCV's name)

    def read(self) -> tuple[bool, np.ndarray | None]: ...

    def release(self) -> None: ...


# V4L2 through OpenCV takes 0.25 for manual exposure, other back ends 0 or 1: each is tried in turn.
MANUAL_EXPOSURE_MODES = (0.25, 1.0, 0.0)
AUTO_WHITE_BALANCE_OFF = 0.0


def fix_settings(capture: SettingsCapture, wanted: CameraSettings | None = None) -> tuple[CameraSettings, list[str]]:
    """Turn off auto exposure and auto white balance and hold `wanted` (from calibration), or for what it leaves
    None the values the camera has settled on; returns the settings held and a sentence for each the camera refused
    (the reader then follows drifting light on its own: vision.stale_colours, the game's colour model)."""
    exposure, kelvin = capture.get(cv2.CAP_PROP_EXPOSURE), capture.get(cv2.CAP_PROP_WB_TEMPERATURE)
    settled = CameraSettings(  # 0 (or a temperature no webcam has) is a driver that does not report it
        exposure=exposure if exposure and math.isfinite(exposure) else None,
        white_balance_k=kelvin if MIN_WHITE_BALANCE_K <= kelvin <= MAX_WHITE_BALANCE_K else None,
    )
    wanted = wanted or CameraSettings()
    target = CameraSettings(
        exposure=settled.exposure if wanted.exposure is None else wanted.exposure,
        white_balance_k=settled.white_balance_k if wanted.white_balance_k is None else wanted.white_balance_k,
    )
    holds_exposure = any(capture.set(cv2.CAP_PROP_AUTO_EXPOSURE, mode) for mode in MANUAL_EXPOSURE_MODES) and (
        target.exposure is None or capture.set(cv2.CAP_PROP_EXPOSURE, target.exposure)
    )
    holds_white_balance = capture.set(cv2.CAP_PROP_AUTO_WB, AUTO_WHITE_BALANCE_OFF) and (
        target.white_balance_k is None or capture.set(cv2.CAP_PROP_WB_TEMPERATURE, target.white_balance_k)
    )
    refused = [
        f"the camera does not let its {name} be fixed: a change of light will be followed instead"
        for name, held in (("exposure", holds_exposure), ("white balance", holds_white_balance))
        if not held
    ]
    held = CameraSettings(
        exposure=target.exposure if holds_exposure else None,
        white_balance_k=target.white_balance_k if holds_white_balance else None,
    )
    return held, refused


class OpenCVCamera(_ClosingContext):
    """A webcam by index (0, 1, ...) or a stream URL, with exposure and white balance fixed where it allows.

    Fixing matters: auto exposure and auto white balance change the disc colours between frames. `settings`
    (from calibration) are applied; without them the values the camera settles on in its first frames are held.
    `settings` and `refusals` then say what is held and what the camera refused (one sentence each).
    `capture` stands in for cv2.VideoCapture(source) (a test's recording capture).
    Raises ConnectionError when the camera cannot be opened.
    """

    def __init__(
        self,
        source: int | str = 0,
        width_px: int | None = None,
        height_px: int | None = None,
        lock_exposure: bool = True,
        settings: CameraSettings | None = None,
        capture: Capture | None = None,
    ) -> None:
        self.source = source
        self._capture = capture if capture is not None else cv2.VideoCapture(source)
        if not self._capture.isOpened():
            self._capture.release()
            raise ConnectionError(
                f"camera {source!r} could not be opened: check that it is plugged in and not used by another program"
            )
        if width_px:
            self._capture.set(cv2.CAP_PROP_FRAME_WIDTH, width_px)
        if height_px:
            self._capture.set(cv2.CAP_PROP_FRAME_HEIGHT, height_px)
        self.settings, self.refusals, self.settled_after = CameraSettings(), [], 0
        if not lock_exposure:
            return
        self.settled_after = self._settle() if settings is None or settings.is_empty else self._warm_up()
        self.settings, self.refusals = fix_settings(self._capture, settings)
        for refusal in self.refusals:
            log.warning("camera %r: %s", self.source, refusal)

    def _warm_up(self) -> int:
        for _ in range(WARMUP_FRAMES):
            self._capture.read()
        return WARMUP_FRAMES

    def _settle(self) -> int:
        """Read frames until the automatic exposure and white balance have settled; how many were read."""
        brightness: list[float] = []
        for count in range(1, SETTLE_FRAMES_MAX + 1):
            ok, frame = self._capture.read()
            if ok and frame is not None:
                brightness.append(float(np.asarray(frame)[::8, ::8].mean()))
            recent = brightness[-SETTLED_FRAMES:]
            is_steady = len(recent) == SETTLED_FRAMES and max(recent) - min(recent) <= SETTLED_CHANGE * max(recent)
            if count >= WARMUP_FRAMES and is_steady:
                return count
        return SETTLE_FRAMES_MAX

    def read(self) -> np.ndarray:
        ok, frame = self._capture.read()
        if not ok or frame is None:
            raise ConnectionError(f"camera {self.source!r} gave no frame: check the cable or the stream URL")
        return frame

    def close(self) -> None:
        self._capture.release()


class StreamCamera(_ClosingContext):
    """A camera streamed over the network (MJPEG, RTSP, ...): its frames are taken as they come, on a thread, and
    `read()` gives the newest one not given before.

    A stream queues frames in its socket and in OpenCV's buffer: read one by one, a game would look at the board
    as it was seconds ago (its disc not there yet). A stream that sends nothing for `stall_s` is a ConnectionError.
    """

    def __init__(self, url: str, stall_s: float = 10.0) -> None:
        self.source, self.stall_s = url, stall_s
        self._capture = cv2.VideoCapture(url)
        if not self._capture.isOpened():
            self._capture.release()
            raise ConnectionError(f"camera {url!r} could not be opened: check the stream URL and the network")
        self._newest = threading.Condition()
        self._frame: np.ndarray | None = None
        self._version = self._given = 0
        self._running = True
        self._thread = threading.Thread(target=self._take_frames, name="c4robot-stream", daemon=True)
        self._thread.start()

    def _take_frames(self) -> None:
        """The thread's loop; it alone touches the capture, and releases it when told to stop."""
        try:
            while self._running:
                ok, frame = self._capture.read()
                if not ok or frame is None:
                    time.sleep(0.05)
                    continue
                with self._newest:
                    self._frame, self._version = frame, self._version + 1
                    self._newest.notify_all()
        finally:
            self._capture.release()

    def read(self) -> np.ndarray:
        with self._newest:
            if not self._newest.wait_for(lambda: self._version > self._given, self.stall_s):
                raise ConnectionError(
                    f"camera {self.source!r} sent no frame for {self.stall_s:.0f} s: the stream stalled; check the "
                    "camera and the network"
                )
            self._given = self._version
            return self._frame

    def close(self) -> None:
        """Stop taking frames. A read blocked on a silent stream is not waited for (releasing the capture under it
        would hang): the thread releases it once the read returns, or ends with the process."""
        self._running = False
        self._thread.join(timeout=1.0)


class VideoFileCamera(_ClosingContext):
    """Frames of a video file in order; EOFError at the end (`loop=True` starts again)."""

    def __init__(self, path: str | Path, loop: bool = False) -> None:
        self.path = Path(path)
        if not self.path.is_file():
            raise FileNotFoundError(f"video {self.path} does not exist: give the path of a video file")
        self.loop = loop
        self._capture = cv2.VideoCapture(str(self.path))
        if not self._capture.isOpened():
            self._capture.release()
            raise OSError(f"video {self.path} could not be opened: give a video OpenCV can decode (mp4, avi)")

    def read(self) -> np.ndarray:
        ok, frame = self._capture.read()
        if not ok and self.loop:
            self._capture.set(cv2.CAP_PROP_POS_FRAMES, 0)
            ok, frame = self._capture.read()
        if not ok or frame is None:
            raise EOFError(f"video {self.path} has no more frames")
        return frame

    def close(self) -> None:
        self._capture.release()


class ImageFolderCamera(_ClosingContext):
    """The images of a folder in name order, one per read; EOFError after the last (`loop=True` starts again)."""

    def __init__(self, folder: str | Path, loop: bool = False) -> None:
        self.folder = Path(folder)
        if not self.folder.is_dir():
            raise FileNotFoundError(f"image folder {self.folder} does not exist: give a folder of photos")
        self.paths = sorted(p for p in self.folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not self.paths:
            raise FileNotFoundError(f"image folder {self.folder} holds no images: add .png or .jpg files")
        self.loop = loop
        self._next = 0

    def read(self) -> np.ndarray:
        if self._next >= len(self.paths):
            if not self.loop:
                raise EOFError(f"image folder {self.folder} has no more images")
            self._next = 0
        path = self.paths[self._next]
        self._next += 1
        frame = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if frame is None:
            raise OSError(f"image {path} could not be read: remove it or replace it with a PNG or JPEG")
        return frame


class StillCamera(_ClosingContext):
    """One frame, again at every read, until another is shown: a photo as a camera (the benches, tests)."""

    def __init__(self, frame: np.ndarray) -> None:
        self.frame = frame

    def show(self, frame: np.ndarray) -> None:
        self.frame = frame

    def read(self) -> np.ndarray:
        return self.frame


class SimCamera(_ClosingContext):
    """The simulated world's camera: any object with `render_camera() -> BGR frame` (a `sim.World`).

    The world is owned by the caller: closing the camera does not close the world.
    """

    def __init__(self, world: Any) -> None:
        if not callable(getattr(world, "render_camera", None)):
            raise TypeError(f"{type(world).__name__} has no render_camera(): give a sim.World")
        self.world = world

    def read(self) -> np.ndarray:
        return np.ascontiguousarray(self.world.render_camera())


def open_camera(source: int | str | Path, settings: CameraSettings | None = None) -> Camera:
    """A camera for a CLI-style source: an index ('0'), a folder, a video file or a stream URL; a webcam holds
    `settings` (from calibration), or else the exposure and white balance it settles on."""
    text = str(source)
    if text.isdigit():
        return OpenCVCamera(int(text), settings=settings)
    path = Path(text)
    if path.is_dir():
        return ImageFolderCamera(path)
    if path.is_file():
        return VideoFileCamera(path)
    if "://" in text:
        return StreamCamera(text)
    raise FileNotFoundError(f"camera source {text} is neither an index, a folder, a video file nor a URL")
