"""The colour step (calibration.colours) on rendered boards: several discs per colour, ring-shaped discs, and the
refusals when a colour cannot be told from the empty holes or from the other colour."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import PITCH_PX, RED_BGR, YELLOW_BGR, Scene, render_board

from calibration.colours import colours_from_discs, colours_from_frame
from calibration.failures import CalibrationFailedError
from calibration.store import BoardCalibration

WHITE_ROOM = ((230, 232, 232), (215, 220, 222))


def _board(corners: np.ndarray) -> BoardCalibration:
    return BoardCalibration(rows=6, cols=7, corners_px=tuple(map(tuple, corners)))


def _grid(*discs: tuple[int, int, int]) -> np.ndarray:
    grid = np.zeros((6, 7), np.int8)
    for row, column, value in discs:
        grid[row, column] = value
    return grid


def _empty_cells(grid: np.ndarray) -> list[tuple[int, int]]:
    return [(int(r), int(c)) for r, c in zip(*np.nonzero(grid == 0), strict=True)]


@pytest.mark.parametrize("ring", [False, True])
def test_discs_of_both_colours_give_their_colours_robot_first(ring: bool) -> None:
    grid = _grid((0, 1, 2), (0, 4, 1), (1, 4, 2), (0, 5, 1))
    image, corners = render_board(grid, Scene(ring_discs=ring, seed=2))
    step = colours_from_discs(image, _board(corners), [(0, 1), (1, 4)], [(0, 4), (0, 5)], _empty_cells(grid))
    assert (step.robot, step.person) == ("Y", "R")
    assert np.abs(np.subtract(step.robot_bgr, YELLOW_BGR)).max() < 45
    assert np.abs(np.subtract(step.person_bgr, RED_BGR)).max() < 45


def test_a_disc_with_another_above_it_is_taken_once_the_empty_holes_are_known() -> None:
    grid = _grid((0, 2, 1), (1, 2, 1), (0, 3, 2), (1, 3, 2))
    image, corners = render_board(grid, Scene(seed=4))
    with pytest.raises(CalibrationFailedError, match="column 3 looks empty"):
        colours_from_frame(image, _board(corners), 2, 3)  # the hole above holds a disc of its colour
    step = colours_from_discs(image, _board(corners), [(0, 2)], [(0, 3)], _empty_cells(grid))
    assert (step.robot, step.person) == ("R", "Y")


def test_a_pale_disc_like_the_empty_holes_is_refused_in_one_sentence() -> None:
    pale = (215, 225, 228)  # an off-white disc before a white wall
    grid = _grid((0, 0, 1), (0, 6, 2))
    image, corners = render_board(grid, Scene(disc_bgr=(RED_BGR, pale), background_bgr=WHITE_ROOM, seed=1))
    with pytest.raises(CalibrationFailedError, match="column 7 looks empty") as refused:
        colours_from_discs(image, _board(corners), [(0, 0)], [(0, 6)], _empty_cells(grid))
    assert "\n" not in str(refused.value)


def test_two_colours_that_look_alike_are_refused() -> None:
    grid = _grid((0, 0, 1), (0, 6, 2))
    image, corners = render_board(grid, Scene(disc_bgr=(RED_BGR, (45, 50, 190)), seed=1))
    with pytest.raises(CalibrationFailedError, match="look alike"):
        colours_from_discs(image, _board(corners), [(0, 0)], [(0, 6)], _empty_cells(grid))


def test_a_colour_needs_a_disc() -> None:
    grid = _grid((0, 0, 1))
    image, corners = render_board(grid, Scene(seed=1))
    with pytest.raises(ValueError, match="at least one disc"):
        colours_from_discs(image, _board(corners), [(0, 0)], [], _empty_cells(grid))


def _run_colours_step(tmp_path, image: np.ndarray, corners: np.ndarray, *columns: str) -> tuple[int, str]:
    import contextlib
    import io

    import cv2

    from calibration import store
    from calibration.store import Setup
    from robot.cli.main import main

    config, photo = tmp_path / "setup.toml", tmp_path / "discs.png"
    store.save(Setup(board=_board(corners)), config)
    cv2.imwrite(str(photo), image)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
        status = main(["calibrate", "colours", "--image", str(photo), "--config", str(config), *columns])
    return status, printed.getvalue()


def test_calibrate_colours_takes_several_discs_of_each_colour(tmp_path) -> None:
    from calibration import store

    grid = _grid((0, 0, 1), (0, 2, 1), (0, 5, 2), (0, 6, 2))
    image, corners = render_board(grid, Scene(noise_sigma=3.0, light_gradient=0.2, seed=7))
    status, printed = _run_colours_step(
        tmp_path, image, corners, "--robot-column", "1", "3", "--person-column", "6", "7"
    )
    assert status == 0 and "warning" not in printed, printed
    colours = store.load(tmp_path / "setup.toml").colours
    assert (colours.robot, colours.person) == ("R", "Y")


def test_calibrate_colours_warns_of_colours_the_game_could_confuse(tmp_path) -> None:
    dark_red = (20, 20, 140)  # far enough in BGR for the step, a shade of the red for the reader
    grid = _grid((0, 0, 1), (0, 6, 2))
    image, corners = render_board(grid, Scene(disc_bgr=(RED_BGR, dark_red), seed=8))
    status, printed = _run_colours_step(tmp_path, image, corners)
    assert status == 0 and "warning: the two players' discs look alike in this light" in printed, printed


# A room behind the board a little duller than the yellow discs: through the holes above the discs it looks like them.
YELLOWISH_ROOM = ((40, 180, 215), (40, 180, 215))


def _discs_and_empty_board(tmp_path) -> tuple[np.ndarray, str, str]:
    import cv2

    scene = Scene(background_bgr=YELLOWISH_ROOM, noise_sigma=2.0, seed=5)
    image, corners = render_board(_grid((0, 0, 1), (0, 6, 2)), scene)
    empty, _ = render_board(np.zeros((6, 7), np.int8), scene)
    empty_photo = tmp_path / "empty.png"
    cv2.imwrite(str(empty_photo), empty)
    return image, corners, str(empty_photo)


def test_calibrate_colours_tells_discs_from_a_room_of_their_colour_by_the_empty_board(tmp_path) -> None:
    from calibration import store

    image, corners, empty_photo = _discs_and_empty_board(tmp_path)
    status, printed = _run_colours_step(tmp_path, image, corners)
    assert status != 0 and "column 7 looks empty" in printed
    status, printed = _run_colours_step(tmp_path, image, corners, "--empty-image", empty_photo)
    assert status == 0, printed
    colours = store.load(tmp_path / "setup.toml").colours
    assert (colours.robot, colours.person) == ("R", "Y")


def test_an_empty_board_picture_from_elsewhere_is_refused_and_the_setup_kept(tmp_path) -> None:
    import cv2

    from calibration import store

    image, corners, empty_photo = _discs_and_empty_board(tmp_path)
    cv2.imwrite(empty_photo, np.roll(cv2.imread(empty_photo), PITCH_PX // 2, axis=1))  # the camera moved
    status, printed = _run_colours_step(tmp_path, image, corners, "--empty-image", empty_photo)
    assert status != 0 and "moved between the two pictures" in printed and "Traceback" not in printed
    assert store.load(tmp_path / "setup.toml").colours is None
