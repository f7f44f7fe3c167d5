"""The arm interface every driver implements: what the planner's output is played on.

Drivers: the PyBullet arm (`robot.arm.drivers.sim.SimArm`), a G-code desktop arm
(`robot.arm.drivers.gcode.GcodeArm`), an Arduino servo arm speaking the joint line protocol
(`robot.arm.drivers.joint_serial.JointSerialArm`) or an SO-100 / SO-101 on a Feetech servo bus
(`robot.arm.drivers.feetech.FeetechArm`). The arm's settings are in `robot.arm.config`.

THE DRIVER CONTRACT (every serial driver keeps it; tests/robot/test_serial_faults.py checks it
against misbehaving fake devices, `c4robot bench serial` measures it):

1. Each command runs exactly once on the arm, or the call raises a named error: `ArmResetError`,
   `ArmCommandError`, `PortLostError` (a ConnectionError naming the port) or `TimeoutError`.
   A call that returns normally means every command it sent ran, once.
2. A command whose reply was lost, garbled or late is resolved by asking the arm what it did
   (a status or position query, or the same line again with the same sequence number when the
   firmware recognises repeats); a command is never sent again blindly.
3. Sequence numbers never collide across host sessions or firmware restarts: the host names its
   session at connect and the firmware reports a boot number, so a stored reply is never taken
   for a new command.
4. A reset or reboot of the arm is noticed within one command (a boot banner, a changed boot
   number, a firmware that refuses to act before the host's hello) and ends the call with
   `ArmResetError`: the caller tells the person and homes only when told to.
5. `stop()` is always executed when the arm can be reached, and on any error the driver stops
   the arm (feed hold and soft reset on GRBL, STOP on the joint firmware) before raising.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import TracebackType
from typing import Protocol, runtime_checkable

import numpy as np

from robot.arm.trajectory import JointTrajectory


class ArmResetError(ConnectionError):
    """The arm restarted (reset, brown-out, reboot) and lost its motion state: home it, then go on."""


class ArmCommandError(RuntimeError):
    """The arm refused a command or raised an alarm; the message names it in words."""


@dataclass(frozen=True)
class ArmStatus:
    """A snapshot of the arm: connected, moving, holding a disc, joint angles, last error, and where the arm
    reports them, each motor's temperature and supply voltage."""

    connected: bool
    moving: bool
    gripping: bool
    joints_rad: tuple[float, ...]
    error: str | None = None
    temperatures_c: tuple[float, ...] = ()
    voltages_v: tuple[float, ...] = ()


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
