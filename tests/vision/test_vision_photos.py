"""The real photos in ../shared/vision/photos: every labelled cell, with the given corners and automatically."""

from __future__ import annotations

from pathlib import Path

import pytest

import vision
from robot.cli.photo_files import cells_right, format_grid_rows, load_image, parse_corners_file, parse_labels


@pytest.fixture(scope="module")
def photos(shared_dir: Path) -> Path:
    folder = shared_dir / "vision" / "photos"
    if not (folder / "labels.txt").is_file():
        pytest.skip(f"no labelled photos in {folder}")
    return folder


def test_photos_with_given_corners(photos: Path) -> None:
    labels = parse_labels(photos / "labels.txt")
    corners = parse_corners_file(photos / "corners.txt")
    scores = {}
    for name, truth in labels.items():
        reading = vision.read(load_image(photos / name), corners=corners[name])
        scores[name] = cells_right(format_grid_rows(reading.grid, reading.colour_names), truth)
    assert all(score == 42 for score in scores.values()), scores


def test_photos_automatically(photos: Path) -> None:
    labels = parse_labels(photos / "labels.txt")
    scores = {}
    for name, truth in labels.items():
        reading = vision.read(load_image(photos / name))
        scores[name] = cells_right(format_grid_rows(reading.grid, reading.colour_names), truth)
    assert all(score == 42 for score in scores.values()), scores
