"""What the Feetech driver checks and sets on the servos at connect, and how it reads a grip.

At connect each servo's EEPROM is read (one SYNC READ of addresses 7..36): its homing offset and
position limits are compared with what the setup recorded at calibration (LeRobot's calibration
writes both into the servos; running it again changes them), and a difference is a `ServoSetupError`
naming the joint and what to run. Goals are kept within the tighter of the setup's range and the
servo's own limits. The gripper gets LeRobot's protection against burning out (torque limit 50 %,
protection current 250, overload torque 25 %), and every servo a 0 return delay when the setup asks
for it: written only where the servo holds another value.

A grip is read from the gripper's position and load: stopped short of closed while pushing is a disc
held, arrived at closed is nothing between the jaws, and still pushing hard once the goal was set to
where it stands is overloaded.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from robot.arm import ArmCommandError
from robot.arm.drivers import feetech_wire as wire

EEPROM_FIRST = wire.RETURN_DELAY  # one read covers return delay .. overload torque
EEPROM_LENGTH = wire.OVERLOAD_TORQUE + 1 - EEPROM_FIRST
GRIPPER_TORQUE_LIMIT = 500  # 0.1 % of full torque, as LeRobot sets it: a stalled gripper servo burns otherwise
GRIPPER_PROTECTION_CURRENT = 250
GRIPPER_OVERLOAD_TORQUE = 25  # %
HOLDING_LOAD = 150  # a gripper pushing this hard (0.1 %) has something between its jaws
OVERLOADED_LOAD = 450  # still pushing this hard with its goal where it stands: something squeezes it
RETURN_DELAY_UNIT_US = 2


class ServoSetupError(ArmCommandError):
    """The servos hold other calibration values than the setup (calibrated again, or changed behind its back)."""


class GripSense(enum.Enum):
    HOLDING = "holding a disc"
    EMPTY = "closed on nothing"
    OVERLOADED = "overloaded"


@dataclass(frozen=True)
class ServoEeprom:
    """The EEPROM values the driver checks, as read from one servo."""

    homing_offset: int
    limits: tuple[int, int]
    registers: dict[int, bytes]  # address -> the bytes there, for the values the driver may write

    @classmethod
    def parse(cls, data: bytes) -> ServoEeprom:
        def at(address: int, length: int) -> bytes:
            return data[address - EEPROM_FIRST : address - EEPROM_FIRST + length]

        low, high = wire.read_word(at(wire.MIN_POSITION_LIMIT, 2)), wire.read_word(at(wire.MIN_POSITION_LIMIT + 2, 2))
        registers = {
            wire.RETURN_DELAY: at(wire.RETURN_DELAY, 1),
            wire.MAX_TORQUE_LIMIT: at(wire.MAX_TORQUE_LIMIT, 2),
            wire.PROTECTION_CURRENT: at(wire.PROTECTION_CURRENT, 2),
            wire.OVERLOAD_TORQUE: at(wire.OVERLOAD_TORQUE, 1),
        }
        return cls(wire.read_signed(at(wire.HOMING_OFFSET, 2), wire.HOMING_OFFSET_SIGN_BIT), (low, high), registers)


@dataclass(frozen=True)
class ServoState:
    """One servo's RAM as one read gives it (addresses 40..66): torque on, goal, where it is, how hard it
    pushes (0.1 % of full torque), supply voltage, temperature, moving."""

    torque_on: bool
    goal: int
    position: int
    load: int
    voltage_v: float
    temperature_c: float
    moving: bool

    FIRST = wire.TORQUE_ENABLE
    LENGTH = wire.MOVING + 1 - wire.TORQUE_ENABLE

    @classmethod
    def parse(cls, data: bytes) -> ServoState:
        def at(address: int) -> int:
            return address - cls.FIRST

        return cls(
            torque_on=bool(data[0]),
            goal=wire.read_word(data, at(wire.GOAL_POSITION)),
            position=wire.read_word(data, at(wire.PRESENT_POSITION)),
            load=wire.read_word(data, at(wire.PRESENT_LOAD)) & ((1 << wire.LOAD_SIGN_BIT) - 1),
            voltage_v=data[at(wire.PRESENT_VOLTAGE)] / 10.0,
            temperature_c=float(data[at(wire.PRESENT_TEMPERATURE)]),
            moving=bool(data[at(wire.MOVING)]),
        )


def wanted_eeprom(is_gripper: bool, return_delay_us: int | None) -> dict[int, bytes]:
    """The EEPROM values the driver sets on a servo (the gripper's protection, the return delay)."""
    wanted = {}
    if return_delay_us is not None:
        wanted[wire.RETURN_DELAY] = bytes([return_delay_us // RETURN_DELAY_UNIT_US])
    if is_gripper:
        wanted[wire.MAX_TORQUE_LIMIT] = wire.word(GRIPPER_TORQUE_LIMIT)
        wanted[wire.PROTECTION_CURRENT] = wire.word(GRIPPER_PROTECTION_CURRENT)
        wanted[wire.OVERLOAD_TORQUE] = bytes([GRIPPER_OVERLOAD_TORQUE])
    return wanted


def check_against_setup(
    where: str, eeprom: ServoEeprom, homing_offset: int | None, limits: tuple[int, int] | None
) -> None:
    """ServoSetupError when the servo's homing offset or position limits differ from the setup's record."""
    again = (
        "import LeRobot's new file (c4robot calibrate arm --from-lerobot) or run `c4robot calibrate arm`, "
        "then play again"
    )
    if homing_offset is not None and eeprom.homing_offset != homing_offset:
        raise ServoSetupError(
            f"{where} has homing offset {eeprom.homing_offset}, the setup {homing_offset}: the servos were "
            f"calibrated again since, so every joint's middle moved; {again}"
        )
    if limits is not None and eeprom.limits != tuple(limits):
        low, high = eeprom.limits
        raise ServoSetupError(
            f"{where} holds position limits {low}..{high}, the setup {limits[0]}..{limits[1]}: they were changed "
            f"since the calibration; {again}"
        )


def tighter_range(setup_range: tuple[int, int] | None, limits: tuple[int, int], where: str) -> tuple[int, int]:
    """The ticks a goal may take: within both the setup's range and the servo's own limits."""
    low, high = setup_range or (0, wire.TICKS_PER_TURN - 1)
    low, high = max(low, limits[0]), min(high, limits[1])
    if low >= high:
        raise ServoSetupError(
            f"{where}: the setup's range {setup_range} and the servo's limits {limits} leave no room to move; "
            "run `c4robot calibrate arm` again"
        )
    return low, high


def sense_grip(present: int, closed: int, load: int, arrived_ticks: int) -> GripSense | None:
    """What a gripper that stopped moving says: None while it cannot tell (short of closed, not pushing)."""
    if abs(present - closed) <= arrived_ticks:
        return GripSense.EMPTY
    return GripSense.HOLDING if load >= HOLDING_LOAD else None
