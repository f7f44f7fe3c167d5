"""The room seen through the empty holes is no disc: where it is nearly a disc's colour (wood behind yellow discs,
darkened), the empty holes before it are not taken for discs a thick face's tunnels cut short (vision.deep_holes,
vision.room_behind), so the reader does not doubt a board it reads right."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import vision
from robot.cli.photo_files import load_image, parse_corners_file, parse_labels
from robot.cli.vision_calibrated_bench import calibrated_photo
from vision.degrade import DRIFTS, WEBCAM_SIZE_PX, fit_within
from vision.reliability import SURE, letter_rows

PHOTO = "ts21.jpg"  # a blue board before a wooden table; yellow and red discs


@pytest.fixture(scope="module")
def photo(shared_dir: Path):
    folder = shared_dir / "vision" / "photos"
    if not (folder / PHOTO).is_file():
        pytest.skip(f"no {PHOTO} in {folder}")
    truth = parse_labels(folder / "labels.txt")[PHOTO]
    corners = np.asarray(parse_corners_file(folder / "corners.txt")[PHOTO])
    image, fitted = fit_within(load_image(folder / PHOTO), corners, WEBCAM_SIZE_PX)
    return calibrated_photo(PHOTO, image, fitted, truth)


def test_wood_of_nearly_the_yellow_discs_colour_in_dim_light_leaves_the_board_read_sure(photo) -> None:
    frame = DRIFTS["exposure -30%"](photo.image)
    assert len(photo.calibrations) >= 3
    for calibration in photo.calibrations:
        reading = vision.read(frame, shape=(6, 7), corners=photo.corners, colours=calibration.colours)
        read = np.array([list(row) for row in letter_rows(reading.grid, calibration.names)])
        sure = reading.confidence[::-1] >= SURE
        assert not (sure & (read != np.array([list(row) for row in photo.truth]))).any(), calibration.pair
        assert (~sure).sum() <= 8, (calibration.pair, (~sure).sum())
