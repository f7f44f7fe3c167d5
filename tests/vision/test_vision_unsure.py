"""Never confidently wrong under what a webcam does every day (dim light and its noise, JPEG blocks, motion blur, a
warm lamp): a cell the reader cannot tell is below 0.9, or the reading says why ("too dark to read: add light"); a
lattice one column or row off the board is moved back into the board's frame."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import Scene, random_game_grid, render_board

import vision
from robot.cli.photo_files import load_image, parse_corners_file, parse_labels
from vision.degrade import WEBCAM_SIZE_PX, apply_change, darken, fit_within, gaussian_noise, jpeg, white_balance
from vision.frame_check import moved_corners
from vision.reading import TOO_DARK
from vision.reliability import SURE, score_reading

# One photo per kind of failure the reader had, under the change that showed it: discs smeared by JPEG blocks read
# empty (mj02), a disc more orange than the rest under a warm lamp emptied (mj02), pink discs the count prior
# emptied in dim light (vi01), red and yellow merged into one orange in dim noisy light (ts06), loose discs behind
# the board smeared by blur into full holes (ts03).
KINDS = [
    ("mj02.jpg", "jpeg q25", "auto"),
    ("mj02.jpg", "jpeg q25", "corners"),
    ("mj02.jpg", "warm light", "corners"),
    ("vi01.jpg", "light 45%", "corners"),
    ("ts06.jpg", "light 30%", "corners"),
    ("ts06.jpg", "light 30% noisy", "auto"),
    ("ts03.jpg", "motion blur 9px", "auto"),
]
# Harsher than the bench: a board read all empty because its discs' counts looked impossible (JPEG q15 left one
# colour only), and loose discs behind the board rounded off by dim warm light.
HARSHER = {
    "jpeg q15": lambda image: jpeg(image, 15),
    "warm lamp at 45% light": lambda image: darken(white_balance(image, (0.6, 0.85, 1.15)), 0.45),
}
HARSHER_KINDS = [("mj02.jpg", "jpeg q15", "auto"), ("ts02.jpg", "warm lamp at 45% light", "corners")]


@pytest.fixture(scope="module")
def photo_folder(shared_dir: Path) -> Path:
    folder = shared_dir / "vision" / "photos"
    if not (folder / "labels.txt").is_file():
        pytest.skip(f"no labelled photos in {folder}")
    return folder


def _photo(folder: Path, photo: str) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """The photo fitted within a webcam's frame, its corner holes and its label."""
    corners = np.asarray(parse_corners_file(folder / "corners.txt")[photo], np.float64)
    image, fitted = fit_within(load_image(folder / photo), corners, WEBCAM_SIZE_PX)
    return image, fitted, parse_labels(folder / "labels.txt")[photo]


def _assert_never_confidently_wrong(reading: vision.BoardReading, label: list[str]) -> None:
    score = score_reading(reading, label)
    assert reading.is_board_found
    assert not score.sure_wrong.any(), (
        f"wrong at >= {SURE}: (row from top, col) {np.argwhere(score.sure_wrong).tolist()}"
    )
    assert score.unsure.any() or score.is_fully_right


@pytest.mark.parametrize(("photo", "change", "mode"), KINDS)
def test_webcam_changes_leave_no_cell_wrong_at_full_confidence(photo_folder: Path, photo, change, mode) -> None:
    image, corners, label = _photo(photo_folder, photo)
    degraded = apply_change(change, image, corners, (6, 7), 0, photo)
    reading = vision.read(degraded.image, corners=degraded.corners if mode == "corners" else None)
    _assert_never_confidently_wrong(reading, label)


@pytest.mark.parametrize(("photo", "change", "mode"), HARSHER_KINDS)
def test_harsher_changes_leave_no_cell_wrong_at_full_confidence(photo_folder: Path, photo, change, mode) -> None:
    image, corners, label = _photo(photo_folder, photo)
    reading = vision.read(HARSHER[change](image), corners=corners if mode == "corners" else None)
    _assert_never_confidently_wrong(reading, label)


@pytest.mark.parametrize("moves", [0, 13, 30])
@pytest.mark.parametrize("light", [0.3, 0.15, 0.08, 0.04])
@pytest.mark.parametrize("room", ["bright", "dark"])
def test_dim_light_gives_the_right_grid_or_says_it_is_too_dark(moves: int, light: float, room: str) -> None:
    grid = random_game_grid(moves, seed=moves)
    scene = Scene() if room == "bright" else Scene(background_bgr=((20, 20, 25), (30, 30, 35)), seed=2)
    image, corners = render_board(grid, scene)
    dim = gaussian_noise(darken(image, light), 4.0, np.random.default_rng(moves))
    for given in (corners, None):
        reading = vision.read(dim, corners=given)
        if not reading.is_board_found:
            assert given is None and "well lit" in reading.problems[0]
            continue
        read_right = np.array([".", *reading.colour_names])[reading.grid] == np.array([".", "R", "Y"])[grid]
        if not read_right.all():
            assert TOO_DARK in reading.problems, f"{light:.0%} light: read wrong without saying it is too dark"
        assert not (~read_right & (reading.confidence >= SURE)).any()
        if TOO_DARK in reading.problems:
            assert (reading.confidence < SURE).all()


def test_counts_no_game_gives_are_read_as_they_are_but_not_trusted() -> None:
    grid = np.zeros((6, 7), np.int8)
    grid[0, :5], grid[1, :3], grid[0, 5] = 1, 1, 2  # a person stacked eight of one colour and one of the other
    image, corners = render_board(grid, Scene(seed=9))
    learnt = vision.read(image, corners=corners)
    assert any("no game gives" in problem for problem in learnt.problems)
    excess = int(np.argmax([(learnt.grid == value).sum() for value in (1, 2)])) + 1
    assert (learnt.confidence[learnt.grid == excess] < SURE).all()
    assert (learnt.confidence[(learnt.grid == 0) & (grid != 0)] < SURE).all()  # what the count prior emptied
    calibrated = vision.read(image, corners=corners, colours=((40, 40, 200), (30, 200, 235)))
    assert (calibrated.grid == grid).all()
    # Calibrated colours are trusted disc by disc: only the discs of the colour in excess with no sure disc above them
    # (where a room seen through the holes passes for discs) are doubted when no game's board is given.
    tops = (grid == 1) & (np.vstack([grid[1:], np.zeros((1, 7), np.int8)]) == 0)
    assert (calibrated.confidence[tops] < SURE).all() and (calibrated.confidence[~tops] >= SURE).all()
    known = grid.copy()
    known[1, 2] = known[0, 4] = 0
    with_game = vision.read(image, corners=corners, colours=((40, 40, 200), (30, 200, 235)), known=known)
    assert (with_game.confidence >= SURE).all()  # two new discs are a move the game judges, not an impossible board


@pytest.mark.parametrize("step", [(-1, 0), (1, 0), (0, -1), (0, 1)])
@pytest.mark.parametrize("moves", [0, 20])
def test_a_lattice_one_column_or_row_off_the_board_is_moved_back(step: tuple[int, int], moves: int) -> None:
    grid = random_game_grid(moves, seed=moves)
    image, corners = render_board(grid, Scene(noise_sigma=4.0, seed=moves))
    reading = vision.read(image, corners=moved_corners(corners, (6, 7), step))
    assert np.abs(reading.corners - corners).max() < 3.0, reading.problems
    assert (np.array([".", *reading.colour_names])[reading.grid] == np.array([".", "R", "Y"])[grid]).all()
    assert not reading.covered.any()
