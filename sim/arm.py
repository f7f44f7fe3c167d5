"""The simulated arm: a URDF on a pedestal, moved kinematically, holding a disc at its tool frame.

The arm's joints are the movable joints on the chain from the base to the tool link (for the shipped
`c4arm.urdf`: base_yaw, shoulder, elbow, wrist_pitch, wrist_yaw); any other movable joints (the
gripper's fingers) open and close with grip/release. Joint positions are set directly (the drivers
and planners above decide how fast), and motors carry them on at the speed they were set with for one
control period while physics runs (so what the arm holds is carried, not teleported). A well-held disc
sits centred at the tool frame, face normal along the tool's y axis (the grip: `sim.grip`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pybullet as p

TOOL_LINK_NAMES = ("tool", "panda_grasptarget")
HOLD_FORCE_SCALE = 50.0
SPEED_HORIZON_S = 1.0 / 120.0  # a trajectory's control period: how far a set speed carries the joints
DISC_IN_TOOL = p.getQuaternionFromEuler((math.pi / 2, 0.0, 0.0))  # cylinder axis (z) onto the tool's y axis


@dataclass(frozen=True)
class JointLimit:
    """A joint's range and the speed and torque its motor really has."""

    name: str
    lower_rad: float
    upper_rad: float
    velocity_rad_s: float
    effort_nm: float


class SimArm:
    """One arm body in a PyBullet client; base fixed at `base_position` / `base_orientation`."""

    def __init__(
        self,
        client: int,
        urdf_path: Path,
        base_position: tuple[float, float, float],
        base_orientation: tuple[float, float, float, float],
    ) -> None:
        if not Path(urdf_path).is_file():
            raise FileNotFoundError(f"arm URDF {urdf_path} not found: give an existing .urdf file")
        self.client = client
        self.urdf_path = Path(urdf_path)
        self.body = p.loadURDF(
            str(urdf_path),
            base_position,
            base_orientation,
            useFixedBase=True,
            flags=p.URDF_USE_INERTIA_FROM_FILE,
            physicsClientId=client,
        )
        joints = [
            p.getJointInfo(self.body, j, physicsClientId=client)
            for j in range(p.getNumJoints(self.body, physicsClientId=client))
        ]
        self._joint_info = joints
        self.tool_link = self._find_tool_link(joints)
        chain = self._chain_to(self.tool_link, joints)
        movable = [j for j, info in enumerate(joints) if info[2] in (p.JOINT_REVOLUTE, p.JOINT_PRISMATIC)]
        self.joint_indices = [j for j in chain if j in movable]
        self.finger_indices = [j for j in movable if j not in chain]
        self.gripper_links = self._links_after(self.joint_indices[-1], joints) if self.joint_indices else []
        self._targets = [0.0] * len(self.joint_indices)
        self.set_fingers_open(True)
        self.set_joints([min(max(0.0, lim.lower_rad), lim.upper_rad) for lim in self.joint_limits()])

    @staticmethod
    def _find_tool_link(joints: list) -> int:
        names = {info[12].decode(): j for j, info in enumerate(joints)}
        for name in TOOL_LINK_NAMES:
            if name in names:
                return names[name]
        return len(joints) - 1

    @staticmethod
    def _chain_to(link: int, joints: list) -> list[int]:
        chain = []
        while link >= 0:
            chain.append(link)
            link = joints[link][16]
        return chain[::-1]

    @staticmethod
    def _links_after(joint: int, joints: list) -> list[int]:
        """The link moved by `joint` and every link below it (the gripper when `joint` is the last arm joint)."""
        below = {joint}
        for j, info in enumerate(joints):
            if info[16] in below:
                below.add(j)
        return sorted(below)

    def joint_names(self) -> list[str]:
        return [self._joint_info[j][1].decode() for j in self.joint_indices]

    def joint_limits(self) -> list[JointLimit]:
        limits = []
        for j in self.joint_indices:
            info = self._joint_info[j]
            lower, upper = (info[8], info[9]) if info[8] < info[9] else (-math.pi, math.pi)
            limits.append(JointLimit(info[1].decode(), lower, upper, info[11], info[10]))
        return limits

    def set_joints(self, positions: list[float] | np.ndarray, speeds: list[float] | np.ndarray | None = None) -> None:
        """Put the arm at these joint positions at once; with `speeds` (rad/s) it moves on at them for the next
        `SPEED_HORIZON_S` while physics runs (a trajectory's next control period), else it holds still."""
        positions = [float(q) for q in positions]
        if len(positions) != len(self.joint_indices):
            raise ValueError(
                f"{len(positions)} joint positions for an arm with {len(self.joint_indices)} joints "
                f"({', '.join(self.joint_names())}): give one per joint"
            )
        limits = self.joint_limits()
        for limit, q in zip(limits, positions, strict=False):
            if not (limit.lower_rad - 1e-6 <= q <= limit.upper_rad + 1e-6) or not math.isfinite(q):
                raise ValueError(
                    f"joint {limit.name} = {q:.4f} rad is outside its limits "
                    f"[{limit.lower_rad:.3f}, {limit.upper_rad:.3f}]: keep targets within arm_joint_limits()"
                )
        speeds = [0.0] * len(positions) if speeds is None else [float(v) for v in speeds]
        speeds = [max(-lim.velocity_rad_s, min(lim.velocity_rad_s, v)) for lim, v in zip(limits, speeds, strict=False)]
        for j, q, v in zip(self.joint_indices, positions, speeds, strict=False):
            p.resetJointState(self.body, j, q, v, physicsClientId=self.client)
        targets = [
            min(max(q + v * SPEED_HORIZON_S, lim.lower_rad), lim.upper_rad)
            for lim, q, v in zip(limits, positions, speeds, strict=False)
        ]
        self._targets = targets
        p.setJointMotorControlArray(
            self.body,
            self.joint_indices,
            p.POSITION_CONTROL,
            targetPositions=targets,
            targetVelocities=speeds,
            forces=[HOLD_FORCE_SCALE * max(lim.effort_nm, 1.0) for lim in limits],
            physicsClientId=self.client,
        )

    def joints(self) -> np.ndarray:
        return np.array([p.getJointState(self.body, j, physicsClientId=self.client)[0] for j in self.joint_indices])

    def set_fingers_open(self, is_open: bool) -> None:
        for j in self.finger_indices:
            lower, upper = self._joint_info[j][8], self._joint_info[j][9]
            q = upper if is_open else lower
            p.resetJointState(self.body, j, q, 0.0, physicsClientId=self.client)
            p.setJointMotorControl2(
                self.body, j, p.POSITION_CONTROL, targetPosition=q, force=HOLD_FORCE_SCALE, physicsClientId=self.client
            )

    def tool_pose(self) -> tuple[np.ndarray, np.ndarray]:
        """(position, quaternion xyzw) of the tool frame in the world."""
        state = p.getLinkState(self.body, self.tool_link, computeForwardKinematics=True, physicsClientId=self.client)
        return np.array(state[4]), np.array(state[5])

    def base_pose(self) -> tuple[np.ndarray, np.ndarray]:
        """(position, quaternion) of the base link's URDF frame (PyBullet reports its centre of mass)."""
        com_position, com_orientation = p.getBasePositionAndOrientation(self.body, physicsClientId=self.client)
        inertial_position, inertial_orientation = p.getDynamicsInfo(self.body, -1, physicsClientId=self.client)[3:5]
        to_link = p.invertTransform(inertial_position, inertial_orientation)
        position, orientation = p.multiplyTransforms(com_position, com_orientation, *to_link)
        return np.array(position), np.array(orientation)

    def ignore_collisions_with(self, body: int) -> None:
        """The gripper's shapes are for looks: the pinch is `sim.grip`'s contact-gated hold, so they never push a disc."""
        for link in self.gripper_links:
            p.setCollisionFilterPair(self.body, body, link, -1, 0, physicsClientId=self.client)
