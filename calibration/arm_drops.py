"""Test drops with the arm, judged by the camera: the robot plays a column and vision says where the disc went.

`ArmDropTester` is the `DropTest` that `drops.verify_and_correct` calls: it plans a whole robot turn
(pick at the dispenser, over the column, release) to the candidate pose with the arm layer's planner,
plays it on any `Arm` (the sim's or a serial one), and compares the camera's board before and after.
`follow_and_verify` is the automatic drops step: the drops follow the board the camera sees now,
then every column is test-dropped and corrected.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from calibration.drops import DropCheck, follow_board, verify_and_correct
from calibration.store import ArmPose, BoardCalibration, Setup
from robot.arm import Arm, ArmConfig
from robot.kinematics import KinematicChain
from robot.planner import Planner, ToolPose, Workcell, play_column

log = logging.getLogger(__name__)

# Reads the board now through the camera: the (rows, cols) grid, 0 empty (row 0 at the bottom).
GridReader = Callable[[], np.ndarray]


def tool_pose(pose: ArmPose) -> ToolPose:
    """The planner's ToolPose of a calibration pose."""
    return ToolPose(pose.xyz_m, pose.yaw_rad)


def landed_column(before: np.ndarray, after: np.ndarray) -> int | None:
    """The column that gained exactly one disc between two readings, or None (none, several, or a change elsewhere)."""
    gained = (np.asarray(after) > 0).sum(axis=0) - (np.asarray(before) > 0).sum(axis=0)
    columns = np.flatnonzero(gained)
    if len(columns) != 1 or gained[columns[0]] != 1:
        return None
    return int(columns[0])


@dataclass
class ArmDropTester:
    """Plays a robot turn into a column at a candidate drop pose and reports where the camera saw the disc land."""

    arm: Arm
    chain: KinematicChain
    arm_config: ArmConfig
    pick: ArmPose
    drops: list[ArmPose]
    disc_radius_m: float
    read_grid: GridReader

    def __call__(self, column: int, pose: ArmPose) -> int | None:
        self.drops[column] = pose
        workcell = Workcell.from_drop_poses(tool_pose(self.pick), tuple(tool_pose(d) for d in self.drops), self.disc_radius_m)
        planner = Planner(self.chain, workcell, self.arm_config, seed_q=self.arm.joint_state())
        before = self.read_grid()
        play_column(self.arm, planner, column)
        landed = landed_column(before, self.read_grid())
        log.info("test drop into column %d landed in %s", column + 1, "?" if landed is None else landed + 1)
        return landed


def follow_and_verify(
    setup: Setup, board_now: BoardCalibration, tester: ArmDropTester
) -> tuple[tuple[ArmPose, ...], list[DropCheck]]:
    """Drops moved with the board from where the setup had it to where the camera sees it, then test-dropped."""
    if setup.board is None or not setup.drops:
        raise ValueError("the calibration has no taught drops or board: run `c4robot calibrate board` and `calibrate drops`")
    followed = follow_board(setup.drops, setup.board, board_now)
    tester.drops = list(followed)
    return verify_and_correct(followed, board_now.column_pitch_m, tester)
