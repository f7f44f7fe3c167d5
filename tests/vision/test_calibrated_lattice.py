"""Where the game's holes look as on the empty board at the calibrated corners, the board is where calibration put it:
the reader reads the holes there, not at corners refined onto what the frame shows. Behind a thick face in light
that has drifted, the tunnels' lit walls pass for rims, and holes read at corners refined onto them show the walls:
discs deep behind the face read empty, surely. Each room as `bench game rooms --room makes` draws it, the frame
brighter than the empty board's."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import vision
from calibration.sim_truth import sim_board, sim_camera, sim_colours
from robot.cli.vision_makes_bench import DROP_COLUMNS
from sim import World, WorldConfig
from sim.room import furnish, room_for
from vision.degrade import DRIFTS
from vision.hole_samples import sample_holes
from vision.reliability import SURE
from vision.unchanged import as_on_empty_board, reference_patches

SHAPE = (6, 7)
DISCS = 7


@pytest.mark.parametrize(
    ("seed", "most_unsure"),
    [
        (17, 5),  # speckled blue and yellow discs behind a 10 mm red face, 25 degrees aside
        (20, 19),  # ring yellow and red discs behind a 10 mm blue face
    ],
)
def test_holes_as_on_the_empty_board_are_read_at_the_calibrated_corners(seed: int, most_unsure: int) -> None:
    with World(WorldConfig(arm=None)) as world:
        furnish(world, dataclasses.replace(room_for("makes", seed), drift=None))
        board = sim_board(world, sim_camera(world))
        colours = sim_colours(world, board, robot_player=2)
        corners = np.asarray(board.corners_px)
        empty = world.render_camera()
        for index, column in enumerate(DROP_COLUMNS[:DISCS]):
            world.drop_disc(column, 1 + index % 2)
            world.wait_until_settled()
        frame, truth = DRIFTS["exposure +20%"](world.render_camera()), world.board_state()
    known = truth.copy()
    last = DROP_COLUMNS[DISCS - 1]
    known[(truth[:, last] != 0).sum() - 1, last] = 0
    clear = as_on_empty_board(frame, corners, SHAPE, reference_patches([sample_holes(empty, corners, SHAPE)]))
    reading = vision.read(
        frame, SHAPE, corners, (colours.person_bgr, colours.robot_bgr), known=known, as_on_empty_board=clear
    )
    sure = reading.confidence >= SURE
    assert not ((reading.grid != truth) & sure).any(), (reading.grid, reading.confidence)
    assert (~sure).sum() <= most_unsure, reading.confidence
