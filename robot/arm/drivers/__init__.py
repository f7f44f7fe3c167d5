"""Arm drivers: `sim` (the PyBullet arm), `gcode` (Cartesian desktop arms), `joint_serial` (Arduino servo
arms), `feetech` (Feetech STS3215 servo buses: the SO-100 / SO-101).

`serial_arm(config, chain)` picks the serial driver named by `config.serial.protocol`; the sim driver
is `robot.arm.drivers.sim.SimArm(world)`. The wire formats are pure functions in `joint_wire`,
`gcode_wire` and `feetech_wire`, the port handling in `serial_link`.
"""

from __future__ import annotations

from robot.arm import Arm, ArmConfig
from robot.arm.kinematics import KinematicChain


def serial_arm(config: ArmConfig, chain: KinematicChain) -> Arm:
    """The (not yet connected) serial driver for `config.serial.protocol`: "joint", "gcode" or "feetech"."""
    from robot.arm.drivers.feetech import FeetechArm
    from robot.arm.drivers.gcode import GcodeArm
    from robot.arm.drivers.joint_serial import JointSerialArm

    drivers = {
        "joint": lambda: JointSerialArm(config),
        "gcode": lambda: GcodeArm(config, chain),
        "feetech": lambda: FeetechArm(config),
    }
    return drivers[config.serial.protocol]()
