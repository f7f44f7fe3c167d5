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
