"""A table calibrated through the real commands against the digital twin, the steps of the README's "Your own table"
(robot.cli.twin_calibration: `calibrate camera|board|colours --camera URL` while the twin's person waves a chessboard
and shows discs, `calibrate drops --serial PORT --camera URL` jogged at a terminal and test-dropped), then played.

The file agrees with the twin's truth setup: the focal length as well as `calibrate camera --sim` finds it, the disc
letters, the board's corners as well as a JPEG stream allows (about 3 px where the raw render gives under 1: the
MJPEG's compression, as a real network webcam's), the drop poses within the jog's last step. Then a few moves of
`play --serial --camera --config MADE` agree with the twin's board after every move."""

from __future__ import annotations

from pathlib import Path

import numpy as np

import calibration
from calibration.board import corner_error_px
from robot.cli.twin_calibration import calibrate_table
from robot.cli.twin_process import TwinProcess, play_at_terminal
from robot.game.log import GameLog

FOCAL_TOLERANCE = 0.01  # `calibrate camera --sim` finds fx within a few tenths of a percent
CORNER_TOLERANCE_PX = 5.0
POSE_TOLERANCE_M = 0.0015  # half the 1 mm jog step, and the interpolation between the first and last column
MOVES = 3  # robot, person, robot
GAME_TIMEOUT_S = 240.0


def test_the_table_the_commands_calibrate_agrees_with_the_truth_and_plays(tmp_path: Path) -> None:
    made = tmp_path / "made.toml"
    log_path = tmp_path / "game.json"
    serve = ["--seed", "3", "--robot-first", "--game-log", str(log_path), "--folder", str(tmp_path)]
    with TwinProcess(serve, tmp_path) as twin:
        truth = calibration.load(twin.info["truth_setup"])
        calibrate_table(twin, made)
        setup = calibration.load(made)
        play = ["--serial", twin.info["port"], "--camera", twin.info["camera"], "--config", str(made)]
        play += ["--robot-first", "--log", str(log_path), "--time-ms", "200", "--seed", "3"]
        enough = lambda: len(twin.agreements) >= MOVES or not all(twin.agreements)  # noqa: E731
        terminal = play_at_terminal(play, GAME_TIMEOUT_S, stop_when=enough)
        played = "".join(str(line["column"]) for line in twin.moves)
        agreements = twin.agreements

    focal, true_focal = np.asarray(setup.camera.camera_matrix)[0, 0], np.asarray(truth.camera.camera_matrix)[0, 0]
    assert abs(focal / true_focal - 1) < FOCAL_TOLERANCE, (focal, true_focal)
    assert corner_error_px(setup.board, truth.board) < CORNER_TOLERANCE_PX
    assert (setup.colours.robot, setup.colours.person) == (truth.colours.robot, truth.colours.person)
    errors = [np.subtract(a.xyz_m, b.xyz_m) for a, b in zip(setup.drops, truth.drops, strict=True)]
    assert max(float(np.abs(e).max()) for e in errors) < POSE_TOLERANCE_M, errors
    assert float(np.abs(np.subtract(setup.pick.xyz_m, truth.pick.xyz_m)).max()) < POSE_TOLERANCE_M

    assert len(agreements) >= MOVES and all(agreements), (agreements, played, terminal.transcript[-3000:])
    logged = GameLog.load(log_path)
    assert logged.move_string == played[: len(logged.moves)] and len(logged.moves) >= MOVES
