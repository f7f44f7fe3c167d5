"""Reading with calibrated colours when the light has moved since calibration (issue 37 items 2 and 3): the frame's
own colours check the calibrated ones, a stale calibration is named, and discs burnt by too much exposure are
never read confidently empty."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import RED_BGR, YELLOW_BGR, Scene, random_game_grid, render_board

import vision
from calibration.colours import colours_from_discs
from calibration.store import BoardCalibration
from vision.degrade import DRIFTS, WARM_GAINS_BGR, exposure, fit_within, white_balance
from vision.hole_samples import to_weighted_lab
from vision.reliability import SURE
from vision.stale_colours import STALE_COLOURS, drifted, is_within_reach, reference_indices

CALIBRATED = (RED_BGR, YELLOW_BGR)


def to_lab(bgr: tuple[int, int, int]) -> np.ndarray:
    return to_weighted_lab(np.array([[bgr]], np.uint8))[0, 0]


def _letters(reading: vision.BoardReading) -> np.ndarray:
    return np.array([".", *reading.colour_names])[reading.grid]


def _truth(grid: np.ndarray) -> np.ndarray:
    return np.array([".", "R", "Y"])[grid]


def _sure_wrong(reading: vision.BoardReading, grid: np.ndarray) -> int:
    return int(((_letters(reading) != _truth(grid)) & (reading.confidence >= SURE)).sum())


def test_the_frames_colours_pair_with_the_calibrated_ones_they_stand_for() -> None:
    reference = [np.array([30.0, 60.0, 40.0]), np.array([45.0, -5.0, 80.0])]  # a red, a yellow (weighted Lab)
    warmer = [np.array([47.0, 10.0, 90.0]), np.array([32.0, 65.0, 55.0])]  # yellow first, both warmer
    assert reference_indices(warmer, reference) == (1, 0)
    assert reference_indices(warmer[:1], reference) == (1,)
    assert reference_indices([], reference) == ()


@pytest.mark.parametrize("drift", [(0.72, 1.0, 1.25), (1.25, 1.02, 0.8), (0.75, 0.75, 0.75), (1.2, 1.2, 1.2)])
@pytest.mark.parametrize("seed", [1, 2])
def test_light_drifting_after_calibration_reads_right_or_unsure(drift: tuple[float, float, float], seed: int) -> None:
    grid = random_game_grid(10 + 6 * seed, seed=seed)
    image, corners = render_board(grid, Scene(noise_sigma=3.0, light_gradient=0.2, seed=seed))
    reading = vision.read(white_balance(image, drift), corners=corners, colours=CALIBRATED)
    assert _sure_wrong(reading, grid) == 0, reading.problems
    assert (_letters(reading) == _truth(grid)).mean() > 0.95


def test_colours_of_another_light_are_named_stale_and_the_board_still_read() -> None:
    grid = random_game_grid(16, seed=5)
    image, corners = render_board(grid, Scene(seed=5))
    reading = vision.read(white_balance(image, WARM_GAINS_BGR), corners=corners, colours=CALIBRATED)
    assert STALE_COLOURS in reading.problems
    assert (_letters(reading) == _truth(grid)).all() and _sure_wrong(reading, grid) == 0


def test_a_wall_no_light_makes_of_the_calibrated_colours_checks_nothing() -> None:
    red, yellow, green = (to_lab(bgr) for bgr in (RED_BGR, YELLOW_BGR, (60, 160, 60)))
    assert is_within_reach([to_lab((20, 150, 250))], [yellow, red], [0]), "a yellow turned orange by a warm lamp"
    assert is_within_reach([to_lab((30, 125, 165))], [yellow, red], [0]), "a yellow at 70% exposure"
    assert not is_within_reach([green], [yellow, red], [0]), "a green wall is no yellow in any light"
    assert not is_within_reach([yellow, green], [yellow, red], [0, 1])
    assert len(drifted(red)) > 100


def test_calibrated_colours_of_other_discs_never_read_confidently() -> None:
    grid = random_game_grid(14, seed=3)
    image, corners = render_board(grid, Scene(seed=3))
    reading = vision.read(image, corners=corners, colours=((160, 60, 30), (40, 160, 40)))  # blue and green discs
    assert _sure_wrong(reading, grid) == 0


@pytest.mark.parametrize("seed", [4, 6])
def test_discs_burnt_by_too_much_exposure_are_never_read_confidently_empty(seed: int) -> None:
    grid = random_game_grid(18, seed=seed)
    scene = Scene(disc_bgr=(RED_BGR, (60, 225, 245)), background_bgr=((235, 240, 240), (200, 215, 225)), seed=seed)
    image, corners = render_board(grid, scene)
    burnt = exposure(image, 1.45)
    reading = vision.read(burnt, corners=corners, colours=(RED_BGR, (60, 225, 245)))
    assert _sure_wrong(reading, grid) == 0


def test_exposure_saturates_and_drifts_name_every_step() -> None:
    image = np.full((4, 4, 3), 200, np.uint8)
    assert exposure(image, 1.3).max() == 255 and exposure(image, 0.5).max() == 100
    assert [name for name in DRIFTS if name.startswith("exposure")] == [
        f"exposure {p:+d}%" for p in (-30, -20, -10, 10, 20, 30)
    ]


def test_the_real_photos_calibrated_under_warm_and_cool_light(shared_dir: Path) -> None:
    """A few labelled photos, calibrated from one bottom-row pair each, read after the light has moved."""
    from robot.cli.photo_files import load_image, parse_corners_file, parse_labels

    folder = shared_dir / "vision" / "photos"
    if not (folder / "corners.txt").is_file():
        pytest.skip(f"no labelled photos with corners in {folder}")
    labels, corners = parse_labels(folder / "labels.txt"), parse_corners_file(folder / "corners.txt")
    for name in ("mj01.jpg", "ts07.jpg", "vi01.jpg"):
        image, fitted = fit_within(load_image(folder / name), np.asarray(corners[name]), (640, 480))
        truth = labels[name]
        bottom = truth[-1]
        robot = next(c for c, cell in enumerate(bottom) if cell != ".")
        person = next(c for c, cell in enumerate(bottom) if cell not in (".", bottom[robot]))
        empty = [(5 - r, c) for r, line in enumerate(truth) for c, cell in enumerate(line) if cell == "."]
        board = BoardCalibration(rows=6, cols=7, corners_px=tuple(map(tuple, fitted)))
        step = colours_from_discs(image, board, [(0, robot)], [(0, person)], empty)
        for drift in ("warm light", "cool light", "exposure -20%"):
            reading = vision.read(DRIFTS[drift](image), corners=fitted, colours=(step.robot_bgr, step.person_bgr))
            read = np.array([".", bottom[robot], bottom[person]])[reading.grid][::-1]
            wrong = read != np.array([list(row) for row in truth])
            assert not (wrong & (reading.confidence[::-1] >= SURE)).any(), (name, drift)
