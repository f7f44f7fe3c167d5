"""Ring-shaped discs show the room through their middle: the game's colour model (vision.colour_model) learns each
player's colour from the ring, as the colour step records it, not from what the middle shows (two rings of
different colours before one dark arm would otherwise look alike, and a yellow ring before a brown table orange).
Each room as `bench vision makes` renders it: calibrated from the sim, 12 discs dropped, the board the sim holds."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from calibration.sim_truth import sim_board, sim_camera, sim_colours
from robot.cli.vision_makes_bench import DROP_COLUMNS
from sim import World, WorldConfig
from sim.room import furnish, room_for
from vision.colour_model import ColourModel
from vision.hole_samples import to_weighted_lab

DISCS = 12
# Weighted Lab: the colour step and the model sample one disc in other places and lights, never this far apart.
SAME_COLOUR = 14.0


def _room(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The frame, its corners, the sim's board (players 1 and 2) and the colour step's colours (player 1 first)."""
    with World(WorldConfig(arm=None)) as world:
        furnish(world, dataclasses.replace(room_for("makes", seed), drift=None))
        board = sim_board(world, sim_camera(world))
        colours = sim_colours(world, board, robot_player=2)
        for index, column in enumerate(DROP_COLUMNS[:DISCS]):
            world.drop_disc(column, 1 + index % 2)
            world.wait_until_settled()
        recorded = np.array([colours.person_bgr, colours.robot_bgr], dtype=np.uint8)
        return world.render_camera(), np.asarray(board.corners_px), world.board_state(), recorded


@pytest.mark.parametrize("seed", [6, 13, 18])
def test_ring_discs_teach_their_ring_s_colour(seed: int) -> None:
    """Seed 6: black and yellow rings before a wooden table; 13: red and yellow rings behind a 9 mm face; 18: black
    and red rings, 16 mm holes."""
    frame, corners, board, recorded = _room(seed)
    model = ColourModel()
    model.learn(frame, corners, board)
    learnt = to_weighted_lab(np.array([model.colours()], dtype=np.uint8))[0]
    expected = to_weighted_lab(recorded[None])[0]
    apart = np.linalg.norm(learnt - expected, axis=1)
    assert (apart < SAME_COLOUR).all(), f"learnt {model.colours()}, the colour step recorded {recorded.tolist()}"


def test_ring_discs_before_the_room_are_not_named_alike_the_empty_holes() -> None:
    """Yellow rings behind a thick white face before a yellow curtain: their middles show the table, their rings
    stand apart from what the empty holes show."""
    frame, corners, board, _ = _room(13)
    model = ColourModel()
    model.learn(frame, corners, board)
    assert model.separation_problem() is None
