"""Light that drifts during a game: the webcam's exposure and white balance wander after calibration.

A webcam's automatic exposure and white balance keep adjusting: a cloud passes the window, a lamp is switched on,
the person leans over the board. `LightDrift` is that wander, drawn from a seed: two slow waves for the exposure
(up to +-20% of the calibrated level) and one for the white balance (up to +-900 K), starting from no change.
`follow(world, drift)` lets the world's camera follow it as simulated time runs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

EXPOSURE_SWING = (0.08, 0.20)
TINT_SWING_K = (300.0, 900.0)
PERIOD_S = (40.0, 150.0)
UPDATE_S = 0.1  # the camera follows the drift this often (a frame is taken every 0.1 s in a game)


@dataclass(frozen=True)
class LightDrift:
    """Exposure factor and white balance shift as functions of simulated time (both exactly none at time 0)."""

    exposure_swing: float = 0.0
    tint_swing_k: float = 0.0
    periods_s: tuple[float, float, float] = (60.0, 90.0, 120.0)  # the exposure's two waves, the white balance's

    @classmethod
    def drawn(cls, rng: np.random.Generator) -> LightDrift:
        return cls(
            exposure_swing=float(rng.uniform(*EXPOSURE_SWING)),
            tint_swing_k=float(rng.uniform(*TINT_SWING_K)) * (1 if rng.random() < 0.5 else -1),
            periods_s=tuple(float(v) for v in rng.uniform(*PERIOD_S, 3)),
        )

    def exposure_at(self, time_s: float) -> float:
        """The frame's brightness relative to the calibrated one at `time_s` (1 at the start)."""
        slow, fast, _ = self.periods_s
        wave = 0.7 * math.sin(2 * math.pi * time_s / slow) + 0.3 * math.sin(2 * math.pi * time_s / fast)
        return 1.0 + self.exposure_swing * wave

    def tint_at(self, time_s: float) -> float:
        """The white balance's shift in kelvin at `time_s` (0 at the start)."""
        return self.tint_swing_k * math.sin(2 * math.pi * time_s / self.periods_s[2])

    def describe(self) -> str:
        return f"drift +-{100 * self.exposure_swing:.0f}% exposure, {self.tint_swing_k:+.0f} K"


def follow(world, drift: LightDrift) -> None:
    """Make `world`'s camera drift from its present exposure and colour temperature as simulated time runs."""
    start_s, camera = world.time_s, world.camera
    last = [start_s]

    def on_step(time_s: float) -> None:
        if time_s - last[0] < UPDATE_S:
            return
        last[0] = time_s
        elapsed = time_s - start_s
        kelvin = min(max(camera.colour_temperature_k + drift.tint_at(elapsed), 1000.0), 15000.0)
        world.set_camera(
            replace(world.camera, exposure=camera.exposure * drift.exposure_at(elapsed), colour_temperature_k=kelvin)
        )

    world.add_step_listener(on_step)
