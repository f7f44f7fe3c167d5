"""Camera sources, frames from the simulated camera, and the `c4robot read` command."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest
from conftest import random_game_grid, render_board

import vision
from vision.cameras import Camera, ImageFolderCamera, OpenCVCamera, SimCamera, VideoFileCamera, open_camera


def test_image_folder_and_video_file(tmp_path: Path) -> None:
    frames = [render_board(random_game_grid(n, seed=n))[0] for n in (2, 3)]
    for index, frame in enumerate(frames):
        cv2.imwrite(str(tmp_path / f"frame{index}.png"), frame)
    with ImageFolderCamera(tmp_path) as camera:
        assert isinstance(camera, Camera)
        assert np.array_equal(camera.read(), frames[0]) and np.array_equal(camera.read(), frames[1])
        with pytest.raises(EOFError):
            camera.read()
    video = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 5, (640, 480))
    for frame in frames:
        writer.write(frame)
    writer.release()
    with open_camera(video) as camera:
        assert isinstance(camera, VideoFileCamera) and camera.read().shape == (480, 640, 3)


def test_missing_sources_are_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        ImageFolderCamera(tmp_path / "nothing")
    with pytest.raises(ConnectionError):
        OpenCVCamera(97)
    with pytest.raises(TypeError):
        SimCamera(object())


def test_sim_frames_read_like_the_world() -> None:
    sim = pytest.importorskip("sim")
    with sim.World(seed=0) as world:
        for column, player in [(3, 1), (3, 2), (2, 1), (4, 2), (3, 1), (0, 2)]:
            world.drop_disc(column, player)
            assert world.wait_until_settled(5.0)
        truth = world.board_state()
        centres = world.hole_centres_px()
        rows, cols = truth.shape
        corners = np.array([centres[rows - 1, 0], centres[rows - 1, cols - 1], centres[0, cols - 1], centres[0, 0]])
        frame = SimCamera(world).read()
    reading = vision.read(frame, shape=(rows, cols), corners=corners)
    assert reading.colour_names == ("R", "Y")
    assert (reading.grid == truth).all(), reading.grid[::-1]
    found = vision.read(frame, shape=(rows, cols))
    pitch = np.linalg.norm(corners[1] - corners[0]) / (cols - 1)
    assert found.corners is not None and np.abs(found.corners - corners).max() < 0.1 * pitch
    assert found.colour_names == ("R", "Y")
    assert (found.grid == truth).all(), found.grid[::-1]
