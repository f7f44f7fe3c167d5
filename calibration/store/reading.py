"""Reading a calibration file's TOML text into a Setup, naming the key of every bad value."""

from __future__ import annotations

import math
import tomllib
from collections.abc import Mapping
from typing import Any

from calibration.store.sections import (
    MAX_BOARD_SIZE,
    MIN_BOARD_SIZE,
    ArmPose,
    BoardCalibration,
    CalibrationError,
    CameraCalibration,
    CameraSettings,
    ColourCalibration,
    Setup,
)

SCHEMA_VERSION = 1


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
            f"schema_version {_shown(version)} is from {age} c4robot (this one reads {SCHEMA_VERSION}); run the calibration again"
        )
    unknown = set(document) - {
        "schema_version",
        "camera",
        "camera_settings",
        "board",
        "colours",
        "drops",
        "pick",
        "arm",
    }
    if unknown:
        raise CalibrationError(f"unknown sections {_shown(sorted(unknown))}")
    try:
        return Setup(
            camera=_camera_from(document["camera"]) if "camera" in document else None,
            camera_settings=_settings_from(document["camera_settings"]) if "camera_settings" in document else None,
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
        raise CalibrationError(f"{where} must be a list of numbers, got {_shown(value)}")
    if length is not None and len(value) != length:
        raise CalibrationError(f"{where} must have {length} numbers, got {len(value)}")
    if not all(math.isfinite(item) for item in value):
        raise CalibrationError(f"{where} must be finite numbers (no nan or inf), got {_shown(value)}")
    return tuple(float(item) for item in value)


def _number(value: Any, where: str) -> float:
    if not _is_number(value) or not math.isfinite(value):
        raise CalibrationError(f"{where} must be a finite number, got {_shown(value)}")
    return float(value)


def _integer(value: Any, where: str, low: int, high: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise CalibrationError(f"{where} must be a whole number, got {_shown(value)}")
    if not low <= value <= high:
        raise CalibrationError(f"{where} is {value}: give {low} to {high}")
    return value


def _shown(value: Any) -> str:
    """A value for an error message, cut short: a file may hold anything."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _camera_from(raw: Any) -> CameraCalibration:
    table = _table({"camera": raw}, "camera")
    matrix = _field(table, "camera", "camera_matrix")
    if not isinstance(matrix, list) or len(matrix) != 3:
        raise CalibrationError(f"camera.camera_matrix must be 3 rows of 3 numbers, got {_shown(matrix)}")
    size = _numbers(_field(table, "camera", "image_size_px"), "camera.image_size_px", 2)
    return CameraCalibration(
        camera_matrix=tuple(_numbers(row, "camera.camera_matrix row", 3) for row in matrix),
        distortion=_numbers(_field(table, "camera", "distortion"), "camera.distortion"),
        image_size_px=(int(size[0]), int(size[1])),
        reprojection_error_px=_number(_field(table, "camera", "reprojection_error_px"), "camera.reprojection_error_px"),
    )


def _settings_from(raw: Any) -> CameraSettings:
    table = _table({"camera_settings": raw}, "camera_settings")
    return CameraSettings(
        exposure=_number(table["exposure"], "camera_settings.exposure") if "exposure" in table else None,
        white_balance_k=(
            _number(table["white_balance_k"], "camera_settings.white_balance_k") if "white_balance_k" in table else None
        ),
    )


def _board_from(raw: Any) -> BoardCalibration:
    table = _table({"board": raw}, "board")
    corners = _field(table, "board", "corners_px")
    if not isinstance(corners, list) or len(corners) != 4:
        raise CalibrationError(f"board.corners_px must be four [x, y] points (tl, tr, br, bl), got {_shown(corners)}")
    has_rvec, has_tvec = "rvec_rad" in table, "tvec_mm" in table
    if has_rvec != has_tvec:
        raise CalibrationError("[board] is incomplete: the pose needs both rvec_rad and tvec_mm")
    tvec_mm = _numbers(table["tvec_mm"], "board.tvec_mm", 3) if has_tvec else None
    return BoardCalibration(
        rows=_integer(_field(table, "board", "rows"), "board.rows", MIN_BOARD_SIZE, MAX_BOARD_SIZE),
        cols=_integer(_field(table, "board", "cols"), "board.cols", MIN_BOARD_SIZE, MAX_BOARD_SIZE),
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
    numbers = [
        _integer(_field(entry, "drops", "column"), "drops.column.column", 1, MAX_BOARD_SIZE) for entry in entries
    ]
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
