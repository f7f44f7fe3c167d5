"""A hand in front of the board (skin very light to very dark, bare arm or sleeve, 5-40% of the board) is named
per hole, never read as empty holes at confidence, and never turned into a move or a disc taken away."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import vision
from robot.cli.photo_files import load_image, parse_corners_file, parse_labels
from vision import MoveKind, detect_move
from vision.synthetic_hand import add_hand

# Photos of different boards, rooms and fills: a full game, a blue board in a bright room, a dark room.
PHOTOS = ("ts03.jpg", "ts11.jpg", "ts21.jpg", "mj01.jpg", "vi01.jpg")
SURE = 0.9


@pytest.fixture(scope="module")
def photos(shared_dir: Path) -> dict[str, tuple[np.ndarray, np.ndarray, vision.BoardReading]]:
    """Each photo, its corner holes and its reading without a hand (the photos read right: test_vision_photos)."""
    folder = shared_dir / "vision" / "photos"
    if not (folder / "labels.txt").is_file():
        pytest.skip(f"no labelled photos in {folder}")
    labels = parse_labels(folder / "labels.txt")
    corners = parse_corners_file(folder / "corners.txt")
    chosen = {}
    for name in PHOTOS:
        if name in labels:
            image = load_image(folder / name)
            given = np.asarray(corners[name], np.float64)
            chosen[name] = image, given, vision.read(image, corners=given)
    return chosen


def _same_colours(reading: vision.BoardReading, truth: vision.BoardReading) -> np.ndarray:
    """The reading's grid in the truth's colour values (colours learnt from a frame may be numbered the other way)."""
    if reading.colour_names == truth.colour_names[::-1] and reading.colour_names != truth.colour_names:
        return np.where(reading.grid == 0, 0, 3 - reading.grid)
    return reading.grid


@pytest.mark.parametrize("skin_tone", [1, 3, 5, 7, 9, 10])
def test_a_hand_is_named_and_what_it_hides_is_never_read_sure(photos, skin_tone: int) -> None:
    rng = np.random.default_rng(skin_tone)
    hidden_holes = found_holes = 0
    for image, corners, truth in photos.values():
        colours = truth.colours_bgr if len(truth.colours_bgr) == 2 else None
        hand = add_hand(image, corners, (6, 7), rng.uniform(0.05, 0.4), rng, skin_tone=skin_tone)
        for given in (corners, None):
            reading = vision.read(hand.image, corners=given, colours=colours if given is not None else None)
            if not reading.is_board_found:
                assert given is None, f"{hand.scene}: the board was not found with its corners given"
                continue
            hidden = hand.hidden >= 0.5
            assert reading.covered.any() == hidden.any() or reading.covered.any(), hand.scene
            if hidden.any():
                assert any("covers" in problem for problem in reading.problems), hand.scene
                event = detect_move(np.where(truth.grid == 0, 0, 3 - truth.grid), reading, 1)
                assert event.kind is MoveKind.COVERED, (hand.scene, event)
            wrong = (_same_colours(reading, truth) != truth.grid) & (reading.confidence >= SURE)
            assert not wrong.any(), f"{hand.scene}: wrong at >= {SURE} in (row, col) {np.argwhere(wrong).tolist()}"
            assert np.all(reading.confidence[reading.covered] == 0.0)
            if given is not None:
                hidden_holes += int(hidden.sum())
                found_holes += int((hidden & reading.covered).sum())
    assert found_holes >= 0.85 * hidden_holes, f"{found_holes} of {hidden_holes} hidden holes named covered"


def test_no_hole_of_the_photos_is_called_covered(photos) -> None:
    for name, (image, _, truth) in photos.items():
        assert not truth.covered.any(), name
        assert not vision.read(image).covered.any(), name
