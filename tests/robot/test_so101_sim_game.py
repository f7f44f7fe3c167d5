"""The SO-101 in the simulated world: its mount reaches the dispenser and every column, and a whole game
played with it lands every disc where the robot meant it (`c4robot play --sim --arm so101`). With a setup imported
from LeRobot (`--config`) the game goes through the project's Feetech driver and the twin's virtual servo bus: the
end of a game lands every disc, the gripper never pushes at full torque, a bus that differs from the setup is the
driver's mismatch error, a hot servo pauses the game and a gripper servo's restart stops it, told."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from calibration.lerobot import arm_settings
from robot.arm.drivers import feetech_wire as wire
from robot.arm.drivers.feetech_servos import GRIPPER_TORQUE_LIMIT
from robot.cli import main
from sim.feetech_bus import HOMING_OFFSET, TORQUE_ENABLE, TORQUE_LIMIT
from tests.late_games import late_log

FULL_TORQUE = 1000  # 0.1 % of a servo's full torque


def test_a_whole_game_with_the_so101_lands_every_disc(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["play", "--sim", "--arm", "so101", "--seed", "2", "--robot-first", "--json", "--log", str(tmp_path / "g")]
    status = main([*argv, "--time-ms", "300"])
    summary = json.loads(capsys.readouterr().out)
    assert status == 0
    assert summary["winner"] in ("robot", "draw")
    assert summary["board_agreement"] is True
    assert summary["turns"], "the robot made no move"
    assert [turn["landed"] for turn in summary["turns"]] == [turn["column"] for turn in summary["turns"]]


def test_an_unknown_simulated_arm_is_one_sentence(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["play", "--sim", "--arm", "ur5"])
    err = capsys.readouterr().err
    assert status != 0
    assert "'ur5'" in err and "so101" in err
    assert "Traceback" not in err


# LeRobot's calibration files of a follower arm, written here as lerobot-calibrate writes them: one object per motor.
# The SO-101's elbow and wrist flex turn the other way (drive_mode 1); the SO-100 has other offsets and ranges.
SO101_LEROBOT = {
    "shoulder_pan": {"id": 1, "drive_mode": 0, "homing_offset": -1470, "range_min": 758, "range_max": 3292},
    "shoulder_lift": {"id": 2, "drive_mode": 0, "homing_offset": 153, "range_min": 830, "range_max": 3234},
    "elbow_flex": {"id": 3, "drive_mode": 1, "homing_offset": 1010, "range_min": 863, "range_max": 3093},
    "wrist_flex": {"id": 4, "drive_mode": 1, "homing_offset": -1059, "range_min": 862, "range_max": 3215},
    "wrist_roll": {"id": 5, "drive_mode": 0, "homing_offset": -1434, "range_min": 0, "range_max": 4095},
    "gripper": {"id": 6, "drive_mode": 0, "homing_offset": -1373, "range_min": 2030, "range_max": 3484},
}
SO100_LEROBOT = {
    "shoulder_pan": {"id": 1, "drive_mode": 0, "homing_offset": 1205, "range_min": 612, "range_max": 3405},
    "shoulder_lift": {"id": 2, "drive_mode": 0, "homing_offset": -830, "range_min": 905, "range_max": 3180},
    "elbow_flex": {"id": 3, "drive_mode": 0, "homing_offset": 412, "range_min": 881, "range_max": 3091},
    "wrist_flex": {"id": 4, "drive_mode": 0, "homing_offset": -95, "range_min": 960, "range_max": 3150},
    "wrist_roll": {"id": 5, "drive_mode": 0, "homing_offset": 2010, "range_min": 0, "range_max": 4095},
    "gripper": {"id": 6, "drive_mode": 0, "homing_offset": -720, "range_min": 1900, "range_max": 3300},
}
GRIPPER_ID = 6


def _imported(tmp_path: Path, follower: str, document: dict) -> Path:
    """A setup whose [arm] section is `calibrate arm --from-lerobot` of `document` (saved in LeRobot's folder)."""
    lerobot = tmp_path / "lerobot" / "robots" / follower / "table.json"
    lerobot.parent.mkdir(parents=True)
    lerobot.write_text(json.dumps(document, indent=4))
    config = tmp_path / "setup.toml"
    assert main(["calibrate", "arm", "--from-lerobot", str(lerobot), "--config", str(config)]) == 0
    return config


def _sim_game(config: Path, previous, seed: int = 2):
    from robot.game.config import GameSettings, SimTableConfig
    from robot.game.play import sim_settings
    from robot.game.sim_table import SimGame

    settings = sim_settings(GameSettings(time_budget_s=0.3, seed=seed, robot_first=previous.robot_first))
    told: list[str] = []
    game_setup = SimGame(SimTableConfig(seed=seed, arm="so101", calibration=config), previous.robot_first, told.append)
    return game_setup, settings, told


def test_a_lerobot_so101_setup_plays_through_the_driver_and_the_virtual_bus(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    config = _imported(tmp_path, "so101_follower", SO101_LEROBOT)
    log = tmp_path / "g.json"
    late_log(robot_first=True).save(log)
    capsys.readouterr()
    caplog.set_level(logging.INFO, logger="robot.game.sim_servo_arm")
    argv = ["play", "--sim", "--arm", "so101", "--config", str(config), "--resume", "--log", str(log), "--json"]
    status = main([*argv, "--seed", "2", "--time-ms", "300"])
    summary = json.loads(capsys.readouterr().out)
    assert status == 0 and summary["winner"] == "robot" and summary["board_agreement"] is True
    assert summary["turns"] and [t["landed"] for t in summary["turns"]] == [t["column"] for t in summary["turns"]]
    (bus_log,) = [r for r in caplog.records if r.getMessage().startswith("servo bus:")]  # the driver's game
    requests, clamps, stalled = bus_log.args
    assert requests["sync_write"] > 0 and clamps == 0
    assert 0 < stalled[GRIPPER_ID] <= GRIPPER_TORQUE_LIMIT, "the gripper stalled on the disc at full torque"


def test_a_lerobot_so100_setup_lands_every_disc_and_never_pushes_the_gripper_at_full_torque(tmp_path: Path) -> None:
    config = _imported(tmp_path, "so100_follower", SO100_LEROBOT)
    game_setup, settings, told = _sim_game(config, late_log(robot_first=True))
    with game_setup:
        summary = game_setup.game(settings, None, late_log(robot_first=True)).play().summary()
        bus, arm = game_setup.servo_arm.bus, game_setup.servo_arm.arm
        assert summary["winner"] == "robot", told[-3:]
        assert [t["landed"] for t in summary["turns"]] == [t["column"] for t in summary["turns"]]
        assert 0 < bus.stall_loads[GRIPPER_ID] <= GRIPPER_TORQUE_LIMIT < FULL_TORQUE
        assert bus.servos[GRIPPER_ID].word(TORQUE_LIMIT) == GRIPPER_TORQUE_LIMIT and not arm.clamps
        eeprom = bus.servos[1].eeprom
        assert wire.read_signed(eeprom[HOMING_OFFSET : HOMING_OFFSET + 2], 11) == 1205  # as LeRobot left it


@pytest.mark.parametrize(
    ("changed", "sentence"),
    [
        ({"homing_offsets": {3: 0}}, "elbow_flex.*homing offset 0, the setup 1010"),
        ({"limits": {2: (900, 3234)}}, "shoulder_lift.*position limits 900..3234, the setup 830..3234"),
    ],
)
def test_a_virtual_bus_that_differs_from_the_setup_gets_the_drivers_mismatch_error(
    tmp_path: Path, changed: dict, sentence: str
) -> None:
    from robot.arm import ArmConfig
    from robot.arm.drivers.feetech import FeetechLayout
    from robot.arm.drivers.feetech_servos import ServoSetupError
    from robot.game.sim_servo_arm import connected_arm, servo_mapping
    from sim import World, WorldConfig
    from sim.config import ArmMount
    from sim.twin_bus import WorldServoBus

    config = ArmConfig.from_dict(arm_settings(SO101_LEROBOT))
    serial = config.serial
    offsets = dict(zip(serial.servo_ids, serial.servo_homing_offsets, strict=True)) | changed.get("homing_offsets", {})
    limits = dict(zip(serial.servo_ids, serial.servo_limits, strict=True)) | changed.get("limits", {})
    with World(WorldConfig(arm=ArmMount.named("so101")), seed=0) as world:
        mapping = servo_mapping(FeetechLayout.from_settings(serial))
        with WorldServoBus(world, mapping, steps_world=False, homing_offsets=offsets, limits=limits) as bus:
            with pytest.raises(ServoSetupError, match=sentence) as raised:
                connected_arm(world, config, bus)
    assert "calibrate arm" in str(raised.value)


def test_a_hot_servo_pauses_the_game_saved_with_its_event(tmp_path: Path) -> None:
    config = _imported(tmp_path, "so101_follower", SO101_LEROBOT)
    previous = late_log(robot_to_move=True)
    game_setup, settings, told = _sim_game(config, previous)
    log = tmp_path / "g.json"
    with game_setup:
        game = game_setup.game(settings, log, previous)
        bus = game_setup.servo_arm.bus
        with bus.lock:
            bus.servos[3].temperature_c = 95.0  # the elbow, past its 70 C
        summary = game.play().summary()
        game_setup.park()  # what `play` does next: the servos let go, the hot one included, and cool
        assert not any(servo.registers[TORQUE_ENABLE] for servo in bus.servos.values())
    assert "winner" not in summary or summary["winner"] is None
    assert "elbow_flex" in summary["stopped"] and "overheating" in summary["stopped"]
    (hot,) = [e for e in summary["events"] if e["kind"] == "servo_hot"]
    assert "c4robot play --resume" in hot["message"] and "cooled" in hot["message"]
    assert json.loads(log.read_text())["stopped"] == summary["stopped"]  # saved: resumable once cooled


def test_a_servo_bus_setup_needs_the_so101(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = _imported(tmp_path, "so101_follower", SO101_LEROBOT)
    capsys.readouterr()
    status = main(["play", "--sim", "--arm", "c4arm", "--config", str(config)])
    err = capsys.readouterr().err
    assert status != 0 and "--arm so101" in err and "Traceback" not in err


def test_a_gripper_servo_restarting_mid_move_stops_the_game_with_the_restart_told(tmp_path: Path) -> None:
    from robot.arm import ArmResetError
    from sim.fake_devices import Fault

    config = _imported(tmp_path, "so101_follower", SO101_LEROBOT)
    previous = late_log(robot_to_move=True)
    game_setup, settings, told = _sim_game(config, previous)
    log = tmp_path / "g.json"
    with game_setup:
        game = game_setup.game(settings, log, previous)
        bus = game_setup.servo_arm.bus
        with bus.lock:
            bus.fault = Fault("servo_restart", bus.changes + 12)  # a few goals into the robot's move
        with pytest.raises(ArmResetError, match="gripper"):
            game.play()
    assert f"RESET {GRIPPER_ID}" in bus.executed
    assert any("restarted in the middle of my move" in message for message in told)
    assert [e["kind"] for e in json.loads(log.read_text())["events"]][-1] == "arm_restarted"
