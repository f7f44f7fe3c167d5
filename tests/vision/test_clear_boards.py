"""Boards whose discs show past their holes' rims: a clear face shows every disc whole behind it, a thin face seen
34 degrees aside shows a ring disc's edge beyond the rim; neither is a hand in front of the board, and a clear face
whose empty holes show the room as its face does is in view where its discs are. A clear face also
shows a room of a disc's colour through its empty holes, which passes for discs of that colour: read with calibrated
colours but without the board the game knows, counts no game gives are not sure. Makes rooms (sim.makes) are read with
the sim's exact calibration as a game reads them: with the empty board's face and look, and the board the game knew
before the last disc."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from conftest import RED_BGR, YELLOW_BGR, render_board

import vision
from calibration.sim_truth import sim_board, sim_camera, sim_colours
from robot.cli.vision_makes_bench import DROP_COLUMNS, read_make
from sim import World, WorldConfig
from sim.room import furnish, room_for
from vision.hole_samples import face_colour, sample_holes
from vision.reliability import SURE
from vision.unchanged import as_on_empty_board, reference_patches

SHAPE = (6, 7)
DISCS = 6


def _robot_numbered(board: np.ndarray) -> np.ndarray:
    """The sim's board (player 2 the robot) in the reader's values (1 the robot's colour, as calibrated first)."""
    return np.select([board == 2, board == 1], [1, 2], 0)


@pytest.mark.parametrize(
    "seed",
    [
        10,  # a clear 8 mm face, blue and yellow ring discs, 17 degrees aside
        8,  # a black 3 mm face, yellow and white ring discs, 34 degrees aside
    ],
)
def test_discs_seen_past_their_rims_are_not_taken_for_a_hand(seed: int) -> None:
    room = dataclasses.replace(room_for("makes", seed), drift=None)
    with World(WorldConfig(arm=None)) as world:
        furnish(world, room)
        board = sim_board(world, sim_camera(world))
        corners = np.asarray(board.corners_px)
        colours = sim_colours(world, board, robot_player=2)
        empties = [world.render_camera() for _ in range(2)]
        known = np.zeros(SHAPE, dtype=int)
        for index, column in enumerate(DROP_COLUMNS[:DISCS]):
            known = _robot_numbered(world.board_state())
            world.drop_disc(column, 1 + index % 2)
            world.wait_until_settled()
        truth = _robot_numbered(world.board_state())
        frame = world.render_camera()
    reference = reference_patches([sample_holes(each, corners, SHAPE) for each in empties])
    reading = vision.read(
        frame,
        SHAPE,
        corners,
        (colours.robot_bgr, colours.person_bgr),
        face_colour(empties, corners, SHAPE),
        known=known,
        as_on_empty_board=as_on_empty_board(frame, corners, SHAPE, reference),
    )
    assert not reading.covered_holes.any(), reading.problems
    assert not ((reading.grid != truth) & (reading.confidence >= SURE)).any()


def test_a_clear_board_whose_empty_holes_look_like_its_face_is_read_where_its_discs_are() -> None:
    """Seed 10's clear face shows the room behind it as its empty holes do: the discs show the board is in view."""
    result = read_make(10, 9)
    assert result.sure_wrong == 0 and result.discs_right >= 8, result


def test_a_calibrated_reading_whose_counts_no_game_gives_is_not_sure_of_the_colour_in_excess() -> None:
    """A room of a disc's colour seen through a clear face's empty holes passes for discs of that colour (seed 9: a
    yellow cloth table behind translucent yellow discs): read without the board the game knows, the counts give it
    away. Here five red discs stand beside one yellow one."""
    grid = np.zeros(SHAPE, dtype=int)
    grid[0, :5], grid[0, 5] = 1, 2
    image, corners = render_board(grid)
    reading = vision.read(image, corners=corners, colours=[RED_BGR, YELLOW_BGR])
    assert (reading.grid == grid).all()
    assert (reading.confidence[grid == 1] < SURE).all() and (reading.confidence[grid != 1] >= SURE).all()


def test_a_disc_under_a_sure_disc_is_no_room_passing_for_one_whatever_the_counts() -> None:
    """Boards set up by hand give counts no game gives too (a labelled photo holds 14 red and 12 yellow discs): a room
    seen through the holes passes only for the discs at the top of the sure ones, so the discs below stay sure."""
    grid = np.zeros(SHAPE, dtype=int)
    grid[0, :4], grid[0, 4], grid[1, 0] = 1, 2, 2
    image, corners = render_board(grid)
    reading = vision.read(image, corners=corners, colours=[RED_BGR, YELLOW_BGR])
    assert (reading.grid == grid).all()
    assert reading.confidence[0, 0] >= SURE and (reading.confidence[0, 1:4] < SURE).all()


def test_discs_behind_a_thin_face_seen_aside_are_read_where_calibration_put_the_holes() -> None:
    """Seed 8's black 3 mm face seen 34 degrees aside: calibrated corners refined to the rims the frame shows lie off
    the ring discs behind them, which there show crescents of the face and read empty."""
    result = read_make(8, 4)
    assert result.sure_wrong == 0 and result.discs_right >= 2, result
