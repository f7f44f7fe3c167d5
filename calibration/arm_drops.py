"""Test drops with the arm, judged by the camera: the robot plays a column and the camera sees where the disc went.

`ArmDropTester` is the `DropTest` that `drops.verify_and_correct` calls: it plans a whole robot turn
(pick at the dispenser, over the column, release) to the candidate pose with the arm layer's planner,
plays it on any `Arm` (the sim's or a serial one), and compares camera frames before and after: the
one hole whose look changed is where the disc came to rest. A change test rather than a full board
reading, because during calibration nothing but the new disc should differ, whatever the colours.
`follow_and_verify` is the automatic drops step: the drops follow the board the camera sees now,
then every column is test-dropped and corrected.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from calibration.board import hole_colours
from calibration.drops import DropCheck, follow_board, verify_and_correct
from calibration.store import ArmPose, BoardCalibration, Setup
from robot.arm import Arm, ArmConfig
from robot.arm.kinematics import KinematicChain
from robot.arm.planner import Planner, ToolPose, Workcell, play_column

log = logging.getLogger(__name__)

# A frame of the camera that watches the board, once the disc has come to rest (BGR).
FrameReader = Callable[[], np.ndarray]
# A hole has changed when its mean colour moved this far (0..255 per channel, Euclidean) ...
HOLE_CHANGE_MIN = 30.0
# ... and at least this many times more than any other hole.
HOLE_CHANGE_MARGIN = 2.0


def tool_pose(pose: ArmPose) -> ToolPose:
    """The planner's ToolPose of a calibration pose."""
    return ToolPose(pose.xyz_m, pose.yaw_rad)


def landed_column(before: np.ndarray, after: np.ndarray, board: BoardCalibration) -> int | None:
    """The column of the one hole whose look changed between two frames, or None (no clear single change)."""
    change = np.linalg.norm(hole_colours(after, board) - hole_colours(before, board), axis=2)
    order = np.argsort(change, axis=None)[::-1]
    largest, second = change.flat[order[0]], change.flat[order[1]]
    if largest < HOLE_CHANGE_MIN or largest < HOLE_CHANGE_MARGIN * second:
        return None
    return int(np.unravel_index(order[0], change.shape)[1])


@dataclass
class ArmDropTester:
    """Plays a robot turn into a column at a candidate drop pose and reports where the camera saw the disc land."""

    arm: Arm
    chain: KinematicChain
    arm_config: ArmConfig
    pick: ArmPose
    drops: list[ArmPose]
    board: BoardCalibration
    read_frame: FrameReader

    def __call__(self, column: int, pose: ArmPose) -> int | None:
        self.drops[column] = pose
        disc_radius_m = self.board.row_pitch_m / 2  # discs rest on each other: the row pitch is their diameter
        workcell = Workcell.from_drop_poses(
            tool_pose(self.pick), tuple(tool_pose(d) for d in self.drops), disc_radius_m
        )
        planner = Planner(self.chain, workcell, self.arm_config, seed_q=self.arm.joint_state())
        before = self.read_frame()
        play_column(self.arm, planner, column)
        landed = landed_column(before, self.read_frame(), self.board)
        log.info("test drop into column %d landed in %s", column + 1, "?" if landed is None else landed + 1)
        return landed


def follow_and_verify(
    setup: Setup, board_now: BoardCalibration, tester: ArmDropTester
) -> tuple[tuple[ArmPose, ...], list[DropCheck]]:
    """Drops moved with the board from where the setup had it to where the camera sees it, then test-dropped."""
    if setup.board is None or not setup.drops:
        raise ValueError(
            "the calibration has no taught drops or board: run `c4robot calibrate board` and `calibrate drops`"
        )
    followed = follow_board(setup.drops, setup.board, board_now)
    tester.drops = list(followed)
    return verify_and_correct(followed, board_now.column_pitch_m, tester)
