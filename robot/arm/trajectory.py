"""Time-parameterised joint trajectories within per-joint velocity and acceleration limits.

A trajectory is a chain of straight joint-space segments, each starting and ending at rest. All joints
of a segment share one normalised timing s(t) from 0 to 1, so they start and arrive together and the
path between the two configurations is the straight line in joint space. The timing is the
time-optimal trapezoid (accelerate, cruise, decelerate; a triangle when too short to cruise) or a
quintic (smooth acceleration, 1.875x the average speed at its peak), scaled so that no joint
exceeds its limits.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np

Profile = Literal["trapezoid", "quintic"]
QUINTIC_PEAK_VELOCITY = 1.875  # max of ds/dtau for s = 10 tau^3 - 15 tau^4 + 6 tau^5
QUINTIC_PEAK_ACCELERATION = 10.0 / math.sqrt(3.0)  # max of |d2s/dtau2|


@dataclass(frozen=True)
class MotionLimits:
    """Per-joint speed and acceleration bounds (rad/s, rad/s^2; m/s for prismatic joints)."""

    velocity_rad_s: tuple[float, ...]
    acceleration_rad_s2: tuple[float, ...]

    def __post_init__(self) -> None:
        if len(self.velocity_rad_s) != len(self.acceleration_rad_s2):
            raise ValueError("motion limits need as many accelerations as velocities, one per joint")
        if min(self.velocity_rad_s) <= 0 or min(self.acceleration_rad_s2) <= 0:
            raise ValueError(f"motion limits must be positive, got {self}")

    @classmethod
    def uniform(cls, dof: int, velocity_rad_s: float, acceleration_rad_s2: float) -> MotionLimits:
        return cls((velocity_rad_s,) * dof, (acceleration_rad_s2,) * dof)


@dataclass(frozen=True)
class Segment:
    """A rest-to-rest straight joint-space move from `start` to `end` in `duration_s`."""

    start: np.ndarray
    end: np.ndarray
    duration_s: float
    profile: Profile
    ramp_s: float  # trapezoid: length of the acceleration phase (= duration/2 for a triangle)

    def progress(self, t_s: float) -> tuple[float, float]:
        """Normalised position s in [0, 1] and its rate ds/dt at time `t_s` into the segment."""
        if self.duration_s <= 0:
            return 1.0, 0.0
        t = min(max(t_s, 0.0), self.duration_s)
        if self.profile == "quintic":
            tau = t / self.duration_s
            s = tau**3 * (10 - 15 * tau + 6 * tau * tau)
            rate = 30 * tau * tau * (1 - tau) ** 2 / self.duration_s
            return s, rate
        peak = 1.0 / (self.duration_s - self.ramp_s)
        acceleration = peak / self.ramp_s
        if t < self.ramp_s:
            return 0.5 * acceleration * t * t, acceleration * t
        if t <= self.duration_s - self.ramp_s:
            return 0.5 * peak * self.ramp_s + peak * (t - self.ramp_s), peak
        remaining = self.duration_s - t
        return 1.0 - 0.5 * acceleration * remaining * remaining, acceleration * remaining

    def position(self, t_s: float) -> np.ndarray:
        return self.start + self.progress(t_s)[0] * (self.end - self.start)

    def velocity(self, t_s: float) -> np.ndarray:
        return self.progress(t_s)[1] * (self.end - self.start)


def plan_segment(start: np.ndarray, end: np.ndarray, limits: MotionLimits, profile: Profile = "trapezoid") -> Segment:
    """The fastest synchronised rest-to-rest move from `start` to `end` within `limits`."""
    start, end = np.asarray(start, dtype=float), np.asarray(end, dtype=float)
    distance = np.abs(end - start)
    moving = distance > 1e-12
    if not np.any(moving):
        return Segment(start, end, 0.0, profile, 0.0)
    # Bounds on the normalised timing: each joint scales ds/dt and d2s/dt2 by its distance.
    rate_max = float(np.min(np.asarray(limits.velocity_rad_s)[moving] / distance[moving]))
    acceleration_max = float(np.min(np.asarray(limits.acceleration_rad_s2)[moving] / distance[moving]))
    if profile == "quintic":
        duration = max(QUINTIC_PEAK_VELOCITY / rate_max, math.sqrt(QUINTIC_PEAK_ACCELERATION / acceleration_max))
        return Segment(start, end, duration, profile, 0.0)
    if rate_max * rate_max / acceleration_max < 1.0:
        ramp = rate_max / acceleration_max
        return Segment(start, end, 1.0 / rate_max + ramp, profile, ramp)
    ramp = math.sqrt(1.0 / acceleration_max)
    return Segment(start, end, 2.0 * ramp, profile, ramp)


@dataclass(frozen=True)
class JointTrajectory:
    """Consecutive rest-to-rest segments; `position(t)` for any t in [0, duration_s]."""

    segments: tuple[Segment, ...]

    @classmethod
    def through(
        cls, waypoints: list[np.ndarray], limits: MotionLimits, profile: Profile = "trapezoid"
    ) -> JointTrajectory:
        """Stop at every waypoint in turn, each leg as fast as the limits allow."""
        if len(waypoints) < 2:
            raise ValueError("a trajectory needs at least two waypoints")
        return cls(tuple(plan_segment(a, b, limits, profile) for a, b in zip(waypoints, waypoints[1:], strict=False)))

    @property
    def duration_s(self) -> float:
        return sum(segment.duration_s for segment in self.segments)

    @property
    def start(self) -> np.ndarray:
        return self.segments[0].start

    @property
    def end(self) -> np.ndarray:
        return self.segments[-1].end

    def _locate(self, t_s: float) -> tuple[Segment, float]:
        for segment in self.segments:
            if t_s <= segment.duration_s:
                return segment, t_s
            t_s -= segment.duration_s
        return self.segments[-1], self.segments[-1].duration_s

    def position(self, t_s: float) -> np.ndarray:
        segment, local_t = self._locate(t_s)
        return segment.position(local_t)

    def velocity(self, t_s: float) -> np.ndarray:
        segment, local_t = self._locate(t_s)
        return segment.velocity(local_t)

    def sample(self, period_s: float) -> tuple[np.ndarray, np.ndarray]:
        """Times (ending exactly at the duration) and positions every `period_s`, for drivers that stream."""
        count = max(1, math.ceil(self.duration_s / period_s - 1e-9))
        times = np.linspace(0.0, self.duration_s, count + 1)
        return times, np.array([self.position(t) for t in times])
