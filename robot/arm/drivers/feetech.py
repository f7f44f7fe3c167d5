"""Driver for arms of Feetech STS3215 bus servos (the SO-100 / SO-101), speaking the protocol itself over pyserial.

The packets are in `feetech_wire` (with where every address and the checksum rule were checked), their
exchange in `feetech_link`, what is checked and set at connect in `feetech_servos`. Joint angles map to
servo ticks through each joint's calibration: the tick count at angle 0 (its middle) and its direction.
A trajectory is streamed as goal positions of all arm joints in one broadcast SYNC WRITE every
`stream_period_s`, paced by the driver's clock: the wall clock on a real bus, the world's time on the
simulation's virtual bus (`sim.twin_bus`), where the servos move only while the host waits.

It keeps the driver contract of `robot.arm.interface`. A broadcast gets no answer, so after each one
the driver reads every servo's torque-enable and goal registers back in one SYNC READ, the gripper's
too: a goal that is not there means the packet was lost on the wire and never ran, so it is sent once
more (nothing is repeated blindly); a servo with its torque off has powered up again, which is a
restart (`ArmResetError`), seen within one command. Goals stay within the tighter of the setup's
range and the servo's own limits; a goal clamped there is logged and counted in `clamps`. On any
error the arm is held where it stands (goal = present position, torque kept on) before the error
goes up.

The gripper closes towards the closed end of its recorded range with its torque limited; where it
stops short pushing, it holds a disc, and its goal is set to where it stands (never held against the
disc at its limit); where it arrives, it closed on nothing, and `grip()` says so.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from robot.arm import Arm, ArmCommandError, ArmConfig, ArmStatus, SerialConfig
from robot.arm.drivers import feetech_servos as servos
from robot.arm.drivers import feetech_wire as wire
from robot.arm.drivers.feetech_clock import Clock, ClockDeadline, WallClock
from robot.arm.drivers.feetech_link import ServoLink
from robot.arm.drivers.serial_link import Deadline
from robot.arm.trajectory import JointTrajectory

log = logging.getLogger(__name__)

SETTLE_MARGIN_S = 3.0
POLL_S = 0.01
ARRIVED_TICKS = 8
CLAMP_TOLERANCE_TICKS = 46  # about 4 degrees: farther past the range is a plan that does not fit, refused
GRIPPER_OPEN_FRACTION = 0.9  # open this far from the closed end of the gripper's range
SO101_NAMES = ("shoulder_pan", "shoulder_lift", "elbow_flex", "wrist_flex", "wrist_roll", "gripper")


@dataclass(frozen=True)
class ServoJoint:
    """One joint's servo: its bus id, the tick count at joint angle 0, +1 or -1 for its direction."""

    servo_id: int
    middle: int = wire.TICKS_PER_TURN // 2
    direction: int = 1


@dataclass(frozen=True)
class FeetechLayout:
    """Which servos are the arm's joints and which the gripper, the gripper's open and closed ticks, each
    servo's calibrated range, and the joints' names for messages."""

    joints: tuple[ServoJoint, ...]
    gripper_id: int
    gripper_open: int = 2048 + 600
    gripper_closed: int = 2048
    ranges: dict[int, tuple[int, int]] = field(default_factory=dict)  # calibrated ticks per servo id
    names: dict[int, str] = field(default_factory=dict)

    @property
    def ids(self) -> tuple[int, ...]:
        return (*(j.servo_id for j in self.joints), self.gripper_id)

    @classmethod
    def from_settings(cls, serial: SerialConfig) -> FeetechLayout:
        """The layout the `[arm]` settings give: open and closed from the gripper's range where it has one (closed
        at the end its direction closes to), else the middle and 600 ticks past it."""
        ids = serial.servo_ids
        middles = serial.servo_middles or (wire.TICKS_PER_TURN // 2,) * len(ids)
        directions = serial.servo_directions or (1,) * len(ids)
        joints = tuple(ServoJoint(*values) for values in zip(ids[:-1], middles[:-1], directions[:-1], strict=True))
        ranges = dict(zip(ids, serial.servo_ranges, strict=True)) if serial.servo_ranges else {}
        names = dict(zip(ids, SO101_NAMES, strict=False)) if len(ids) == len(SO101_NAMES) else {}
        direction = directions[-1]
        if ids[-1] in ranges:
            low, high = ranges[ids[-1]]
            closed = low if direction > 0 else high
            opened = round(closed + direction * GRIPPER_OPEN_FRACTION * (high - low))
        else:
            closed, opened = middles[-1], middles[-1] + 600 * direction
        return cls(joints, ids[-1], opened, closed, ranges, names)


# The SO-100 / SO-101 as LeRobot numbers its servos: shoulder pan 1, shoulder lift 2, elbow flex 3,
# wrist flex 4, wrist roll 5, gripper 6. Middles, directions and ranges come from `c4robot calibrate arm` (or
# LeRobot's file, `--from-lerobot`: the gripper closes towards range_min with drive mode 0, its 0 of 0..100).
SO101_LAYOUT = FeetechLayout.from_settings(SerialConfig())


class FeetechArm(Arm):
    """A Feetech servo bus arm; the layout says which servo is which joint, the clock how time goes (`WallClock`)."""

    def __init__(self, config: ArmConfig, layout: FeetechLayout | None = None, clock: Clock | None = None) -> None:
        self.config = config
        self.clock = clock or WallClock()
        self.settings = config.serial
        self.layout = layout or FeetechLayout.from_settings(config.serial)
        self.dof = len(self.layout.joints)
        self.bus = ServoLink(self.settings, self.layout.names)
        self.link = self.bus.link
        self.allowed: dict[int, tuple[int, int]] = {}  # goal ranges: the setup's within the servo's limits
        self.clamps: list[tuple[int, int, int]] = []  # (servo id, asked, sent) for every clamped goal
        self.grip_sense: servos.GripSense | None = None

    @property
    def port(self) -> str:
        return self.settings.port

    # -- link ------------------------------------------------------------------------------

    def connect(self) -> None:
        """Open the bus, find every servo (PING), check and set their EEPROM, switch torque on."""
        self.link.open()
        try:
            self._find_servos()
            self._check_eeprom()
            self._holding_on_error(lambda: self.set_torque(True))
        except BaseException:
            self.link.close()
            raise

    def close(self) -> None:
        self.link.close()

    def _find_servos(self) -> None:
        deadline = Deadline(self.settings.handshake_timeout_s)
        missing = list(self.layout.ids)
        while missing and not deadline.is_expired:
            missing = [i for i in missing if self.bus.exchange(wire.instruction(i, wire.PING), i) is None]
        if len(missing) == len(self.layout.ids):
            raise TimeoutError(
                f"servo bus on {self.port} is silent: no servo answered in {self.settings.handshake_timeout_s:.0f} s; "
                f"check the bus's power supply, the port and the baud rate ({self.settings.baud_rate})"
            )
        if missing:
            raise ConnectionError(
                f"servo bus on {self.port}: servos {missing} do not answer; check their cables and ids"
            )

    def _check_eeprom(self) -> None:
        """Each servo's offset and limits against the setup, goals' ranges from both, the gripper's protection."""
        serial, ids = self.settings, self.layout.ids
        offsets = dict(zip(ids, serial.servo_homing_offsets, strict=True)) if serial.servo_homing_offsets else {}
        limits = dict(zip(ids, serial.servo_limits, strict=True)) if serial.servo_limits else {}
        eeproms = self.bus.read_all(ids, servos.EEPROM_FIRST, servos.EEPROM_LENGTH)
        for servo_id in ids:
            eeprom = servos.ServoEeprom.parse(eeproms[servo_id])
            where = f"{self.bus.name(servo_id)} on {self.port}"
            servos.check_against_setup(where, eeprom, offsets.get(servo_id), limits.get(servo_id))
            self.allowed[servo_id] = servos.tighter_range(self.layout.ranges.get(servo_id), eeprom.limits, where)
            wanted = servos.wanted_eeprom(servo_id == self.layout.gripper_id, serial.servo_return_delay_us)
            self.bus.write_eeprom(servo_id, wanted, eeprom.registers)
        gripper = self.layout.gripper_id
        if wire.read_word(self.bus.read(gripper, wire.TORQUE_LIMIT, 2)) > servos.GRIPPER_TORQUE_LIMIT:
            self.bus.write(gripper, wire.TORQUE_LIMIT, wire.word(servos.GRIPPER_TORQUE_LIMIT))

    def _sync_goals(self, goals: dict[int, int]) -> None:
        """Goal positions of several servos in one broadcast, checked by reading them back."""
        for _ in range(self.settings.retries + 1):
            self.bus.sync_write(wire.GOAL_POSITION, {i: wire.word(t) for i, t in goals.items()})
            if self._goals_taken(goals):
                return
            log.info("servo bus on %s: a goal broadcast was lost, sending it again", self.port)
        raise TimeoutError(f"servos on {self.port} did not take their goal positions: check the bus's cables")

    def _goals_taken(self, goals: dict[int, int]) -> bool:
        """Every servo's torque enable (a restart switches it off) and the joints' goals, in one SYNC READ."""
        data = self.bus.read_all(self.layout.ids, wire.TORQUE_ENABLE, 4)  # torque, acceleration, goal position
        self.bus.check_powered({i: d[:1] for i, d in data.items()})
        return all(wire.read_word(data[i], 2) == ticks for i, ticks in goals.items())

    def _present(self, ids: tuple[int, ...]) -> dict[int, servos.ServoState]:
        """The state of `ids` in one SYNC READ, each checked for a restart (its torque off)."""
        data = self.bus.read_all(ids, servos.ServoState.FIRST, servos.ServoState.LENGTH)
        self.bus.check_powered({i: d[:1] for i, d in data.items()})
        return {i: servos.ServoState.parse(d) for i, d in data.items()}

    def _present_ticks(self) -> dict[int, int]:
        """Where the arm's joint servos stand (the gripper's is read on its own)."""
        ids = tuple(j.servo_id for j in self.layout.joints)
        return {i: wire.read_word(d) for i, d in self.bus.read_all(ids, wire.PRESENT_POSITION, 2).items()}

    def _ticks(self, q: np.ndarray) -> dict[int, int]:
        """Goal ticks of the joints within their allowed ranges: a goal a little past is clamped and logged, one
        far past is an ArmCommandError (the plan does not fit the arm)."""
        goals = {}
        for joint, angle in zip(self.layout.joints, q, strict=True):
            ticks = wire.ticks_from_rad(float(angle), joint.middle, joint.direction)
            low, high = self.allowed.get(joint.servo_id, (0, wire.TICKS_PER_TURN - 1))
            if not low - CLAMP_TOLERANCE_TICKS <= ticks <= high + CLAMP_TOLERANCE_TICKS:
                raise ArmCommandError(
                    f"{self.bus.name(joint.servo_id)} on {self.port}: goal {ticks} is beyond its calibrated range "
                    f"{low}..{high}; check the planner's joint limits or run `c4robot calibrate arm` again"
                )
            goals[joint.servo_id] = min(max(ticks, low), high)
            if goals[joint.servo_id] != ticks:
                self.clamps.append((joint.servo_id, ticks, goals[joint.servo_id]))
                log.warning(
                    "%s on %s: goal %d clamped to %d, the edge of its range %d..%d",
                    self.bus.name(joint.servo_id),
                    self.port,
                    ticks,
                    goals[joint.servo_id],
                    low,
                    high,
                )
        return goals

    def servo_ticks(self) -> dict[int, int]:
        """Every servo's present position in ticks (the gripper's too), for calibration."""
        return {i: wire.read_word(d) for i, d in self.bus.read_all(self.layout.ids, wire.PRESENT_POSITION, 2).items()}

    def servo_eeprom(self) -> dict[int, tuple[int, tuple[int, int]]]:
        """Every servo's homing offset and EEPROM position limits, for calibration to record."""
        data = self.bus.read_all(self.layout.ids, servos.EEPROM_FIRST, servos.EEPROM_LENGTH)
        parsed = {i: servos.ServoEeprom.parse(d) for i, d in data.items()}
        return {i: (eeprom.homing_offset, eeprom.limits) for i, eeprom in parsed.items()}

    def set_torque(self, on: bool) -> None:
        """Torque on or off on every servo (off: the joints can be moved by hand, for calibration, and a hot servo
        cools). Off goes through whatever a servo's status reports: it is how an arm with a fault is made safe."""
        self.bus.stopping = not on
        try:
            for servo_id in self.layout.ids:
                self.bus.write(servo_id, wire.TORQUE_ENABLE, bytes([int(on)]))
        finally:
            self.bus.stopping = False

    def _wait_arrived(self, goals: dict[int, int], timeout_s: float) -> None:
        deadline = ClockDeadline(self.clock, timeout_s)
        while True:
            present = self._present(tuple(goals))
            short = {i: p.position for i, p in present.items() if abs(p.position - goals[i]) > ARRIVED_TICKS}
            if not short:
                return
            standing = [i for i in short if not present[i].moving]
            if standing:
                self._explain_standing(standing[0], short[standing[0]], goals[standing[0]])
            if deadline.is_expired:
                raise TimeoutError(f"arm on {self.port} did not arrive in {timeout_s:.1f} s: check for a blocked joint")
            self.clock.sleep(POLL_S)

    def _explain_standing(self, servo_id: int, present: int, goal: int) -> None:
        """A servo that stopped short of its goal: its limits changed behind our back, or something blocks it."""
        eeprom = servos.ServoEeprom.parse(self.bus.read(servo_id, servos.EEPROM_FIRST, servos.EEPROM_LENGTH))
        low, high = eeprom.limits
        if not low <= goal <= high:
            raise servos.ServoSetupError(
                f"{self.bus.name(servo_id)} on {self.port} stopped at {present}, short of its goal {goal}: its "
                f"position limits are now {low}..{high}, changed since connect; run `c4robot calibrate arm` again"
            )

    def _holding_on_error(self, action: Callable[[], object]) -> object:
        try:
            return action()
        except BaseException as error:
            log.warning("holding the arm after: %s", error or type(error).__name__)
            if self.link.is_open:
                with contextlib.suppress(Exception):
                    self.stop()
            raise

    # -- the gripper -----------------------------------------------------------------------

    def _close_gripper(self) -> servos.GripSense:
        """Close until the gripper arrives (nothing held) or stops short pushing (a disc): then its goal is set
        where it stands. Still pushing hard after that is overloaded, an ArmCommandError."""
        gripper = self.layout.gripper_id
        self.bus.write(gripper, wire.GOAL_POSITION, wire.word(self.layout.gripper_closed))
        deadline, last = ClockDeadline(self.clock, SETTLE_MARGIN_S), None
        while True:
            state = self._present((gripper,))[gripper]
            present = state.position
            if (not state.moving or present == last) and (
                sense := servos.sense_grip(present, self.layout.gripper_closed, state.load, ARRIVED_TICKS)
            ):
                break
            if deadline.is_expired:
                raise TimeoutError(f"the gripper on {self.port} did not close in {SETTLE_MARGIN_S:.0f} s")
            last = present
            self.clock.sleep(POLL_S)
        if sense is servos.GripSense.HOLDING:
            self.bus.write(gripper, wire.GOAL_POSITION, wire.word(present))
            self.clock.sleep(POLL_S)
            load = self._present((gripper,))[gripper].load
            if load >= servos.OVERLOADED_LOAD:
                raise ArmCommandError(
                    f"the gripper on {self.port} is overloaded (load {load / 10:.0f} % with its goal where it "
                    "stands): check what it holds and its jaws"
                )
        return sense

    def _open_gripper(self) -> None:
        gripper = self.layout.gripper_id
        self.bus.write(gripper, wire.GOAL_POSITION, wire.word(self.layout.gripper_open))
        deadline = ClockDeadline(self.clock, SETTLE_MARGIN_S)
        while self._present((gripper,))[gripper].moving and not deadline.is_expired:
            self.clock.sleep(POLL_S)

    # -- Arm -------------------------------------------------------------------------------

    def home(self) -> None:
        """Move to the configured home (all joints at their middle when none is set)."""
        home = np.array(self.config.home_rad) if self.config.home_rad is not None else np.zeros(self.dof)
        start = self.joint_state()
        if np.max(np.abs(home - start)) > 1e-3:
            self.follow(JointTrajectory.through([start, home], self.config.limits(self.dof)))

    def joint_state(self) -> np.ndarray:
        def read() -> np.ndarray:
            present = self._present_ticks()
            return np.array(
                [wire.rad_from_ticks(present[j.servo_id], j.middle, j.direction) for j in self.layout.joints]
            )

        return self._holding_on_error(read)

    def follow(self, trajectory: JointTrajectory) -> None:
        times, points = trajectory.sample(self.settings.stream_period_s)

        def motion() -> None:
            started = self.clock.now_s()
            for t, q in zip(times[1:], points[1:], strict=True):
                self.clock.sleep(started + t - self.clock.now_s())
                self._sync_goals(self._ticks(q))
            self._wait_arrived(self._ticks(points[-1]), SETTLE_MARGIN_S)

        self._holding_on_error(motion)

    def grip(self) -> bool:
        """Close the gripper; True when it senses a disc between its jaws."""
        self.grip_sense = self._holding_on_error(self._close_gripper)
        return self.grip_sense is servos.GripSense.HOLDING

    def release(self) -> None:
        self._holding_on_error(self._open_gripper)
        self.grip_sense = None

    def stop(self) -> None:
        """Hold every joint where it stands (goal = present position, torque stays on); the gripper keeps its
        goal, so a held disc does not drop."""
        self.bus.stopping = True
        try:
            self._sync_goals(self._present_ticks())
        finally:
            self.bus.stopping = False

    def status(self) -> ArmStatus:
        """Joints, moving, the grip as sensed, and every servo's temperature and voltage; a hot servo is a
        `ServoHotError` (from its status packet's overheat bit)."""
        present = self._holding_on_error(lambda: self._present(self.layout.ids))
        q = [wire.rad_from_ticks(present[j.servo_id].position, j.middle, j.direction) for j in self.layout.joints]
        gripper = present[self.layout.gripper_id].position
        holding = (
            self.grip_sense is servos.GripSense.HOLDING and abs(gripper - self.layout.gripper_closed) > ARRIVED_TICKS
        )
        states = [present[i] for i in self.layout.ids]
        return ArmStatus(
            self.link.is_open,
            any(state.moving for state in states),
            holding,
            tuple(float(v) for v in q),
            temperatures_c=tuple(state.temperature_c for state in states),
            voltages_v=tuple(state.voltage_v for state in states),
        )

    def now_s(self) -> float:
        return self.clock.now_s()

    def wait(self, duration_s: float) -> None:
        self.clock.sleep(duration_s)
