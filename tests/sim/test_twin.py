"""`c4robot sim serve`, the digital twin: bad options are one sentence; a twin prints its port, camera and truth setup,
its camera is a stream `--camera` opens, its truth setup is a whole calibration for its protocol, and it ends on
SIGTERM and when its parent goes away."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import calibration
from robot.cli.main import main
from robot.cli.twin_process import C4ROBOT, TwinProcess
from vision.cameras import open_camera


@pytest.mark.parametrize(
    ("options", "words"),
    [
        (["--protocol", "canbus"], "there is no protocol 'canbus'"),
        (["--protocol", "grbl", "--arm", "so101"], "use --arm c4arm"),
        (["--room", "dark"], "there is no room 'dark'"),
        (["--faults", "melt@3"], "fault 'melt@3'"),
        (["--faults", "reset@x"], "N a whole number"),
        (["--faults", "stall@0"], "counts from 1"),
        (["--opponent", "human"], "plays by a policy"),
        (["--opponent", "engine:11"], "unknown opponent"),
    ],
)
def test_bad_options_are_one_sentence(options: list[str], words: str, capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["sim", "serve", *options])
    error = capsys.readouterr().err.strip()
    assert status != 0
    assert words in error and "Traceback" not in error and len(error.splitlines()) == 1, error


@pytest.mark.parametrize("protocol", ["joint", "feetech"])
def test_a_twin_looks_like_a_table_and_ends_on_sigterm(protocol: str, tmp_path: Path) -> None:
    with TwinProcess(["--protocol", protocol, "--seed", "3", "--folder", str(tmp_path)], tmp_path) as twin:
        assert Path(twin.info["port"]).exists()
        setup = calibration.load(twin.info["truth_setup"])
        assert setup.board is not None and setup.colours is not None and len(setup.drops) == setup.board.cols
        assert setup.arm.get("protocol", "joint") == protocol
        with open_camera(twin.info["camera"]) as camera:
            frame = camera.read()
        assert frame.shape[:2] == tuple(reversed(setup.camera.image_size_px))
        twin.process.send_signal(signal.SIGTERM)
        assert twin.process.wait(15.0) == 0
    assert not Path(twin.info["port"]).exists(), "the pty was left behind"


def test_a_twin_ends_when_its_parent_goes_away(tmp_path: Path) -> None:
    """A parent that dies without a word (SIGKILL) takes its twin with it."""
    launcher = (
        "import subprocess, sys, time; "
        f"child = subprocess.Popen({list(C4ROBOT)!r} + ['sim', 'serve'], stdout=subprocess.PIPE, text=True); "
        "print(child.pid, flush=True); print(child.stdout.readline(), end='', flush=True); time.sleep(600)"
    )
    parent = subprocess.Popen([sys.executable, "-c", launcher], stdout=subprocess.PIPE, text=True)
    twin_pid = None
    try:
        twin_pid = int(parent.stdout.readline())
        assert "port" in json.loads(parent.stdout.readline())
        parent.kill()
        parent.wait()
        deadline = time.monotonic() + 20.0
        while time.monotonic() < deadline and _alive(twin_pid):
            time.sleep(0.2)
        assert not _alive(twin_pid), "the twin outlived its parent"
    finally:
        parent.kill()
        if twin_pid is not None and _alive(twin_pid):
            os.kill(twin_pid, signal.SIGKILL)


def _alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie, dead but not yet reaped by init, counts as gone)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, IndexError):
        return False
    return state != "Z"


def test_a_feetech_twin_serves_the_so101_of_a_lerobot_setup(tmp_path: Path) -> None:
    """`sim serve --protocol feetech --config FILE`: the twin's servo bus is the arm the file was made on, so the
    driver connects with that file's [arm] section, and one made on another arm gets the driver's mismatch error."""
    import dataclasses

    from calibration.lerobot import arm_settings
    from robot.arm import ArmConfig
    from robot.arm.drivers.feetech import FeetechArm
    from robot.arm.drivers.feetech_servos import ServoSetupError
    from tests.robot.test_so101_sim_game import SO100_LEROBOT, SO101_LEROBOT

    mine = tmp_path / "so101.toml"
    calibration.save(calibration.Setup(arm=arm_settings(SO101_LEROBOT)), mine)
    serve = ["--protocol", "feetech", "--config", str(mine), "--seed", "3", "--folder", str(tmp_path)]
    with TwinProcess(serve, tmp_path) as twin:
        truth = calibration.load(twin.info["truth_setup"]).arm
        assert truth["servo_homing_offsets"] == arm_settings(SO101_LEROBOT)["servo_homing_offsets"]

        def connected(settings: dict) -> FeetechArm:
            config = ArmConfig.from_dict(settings)
            return FeetechArm(
                dataclasses.replace(config, serial=dataclasses.replace(config.serial, port=twin.info["port"]))
            )

        with connected(truth) as arm:
            assert len(arm.joint_state()) == 5
        with pytest.raises(ServoSetupError, match="homing offset"):
            connected({**truth, **arm_settings(SO100_LEROBOT)}).connect()


@pytest.mark.parametrize(
    ("protocol", "arm", "words"),
    [
        ("feetech", {"protocol": "gcode"}, "not a Feetech servo bus"),
        ("joint", None, "give --protocol feetech"),
    ],
)
def test_a_twin_setup_it_cannot_serve_is_one_sentence(
    protocol: str, arm: dict | None, words: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from calibration.lerobot import arm_settings
    from tests.robot.test_so101_sim_game import SO101_LEROBOT

    setup = tmp_path / "setup.toml"
    calibration.save(calibration.Setup(arm=arm or arm_settings(SO101_LEROBOT)), setup)
    status = main(["sim", "serve", "--protocol", protocol, "--config", str(setup)])
    error = capsys.readouterr().err.strip()
    assert status != 0
    assert words in error and "Traceback" not in error and len(error.splitlines()) == 1, error
