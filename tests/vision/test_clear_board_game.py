"""A clear board in a game: the room seen through its holes (a yellow table below a board of blue and yellow discs)
passes for discs, yet the game knows which holes are empty and how they looked on the empty board. A hole known
empty that looks just as it did holds no disc: the person's new disc is then the one new disc, read sure, not
doubted among a dozen the table makes. The room as `bench game rooms --room makes` draws it for seed 9."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import vision
from calibration.sim_truth import sim_board, sim_camera, sim_colours
from robot.cli.vision_makes_bench import DROP_COLUMNS
from sim import World, WorldConfig
from sim.room import furnish, room_for
from vision.hole_samples import sample_holes
from vision.reliability import SURE
from vision.unchanged import as_on_empty_board, reference_patches

SHAPE = (6, 7)


@pytest.fixture(scope="module")
def person_replied() -> tuple:
    """Seed 9's clear board after the robot's disc and the person's reply on it: the frame, the world's board, the
    corners, the colours (person's first), the holes as on the empty board, and the board the game knows (the
    person's disc not yet)."""
    with World(WorldConfig(arm=None)) as world:
        furnish(world, dataclasses.replace(room_for("makes", 9), drift=None))
        board = sim_board(world, sim_camera(world))
        colours = sim_colours(world, board, robot_player=2)
        corners = np.asarray(board.corners_px)
        empty = world.render_camera()
        for index, column in enumerate(DROP_COLUMNS[:2]):
            world.drop_disc(column, 1 + index % 2)
            world.wait_until_settled()
        frame, truth = world.render_camera(), world.board_state()
    known = truth.copy()
    known[1, DROP_COLUMNS[1]] = 0  # the person's disc, on the robot's, is the new one
    clear = as_on_empty_board(frame, corners, SHAPE, reference_patches([sample_holes(empty, corners, SHAPE)]))
    return frame, truth, corners, (colours.person_bgr, colours.robot_bgr), clear, known


def test_a_clear_board_s_room_is_no_new_disc_where_the_holes_look_as_on_the_empty_board(person_replied) -> None:
    frame, truth, corners, colours, clear, known = person_replied
    reading = vision.read(frame, SHAPE, corners, colours, known=known, as_on_empty_board=clear)
    sure = reading.confidence >= SURE
    assert (reading.grid == truth).all() and sure[1, DROP_COLUMNS[1]], (reading.grid, reading.confidence)
    assert not ((reading.grid != truth) & sure).any()
    assert not any("no game gives counts" in problem for problem in reading.problems), reading.problems


def test_a_hole_whose_inside_alone_looks_as_on_the_empty_board_may_still_hold_the_new_disc(person_replied) -> None:
    # Rooms seed 6: a black ring disc before a dark room changed only two rim patches of its hole; the game told the
    # reader its inside looked as on the empty board, and the person's disc was read empty at full confidence.
    frame, truth, corners, colours, clear, known = person_replied
    insides = known == 0
    reading = vision.read(frame, SHAPE, corners, colours, known=known, as_on_empty_board=clear, empty_insides=insides)
    assert reading.grid[1, DROP_COLUMNS[1]] == truth[1, DROP_COLUMNS[1]], (reading.grid, reading.confidence)
    assert not ((reading.grid != truth) & (reading.confidence >= SURE)).any()
