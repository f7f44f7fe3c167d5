"""What the calibration commands share: the file loaded and saved, a frame from --image or --camera, test drops printed."""

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


def read_frame(args: argparse.Namespace) -> np.ndarray:
    """One frame from --image or --camera (default camera 0)."""
    from robot.cli.vision_commands import load_image
    from vision.cameras import open_camera

    if args.image is not None:
        return load_image(args.image)
    with open_camera(camera_source(args.camera)) as camera:
        return camera.read()


def camera_source(text: str | None) -> int | str:
    text = "0" if text is None else text
    return int(text) if text.isdigit() else text


def print_checks(checks: list[Any]) -> None:
    for check in checks:
        landed = "not seen" if check.landed is None else f"column {check.landed + 1}"
        print(f"  test drop into column {check.column + 1}: {landed}")
