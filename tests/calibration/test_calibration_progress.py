"""No silent wait in calibration: a progress line that ticks, fed by the camera and drops steps' callbacks."""

from __future__ import annotations

import io
import os
import pty
import time

import numpy as np
import pytest

from calibration.camera import calibrate_camera
from calibration.drops import DropCheck, verify_and_correct
from calibration.failures import CalibrationFailedError
from calibration.sim_chessboard import SIM_CHESSBOARD, render_chessboard_views
from calibration.store import ArmPose
from robot.cli.progress_line import WIDTH, ProgressLine
from tests.cli.one_sentence import run_program

PITCH_M = 0.035


def test_a_step_that_says_nothing_new_is_still_seen_ticking() -> None:
    out = io.StringIO()
    with ProgressLine("calibrate drops", out, tick_s=0.05) as progress:
        progress.say("test drops in the sim " + "x" * 200)
        time.sleep(0.3)
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("calibrate drops: test drops in the sim")
    assert all(len(line) <= WIDTH for line in lines)
    assert len(lines) == 1  # off a terminal: a line per new word, the same line again only after a few seconds


def test_at_a_terminal_the_line_is_rewritten_in_place_every_tick() -> None:
    master, slave = pty.openpty()
    with os.fdopen(slave, "w") as terminal:
        with ProgressLine("calibrate camera", terminal, tick_s=0.05) as progress:
            progress.say("looked at 1 of 3 views")
            time.sleep(0.25)
        shown = os.read(master, 65536).decode()
    os.close(master)
    assert shown.count("\r") >= 4 and "\n" not in shown.replace("\r\n", "")
    assert "calibrate camera: looked at 1 of 3 views (0 s)" in shown


def test_the_camera_step_reports_every_view_it_looked_at() -> None:
    from sim import World

    with World(seed=0) as world:
        frames = render_chessboard_views(world, count=4, seed=3)
    seen: list[tuple[int, int]] = []
    with pytest.raises(CalibrationFailedError, match="too few views"):  # four are too few: told all the same
        calibrate_camera(frames, SIM_CHESSBOARD, on_image=lambda count, kept: seen.append((count, kept)))
    assert seen == [(1, 1), (2, 2), (3, 3), (4, 4)]


def test_the_drops_step_reports_every_test_drop_as_it_is_made() -> None:
    drops = [ArmPose(0.1 + PITCH_M * c, 0.0, 0.3, 0.0) for c in range(7)]
    drops[2] = ArmPose(0.1 + PITCH_M * 3, 0.0, 0.3, 0.0)  # lands in column 4 first
    true_xs = [0.1 + PITCH_M * c for c in range(7)]
    told: list[DropCheck] = []
    _, checks = verify_and_correct(
        drops, PITCH_M, lambda column, pose: int(np.argmin([abs(pose.x_m - x) for x in true_xs])), on_check=told.append
    )
    assert told == checks and len(told) == 8


def test_calibrate_drops_in_the_sim_prints_a_progress_line_and_no_line_over_100_characters(tmp_path) -> None:
    result = run_program(["calibrate", "drops", "--sim", "--config", str(tmp_path / "setup.toml")], timeout_s=240)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines and any(line.startswith("calibrate drops: ") for line in lines)
    assert max(map(len, lines)) <= 100
