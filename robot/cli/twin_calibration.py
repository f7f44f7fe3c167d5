"""A whole table calibrated against a digital twin through the commands a person runs on a real one.

`calibrate camera|board|colours --camera URL` while the twin's person waves a chessboard, clears the board, shows a
disc of each colour; then `calibrate drops --serial PORT --camera URL` at a terminal, jogged key by key as a person
jogs it (the held disc onto the dispenser's disc, over the first column, over the last), every column test-dropped.
These are the steps of the README's "Your own table". The person's eye is played by the twin's
truth (where the slots are); everything else is the project's own calibration code, as it runs on a real table.
`bench game twin` plays on the file this makes, and the tests check it against the truth.
"""

from __future__ import annotations

import dataclasses
import math
import os
import pty
import select
import subprocess
import time
from pathlib import Path

import numpy as np

import calibration
from calibration.jogging import JOG_STEPS_M, JOG_YAW_STEP_RAD
from calibration.store import ArmPose
from robot.arm.kinematics import KinematicChain
from robot.cli.twin_process import C4ROBOT, TwinProcess
from sim.config import DEFAULT_ARM_URDF

STEP_TIMEOUT_S = 180.0
KEY_TIMEOUT_S = 30.0
CONNECT_TIMEOUT_S = 90.0  # the command starts, connects the arm and homes it before the first question
JOG_KEYS = "wsadrfqe"  # forward/back, left/right, up/down, turn left/right
JOGGED = "  x "  # the position `calibrate drops` prints after every jog
ASKED = "jog the held disc"  # and the next pose it asks for after Enter
TEST_DROPS = "empty the board, then press Enter"  # after the last pose
SETTLE_S = 0.3
GRIP_S = 2.0
CHESSBOARD = ("--chessboard", "9x6", "--square-mm", "12", "--views", "10")  # what the twin's person holds up


class CalibrationStepError(RuntimeError):
    """A calibration step against the twin failed; the message names the step and its last words."""


def run_step(config: Path, *args: str) -> str:
    """`c4robot calibrate ARGS --config CONFIG` with no one at the keyboard; its output."""
    try:
        done = subprocess.run(
            [*C4ROBOT, "calibrate", *args, "--config", str(config)],
            capture_output=True,
            text=True,
            timeout=STEP_TIMEOUT_S,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        raise CalibrationStepError(f"calibrate {args[0]} took longer than {STEP_TIMEOUT_S:.0f} s") from None
    if done.returncode != 0:
        last = (done.stderr.strip() or done.stdout.strip() or "no output").splitlines()[-1]
        raise CalibrationStepError(f"calibrate {args[0]} failed: {last}")
    return done.stdout


def calibrate_vision(twin: TwinProcess, made: Path) -> str:
    """Camera, board and colours through the commands, the twin's person doing their part; what the colour step said."""
    camera = twin.info["camera"]
    twin.ask("chessboard")
    run_step(made, "camera", "--camera", camera, *CHESSBOARD)
    twin.ask("clear")
    run_step(made, "board", "--camera", camera)
    twin.ask("discs")
    said = run_step(made, "colours", "--camera", camera)
    twin.ask("clear")
    return said


def jog_keys(position: np.ndarray, yaw: float, target: ArmPose) -> tuple[list[str], np.ndarray, float]:
    """The keys that jog from (position, yaw) to `target`: turn, then up first, across, then down; big steps, then
    small ones. Also where they leave the disc."""
    keys, position = [], position.copy()
    turns = round(math.remainder(target.yaw_rad - yaw, 2 * math.pi) / JOG_YAW_STEP_RAD)
    keys += ["q" if turns > 0 else "e"] * abs(turns)
    yaw += turns * JOG_YAW_STEP_RAD
    goal = np.array([target.x_m, target.y_m, target.z_m])
    order = [2, 0, 1] if goal[2] > position[2] else [0, 1, 2]
    for axis in order:
        plus, minus = {0: ("w", "s"), 1: ("a", "d"), 2: ("r", "f")}[axis]
        for step_key, step_m in zip("321", reversed(JOG_STEPS_M), strict=True):
            count = int(abs(goal[axis] - position[axis]) / step_m + 1e-9)
            if abs(goal[axis] - position[axis]) - count * step_m > step_m / 2:
                count += 1  # the last step overshoots less than it leaves
            if count:
                keys.append(step_key)
                keys += [plus if goal[axis] > position[axis] else minus] * count
                position[axis] += math.copysign(count * step_m, goal[axis] - position[axis])
    return keys, position, yaw


def _output(process: subprocess.Popen) -> str:
    if select.select([process.stdout], [], [], 0.05)[0]:
        return os.read(process.stdout.fileno(), 65536).decode(errors="replace")
    return ""


def _type(leader: int, process: subprocess.Popen, keys: list[str]) -> str:
    """Type each key once the command is back waiting for one, as a person watching the screen does: a jog is done
    when its position is printed, a pose taken when the next is asked for (or the test drops are); the others take
    a moment. (The command reads each key in raw mode, switched on with a flush: a key typed too early would be
    lost.)"""
    said = _wait_for(process, lambda text: ASKED in text, "asked for no pose", timeout_s=CONNECT_TIMEOUT_S)
    time.sleep(SETTLE_S)
    for key in keys:
        before = len(said)
        os.write(leader, key.encode())
        if key in JOG_KEYS:
            said += _wait_for(process, lambda text: JOGGED in text, f"did not answer the key {key!r}", said[before:])
        elif key == "\r":
            said += _wait_for(process, lambda text: ASKED in text or TEST_DROPS in text, "took no pose", said[before:])
        time.sleep(GRIP_S if key == "g" else SETTLE_S)
        said += _output(process)
    return said


def _wait_for(process: subprocess.Popen, answered, what: str, said: str = "", timeout_s: float = KEY_TIMEOUT_S) -> str:
    """The command's output until `answered(it)`; CalibrationStepError naming `what` when it ends or stalls first."""
    deadline = time.monotonic() + timeout_s
    while not answered(said):
        if process.poll() is not None or time.monotonic() > deadline:
            raise CalibrationStepError(f"calibrate drops {what}: {said.strip()[-200:]!r}")
        said += _output(process)
    return said


def calibrate_drops(twin: TwinProcess, made: Path, truth: calibration.Setup) -> None:
    """`calibrate drops --serial PORT --camera URL` at a terminal: jogged to the dispenser, the first column and the
    last, then every column test-dropped and watched by the camera (the twin's person empties the board after)."""
    chain = KinematicChain.from_urdf(truth.arm.get("urdf", DEFAULT_ARM_URDF), "tool")
    home = chain.forward(np.radians(truth.arm["home_deg"]))
    position, yaw = home[:3, 3], math.atan2(home[1, 0], home[0, 0])
    keys = []
    for target, then in ((truth.pick, ["g", "\r"]), (truth.drops[0], ["\r"]), (truth.drops[-1], ["\r"])):
        moves, position, yaw = jog_keys(position, yaw, target)
        keys += moves + then
    twin.ask("clear")  # the board empty, and the person's game off: test drops are not the robot's moves
    leader, follower = pty.openpty()
    command = [*C4ROBOT, "calibrate", "drops", "--serial", twin.info["port"], "--camera", twin.info["camera"]]
    process = subprocess.Popen(
        [*command, "--config", str(made)], stdin=follower, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    os.close(follower)
    try:
        said = _type(leader, process, keys)
        os.write(leader, b"\r")  # the board is empty: test-drop every column
        try:
            status = process.wait(STEP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            raise CalibrationStepError(f"calibrate drops took longer than {STEP_TIMEOUT_S:.0f} s") from None
        said += process.stdout.read().decode(errors="replace")
        if status != 0:
            raise CalibrationStepError(f"calibrate drops failed: {said.strip().splitlines()[-1][:200]}")
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        process.stdout.close()
        os.close(leader)
    twin.ask("clear")


def calibrate_table(twin: TwinProcess, made: Path) -> Path:
    """The whole table as a person calibrates it: the `[arm]` settings of the device (what a person writes for
    their arm), then camera, board, colours and drops through the commands; then the twin's person is ready to
    play. Returns `made`."""
    truth = calibration.load(twin.info["truth_setup"])
    calibration.save(dataclasses.replace(calibration.Setup(), arm=truth.arm), made)
    calibrate_vision(twin, made)
    calibrate_drops(twin, made, truth)
    twin.ask("play")
    return made
