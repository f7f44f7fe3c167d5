"""A joint trajectory as G-code lines for a Cartesian arm, each with the `Effect` by which the arm is asked
whether it ran: moves of at most `PIECE_S` at the feed rate that keeps the trajectory's timing (tool
positions by forward kinematics, base frame, mm), and on a uArm its wrist servo (90 + yaw in degrees)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from robot.arm.drivers import gcode_wire as wire
from robot.arm.kinematics import KinematicChain
from robot.arm.trajectory import JointTrajectory

PIECE_S = 0.25
WRIST_CENTRE_DEG = 90.0


@dataclass(frozen=True)
class Effect:
    """What a command changes, so the arm can be asked whether it ran: tool position, wrist, pump."""

    position_mm: tuple[float, float, float] | None = None
    wrist_deg: float | None = None
    suction: bool | None = None


Line = tuple[str, Effect]


def tool_mm(chain: KinematicChain, q: np.ndarray) -> np.ndarray:
    return chain.forward(q)[:3, 3] * 1000.0


def move_line(position_mm: np.ndarray, feed_mm_min: float, dialect: wire.Dialect) -> Line:
    return wire.format_move(*position_mm, feed_mm_min, dialect), Effect(
        position_mm=tuple(round(float(v), 2) for v in position_mm)
    )


def wrist_line(yaw_rad: float) -> Line:
    angle = WRIST_CENTRE_DEG + math.degrees(yaw_rad)
    return wire.format_wrist(angle), Effect(wrist_deg=round(angle, 2))


def suction_line(on: bool, dialect: wire.Dialect) -> Line:
    return wire.format_suction(on, dialect), Effect(suction=on)


def trajectory_lines(
    chain: KinematicChain, trajectory: JointTrajectory, wrist_rad: float, dialect: wire.Dialect
) -> list[Line]:
    """G-code for a trajectory from a wrist at `wrist_rad`; on a uArm the wrist servo turns to each segment's
    end angle first (the servo is not part of the firmware's coordinated motion)."""
    lines: list[Line] = []
    wrist_deg = math.degrees(wrist_rad)
    for segment in trajectory.segments:
        if dialect == "uarm" and abs(math.degrees(segment.end[-1]) - wrist_deg) > 0.05:
            wrist_deg = math.degrees(segment.end[-1])
            lines.append(wrist_line(segment.end[-1]))
        pieces = max(1, math.ceil(segment.duration_s / PIECE_S))
        times = np.linspace(0.0, segment.duration_s, pieces + 1)
        for t0, t1 in zip(times, times[1:], strict=False):
            start_mm, end_mm = tool_mm(chain, segment.position(t0)), tool_mm(chain, segment.position(t1))
            feed = float(np.linalg.norm(end_mm - start_mm)) / max(t1 - t0, 1e-3) * 60.0
            if np.linalg.norm(end_mm - start_mm) > 0.01:
                lines.append(move_line(end_mm, feed, dialect))
    return lines
