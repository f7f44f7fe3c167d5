"""The settings of one arm: kinematic model, motion limits, planner heights and the serial link.

`ArmConfig.from_dict` reads the `[arm]` table of a calibration file (mm and degrees there, metres
and radians here).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Literal

from robot.arm.trajectory import MotionLimits, Profile

Protocol_ = Literal["joint", "gcode", "feetech"]
DEFAULT_BAUD_RATES = {"joint": 115200, "gcode": 115200, "feetech": 1_000_000}
GcodeDialect = Literal["uarm", "grbl"]


@dataclass(frozen=True)
class SerialConfig:
    """How to reach a real arm: port (or pyserial URL), baud rate, protocol, timeouts and retries.

    `baud_rate` None is the protocol's usual rate: 115200 for joint and G-code, 1 Mbaud for a Feetech bus.
    """

    port: str = ""
    baud_rate: int | None = None
    protocol: Protocol_ = "joint"
    gcode_dialect: GcodeDialect = "uarm"
    reply_timeout_s: float = 1.0
    handshake_timeout_s: float = 4.0
    retries: int = 3
    reconnect_attempts: int = 3
    stream_period_s: float = 0.05  # the joint protocol streams trajectory points this far apart
    # Feetech bus (SO-100 / SO-101): servo ids of the joints then the gripper, and from `c4robot calibrate
    # arm` (or LeRobot's calibration) each servo's tick count at joint angle 0, direction and range; empty:
    # 2048, +1 and no range check. Homing offsets and EEPROM position limits, when given, are what the
    # servos held at calibration: the driver compares them at connect.
    servo_ids: tuple[int, ...] = (1, 2, 3, 4, 5, 6)
    servo_middles: tuple[int, ...] = ()
    servo_directions: tuple[int, ...] = ()
    servo_ranges: tuple[tuple[int, int], ...] = ()
    servo_homing_offsets: tuple[int, ...] = ()
    servo_limits: tuple[tuple[int, int], ...] = ()
    servo_return_delay_us: int = 0  # each servo's answer delay, set at connect (0: answer at once, as LeRobot does)

    def __post_init__(self) -> None:
        for name in ("servo_ids", "servo_middles", "servo_directions", "servo_homing_offsets"):
            object.__setattr__(self, name, tuple(int(v) for v in getattr(self, name)))
        for name in ("servo_ranges", "servo_limits"):
            object.__setattr__(self, name, tuple((int(a), int(b)) for a, b in getattr(self, name)))
        for name in ("servo_middles", "servo_directions", "servo_ranges", "servo_homing_offsets", "servo_limits"):
            if getattr(self, name) and len(getattr(self, name)) != len(self.servo_ids):
                raise ValueError(f"{name} has {len(getattr(self, name))} values for {len(self.servo_ids)} servo ids")
        if any(d not in (1, -1) for d in self.servo_directions):
            raise ValueError(f"servo_directions {self.servo_directions}: each is 1 or -1")
        if not 0 <= self.servo_return_delay_us <= 510 or self.servo_return_delay_us % 2:
            raise ValueError(f"servo_return_delay_us {self.servo_return_delay_us}: an even number of us, 0..510")
        for name in ("servo_ranges", "servo_limits"):
            if any(not 0 <= low < high <= 4095 for low, high in getattr(self, name)):
                raise ValueError(f"{name} {getattr(self, name)}: each is [low, high] with 0 <= low < high <= 4095")
        if self.protocol not in DEFAULT_BAUD_RATES:
            raise ValueError(f"serial protocol {self.protocol!r}: use 'joint', 'gcode' or 'feetech'")
        if self.baud_rate is None:
            object.__setattr__(self, "baud_rate", DEFAULT_BAUD_RATES[self.protocol])
        if self.gcode_dialect not in ("uarm", "grbl"):
            raise ValueError(f"G-code dialect {self.gcode_dialect!r}: use 'uarm' or 'grbl'")
        if self.baud_rate <= 0 or self.reply_timeout_s <= 0 or self.handshake_timeout_s <= 0:
            raise ValueError(
                f"serial settings: baud rate {self.baud_rate}, reply_timeout_s {self.reply_timeout_s} and "
                f"handshake_timeout_s {self.handshake_timeout_s} must be positive"
            )
        if self.retries < 0 or self.reconnect_attempts < 0:
            raise ValueError(f"retries {self.retries} and reconnect_attempts {self.reconnect_attempts} must be >= 0")
        if not 0.005 <= self.stream_period_s <= 1.0:
            raise ValueError(f"stream period {self.stream_period_s} s: use 0.005..1 s")


@dataclass(frozen=True)
class ArmConfig:
    """One arm: its URDF and tool link, motion limits, planner heights and serial settings.

    Defaults are a hobby desktop arm (uArm-Swift-Pro-like): 90 deg/s and 300 deg/s^2 on every joint.
    """

    urdf_path: Path | None = None
    tool_link: str = "tool"
    velocity_rad_s: float = math.radians(90.0)
    acceleration_rad_s2: float = math.radians(300.0)
    profile: Profile = "trapezoid"
    clearance_m: float = 0.02  # held disc's lowest point above the board top while carrying
    approach_m: float = 0.03  # straight vertical approach above pick and drop poses
    grip_settle_s: float = 0.15  # suction needs a moment before the disc is lifted
    release_settle_s: float = 0.1  # ... and to let go
    home_rad: tuple[float, ...] | None = None  # None: the driver's or URDF's middle configuration
    serial: SerialConfig = field(default_factory=SerialConfig)

    def __post_init__(self) -> None:
        if self.velocity_rad_s <= 0 or self.acceleration_rad_s2 <= 0:
            raise ValueError(
                f"arm speed {self.velocity_rad_s} rad/s, acceleration {self.acceleration_rad_s2}: must be positive"
            )
        if self.profile not in ("trapezoid", "quintic"):
            raise ValueError(f"motion profile {self.profile!r}: use 'trapezoid' or 'quintic'")
        if self.clearance_m < 0 or self.approach_m < 0:
            raise ValueError("clearance and approach heights must not be negative")
        if self.grip_settle_s < 0 or self.release_settle_s < 0:
            raise ValueError(
                f"grip_settle_s {self.grip_settle_s} and release_settle_s {self.release_settle_s} must not be negative"
            )

    def limits(self, dof: int) -> MotionLimits:
        return MotionLimits.uniform(dof, self.velocity_rad_s, self.acceleration_rad_s2)

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> ArmConfig:
        """Read the `[arm]` table of a calibration file; keys in mm and degrees, e.g.

        `urdf = "arm.urdf"`, `tool_link`, `velocity_deg_s`, `acceleration_deg_s2`, `profile`,
        `clearance_mm`, `approach_mm`, `grip_settle_s`, `release_settle_s`, `home_deg = [...]`,
        `port`, `baud_rate`, `protocol`, `gcode_dialect`, `reply_timeout_s`, `handshake_timeout_s`,
        `retries`, `reconnect_attempts`, `stream_period_s` and the Feetech `servo_*` lists. Raises
        ValueError naming unknown keys.
        """
        raw = dict(raw)
        converted: dict[str, Any] = {}
        serial_names = {f.name for f in fields(SerialConfig)}
        serial_values = {name: raw.pop(name) for name in list(raw) if name in serial_names}
        conversions = {
            "urdf": ("urdf_path", Path),
            "tool_link": ("tool_link", str),
            "velocity_deg_s": ("velocity_rad_s", lambda v: math.radians(float(v))),
            "acceleration_deg_s2": ("acceleration_rad_s2", lambda v: math.radians(float(v))),
            "profile": ("profile", str),
            "clearance_mm": ("clearance_m", lambda v: float(v) / 1000),
            "approach_mm": ("approach_m", lambda v: float(v) / 1000),
            "grip_settle_s": ("grip_settle_s", float),
            "release_settle_s": ("release_settle_s", float),
            "home_deg": ("home_rad", lambda v: tuple(math.radians(float(x)) for x in v)),
        }
        unknown = sorted(set(raw) - set(conversions))
        if unknown:
            raise ValueError(f"unknown arm settings {unknown}; known: {sorted(set(conversions) | serial_names)}")
        try:
            for key, value in raw.items():
                name, convert = conversions[key]
                converted[name] = convert(value)
            return cls(**converted, serial=SerialConfig(**serial_values))
        except (TypeError, AttributeError) as error:
            raise ValueError(f"arm settings: a value of the wrong kind ({error})") from None
