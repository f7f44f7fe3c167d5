"""Trajectories: every joint within its velocity and acceleration limits, arriving exactly, together."""

from __future__ import annotations

import numpy as np
import pytest

from robot.arm.trajectory import JointTrajectory, MotionLimits, plan_segment

LIMITS = MotionLimits((1.5, 1.0, 2.0, 3.0), (4.0, 2.0, 6.0, 9.0))


def _finite_difference_peaks(trajectory: JointTrajectory, step_s: float = 1e-3) -> tuple[np.ndarray, np.ndarray]:
    times = np.arange(0.0, trajectory.duration_s, step_s)
    positions = np.array([trajectory.position(t) for t in times])
    velocity = np.diff(positions, axis=0) / step_s
    acceleration = np.diff(velocity, axis=0) / step_s
    return np.abs(velocity).max(axis=0), np.abs(acceleration).max(axis=0)


@pytest.mark.parametrize("profile", ["trapezoid", "quintic"])
def test_random_moves_respect_limits_and_arrive(profile: str) -> None:
    rng = np.random.default_rng(3)
    waypoints = [rng.uniform(-2, 2, 4) for _ in range(4)] + [np.array([0.0, 0.0, 0.0, 0.01])]
    trajectory = JointTrajectory.through(waypoints, LIMITS, profile)
    peak_velocity, peak_acceleration = _finite_difference_peaks(trajectory)
    assert np.all(peak_velocity <= np.array(LIMITS.velocity_rad_s) * 1.01)
    assert np.all(peak_acceleration <= np.array(LIMITS.acceleration_rad_s2) * 1.05)
    np.testing.assert_allclose(trajectory.position(trajectory.duration_s), waypoints[-1])
    np.testing.assert_allclose(trajectory.position(0.0), waypoints[0])


def test_trapezoid_is_time_optimal_for_the_limiting_joint() -> None:
    # Joint 1 alone: 2 rad at 1 rad/s, 2 rad/s^2 -> 0.5 s ramps, 1.5 s cruise: 2.5 s in all.
    segment = plan_segment(np.zeros(4), np.array([0.0, 2.0, 0.0, 0.0]), LIMITS)
    assert segment.duration_s == pytest.approx(2.5)
    # A short move never reaches cruise speed: a triangle of 2 * sqrt(d / a).
    short = plan_segment(np.zeros(4), np.array([0.0, 0.1, 0.0, 0.0]), LIMITS)
    assert short.duration_s == pytest.approx(2 * np.sqrt(0.1 / 2.0))


def test_joints_move_together_on_the_straight_line() -> None:
    start, end = np.array([0.0, 1.0, -1.0, 0.5]), np.array([1.0, 0.0, 1.0, 0.5])
    segment = plan_segment(start, end, LIMITS)
    for fraction in (0.1, 0.5, 0.9):
        q = segment.position(fraction * segment.duration_s)
        along = (q - start) / np.where(end != start, end - start, 1.0)
        assert np.allclose(along[:3], along[0])


def test_sample_ends_on_the_last_waypoint() -> None:
    trajectory = JointTrajectory.through([np.zeros(4), np.ones(4)], LIMITS)
    times, positions = trajectory.sample(0.05)
    assert times[-1] == pytest.approx(trajectory.duration_s)
    np.testing.assert_allclose(positions[-1], np.ones(4))
