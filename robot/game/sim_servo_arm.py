"""The simulated SO-101 behind the project's Feetech driver: `c4robot play --sim --arm so101 --config FILE` whose
`[arm]` section is for a servo bus (imported from LeRobot with `calibrate arm --from-lerobot`, or recorded by
`calibrate arm`).

The driver (`robot.arm.drivers.feetech.FeetechArm`) talks to `sim.twin_bus.WorldServoBus` on a pseudo-terminal,
the virtual bus the digital twin serves too: its servos are the world's joints, mapped with the setup's servo ids,
middles and directions, and their EEPROM holds the setup's homing offsets and position limits, so the driver's
checks at connect pass as on the arm the file was made on (and a bus that differs gets the driver's error).

The game's thread owns the world: the driver's clock is the world's time (`WorldClock`), and the driver sleeping
on it runs the world's physics, in which the servos move (the bus's step listener). The bus's own thread only
answers packets. So the camera, the simulated person and the driver all act on the world from one thread, and a
slow render or a recording costs wall time only, never the driver's pacing or its motion deadlines.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Mapping
from typing import Any

from robot.arm import ArmConfig
from robot.arm.drivers.feetech import FeetechArm, FeetechLayout
from sim.twin_bus import ServoMapping, WorldServoBus

log = logging.getLogger(__name__)


def is_servo_bus(arm_settings: Mapping[str, Any]) -> bool:
    """Whether an `[arm]` section drives a Feetech servo bus (an SO-100 / SO-101)."""
    return arm_settings.get("protocol") == "feetech"


class WorldClock:
    """The driver's time in the simulation: the world's; sleeping runs the world's physics, and the servos move."""

    def __init__(self, world) -> None:
        self.world = world

    def now_s(self) -> float:
        return float(self.world.time_s)

    def sleep(self, seconds: float) -> None:
        self.world.step(max(0.0, seconds))


def servo_mapping(layout: FeetechLayout) -> ServoMapping:
    """The bus's view of the driver's layout: the same ids, middles, directions and gripper ends."""
    joints = layout.joints
    return ServoMapping(
        tuple(j.servo_id for j in joints),
        tuple(j.middle for j in joints),
        tuple(j.direction for j in joints),
        layout.gripper_id,
        layout.gripper_open,
        layout.gripper_closed,
    )


def servo_bus(world, config: ArmConfig, steps_world: bool = False, **bus_options: Any) -> WorldServoBus:
    """The world's arm as a servo bus (not started) whose EEPROM is as the setup's calibration left it; `steps_world`
    and `bus_options` as `WorldServoBus` takes them (the twin's bus runs the world itself, a fault, a port back)."""
    serial = config.serial
    ids = serial.servo_ids
    return WorldServoBus(
        world,
        servo_mapping(FeetechLayout.from_settings(serial)),
        steps_world=steps_world,
        **bus_options,
        homing_offsets=dict(zip(ids, serial.servo_homing_offsets, strict=True))
        if serial.servo_homing_offsets
        else None,
        limits=dict(zip(ids, serial.servo_limits, strict=True)) if serial.servo_limits else None,
    )


def connected_arm(world, config: ArmConfig, bus: WorldServoBus) -> FeetechArm:
    """The Feetech driver with `config`'s setup, connected to the started `bus` (its checks at connect done)."""
    serial = dataclasses.replace(config.serial, port=bus.port)
    arm = FeetechArm(dataclasses.replace(config, serial=serial), clock=WorldClock(world))
    arm.connect()
    return arm


class SimServoArm:
    """The bus started and the driver connected to it, from an `[arm]` section; a context manager closing both."""

    def __init__(self, world, arm_settings: Mapping[str, Any]) -> None:
        self.config = ArmConfig.from_dict(dict(arm_settings))
        self.bus = servo_bus(world, self.config).start()
        try:
            self.arm = connected_arm(world, self.config, self.bus)
        except BaseException:
            self.bus.close()
            raise

    def close(self) -> None:
        """Close the driver's port and the bus; the bus's log of the game is logged: its round trips, and the
        hardest each servo pushed while stalled (0.1 % of full torque: a gripper held against a disc at 1000
        burns)."""
        self.arm.close()
        self.bus.close()
        requests = dict(sorted(self.bus.requests.items()))
        log.info(
            "servo bus: requests %s, clamped goals %d, stalled loads %s",
            requests,
            len(self.arm.clamps),
            self.bus.stall_loads,
        )

    def __enter__(self) -> SimServoArm:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
