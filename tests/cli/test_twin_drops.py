"""`calibrate drops --serial PORT` against the digital twin, jogged at a terminal as a person jogs it: the keys that bring
the held disc onto the dispenser's disc, over the first column and over the last, typed one at a time while the command
waits for a key. The drop poses it saves agree with the twin's truth within the jog's last step."""

from __future__ import annotations

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
from robot.cli.twin_bench import C4ROBOT, TwinProcess
from sim.config import DEFAULT_ARM_URDF

KEY_TIMEOUT_S = 30.0
POSE_TOLERANCE_M = 0.0015  # half the 1 mm step, and the interpolation between the first and last column
MOVES = "wsadrfqe"
JOGGED = "  x "  # the position printed after every jog
ASKED = "jog the held disc"  # and the next pose asked for after Enter
SETTLE_S = 0.3
GRIP_S = 2.0


def _keys_to(position: np.ndarray, yaw: float, target: ArmPose) -> tuple[list[str], np.ndarray, float]:
    """The keys that jog from (position, yaw) to `target`: up first, across, then down; big steps, then small."""
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


def _type(leader: int, process: subprocess.Popen, keys: list[str]) -> str:
    """Type each key once the command is back waiting for one, as a person watching the screen does: a jog is done
    when its position is printed, a pose taken when the next is asked for; the others take a moment. (The command
    reads each key in raw mode, switched on with a flush: a key typed too early would be lost.)"""
    said, deadline = "", time.monotonic() + KEY_TIMEOUT_S
    while ASKED not in said:  # the arm connected and homed, the first pose asked for
        assert process.poll() is None and time.monotonic() < deadline, f"no first question: {said[-300:]!r}"
        said += _output(process)
    time.sleep(SETTLE_S)
    for key in keys:
        done = said.count(JOGGED if key in MOVES else ASKED)
        os.write(leader, key.encode())
        deadline = time.monotonic() + KEY_TIMEOUT_S
        while key in MOVES + "\r" and said.count(JOGGED if key in MOVES else ASKED) == done and process.poll() is None:
            assert time.monotonic() < deadline, f"no answer to the key {key!r}: {said[-300:]!r}"
            said += _output(process)
        time.sleep(GRIP_S if key == "g" else SETTLE_S)
        said += _output(process)
    return said


def _output(process: subprocess.Popen) -> str:
    if select.select([process.stdout], [], [], 0.05)[0]:
        return os.read(process.stdout.fileno(), 65536).decode(errors="replace")
    return ""


def test_calibrate_drops_by_jogging_agrees_with_the_truth(tmp_path: Path) -> None:
    made = tmp_path / "made.toml"
    with TwinProcess(["--seed", "3", "--folder", str(tmp_path)], tmp_path) as twin:
        truth = calibration.load(twin.info["truth_setup"])
        calibration.save(truth.__class__(board=truth.board, arm=truth.arm), made)
        chain = KinematicChain.from_urdf(DEFAULT_ARM_URDF, "tool")
        home = chain.forward(np.radians(truth.arm["home_deg"]))
        position, yaw = home[:3, 3], math.atan2(home[1, 0], home[0, 0])
        keys = []
        for target, then in ((truth.pick, ["g", "\r"]), (truth.drops[0], ["\r"]), (truth.drops[-1], ["\r"])):
            moves, position, yaw = _keys_to(position, yaw, target)
            keys += moves + then
        leader, follower = pty.openpty()
        command = [*C4ROBOT, "calibrate", "drops", "--serial", twin.info["port"], "--no-test", "--config", str(made)]
        process = subprocess.Popen(command, stdin=follower, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        os.close(follower)
        try:
            _type(leader, process, keys)
            assert process.wait(60.0) == 0
        finally:
            if process.poll() is None:
                process.kill()
            os.close(leader)
    taught = calibration.load(made)
    errors = [np.subtract(a.xyz_m, b.xyz_m) for a, b in zip(taught.drops, truth.drops, strict=True)]
    assert max(float(np.abs(e).max()) for e in errors) < POSE_TOLERANCE_M, errors
    assert float(np.abs(np.subtract(taught.pick.xyz_m, truth.pick.xyz_m)).max()) < POSE_TOLERANCE_M
