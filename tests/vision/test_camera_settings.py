"""Fixing a webcam's exposure and white balance (issue 37 item 2), with a capture that records the settings it
was given and refuses those it does not have (there is no webcam on these machines)."""

from __future__ import annotations

import cv2

from vision.cameras import CameraSettings, fix_settings


class RecordingCapture:
    """Reports settled auto values and records every setting; `refuses` lists the properties it rejects."""

    def __init__(self, refuses: tuple[int, ...] = (), exposure: float = 156.0, white_balance_k: float = 4600.0):
        self.refuses = refuses
        self.values = {cv2.CAP_PROP_EXPOSURE: exposure, cv2.CAP_PROP_WB_TEMPERATURE: white_balance_k}
        self.given: list[tuple[int, float]] = []

    def get(self, prop: int) -> float:
        return self.values.get(prop, 0.0)

    def set(self, prop: int, value: float) -> bool:
        if prop in self.refuses:
            return False
        self.given.append((prop, value))
        self.values[prop] = value
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
