"""What the game knows of a clear board's holes (vision.unchanged) where its discs show past their rims, as frames of
`bench game rooms --room makes` show them: a person's disc the reader cannot tell is read from its hole's change
though the face round the hole changed too, and an empty hole the discs round it changed is not doubted."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.hole_samples import RAY_COUNT, sample_holes
from vision.reading import BoardReading
from vision.reliability import SURE
from vision.unchanged import (
    INFERRED_CONFIDENCE,
    doubt_changed_empties,
    expected_disc_from_change,
    person_disc_from_change,
    reference_patches,
)

DATA = Path(__file__).parent / "data"
# Seed 9: a clear 3 mm face, glossy translucent blue and yellow discs, a pink wall and a yellow table. Rows 3-5 and columns 5-7 of the board (1-based), the empty board and the person's disc in column 6 row 4 as the
# game saw them, and what the game knew: the person plays blue, the second colour.
SHAPE = (3, 3)
CORNERS = np.array([[35.2, 35.5], [122.9, 33.6], [119.4, 111.5], [34.4, 114.6]])
KNOWN = np.array([[0, 2, 2], [0, 0, 1], [0, 0, 0]], np.int8)
COLOURS = ((2, 74, 91), (93, 25, 8))
PERSON = 2


@pytest.fixture(scope="module")
def person_dropped() -> tuple[np.ndarray, np.ndarray]:
    both = cv2.imread(str(DATA / "sim_clear_board_glossy_disc_past_its_rim.png"))
    width = both.shape[1] // 2
    return both[:, :width], both[:, width:]


def _unsure_there(frame_known: np.ndarray) -> BoardReading:
    """The reader's reading: the board the game knows, the person's hole read empty and unsure."""
    confidence = np.ones(SHAPE)
    confidence[1, 1] = 0.5
    return BoardReading(frame_known.copy(), ("Y", "B"), confidence, CORNERS, 0.0, covered=np.zeros(SHAPE, bool))


def test_a_disc_seen_past_its_rim_behind_a_clear_face_is_the_person_s(person_dropped) -> None:
    """Its glare spot leaves the reader unsure; behind a clear face the disc shows past its rim in its own colour,
    which a hand in front does not."""
    empty, frame = person_dropped
    reference = reference_patches([sample_holes(empty, CORNERS, SHAPE)])
    reading = person_disc_from_change(_unsure_there(KNOWN), frame, CORNERS, KNOWN, reference, PERSON, COLOURS)
    assert reading.grid[1, 1] == PERSON and reading.confidence[1, 1] == INFERRED_CONFIDENCE, reading.grid


def test_a_hand_round_that_hole_is_no_disc(person_dropped) -> None:
    empty, frame = person_dropped
    reference = reference_patches([sample_holes(empty, CORNERS, SHAPE)])
    hand = frame.copy()
    centre = np.mean(CORNERS, axis=0)
    pitch = float(np.linalg.norm(CORNERS[1] - CORNERS[0])) / 2
    # Skin over the face ring round the middle hole, its middle left as it is.
    cv2.circle(hand, tuple(int(v) for v in centre), int(0.45 * pitch), (120, 150, 200), int(0.12 * pitch))
    reading = person_disc_from_change(_unsure_there(KNOWN), hand, CORNERS, KNOWN, reference, PERSON, COLOURS)
    assert reading.grid[1, 1] == 0 and reading.confidence[1, 1] == 0.5, reading.grid


def test_an_empty_hole_among_discs_seen_past_their_rims_is_not_doubted() -> None:
    """Seed 12 (a clear 3 mm face, yellow and red ring discs, 38 degrees aside), the robot's disc just dropped into
    column 7: column 6 row 2, empty among discs on three sides, shows their edges and a rim patch changed by far,
    its inside by no more than the light; it was doubted until the game stopped. The robot's disc in column 7 row 4,
    were it read empty, still is. The frame as the game saw it, cut to the board, and the game's empty look then."""
    frame = cv2.imread(str(DATA / "sim_clear_board_empty_hole_among_discs.png"))
    patches = np.load(DATA / "sim_clear_board_empty_hole_among_discs.npy").astype(np.float64)
    # Kept before the empty look held every ray's face ring (FACE_RAYS): none kept there, which this check never reads.
    reference = np.concatenate([patches, np.full((len(patches), RAY_COUNT, 3), np.nan)], axis=1)
    corners = np.array([[23.6, 23.7], [264.6, 67.3], [246.1, 255.5], [39.3, 186.3]])
    known = np.array(
        [
            [2, 1, 1, 1, 2, 2, 2],
            [0, 1, 1, 2, 1, 0, 1],
            [0, 0, 2, 2, 1, 0, 1],
            [0, 0, 1, 1, 2, 0, 0],
            [0, 0, 2, 2, 1, 0, 0],
            [0, 0, 2, 1, 2, 0, 0],
        ],
        np.int8,
    )
    sure = BoardReading(
        known.copy(), ("Y", "R"), np.ones(known.shape), corners, 0.0, covered=np.zeros(known.shape, bool)
    )
    reading = doubt_changed_empties(sure, frame, corners, known, reference)
    assert reading.confidence[1, 5] == 1.0, reading.problems
    assert reading.confidence[3, 6] < 0.9, reading.problems


@pytest.mark.parametrize("player, read", [(1, True), (2, False)])
def test_the_robot_s_translucent_disc_before_a_room_of_its_colour_is_read_from_its_change(player, read) -> None:
    """Seed 9: the robot's translucent yellow disc dropped into column 6 row 3, before the yellow table, changes its
    hole by less than a disc usually does; it is the one landing hole changed at all and far nearer the robot's
    colour than the other's, so it is the robot's disc (and not, were the robot blue, a blue one). Rows 1-4, columns
    5-7 of the board: the empty board and the frame as the game saw them."""
    both = cv2.imread(str(DATA / "sim_clear_board_translucent_disc_before_its_colour.png"))
    width = both.shape[1] // 2
    empty, frame = both[:, :width], both[:, width:]
    corners = np.array([[34.8, 36.7], [121.1, 34.2], [116.0, 145.6], [33.6, 149.9]])
    known = np.array([[2, 1, 2], [2, 1, 2], [0, 0, 0], [0, 0, 0]], np.int8)
    grid, confidence = known.copy(), np.ones(known.shape)
    grid[2, 1], confidence[2, 1] = 1, 0.5  # the reader: yellow, but the room behind looks as yellow
    unsure = BoardReading(grid, ("Y", "B"), confidence, corners, 0.0, covered=np.zeros(known.shape, bool))
    reference = reference_patches([sample_holes(empty, corners, known.shape)])
    reading = expected_disc_from_change(
        unsure, frame, corners, known, reference, 1, player, ((2, 68, 89), (105, 29, 17))
    )
    assert (reading.grid[2, 1] == player and reading.confidence[2, 1] >= SURE) == read, reading.confidence
