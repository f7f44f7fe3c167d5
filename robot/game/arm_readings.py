"""The real arm's pose as its joints report it, for a live view that has no camera on the arm.

On the simulated table the view films the arm; on a real one the only witness of where the arm stands is its own
joint readings. `ReportingArm` wraps the game's arm: after each thing it does (a move, a grip, a release, going
home) it asks the arm for its joints, puts them through the kinematic chain, and hands an `ArmPose` (plain points
in the arm's base frame, with the board's drop points and the dispenser) to a listener. Only a game with a live view
is wrapped: one joint query per step of a turn (a few per turn) is the whole cost, and a game without one pays none.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from robot.arm import Arm
from robot.arm.kinematics import KinematicChain
from robot.arm.planner import Workcell
from robot.arm.trajectory import JointTrajectory


@dataclass(frozen=True)
class ArmPose:
    """Where the arm's joints and the gripper stand (N x 3, base first, the tool last), the columns' drop points
    (C x 3) and the dispenser's pick point, in metres in the arm's base frame; `joints_rad` as read."""

    joints_rad: tuple[float, ...]
    points_m: np.ndarray
    drops_m: np.ndarray
    pick_m: np.ndarray


def arm_pose(chain: KinematicChain, workcell: Workcell, joints_rad: np.ndarray) -> ArmPose:
    """The pose of an arm whose joints read `joints_rad`."""
    frames = chain.joint_frames(np.asarray(joints_rad, dtype=float))
    points = np.vstack([np.zeros(3), [frame[:3, 3] for frame in frames]])
    drops = np.array([drop.position_m for drop in workcell.drops], dtype=float)
    return ArmPose(tuple(float(a) for a in joints_rad), points, drops, np.array(workcell.pick.position_m, float))


class ReportingArm:
    """`arm`, which after every action reads its joints and tells `on_pose` where it stands.

    Everything else is the wrapped arm's own (attributes and methods pass through), so the planner and the game
    drive it as they drive any `Arm`; a reading that fails raises as the arm's own call would.
    """

    def __init__(
        self,
        arm: Arm,
        chain: KinematicChain,
        workcell: Workcell,
        on_pose: Callable[[ArmPose], None],
    ) -> None:
        self._arm = arm
        self._chain = chain
        self._workcell = workcell
        self._on_pose = on_pose

    def __getattr__(self, name: str) -> Any:
        return getattr(self._arm, name)

    def report(self) -> None:
        """Read the joints now and tell the listener."""
        self._on_pose(arm_pose(self._chain, self._workcell, self._arm.joint_state()))

    def follow(self, trajectory: JointTrajectory) -> None:
        self._arm.follow(trajectory)
        self.report()

    def home(self) -> None:
        self._arm.home()
        self.report()

    def grip(self) -> bool:
        held = self._arm.grip()
        self.report()
        return held

    def release(self) -> None:
        self._arm.release()
        self.report()
