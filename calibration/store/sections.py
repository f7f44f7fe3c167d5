"""The sections of a calibration file as Python values, each checked when made (finite, in range, right shape).

A section that cannot describe a real setup (a NaN corner, a zero focal length, an infinite
translation) is refused here, whoever builds it: the file reader, a calibration step or a test.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

DISC_COLOUR_LETTERS = "RYBGPOKW"
DISTORTION_LENGTHS = (4, 5, 8, 12, 14)
MIN_BOARD_SIZE, MAX_BOARD_SIZE = 2, 20  # holes per row or column
MAX_IMAGE_SIDE_PX = 20_000
MAX_REACH_M = 5.0  # no arm pose or board lies farther from the arm or the camera
MIN_WHITE_BALANCE_K, MAX_WHITE_BALANCE_K = 1000.0, 15000.0  # what webcams' white balance controls span


class CalibrationError(ValueError):
    """A calibration file that cannot be used: malformed, partial, of another schema, or a bad value."""


@dataclasses.dataclass(frozen=True)
class CameraCalibration:
    """Pinhole intrinsics and lens distortion of the camera, as OpenCV uses them."""

    camera_matrix: tuple[tuple[float, float, float], ...]
    distortion: tuple[float, ...]
    image_size_px: tuple[int, int]
    reprojection_error_px: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "camera_matrix", tuple(_floats(row) for row in self.camera_matrix))
        object.__setattr__(self, "distortion", _floats(self.distortion))
        object.__setattr__(self, "image_size_px", tuple(int(value) for value in self.image_size_px))
        object.__setattr__(self, "reprojection_error_px", _finite(self.reprojection_error_px, "reprojection_error_px"))
        if len(self.camera_matrix) != 3 or any(len(row) != 3 for row in self.camera_matrix):
            raise ValueError(f"camera_matrix must be 3x3, got {self.camera_matrix!r}")
        if len(self.distortion) not in DISTORTION_LENGTHS:
            raise ValueError(
                f"distortion must have one of {DISTORTION_LENGTHS} coefficients, got {len(self.distortion)}"
            )
        if len(self.image_size_px) != 2 or not all(0 < side <= MAX_IMAGE_SIDE_PX for side in self.image_size_px):
            raise ValueError(
                f"image_size_px must be [width, height] from 1 to {MAX_IMAGE_SIDE_PX}, got {self.image_size_px!r}"
            )
        fx, fy = self.camera_matrix[0][0], self.camera_matrix[1][1]
        if not (fx > 0 and fy > 0):
            raise ValueError(f"camera_matrix focal lengths must be positive, got fx {fx!r}, fy {fy!r}")
        if tuple(self.camera_matrix[2]) != (0.0, 0.0, 1.0) or self.camera_matrix[1][0] != 0.0:
            raise ValueError(f"camera_matrix must be [[fx, s, cx], [0, fy, cy], [0, 0, 1]], got {self.camera_matrix!r}")
        if not self.reprojection_error_px >= 0:
            raise ValueError(f"reprojection_error_px must be >= 0, got {self.reprojection_error_px!r}")

    @property
    def focal_px(self) -> tuple[float, float]:
        """(fx, fy) in pixels."""
        return self.camera_matrix[0][0], self.camera_matrix[1][1]


@dataclasses.dataclass(frozen=True)
class BoardCalibration:
    """Where the board is in the image (corner hole centres), its dimensions and, with intrinsics, its pose.

    Corners are the hole centres on the front face. The discs stand in the slot, their mid-plane
    `disc_plane_depth_m` behind the front face: that is where the arm drops them.

    The pose (rvec, tvec) maps the hole frame to the camera frame: origin at the bottom-left hole's
    centre on the front face, x along the bottom row towards the last column, y up the first column,
    z out of the front face towards the camera.
    """

    rows: int
    cols: int
    corners_px: tuple[tuple[float, float], ...]
    column_pitch_m: float = 0.0347
    row_pitch_m: float = 0.0318
    disc_plane_depth_m: float = 0.00725
    rvec_rad: tuple[float, float, float] | None = None
    tvec_m: tuple[float, float, float] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "corners_px", tuple(_floats(point) for point in self.corners_px))
        if self.rvec_rad is not None:
            object.__setattr__(self, "rvec_rad", _floats(self.rvec_rad))
        if self.tvec_m is not None:
            object.__setattr__(self, "tvec_m", _floats(self.tvec_m))
        object.__setattr__(self, "column_pitch_m", _finite(self.column_pitch_m, "column_pitch_m"))
        object.__setattr__(self, "row_pitch_m", _finite(self.row_pitch_m, "row_pitch_m"))
        object.__setattr__(self, "disc_plane_depth_m", _finite(self.disc_plane_depth_m, "disc_plane_depth_m"))
        if not (MIN_BOARD_SIZE <= self.rows <= MAX_BOARD_SIZE and MIN_BOARD_SIZE <= self.cols <= MAX_BOARD_SIZE):
            raise ValueError(
                f"board rows and cols must be {MIN_BOARD_SIZE} to {MAX_BOARD_SIZE}, got {self.rows}x{self.cols}"
            )
        if not (0 < self.column_pitch_m < 1 and 0 < self.row_pitch_m < 1 and 0 <= self.disc_plane_depth_m < 0.1):
            raise ValueError(
                f"board pitches {self.column_pitch_m} m, {self.row_pitch_m} m, disc plane {self.disc_plane_depth_m} m "
                "behind the front: give the board's dimensions in metres"
            )
        if len(self.corners_px) != 4 or any(len(point) != 2 for point in self.corners_px):
            raise ValueError(f"corners_px must be four [x, y] points (tl, tr, br, bl), got {self.corners_px!r}")
        if (self.rvec_rad is None) != (self.tvec_m is None):
            raise ValueError("board pose needs both rvec and tvec, or neither")
        for name, vector in (("rvec", self.rvec_rad), ("tvec", self.tvec_m)):
            if vector is not None and len(vector) != 3:
                raise ValueError(f"{name} must have 3 values, got {vector!r}")
        if self.tvec_m is not None and not 0 < self.tvec_m[2] <= MAX_REACH_M:
            raise ValueError(
                f"board tvec puts the board {self.tvec_m[2]!r} m in front of the camera: it must be in front"
            )

    @property
    def has_pose(self) -> bool:
        """True when the board pose in the camera frame was measured (needs camera intrinsics)."""
        return self.rvec_rad is not None


@dataclasses.dataclass(frozen=True)
class ColourCalibration:
    """Which disc colour the robot plays and which the person plays, with sampled reference colours."""

    robot: str
    person: str
    robot_bgr: tuple[float, float, float]
    person_bgr: tuple[float, float, float]

    def __post_init__(self) -> None:
        object.__setattr__(self, "robot_bgr", _floats(self.robot_bgr))
        object.__setattr__(self, "person_bgr", _floats(self.person_bgr))
        for name, letter in (("robot", self.robot), ("person", self.person)):
            if len(letter) != 1 or letter not in DISC_COLOUR_LETTERS:
                raise ValueError(f"colours.{name} must be one of the letters {DISC_COLOUR_LETTERS}, got {letter!r}")
        if self.robot == self.person:
            raise ValueError(f"robot and person need different disc colours, both are {self.robot!r}")
        for name, bgr in (("robot_bgr", self.robot_bgr), ("person_bgr", self.person_bgr)):
            if len(bgr) != 3 or not all(0 <= value <= 255 for value in bgr):
                raise ValueError(f"colours.{name} must be [b, g, r] within 0..255, got {bgr!r}")


@dataclasses.dataclass(frozen=True)
class CameraSettings:
    """A webcam's exposure (the driver's own units) and white balance (kelvin), held fixed so that disc colours do
    not drift between frames; None where the camera does not let it be fixed. Applied again at every `play`."""

    exposure: float | None = None
    white_balance_k: float | None = None

    def __post_init__(self) -> None:
        if self.exposure is not None:
            object.__setattr__(self, "exposure", _finite(self.exposure, "camera_settings.exposure"))
        if self.white_balance_k is not None:
            kelvin = _finite(self.white_balance_k, "camera_settings.white_balance_k")
            if not MIN_WHITE_BALANCE_K <= kelvin <= MAX_WHITE_BALANCE_K:
                raise ValueError(
                    f"camera_settings.white_balance_k must be {MIN_WHITE_BALANCE_K} to {MAX_WHITE_BALANCE_K} K, "
                    f"got {kelvin!r}"
                )
            object.__setattr__(self, "white_balance_k", kelvin)

    @property
    def is_empty(self) -> bool:
        """Nothing held: the camera fixed neither."""
        return self.exposure is None and self.white_balance_k is None


@dataclasses.dataclass(frozen=True)
class ArmPose:
    """Where the arm holds a disc to drop it into a column or to pick it: the disc's centre (m), its yaw (rad).

    In the arm's base frame (what the arm's kinematics and serial protocols use); yaw turns the disc's
    face about the base's z axis.
    """

    x_m: float
    y_m: float
    z_m: float
    yaw_rad: float

    def __post_init__(self) -> None:
        for name in ("x_m", "y_m", "z_m", "yaw_rad"):
            object.__setattr__(self, name, _finite(getattr(self, name), name))
        if max(abs(self.x_m), abs(self.y_m), abs(self.z_m)) > MAX_REACH_M:
            raise ValueError(f"arm pose {self.xyz_m!r} m is beyond any arm's reach ({MAX_REACH_M} m)")

    @property
    def xyz_m(self) -> tuple[float, float, float]:
        return self.x_m, self.y_m, self.z_m


@dataclasses.dataclass(frozen=True)
class Setup:
    """Everything measured for one setup; a step that has not run leaves its section None (or empty)."""

    camera: CameraCalibration | None = None
    camera_settings: CameraSettings | None = None
    board: BoardCalibration | None = None
    colours: ColourCalibration | None = None
    drops: tuple[ArmPose, ...] = ()
    pick: ArmPose | None = None
    arm: Mapping[str, Any] = dataclasses.field(default_factory=lambda: MappingProxyType({}))

    def __post_init__(self) -> None:
        object.__setattr__(self, "drops", tuple(self.drops))
        object.__setattr__(self, "arm", MappingProxyType(dict(self.arm)))
        if self.board is not None and self.drops and len(self.drops) != self.board.cols:
            raise ValueError(f"{len(self.drops)} drop poses for a board of {self.board.cols} columns")

    def drop_pose(self, column: int) -> ArmPose:
        """The drop pose of a 0-based column; LookupError when the drops step has not covered it."""
        if not 0 <= column < len(self.drops):
            raise LookupError(f"no drop pose for column {column + 1}: run `c4robot calibrate drops`")
        return self.drops[column]


def _floats(values: Any) -> tuple[float, ...]:
    """Plain finite floats from any sequence of numbers (lists, tuples, numpy arrays); ValueError for nan or inf."""
    return tuple(_finite(value, "values") for value in values)


def _finite(value: Any, name: str) -> float:
    number = float(value)
    if not math.isfinite(number):
        raise ValueError(f"{name} must be a finite number, got {number!r}")
    return number
