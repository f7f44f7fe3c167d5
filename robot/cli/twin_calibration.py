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
import re
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

import calibration
from calibration.jogging import JOG_STEPS_M, JOG_YAW_STEP_RAD
from calibration.store import ArmPose
from robot.cli.twin_process import C4ROBOT, TwinProcess, at_terminal, output_now

STEP_TIMEOUT_S = 180.0
KEY_TIMEOUT_S = 30.0
CONNECT_TIMEOUT_S = 90.0  # the command starts, connects the arm and homes it before the first question
JOG_KEYS = "wsadrfqe"  # forward/back, left/right, up/down, turn left/right
JOGGED = "  x "  # the position `calibrate drops` prints after every jog
ASKED = "jog the held disc"  # and the next pose it asks for after Enter
TEST_DROPS = "empty the board, then press Enter"  # after the last pose
WHERE = re.compile(r"x +(-?\d+\.\d) +y +(-?\d+\.\d) +z +(-?\d+\.\d) mm +yaw +(-?\d+\.\d) deg")
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


def jog_keys(position: np.ndarray, yaw: float, target: ArmPose) -> list[str]:
    """The keys that jog from (position, yaw) to `target`: turn, then up first, across, then down; big steps, then
    small ones."""
    keys, position = [], position.copy()
    turns = round(math.remainder(target.yaw_rad - yaw, 2 * math.pi) / JOG_YAW_STEP_RAD)
    keys += ["q" if turns > 0 else "e"] * abs(turns)
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
    return keys


def _read_until(
    process: subprocess.Popen, text: str, done: Callable[[str], bool], what: str, timeout_s: float = KEY_TIMEOUT_S
) -> str:
    """`text` and the command's further output until `done(all of it)`; CalibrationStepError naming `what` when the
    command ends or stalls first."""
    deadline = time.monotonic() + timeout_s
    while not done(text):
        if process.poll() is not None or time.monotonic() > deadline:
            raise CalibrationStepError(f"calibrate drops {what}: {text.strip()[-200:]!r}")
        text += output_now(process, 0.05)
    return text


def _asked(count: int) -> Callable[[str], bool]:
    """Whether the `count`-th pose was asked for, with the line saying where the disc stands."""
    return lambda text: text.count(ASKED) >= count and WHERE.search(text[text.rfind(ASKED) :]) is not None


def _where(text: str) -> tuple[np.ndarray, float]:
    """Where the held disc stands (m) and its yaw (rad), from the last line the command printed about it."""
    *_, last = WHERE.finditer(text)
    x, y, z, yaw = (float(value) for value in last.groups())
    return np.array([x, y, z]) / 1000.0, math.radians(yaw)


def _type(leader: int, process: subprocess.Popen, keys: list[str], text: str) -> str:
    """Type each key once the command is back waiting for one, as a person watching the screen does: a jog is done
    when the new position is printed; the others take a moment. (The command reads each key in raw mode, switched
    on with a flush: a key typed too early would be lost.)"""
    for key in keys:
        before = len(text)
        os.write(leader, key.encode())
        if key in JOG_KEYS:
            jogged = lambda t, since=before: JOGGED in t[since:]  # noqa: E731
            text = _read_until(process, text, jogged, f"did not answer the key {key!r}")
        time.sleep(GRIP_S if key == "g" else SETTLE_S)
        text += output_now(process, 0.05)
    return text


def calibrate_drops(twin: TwinProcess, made: Path, truth: calibration.Setup) -> None:
    """`calibrate drops --serial PORT --camera URL` at a terminal: jogged from where the command says the disc stands
    to the dispenser, the first column and the last, then every column test-dropped and watched by the camera (the
    twin's person empties the board after)."""
    twin.ask("clear")  # the person's game off: test drops are not the robot's moves
    command = [*C4ROBOT, "calibrate", "drops", "--serial", twin.info["port"], "--camera", twin.info["camera"]]
    with at_terminal([*command, "--config", str(made)]) as (process, leader):
        text = _read_until(process, "", _asked(1), "asked for no pose", CONNECT_TIMEOUT_S)
        time.sleep(SETTLE_S)
        targets = ((truth.pick, ["g", "\r"]), (truth.drops[0], ["\r"]), (truth.drops[-1], ["\r"]))
        for number, (target, then) in enumerate(targets, start=1):
            text = _read_until(process, text, _asked(number), f"asked for no pose {number}")
            text = _type(leader, process, jog_keys(*_where(text), target) + then, text)
        text = _read_until(process, text, lambda t: TEST_DROPS in t, "did not come to the test drops")
        twin.ask("clear")  # as asked: the disc let go over the last column taken out, the board empty
        os.write(leader, b"\r")
        try:
            status = process.wait(STEP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            raise CalibrationStepError(f"calibrate drops took longer than {STEP_TIMEOUT_S:.0f} s") from None
        text += process.stdout.read().decode(errors="replace")
        if status != 0:
            raise CalibrationStepError(f"calibrate drops failed: {text.strip().splitlines()[-1][:200]}")
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
