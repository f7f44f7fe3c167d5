"""Calibration of one setup: camera intrinsics, board registration, disc colours, drop poses.

`calibration.store` is the file format (it imports nothing of the project, so any layer may read a
calibration); the other modules are the procedures that measure each section. `sim_setup(world)`
is the exact calibration of a simulated world (imported lazily: it needs the sim and the arm layer).
"""

from typing import Any

from calibration.store import (
    ArmPose,
    BoardCalibration,
    CalibrationError,
    CameraCalibration,
    CameraSettings,
    ColourCalibration,
    Setup,
    default_path,
    load,
    save,
)


def sim_setup(world: Any, robot_player: int | None = None) -> Setup:
    """The exact calibration of a `sim.World` (by default the robot plays the discs it has in `play --sim`).

    See `calibration.sim_truth`.
    """
    from calibration.sim_truth import SIM_ROBOT_DISCS
    from calibration.sim_truth import sim_setup as exact_setup

    return exact_setup(world, SIM_ROBOT_DISCS if robot_player is None else robot_player)


__all__ = [
    "ArmPose",
    "BoardCalibration",
    "CalibrationError",
    "CameraCalibration",
    "CameraSettings",
    "ColourCalibration",
    "Setup",
    "default_path",
    "load",
    "save",
    "sim_setup",
]
