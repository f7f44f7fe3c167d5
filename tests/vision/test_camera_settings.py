"""Fixing a webcam's exposure and white balance (issue 37 item 2), with a capture that records the settings it
was given and refuses those it does not have (there is no webcam on these machines)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration import store
from calibration.store import Setup
from vision.cameras import SETTLE_FRAMES_MAX, CameraSettings, OpenCVCamera, fix_settings


class RecordingCapture:
    """A webcam as OpenCV shows one: its automatic exposure moves from `exposure` towards `settles_at` over the
    first `settling_frames` frames, and the frames brighten with it, until auto exposure is turned off. Records every
    setting it is given; `refuses` lists the properties it rejects."""

    def __init__(
        self,
        refuses: tuple[int, ...] = (),
        exposure: float = 156.0,
        white_balance_k: float = 4600.0,
        settles_at: float | None = None,
        settling_frames: int = 0,
    ):
        self.refuses = refuses
        self.values = {cv2.CAP_PROP_EXPOSURE: exposure, cv2.CAP_PROP_WB_TEMPERATURE: white_balance_k}
        self.given: list[tuple[int, float]] = []
        self.start, self.settles_at, self.settling_frames = exposure, settles_at or exposure, settling_frames
        self.frames_read = 0
        self.is_auto = True
        self.released = False

    def isOpened(self) -> bool:  # noqa: N802 (OpenCV's name)
        return True

    def read(self) -> tuple[bool, np.ndarray]:
        self.frames_read += 1
        if self.is_auto:
            done = min(self.frames_read / max(self.settling_frames, 1), 1.0)
            self.values[cv2.CAP_PROP_EXPOSURE] = self.start + done * (self.settles_at - self.start)
        return True, np.full((48, 64, 3), min(self.values[cv2.CAP_PROP_EXPOSURE], 255.0), np.uint8)

    def release(self) -> None:
        self.released = True

    def get(self, prop: int) -> float:
        return self.values.get(prop, 0.0)

    def set(self, prop: int, value: float) -> bool:
        if prop in self.refuses:
            return False
        self.given.append((prop, value))
        self.values[prop] = value
        if prop == cv2.CAP_PROP_AUTO_EXPOSURE:
            self.is_auto = False
        return True


def test_the_settled_values_are_held_with_auto_modes_off() -> None:
    capture = RecordingCapture()
    held, refused = fix_settings(capture)
    assert held == CameraSettings(exposure=156.0, white_balance_k=4600.0) and refused == []
    assert (cv2.CAP_PROP_AUTO_EXPOSURE, 0.25) in capture.given and (cv2.CAP_PROP_AUTO_WB, 0.0) in capture.given
    assert (cv2.CAP_PROP_EXPOSURE, 156.0) in capture.given and (cv2.CAP_PROP_WB_TEMPERATURE, 4600.0) in capture.given


def test_calibrated_settings_are_applied_again() -> None:
    capture = RecordingCapture()
    wanted = CameraSettings(exposure=80.0, white_balance_k=5200.0)
    held, refused = fix_settings(capture, wanted)
    assert held == wanted and refused == []
    assert capture.get(cv2.CAP_PROP_EXPOSURE) == 80.0 and capture.get(cv2.CAP_PROP_WB_TEMPERATURE) == 5200.0


def test_a_camera_that_refuses_gets_one_sentence_per_setting() -> None:
    capture = RecordingCapture(refuses=(cv2.CAP_PROP_AUTO_WB,))
    held, refused = fix_settings(capture, CameraSettings(exposure=80.0, white_balance_k=5200.0))
    assert held == CameraSettings(exposure=80.0, white_balance_k=None)
    assert refused == ["the camera does not let its white balance be fixed: a change of light will be followed instead"]
    capture = RecordingCapture(refuses=(cv2.CAP_PROP_AUTO_EXPOSURE, cv2.CAP_PROP_AUTO_WB))
    held, refused = fix_settings(capture)
    assert held == CameraSettings() and len(refused) == 2 and all("\n" not in sentence for sentence in refused)


def test_the_camera_waits_for_its_auto_exposure_to_settle_then_holds_it() -> None:
    capture = RecordingCapture(exposure=40.0, settles_at=150.0, settling_frames=30)
    camera = OpenCVCamera(0, capture=capture)
    assert 30 <= camera.settled_after < SETTLE_FRAMES_MAX, "it read frames until the brightness held still"
    assert camera.settings.exposure == pytest.approx(150.0) and camera.refusals == []
    assert (cv2.CAP_PROP_EXPOSURE, pytest.approx(150.0)) in capture.given
    first = camera.read().mean()
    assert camera.read().mean() == first, "with auto exposure off, the frames keep their brightness"
    camera.close()
    assert capture.released


def test_the_calibrated_settings_are_applied_at_play_without_waiting() -> None:
    capture = RecordingCapture(exposure=40.0, settles_at=150.0, settling_frames=30)
    camera = OpenCVCamera(0, settings=CameraSettings(exposure=90.0, white_balance_k=5000.0), capture=capture)
    assert camera.settled_after < 30 and camera.settings == CameraSettings(exposure=90.0, white_balance_k=5000.0)
    assert capture.get(cv2.CAP_PROP_EXPOSURE) == 90.0 and capture.get(cv2.CAP_PROP_WB_TEMPERATURE) == 5000.0


def test_a_camera_that_refuses_still_gives_frames_and_says_so_once() -> None:
    capture = RecordingCapture(refuses=(cv2.CAP_PROP_AUTO_EXPOSURE,))
    camera = OpenCVCamera(0, settings=CameraSettings(exposure=90.0), capture=capture)
    assert camera.settings == CameraSettings(exposure=None, white_balance_k=4600.0)
    assert camera.refusals == [
        "the camera does not let its exposure be fixed: a change of light will be followed instead"
    ]
    assert camera.read().shape == (48, 64, 3)


def test_the_settings_are_saved_in_the_calibration_file_and_read_back(tmp_path) -> None:
    path = store.save(Setup(camera_settings=CameraSettings(exposure=-6.0, white_balance_k=4600.0)), tmp_path / "s.toml")
    assert "[camera_settings]" in path.read_text() and "white_balance_k = 4600.0" in path.read_text()
    assert store.load(path).camera_settings == CameraSettings(exposure=-6.0, white_balance_k=4600.0)
    path = store.save(Setup(camera_settings=CameraSettings(exposure=80.0)), path)
    assert store.load(path).camera_settings == CameraSettings(exposure=80.0)
    path.write_text(path.read_text().replace("exposure = 80.0", "white_balance_k = 99999"))
    with pytest.raises(store.CalibrationError, match="white_balance_k must be 1000.0 to 15000.0 K"):
        store.load(path)
