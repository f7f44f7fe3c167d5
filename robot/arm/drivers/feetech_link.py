"""The packets of one Feetech servo bus, exchanged before deadlines: queries asked again, writes settled by asking.

A broadcast gets no answer. A write to one servo is answered; when the answer is lost the register is
read back instead of writing again. SYNC READ asks every servo in one packet (each answers in turn):
one round trip for what took one per servo. An error bit in a servo's status packet is an
`ArmCommandError` naming the servo (`ServoHotError` for overheat), except while the arm is being
stopped. A servo whose torque this link switched on and that reads off has restarted (`ArmResetError`).
EEPROM registers (below address 40) are written only where they differ, with `Lock` opened around them.
"""

from __future__ import annotations

import logging

from robot.arm import ArmCommandError, ArmResetError, SerialConfig
from robot.arm.drivers import feetech_wire as wire
from robot.arm.drivers.serial_link import Deadline, LineLink, PortLostError

log = logging.getLogger(__name__)

OVERHEAT_BIT = 4


class ServoHotError(ArmCommandError):
    """A servo reports overheating: it must cool with its torque off before the game goes on."""


class ServoLink:
    """One bus: its port, the servos' names for messages, and the servos whose torque is on."""

    def __init__(self, settings: SerialConfig, names: dict[int, str]) -> None:
        self.settings = settings
        self.names = names
        self.port = settings.port
        self.link = LineLink(settings.port, settings.baud_rate)
        self.enabled: set[int] = set()
        self.stopping = False  # a stop holds the arm even when a servo reports an error
        self.round_trips = 0  # packets that waited for an answer
        self.broadcasts = 0  # packets that did not (sync writes)
        self._buffer = bytearray()

    def name(self, servo_id: int) -> str:
        joint = self.names.get(servo_id)
        return f"servo {servo_id}" + (f" ({joint})" if joint else "")

    # -- exchanges -------------------------------------------------------------------------

    def _send(self, packet: bytes) -> None:
        self._buffer.clear()
        self.link.discard_input()
        self.link.write(packet)

    def _next_packet(self, deadline: Deadline) -> wire.Packet | None:
        """The next status packet before the deadline (garbled ones dropped), None when none comes."""
        while True:
            try:
                answer = wire.take_packet(self._buffer)
            except wire.FeetechWireError as error:
                log.info("servo bus on %s: dropped a garbled packet: %s", self.port, error)
                continue
            if answer is not None:
                self._check_error(answer)
                return answer
            data = self.link.read_bytes(deadline)
            if not data:
                return None
            self._buffer += data

    def _check_error(self, answer: wire.Packet) -> None:
        if not answer.code or self.stopping:
            return
        where = f"{self.name(answer.servo_id)} on {self.port}"
        if answer.code & OVERHEAT_BIT:
            raise ServoHotError(
                f"{where} is overheating: switch the arm off and let it cool, check that nothing blocks the joint, "
                "then play on"
            )
        raise ArmCommandError(f"{where} reports {answer.error_text}")

    def exchange(self, packet: bytes, servo_id: int, reply_bytes: int = 0) -> wire.Packet | None:
        """Send `packet` and wait for `servo_id`'s status packet with `reply_bytes` of data; None when none comes
        in time. A status packet of another length is a late answer to an earlier packet, and is skipped."""
        self._send(packet)
        self.round_trips += 1
        deadline = Deadline(self.settings.reply_timeout_s)
        while (answer := self._next_packet(deadline)) is not None:
            if answer.servo_id == servo_id and len(answer.params) == reply_bytes:
                return answer
        return None

    def request(self, packet: bytes, servo_id: int, reply_bytes: int = 0) -> wire.Packet:
        """A query (PING, READ): asking again after a lost answer changes nothing."""
        for _ in range(self.settings.retries + 1):
            try:
                answer = self.exchange(packet, servo_id, reply_bytes)
            except PortLostError:
                log.warning("servo bus on %s: port lost, reconnecting", self.port)
                self.link.reopen(self.settings.reconnect_attempts)
                continue
            if answer is not None:
                return answer
        raise TimeoutError(
            f"{self.name(servo_id)} on {self.port} did not answer {self.settings.retries + 1} times: check its cable"
        )

    def read(self, servo_id: int, address: int, length: int) -> bytes:
        return self.request(wire.read(servo_id, address, length), servo_id, length).params

    def read_all(self, ids: tuple[int, ...], address: int, length: int) -> dict[int, bytes]:
        """`length` bytes at `address` of every servo in `ids`: one SYNC READ; a servo whose answer was lost is
        asked on its own."""
        answers: dict[int, bytes] = {}
        try:
            self._send(wire.sync_read(address, length, ids))
            self.round_trips += 1
            deadline = Deadline(self.settings.reply_timeout_s)
            while len(answers) < len(ids) and (answer := self._next_packet(deadline)) is not None:
                if answer.servo_id in ids and len(answer.params) == length:
                    answers[answer.servo_id] = answer.params
        except PortLostError:
            self.link.reopen(self.settings.reconnect_attempts)
        for servo_id in ids:
            if servo_id not in answers:
                answers[servo_id] = self.read(servo_id, address, length)
        return answers

    def write(self, servo_id: int, address: int, data: bytes) -> None:
        """One register write; a lost answer is settled by reading the register back, after checking that
        no servo whose torque is on has restarted meanwhile (its torque would be off)."""
        for _ in range(self.settings.retries + 1):
            try:
                if self.exchange(wire.write(servo_id, address, data), servo_id) is not None:
                    self._note_torque(servo_id, address, data)
                    return
            except PortLostError:
                self.link.reopen(self.settings.reconnect_attempts)
            others = tuple(sorted(self.enabled - ({servo_id} if address == wire.TORQUE_ENABLE else set())))
            if others:
                self.check_powered(self.read_all(others, wire.TORQUE_ENABLE, 1))
            if self.read(servo_id, address, len(data)) == data:
                self._note_torque(servo_id, address, data)
                return
        raise TimeoutError(f"{self.name(servo_id)} on {self.port} did not take a write to register {address}")

    def write_eeprom(self, servo_id: int, wanted: dict[int, bytes], present: dict[int, bytes]) -> list[int]:
        """Write the EEPROM registers of `wanted` whose `present` value differs, with Lock opened around them
        (EEPROM wears: nothing is written when all agree). Returns the addresses written."""
        changed = [address for address, data in wanted.items() if present.get(address) != data]
        if not changed:
            return []
        self.write(servo_id, wire.LOCK, b"\x00")
        try:
            for address in changed:
                self.write(servo_id, address, wanted[address])
        finally:
            self.write(servo_id, wire.LOCK, b"\x01")
        log.info("%s on %s: EEPROM registers %s written", self.name(servo_id), self.port, changed)
        return changed

    def sync_write(self, address: int, values: dict[int, bytes]) -> None:
        try:
            self.link.write(wire.sync_write(address, values))
            self.broadcasts += 1
        except PortLostError:
            self.link.reopen(self.settings.reconnect_attempts)

    # -- restarts --------------------------------------------------------------------------

    def _note_torque(self, servo_id: int, address: int, data: bytes) -> None:
        """Keep track of the servos whose torque is on: finding one of them off means it restarted."""
        if address == wire.TORQUE_ENABLE:
            (self.enabled.add if data[0] else self.enabled.discard)(servo_id)

    def check_powered(self, torque_enable: dict[int, bytes]) -> None:
        """A servo powers up with its torque off: one of ours found off means it restarted (not while stopping)."""
        if self.stopping:
            return
        for servo_id, data in torque_enable.items():
            if servo_id in self.enabled and data[0] == 0:
                raise ArmResetError(
                    f"{self.name(servo_id)} on {self.port} restarted (its torque is off) and the arm lost its motion "
                    "or its grip: check the servos' power supply, clear the arm's way, then home it and play on"
                )
