"""A virtual Feetech STS3215 servo bus on a pty: several servo ids on one line, faults as in `sim.fake_devices`.

Written from the protocol's spec (see robot/arm/drivers/feetech_wire.py for where it was checked):
packets 0xFF 0xFF id length instruction params checksum, PING, READ, WRITE, SYNC READ and SYNC
WRITE, a control table per servo (words low byte first). A servo with torque off does not move; a
servo that has just powered up has its torque off, its goal where it stands, its torque limit at its
EEPROM maximum and its EEPROM locked, which is how a restart shows on a real bus. Broadcast sync
writes get no status packet.

What the driver must check is modelled: each servo's EEPROM (below address 40: homing offset, position
limits, max torque, protection current, overload torque, max temperature, return delay) survives a
restart and is saved only while `Lock` (55) is 0; a goal beyond the position limits stops the servo at
the limit; a jaw stop (`jaw_stops`, a disc between the gripper's jaws) stalls a servo closing past it,
and the stalled servo pushes with its torque limit: present load (60, 0.1 % of full torque) says so,
and the servo warms with its load (63, degrees C; the overheat bit at its max temperature). One servo
alone can restart (`restart_servo`, or the fault "servo_restart" on the last id, the gripper; logged
"RESET <id>").

Every write that changes a servo is logged in `executed`: "WRITE <id> <address> <hex>", "SYNC <address>
<id>:<value> ...", or "STOP" for a sync write that holds every servo where it stands (or stood a few
ticks before: the host read it a moment earlier). `stall_loads`
keeps the highest load each servo pushed with while stalled, `requests` counts the instruction
packets by kind (the host's bus round trips). Faults: a dropped or garbled sync write never reaches
the servos (there is no reply to spoil); a refused one sets the overload bit in the servo's status
and is not run; "limits_changed" narrows the second servo's position limits behind the host's back.
"""

from __future__ import annotations

import math
from collections import Counter, deque

from sim.fake_devices import FakeDevice

HEADER = b"\xff\xff"
BROADCAST = 0xFE
PING, READ, WRITE, SYNC_READ, SYNC_WRITE = 0x01, 0x02, 0x03, 0x82, 0x83
MODEL_STS3215 = 777
RETURN_DELAY, MIN_LIMIT, MAX_LIMIT, MAX_TEMPERATURE, MAX_TORQUE = 7, 9, 11, 13, 16
PROTECTION_CURRENT, HOMING_OFFSET, OVERLOAD_TORQUE, EEPROM_END = 28, 31, 36, 40
TORQUE_ENABLE, GOAL_POSITION, TORQUE_LIMIT, LOCK = 40, 42, 48, 55
PRESENT_POSITION, PRESENT_LOAD, PRESENT_VOLTAGE, PRESENT_TEMPERATURE, MOVING = 56, 60, 62, 63, 66
OVERHEAT, OVERLOAD = 4, 32
SPEED_TICKS_S = 3400.0  # about 300 degrees per second
AMBIENT_C = 30.0
HEATING_C_S = 8.0  # warming per second at full load; cooling is proportional to the excess over ambient
COOLING_PER_S = 0.05
MOVING_LOAD = 60  # 6 % of full torque while moving freely
HOLD_LOAD_PER_TICK = 20  # a servo held off its goal pushes harder the farther it is
VOLTAGE_DV = 120  # 12.0 V
TRAIL_TICKS = 12  # a goal where a servo stood this many ticks ago still holds it: the host read it a moment before


def _checksum(body: bytes) -> int:
    return ~sum(body) & 0xFF


def _packet(servo_id: int, code: int, params: bytes = b"") -> bytes:
    body = bytes([servo_id, len(params) + 2, code]) + params
    return HEADER + body + bytes([_checksum(body)])


def factory_eeprom(servo_id: int) -> bytearray:
    """A new STS3215's EEPROM: limits 0..4095, full torque, no homing offset, 500 us return delay."""
    eeprom = bytearray(EEPROM_END)
    eeprom[3:5] = MODEL_STS3215.to_bytes(2, "little")
    eeprom[5] = servo_id
    eeprom[RETURN_DELAY] = 250
    eeprom[MAX_LIMIT : MAX_LIMIT + 2] = (4095).to_bytes(2, "little")
    eeprom[MAX_TEMPERATURE] = 70
    eeprom[MAX_TORQUE : MAX_TORQUE + 2] = (1000).to_bytes(2, "little")
    eeprom[PROTECTION_CURRENT : PROTECTION_CURRENT + 2] = (500).to_bytes(2, "little")
    eeprom[OVERLOAD_TORQUE] = 80
    return eeprom


def _sign_magnitude(value: int, sign_bit: int) -> int:
    return abs(value) | (1 << sign_bit if value < 0 else 0)


class _Servo:
    def __init__(self, eeprom: bytearray, ticks: int, jaw_stop: tuple[int, int] | None = None) -> None:
        self.eeprom = eeprom  # the saved EEPROM, shared with the bus: it outlives a restart
        self.registers = bytearray(90)
        self.registers[:EEPROM_END] = eeprom
        self.registers[LOCK] = 1
        self.set_word(TORQUE_LIMIT, self.word(MAX_TORQUE))
        self.registers[PRESENT_VOLTAGE] = VOLTAGE_DV
        self.position = float(ticks)
        self.set_word(GOAL_POSITION, ticks)
        self.set_word(PRESENT_POSITION, ticks)
        self.jaw_stop = jaw_stop  # (tick count, +1 or -1: the side the jaws open to)
        self.trail: deque[int] = deque([ticks], maxlen=TRAIL_TICKS)  # where it stood over the last ticks
        self.temperature_c = AMBIENT_C
        self.load = 0
        self.stalled = False
        self.error = 0

    def word(self, address: int) -> int:
        return int.from_bytes(self.registers[address : address + 2], "little")

    def set_word(self, address: int, value: int) -> None:
        self.registers[address : address + 2] = int(value).to_bytes(2, "little")

    def write(self, address: int, data: bytes) -> None:
        """A register write; EEPROM is saved only while unlocked (locked, it lasts until the next restart)."""
        self.registers[address : address + len(data)] = data
        if address < EEPROM_END and not self.registers[LOCK]:
            end = min(EEPROM_END, address + len(data))
            self.eeprom[address:end] = data[: end - address]

    def _target(self, goal: int) -> float:
        """Where the servo heads: its goal within its position limits, not past a jaw stop from its open side."""
        target = float(min(max(goal, self.word(MIN_LIMIT)), self.word(MAX_LIMIT)))
        if self.jaw_stop is not None:
            stop, side = self.jaw_stop
            if (self.position - stop) * side >= 0 > (target - stop) * side:
                return float(stop)
        return target

    def tick(self, dt_s: float) -> None:
        goal = self.word(GOAL_POSITION)
        target = self._target(goal)
        if self.registers[TORQUE_ENABLE]:
            step, delta = SPEED_TICKS_S * dt_s, target - self.position
            self.position = target if abs(delta) <= step else self.position + math.copysign(step, delta)
        arrived = self.position == target
        self.stalled = (
            bool(self.registers[TORQUE_ENABLE])
            and arrived
            and abs(target - goal) > 1
            and self.jaw_stop is not None
            and target == self.jaw_stop[0]
        )
        if not self.registers[TORQUE_ENABLE]:
            self.load = 0
        elif self.stalled:
            self.load = self.word(TORQUE_LIMIT)  # pushing against the disc with all it is allowed
        elif not arrived:
            self.load = MOVING_LOAD
        else:
            self.load = min(self.word(TORQUE_LIMIT), HOLD_LOAD_PER_TICK * round(abs(target - round(self.position))))
        excess = self.temperature_c - AMBIENT_C
        self.temperature_c += (HEATING_C_S * self.load / 1000.0 - COOLING_PER_S * excess) * dt_s
        hot = self.temperature_c >= self.registers[MAX_TEMPERATURE]
        self.error = (self.error | OVERHEAT) if hot else (self.error & ~OVERHEAT)
        self.set_word(PRESENT_POSITION, round(self.position))
        self.trail.append(round(self.position))
        self.set_word(PRESENT_LOAD, self.load)
        self.registers[PRESENT_TEMPERATURE] = max(0, min(255, round(self.temperature_c)))
        self.registers[MOVING] = int(bool(self.registers[TORQUE_ENABLE]) and not arrived)


class FakeFeetechBus(FakeDevice):
    """Servos `ids` on one bus, standing at `ticks[id]` when powered up.

    `homing_offsets` and `limits` are in the servos' EEPROM from the start (as LeRobot's calibration leaves
    them); `jaw_stops[id]` is a tick count a servo cannot close past (a disc between the gripper's jaws)."""

    def __init__(
        self,
        ticks: dict[int, int],
        homing_offsets: dict[int, int] | None = None,
        limits: dict[int, tuple[int, int]] | None = None,
        jaw_stops: dict[int, int] | None = None,
        **kwargs,
    ) -> None:
        self.start_ticks = dict(ticks)
        self.jaw_stops = dict(jaw_stops or {})
        self.eeproms = {i: factory_eeprom(i) for i in ticks}
        for servo_id, offset in (homing_offsets or {}).items():
            self.eeproms[servo_id][HOMING_OFFSET : HOMING_OFFSET + 2] = _sign_magnitude(offset, 11).to_bytes(
                2, "little"
            )
        for servo_id, (low, high) in (limits or {}).items():
            self.eeproms[servo_id][MIN_LIMIT : MAX_LIMIT + 2] = low.to_bytes(2, "little") + high.to_bytes(2, "little")
        self.stall_loads: dict[int, int] = {}
        self.requests: Counter[str] = Counter()
        super().__init__(**kwargs)

    def power_up(self) -> None:
        if not hasattr(self, "eeproms"):  # a subclass's power-up, before this class's __init__ ran
            self.eeproms, self.jaw_stops = {}, {}
        self.servos = {i: self._servo(i, t) for i, t in self.start_ticks.items()}
        self._packets = bytearray()

    def _servo(self, servo_id: int, ticks: int) -> _Servo:
        eeprom = self.eeproms.setdefault(servo_id, factory_eeprom(servo_id))
        stop = self.jaw_stops.get(servo_id)
        opens_to = 1 if self.start_ticks.get(servo_id, ticks) >= (stop or 0) else -1
        return _Servo(eeprom, ticks, None if stop is None else (stop, opens_to))

    def set_jaw_stop(self, servo_id: int, ticks: int | None) -> None:
        """A disc between the jaws from now on (`ticks`: where they meet it, closing from where they stand),
        or none (None): for a bus whose disc comes and goes, as the world's grip says."""
        servo = self.servos[servo_id]
        servo.jaw_stop = None if ticks is None else (ticks, 1 if servo.position >= ticks else -1)
        if ticks is None:
            self.jaw_stops.pop(servo_id, None)
        else:
            self.jaw_stops[servo_id] = ticks

    def set_eeprom(self, servo_id: int, address: int, data: bytes) -> None:
        """Put `data` into a servo's saved EEPROM, as an earlier session (or LeRobot's calibration) left it."""
        self.eeproms[servo_id][address : address + len(data)] = data
        self.servos[servo_id] = self._servo(servo_id, round(self.servos[servo_id].position))  # RAM follows

    def restart_servo(self, servo_id: int) -> None:
        """One servo powers up again where it stands (a brown-out of its own): torque off, EEPROM kept."""
        standing = round(self.servos[servo_id].position)
        self.servos[servo_id] = self._servo(servo_id, standing)
        self.executed.append(f"RESET {servo_id}")

    def tick(self, dt_s: float) -> None:
        for servo_id, servo in self.servos.items():
            servo.tick(dt_s)
            if servo.stalled:
                self.stall_loads[servo_id] = max(self.stall_loads.get(servo_id, 0), servo.load)

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
        self.requests[{PING: "ping", READ: "read", WRITE: "write", SYNC_READ: "sync_read"}.get(code, "sync_write")] += 1
        if servo_id == BROADCAST:
            if code == SYNC_WRITE:
                self._sync_write(params)
            elif code == SYNC_READ and len(params) >= 2:
                self._sync_read(params[0], params[1], params[2:])
            return
        servo = self.servos.get(servo_id)
        if servo is None:
            return  # nobody on the bus has this id
        if code == PING:
            self.reply(_packet(servo_id, servo.error))
        elif code == READ and len(params) == 2:
            address, length = params
            self.reply(_packet(servo_id, servo.error, bytes(servo.registers[address : address + length])))
        elif code == WRITE and params:
            fault = self.strikes()
            if fault == "refused":
                servo.error |= OVERLOAD
            else:
                servo.write(params[0], params[1:])
                self.executed.append(f"WRITE {servo_id} {params[0]} {params[1:].hex()}")
            self.reply(_packet(servo_id, servo.error), self._bus_fault(fault))

    def _sync_read(self, address: int, length: int, ids: bytes) -> None:
        """Each servo asked answers in turn; one that is not there leaves a gap the host times out on."""
        answers = [
            _packet(i, self.servos[i].error, bytes(self.servos[i].registers[address : address + length]))
            for i in ids
            if i in self.servos
        ]
        self.reply(b"".join(answers))

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
                holds &= min(servo.trail) <= int.from_bytes(entry[1:3], "little") <= max(servo.trail)
                servo.write(address, entry[1:])
        values = " ".join(f"{entry[0]}:{entry[1:].hex()}" for entry in entries)
        self.executed.append("STOP" if holds else f"SYNC {address} {values}")
        fault = self._bus_fault(fault)
        if fault is not None:
            self.reply(b"", fault)  # the faults that strike the board or the port

    def _bus_fault(self, fault: str | None) -> str | None:
        """The faults of one servo act here; the others go on to the board or the port."""
        if fault == "servo_restart":
            self.restart_servo(max(self.servos))
            return None
        if fault == "limits_changed":
            servo_id = sorted(self.servos)[1]
            standing = round(self.servos[servo_id].position)
            narrow = (max(0, standing - 40), min(4095, standing + 40))
            self.eeproms[servo_id][MIN_LIMIT : MAX_LIMIT + 2] = b"".join(v.to_bytes(2, "little") for v in narrow)
            self.servos[servo_id].registers[MIN_LIMIT : MAX_LIMIT + 2] = self.eeproms[servo_id][
                MIN_LIMIT : MAX_LIMIT + 2
            ]
            self.executed.append(f"LIMITS {servo_id} {narrow[0]}..{narrow[1]}")
            return None
        return fault
