"""The Feetech driver's time: what its pacing of a streamed trajectory, its waits for the servos and its motion
deadlines count in. On a real bus the wall clock (the servos move while the host sleeps); on the simulation's
virtual bus the world's time, where sleeping runs the world's physics (`robot.game.sim_servo_arm.WorldClock`), so
a slow render on the host never trips a deadline. Packet round trips keep wall-clock deadlines: the bus answers
on its own thread either way.
"""

from __future__ import annotations

import time
from typing import Protocol


class Clock(Protocol):
    """The driver's time: what its pacing, its waits for the servos and its motion deadlines count in."""

    def now_s(self) -> float: ...

    def sleep(self, seconds: float) -> None: ...


class WallClock:
    """Real time: a real bus's servos move while the host sleeps."""

    def now_s(self) -> float:
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        time.sleep(max(0.0, seconds))


class ClockDeadline:
    """A point in the clock's time; expired once the clock reaches it."""

    def __init__(self, clock: Clock, timeout_s: float) -> None:
        self.clock, self.end_s = clock, clock.now_s() + timeout_s

    @property
    def is_expired(self) -> bool:
        return self.clock.now_s() >= self.end_s
