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
from calibration.colours import colours_from_frame
from calibration.store import ArmPose, BoardCalibration, CameraCalibration, ColourCalibration, Setup

SIM_ROBOT_DISCS = 2  # the world's player number (yellow) of the discs the simulated robot plays
SIM_ROBOT_LETTER = "Y"  # what `calibrate colours --sim` names them


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
        rows=geometry.rows,
        cols=geometry.columns,
        corners_px=corners_of(centres),
        column_pitch_m=geometry.column_pitch_m,
        row_pitch_m=geometry.row_pitch_m,
        disc_plane_depth_m=-geometry.front_face_y_m,
        rvec_rad=rvec,
        tvec_m=tvec,
    )


def sim_colours(world: Any, board: BoardCalibration, robot_player: int) -> ColourCalibration:
    """The players' disc colours as the camera sees them in this world's light; the robot plays `robot_player`.

    The material colours would be wrong references: the rendered discs are shaded darker. So, as a
    person does in `calibrate colours`, a disc of each player goes into the bottom row (first and last
    column), the frame is sampled (against a frame from before, so a room of a disc's colour seen through the
    holes does not hide the discs), and the two discs are taken out again. Needs those two cells empty.
    """
    if robot_player not in (1, 2):
        raise ValueError(f"robot player {robot_player}: use 1 or 2")
    last = board.cols - 1
    if world.board_state()[0, [0, last]].any():
        raise ValueError("the sim's colours are sampled in the bottom corners: they must be empty")
    empty = world.render_camera()
    discs = [world.drop_disc(0, robot_player), world.drop_disc(last, 3 - robot_player)]
    world.wait_until_settled()
    frame = world.render_camera()
    for disc in discs:
        world.remove_disc(disc)
    return colours_from_frame(frame, board, 0, last, empty)


def sim_arm_poses(world: Any) -> tuple[tuple[ArmPose, ...], ArmPose]:
    """Every column's slot entry and the dispenser's pick pose, in the arm's base frame."""
    from robot.arm.drivers.sim import sim_chain, sim_workcell

    workcell = sim_workcell(world, sim_chain(world))

    def arm_pose(tool_pose: Any) -> ArmPose:
        return ArmPose(*tool_pose.position_m, tool_pose.yaw_rad)

    return tuple(arm_pose(drop) for drop in workcell.drops), arm_pose(workcell.pick)


def sim_setup(world: Any, robot_player: int = SIM_ROBOT_DISCS) -> Setup:
    """The exact calibration of a `sim.World` (the robot plays `robot_player`'s discs)."""
    camera = sim_camera(world)
    board = sim_board(world, camera)
    drops, pick = sim_arm_poses(world)
    return Setup(camera=camera, board=board, colours=sim_colours(world, board, robot_player), drops=drops, pick=pick)
