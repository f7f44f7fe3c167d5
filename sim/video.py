"""Filming the simulated table for `--record`: the webcam and a wide camera that shows the whole arm and
board, one pair of frames every 1/fps of simulated time while physics runs (the arm picking, carrying and
dropping, a disc falling, the person's hand), so the video plays at the speed the table moved.

The film renders with its own noise generator: a recorded game plays exactly as an unrecorded one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np

from sim import camera
from sim.config import CameraConfig

# High on the board's right, in front of the dispenser: the board's face at an angle, the whole arm, the
# dispenser; the person's forearm comes in from the front, below this line of sight (a camera behind the
# webcam, as the person's elbow is, saw mostly a sleeve whenever a hand reached in).
WIDE_EYE_M = (0.50, -0.25, 0.50)
WIDE_TARGET_M = (0.05, 0.07, 0.19)  # amid the board, the arm's shoulder and the dispenser
WIDE_FOV_DEG = 48.0  # the arm's highest reach and the board's foot just in view
WIDE_SIZE_PX = (512, 384)  # smaller than the webcam's: a third less rendering per film frame


def wide_camera(webcam: CameraConfig) -> CameraConfig:
    """A camera farther back and to the side that sees the board, the arm on its pedestal and the dispenser,
    in the webcam's light (its level and colour, without the gradient that belongs to the webcam's view)."""
    return replace(
        webcam,
        eye_m=WIDE_EYE_M,
        target_m=WIDE_TARGET_M,
        up=(0.0, 0.0, 1.0),
        vertical_fov_deg=WIDE_FOV_DEG,
        width_px=WIDE_SIZE_PX[0],
        height_px=WIDE_SIZE_PX[1],
        light_gradient=(0.0, 0.0),
    )


class Film:
    """While alive, hands `sink(webcam_frame, wide_frame)` a pair of BGR frames every 1/fps s of the world's time."""

    def __init__(
        self,
        world,
        fps: float,
        sink: Callable[[np.ndarray | None, np.ndarray], None],
        seed: int = 0,
        wanted: Callable[[], bool] | None = None,
        with_webcam: bool = True,
    ) -> None:
        """`wanted()` false skips the frames (rendering only while someone watches); without `with_webcam` the sink
        gets None for the webcam and only the wide view is rendered."""
        if not 1.0 <= fps <= 60.0:
            raise ValueError(f"film rate {fps} frames per second: use 1..60")
        self.world = world
        self.period_s = 1.0 / fps
        self.sink = sink
        self.wanted = wanted
        self.with_webcam = with_webcam
        self._rng = np.random.default_rng([seed, 15])
        self._next_s = world.time_s
        world.add_step_listener(self._on_step)

    def webcam_frame(self) -> np.ndarray:
        return camera.render(self.world.client, self.world.camera, self._rng, use_opengl=self.world.gui)

    def wide_frame(self) -> np.ndarray:
        return camera.render(self.world.client, wide_camera(self.world.camera), self._rng, use_opengl=self.world.gui)

    def _on_step(self, time_s: float) -> None:
        if time_s + 1e-9 < self._next_s:
            return
        if self.wanted is not None and not self.wanted():
            self._next_s = time_s + self.period_s
            return
        self._next_s += self.period_s
        self.sink(self.webcam_frame() if self.with_webcam else None, self.wide_frame())

    def close(self) -> None:
        self.world.remove_step_listener(self._on_step)
