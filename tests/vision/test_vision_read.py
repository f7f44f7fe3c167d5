"""vision.read on synthetic photos: known corners, automatic localisation, hard cases, bad input."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import Scene, random_game_grid, render_board

import vision

HARD_SCENES = {
    "plain": Scene(),
    "perspective, light gradient, noise, blur": Scene(tilt=0.08, light_gradient=0.25, noise_sigma=6.0, blur_px=1),
    "loose discs behind empty holes": Scene(loose_discs_behind=((0, 0), (0, 6), (1, 6), (0, 4)), seed=3),
    "green board, ring discs": Scene(face_bgr=(60, 160, 60), ring_discs=True, seed=4),
    "yellowish wall behind the holes": Scene(background_bgr=((90, 190, 210), (80, 170, 190)), seed=5),
}


def letters(reading: vision.BoardReading) -> np.ndarray:
    names = np.array(["."] + list(reading.colour_names))
    return names[reading.grid]


def expected_letters(grid: np.ndarray) -> np.ndarray:
    return np.array([".", "R", "Y"])[grid]


@pytest.mark.parametrize("name", sorted(HARD_SCENES))
@pytest.mark.parametrize("moves", [0, 1, 13, 42])
def test_read_with_known_corners(name: str, moves: int) -> None:
    grid = random_game_grid(moves, seed=moves)
    image, corners = render_board(grid, HARD_SCENES[name])
    reading = vision.read(image, corners=corners)
    assert (letters(reading) == expected_letters(grid)).all(), f"{name}: read\n{letters(reading)[::-1]}"
    assert reading.grid.dtype == np.int8 and reading.grid.shape == (6, 7)


@pytest.mark.parametrize("name", sorted(HARD_SCENES))
def test_read_finds_the_board_itself(name: str) -> None:
    grid = random_game_grid(17, seed=7)
    image, corners = render_board(grid, HARD_SCENES[name])
    reading = vision.read(image)
    assert reading.corners is not None
    assert np.abs(reading.corners - corners).max() < 4.0
    assert (letters(reading) == expected_letters(grid)).all()


def test_value_one_is_the_colour_with_more_discs_and_corners_are_tl_tr_br_bl() -> None:
    grid = random_game_grid(9, seed=11)
    image, corners = render_board(grid)
    reading = vision.read(image, corners=corners)
    assert (reading.grid == 1).sum() == 5 and (reading.grid == 2).sum() == 4
    assert reading.corners[0, 0] < reading.corners[1, 0] and reading.corners[0, 1] < reading.corners[3, 1]
    assert reading.hole_centres_px[0, 0, 1] > reading.hole_centres_px[5, 0, 1]


def test_calibrated_colours_fix_the_values() -> None:
    grid = random_game_grid(8, seed=2)
    image, corners = render_board(grid)
    reading = vision.read(image, corners=corners, colours=[(30, 200, 235), (40, 40, 200)])
    assert reading.colour_names == ("Y", "R")
    assert (reading.grid == np.where(grid == 0, 0, 3 - grid)).all()


def test_other_board_shapes() -> None:
    grid = random_game_grid(20, seed=5, shape=(7, 9))
    image, corners = render_board(grid)
    assert (vision.read(image, shape=(7, 9), corners=corners).grid.shape == (7, 9))
    assert (letters(vision.read(image, shape=(7, 9))) == expected_letters(grid)).all()


def test_no_board_is_reported_not_raised() -> None:
    image = np.full((480, 640, 3), 128, np.uint8)
    reading = vision.read(image)
    assert reading.corners is None and not reading.is_board_found
    assert reading.problems and "board" in reading.problems[0]
    assert (reading.grid == 0).all()


@pytest.mark.parametrize(
    "kwargs",
    [
        {"image_bgr": np.zeros((10, 10), np.uint8)},
        {"image_bgr": np.zeros((480, 640, 3), np.uint8), "corners": [[0, 0], [1, 1]]},
        {"image_bgr": np.zeros((480, 640, 3), np.uint8), "corners": [[0, 0], [10, 10], [10, 0], [0, 10]]},
        {"image_bgr": np.zeros((480, 640, 3), np.uint8), "shape": (1, 7)},
        {"image_bgr": np.zeros((480, 640, 3), np.uint8), "colours": [(1, 2, 3)]},
    ],
)
def test_bad_input_is_a_value_error(kwargs: dict) -> None:
    with pytest.raises(ValueError):
        vision.read(**kwargs)
