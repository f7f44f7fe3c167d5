"""A reading judged against the board the game knows (issue 37 item 3): one or two new discs read as they are,
more are unsure and named, and a known disc cannot change colour."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import RED_BGR, YELLOW_BGR, Scene, random_game_grid, render_board

import vision
from vision.known_board import (
    CHANGED_COLOUR,
    TOO_MANY_NEW,
    doubted_removals,
    judged_against_known,
    with_empty_look,
)
from vision.reliability import SURE
from vision.stabiliser import DEFAULT_MIN_CONFIDENCE

CALIBRATED = (RED_BGR, YELLOW_BGR)


def _says(reading: vision.BoardReading, sentence: str) -> bool:
    return any(sentence.split("{count}")[-1] in problem for problem in reading.problems)


@pytest.fixture(scope="module")
def board() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    grid = random_game_grid(14, seed=8)
    image, corners = render_board(grid, Scene(seed=8))
    return grid, image, corners


def test_a_move_or_two_new_discs_read_as_they_are(board) -> None:
    grid, image, corners = board
    for new in (1, 2):
        known = grid.copy()
        for column in np.flatnonzero(grid.any(axis=0))[:new]:
            known[np.flatnonzero(grid[:, column])[-1], column] = 0
        reading = vision.read(image, corners=corners, colours=CALIBRATED, known=known)
        assert (reading.grid == grid).all() and (reading.confidence >= SURE).all(), reading.problems
        assert not _says(reading, TOO_MANY_NEW) and not _says(reading, CHANGED_COLOUR)


def test_many_new_discs_are_unsure_and_named(board) -> None:
    grid, image, corners = board
    reading = vision.read(image, corners=corners, colours=CALIBRATED, known=np.zeros_like(grid))
    assert f"{int((grid != 0).sum())} new discs since the last move" in reading.problems[0]
    assert (reading.confidence[grid != 0] < SURE).all() and (reading.confidence[grid == 0] >= SURE).all()


def test_a_known_disc_in_the_other_colour_is_unsure(board) -> None:
    grid, image, corners = board
    known = grid.copy()
    row, column = np.argwhere(grid == 1)[0]
    known[row, column] = 2
    reading = vision.read(image, corners=corners, colours=CALIBRATED, known=known)
    assert any("show the other colour" in problem for problem in reading.problems)
    assert reading.confidence[row, column] < SURE


def test_without_calibrated_colours_only_new_discs_are_judged() -> None:
    grid = np.array([[1, 2], [0, 0]], np.int8)
    confidence, problems = judged_against_known(grid, np.ones((2, 2)), np.array([[2, 1], [0, 0]]), is_named=False)
    assert problems == [] and (confidence == 1).all()
    with pytest.raises(ValueError, match="known board is 1x2"):
        judged_against_known(grid, np.ones((2, 2)), np.zeros((1, 2)), is_named=True)


def test_a_hole_whose_inside_alone_is_unchanged_is_emptied_only_beside_another_new_disc():
    known = np.zeros((6, 7), np.int8)
    known[0, 3] = 1
    insides = known == 0
    unchanged = np.zeros((6, 7), bool)
    # A clear face shows the person's new disc below through the rim of the hole above: that one is no disc.
    read_two = known.copy()
    read_two[1, 3] = read_two[2, 3] = 2
    insides_above = insides.copy()
    insides_above[1, 3] = False  # the new disc changed its own hole all over
    grid, _ = with_empty_look(read_two, [], known, unchanged, insides_above)
    assert grid[1, 3] == 2 and grid[2, 3] == 0
    # A dark disc before a dark room changes its hole only a little: alone, it is the person's move, kept.
    read_one = known.copy()
    read_one[1, 3] = 2
    grid, _ = with_empty_look(read_one, [], known, unchanged, insides)
    assert grid[1, 3] == 2
    # Holes unchanged face ring and all are emptied whatever else shows.
    grid, _ = with_empty_look(read_one, [], known, insides)
    assert grid[1, 3] == 0


def test_a_known_disc_read_gone_is_unsure_unless_its_hole_looks_as_on_the_empty_board() -> None:
    """Room 19 (issue 37): a forearm across a clear board that the reader did not see in front read eight known
    discs gone at full confidence, and the game named one taken out."""
    known = np.zeros((6, 7), np.int8)
    known[0, 2:5] = (1, 2, 1)
    grid = known.copy()
    grid[0, 3] = 0  # read gone
    sure, nothing_covered = np.ones((6, 7)), np.zeros((6, 7), bool)
    unlike = np.ones((6, 7), bool)
    unlike[0, 3] = False
    confidence, problems = doubted_removals(grid, sure, nothing_covered, known, unlike)
    assert confidence[0, 3] < DEFAULT_MIN_CONFIDENCE and (np.delete(confidence.ravel(), 3) == 1).all()
    assert problems and "column 4 row 1" in problems[0]
    taken_out = doubted_removals(grid, sure, nothing_covered, known, np.ones((6, 7), bool))  # as on the empty board
    behind_a_hand = doubted_removals(grid, sure, ~nothing_covered, known, unlike)  # read covered
    for confidence, problems in (taken_out, behind_a_hand):
        assert (confidence == 1).all() and problems == []
