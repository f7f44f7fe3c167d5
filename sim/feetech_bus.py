"""A virtual Feetech STS3215 servo bus on a pty: several servo ids on one line, faults as in `sim.fake_devices`.

Written from the protocol's spec (see robot/arm/drivers/feetech_wire.py for where it was checked):
packets 0xFF 0xFF id length instruction params checksum, PING, READ, WRITE and SYNC WRITE, a
control table per servo (model 777 at 3, torque enable 40, acceleration 41, goal position 42,
present position 56, moving 66, words low byte first). A servo with torque off does not move; a
servo that has just powered up has its torque off and its goal at where it stands, which is how a
reset shows on a real bus. Broadcast sync writes get no status packet.

Every write that changes a servo is logged in `executed`: "WRITE <id> <address> <hex>", "SYNC <address>
<id>:<value> ...", or "STOP" for a sync write that holds every servo where it stands. Faults: a
dropped or garbled sync write never reaches the servos (there is no reply to spoil); a refused one
sets the overload bit in the servo's status and is not run.
"""

from __future__ import annotations

import math

from sim.fake_devices import FakeDevice

HEADER = b"\xff\xff"
BROADCAST = 0xFE
MODEL_STS3215 = 777
TORQUE_ENABLE, GOAL_POSITION, PRESENT_POSITION, MOVING = 40, 42, 56, 66
OVERLOAD = 32
SPEED_TICKS_S = 3400.0  # about 300 degrees per second


def _checksum(body: bytes) -> int:
    return ~sum(body) & 0xFF


def _packet(servo_id: int, code: int, params: bytes = b"") -> bytes:
    body = bytes([servo_id, len(params) + 2, code]) + params
    return HEADER + body + bytes([_checksum(body)])


class _Servo:
    def __init__(self, servo_id: int, ticks: int) -> None:
        self.registers = bytearray(80)
        self.registers[3:5] = MODEL_STS3215.to_bytes(2, "little")
        self.registers[5] = servo_id
        self.position = float(ticks)
        self.set_word(GOAL_POSITION, ticks)
        self.error = 0

    def word(self, address: int) -> int:
        return int.from_bytes(self.registers[address : address + 2], "little")

    def set_word(self, address: int, value: int) -> None:
        self.registers[address : address + 2] = int(value).to_bytes(2, "little")

    def tick(self, dt_s: float) -> None:
        if self.registers[TORQUE_ENABLE]:
            goal = self.word(GOAL_POSITION)
            step, delta = SPEED_TICKS_S * dt_s, goal - self.position
            self.position = goal if abs(delta) <= step else self.position + math.copysign(step, delta)
        self.set_word(PRESENT_POSITION, round(self.position))
        self.registers[MOVING] = int(round(self.position) != self.word(GOAL_POSITION))


class FakeFeetechBus(FakeDevice):
    """Servos `ids` on one bus, standing at `ticks[id]` when powered up."""

    def __init__(self, ticks: dict[int, int], **kwargs) -> None:
        self.start_ticks = dict(ticks)
        super().__init__(**kwargs)

    def power_up(self) -> None:
        self.servos = {i: _Servo(i, t) for i, t in self.start_ticks.items()}
        self._packets = bytearray()

    def tick(self, dt_s: float) -> None:
        for servo in self.servos.values():
            servo.tick(dt_s)

    def receive(self) -> None:
        self._packets += self._input
        self._input = b""
        while True:
            start = self._packets.find(HEADER)
            if start < 0 or len(self._packets) < start + 4:
                return
            length = self._packets[start + 3]
            end = start + 4 + length
            if len(self._packets) < end:
                return
            body, given = bytes(self._packets[start + 2 : end - 1]), self._packets[end - 1]
            del self._packets[:end]
            if length >= 2 and _checksum(body) == given:
                self._instruction(body[0], body[2], body[3:])

    def _instruction(self, servo_id: int, code: int, params: bytes) -> None:
        if code == 0x83 and servo_id == BROADCAST:
            self._sync_write(params)
            return
        servo = self.servos.get(servo_id)
        if servo is None:
            return  # nobody on the bus has this id
        if code == 0x01:
            self.reply(_packet(servo_id, servo.error))
        elif code == 0x02 and len(params) == 2:
            address, length = params
            self.reply(_packet(servo_id, servo.error, bytes(servo.registers[address : address + length])))
        elif code == 0x03 and params:
            fault = self.strikes()
            if fault == "refused":
                servo.error |= OVERLOAD
            else:
                servo.registers[params[0] : params[0] + len(params) - 1] = params[1:]
                self.executed.append(f"WRITE {servo_id} {params[0]} {params[1:].hex()}")
            self.reply(_packet(servo_id, servo.error), fault)

    def _sync_write(self, params: bytes) -> None:
        if len(params) < 2:
            return
        address, size = params[0], params[1]
        entries = [params[i : i + 1 + size] for i in range(2, len(params), 1 + size)]
        fault = self.strikes()
        if fault in ("dropped", "garbled"):
            return  # lost on the wire: no servo runs it, no servo answers a broadcast
        if fault == "refused":
            for entry in entries:
                if entry[0] in self.servos:
                    self.servos[entry[0]].error |= OVERLOAD
            return
        holds = address == GOAL_POSITION
        for entry in entries:
            servo = self.servos.get(entry[0])
            if servo is not None and len(entry) == 1 + size:
                holds &= int.from_bytes(entry[1:3], "little") == servo.word(PRESENT_POSITION)
                servo.registers[address : address + size] = entry[1:]
        values = " ".join(f"{entry[0]}:{entry[1:].hex()}" for entry in entries)
        self.executed.append("STOP" if holds else f"SYNC {address} {values}")
        if fault is not None:
            self.reply(b"", fault)  # the faults that strike the board or the port
