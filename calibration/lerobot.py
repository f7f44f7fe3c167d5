"""LeRobot's calibration of an SO-100 / SO-101 follower arm, read into the `[arm]` settings of a setup.

`lerobot-calibrate` has the person hold the middle pose, writes each servo's `Homing_Offset` so that
the pose reads 2047 (half a turn), then has every joint but the wrist roll swept; it writes the
extremes into the servos' EEPROM limits and keeps one JSON object per motor, keyed by name:
`{"id", "drive_mode", "homing_offset", "range_min", "range_max"}`. The wrist roll's 0..4095 is its
fixed full turn. Here: servo ids and ranges as given, middles 2047, direction -1 for drive mode 1,
the homing offsets and EEPROM limits kept so that the driver can check them at connect.

Files that are not such a calibration are refused with one sentence saying what they are.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

LEROBOT_CALIBRATION_ENV = "HF_LEROBOT_CALIBRATION"
FOLLOWER_FOLDER = Path("robots") / "so101_follower"
MOTORS = ("shoulder_pan", "shoulder_lift", "elbow_flex", "wrist_flex", "wrist_roll", "gripper")  # ids 1-6
FIELDS = ("id", "drive_mode", "homing_offset", "range_min", "range_max")
HALF_TURN_MIDDLE = 2047
MAX_TICK = 4095
MAX_HOMING_OFFSET = 2047  # Homing_Offset is sign-magnitude with its sign at bit 11
DIRECTIONS = {0: 1, 1: -1}  # drive_mode 1 turns the servo's count the other way


class LeRobotCalibrationError(ValueError):
    """A file that is not a usable LeRobot SO-100 / SO-101 follower calibration."""


def calibration_folder() -> Path:
    """LeRobot's calibration folder: $HF_LEROBOT_CALIBRATION, else ~/.cache/huggingface/lerobot/calibration."""
    moved = os.environ.get(LEROBOT_CALIBRATION_ENV)
    return Path(moved) if moved else Path.home() / ".cache" / "huggingface" / "lerobot" / "calibration"


def path_for_id(robot_id: str) -> Path:
    """Where `lerobot-calibrate --robot.type=so101_follower --robot.id=ROBOT_ID` writes its file."""
    return calibration_folder() / FOLLOWER_FOLDER / f"{robot_id}.json"


def read_arm_settings(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The `[arm]` settings of the LeRobot calibration file at `path`; LeRobotCalibrationError says why not."""
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise FileNotFoundError(
            f"no LeRobot calibration at {file}: run `lerobot-calibrate` first, or give the file's path"
        ) from None
    except UnicodeDecodeError:
        raise LeRobotCalibrationError(
            f"{file} is not JSON (not even text): give the .json file lerobot-calibrate wrote"
        ) from None
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise LeRobotCalibrationError(
            f"{file} is not JSON (line {error.lineno}: {error.msg}): give the .json file lerobot-calibrate wrote"
        ) from None
    return arm_settings(document, str(file))


def arm_settings(document: Any, where: str = "the file") -> dict[str, Any]:
    """The `[arm]` settings of a parsed LeRobot calibration (see `read_arm_settings`)."""
    if Path(where).parent.name.endswith("_leader"):
        raise LeRobotCalibrationError(
            f"{where} is a leader arm's calibration (the arm a person moves): import the follower's file"
        )
    if not isinstance(document, dict):
        raise LeRobotCalibrationError(f"{where} holds a JSON {type(document).__name__}, not LeRobot's motor table")
    if "motor_names" in document or all(isinstance(value, list) for value in document.values()) and document:
        raise LeRobotCalibrationError(
            f"{where} is in LeRobot's older SO-100 format (lists per field): calibrate again with a current "
            "LeRobot (lerobot-calibrate), which writes one entry per motor"
        )
    others = sorted(set(document) - set(MOTORS))
    if others:
        raise LeRobotCalibrationError(
            f"{where} is another robot's calibration (motors {', '.join(others)}): this imports an SO-100 / "
            f"SO-101 follower arm's ({', '.join(MOTORS)})"
        )
    missing = [name for name in MOTORS if name not in document]
    if missing:
        raise LeRobotCalibrationError(
            f"{where} lacks the {', '.join(missing)} motor{'s' if len(missing) > 1 else ''}: an SO-101 has six "
            "motors; run lerobot-calibrate again"
        )
    entries = [_motor(document[name], name, index + 1, where) for index, name in enumerate(MOTORS)]
    ranges = [[entry["range_min"], entry["range_max"]] for entry in entries]
    return {
        "protocol": "feetech",
        "servo_ids": [entry["id"] for entry in entries],
        "servo_middles": [HALF_TURN_MIDDLE] * len(entries),
        "servo_directions": [DIRECTIONS[entry["drive_mode"]] for entry in entries],
        "servo_ranges": ranges,
        "servo_homing_offsets": [entry["homing_offset"] for entry in entries],
        "servo_limits": ranges,
    }


def _motor(entry: Any, name: str, servo_id: int, where: str) -> dict[str, int]:
    if not isinstance(entry, dict):
        raise LeRobotCalibrationError(f"{where}: {name} is a JSON {type(entry).__name__}, not an object of {FIELDS}")
    absent = [key for key in FIELDS if key not in entry]
    if absent:
        raise LeRobotCalibrationError(f"{where}: {name} lacks {', '.join(absent)}; run lerobot-calibrate again")
    bad = [key for key in FIELDS if not isinstance(entry[key], int) or isinstance(entry[key], bool)]
    if bad:
        raise LeRobotCalibrationError(f"{where}: {name}'s {bad[0]} is {entry[bad[0]]!r}, not a whole number")
    if entry["id"] != servo_id:
        raise LeRobotCalibrationError(
            f"{where}: {name} has servo id {entry['id']}; an SO-101's servos are 1-6 "
            f"({', '.join(f'{motor} {i}' for i, motor in enumerate(MOTORS, 1))}): set its id with lerobot-setup-motors"
        )
    low, high = entry["range_min"], entry["range_max"]
    if not 0 <= low < high <= MAX_TICK:
        raise LeRobotCalibrationError(
            f"{where}: {name}'s range {low}..{high} is not a range of 0..{MAX_TICK} with range_min < range_max; "
            "run lerobot-calibrate again"
        )
    if entry["drive_mode"] not in DIRECTIONS:
        raise LeRobotCalibrationError(
            f"{where}: {name}'s drive_mode {entry['drive_mode']} cannot be honoured (0 keeps the servo's "
            "direction, 1 turns it); run lerobot-calibrate again"
        )
    if abs(entry["homing_offset"]) > MAX_HOMING_OFFSET:
        raise LeRobotCalibrationError(
            f"{where}: {name}'s homing_offset {entry['homing_offset']} does not fit the servo's register "
            f"(-{MAX_HOMING_OFFSET}..{MAX_HOMING_OFFSET}); run lerobot-calibrate again"
        )
    return entry
