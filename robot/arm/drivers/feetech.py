"""Driver for arms of Feetech STS3215 bus servos (the SO-100 / SO-101), speaking the protocol itself over pyserial.

The packets are in `feetech_wire` (with where every address and the checksum rule were checked).
Joint angles map to servo ticks through each joint's calibration: the tick count at angle 0 (its
middle) and its direction. A trajectory is streamed as goal positions of all arm joints in one
broadcast SYNC WRITE every `stream_period_s`, paced by the wall clock; the gripper servo holds the
disc (closed = gripping).

It keeps the driver contract of `robot.arm.interface`. A broadcast gets no answer, so after each
one the driver reads every servo's torque-enable and goal registers back: a goal that is not there
means the packet was lost on the wire and never ran, so it is sent once more (the servos say it did
not run; nothing is repeated blindly); a servo with its torque off has powered up again, which is a
reset (`ArmResetError`), seen within one command. A write to one servo is answered; when the answer
is lost the register is read back instead of writing again. An error bit in a servo's status packet
(overload, overheat, voltage ...) is an `ArmCommandError` naming the servo. On any error the arm is
held where it stands (goal = present position, torque kept on) before the error goes up.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from robot.arm import Arm, ArmCommandError, ArmConfig, ArmResetError, ArmStatus, SerialConfig
from robot.arm.drivers import feetech_wire as wire
from robot.arm.drivers.serial_link import Deadline, LineLink, PortLostError
from robot.arm.trajectory import JointTrajectory

log = logging.getLogger(__name__)

SETTLE_MARGIN_S = 3.0
POLL_S = 0.01
ARRIVED_TICKS = 8


@dataclass(frozen=True)
class ServoJoint:
    """One joint's servo: its bus id, the tick count at joint angle 0, +1 or -1 for its direction."""

    servo_id: int
    middle: int = wire.TICKS_PER_TURN // 2
    direction: int = 1


@dataclass(frozen=True)
class FeetechLayout:
    """Which servos are the arm's joints and which the gripper, and the gripper's open and closed ticks."""

    joints: tuple[ServoJoint, ...]
    gripper_id: int
    gripper_open: int = 2048 + 600
    gripper_closed: int = 2048
    ranges: dict[int, tuple[int, int]] = field(default_factory=dict)  # calibrated ticks per servo id

    @property
    def ids(self) -> tuple[int, ...]:
        return (*(j.servo_id for j in self.joints), self.gripper_id)

    @classmethod
    def from_settings(cls, serial: SerialConfig) -> FeetechLayout:
        """The layout the `[arm]` settings give (servo ids, middles, directions and ranges from calibration)."""
        ids = serial.servo_ids
        middles = serial.servo_middles or (wire.TICKS_PER_TURN // 2,) * len(ids)
        directions = serial.servo_directions or (1,) * len(ids)
        joints = tuple(ServoJoint(*values) for values in zip(ids[:-1], middles[:-1], directions[:-1], strict=True))
        ranges = dict(zip(ids, serial.servo_ranges, strict=True)) if serial.servo_ranges else {}
        return cls(joints, ids[-1], middles[-1] + 600 * directions[-1], middles[-1], ranges)


# The SO-100 / SO-101 as LeRobot numbers its servos: shoulder pan 1, shoulder lift 2, elbow flex 3,
# wrist flex 4, wrist roll 5, gripper 6. Middles and directions come from `c4robot calibrate arm`.
SO101_LAYOUT = FeetechLayout.from_settings(SerialConfig())


class FeetechArm(Arm):
    """A Feetech servo bus arm; the layout says which servo is which joint."""

    def __init__(self, config: ArmConfig, layout: FeetechLayout | None = None) -> None:
        self.config = config
        self.settings = config.serial
        self.layout = layout or FeetechLayout.from_settings(config.serial)
        self.dof = len(self.layout.joints)
        self.link = LineLink(self.settings.port, self.settings.baud_rate)
        self._buffer = bytearray()
        self._gripping = False
        self._stopping = False  # a stop holds the arm even when a servo reports an error
        self._enabled: set[int] = set()  # servos whose torque this driver switched on

    @property
    def port(self) -> str:
        return self.settings.port

    # -- link ------------------------------------------------------------------------------

    def connect(self) -> None:
        """Open the bus, find every servo (PING), switch torque on."""
        self.link.open()
        try:
            self._find_servos()
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
            missing = [i for i in missing if self._exchange(wire.instruction(i, wire.PING), i) is None]
        if len(missing) == len(self.layout.ids):
            raise TimeoutError(
                f"servo bus on {self.port} is silent: no servo answered in {self.settings.handshake_timeout_s:.0f} s; "
                f"check the bus's power supply, the port and the baud rate ({self.settings.baud_rate})"
            )
        if missing:
            raise ConnectionError(
                f"servo bus on {self.port}: servos {missing} do not answer; check their cables and ids"
            )

    def _exchange(self, packet: bytes, servo_id: int, reply_bytes: int = 0) -> wire.Packet | None:
        """Send `packet` and wait for `servo_id`'s status packet with `reply_bytes` of data; None when none comes
        in time. A status packet of another length is a late answer to an earlier packet, and is skipped."""
        self._buffer.clear()
        self.link.discard_input()
        self.link.write(packet)
        deadline = Deadline(self.settings.reply_timeout_s)
        while True:
            try:
                answer = wire.take_packet(self._buffer)
            except wire.FeetechWireError as error:
                log.info("servo bus on %s: dropped a garbled packet: %s", self.port, error)
                continue
            if answer is not None and answer.servo_id == servo_id and len(answer.params) == reply_bytes:
                if answer.code and not self._stopping:
                    raise ArmCommandError(f"servo {servo_id} on {self.port} reports {answer.error_text}")
                return answer
            if answer is None:
                data = self.link.read_bytes(deadline)
                if not data:
                    return None
                self._buffer += data

    def _request(self, packet: bytes, servo_id: int, reply_bytes: int = 0) -> wire.Packet:
        """A query (PING, READ): asking again after a lost answer changes nothing."""
        for _ in range(self.settings.retries + 1):
            try:
                answer = self._exchange(packet, servo_id, reply_bytes)
            except PortLostError:
                log.warning("servo bus on %s: port lost, reconnecting", self.port)
                self.link.reopen(self.settings.reconnect_attempts)
                continue
            if answer is not None:
                return answer
        raise TimeoutError(
            f"servo {servo_id} on {self.port} did not answer {self.settings.retries + 1} times: check its cable"
        )

    def _read(self, servo_id: int, address: int, length: int) -> bytes:
        return self._request(wire.read(servo_id, address, length), servo_id, length).params

    def _write(self, servo_id: int, address: int, data: bytes) -> None:
        """One register write; a lost answer is settled by reading the register back, after checking that
        no servo whose torque is on has restarted meanwhile (its torque would be off)."""
        for _ in range(self.settings.retries + 1):
            try:
                if self._exchange(wire.write(servo_id, address, data), servo_id) is not None:
                    self._note_torque(servo_id, address, data)
                    return
            except PortLostError:
                self.link.reopen(self.settings.reconnect_attempts)
            for enabled in self._enabled - ({servo_id} if address == wire.TORQUE_ENABLE else set()):
                self._check_powered(enabled, self._read(enabled, wire.TORQUE_ENABLE, 1)[0])
            if self._read(servo_id, address, len(data)) == data:
                self._note_torque(servo_id, address, data)
                return
        raise TimeoutError(f"servo {servo_id} on {self.port} did not take a write to register {address}")

    def _note_torque(self, servo_id: int, address: int, data: bytes) -> None:
        """Keep track of the servos whose torque is on: finding one of them off means it restarted."""
        if address == wire.TORQUE_ENABLE:
            (self._enabled.add if data[0] else self._enabled.discard)(servo_id)

    def _sync_goals(self, goals: dict[int, int]) -> None:
        """Goal positions of several servos in one broadcast, checked by reading them back."""
        for _ in range(self.settings.retries + 1):
            try:
                self.link.write(wire.sync_write(wire.GOAL_POSITION, {i: wire.word(t) for i, t in goals.items()}))
            except PortLostError:
                self.link.reopen(self.settings.reconnect_attempts)
            if self._goals_taken(goals):
                return
            log.info("servo bus on %s: a goal broadcast was lost, sending it again", self.port)
        raise TimeoutError(f"servos on {self.port} did not take their goal positions: check the bus's cables")

    def _goals_taken(self, goals: dict[int, int]) -> bool:
        taken = True
        for servo_id, ticks in goals.items():
            data = self._read(servo_id, wire.TORQUE_ENABLE, 4)  # torque enable, acceleration, goal position
            self._check_powered(servo_id, data[0])
            taken &= wire.read_word(data, 2) == ticks
        return taken

    def _check_powered(self, servo_id: int, torque_enable: int) -> None:
        """A servo powers up with its torque off: finding it off after connect means it restarted."""
        if torque_enable == 0:
            raise ArmResetError(
                f"servo {servo_id} on {self.port} restarted (its torque is off) and the arm lost its motion: "
                "check the servos' power supply, clear the arm's way, then home it and play on"
            )

    def _present_ticks(self) -> dict[int, int]:
        """Where the arm's joint servos stand (the gripper's is read on its own)."""
        return {
            j.servo_id: wire.read_word(self._read(j.servo_id, wire.PRESENT_POSITION, 2)) for j in self.layout.joints
        }

    def _set_gripper(self, ticks: int) -> None:
        """Close or open the gripper and wait until it stands (closed on a disc it stalls short of its goal)."""
        gripper = self.layout.gripper_id
        self._write(gripper, wire.GOAL_POSITION, wire.word(ticks))
        deadline = Deadline(SETTLE_MARGIN_S)
        while self._read(gripper, wire.MOVING, 1)[0] and not deadline.is_expired:
            time.sleep(POLL_S)

    def _ticks(self, q: np.ndarray) -> dict[int, int]:
        """Goal ticks of the joints; ArmCommandError for a goal beyond a joint's calibrated range."""
        goals = {
            j.servo_id: wire.ticks_from_rad(float(a), j.middle, j.direction)
            for j, a in zip(self.layout.joints, q, strict=True)
        }
        for servo_id, ticks in goals.items():
            low, high = self.layout.ranges.get(servo_id, (0, wire.TICKS_PER_TURN - 1))
            if not low <= ticks <= high:
                raise ArmCommandError(
                    f"servo {servo_id} on {self.port}: goal {ticks} is beyond its calibrated range {low}..{high}; "
                    "check the planner's joint limits or run `c4robot calibrate arm` again"
                )
        return goals

    def servo_ticks(self) -> dict[int, int]:
        """Every servo's present position in ticks (the gripper's too), for calibration."""
        return {i: wire.read_word(self._read(i, wire.PRESENT_POSITION, 2)) for i in self.layout.ids}

    def set_torque(self, on: bool) -> None:
        """Torque on or off on every servo (off: the joints can be moved by hand, for calibration)."""
        for servo_id in self.layout.ids:
            self._write(servo_id, wire.TORQUE_ENABLE, bytes([int(on)]))

    def _wait_arrived(self, goals: dict[int, int], timeout_s: float) -> None:
        deadline = Deadline(timeout_s)
        while True:
            present = self._present_ticks()
            if all(abs(present[i] - t) <= ARRIVED_TICKS for i, t in goals.items()):
                return
            if deadline.is_expired:
                raise TimeoutError(f"arm on {self.port} did not arrive in {timeout_s:.1f} s: check for a blocked joint")
            time.sleep(POLL_S)

    def _holding_on_error(self, action: Callable[[], object]) -> object:
        try:
            return action()
        except BaseException as error:
            log.warning("holding the arm after: %s", error or type(error).__name__)
            if self.link.is_open:
                with contextlib.suppress(Exception):
                    self.stop()
            raise

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
            started = time.monotonic()
            for t, q in zip(times[1:], points[1:], strict=True):
                time.sleep(max(0.0, started + t - time.monotonic()))
                self._sync_goals(self._ticks(q))
            self._wait_arrived(self._ticks(points[-1]), SETTLE_MARGIN_S)

        self._holding_on_error(motion)

    def grip(self) -> bool:
        self._holding_on_error(lambda: self._set_gripper(self.layout.gripper_closed))
        self._gripping = True
        return True

    def release(self) -> None:
        self._holding_on_error(lambda: self._set_gripper(self.layout.gripper_open))
        self._gripping = False

    def stop(self) -> None:
        """Hold every joint where it stands (goal = present position, torque stays on); the gripper keeps
        squeezing, so a held disc does not drop."""
        self._stopping = True
        try:
            self._sync_goals(self._present_ticks())
        finally:
            self._stopping = False

    def status(self) -> ArmStatus:
        q = self.joint_state()
        moving = any(self._read(i, wire.MOVING, 1)[0] for i in self.layout.ids)
        return ArmStatus(self.link.is_open, moving, self._gripping, tuple(float(v) for v in q))

    def now_s(self) -> float:
        return time.monotonic()

    def wait(self, duration_s: float) -> None:
        time.sleep(max(0.0, duration_s))
