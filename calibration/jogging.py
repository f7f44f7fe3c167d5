"""Teaching the drop poses by hand: the person jogs the held disc with keys over the dispenser and the columns.

The keys come from a `read_key` callable (the CLI reads the terminal raw; a test feeds a string), so the
procedure runs without a terminal.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from calibration.drops import interpolate_drops
from calibration.store import ArmPose

JOG_STEPS_M = (0.001, 0.005, 0.02)
JOG_YAW_STEP_RAD = math.radians(1.0)
JOG_KEYS = {"w": (0, 1), "s": (0, -1), "a": (1, 1), "d": (1, -1), "r": (2, 1), "f": (2, -1)}
JOG_HELP = (
    "w/s: x +/-  a/d: y +/-  r/f: z +/-  q/e: turn the disc  1/2/3: step 1/5/20 mm  "
    "g: grip a disc  Enter: this pose  x: abort"
)


def jog_to_pose(
    arm: Any, chain: Any, config: Any, what: str, read_key: Callable[[], str], say: Callable[..., None] = print
) -> ArmPose:
    """Let the person jog the tool with keys until Enter; returns the pose. x, Ctrl-C, Esc or the input's end abort."""
    from robot.arm.planner import ToolPose
    from robot.arm.trajectory import JointTrajectory, plan_segment

    tool = chain.forward(arm.joint_state())
    position = tool[:3, 3].copy()
    yaw = math.atan2(tool[1, 0], tool[0, 0])
    step_m = JOG_STEPS_M[1]
    say(f"jog the held disc {what}. {JOG_HELP}")
    say(_where(position, yaw, step_m), end="", flush=True)
    while True:
        key = read_key().lower()
        if key in ("\r", "\n"):
            return ArmPose(*position, yaw)
        if key in ("", "x", "\x03", "\x04", "\x1b"):
            raise KeyboardInterrupt
        if key in ("1", "2", "3"):
            step_m = JOG_STEPS_M[int(key) - 1]
            continue
        if key == "g":
            arm.grip()
            continue
        target, target_yaw = position.copy(), yaw
        if key in JOG_KEYS:
            axis, sign = JOG_KEYS[key]
            target[axis] += sign * step_m
        elif key in ("q", "e"):
            target_yaw += JOG_YAW_STEP_RAD * (1 if key == "q" else -1)
        else:
            continue
        result = chain.inverse(ToolPose(tuple(target), target_yaw).matrix(), seed=arm.joint_state())
        arm.follow(JointTrajectory((plan_segment(arm.joint_state(), result.q, config.limits(chain.dof)),)))
        position, yaw = target, target_yaw
        say(_where(position, yaw, step_m), end="", flush=True)


def _where(position: np.ndarray, yaw: float, step_m: float) -> str:
    """The line that says where the held disc is (rewritten in place after every jog)."""
    return (
        f"\r  x {1000 * position[0]:7.1f}  y {1000 * position[1]:7.1f}  z {1000 * position[2]:7.1f} mm  "
        f"yaw {math.degrees(yaw):6.1f} deg  step {1000 * step_m:.0f} mm   "
    )


def teach_drops(
    arm: Any,
    chain: Any,
    config: Any,
    cols: int,
    each: bool,
    read_key: Callable[[], str],
    say: Callable[..., None] = print,
) -> tuple[ArmPose, tuple[ArmPose, ...]]:
    """(pick, drops): the dispenser pose, then every column's (each) or the first and last interpolated."""
    arm.home()
    pick = jog_to_pose(arm, chain, config, "onto the disc waiting in the dispenser (g grips it)", read_key, say)
    arm.grip()
    if each:
        drops = tuple(
            jog_to_pose(arm, chain, config, f"over column {c + 1}, ready to release", read_key, say)
            for c in range(cols)
        )
    else:
        first = jog_to_pose(arm, chain, config, "over column 1, ready to release", read_key, say)
        last = jog_to_pose(arm, chain, config, f"over column {cols}, ready to release", read_key, say)
        drops = interpolate_drops(first, last, cols)
    arm.release()
    return pick, drops
