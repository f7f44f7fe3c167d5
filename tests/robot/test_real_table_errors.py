"""`c4robot play --serial` when the arm or the camera fails: one sentence naming the device, a non-zero
exit, no traceback, and the saved game log left as it was."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import cv2
import numpy as np
import pytest

import calibration
from calibration.sim_truth import sim_setup
from robot.arm import ArmConfig, SerialConfig
from robot.arm.drivers.joint_serial import JointSerialArm
from robot.cli.main import main
from sim import World
from sim.fake_arms import FakeJointFirmware
from sim.fake_devices import Fault

LOG_TEXT = '{"note": "a saved game that must survive"}\n'


@pytest.fixture(scope="module")
def config_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    with World(seed=3) as world:
        setup = sim_setup(world)
    setup = dataclasses.replace(setup, arm={"handshake_timeout_s": 0.6, "reply_timeout_s": 0.3})
    return calibration.save(setup, tmp_path_factory.mktemp("setup") / "c4robot.toml")


@pytest.fixture()
def camera_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "frames"
    folder.mkdir()
    cv2.imwrite(str(folder / "frame_000.png"), np.full((480, 640, 3), 90, np.uint8))
    return folder


def _play(port: str, camera: Path, config: Path, log: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    log.write_text(LOG_TEXT)
    status = main(["play", "--serial", port, "--camera", str(camera), "--config", str(config), "--log", str(log)])
    error = capsys.readouterr().err.strip()
    assert log.read_text() == LOG_TEXT, "the saved game log was touched"
    assert "Traceback" not in error and len(error.splitlines()) == 1, error
    return status, error


def test_missing_port(config_file: Path, camera_folder: Path, tmp_path: Path, capsys) -> None:
    status, error = _play(str(tmp_path / "ttyNONE"), camera_folder, config_file, tmp_path / "log.json", capsys)
    assert status != 0 and "ttyNONE not found" in error


def test_busy_port(config_file: Path, camera_folder: Path, tmp_path: Path, capsys) -> None:
    with FakeJointFirmware() as device, JointSerialArm(ArmConfig(serial=SerialConfig(port=device.port))):
        status, error = _play(device.port, camera_folder, config_file, tmp_path / "log.json", capsys)
    assert status != 0 and "busy" in error and device.port in error


def test_silent_arm(config_file: Path, camera_folder: Path, tmp_path: Path, capsys) -> None:
    with FakeJointFirmware(Fault("silent")) as device:
        status, error = _play(device.port, camera_folder, config_file, tmp_path / "log.json", capsys)
    assert status != 0 and "silent" in error and device.port in error


def test_camera_that_runs_out_of_frames(config_file: Path, camera_folder: Path, tmp_path: Path, capsys) -> None:
    with FakeJointFirmware() as device:
        status, error = _play(device.port, camera_folder, config_file, tmp_path / "log.json", capsys)
    assert status != 0 and "has no more frames" in error and str(camera_folder) in error
