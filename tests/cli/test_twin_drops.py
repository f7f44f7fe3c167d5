"""`calibrate drops --serial PORT` against the digital twin, jogged at a terminal as a person jogs it: the keys that bring
the held disc onto the dispenser's disc, over the first column and over the last, typed one at a time while the command
waits for a key. The drop poses it saves agree with the twin's truth within the jog's last step."""

from __future__ import annotations

from pathlib import Path

import numpy as np

import calibration
from robot.cli.twin_calibration import calibrate_drops
from robot.cli.twin_process import TwinProcess

POSE_TOLERANCE_M = 0.0015  # half the 1 mm step, and the interpolation between the first and last column


def test_calibrate_drops_by_jogging_agrees_with_the_truth(tmp_path: Path) -> None:
    made = tmp_path / "made.toml"
    with TwinProcess(["--seed", "3", "--folder", str(tmp_path)], tmp_path) as twin:
        truth = calibration.load(twin.info["truth_setup"])
        calibration.save(truth.__class__(board=truth.board, arm=truth.arm), made)
        calibrate_drops(twin, made, truth)
    taught = calibration.load(made)
    errors = [np.subtract(a.xyz_m, b.xyz_m) for a, b in zip(taught.drops, truth.drops, strict=True)]
    assert max(float(np.abs(e).max()) for e in errors) < POSE_TOLERANCE_M, errors
    assert float(np.abs(np.subtract(taught.pick.xyz_m, truth.pick.xyz_m)).max()) < POSE_TOLERANCE_M
