"""Driver for Cartesian desktop arms that take G-code (uArm Swift Pro, GRBL-based arms).

These arms do their own inverse kinematics: the driver turns a joint trajectory into tool positions
(forward kinematics of the configured URDF, base frame, mm) and sends one move per piece of at most
`PIECE_S`, with the feed rate that keeps the trajectory's timing; the wrist yaw goes as the uArm's
wrist servo angle (90 + yaw in degrees). The arm's planner runs the moves; the driver then polls until
the arm is idle.

Acknowledgement: uArm answers carry the command's number (`#n` -> `$n`), so answers that are late
or stale are told apart; every command this driver sends is absolute (go to, switch on/off, query),
so sending it again after a lost answer cannot move the arm twice, and it is repeated up to
`retries` times. GRBL answers carry no number: a lost answer cannot be matched safely, so the
driver stops with a TimeoutError rather than guess. Ctrl-C during a motion sends a feed hold.
"""

from __future__ import annotations

import logging
import math
import time

import numpy as np

from robot.arm import Arm, ArmConfig, ArmStatus
from robot.arm.drivers import gcode_wire as wire
from robot.arm.drivers.serial_link import Deadline, LineLink, PortLostError
from robot.arm.kinematics import KinematicChain, pose_from_position_yaw
from robot.arm.trajectory import JointTrajectory

log = logging.getLogger(__name__)

PIECE_S = 0.25
STATUS_POLL_S = 0.02
SETTLE_MARGIN_S = 3.0
WRIST_CENTRE_DEG = 90.0


class GcodeCommandError(RuntimeError):
    """The arm answered a command with an error code."""


class GcodeArm(Arm):
    """A G-code arm on a serial port; `chain` is its kinematic model (tool link = held disc centre)."""

    def __init__(self, config: ArmConfig, chain: KinematicChain) -> None:
        self.config = config
        self.settings = config.serial
        self.dialect = self.settings.gcode_dialect
        self.chain = chain
        self.dof = chain.dof
        self.link = LineLink(self.settings.port, self.settings.baud_rate)
        self.firmware = ""
        self._seq = 0
        self._q = chain.clamp(np.array(config.home_rad) if config.home_rad is not None else np.zeros(chain.dof))
        self._gripping = False

    @property
    def port(self) -> str:
        return self.settings.port

    def connect(self) -> None:
        """Open the port and ask for the firmware version; errors name the port and what to check."""
        self.link.open()
        try:
            self.firmware = self._handshake()
        except BaseException:
            self.link.close()
            raise
        log.info("G-code arm on %s: %s", self.port, self.firmware)
        self._q = self.joint_state()

    def close(self) -> None:
        self.link.close()

    def _handshake(self) -> str:
        deadline = Deadline(self.settings.handshake_timeout_s)
        self.link.discard_input()
        heard: list[bytes] = []
        query = wire.format_query("version", self.dialect)
        while not deadline.is_expired:
            try:
                values = self._exchange(
                    query, Deadline(min(self.settings.reply_timeout_s, deadline.remaining_s())), heard
                )
            except wire.GcodeReplyError as error:
                heard.append(str(error).encode())
                continue
            if values is not None:
                return " ".join(values)
        if heard:
            raise ConnectionError(
                f"arm on {self.port} answers garbage ({heard[-1][:40]!r}) instead of G-code replies: "
                f"check the baud rate ({self.settings.baud_rate}) and the dialect ({self.dialect})"
            )
        raise TimeoutError(
            f"arm on {self.port} is silent: no answer to {query} in {self.settings.handshake_timeout_s:.0f} s; "
            "check its power, the port and the baud rate"
        )

    def _exchange(self, command: str, deadline: Deadline, heard: list[bytes] | None = None) -> tuple[str, ...] | None:
        """Send `command` once and wait for its answer: the values of `ok`, or None on timeout."""
        if self.dialect == "uarm":
            self._seq = self._seq % 9999 + 1
            self.link.write((wire.with_seq(self._seq, command) + "\n").encode("ascii"))
        else:
            self.link.write((command + ("" if command == wire.STATUS_QUERY else "\n")).encode("ascii"))
        values: list[str] = []
        while (line := self.link.read_line(deadline)) is not None:
            text = line.decode("ascii", "replace")
            if self.dialect == "uarm":
                reply = wire.parse_uarm_reply(text)
                if reply is None or reply.seq != self._seq:
                    if heard is not None and text.strip() and not text.startswith("@"):
                        heard.append(line)
                    continue
                if not reply.is_ok:
                    raise GcodeCommandError(f"arm on {self.port} refused {command!r}: {reply.error}")
                return reply.values
            parsed = wire.parse_grbl_line(text)
            if parsed.kind == "status" and command == wire.STATUS_QUERY:
                return (
                    parsed.state,
                    *(f"{axis}{value}" for axis, value in zip("XYZ", parsed.position_mm, strict=False)),
                )
            if parsed.kind == "ok":
                return tuple(values)
            if parsed.kind == "error":
                raise GcodeCommandError(f"arm on {self.port} refused {command!r}: {parsed.text}")
            if parsed.text.startswith("["):
                values.append(parsed.text)
            elif heard is not None and parsed.text:
                heard.append(line)
        return None

    def _command(self, command: str) -> tuple[str, ...]:
        """One command, acknowledged; repeated after a lost answer where that is safe (uArm)."""
        tries = self.settings.retries + 1 if self.dialect == "uarm" else 1
        for attempt in range(tries):
            try:
                values = self._exchange(command, Deadline(self.settings.reply_timeout_s))
            except PortLostError:
                log.warning("arm on %s: port lost during %r, reconnecting", self.port, command)
                self.link.reopen(self.settings.reconnect_attempts)
                if self.dialect == "grbl":
                    raise
                continue
            except wire.GcodeReplyError as error:
                log.info("arm on %s: unreadable answer to %r: %s", self.port, command, error)
                continue
            if values is not None:
                return values
            log.info("arm on %s: no answer to %r, try %d", self.port, command, attempt + 1)
        raise TimeoutError(
            f"arm on {self.port} did not acknowledge {command!r} after {tries} "
            f"tr{'ies' if tries > 1 else 'y'} of {self.settings.reply_timeout_s:.1f} s: check the cable"
        )

    def _is_moving(self) -> bool:
        values = self._command(wire.format_query("moving", self.dialect))
        if self.dialect == "uarm":
            return values[:1] == ("V1",)
        return values[:1] not in (("Idle",),)

    def _wait_idle(self, timeout_s: float) -> None:
        deadline = Deadline(timeout_s)
        while self._is_moving():
            if deadline.is_expired:
                raise TimeoutError(
                    f"arm on {self.port} still moving after {timeout_s:.1f} s: check for a blocked joint"
                )
            time.sleep(STATUS_POLL_S)

    def _tool_mm(self, q: np.ndarray) -> np.ndarray:
        return self.chain.forward(q)[:3, 3] * 1000.0

    def _move_lines(self, trajectory: JointTrajectory) -> list[str]:
        """G-code for a trajectory; on a uArm the wrist servo turns to each segment's end angle first
        (the servo is not part of the firmware's coordinated motion)."""
        lines: list[str] = []
        wrist_deg = math.degrees(self._q[-1])
        for segment in trajectory.segments:
            if self.dialect == "uarm" and abs(math.degrees(segment.end[-1]) - wrist_deg) > 0.05:
                wrist_deg = math.degrees(segment.end[-1])
                lines.append(wire.format_wrist(WRIST_CENTRE_DEG + wrist_deg))
            pieces = max(1, math.ceil(segment.duration_s / PIECE_S))
            times = np.linspace(0.0, segment.duration_s, pieces + 1)
            for t0, t1 in zip(times, times[1:], strict=False):
                start_mm, end_mm = self._tool_mm(segment.position(t0)), self._tool_mm(segment.position(t1))
                feed = float(np.linalg.norm(end_mm - start_mm)) / max(t1 - t0, 1e-3) * 60.0
                lines.append(wire.format_move(*end_mm, feed, self.dialect))
        return lines

    def _stop_on_interrupt(self, lines: list[str], timeout_s: float) -> None:
        try:
            for line in lines:
                self._command(line)
            self._wait_idle(timeout_s)
        except KeyboardInterrupt:
            log.warning("interrupted: feed hold on %s", self.port)
            self.stop()
            raise

    # -- Arm -------------------------------------------------------------------------------

    def home(self) -> None:
        """Go to the configured home (these arms know their position from absolute encoders)."""
        target = self.chain.clamp(np.array(self.config.home_rad) if self.config.home_rad is not None else self._q)
        lines = [wire.format_wrist(WRIST_CENTRE_DEG + math.degrees(target[-1]))] if self.dialect == "uarm" else []
        lines.append(wire.format_move(*self._tool_mm(target), 3000.0, self.dialect))
        self._stop_on_interrupt(lines, 30.0)
        self._q = target

    def joint_state(self) -> np.ndarray:
        """Joint angles solved from the tool position the arm reports (tool vertical, last yaw kept)."""
        values = self._command(wire.format_query("position", self.dialect))
        position_mm = np.array(wire.parse_position(tuple(v for v in values if v[:1] in "XYZ")))
        wrist_rad = self._q[-1]
        if self.dialect == "uarm":
            wrist_rad = math.radians(wire.parse_angle(self._command(wire.format_wrist_query())) - WRIST_CENTRE_DEG)
        base_yaw = math.atan2(position_mm[1], position_mm[0])
        target = pose_from_position_yaw(position_mm / 1000.0, base_yaw + wrist_rad)
        self._q = self.chain.inverse(target, seed=self._q, tolerance_m=2e-4).q
        return self._q.copy()

    def follow(self, trajectory: JointTrajectory) -> None:
        self._stop_on_interrupt(self._move_lines(trajectory), trajectory.duration_s + SETTLE_MARGIN_S)
        self._q = trajectory.end.copy()

    def grip(self) -> bool:
        self._command(wire.format_suction(True, self.dialect))
        self._wait_idle(SETTLE_MARGIN_S)
        self._gripping = True
        return True

    def release(self) -> None:
        self._command(wire.format_suction(False, self.dialect))
        self._wait_idle(SETTLE_MARGIN_S)
        self._gripping = False

    def stop(self) -> None:
        """Feed hold now (a real-time byte, not queued); GRBL also gets a soft reset to clear its queue."""
        self.link.write(wire.FEED_HOLD)
        if self.dialect == "grbl":
            self.link.write(wire.SOFT_RESET)

    def status(self) -> ArmStatus:
        return ArmStatus(self.link.is_open, self._is_moving(), self._gripping, tuple(float(v) for v in self._q))

    def now_s(self) -> float:
        return time.monotonic()

    def wait(self, duration_s: float) -> None:
        time.sleep(max(0.0, duration_s))
