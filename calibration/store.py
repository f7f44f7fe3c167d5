"""The calibration file of one setup: what was measured, in a versioned, human-readable TOML file.

One file per setup (camera, board on the table, arm) holds every calibration step's result, so any
layer can read it: this module imports nothing of the project. The file is TOML because people open
it: they fix a serial port or a colour by hand, and TOML keeps comments and reads without quoting
every key; the standard library reads it (`tomllib`) and the small writer below covers the values a
calibration holds (numbers, strings, booleans, arrays, tables, arrays of tables).

Layout (units in the key names; mm and degrees in the file, metres and radians in Python; columns
1-based in the file, 0-based in Python)::

    schema_version = 1
    [camera]   image_size_px = [w, h], camera_matrix = 3x3, distortion = [k1, k2, p1, p2, k3, ...],
               reprojection_error_px
    [board]    rows, cols, column_pitch_mm, row_pitch_mm, disc_plane_depth_mm, corners_px = [[x, y] x4]
               (centres of the tl, tr, br, bl holes on the front face), optional rvec_rad = [3],
               tvec_mm = [3] (board pose in the camera frame)
    [colours]  robot = "R", person = "Y", robot_bgr = [b, g, r], person_bgr = [b, g, r]
    [[drops.column]]  column = 1, x_mm, y_mm, z_mm, yaw_deg   (one per board column, arm base frame)
    [pick]     x_mm, y_mm, z_mm, yaw_deg   (where the arm grips a disc at the dispenser, arm base frame)
    [arm]      free-form table read by the arm layer's ArmConfig (port, baud, protocol, limits...)

Every section is optional (calibration goes step by step) but a section that is present must be
complete. Writes are atomic (a temp file beside the target, then os.replace), so a failed write leaves
the previous file as it was.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import re
import tempfile
import tomllib
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

SCHEMA_VERSION = 1
DISC_COLOUR_LETTERS = "RYBGPOKW"
DISTORTION_LENGTHS = (4, 5, 8, 12, 14)
CONFIG_ENV = "XDG_CONFIG_HOME"


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
        object.__setattr__(self, "reprojection_error_px", float(self.reprojection_error_px))
        if len(self.camera_matrix) != 3 or any(len(row) != 3 for row in self.camera_matrix):
            raise ValueError(f"camera_matrix must be 3x3, got {self.camera_matrix!r}")
        if len(self.distortion) not in DISTORTION_LENGTHS:
            raise ValueError(
                f"distortion must have one of {DISTORTION_LENGTHS} coefficients, got {len(self.distortion)}"
            )
        if len(self.image_size_px) != 2 or min(self.image_size_px) <= 0:
            raise ValueError(f"image_size_px must be [width, height] > 0, got {self.image_size_px!r}")
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
        object.__setattr__(self, "column_pitch_m", float(self.column_pitch_m))
        object.__setattr__(self, "row_pitch_m", float(self.row_pitch_m))
        object.__setattr__(self, "disc_plane_depth_m", float(self.disc_plane_depth_m))
        if self.rows < 2 or self.cols < 2:
            raise ValueError(f"board rows and cols must be at least 2, got {self.rows}x{self.cols}")
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
            object.__setattr__(self, name, float(getattr(self, name)))

    @property
    def xyz_m(self) -> tuple[float, float, float]:
        return self.x_m, self.y_m, self.z_m


@dataclasses.dataclass(frozen=True)
class Setup:
    """Everything measured for one setup; a step that has not run leaves its section None (or empty)."""

    camera: CameraCalibration | None = None
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
    """Plain floats from any sequence of numbers (lists, tuples, numpy arrays)."""
    return tuple(float(value) for value in values)


def default_path() -> Path:
    """$XDG_CONFIG_HOME/c4robot/setup.toml (XDG_CONFIG_HOME defaults to ~/.config)."""
    base = os.environ.get(CONFIG_ENV) or str(Path.home() / ".config")
    return Path(base) / "c4robot" / "setup.toml"


def load(path: str | os.PathLike[str] | None = None, missing_ok: bool = False) -> Setup:
    """Read a calibration file (default_path() when None).

    Raises FileNotFoundError when absent (an empty Setup instead with missing_ok) and CalibrationError
    (a ValueError) naming the file and the problem when it is malformed, partial or of another schema.
    """
    file = Path(path) if path is not None else default_path()
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        if missing_ok:
            return Setup()
        raise FileNotFoundError(
            f"no calibration file at {file}: run `c4robot calibrate` or pass --config PATH"
        ) from None
    try:
        return parse(text)
    except CalibrationError as error:
        raise CalibrationError(f"calibration file {file}: {error}") from None


def save(setup: Setup, path: str | os.PathLike[str] | None = None) -> Path:
    """Write the setup atomically (default_path() when None); returns the path written."""
    file = Path(path) if path is not None else default_path()
    write_atomically(file, format_setup(setup))
    return file


def write_atomically(file: Path, text: str) -> None:
    """Write `text` to `file` so that a crash mid-write leaves the previous file intact (temp file, fsync, rename)."""
    file.parent.mkdir(parents=True, exist_ok=True)
    descriptor, temp_name = tempfile.mkstemp(prefix=f".{file.name}.", suffix=".tmp", dir=file.parent)
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temp_name, file)
    except BaseException:
        Path(temp_name).unlink(missing_ok=True)
        raise


def parse(text: str) -> Setup:
    """A Setup from the TOML text of a calibration file; CalibrationError says what is wrong."""
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise CalibrationError(f"not valid TOML ({error}); fix the file or run the calibration again") from None
    version = document.get("schema_version")
    if version is None:
        raise CalibrationError("schema_version is missing; run the calibration again")
    if version != SCHEMA_VERSION:
        age = "an older" if isinstance(version, int) and version < SCHEMA_VERSION else "another"
        raise CalibrationError(
            f"schema_version {version!r} is from {age} c4robot (this one reads {SCHEMA_VERSION}); run the calibration again"
        )
    unknown = set(document) - {"schema_version", "camera", "board", "colours", "drops", "pick", "arm"}
    if unknown:
        raise CalibrationError(f"unknown sections {sorted(unknown)}")
    try:
        return Setup(
            camera=_camera_from(document["camera"]) if "camera" in document else None,
            board=_board_from(document["board"]) if "board" in document else None,
            colours=_colours_from(document["colours"]) if "colours" in document else None,
            drops=_drops_from(document["drops"]) if "drops" in document else (),
            pick=_arm_pose_from(_table(document, "pick"), "pick") if "pick" in document else None,
            arm=_table(document, "arm") if "arm" in document else {},
        )
    except CalibrationError:
        raise
    except (ValueError, TypeError) as error:
        raise CalibrationError(str(error)) from None


def format_setup(setup: Setup) -> str:
    """The TOML text of a calibration file for this setup (what save writes)."""
    document: dict[str, Any] = {"schema_version": SCHEMA_VERSION}
    if setup.camera is not None:
        camera = setup.camera
        document["camera"] = {
            "image_size_px": list(camera.image_size_px),
            "camera_matrix": [list(row) for row in camera.camera_matrix],
            "distortion": list(camera.distortion),
            "reprojection_error_px": camera.reprojection_error_px,
        }
    if setup.board is not None:
        board = setup.board
        document["board"] = {
            "rows": board.rows,
            "cols": board.cols,
            "column_pitch_mm": round(board.column_pitch_m * 1000.0, 4),
            "row_pitch_mm": round(board.row_pitch_m * 1000.0, 4),
            "disc_plane_depth_mm": round(board.disc_plane_depth_m * 1000.0, 4),
            "corners_px": [[round(x, 3), round(y, 3)] for x, y in board.corners_px],
        }
        if board.rvec_rad is not None and board.tvec_m is not None:
            document["board"]["rvec_rad"] = list(board.rvec_rad)
            document["board"]["tvec_mm"] = [round(value * 1000.0, 3) for value in board.tvec_m]
    if setup.colours is not None:
        document["colours"] = dataclasses.asdict(setup.colours)
    if setup.drops:
        document["drops"] = {
            "column": [{"column": index + 1, **_arm_pose_table(pose)} for index, pose in enumerate(setup.drops)]
        }
    if setup.pick is not None:
        document["pick"] = _arm_pose_table(setup.pick)
    if setup.arm:
        document["arm"] = dict(setup.arm)
    header = "# c4robot calibration of one setup; units are in the key names, columns count from 1.\n"
    return header + format_toml(document)


def format_toml(document: Mapping[str, Any]) -> str:
    """TOML text for nested dicts of str/int/float/bool/lists; dict lists become arrays of tables."""
    lines: list[str] = []
    _write_table(lines, document, ())
    return "\n".join(lines).strip("\n") + "\n"


# --- reading sections ---------------------------------------------------------------------------------


def _table(document: Mapping[str, Any], name: str) -> dict[str, Any]:
    value = document[name]
    if not isinstance(value, dict):
        raise CalibrationError(f"[{name}] must be a table, got {type(value).__name__}")
    return value


def _field(table: Mapping[str, Any], section: str, key: str) -> Any:
    if key not in table:
        step = "drops" if section == "pick" else section  # the drops step teaches the pick pose too
        raise CalibrationError(f"[{section}] is incomplete: {key} is missing; run `c4robot calibrate {step}` again")
    return table[key]


def _numbers(value: Any, where: str, length: int | None = None) -> tuple[float, ...]:
    if not isinstance(value, list) or not all(_is_number(item) for item in value):
        raise CalibrationError(f"{where} must be a list of numbers, got {value!r}")
    if length is not None and len(value) != length:
        raise CalibrationError(f"{where} must have {length} numbers, got {len(value)}")
    return tuple(float(item) for item in value)


def _number(value: Any, where: str) -> float:
    if not _is_number(value):
        raise CalibrationError(f"{where} must be a number, got {value!r}")
    return float(value)


def _integer(value: Any, where: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise CalibrationError(f"{where} must be a whole number, got {value!r}")
    return value


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _camera_from(raw: Any) -> CameraCalibration:
    table = _table({"camera": raw}, "camera")
    matrix = _field(table, "camera", "camera_matrix")
    if not isinstance(matrix, list) or len(matrix) != 3:
        raise CalibrationError(f"camera.camera_matrix must be 3 rows of 3 numbers, got {matrix!r}")
    size = _numbers(_field(table, "camera", "image_size_px"), "camera.image_size_px", 2)
    return CameraCalibration(
        camera_matrix=tuple(_numbers(row, "camera.camera_matrix row", 3) for row in matrix),
        distortion=_numbers(_field(table, "camera", "distortion"), "camera.distortion"),
        image_size_px=(int(size[0]), int(size[1])),
        reprojection_error_px=_number(_field(table, "camera", "reprojection_error_px"), "camera.reprojection_error_px"),
    )


def _board_from(raw: Any) -> BoardCalibration:
    table = _table({"board": raw}, "board")
    corners = _field(table, "board", "corners_px")
    if not isinstance(corners, list) or len(corners) != 4:
        raise CalibrationError(f"board.corners_px must be four [x, y] points (tl, tr, br, bl), got {corners!r}")
    has_rvec, has_tvec = "rvec_rad" in table, "tvec_mm" in table
    if has_rvec != has_tvec:
        raise CalibrationError("[board] is incomplete: the pose needs both rvec_rad and tvec_mm")
    tvec_mm = _numbers(table["tvec_mm"], "board.tvec_mm", 3) if has_tvec else None
    return BoardCalibration(
        rows=_integer(_field(table, "board", "rows"), "board.rows"),
        cols=_integer(_field(table, "board", "cols"), "board.cols"),
        corners_px=tuple(_numbers(point, "board.corners_px point", 2) for point in corners),
        column_pitch_m=_number(_field(table, "board", "column_pitch_mm"), "board.column_pitch_mm") / 1000.0,
        row_pitch_m=_number(_field(table, "board", "row_pitch_mm"), "board.row_pitch_mm") / 1000.0,
        disc_plane_depth_m=_number(_field(table, "board", "disc_plane_depth_mm"), "board.disc_plane_depth_mm") / 1000.0,
        rvec_rad=_numbers(table["rvec_rad"], "board.rvec_rad", 3) if has_rvec else None,
        tvec_m=tuple(value / 1000.0 for value in tvec_mm) if tvec_mm is not None else None,
    )


def _colours_from(raw: Any) -> ColourCalibration:
    table = _table({"colours": raw}, "colours")
    return ColourCalibration(
        robot=str(_field(table, "colours", "robot")),
        person=str(_field(table, "colours", "person")),
        robot_bgr=_numbers(_field(table, "colours", "robot_bgr"), "colours.robot_bgr", 3),
        person_bgr=_numbers(_field(table, "colours", "person_bgr"), "colours.person_bgr", 3),
    )


def _drops_from(raw: Any) -> tuple[ArmPose, ...]:
    table = _table({"drops": raw}, "drops")
    entries = _field(table, "drops", "column")
    if not isinstance(entries, list) or not entries or not all(isinstance(entry, dict) for entry in entries):
        raise CalibrationError("drops.column must be a list of [[drops.column]] tables")
    numbers = [_integer(_field(entry, "drops", "column"), "drops.column.column") for entry in entries]
    if sorted(numbers) != list(range(1, len(entries) + 1)):
        raise CalibrationError(f"drops must cover columns 1..{len(entries)} once each, got {numbers}")
    by_column = dict(zip(numbers, entries, strict=False))
    return tuple(
        _arm_pose_from(by_column[column], "drops", f"drops column {column}") for column in range(1, len(entries) + 1)
    )


def _arm_pose_from(table: Mapping[str, Any], section: str, where: str | None = None) -> ArmPose:
    where = where or section
    return ArmPose(
        x_m=_number(_field(table, section, "x_mm"), f"{where} x_mm") / 1000.0,
        y_m=_number(_field(table, section, "y_mm"), f"{where} y_mm") / 1000.0,
        z_m=_number(_field(table, section, "z_mm"), f"{where} z_mm") / 1000.0,
        yaw_rad=math.radians(_number(_field(table, section, "yaw_deg"), f"{where} yaw_deg")),
    )


def _arm_pose_table(pose: ArmPose) -> dict[str, float]:
    return {
        "x_mm": round(pose.x_m * 1000.0, 3),
        "y_mm": round(pose.y_m * 1000.0, 3),
        "z_mm": round(pose.z_m * 1000.0, 3),
        "yaw_deg": round(math.degrees(pose.yaw_rad), 4),
    }


# --- the TOML writer ----------------------------------------------------------------------------------

_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def _key(name: str) -> str:
    return name if _BARE_KEY.match(name) else json.dumps(name, ensure_ascii=False)


def _is_table_array(value: Any) -> bool:
    return isinstance(value, (list, tuple)) and bool(value) and all(isinstance(item, Mapping) for item in value)


def _write_table(lines: list[str], table: Mapping[str, Any], path: tuple[str, ...]) -> None:
    nested = []
    for name, value in table.items():
        if not isinstance(name, str):
            raise TypeError(f"TOML keys must be strings, got {name!r}")
        if isinstance(value, Mapping) or _is_table_array(value):
            nested.append((name, value))
        else:
            lines.append(f"{_key(name)} = {_value(value)}")
    for name, value in nested:
        header = ".".join(_key(part) for part in (*path, name))
        if isinstance(value, Mapping):
            if any(not (isinstance(item, Mapping) or _is_table_array(item)) for item in value.values()):
                lines.extend(["", f"[{header}]"])
            _write_table(lines, value, (*path, name))
        else:
            for item in value:
                lines.extend(["", f"[[{header}]]"])
                _write_table(lines, item, (*path, name))


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, Mapping):
        return "{ " + ", ".join(f"{_key(str(k))} = {_value(v)}" for k, v in value.items()) + " }"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_value(item) for item in value) + "]"
    if hasattr(value, "item") and callable(value.item):  # numpy scalars
        return _value(value.item())
    raise TypeError(f"cannot write {type(value).__name__} value {value!r} to a calibration file")
