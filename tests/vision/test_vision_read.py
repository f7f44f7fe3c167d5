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
    "shaded hole walls cut the view through empty holes": Scene(wall_parallax=0.05, tilt=0.05, seed=6),
    "wood of nearly the yellow discs' colour behind the holes": Scene(
        background_bgr=((60, 185, 225), (51, 157, 191)), tilt=0.04, noise_sigma=3.0, blur_px=1, seed=7
    ),
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


@pytest.mark.parametrize("wall_parallax", [0.03, 0.07])
def test_found_holes_are_centred_on_their_rims_not_on_the_view_through_them(wall_parallax: float) -> None:
    """The shaded far wall of every hole is the face's plastic in shadow: counted as face it shrinks the
    found lattice towards the camera by up to a tenth of a pitch, enough to sample beside the holes."""
    grid = random_game_grid(13, seed=1)
    image, corners = render_board(grid, Scene(wall_parallax=wall_parallax, tilt=0.05, seed=1))
    reading = vision.read(image)
    pitch_px = np.linalg.norm(corners[1] - corners[0]) / 6
    assert np.abs(reading.corners - corners).max() < 0.03 * pitch_px


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
    assert vision.read(image, shape=(7, 9), corners=corners).grid.shape == (7, 9)
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


# Pink and green discs measured in a real photo (vi01): low saturation, under a dim light.
DIM_PINK_BGR = (156, 106, 192)
DIM_GREEN_BGR = (171, 227, 147)
HAND_SET_ROWS = (".......", ".......", ".......", "PPPP...", "GPGG...", "GPPPG.P")


def grid_from_rows(rows: tuple[str, ...], letters_in_order: str) -> np.ndarray:
    """Rows top to bottom as letters -> grid row 0 at the bottom, value k for the k-th letter."""
    return np.array([[letters_in_order.find(ch) + 1 for ch in row] for row in rows[::-1]], dtype=np.int8)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_board_set_up_by_hand_with_dim_colours_is_read_as_it_is(seed: int) -> None:
    """Nine pink and five green discs (no game gives that) are all read, and the counts are reported."""
    grid = grid_from_rows(HAND_SET_ROWS, "PG")
    scene = Scene(disc_bgr=(DIM_PINK_BGR, DIM_GREEN_BGR), tilt=0.05, noise_sigma=4.0, blur_px=1, seed=seed)
    image, corners = render_board(grid, scene)
    for reading in (vision.read(image, corners=corners), vision.read(image)):
        assert reading.colour_names == ("P", "G")
        assert (reading.grid == grid).all(), f"read\n{letters(reading)[::-1]}"
        assert any("9 discs of one colour and 5" in problem for problem in reading.problems)


@pytest.mark.parametrize("seed", range(6))
def test_dim_discs_in_front_of_a_dark_backdrop(seed: int) -> None:
    """The dark room seen through the empty holes is the face's colour in shadow, so the face mask takes it in
    and only the discs show as holes: the window of holes must still sit on the board, not a row off it."""
    grid = grid_from_rows(HAND_SET_ROWS, "PG")
    scene = Scene(
        face_bgr=(207, 140, 99),
        disc_bgr=(DIM_PINK_BGR, DIM_GREEN_BGR),
        background_bgr=((83, 62, 52), (60, 50, 45)),
        tilt=0.05,
        noise_sigma=4.0,
        blur_px=1,
        seed=seed,
    )
    image, corners = render_board(grid, scene)
    assert (vision.read(image, corners=corners).grid == grid).all()
    found = vision.read(image)
    pitch_px = np.linalg.norm(corners[1] - corners[0]) / 6
    assert np.abs(found.corners - corners).max() < 0.1 * pitch_px
    assert (found.grid == grid).all(), f"read\n{letters(found)[::-1]}"


@pytest.mark.parametrize("light_gradient", [0.0, 0.2, 0.3])
@pytest.mark.parametrize("moves", [5, 9, 13, 21])
@pytest.mark.parametrize("seed", range(6))
def test_wood_of_nearly_the_yellow_discs_colour_splits_from_them(seed: int, moves: int, light_gradient: float) -> None:
    """Through the empty holes, wood a little duller than the yellow discs: one cluster of hole colours holds both,
    and only split in two does it give the yellow discs a colour of their own, also when a light gradient across
    the frame spreads both along their shades (9, 8 and 3 of 24 renders read wrong before)."""
    grid = random_game_grid(moves, seed=seed)
    scene = Scene(
        background_bgr=((60, 185, 225), (51, 157, 191)),
        tilt=0.04,
        light_gradient=light_gradient,
        noise_sigma=3.0,
        blur_px=1,
        seed=seed,
    )
    image, corners = render_board(grid, scene)
    for reading in (vision.read(image, corners=corners), vision.read(image)):
        assert (letters(reading) == expected_letters(grid)).all(), f"read\n{letters(reading)[::-1]}"


@pytest.mark.parametrize("board_pose", [None, (0.014, -0.014, 0.05), (-0.02, 0.01, -0.05)])
def test_holes_of_the_simulated_board_are_centred_on_the_front_rims(board_pose) -> None:
    """The sim's lit inner walls carry the face's colour past the faint rim line, and its row pitch is not its
    column pitch: every hole centre found lies within 1.5 px of the front face's (before: up to 3.3 px; calibration needs it)."""
    sim = pytest.importorskip("sim")
    config = sim.WorldConfig() if board_pose is None else sim.WorldConfig().with_board_pose(*board_pose)
    with sim.World(config) as world:
        frame, truth = world.render_camera(), np.asarray(world.hole_centres_px(), float)
    reading = vision.read(frame)
    assert np.abs(np.asarray(reading.hole_centres_px) - truth).max() < 1.5
