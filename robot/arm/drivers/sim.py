"""The `Arm` of the PyBullet world: follows trajectories while the world's physics runs.

The one module of the arm layer that imports `sim`. `SimArm` sets the simulated arm's joints along a
trajectory every control period and steps the world in between, so a released disc really falls
and the arm's clock is the world's simulated time. `sim_workcell(world)` gives the planner what the
world knows exactly (dispenser, slot entries, the board's box) in the arm's base frame, and
`sim_planner(world, config)` a ready planner.
"""

from __future__ import annotations

import logging
import math
from pathlib import Path

import numpy as np
import pybullet  # noqa: E402 - after sim, which imports it without its stdout banner

from robot.arm import Arm, ArmConfig, ArmStatus
from robot.arm.kinematics import KinematicChain, homogeneous
from robot.arm.planner import KeepOutBox, Planner, ToolPose, Workcell
from robot.arm.trajectory import JointTrajectory
from sim import World

log = logging.getLogger(__name__)

CONTROL_PERIOD_S = 1.0 / 120.0


class SimArm(Arm):
    """The simulated arm of a `sim.World`, driven kinematically along trajectories."""

    def __init__(self, world: World, control_period_s: float = CONTROL_PERIOD_S) -> None:
        self.world = world
        self.control_period_s = control_period_s
        self.dof = len(world.arm_joints())
        self._connected = False
        self._stopped = False
        self.zero_error_rad = np.zeros(self.dof)
        limits = world.arm_joint_limits()
        self._lower = np.array([limit.lower_rad for limit in limits])
        self._upper = np.array([limit.upper_rad for limit in limits])

    def miscalibrate(self, zero_error_rad: np.ndarray) -> None:
        """Each servo's zero is off by this much, as on a table calibrated imperfectly: the arm stands at
        what it is told plus the error and reports what it was told (a servo reads its own position)."""
        error = np.asarray(zero_error_rad, dtype=float)
        if error.shape != (self.dof,):
            raise ValueError(f"{error.size} zero errors for an arm with {self.dof} joints: give one per joint")
        believed = self.joint_state()
        self.zero_error_rad = error
        self.world.set_arm_joints(self._actual(believed))

    def _actual(self, q: np.ndarray) -> np.ndarray:
        return np.clip(np.asarray(q, dtype=float) + self.zero_error_rad, self._lower, self._upper)

    def connect(self) -> None:
        self._connected = True

    def close(self) -> None:
        self._connected = False

    def home(self) -> None:
        """Nothing to find: a simulated arm knows where it is."""

    def joint_state(self) -> np.ndarray:
        return np.asarray(self.world.arm_joints(), dtype=float) - self.zero_error_rad

    def follow(self, trajectory: JointTrajectory) -> None:
        """Set the joints along `trajectory` every control period, stepping physics in between."""
        self._stopped = False
        # Whole physics steps, so the world's clock advances exactly as the trajectory's.
        physics_step_s = self.world.time_step_s
        period_s = physics_step_s * max(1, round(self.control_period_s / physics_step_s))
        t_s = 0.0
        while t_s < trajectory.duration_s - 1e-9 and not self._stopped:
            t_s = min(t_s + period_s, trajectory.duration_s)
            self.world.set_arm_joints(self._actual(trajectory.position(t_s)))
            self.world.step(period_s)

    def grip(self) -> bool:
        return bool(self.world.grip())

    def release(self) -> None:
        self.world.release()

    def stop(self) -> None:
        self._stopped = True

    def status(self) -> ArmStatus:
        # gripping: the gripper's own sense, so a disc that slipped out on the way shows.
        return ArmStatus(self._connected, False, self.world.is_gripping(), tuple(float(v) for v in self.joint_state()))

    def now_s(self) -> float:
        return float(self.world.time_s)

    def wait(self, duration_s: float) -> None:
        if duration_s > 0:
            self.world.step(duration_s)


def _pose_matrix(position: np.ndarray, quaternion_xyzw: np.ndarray) -> np.ndarray:
    rotation = np.array(pybullet.getMatrixFromQuaternion(tuple(float(v) for v in quaternion_xyzw))).reshape(3, 3)
    return homogeneous(rotation, np.asarray(position, dtype=float))


def sim_chain(world: World, config: ArmConfig = ArmConfig()) -> KinematicChain:
    """The kinematic chain of the world's arm (its URDF unless the config names another)."""
    return KinematicChain.from_urdf(config.urdf_path or Path(world.arm_urdf_path), config.tool_link)


def arm_base_from_world(world: World, chain: KinematicChain) -> np.ndarray:
    """The world-to-arm-base transform, measured from the tool pose the world reports (so any base
    offset the URDF's inertia puts on PyBullet's base frame does not matter)."""
    world_tool = _pose_matrix(*world.tool_pose())
    world_base = world_tool @ np.linalg.inv(chain.forward(world.arm_joints()))
    return np.linalg.inv(world_base)


def sim_workcell(world: World, chain: KinematicChain) -> Workcell:
    """Dispenser, slot entries and the board's box of `world`, in the arm's base frame."""
    base_from_world = arm_base_from_world(world, chain)
    base_yaw = math.atan2(base_from_world[1, 0], base_from_world[0, 0])

    def to_arm(xyz: np.ndarray, yaw_rad: float) -> ToolPose:
        point = base_from_world @ np.append(np.asarray(xyz, dtype=float), 1.0)
        return ToolPose(tuple(float(v) for v in point[:3]), yaw_rad + base_yaw)

    config = world.config
    geometry = config.board
    pose = config.board_pose
    half_depth = geometry.slot_gap_m / 2 + geometry.plate_thickness_m + geometry.funnel_spread_m
    centre_world = np.array([pose.x_m, pose.y_m, geometry.funnel_top_m / 2, 1.0])
    centre = base_from_world @ centre_world
    board = KeepOutBox(
        tuple(float(v) for v in centre[:3]),
        (geometry.plate_width_m / 2, half_depth, geometry.funnel_top_m / 2),
        pose.yaw_rad + base_yaw,
    )
    pick = to_arm(*world.dispenser_pick_pose())
    drops = tuple(to_arm(*world.slot_entry_pose(column)) for column in range(geometry.columns))
    return Workcell(pick, drops, board, geometry.disc_diameter_m / 2)


def sim_planner(world: World, config: ArmConfig = ArmConfig()) -> Planner:
    """A planner for the world's arm, homed at the configured home (default: above the dispenser)."""
    chain = sim_chain(world, config)
    home = np.array(config.home_rad) if config.home_rad is not None else None
    return Planner(chain, sim_workcell(world, chain), config, home, seed_q=world.arm_joints())
