"""Arm settings from a calibration file's [arm] table, the driver choice, and `c4robot bench arm`."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from robot.arm import ArmConfig
from robot.arm.drivers import serial_arm
from robot.arm.drivers.gcode import GcodeArm
from robot.arm.drivers.joint_serial import JointSerialArm
from robot.arm.kinematics import KinematicChain
from robot.cli import main

C4ARM = Path(__file__).resolve().parents[2] / "sim" / "assets" / "c4arm.urdf"


def test_arm_table_in_mm_and_degrees() -> None:
    config = ArmConfig.from_dict(
        {
            "velocity_deg_s": 60,
            "acceleration_deg_s2": 200,
            "clearance_mm": 25,
            "home_deg": [0, 10, 20, -30, 0],
            "port": "/dev/ttyACM0",
            "protocol": "gcode",
            "gcode_dialect": "grbl",
            "retries": 5,
        }
    )
    assert config.velocity_rad_s == pytest.approx(math.radians(60))
    assert config.clearance_m == pytest.approx(0.025)
    assert config.home_rad[2] == pytest.approx(math.radians(20))
    assert (config.serial.port, config.serial.protocol, config.serial.gcode_dialect, config.serial.retries) == (
        "/dev/ttyACM0",
        "gcode",
        "grbl",
        5,
    )


def test_arm_table_errors_name_the_setting() -> None:
    with pytest.raises(ValueError, match="unknown arm settings \\['speed'\\]"):
        ArmConfig.from_dict({"speed": 3})
    with pytest.raises(ValueError, match="serial protocol 'can'"):
        ArmConfig.from_dict({"protocol": "can"})
    with pytest.raises(ValueError, match="must be positive"):
        ArmConfig.from_dict({"velocity_deg_s": 0})


def test_serial_arm_picks_the_driver_of_the_protocol() -> None:
    chain = KinematicChain.from_urdf(C4ARM, "tool")
    assert isinstance(serial_arm(ArmConfig.from_dict({"protocol": "joint", "port": "x"}), chain), JointSerialArm)
    assert isinstance(serial_arm(ArmConfig.from_dict({"protocol": "gcode", "port": "x"}), chain), GcodeArm)


def test_bench_arm_columns_prints_a_row_per_column(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "arm", "columns", "--columns", "1,7", "--turns", "1"]) == 0
    out = capsys.readouterr().out
    rows = [line.split() for line in out.splitlines() if line.split()[:1] in (["1"], ["7"], ["all"])]
    assert [row[0] for row in rows] == ["1", "7", "all"]
    assert all(row[-1] == "1/1" for row in rows[:2]) and rows[-1][-1] == "2/2"
    assert all(0 < float(row[1]) <= 6.0 for row in rows)


def test_bench_arm_drops_counts_the_carried_drops(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "arm", "drops", "--turns", "3", "--servo-error-deg", "1"]) == 0
    out = capsys.readouterr().out
    assert "3 robot turns into random columns" in out and "servo zeros off by up to 1 deg" in out
    assert "discs landed: 3/3 in the chosen column" in out and "0 misses unreported" in out


@pytest.mark.parametrize(
    "argv",
    [
        ["bench", "arm", "columns", "--servo-error-deg", "1"],  # a drops option in the columns mode
        ["bench", "arm", "columns", "--columns", "9"],
        ["bench", "arm", "columns", "--columns", ""],
        ["bench", "serial", "--protocols", ""],
        ["bench", "serial", "--faults", " , "],
    ],
)
def test_bench_arm_and_serial_refuse_what_does_not_fit_in_one_sentence(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("c4robot: ")
