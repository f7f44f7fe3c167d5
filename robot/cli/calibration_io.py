"""What the calibration commands share: the file loaded and saved, a frame from --image or --camera (and the webcam's
settings held for it), the simulated world, test drops printed."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # numpy loads where it is used: `c4robot move` does without it
    import numpy as np


DISC_SETTLE_S = 1.0  # a real disc has come to rest this long after the release


def load_setup(args: argparse.Namespace) -> Any:
    from calibration import store

    return store.load(args.config, missing_ok=True)


def save_setup(args: argparse.Namespace, setup: Any) -> None:
    from calibration import store

    path = store.save(setup, args.config)
    print(f"saved {path}")


def read_frame(args: argparse.Namespace, settings: Any = None) -> np.ndarray:
    """One frame from --image or --camera (default camera 0); a webcam holds `settings` (the file's, as at play)."""
    return read_frame_and_settings(args, settings)[0]


def read_frame_and_settings(args: argparse.Namespace, settings: Any = None) -> tuple[np.ndarray, Any]:
    """One frame from --image or --camera, and the exposure and white balance the webcam held for it (None for a
    photo, a stream or a camera that fixed neither): `settings`, or what it settled on. Says what it refused."""
    from robot.cli.vision_commands import load_image
    from vision.cameras import open_camera

    if args.image is not None:
        return load_image(args.image), None
    with open_camera(camera_source(args.camera), settings) as camera:
        frame = camera.read()
    return frame, held_settings(camera)


def held_settings(camera: Any) -> Any:
    """The settings a webcam holds, after a line for each it refused; None when it holds none (or is no webcam)."""
    for refusal in getattr(camera, "refusals", ()):
        print(f"note: {refusal}")
    held = getattr(camera, "settings", None)
    if held is None or held.is_empty:
        return None
    print(f"camera held at {describe_settings(held)}")
    return held


def describe_settings(settings: Any) -> str:
    """The held exposure and white balance in words."""
    parts = [] if settings.exposure is None else [f"exposure {settings.exposure:g}"]
    parts += [] if settings.white_balance_k is None else [f"white balance {settings.white_balance_k:.0f} K"]
    return " and ".join(parts) or "the camera's own automatic settings"


def camera_source(text: str | None) -> int | str:
    text = "0" if text is None else text
    return int(text) if text.isdigit() else text


def print_checks(checks: list[Any]) -> None:
    for check in checks:
        landed = "not seen" if check.landed is None else f"column {check.landed + 1}"
        print(f"  test drop into column {check.column + 1}: {landed}")


def sim_world(args: argparse.Namespace) -> Any:
    """The simulated world of --seed with the board moved as the options say."""
    from calibration.sim_steps import sim_world

    return sim_world(args.board_x_mm, args.board_y_mm, args.board_yaw_deg, args.seed)
