"""The Feetech serial-bus servo protocol (STS3215, as in the SO-100 / SO-101 arms): pure packet functions.

Instruction packet: 0xFF 0xFF, id, length, instruction, parameters..., checksum; status packet:
0xFF 0xFF, id, length, error, parameters..., checksum. `length` counts the parameters plus 2, and
the checksum is the inverted low byte of the sum of id, length, instruction (or error) and
parameters: `~(id + length + instruction + sum(params)) & 0xFF`. Id 0xFE broadcasts (no status
packet back). Words are little-endian on the STS/SMS series (Feetech's SCServo library with End = 0;
the older SCS series sends the high byte first). Instructions: PING 0x01, READ 0x02 (address,
length), WRITE 0x03 (address, data...), SYNC READ 0x82 (address, length, then the ids: each servo
answers with its own status packet, in the order asked), SYNC WRITE 0x83 (address, data length per
servo, then id and data for each servo). Error bits of a status packet: 1 input voltage, 2 angle
sensor, 4 overheat, 8 over-current, 32 overload.

Control table of the STS3215 (address, bytes), checked against LeRobot's
src/lerobot/motors/feetech/tables.py (STS_SMS_SERIES_CONTROL_TABLE, which cites Feetech's STS
manual) and Feetech's SCServo library (INST.h, SCS.cpp): model number 3 (2; 777 for the STS3215),
id 5, return delay 7 (2 us units), min/max position limit 9/11, max temperature 13, max torque 16
(2), protection current 28 (2), homing offset 31 (sign bit 11), overload torque 36, torque enable
40, acceleration 41, goal position 42 (2), goal time 44, goal velocity 46 (2, sign bit 15), torque
limit 48 (2), lock 55, present position 56 (2), present load 60 (2, 0.1 % of full torque, sign bit
10), present voltage 62 (0.1 V), present temperature 63 (degrees C), moving 66. Addresses below 40
are EEPROM: written only with lock 0, and sparingly (EEPROM wears). Positions are 0..4095 for one
turn; the default baud rate is 1,000,000.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

HEADER = b"\xff\xff"
BROADCAST_ID = 0xFE
PING, READ, WRITE, SYNC_READ, SYNC_WRITE = 0x01, 0x02, 0x03, 0x82, 0x83
DEFAULT_BAUD_RATE = 1_000_000
TICKS_PER_TURN = 4096
STS3215_MODEL = 777

MODEL_NUMBER = 3
RETURN_DELAY = 7
MIN_POSITION_LIMIT = 9  # then the max at 11: one 4-byte read gives both
MAX_TEMPERATURE = 13
MAX_TORQUE_LIMIT = 16
PROTECTION_CURRENT = 28
HOMING_OFFSET = 31
OVERLOAD_TORQUE = 36
EEPROM_END = 40  # addresses below are EEPROM
TORQUE_ENABLE = 40
ACCELERATION = 41
GOAL_POSITION = 42
GOAL_VELOCITY = 46
TORQUE_LIMIT = 48
LOCK = 55
PRESENT_POSITION = 56
PRESENT_LOAD = 60
PRESENT_VOLTAGE = 62
PRESENT_TEMPERATURE = 63
MOVING = 66
HOMING_OFFSET_SIGN_BIT = 11
LOAD_SIGN_BIT = 10

ERROR_BITS = {1: "input voltage", 2: "angle sensor", 4: "overheat", 8: "over-current", 32: "overload"}


class FeetechWireError(ValueError):
    """Bytes that are not a valid status packet (bad header, length or checksum)."""


def checksum(body: bytes) -> int:
    """`body` is id, length, instruction (or error) and parameters."""
    return ~sum(body) & 0xFF


def instruction(servo_id: int, code: int, params: bytes = b"") -> bytes:
    body = bytes([servo_id, len(params) + 2, code]) + params
    return HEADER + body + bytes([checksum(body)])


def status(servo_id: int, error: int, params: bytes = b"") -> bytes:
    """A status packet, as a servo sends it (used by the virtual bus and the tests)."""
    return instruction(servo_id, error, params)


def word(value: int) -> bytes:
    """A 16-bit register value, low byte first (STS series)."""
    return bytes([value & 0xFF, (value >> 8) & 0xFF])


def read_word(data: bytes, offset: int = 0) -> int:
    return data[offset] | data[offset + 1] << 8


def signed_word(value: int, sign_bit: int) -> bytes:
    """A sign-magnitude register value (the homing offset's sign is bit 11)."""
    return word(abs(value) | (1 << sign_bit if value < 0 else 0))


def read_signed(data: bytes, sign_bit: int, offset: int = 0) -> int:
    raw = read_word(data, offset)
    magnitude = raw & ((1 << sign_bit) - 1)
    return -magnitude if raw & (1 << sign_bit) else magnitude


def read(servo_id: int, address: int, length: int) -> bytes:
    return instruction(servo_id, READ, bytes([address, length]))


def sync_read(address: int, length: int, ids: tuple[int, ...]) -> bytes:
    """One broadcast asking `ids` for `length` bytes at `address`; each answers in turn, in this order."""
    return instruction(BROADCAST_ID, SYNC_READ, bytes([address, length, *ids]))


def write(servo_id: int, address: int, data: bytes) -> bytes:
    return instruction(servo_id, WRITE, bytes([address]) + data)


def sync_write(address: int, values: dict[int, bytes]) -> bytes:
    """One broadcast packet writing `values[id]` at `address` of every servo (no status packet back)."""
    lengths = {len(data) for data in values.values()}
    if len(lengths) != 1:
        raise ValueError("a sync write gives every servo data of the same length")
    params = bytes([address, lengths.pop()]) + b"".join(bytes([i]) + data for i, data in values.items())
    return instruction(BROADCAST_ID, SYNC_WRITE, params)


@dataclass(frozen=True)
class Packet:
    servo_id: int
    code: int  # the instruction, or the error byte of a status packet
    params: bytes

    @property
    def error_text(self) -> str:
        return ", ".join(text for bit, text in ERROR_BITS.items() if self.code & bit) or "no error"


def take_packet(buffer: bytearray) -> Packet | None:
    """The first whole packet in `buffer` (consumed with any noise before it), or None if none is complete.

    A packet whose checksum fails is dropped with its header, and FeetechWireError says so."""
    start = buffer.find(HEADER)
    if start < 0:
        del buffer[: max(0, len(buffer) - 1)]
        return None
    del buffer[:start]
    if len(buffer) < 4:
        return None
    length = buffer[3]
    if length < 2:
        del buffer[:2]
        raise FeetechWireError(f"packet length {length} is too short")
    if len(buffer) < 4 + length:
        return None
    body, given = bytes(buffer[2 : 3 + length]), buffer[3 + length]
    del buffer[: 4 + length]
    if checksum(body) != given:
        raise FeetechWireError(f"packet {body.hex()} fails its checksum")
    return Packet(body[0], body[2], body[3:])


def ticks_from_rad(angle_rad: float, middle: int, direction: int) -> int:
    return int(round(middle + direction * angle_rad * TICKS_PER_TURN / (2 * math.pi)))


def rad_from_ticks(ticks: int, middle: int, direction: int) -> float:
    return direction * (ticks - middle) * 2 * math.pi / TICKS_PER_TURN
