"""The arm interface every driver implements: what the planner's output is played on.

Drivers: the PyBullet arm (`robot.arm.drivers.sim.SimArm`), a G-code desktop arm
(`robot.arm.drivers.gcode.GcodeArm`) or an Arduino servo arm speaking the joint line protocol
(`robot.arm.drivers.joint_serial.JointSerialArm`). The arm's settings are in `robot.arm.config`.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import TracebackType
from typing import Protocol, runtime_checkable

import numpy as np

from robot.arm.trajectory import JointTrajectory


@dataclass(frozen=True)
class ArmStatus:
    """A snapshot of the arm: connected, moving, holding a disc, joint angles, last error."""

    connected: bool
    moving: bool
    gripping: bool
    joints_rad: tuple[float, ...]
    error: str | None = None


@runtime_checkable
class Arm(Protocol):
    """A robot arm that follows joint trajectories and grips discs; a context manager that connects."""

    dof: int

    def connect(self) -> None:
        """Open the link and check the arm answers; raises ConnectionError naming the device."""

    def close(self) -> None:
        """Release the link (idempotent)."""

    def home(self) -> None:
        """Move to the home configuration (the arm's own homing where it has one)."""

    def joint_state(self) -> np.ndarray:
        """Current joint angles (rad)."""

    def follow(self, trajectory: JointTrajectory) -> None:
        """Play `trajectory` and return when the arm has arrived at its end."""

    def grip(self) -> bool:
        """Pick up the disc at the tool; True when a disc is held."""

    def release(self) -> None:
        """Let go of the held disc."""

    def stop(self) -> None:
        """Emergency stop: halt motion now, keep the link open."""

    def status(self) -> ArmStatus:
        """The arm's state as it reports it."""

    def now_s(self) -> float:
        """The arm's clock (simulated time for the sim, monotonic wall time for hardware)."""

    def wait(self, duration_s: float) -> None:
        """Let `duration_s` pass on the arm's clock (the sim steps its physics; hardware sleeps)."""

    def __enter__(self) -> Arm:
        self.connect()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()
