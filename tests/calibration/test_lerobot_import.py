"""`calibrate arm --from-lerobot`: LeRobot's SO-100 / SO-101 calibration files (written here in their format)
read into the setup's [arm] section, the person's own lines kept, and every file that is not one refused in
one sentence; `calibrate check` refuses an [arm] table that `play` would refuse."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from calibration import store
from calibration.lerobot import MOTORS, LeRobotCalibrationError, arm_settings, read_arm_settings
from robot.arm import ArmConfig
from tests.cli.one_sentence import assert_one_sentence, run_in_process

# A follower's file as lerobot-calibrate writes it: the wrist roll's full turn, the others swept.
SO101 = {
    "shoulder_pan": {"id": 1, "drive_mode": 0, "homing_offset": -1470, "range_min": 758, "range_max": 3292},
    "shoulder_lift": {"id": 2, "drive_mode": 0, "homing_offset": 153, "range_min": 830, "range_max": 3234},
    "elbow_flex": {"id": 3, "drive_mode": 0, "homing_offset": 1010, "range_min": 863, "range_max": 3093},
    "wrist_flex": {"id": 4, "drive_mode": 0, "homing_offset": -1059, "range_min": 862, "range_max": 3215},
    "wrist_roll": {"id": 5, "drive_mode": 0, "homing_offset": -1434, "range_min": 0, "range_max": 4095},
    "gripper": {"id": 6, "drive_mode": 0, "homing_offset": -1373, "range_min": 2030, "range_max": 3484},
}
PERSON_WROTE = '# my table by the window\nschema_version = 1\n\n[arm]\nport = "/dev/ttyACM0"  # the left USB port\nvelocity_deg_s = 60\n'


def _write(path: Path, document: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=4))
    return path


def _changed(motor: str, **values: object) -> dict:
    return {**SO101, motor: {**SO101[motor], **values}}


def test_an_so101_file_becomes_the_arm_settings_and_keeps_what_the_person_wrote(tmp_path: Path) -> None:
    lerobot = _write(tmp_path / "robots" / "so101_follower" / "table.json", _changed("elbow_flex", drive_mode=1))
    config = tmp_path / "setup.toml"
    config.write_text(PERSON_WROTE)
    status, out, err = run_in_process(["calibrate", "arm", "--from-lerobot", str(lerobot), "--config", str(config)])
    assert status == 0, err
    assert "so101.urdf" in out  # no model named yet: the import says which to set
    text = config.read_text()
    assert text.startswith("# my table by the window\n") and '"/dev/ttyACM0"  # the left USB port' in text
    arm = ArmConfig.from_dict(dict(store.load(config).arm))
    assert arm.velocity_rad_s == pytest.approx(1.0472, abs=1e-3)
    serial = arm.serial
    assert serial.protocol == "feetech" and serial.servo_ids == (1, 2, 3, 4, 5, 6)
    assert serial.servo_middles == (2047,) * 6 and serial.servo_directions == (1, 1, -1, 1, 1, 1)
    assert serial.servo_ranges[4] == (0, 4095) and serial.servo_ranges[5] == (2030, 3484)
    assert serial.servo_homing_offsets == tuple(SO101[m]["homing_offset"] for m in MOTORS)
    assert serial.servo_limits == serial.servo_ranges  # LeRobot writes its ranges into the servos' EEPROM


def test_the_id_finds_the_file_in_lerobots_folder_and_an_so100_file_imports_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_LEROBOT_CALIBRATION", str(tmp_path / "lerobot"))
    _write(tmp_path / "lerobot" / "robots" / "so101_follower" / "blue.json", SO101)
    config = tmp_path / "setup.toml"
    status, _, err = run_in_process(["calibrate", "arm", "--id", "blue", "--config", str(config)])
    assert status == 0, err
    assert store.load(config).arm["servo_ranges"][0] == [758, 3292]
    so100 = _write(tmp_path / "so100_follower" / "old_arm.json", _changed("gripper", range_min=1900, range_max=3300))
    assert arm_settings(json.loads(so100.read_text()), str(so100))["servo_ranges"][5] == [1900, 3300]
    status, _, err = run_in_process(["calibrate", "arm", "--id", "absent", "--config", str(config)])
    assert_one_sentence(status, err)
    assert "lerobot-calibrate" in err


OLD_SO100 = {
    "homing_offset": [2048, 3072, 3072, -1024, -1024, -2048],
    "drive_mode": [0, 1, 0, 1, 0, 0],
    "start_pos": [2081, 3119, 1041, 1025, 2058, 2075],
    "end_pos": [1004, 2112, 2060, 1996, 3042, 3090],
    "calib_mode": ["DEGREE", "DEGREE", "DEGREE", "DEGREE", "DEGREE", "LINEAR"],
    "motor_names": list(MOTORS),
}
LEKIWI = {**SO101, "base_left_wheel": {"id": 7, "drive_mode": 0, "homing_offset": 0, "range_min": 0, "range_max": 4095}}


@pytest.mark.parametrize(
    ("name", "content", "sentence"),
    [
        ("missing.json", {m: v for m, v in SO101.items() if m != "wrist_flex"}, "lacks the wrist_flex motor"),
        ("ids.json", _changed("gripper", id=7), "servos are 1-6"),
        (
            "swapped.json",
            {**SO101, "gripper": SO101["wrist_roll"], "wrist_roll": SO101["gripper"]},
            "wrist_roll has servo id 6",
        ),
        ("empty_range.json", _changed("elbow_flex", range_min=3000, range_max=3000), "range_min < range_max"),
        ("outside.json", _changed("shoulder_lift", range_max=4600), "0..4095"),
        ("drive.json", _changed("wrist_flex", drive_mode=2), "drive_mode 2 cannot be honoured"),
        ("offset.json", _changed("shoulder_pan", homing_offset=3000), "does not fit"),
        ("field.json", {**SO101, "gripper": {"id": 6, "drive_mode": 0}}, "lacks homing_offset"),
        ("text.json", _changed("gripper", range_min="2030"), "not a whole number"),
        ("old_so100.json", OLD_SO100, "older SO-100 format"),
        ("lekiwi.json", LEKIWI, "another robot's calibration (motors base_left_wheel)"),
        ("list.json", [SO101], "JSON list"),
        ("not_json.json", "shoulder_pan = 1", "is not JSON"),
    ],
)
def test_every_file_that_is_not_an_so101_calibration_is_refused_in_one_sentence(
    tmp_path: Path, name: str, content: object, sentence: str
) -> None:
    path = tmp_path / name
    if isinstance(content, str):
        path.write_text(content)
    else:
        _write(path, content)
    with pytest.raises(LeRobotCalibrationError, match=sentence.replace("(", r"\(").replace(")", r"\)")):
        read_arm_settings(path)
    config = tmp_path / "setup.toml"
    config.write_text(PERSON_WROTE)
    status, _, err = run_in_process(["calibrate", "arm", "--from-lerobot", str(path), "--config", str(config)])
    assert_one_sentence(status, err, name)
    assert config.read_text() == PERSON_WROTE  # a refused import leaves the file as it was


def test_a_leader_arms_file_is_refused(tmp_path: Path) -> None:
    leader = _write(tmp_path / "teleoperators" / "so101_leader" / "me.json", SO101)
    with pytest.raises(LeRobotCalibrationError, match="leader arm"):
        read_arm_settings(leader)


@pytest.mark.parametrize(
    ("arm_lines", "sentence"),
    [("portt = 'x'", "unknown arm settings"), ("reply_timeout_s = -1.0", "must be positive")],
)
def test_check_refuses_an_arm_section_that_play_refuses(tmp_path: Path, arm_lines: str, sentence: str) -> None:
    config = tmp_path / "setup.toml"
    config.write_text(f"schema_version = 1\n\n[arm]\nprotocol = 'feetech'\n{arm_lines}\n")
    status, out, _ = run_in_process(["calibrate", "check", "--config", str(config), "--sim"])
    assert status == 1 and sentence in out and "[arm] cannot be used" in out
    with pytest.raises(ValueError, match=sentence):
        ArmConfig.from_dict(dict(store.load(config).arm))


@pytest.mark.parametrize(
    ("options", "sentence"),
    [
        (["--from-lerobot", "x.json", "--id", "blue"], "not both"),
        (["--from-lerobot"], "needs the file's PATH"),
        (["--from-lerobot", "x.json", "--sim"], "drop --sim"),
    ],
)
def test_the_import_options_that_cannot_work_together_are_one_sentence(
    tmp_path: Path, options: list[str], sentence: str
) -> None:
    status, _, err = run_in_process(["calibrate", "arm", *options, "--config", str(tmp_path / "setup.toml")])
    assert_one_sentence(status, err, options)
    assert sentence in err
