"""Every bad input and interruption of issue 19, as a person typed it: one sentence, a non-zero exit, nothing lost.

The property-based fuzz (test_cli_fuzz.py) covers the kinds; these are the cases a new user met, kept so
they stay fixed. Interruptions and OpenCV's own output need a real process: those run `c4robot` as one.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import cv2
import numpy as np
import pytest
from one_sentence import ROOT, assert_one_sentence, assert_unchanged, run_in_process, run_program, snapshot
from test_cli_fuzz import VALID_LOG, _valid_setup

from calibration import store
from engine import Position
from robot.cli.twin_process import C4ROBOT
from robot.game.log import GameLog, keep_unfinished, locked
from robot.game.opponents import TypedOpponent


@pytest.mark.parametrize(
    "argv",
    [
        ["match", "5", "6", "--openings", "42"],
        ["match", "5", "6", "--openings", "-3"],
        ["move", "--time-ms", "nan"],
        ["match", "5", "6", "--time-ms", "nan"],
        ["move", "--width", "100000"],
        ["move", "4" * 10_000],
        ["analyze", "4" * 10_000],
        ["calibrate", "board", "--sim", "--rows", "100000"],
        ["calibrate", "camera", "--sim", "--views", "100000"],
        ["bench", "game", "games", "--games", "0"],
        ["bench", "game", "rooms", "--games", ""],
        ["play", "--serial", "/dev/null", "--arm", "so101"],
        ["play", "--sim", "--level", "11"],
        ["play", "--sim", "--opponent", "x" * 5000],
        ["play", "--sim", "--arm", "robot9000"],
        ["analyze", "44", "--table-mb=--"],
    ],
)
def test_a_bad_argument_is_one_short_sentence(argv: list[str]) -> None:
    status, _, err = run_in_process(argv)
    assert_one_sentence(status, err, argv[:4])
    assert len(err) < 300, err


def test_read_with_rows_1000_is_refused(tmp_path: Path) -> None:
    photo = tmp_path / "board.png"
    cv2.imwrite(str(photo), np.zeros((60, 80, 3), np.uint8))
    status, _, err = run_in_process(["read", str(photo), "--rows", "1000"])
    assert_one_sentence(status, err)
    assert "--rows" in err


def test_an_overlay_opencv_cannot_write_is_one_sentence_and_writes_nothing(tmp_path: Path) -> None:
    photo = tmp_path / "board.png"
    cv2.imwrite(str(photo), np.zeros((60, 80, 3), np.uint8))
    before = snapshot(tmp_path)
    status, _, err = run_in_process(["read", str(photo), "--overlay", str(tmp_path / "out.txt")])
    assert_one_sentence(status, err)
    assert "extension" in err
    assert_unchanged(before, tmp_path)
    assert not (tmp_path / "out.txt").exists()


def test_solve_says_how_it_read_4_space_4() -> None:
    status, out, err = run_in_process(["solve"], stdin_text="44 4\n")
    assert out.split()[:2] == ["44", "1"]
    assert "expected score 4" in err and "without spaces" in err
    assert status != 0


# --- the calibration file ---------------------------------------------------------------------------

VALID_TEXT = store.format_setup(_valid_setup())


@pytest.mark.parametrize(
    ("old", "new", "key"),
    [
        ("camera_matrix = [[800.0,", "camera_matrix = [[nan,", "camera_matrix"),
        ("camera_matrix = [[800.0,", "camera_matrix = [[0.0,", "focal"),
        ("camera_matrix = [[800.0,", "camera_matrix = [[-800.0,", "focal"),
        ("corners_px = [[100.0,", "corners_px = [[nan,", "corners_px"),
        ("tvec_mm = [0.0, 0.0, 500.0]", "tvec_mm = [0.0, inf, 500.0]", "tvec_mm"),
        ("rows = 6", "rows = 100000", "board.rows"),
        ("yaw_deg = 0.0", "yaw_deg = nan", "yaw_deg"),
    ],
)
def test_a_calibration_with_a_bad_number_fails_check_naming_the_key(
    tmp_path: Path, old: str, new: str, key: str
) -> None:
    assert old in VALID_TEXT
    file = tmp_path / "setup.toml"
    file.write_text(VALID_TEXT.replace(old, new, 1), encoding="utf-8")
    before = snapshot(tmp_path)
    status, out, err = run_in_process(["calibrate", "check", "--sim", "--config", str(file)])
    assert_one_sentence(status, err, new)
    assert key in err
    assert "calibration ok" not in out
    assert_unchanged(before, tmp_path)


def test_a_calibration_that_says_the_sim_robot_plays_red_is_refused_by_play_sim(tmp_path: Path) -> None:
    file = tmp_path / "setup.toml"
    file.write_text(
        VALID_TEXT.replace('robot = "Y"', 'robot = "X"')
        .replace('person = "R"', 'person = "Y"')
        .replace('robot = "X"', 'robot = "R"')
    )
    status, _, err = run_in_process(["play", "--sim", "--config", str(file), "--log", str(tmp_path / "g.json")])
    assert_one_sentence(status, err)
    assert "robot plays R" in err and "calibrate colours --sim" in err


# --- the game log ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "key"),
    [({"robot_first": "no"}, "robot_first"), ({"moves": "4" * 7}, "moves"), ({"rows": 10**6}, "rows")],
)
def test_a_damaged_game_log_names_its_key(tmp_path: Path, change: dict, key: str) -> None:
    file = tmp_path / "game.json"
    file.write_text(json.dumps({**VALID_LOG, **change}))
    before = snapshot(tmp_path)
    status, _, err = run_in_process(["play", "--sim", "--resume", "--log", str(file)])
    assert_one_sentence(status, err)
    assert key in err
    assert_unchanged(before, tmp_path)


def test_resume_from_a_log_that_is_a_json_list_is_one_sentence(tmp_path: Path) -> None:
    file = tmp_path / "game.json"
    file.write_text("[1, 2, 3]")
    status, _, err = run_in_process(["play", "--sim", "--resume", "--log", str(file)])
    assert_one_sentence(status, err)
    assert "damaged" in err and file.read_text() == "[1, 2, 3]"


def test_a_second_play_on_a_log_in_use_is_refused_and_the_log_kept(tmp_path: Path) -> None:
    file = tmp_path / "game.json"
    file.write_text(json.dumps(VALID_LOG))
    before = snapshot(tmp_path)
    with locked(file):
        status, _, err = run_in_process(["play", "--sim", "--log", str(file)])
    assert_one_sentence(status, err)
    assert "in use" in err
    assert_unchanged(before, tmp_path)


def test_an_unfinished_game_is_kept_under_another_name(tmp_path: Path) -> None:
    file = tmp_path / "game.json"
    file.write_text(json.dumps(VALID_LOG))
    kept = keep_unfinished(file)
    assert kept is not None and not file.exists()
    assert GameLog.load(kept).move_string == "443"
    finished = {**VALID_LOG, "winner": "draw"}
    file.write_text(json.dumps(finished))
    assert keep_unfinished(file) is None and file.exists()


def test_temp_files_of_a_dead_write_are_cleaned_when_the_log_is_taken(tmp_path: Path) -> None:
    file = tmp_path / "game.json"
    orphan = tmp_path / ".game.json.abc123.tmp"
    orphan.write_text("{half")
    other = tmp_path / ".other.json.abc123.tmp"
    other.write_text("{not ours")
    with locked(file):
        pass
    assert not orphan.exists() and other.exists()


def test_a_full_column_and_a_typo_get_different_messages() -> None:
    answers = iter(["x" * 500, "1", "2"])
    told: list[str] = []
    person = TypedOpponent(lambda _: next(answers), told.append)
    position = Position.from_moves("111111")
    assert person.choose(position) == 1
    assert "is not a column" in told[0] and len(told[0]) < 80
    assert "Column 1 is full" in told[1]


# --- as a program: interruptions and OpenCV's own output ---------------------------------------------


def test_a_camera_that_does_not_exist_is_one_line_without_opencv_noise(tmp_path: Path) -> None:
    result = run_program(["calibrate", "board", "--camera", "7", "--config", str(tmp_path / "s.toml")])
    assert_one_sentence(result.returncode, result.stderr)
    assert "camera 7 could not be opened" in result.stderr


def test_ctrl_d_while_the_person_is_asked_for_a_move_is_one_sentence(tmp_path: Path) -> None:
    result = run_program(["play", "--sim", "--opponent", "human", "--log", str(tmp_path / "g.json")], stdin_text="")
    assert_one_sentence(result.returncode, result.stderr)
    assert "input ended" in result.stderr


@pytest.mark.parametrize(
    ("signal_number", "to_group", "said"),
    [(signal.SIGINT, True, "interrupted (Ctrl-C)"), (signal.SIGTERM, False, "stopped (SIGTERM)")],
)
def test_ctrl_c_or_sigterm_while_the_robot_ponders_is_one_sentence_and_the_game_is_kept(
    tmp_path: Path, signal_number: int, to_group: bool, said: str
) -> None:
    """Ctrl-C reaches every process of the terminal's group, the pondering worker included; SIGTERM (`kill`, a
    service stopped) only the game, which ends as for Ctrl-C and takes its worker with it."""
    log = tmp_path / "g.json"
    argv = ["play", "--sim", "--opponent", "human", "--robot-first", "--time-ms", "200", "--log", str(log)]
    # A terminal's Ctrl-C reaches the game even where this suite runs with SIGINT ignored (a script's background
    # job inherits that, and Python then installs no KeyboardInterrupt handler: the game would wait forever).
    process = subprocess.Popen(
        [*C4ROBOT, *argv],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONWARNINGS": "ignore"},
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 120
        while not _moves_in(log) and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.2)
        assert _moves_in(log), "the robot's first move was not saved"
        time.sleep(1.5)  # the worker is pondering the person's replies
        if to_group:
            os.killpg(process.pid, signal_number)
        else:
            process.send_signal(signal_number)
        process.wait(timeout=60)  # stdin stays open: its end would be the person's Ctrl-D, racing the Ctrl-C
        err = process.stderr.read()
        time.sleep(2.0)  # a worker left behind would still run now
        left = subprocess.run(["pgrep", "-g", str(process.pid)], capture_output=True, text=True).stdout.split()
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
    assert_one_sentence(process.returncode, err)
    assert said in err
    assert len(GameLog.load(log).moves) == 1
    assert not left, f"processes of the game still run: {left}"


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["calibrate", "arm", "--serial", "/dev/no-such-port"], "/dev/no-such-port"),
        (["calibrate", "drops", "--serial", "/dev/no-such-port"], "/dev/no-such-port"),
        (["calibrate", "arm", "--sim"], "--sim"),
        (["calibrate", "drops", "--sim", "--serial", "/dev/ttyUSB0"], "--serial"),
    ],
)
def test_calibrating_an_arm_on_a_port_that_is_not_there_is_one_sentence(
    argv: list[str], named: str, tmp_path: Path
) -> None:
    config = tmp_path / "setup.toml"
    store.save(_valid_setup(), config)
    before = snapshot(tmp_path)
    person, terminal = os.openpty()  # a person at a terminal: these steps refuse to run without one
    try:
        done = subprocess.run(
            [
                sys.executable,
                "-c",
                "import sys; from robot.cli import main; sys.exit(main())",
                *argv,
                "--config",
                str(config),
            ],
            stdin=terminal,
            capture_output=True,
            text=True,
            timeout=120,
            cwd=ROOT,
        )
    finally:
        os.close(person)
        os.close(terminal)
    assert_one_sentence(done.returncode, done.stderr, argv)
    assert named in done.stderr
    assert_unchanged(before, tmp_path)


def _moves_in(log: Path) -> int:
    """Moves saved in a game log being written (0 while there is none or it is mid-replace)."""
    try:
        return len(GameLog.load(log).moves)
    except (OSError, ValueError):
        return 0


def test_check_takes_a_file_without_colours_as_play_does_and_says_so(tmp_path: Path) -> None:
    """`play` learns the colours from the first moves (`calibrate colours --from-moves`): no problem, a note."""
    import dataclasses

    from calibration.sim_truth import sim_setup
    from sim import World

    with World(seed=0) as world:
        setup = dataclasses.replace(sim_setup(world), colours=None)
    file = store.save(setup, tmp_path / "setup.toml")
    status, out, err = run_in_process(["calibrate", "check", "--sim", "--config", str(file)])
    assert status == 0 and "calibration ok" in out, out + err
    assert "no disc colours" in out and "no colours calibration" not in out
