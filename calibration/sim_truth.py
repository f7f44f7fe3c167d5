"""A ready calibration of a simulated world, from its ground truth, so `c4robot play --sim` needs no steps.

Everything a calibration measures is known exactly in the simulation: the camera's intrinsics (no
lens distortion), the hole centres in the image, the slot entries and the dispenser in the arm's base
frame, and the disc colours. `sim_setup(world)` gathers them into a `Setup`; the `calibrate ... --sim`
steps measure the same things through the camera and the arm instead, and are checked against it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from calibration.board import board_pose, corners_of
from calibration.store import ArmPose, BoardCalibration, CameraCalibration, ColourCalibration, Setup


def sim_camera(world: Any) -> CameraCalibration:
    """The sim camera's exact intrinsics: a pinhole without distortion."""
    return CameraCalibration(
        camera_matrix=np.asarray(world.camera_intrinsics(), float),
        distortion=(0.0,) * 5,
        image_size_px=(world.camera.width_px, world.camera.height_px),
        reprojection_error_px=0.0,
    )


def sim_board(world: Any, camera: CameraCalibration) -> BoardCalibration:
    """The board's true hole centres in the image, and its pose fitted to them."""
    geometry = world.config.board
    centres = np.asarray(world.hole_centres_px(), float)
    rvec, tvec = board_pose(centres, camera, geometry.column_pitch_m, geometry.row_pitch_m)
    return BoardCalibration(
        rows=geometry.rows, cols=geometry.columns, corners_px=corners_of(centres),
        column_pitch_m=geometry.column_pitch_m, row_pitch_m=geometry.row_pitch_m,
        disc_plane_depth_m=-geometry.front_face_y_m, rvec_rad=rvec, tvec_m=tvec,
    )


def sim_colours(world: Any, robot_player: int) -> ColourCalibration:
    """The players' disc colours as letters and BGR references; the robot plays `robot_player` (1 or 2)."""
    from sim.config import DISC_COLOURS

    if robot_player not in (1, 2):
        raise ValueError(f"robot player {robot_player}: use 1 or 2")

    def letter(rgba: tuple[float, ...]) -> str:
        return min(DISC_COLOURS, key=lambda name: float(np.linalg.norm(np.subtract(DISC_COLOURS[name][:3], rgba[:3]))))

    def bgr(rgba: tuple[float, ...]) -> tuple[float, float, float]:
        return tuple(round(255.0 * value, 1) for value in rgba[2::-1])  # type: ignore[return-value]

    robot, person = world.config.discs.colours[robot_player - 1], world.config.discs.colours[2 - robot_player]
    return ColourCalibration(letter(robot), letter(person), bgr(robot), bgr(person))


def sim_arm_poses(world: Any) -> tuple[tuple[ArmPose, ...], ArmPose]:
    """Every column's slot entry and the dispenser's pick pose, in the arm's base frame."""
    from robot.drivers.sim import sim_chain, sim_workcell

    workcell = sim_workcell(world, sim_chain(world))

    def arm_pose(tool_pose: Any) -> ArmPose:
        return ArmPose(*tool_pose.position_m, tool_pose.yaw_rad)

    return tuple(arm_pose(drop) for drop in workcell.drops), arm_pose(workcell.pick)


def sim_setup(world: Any, robot_player: int = 1) -> Setup:
    """The exact calibration of a `sim.World` (the robot plays `robot_player`'s discs)."""
    camera = sim_camera(world)
    drops, pick = sim_arm_poses(world)
    return Setup(
        camera=camera, board=sim_board(world, camera), colours=sim_colours(world, robot_player), drops=drops, pick=pick
    )
