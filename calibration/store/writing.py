"""Writing a Setup as the TOML text of a calibration file (a small writer for the values a calibration holds).

A file that is already there is rewritten in place with tomlkit (`merge_setup`): the comments, the
order and the untouched values a person wrote stay as they were; only what the setup changed is new.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
import tomllib
from collections.abc import Mapping
from typing import Any

import tomlkit
from tomlkit.items import AoT, Table

from calibration.store.reading import SCHEMA_VERSION
from calibration.store.sections import ArmPose, Setup


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
    if setup.camera_settings is not None and not setup.camera_settings.is_empty:
        held = dataclasses.asdict(setup.camera_settings)
        document["camera_settings"] = {key: value for key, value in held.items() if value is not None}
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


def merge_setup(previous_text: str, setup: Setup) -> str:
    """`previous_text` with the setup's values in it: its comments, key order and unchanged values kept.

    A section or key the setup no longer has is removed; text that is not TOML is replaced whole."""
    fresh = format_setup(setup)
    try:
        document = tomlkit.parse(previous_text)
    except tomlkit.exceptions.ParseError:
        return fresh
    _merge_table(document, tomllib.loads(fresh))
    return tomlkit.dumps(document)


def _merge_table(target: Any, values: Mapping[str, Any]) -> None:
    for key in [key for key in target if key not in values]:
        del target[key]
    for key, value in values.items():
        present = target.get(key)
        if isinstance(value, Mapping) and isinstance(present, Table):
            _merge_table(present, value)
        elif isinstance(present, AoT) and _is_table_array(value) and len(present) == len(value):
            for table, entry in zip(present, value, strict=True):
                _merge_table(table, entry)
        elif present is None or _plain(present) != value:
            target[key] = value


def _plain(item: Any) -> Any:
    return item.unwrap() if hasattr(item, "unwrap") else item


def format_toml(document: Mapping[str, Any]) -> str:
    """TOML text for nested dicts of str/int/float/bool/lists; dict lists become arrays of tables."""
    lines: list[str] = []
    _write_table(lines, document, ())
    return "\n".join(lines).strip("\n") + "\n"


def _arm_pose_table(pose: ArmPose) -> dict[str, float]:
    return {
        "x_mm": round(pose.x_m * 1000.0, 3),
        "y_mm": round(pose.y_m * 1000.0, 3),
        "z_mm": round(pose.z_m * 1000.0, 3),
        "yaw_deg": round(math.degrees(pose.yaw_rad), 4),
    }


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
