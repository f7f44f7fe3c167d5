"""The arm's side of the simulated table: the arm on its pedestal, its grip and its dispenser.

`ArmStation` is a part of `sim.World` (a base class): the arm's joints are set along trajectories, the
grip pinches what its jaws touch (`sim.grip`), and the dispenser gives the next disc once the last one
has left it (`sim.dispenser`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pybullet as p

from sim.arm import DISC_IN_TOOL, JointLimit, SimArm
from sim.dispenser import Dispenser
from sim.grip import Grip

if TYPE_CHECKING:
    from sim.config import WorldConfig
    from sim.discs import Discs

PEDESTAL_COLOUR = (0.25, 0.25, 0.27, 1.0)
MOTION_GAP_S = 0.05  # arm targets set closer in time than this are one motion (a trajectory)


class ArmStation:
    """The arm, grip and dispenser of a world (`arm` is None in a world built without an arm)."""

    client: int
    config: WorldConfig
    discs: Discs
    time_s: float
    arm: SimArm | None = None
    _grip: Grip | None = None

    def _build_arm_and_dispenser(self) -> None:
        mount, g = self.config.arm, self.config.board
        x, y = mount.base_xy_m
        if mount.pedestal_height_m > 0:
            self._box((x, y, mount.pedestal_height_m / 2), (0.065, 0.065, mount.pedestal_height_m / 2), PEDESTAL_COLOUR)
        orientation = p.getQuaternionFromEuler((0.0, 0.0, mount.base_yaw_rad))
        self.arm = SimArm(self.client, mount.urdf_path, (x, y, mount.pedestal_height_m), orientation)
        self.discs.on_spawn = self.arm.ignore_collisions_with
        self._grip = Grip(self.client, self.arm, g.disc_diameter_m / 2, g.disc_thickness_m)
        self._last_set: tuple[float, np.ndarray] | None = None  # (time, joints): the arm's speed for the next set
        self.dispenser = Dispenser(self.client, mount, g)
        self._refill_dispenser()

    def _require_arm(self) -> SimArm:
        if self.arm is None:
            raise RuntimeError("this world has no arm: build it with WorldConfig(arm=ArmMount(...))")
        return self.arm

    @property
    def arm_urdf_path(self) -> Path:
        return self._require_arm().urdf_path

    def arm_joint_names(self) -> list[str]:
        return self._require_arm().joint_names()

    def arm_joint_limits(self) -> list[JointLimit]:
        return self._require_arm().joint_limits()

    def arm_base_pose(self) -> tuple[np.ndarray, np.ndarray]:
        """(xyz, quaternion xyzw) of the URDF's base link in the world."""
        return self._require_arm().base_pose()

    def arm_joints(self) -> np.ndarray:
        return self._require_arm().joints()

    def set_arm_joints(self, q: list[float] | np.ndarray) -> None:
        """Put the arm at joint positions `q` (in `arm_joint_names()` order), moving on at the speed it came at
        since the last call (so a held disc, pinched by a force-limited grip, is carried, not teleported)."""
        arm = self._require_arm()
        q = np.asarray(q, dtype=float)
        speed = np.zeros_like(q)
        if self._last_set is not None and 0 < self.time_s - self._last_set[0] <= MOTION_GAP_S:
            speed = (q - self._last_set[1]) / (self.time_s - self._last_set[0])
        arm.set_joints(q, speed)
        self._last_set = (self.time_s, q)
        self._refill_dispenser()

    def tool_pose(self) -> tuple[np.ndarray, np.ndarray]:
        """(xyz, quaternion xyzw) of the tool frame, the centre of a held disc."""
        return self._require_arm().tool_pose()

    @property
    def held_disc(self) -> int | None:
        return self._grip.held if self._grip is not None else None

    def grip(self) -> bool:
        """Close the gripper; True when it pinches a disc (one whose faces are between the jaws, see `sim.grip`)."""
        self._require_arm()
        body = self._grip.close(list(self.discs))
        if body is None:
            self.dispenser.is_jammed = False  # closing on the empty post shakes a stuck feed loose
            return False
        self.discs.unfreeze(body)
        if body == self.dispenser.waiting:
            self.dispenser.waiting = None
        return True

    def is_gripping(self) -> bool:
        """The gripper's own sense: its jaws stopped on a disc (False once a disc slipped out, or none was taken)."""
        return self._grip is not None and self._grip.is_holding

    @property
    def discs_slipped(self) -> int:
        """How many discs slipped out of the grip in this world so far."""
        return self._grip.slipped if self._grip is not None else 0

    def release(self) -> None:
        """Open the gripper; a held disc falls from where it is."""
        self._require_arm()
        self._grip.open()

    def dispenser_pick_pose(self) -> tuple[np.ndarray, float]:
        """(world xyz, yaw) of the disc waiting in the dispenser: the tool pose that grips it."""
        self._require_arm()
        return self.dispenser.pick_pose()

    @property
    def dispenser_player(self) -> int:
        return self.dispenser.player if self.arm is not None else 1

    def set_dispenser_player(self, player: int) -> None:
        """Whose discs the dispenser gives (the robot's); the waiting disc is swapped for one of that colour."""
        self._check_player(player)
        self._require_arm()
        self.dispenser.player = player
        if self.dispenser.waiting is not None:
            self.remove_disc(self.dispenser.waiting)
            self._refill_dispenser()

    def _refill_dispenser(self) -> None:
        tool = self.arm.tool_pose()[0] if self.held_disc is not None else None
        if self.dispenser.needs_refill(tool):
            position, _ = self.dispenser.pick_pose()
            self.dispenser.waiting = self.discs.spawn(self.dispenser.player, position, DISC_IN_TOOL, is_frozen=True)
