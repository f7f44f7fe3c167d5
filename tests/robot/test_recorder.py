"""`--record`: a real-time film of the table (the arm moving), captions, the winning four, PNG frames on demand."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from robot.arm.drivers.sim import SimArm, sim_planner
from robot.cli import main
from robot.game.config import SimTableConfig
from robot.game.loop import GameSettings
from robot.game.recorder import END_HOLD_S, FOUR_BGR, Recorder
from robot.game.sim_table import SimGame
from sim import World, WorldConfig
from sim.video import Film
from vision import BoardReading


def test_the_film_follows_simulated_time_and_stops_when_closed() -> None:
    with World(WorldConfig(arm=None)) as world:
        pairs = []
        film = Film(world, 5.0, lambda webcam, wide: pairs.append((webcam.shape, wide.shape)))
        world.step(1.0)
        assert len(pairs) in (5, 6)
        assert pairs[0][0] == (480, 640, 3)
        film.close()
        world.step(0.5)
        assert len(pairs) in (5, 6)


def test_filming_leaves_the_game_as_it_was() -> None:
    """The film draws its own noise: the webcam frames the game reads are the same with and without it."""
    config = replace(WorldConfig(arm=None), camera=replace(WorldConfig().camera, noise_sigma=3.0))
    frames = []
    for filmed in (False, True):
        with World(config, seed=4) as world:
            if filmed:
                Film(world, 10.0, lambda webcam, wide: None)
            world.drop_disc(2, 1)
            world.wait_until_settled()
            frames.append(world.render_camera())
    assert np.array_equal(*frames)


def test_a_recorded_arm_move_shows_the_arm_moving_in_real_time(tmp_path: Path) -> None:
    with SimGame(SimTableConfig(seed=1, record=tmp_path), robot_first=True, tell=lambda m: None) as setup:
        setup.game(GameSettings(robot_first=True), None, None)
        world, recorder = setup.world, setup.recorder
        arm = SimArm(world)
        plan = sim_planner(world).plan(3, arm.joint_state())
        carry = next(step for step in plan.turn_steps if step.label == "over column 4")
        started_s = world.time_s
        wides = []
        setup.film.sink = lambda webcam, wide: (wides.append(wide), recorder.on_film(webcam, wide))
        arm.follow(carry.trajectory)  # from over the dispenser to over the column (the arm starts there)
        filmed_s = world.time_s - started_s
    assert filmed_s > 0.5
    assert len(wides) == pytest.approx(filmed_s * recorder.fps, abs=1.5)
    moving = sum(not np.array_equal(a, b) for a, b in zip(wides, wides[1:], strict=False))
    assert moving >= 0.8 * (len(wides) - 1), "the wide view should change from frame to frame while the arm works"
    video = cv2.VideoCapture(str(tmp_path / "game.mp4"))
    assert video.get(cv2.CAP_PROP_FPS) == pytest.approx(recorder.fps)
    assert int(video.get(cv2.CAP_PROP_FRAME_COUNT)) == recorder.frames_written == len(wides)
    assert int(video.get(cv2.CAP_PROP_FRAME_WIDTH)) > 640 + 500  # the webcam and the wide view side by side


def _reading(rows: int = 6, cols: int = 7) -> BoardReading:
    xs, ys = np.meshgrid(100 + 40 * np.arange(cols), 400 - 40 * np.arange(rows))
    centres = np.stack([xs, ys], axis=-1).astype(float)
    grid = np.zeros((rows, cols), np.int8)
    grid[:4, 3] = 1
    corners = np.array([centres[-1, 0], centres[-1, -1], centres[0, -1], centres[0, 0]])
    return BoardReading(
        grid, ("Y", "R"), np.ones((rows, cols)), corners, 0.0, [], centres, ((0, 200, 230), (0, 0, 200))
    )


def test_the_end_rings_the_winning_four_and_holds_it(tmp_path: Path) -> None:
    recorder = Recorder(tmp_path, png_frames=True)
    reading = _reading()
    recorder.on_frame(np.full((480, 640, 3), 90, np.uint8), reading)
    four = [[3, 0], [3, 1], [3, 2], [3, 3]]
    snapshot = {"rows": 6, "cols": 7, "moves": [3, 0, 3, 0, 3, 0, 3], "robot_first": True, "turn": "over"}
    recorder.on_state({**snapshot, "winner": None, "winning_cells": four, "search": None, "message": None})
    recorder.on_state({**snapshot, "winner": "robot", "winning_cells": four, "search": None, "message": "I win!"})
    recorder.close()
    recorder.close()
    assert recorder.frames_written == 1 + round(END_HOLD_S * recorder.fps), "the end is held once"
    assert recorder._captions()[0].startswith("Game over after 7 moves: the robot wins")
    pngs = sorted((tmp_path / "frames").glob("frame_*.png"))
    assert len(pngs) == recorder.frames_written
    last = cv2.imread(str(pngs[-1]))
    for column, row in four:
        x, y = reading.hole_centres_px[row, column].astype(int)
        ring = last[y - 20 : y + 21, x - 20 : x + 21].reshape(-1, 3)
        assert (np.abs(ring.astype(int) - FOUR_BGR).sum(axis=1) < 60).any(), f"no ring around column {column + 1}"
    x, y = reading.hole_centres_px[0, 0].astype(int)
    around = last[y - 20 : y + 21, x - 20 : x + 21].reshape(-1, 3)
    assert not (np.abs(around.astype(int) - FOUR_BGR).sum(axis=1) < 60).any()


def test_with_a_film_the_games_looks_add_no_frames(tmp_path: Path) -> None:
    """The film's frames come at a steady rate of simulated time; the frames the game looks at between them
    would slow the video down (and stop it while the game looks at a still table)."""
    recorder = Recorder(tmp_path, wide_view=True)
    webcam, wide = np.full((480, 640, 3), 90, np.uint8), np.full((384, 512, 3), 60, np.uint8)
    for _ in range(5):
        recorder.on_frame(webcam, _reading())
    assert recorder.frames_written == 0
    recorder.on_film(webcam, wide)
    recorder.close()
    assert recorder.frames_written == 1
    video = cv2.VideoCapture(str(tmp_path / "game.mp4"))
    ok, frame = video.read()
    assert ok and frame.shape[1] == 640 + 640, "the webcam and the wide view, scaled to its height"
    assert (np.abs(frame[200:300, 300:340].astype(int) - (255, 0, 255)).sum(axis=2) < 120).any(), "the overlay"


def test_record_png_needs_a_folder(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--sim", "--record-png"]) != 0
    assert "--record DIR" in capsys.readouterr().err
