"""Calibration of one setup: camera intrinsics, board registration, disc colours, drop poses.

`calibration.store` is the file format (it imports nothing of the project, so any layer may read a
calibration); the other modules are the procedures that measure each section.
"""

from calibration.store import (
    BoardCalibration,
    CalibrationError,
    CameraCalibration,
    ColourCalibration,
    ArmPose,
    Setup,
    default_path,
    load,
    save,
)

__all__ = [
    "BoardCalibration",
    "CalibrationError",
    "CameraCalibration",
    "ColourCalibration",
    "ArmPose",
    "Setup",
    "default_path",
    "load",
    "save",
]
