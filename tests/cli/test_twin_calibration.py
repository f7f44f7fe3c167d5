"""Calibration through the real commands against the digital twin, the person's part played by the twin: `calibrate
camera --camera URL` while it waves a chessboard, `calibrate board` on the empty board, `calibrate colours` with a disc
of each shown. The file made agrees with the twin's truth setup: the focal length as well as `calibrate camera --sim`
finds it, the disc letters, and the board's corners as well as a JPEG stream allows (about 3 px where the raw render
gives under 1: the MJPEG's compression, as a real network webcam's)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

import calibration
from calibration.board import corner_error_px
from robot.cli.twin_calibration import calibrate_vision
from robot.cli.twin_process import TwinProcess

FOCAL_TOLERANCE = 0.01  # `calibrate camera --sim` finds fx within a few tenths of a percent
CORNER_TOLERANCE_PX = 5.0


def test_the_calibration_chain_agrees_with_the_twins_truth(tmp_path: Path) -> None:
    made = tmp_path / "made.toml"
    with TwinProcess(["--seed", "3", "--folder", str(tmp_path)], tmp_path) as twin:
        said = calibrate_vision(twin, made)
        truth = calibration.load(twin.info["truth_setup"])
    setup = calibration.load(made)
    focal, true_focal = np.asarray(setup.camera.camera_matrix)[0, 0], np.asarray(truth.camera.camera_matrix)[0, 0]
    assert abs(focal / true_focal - 1) < FOCAL_TOLERANCE, (focal, true_focal)
    assert corner_error_px(setup.board, truth.board) < CORNER_TOLERANCE_PX
    assert (setup.colours.robot, setup.colours.person) == (truth.colours.robot, truth.colours.person), said
