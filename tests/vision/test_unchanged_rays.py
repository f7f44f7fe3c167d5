"""Behind a clear face the room and the robot's body show round every hole, unlike the face: what the face ring shows
round a hole that holds a disc is no hand in front where it looks as on the empty board (vision.unchanged's
face_rays_as_on_empty_board), and a hand that changes it still is. The room as `bench game rooms --room makes` draws
it for seed 10: a clear 8 mm face, blue and yellow ring discs, the robot's dark body and a yellow wall behind."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

import vision
from vision.hole_samples import face_colour, sample_holes
from vision.reliability import SURE
from vision.unchanged import (
    as_on_empty_board,
    face_rays_as_on_empty_board,
    insides_as_on_empty_board,
    reference_patches,
)

SHAPE = (6, 7)
CORNERS = np.array([[33.7, 33.4], [295.3, 43.7], [294.1, 238.4], [35.0, 254.4]])
# The watcher's colours (the person's blue first, who plays first) and the board's face, as in the game.
COLOURS = ((172, 47, 24), (4, 94, 119))


@pytest.fixture(scope="module")
def person_dropped() -> tuple[np.ndarray, np.ndarray]:
    """The empty board and the person's first disc, in column 6, as the game saw them, cut to the board."""
    both = cv2.imread(str(Path(__file__).parent / "data" / "sim_clear_board_room_round_a_disc.png"))
    width = both.shape[1] // 2
    return both[:, :width], both[:, width:]


def _read(frame: np.ndarray, empty: np.ndarray, rays: bool = True) -> vision.BoardReading:
    """As the game reads it, the empty board known."""
    reference = reference_patches([sample_holes(empty, CORNERS, SHAPE)])
    known = np.zeros(SHAPE, np.int8)
    return vision.read(
        frame,
        SHAPE,
        CORNERS,
        COLOURS,
        face_colour([empty], CORNERS, SHAPE),
        known=known,
        as_on_empty_board=as_on_empty_board(frame, CORNERS, SHAPE, reference),
        empty_insides=insides_as_on_empty_board(frame, CORNERS, SHAPE, reference) & (known == 0),
        unchanged_rays=face_rays_as_on_empty_board(frame, CORNERS, SHAPE, reference) if rays else None,
    )


def test_the_room_round_a_disc_behind_a_clear_face_is_nothing_in_front(person_dropped) -> None:
    empty, frame = person_dropped
    truth = np.zeros(SHAPE, np.int8)
    truth[0, 5] = 1
    assert _read(frame, empty, rays=False).covered_holes[0, 5]  # the room round the disc, unlike the face
    reading = _read(frame, empty)
    assert not reading.covered_holes.any(), reading.problems
    assert reading.grid[0, 5] == 1 and reading.confidence[0, 5] >= SURE, (reading.grid, reading.confidence)
    assert not ((reading.grid != truth) & (reading.confidence >= SURE)).any(), (reading.grid, reading.confidence)


def test_a_hand_round_that_disc_is_still_in_front(person_dropped) -> None:
    empty, frame = person_dropped
    hand = frame.copy()
    # A finger of skin from above across column 6's bottom hole's face ring.
    across = (CORNERS[2] - CORNERS[3]) / (SHAPE[1] - 1)
    centre = CORNERS[3] + 5 * across
    pitch = float(np.linalg.norm(across))
    top = (int(centre[0] - 0.15 * pitch), 0)
    bottom = (int(centre[0] + 0.15 * pitch), int(centre[1] + 0.6 * pitch))
    cv2.rectangle(hand, top, bottom, (120, 150, 200), -1)
    assert _read(hand, empty).covered_holes[:, 5].any()
