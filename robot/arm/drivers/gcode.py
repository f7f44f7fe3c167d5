"""Driver for Cartesian desktop arms that take G-code (uArm Swift Pro, GRBL-based arms).

These arms do their own inverse kinematics: the driver turns a joint trajectory into tool positions
and short moves (`gcode_lines`); the arm's planner runs the moves; the driver then polls until the
arm is idle.

It keeps the driver contract of `robot.arm.interface`. Every command that changes the arm carries
its `Effect` (where the tool goes, the wrist angle, the pump's state). When its answer is lost,
garbled or late, or the port went away meanwhile, the driver asks the arm: it waits until the arm
is idle (an answer that arrives meanwhile settles it), then reads the position, the wrist angle or
the pump's state. If the effect is there the command ran; if not it never ran and is sent once more.
A command is never repeated blindly. A reset is seen by its start line (`@1` on a uArm, GRBL's
banner) and raises `ArmResetError`. A start line can be lost while the port reopens (the opening
flushes what came before), so after a reopen GRBL's tool number is read back (set to T1 at connect,
T0 after a restart), and an arm found neither where its last acknowledged command left it nor where
the unsettled one sends it, or with its pump not as it was set, restarted too. `ALARM:n` and
`error:n` are named in words, the last alarm also in the lock-out that follows it. On any error the
arm gets a feed hold (and on GRBL a soft reset that empties its planner) before the error goes up.
"""

from __future__ import annotations

import contextlib
import logging
import math
import time
from collections.abc import Callable

import numpy as np

from robot.arm import Arm, ArmCommandError, ArmConfig, ArmResetError, ArmStatus
from robot.arm.drivers import gcode_lines as gl
from robot.arm.drivers import gcode_wire as wire
from robot.arm.drivers.gcode_lines import Effect
from robot.arm.drivers.serial_link import Deadline, LineLink, PortLostError
from robot.arm.kinematics import KinematicChain, pose_from_position_yaw
from robot.arm.trajectory import JointTrajectory

log = logging.getLogger(__name__)

STATUS_POLL_S = 0.02
SETTLE_MARGIN_S = 3.0
POSITION_TOLERANCE_MM = 0.5
ANGLE_TOLERANCE_DEG = 0.5
REST_TOLERANCE_MM = 2.0  # an arm farther than this from where it was left has moved on its own
STOP_TIMEOUT_S = 2.0


class _LateAnswer(Exception):
    """The answer of the command being resolved arrived after all (it ran)."""


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
        self._unresolved_seq: int | None = None  # uArm: the command whose answer is missing
        self._resolving = False  # GRBL: an ok before a query's data line is the missing answer
        self._starting = True  # a start line is expected (at connect, after our own soft reset)
        self._q = chain.clamp(np.array(config.home_rad) if config.home_rad is not None else np.zeros(chain.dof))
        self._gripping = False
        self._rest_mm: np.ndarray | None = None  # where the acknowledged commands leave the tool, None: unknown
        self._pump: bool | None = None  # the pump as the acknowledged commands set it
        self._marked = False  # GRBL: the restart marker (tool number) is set
        self._alarm = ""  # GRBL: the last alarm heard, named again in the lock-out that follows it

    @property
    def port(self) -> str:
        return self.settings.port

    def connect(self) -> None:
        """Open the port and ask for the firmware version; errors name the port and what to check."""
        self.link.open()
        try:
            self.firmware = self._handshake()
            log.info("G-code arm on %s: %s", self.port, self.firmware)
            self._mark()
            self._rest_mm, self._pump = self._position_mm(), self._suction_on()
            self._q = self.joint_state()
        except BaseException:
            self.link.close()
            raise

    def close(self) -> None:
        self.link.close()

    def _handshake(self) -> str:
        self._starting = True
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
                self._starting = False
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

    def _restarted(self, evidence: str) -> ArmResetError:
        return ArmResetError(
            f"arm on {self.port} restarted ({evidence}) and lost its motion: check its power supply, clear its "
            "way, then home it and play on"
        )

    # -- one exchange ----------------------------------------------------------------------

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
            answer = (
                self._uarm_line(text, command) if self.dialect == "uarm" else self._grbl_line(text, command, values)
            )
            if answer is not None:
                return answer
            if heard is not None and text.strip() and not text.startswith(("@", "<", "[", "Grbl")):
                heard.append(line)
        return None

    def _uarm_line(self, text: str, command: str) -> tuple[str, ...] | None:
        if text.strip() == wire.UARM_READY and not self._starting:
            raise self._restarted(f"it said {text.strip()!r}")
        reply = wire.parse_uarm_reply(text)
        if reply is None:
            return None
        if reply.seq == self._unresolved_seq and reply.seq != self._seq:
            if not reply.is_ok:
                raise ArmCommandError(f"arm on {self.port} refused a command: {reply.error}")
            raise _LateAnswer
        if reply.seq != self._seq:
            return None
        if not reply.is_ok:
            raise ArmCommandError(f"arm on {self.port} refused {command!r}: error {reply.error}")
        return reply.values

    def _grbl_line(self, text: str, command: str, values: list[str]) -> tuple[str, ...] | None:
        parsed = wire.parse_grbl_line(text)
        if parsed.kind == "banner" and not self._starting:
            raise self._restarted(f"it said {text.strip()!r}")
        if parsed.kind == "alarm":
            self._alarm = parsed.meaning
            raise ArmCommandError(f"arm on {self.port}: {parsed.meaning}")
        if self._resolving and parsed.kind in ("ok", "error") and not values and command != wire.STATUS_QUERY:
            if parsed.kind == "error":
                raise ArmCommandError(f"arm on {self.port} refused a command: {self._why(parsed)}")
            raise _LateAnswer  # answers come in order: this one is for the command being resolved
        if parsed.kind == "status" and command == wire.STATUS_QUERY:
            return (parsed.state, *(f"{axis}{value}" for axis, value in zip("XYZ", parsed.position_mm, strict=True)))
        if parsed.kind == "ok" and command != wire.STATUS_QUERY:
            return tuple(values)
        if parsed.kind == "error" and command != wire.STATUS_QUERY:
            raise ArmCommandError(f"arm on {self.port} refused {command!r}: {self._why(parsed)}")
        if parsed.kind == "data":
            values.append(parsed.text)
        return None

    def _why(self, parsed: wire.GrblLine) -> str:
        return wire.refusal_text(parsed, self._alarm)

    # -- commands --------------------------------------------------------------------------

    def _query(self, command: str) -> tuple[str, ...]:
        """A query changes nothing, so asking again after a lost answer is safe."""
        return self._command(command, None)

    def _command(self, command: str, effect: Effect | None) -> tuple[str, ...]:
        """Run `command` once: its answer, or (answer lost) the arm's own word on whether it ran."""
        tries = self.settings.retries + 1
        for attempt in range(tries):
            try:
                values = self._exchange(command, Deadline(self.settings.reply_timeout_s))
            except PortLostError:
                log.warning("arm on %s: port lost during %r, reconnecting", self.port, command)
                self._reconnect()
                values = None
            except wire.GcodeReplyError as error:
                log.info("arm on %s: unreadable answer to %r: %s", self.port, command, error)
                values = None
            if values is not None:
                self._note(effect)
                return values
            if effect is not None and self._ran(effect):
                log.info("arm on %s: %r ran (its answer was lost)", self.port, command)
                self._note(effect)
                return ()
            log.info("arm on %s: no answer to %r, try %d", self.port, command, attempt + 1)
        raise TimeoutError(
            f"arm on {self.port} did not acknowledge {command!r} after {tries} tries "
            f"of {self.settings.reply_timeout_s:.1f} s: check the cable and the arm's power"
        )

    def _reconnect(self) -> None:
        """Reopen the port; a start line said meanwhile may be lost with the opening, so GRBL's marker is read."""
        self.link.reopen(self.settings.reconnect_attempts)
        if self.dialect == "grbl" and self._marked:
            modes = [value for value in self._query("$G") if value.startswith("[GC:")]
            tool = wire.tool_number(modes[0]) if modes else None
            if tool != int(wire.RESTART_MARKER[1:]):
                raise self._restarted(f"its tool number T{tool}, set {wire.RESTART_MARKER}")

    def _mark(self) -> None:
        """GRBL: set the tool number that a restart clears (a T word moves nothing)."""
        if self.dialect == "grbl":
            self._query(wire.RESTART_MARKER)
            self._marked = True

    def _note(self, effect: Effect | None) -> None:
        """An acknowledged command's effect: where the tool rests once idle, the pump's state."""
        if effect is not None:
            self._rest_mm = self._rest_mm if effect.position_mm is None else np.array(effect.position_mm)
            self._pump = self._pump if effect.suction is None else effect.suction

    def _check_left_alone(self, position_mm: np.ndarray, effect: Effect) -> None:
        """ArmResetError for an arm neither where the acknowledged commands left it nor where `effect` sends
        it, or with its pump not as set: it lost its motion (a restart whose start line was lost)."""
        if self._rest_mm is not None and np.linalg.norm(position_mm - self._rest_mm) > REST_TOLERANCE_MM:
            raise self._restarted(f"found at {position_mm.round(1).tolist()} mm, left at {self._rest_mm.tolist()}")
        if effect.suction is None and self._pump is not None and self._suction_on() != self._pump:
            raise self._restarted(f"its pump found {'off' if self._pump else 'on'}")

    def _ran(self, effect: Effect) -> bool:
        """Ask the arm whether the command with `effect` ran: wait until idle, then compare its state."""
        self._unresolved_seq, self._resolving = self._seq, True
        try:
            self._wait_idle(SETTLE_MARGIN_S + 10.0)
            position_mm = self._position_mm()
            target = effect.position_mm
            if target is not None and np.linalg.norm(position_mm - target) < POSITION_TOLERANCE_MM:
                return True
            self._check_left_alone(position_mm, effect)
            if target is not None:
                return False
            if effect.wrist_deg is not None:
                return abs(self._wrist_deg() - effect.wrist_deg) <= ANGLE_TOLERANCE_DEG
            return self._suction_on() == effect.suction
        except _LateAnswer:
            return True
        finally:
            self._unresolved_seq, self._resolving = None, False

    def _position_mm(self) -> np.ndarray:
        values = self._query(wire.format_query("position", self.dialect))
        return np.array(wire.parse_position(tuple(v for v in values if v[:1] in "XYZ")))

    def _wrist_deg(self) -> float:
        return wire.parse_angle(self._query(wire.format_wrist_query()))

    def _suction_on(self) -> bool:
        values = self._query(wire.format_query("suction", self.dialect))
        if self.dialect == "uarm":
            return wire.parse_angle(values) != 0  # P2231 answers V0 (off), V1 (on) or V2 (holding)
        return any(wire.coolant_on(value) for value in values if value.startswith("[GC:"))

    def _is_moving(self) -> bool:
        values = self._query(wire.format_query("moving", self.dialect))
        if self.dialect == "uarm":
            return values[:1] == ("V1",)
        if values[:1] == ("Alarm",):
            raise ArmCommandError(
                f"arm on {self.port} is in GRBL's alarm state{wire.after_alarm(self._alarm)} and ignores moves: home it (c4robot "
                "homes it at the start of a game) or unlock it"
            )
        return values[:1] not in (("Idle",),)

    def _wait_idle(self, timeout_s: float) -> None:
        deadline = Deadline(timeout_s)
        while self._is_moving():
            if deadline.is_expired:
                raise TimeoutError(
                    f"arm on {self.port} still moving after {timeout_s:.1f} s: check for a blocked joint"
                )
            time.sleep(STATUS_POLL_S)

    def _stopping_on_error(self, action: Callable[[], object]) -> object:
        """Run `action`; on any error (Ctrl-C too) hold the feed, as far as the arm can be reached, then raise."""
        try:
            return action()
        except BaseException as error:
            log.warning("stopping the arm after: %s", error or type(error).__name__)
            if self.link.is_open:
                with contextlib.suppress(Exception):
                    self.stop()
            raise

    def _run(self, steps: list[gl.Line], timeout_s: float) -> None:
        def motion() -> None:
            for line, effect in steps:
                self._command(line, effect)
            self._wait_idle(timeout_s)

        self._stopping_on_error(motion)

    # -- Arm -------------------------------------------------------------------------------

    def home(self) -> None:
        """Go to the configured home (these arms know their position from absolute encoders); on GRBL in
        its alarm state (after a reset or a stop mid-move) unlock first: homing is what was asked for."""
        target = self.chain.clamp(np.array(self.config.home_rad) if self.config.home_rad is not None else self._q)
        if self.dialect == "grbl" and self._query(wire.STATUS_QUERY)[:1] == ("Alarm",):
            log.warning("arm on %s: unlocking GRBL's alarm state to go home", self.port)
            self._query("$X")
            self._alarm = ""
        if self.dialect == "grbl" and not self._marked:
            self._mark()
        steps = [gl.wrist_line(target[-1])] if self.dialect == "uarm" else []
        steps.append(gl.move_line(gl.tool_mm(self.chain, target), 3000.0, self.dialect))
        self._run(steps, 30.0)
        self._q = target

    def joint_state(self) -> np.ndarray:
        """Joint angles solved from the tool position the arm reports (tool vertical, last yaw kept)."""
        position_mm = self._stopping_on_error(self._position_mm)
        wrist_rad = self._q[-1]
        if self.dialect == "uarm":
            wrist_rad = math.radians(self._stopping_on_error(self._wrist_deg) - gl.WRIST_CENTRE_DEG)
        base_yaw = math.atan2(position_mm[1], position_mm[0])
        target = pose_from_position_yaw(position_mm / 1000.0, base_yaw + wrist_rad)
        self._q = self.chain.inverse(target, seed=self._q, tolerance_m=2e-4).q
        return self._q.copy()

    def follow(self, trajectory: JointTrajectory) -> None:
        self._run(
            gl.trajectory_lines(self.chain, trajectory, self._q[-1], self.dialect),
            trajectory.duration_s + SETTLE_MARGIN_S,
        )
        self._q = trajectory.end.copy()

    def grip(self) -> bool:
        self._run([gl.suction_line(True, self.dialect)], SETTLE_MARGIN_S)
        self._gripping = True
        return True

    def release(self) -> None:
        self._run([gl.suction_line(False, self.dialect)], SETTLE_MARGIN_S)
        self._gripping = False

    def stop(self) -> None:
        """Feed hold now (a real-time byte, not queued) and wait for the arm to stand; GRBL then gets a soft
        reset that empties its planner, and its start banner is expected, not taken for a restart."""
        self.link.write(wire.FEED_HOLD)
        self._rest_mm = None  # held wherever it was
        deadline = Deadline(STOP_TIMEOUT_S)
        with contextlib.suppress(TimeoutError, ArmCommandError):
            while not deadline.is_expired and self._moving_after_hold():
                time.sleep(STATUS_POLL_S)
        if self.dialect == "grbl":
            self._starting, self._marked = True, False  # the soft reset clears the marker too
            try:
                self.link.write(wire.SOFT_RESET)
                self._await_banner(Deadline(STOP_TIMEOUT_S))
            finally:
                self._starting = False

    def _moving_after_hold(self) -> bool:
        if self.dialect == "uarm":
            return self._is_moving()
        return self._query(wire.STATUS_QUERY)[0] not in ("Idle", "Hold:0", "Alarm")

    def _await_banner(self, deadline: Deadline) -> None:
        while (line := self.link.read_line(deadline)) is not None:
            if wire.parse_grbl_line(line.decode("ascii", "replace")).kind == "banner":
                return

    def status(self) -> ArmStatus:
        return ArmStatus(self.link.is_open, self._is_moving(), self._gripping, tuple(float(v) for v in self._q))

    def now_s(self) -> float:
        return time.monotonic()

    def wait(self, duration_s: float) -> None:
        time.sleep(max(0.0, duration_s))
