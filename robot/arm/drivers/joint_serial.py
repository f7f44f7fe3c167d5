"""Driver for servo arms run by an Arduino that speaks the joint line protocol (`joint_wire`).

It keeps the driver contract of `robot.arm.interface`. Each command gets a fresh sequence number
and waits for the answer carrying it. An answer that is lost, garbled or late makes the driver send
the same line again (same seq), up to `retries` times: the firmware runs every seq once and repeats
its stored answer, so nothing runs twice and nothing is lost. HELLO names this host session (a new
random number at every connect), so a seq of this session never meets the stored reply of an
earlier one. When the port fails the driver reopens it, says HELLO with the same session, and
compares the firmware's boot number: the same boot means a cable glitch and the pending command is
sent again (the firmware recognises its seq); a new boot means the arm restarted and lost its
motion: `ArmResetError`. A firmware reset with the port left open is noticed at the next command,
which the firmware refuses (code 6) until it hears HELLO. On any error the arm gets STOP before the
error goes up. A trajectory is streamed as points every `stream_period_s`, never more than the
firmware's queue holds.
"""

from __future__ import annotations

import contextlib
import logging
import secrets
import time
from collections.abc import Callable

import numpy as np

from robot.arm import Arm, ArmCommandError, ArmConfig, ArmResetError, ArmStatus
from robot.arm.drivers import joint_wire as wire
from robot.arm.drivers.serial_link import Deadline, LineLink, PortLostError
from robot.arm.trajectory import JointTrajectory

log = logging.getLogger(__name__)

STATUS_POLL_S = 0.02
HOME_TIMEOUT_S = 30.0
SETTLE_MARGIN_S = 3.0
HELLO_SEQ = 0

__all__ = ["ArmCommandError", "ArmResetError", "JointSerialArm"]


class JointSerialArm(Arm):
    """An Arduino servo arm on a serial port, driven by joint angles."""

    def __init__(self, config: ArmConfig) -> None:
        self.config = config
        self.settings = config.serial
        self.link = LineLink(self.settings.port, self.settings.baud_rate)
        self.hello: wire.Hello | None = None
        self.host_session = str(secrets.randbelow(10**9 - 1) + 1)
        self.dof = 0
        self._seq = 0
        self._free = 0

    @property
    def port(self) -> str:
        return self.settings.port

    # -- link ------------------------------------------------------------------------------

    def connect(self) -> None:
        """Open the port and say HELLO; FileNotFoundError / ConnectionError / TimeoutError name the port."""
        self.link.open()
        try:
            self.hello = self._handshake()
        except BaseException:
            self.link.close()
            raise
        self.dof = self.hello.dof
        self._free = self.hello.queue_size
        log.info("arm on %s: protocol %d, %d joints, boot %s", self.port, self.hello.version, self.dof, self.hello.boot)

    def close(self) -> None:
        self.link.close()

    def _handshake(self) -> wire.Hello:
        deadline = Deadline(self.settings.handshake_timeout_s)
        self.link.discard_input()
        heard: list[bytes] = []
        hello_line = wire.encode_command(wire.Command(HELLO_SEQ, "HELLO", (self.host_session,)))
        while not deadline.is_expired:
            self.link.write(hello_line)
            answer = Deadline(min(self.settings.reply_timeout_s, deadline.remaining_s()))
            while (line := self.link.read_line(answer)) is not None:
                try:
                    reply = wire.decode_reply(line)
                    if reply.seq == HELLO_SEQ and reply.is_ok:
                        hello = wire.parse_hello(reply)
                        break
                except wire.WireError:
                    pass
                heard.append(line)
            else:
                continue
            if hello.version != wire.PROTOCOL_VERSION:
                raise ConnectionError(
                    f"arm on {self.port} speaks joint protocol {hello.version}, this driver {wire.PROTOCOL_VERSION}: "
                    "flash the sketch in robot/arm/firmware/"
                )
            return hello
        if heard:
            raise ConnectionError(
                f"arm on {self.port} answers garbage ({heard[-1][:40]!r}): check the baud rate "
                f"({self.settings.baud_rate}) and that it runs the c4arm sketch from robot/arm/firmware/"
            )
        raise TimeoutError(
            f"arm on {self.port} is silent: no answer to HELLO in {self.settings.handshake_timeout_s:.0f} s; "
            "check its power, the port and the baud rate"
        )

    def _restarted(self, how: str) -> ArmResetError:
        return ArmResetError(
            f"arm on {self.port} restarted ({how}) and lost its motion: check its power supply, "
            "clear its way, then home it and play on"
        )

    def _recover(self) -> None:
        """Reopen a lost port; ArmResetError when the firmware restarted meanwhile."""
        boot = self.hello.boot if self.hello else None
        self.link.reopen(self.settings.reconnect_attempts)
        hello = self._handshake()
        if boot is not None and hello.boot != boot:
            self.hello = hello
            raise self._restarted(f"boot {boot} -> {hello.boot}")

    # -- commands --------------------------------------------------------------------------

    def _command(self, name: str, *args: str) -> wire.Reply:
        """Send one command and return its OK answer, repeating the same seq when the answer is lost."""
        self._seq = wire.next_seq(self._seq)
        line = wire.encode_command(wire.Command(self._seq, name, args))
        for attempt in range(self.settings.retries + 1):
            try:
                self.link.write(line)
                reply = self._await(self._seq, Deadline(self.settings.reply_timeout_s))
            except PortLostError:
                log.warning("arm on %s: port lost during %s, reconnecting", self.port, name)
                self._recover()
                continue
            if reply is None:
                log.info("arm on %s: no answer to %s (seq %d), try %d", self.port, name, self._seq, attempt + 1)
                continue
            if not reply.is_ok and reply.error_code == wire.RESTARTED:
                raise self._restarted("it asks for HELLO again")
            if not reply.is_ok:
                raise ArmCommandError(
                    f"arm on {self.port} refused {name}: {reply.error_text} (code {reply.error_code})"
                )
            return reply
        raise TimeoutError(
            f"arm on {self.port} did not acknowledge {name} after {self.settings.retries + 1} tries "
            f"of {self.settings.reply_timeout_s:.1f} s: check the cable and the arm's power"
        )

    def _await(self, seq: int, deadline: Deadline) -> wire.Reply | None:
        while (line := self.link.read_line(deadline)) is not None:
            try:
                reply = wire.decode_reply(line)
            except wire.WireError as error:
                log.info("arm on %s: dropped a garbled line: %s", self.port, error)
                continue
            if reply.seq == seq:
                return reply
            log.debug("arm on %s: stale answer for seq %d ignored", self.port, reply.seq)
        return None

    def _status(self) -> wire.JointStatus:
        return wire.parse_status(self._command("STATUS"))

    def _wait_idle(self, timeout_s: float) -> None:
        deadline = Deadline(timeout_s)
        while True:
            status = self._status()
            self._free = (self.hello.queue_size if self.hello else 1) - status.queued
            if status.state == "STOPPED":
                raise ArmCommandError(f"arm on {self.port} is stopped: home it before moving again")
            if status.state == "IDLE" and status.queued == 0:
                return
            if deadline.is_expired:
                raise TimeoutError(
                    f"arm on {self.port} still moving after {timeout_s:.1f} s: check for a blocked joint"
                )
            time.sleep(STATUS_POLL_S)

    def _stopping_on_error(self, action: Callable[[], object]) -> object:
        """Run `action`; on any error (Ctrl-C too) send STOP, as far as the arm can be reached, then raise."""
        try:
            return action()
        except BaseException as error:
            log.warning("stopping the arm after: %s", error or type(error).__name__)
            if self.link.is_open:
                with contextlib.suppress(Exception):
                    self.stop()
            raise

    # -- Arm -------------------------------------------------------------------------------

    def home(self) -> None:
        def motion() -> None:
            self._free = int(self._command("HOME").values[0])
            self._wait_idle(HOME_TIMEOUT_S)

        self._stopping_on_error(motion)

    def joint_state(self) -> np.ndarray:
        return self._stopping_on_error(lambda: self._status().q_rad)

    def follow(self, trajectory: JointTrajectory) -> None:
        """Stream the trajectory as timed points, then wait until the arm has reached its end."""
        times, points = trajectory.sample(self.settings.stream_period_s)

        def motion() -> None:
            for i in range(1, len(times)):
                while self._free <= 0:
                    status = self._status()
                    self._free = (self.hello.queue_size if self.hello else 1) - status.queued
                    if self._free <= 0:
                        time.sleep(STATUS_POLL_S)
                self._free = int(self._command("MOVE", *wire.move_args(times[i] - times[i - 1], points[i])).values[0])
            self._wait_idle(trajectory.duration_s + SETTLE_MARGIN_S)

        self._stopping_on_error(motion)

    def grip(self) -> bool:
        return self._stopping_on_error(lambda: self._command("GRIP").values[:1] == ("1",))

    def release(self) -> None:
        self._stopping_on_error(lambda: self._command("RELEASE"))

    def stop(self) -> None:
        """STOP: the firmware runs it in any state, even before HELLO after a reset."""
        self._command("STOP")

    def status(self) -> ArmStatus:
        status = self._status()
        return ArmStatus(
            self.link.is_open,
            status.state == "MOVING",
            status.gripping,
            tuple(float(v) for v in status.q_rad),
            "stopped: home it" if status.state == "STOPPED" else None,
        )

    def now_s(self) -> float:
        return time.monotonic()

    def wait(self, duration_s: float) -> None:
        time.sleep(max(0.0, duration_s))
