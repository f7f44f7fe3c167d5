"""The serial fault harness: every protocol's driver against misbehaving fake devices, fault by fault.

One trial connects a driver to a fake device (`sim.fake_arms`) with one fault injected at one point
of a whole pick-and-drop (home, over the dispenser, down, grip, up, over the column, release, home),
runs the pick-and-drop, and compares the commands the device ran with those a fault-free device ran
for the same script: a command run more often is doubled, one that a finished trial never ran is
lost. On the servo bus the gripper must never push past its protection's torque limit on the disc. The
outcome must be success or one named error (`ArmResetError`, `ArmCommandError`,
`PortLostError`, `TimeoutError`, each naming the port), and after any error the device must have run
a STOP when it could be reached. "two_sessions" runs part of the script, disconnects, and starts a
second host session with STOP on the same powered device.

Used by the tests (tests/robot/test_serial_faults.py) and by `c4robot bench serial`.
"""

from __future__ import annotations

import logging
import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from robot.arm import Arm, ArmCommandError, ArmConfig, ArmResetError, SerialConfig
from robot.arm.drivers import feetech_wire
from robot.arm.drivers.feetech import SO101_LAYOUT, FeetechArm
from robot.arm.drivers.feetech_servos import GRIPPER_TORQUE_LIMIT, ServoSetupError, wanted_eeprom
from robot.arm.drivers.gcode import GcodeArm
from robot.arm.drivers.joint_serial import JointSerialArm
from robot.arm.drivers.serial_link import PortLostError
from robot.arm.kinematics import KinematicChain
from robot.arm.trajectory import JointTrajectory
from sim.config import DEFAULT_ARM_URDF
from sim.fake_arms import HOME_CDEG, FakeGrbl, FakeJointFirmware, FakeUarm
from sim.fake_devices import FAULTS, FakeDevice, Fault
from sim.feetech_bus import FakeFeetechBus

PROTOCOLS = ("joint", "uarm", "grbl", "feetech")
FAULT_NAMES = (*FAULTS, "two_sessions")
NAMED_ERRORS = (ArmResetError, ArmCommandError, PortLostError, TimeoutError, ConnectionError)
# The error each fault must end in when it does not simply finish (None: it must finish).
EXPECTED = {
    "dropped": None,
    "garbled": None,
    "late": None,
    "back": None,
    "two_sessions": None,
    "reset": ArmResetError,
    "reboot": ArmResetError,
    "early_banner": ArmResetError,
    "gone": PortLostError,
    "refused": ArmCommandError,
    "silent": TimeoutError,
    "servo_restart": ArmResetError,
    "limits_changed": ServoSetupError,
}
SERVO_BUS_FAULTS = ("servo_restart", "limits_changed")  # faults of one servo: only a servo bus has them
DEVICE_EVENTS = ("RESET", "LIMITS")  # what the device logs of itself: not commands of the host


@dataclass(frozen=True)
class Timing:
    """How long the driver waits and how late the device is (short for tests, realistic for the bench)."""

    reply_timeout_s: float = 1.0
    late_s: float = 3.0
    back_s: float = 0.5
    handshake_timeout_s: float = 2.0


@dataclass(frozen=True)
class Trial:
    protocol: str
    fault: str
    at: int
    outcome: str  # "finished", "named" (a named error) or "other" (anything else: a failure)
    error: str
    lost: int
    doubled: int
    stop_missed: bool
    as_expected: bool  # the outcome is the one the fault calls for, and no gripper pushed past its protection
    gripper_load: int = 0  # a servo bus's gripper: the hardest it pushed stalled on the disc (0.1 % of full torque)


class _Table:
    """The arm model the trials share: the c4arm URDF and its home, joint waypoints of a pick-and-drop."""

    def __init__(self) -> None:
        self.chain = KinematicChain.from_urdf(DEFAULT_ARM_URDF, "tool")
        self.home = np.radians(np.array(HOME_CDEG) / 100.0)
        self.limits = ArmConfig(velocity_rad_s=math.radians(360), acceleration_rad_s2=math.radians(2000)).limits(5)

        def tool_vertical(yaw: float, shoulder: float, elbow: float, wrist_yaw: float) -> np.ndarray:
            return np.array([yaw, shoulder, elbow, -(shoulder + elbow), wrist_yaw])

        self.waypoints = [
            self.home,
            tool_vertical(1.1, 0.1, 0.5, 0.0),
            tool_vertical(1.1, 0.25, 0.55, 0.0),
            tool_vertical(1.1, 0.1, 0.5, 0.0),
            tool_vertical(0.2, 0.0, 0.3, 0.4),
            self.home,
        ]

    def steps(self) -> list[Callable[[Arm], object]]:
        """The pick-and-drop as driver calls."""
        w = self.waypoints

        def leg(a: int, b: int) -> Callable[[Arm], object]:
            return lambda arm: arm.follow(JointTrajectory.through([w[a], w[b]], self.limits))

        return [
            lambda arm: arm.home(),
            leg(0, 1),
            leg(1, 2),
            lambda arm: arm.grip(),
            leg(2, 3),
            leg(3, 4),
            lambda arm: arm.release(),
            leg(4, 5),
        ]

    def device(self, protocol: str, fault: Fault | None, timing: Timing) -> FakeDevice:
        kwargs = {"fault": fault, "late_s": timing.late_s, "back_s": timing.back_s}
        if protocol == "joint":
            return FakeJointFirmware(**kwargs)
        if protocol == "feetech":
            ticks = {
                j.servo_id: feetech_wire.ticks_from_rad(a, j.middle, j.direction)
                for j, a in zip(SO101_LAYOUT.joints, self.home, strict=True)
            }
            gripper = SO101_LAYOUT.gripper_id
            disc = (SO101_LAYOUT.gripper_open + SO101_LAYOUT.gripper_closed) // 2  # a disc between the jaws
            bus = FakeFeetechBus({**ticks, gripper: SO101_LAYOUT.gripper_open}, jaw_stops={gripper: disc}, **kwargs)
            for servo_id in SO101_LAYOUT.ids:  # as LeRobot's calibration or an earlier session left the EEPROM
                for address, data in wanted_eeprom(servo_id == gripper, 0).items():
                    bus.set_eeprom(servo_id, address, data)
            return bus
        start_mm = tuple(float(v) for v in self.chain.forward(self.home)[:3, 3] * 1000.0)
        wrist_deg = 90.0 + math.degrees(self.home[-1])
        return (FakeUarm if protocol == "uarm" else FakeGrbl)(start_mm, wrist_deg, **kwargs)

    def arm(self, protocol: str, port: str, timing: Timing) -> Arm:
        serial = SerialConfig(
            port=port,
            protocol=protocol if protocol in ("joint", "feetech") else "gcode",
            gcode_dialect="grbl" if protocol == "grbl" else "uarm",
            reply_timeout_s=timing.reply_timeout_s,
            handshake_timeout_s=timing.handshake_timeout_s,
            retries=3,
            reconnect_attempts=3,
        )
        config = ArmConfig(home_rad=tuple(self.home), serial=serial)
        if protocol == "feetech":
            return FeetechArm(config)
        return JointSerialArm(config) if protocol == "joint" else GcodeArm(config, self.chain)


def _run_script(table: _Table, protocol: str, device: FakeDevice, timing: Timing, split: int | None) -> None:
    """The pick-and-drop; with `split`, a first host session runs `split` steps and a second one starts over."""
    steps = table.steps()
    sessions = [steps] if split is None else [steps[:split], [lambda arm: arm.stop(), *steps]]
    for session in sessions:
        with table.arm(protocol, device.port, timing) as arm:
            for step in session:
                step(arm)


def _compare(ran: list[str], baseline: list[str], finished: bool) -> tuple[int, int]:
    """(lost, doubled): commands of `baseline` a finished run never ran, and commands run too often."""
    lost = doubled = 0
    j = 0
    counts: Counter[str] = Counter()
    for command in (c for c in ran if not c.startswith(DEVICE_EVENTS)):
        counts[command] += 1
        if j < len(baseline) and command == baseline[j]:
            j += 1
        elif command == "STOP":
            continue  # the stop after an error
        elif counts[command] > baseline[:j].count(command) and command not in baseline[j:]:
            doubled += 1
        elif command in baseline[j:]:
            k = baseline.index(command, j)
            lost += k - j
            j = k + 1
        else:
            doubled += 1
    if finished:
        lost += len(baseline) - j
    return lost, doubled


def _stop_missed(ran: list[str], fault: str, outcome: str) -> bool:
    """After an error the device must have run STOP last, unless it could not be reached."""
    if outcome == "finished" or fault in ("gone", "silent"):
        return False
    changes = [c for c in ran if not c.startswith(DEVICE_EVENTS)]
    return not changes or changes[-1] != "STOP"


def _as_expected(protocol: str, fault: str, error: BaseException | None, ran: list[str]) -> bool:
    """The outcome the fault calls for. Some restarts lose nothing and may finish: a servo's before its torque
    was on; a uArm's whose start line was lost and that left the arm and its pump as they were (a uArm has
    no state a host can set and read back that a restart clears). Limits narrowed where a joint no longer
    goes stop nothing."""
    expected = EXPECTED[fault]
    if expected is None:
        return error is None
    if isinstance(error, expected):
        return True
    if error is None and fault == "servo_restart":
        restarted = next(i for i, c in enumerate(ran) if c.startswith("RESET "))
        gripper_on = f"WRITE {SO101_LAYOUT.gripper_id} {feetech_wire.TORQUE_ENABLE} 01"
        return gripper_on in ran[restarted:]
    return error is None and (fault == "limits_changed" or (protocol, fault) == ("uarm", "early_banner"))


class FaultHarness:
    """Runs trials; the fault-free runs of each protocol are made once and kept."""

    def __init__(self, timing: Timing = Timing()) -> None:
        self.timing = timing
        self.table = _Table()
        self._baselines: dict[tuple[str, int | None], list[str]] = {}

    def baseline(self, protocol: str, split: int | None = None) -> list[str]:
        key = (protocol, split)
        if key not in self._baselines:
            with self.table.device(protocol, None, self.timing) as device:
                _run_script(self.table, protocol, device, self.timing, split)
            self._baselines[key] = list(device.executed)
        return self._baselines[key]

    def points(self, protocol: str, count: int) -> list[int]:
        """`count` fault points spread over the pick-and-drop's commands (1-based)."""
        changes = sum(1 for c in self.baseline(protocol) if c != "STOP")
        return sorted({max(1, min(changes, round((i + 0.5) * changes / count))) for i in range(count)})

    def trial(self, protocol: str, fault: str, at: int) -> Trial:
        split = None
        if fault == "two_sessions":
            split = 1 + at % (len(self.table.steps()) - 1)
        baseline = self.baseline(protocol, split)
        injected = None if fault == "two_sessions" else Fault(fault, at)
        error: BaseException | None = None
        with self.table.device(protocol, injected, self.timing) as device:
            try:
                _run_script(self.table, protocol, device, self.timing, split)
            except Exception as caught:  # noqa: BLE001 - every error is judged below
                error = caught
        ran = list(device.executed)
        if error is None:
            outcome = "finished"
        elif isinstance(error, NAMED_ERRORS) and device.port in str(error):
            outcome = "named"
        else:
            outcome = "other"
        lost, doubled = _compare(ran, baseline, error is None)
        gripper_load = device.stall_loads.get(SO101_LAYOUT.gripper_id, 0) if isinstance(device, FakeFeetechBus) else 0
        as_expected = _as_expected(protocol, fault, error, ran) and gripper_load <= GRIPPER_TORQUE_LIMIT
        return Trial(
            protocol,
            fault,
            at,
            outcome,
            f"{type(error).__name__}: {error}" if error else "",
            lost,
            doubled,
            _stop_missed(ran, fault, outcome),
            as_expected,
            gripper_load,
        )


def run_trials(protocols: tuple[str, ...], faults: tuple[str, ...], points: int, timing: Timing) -> list[Trial]:
    """Every fault at `points` places of the pick-and-drop, on every protocol."""
    logging.getLogger("robot.arm.drivers").setLevel(logging.ERROR)  # faults are the point: no warnings
    harness = FaultHarness(timing)
    trials = []
    for protocol in protocols:
        for fault in faults_of(protocol, faults):
            at_points = harness.points(protocol, points) if fault not in ("silent",) else [1]
            trials += [harness.trial(protocol, fault, at) for at in at_points]
    return trials


def faults_of(protocol: str, faults: tuple[str, ...]) -> tuple[str, ...]:
    """The faults that fit `protocol` (one servo's faults need a servo bus)."""
    return tuple(f for f in faults if protocol == "feetech" or f not in SERVO_BUS_FAULTS)
