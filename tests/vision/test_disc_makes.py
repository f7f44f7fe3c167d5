"""Ring-shaped discs (a hole through the middle, 35 to 50% of the disc's width) read with the table's calibration: the
colour step records the disc, not the room seen through it, and the reader reads them right or honestly unsure, on
boards of several colours and from up to 38 degrees off axis."""

from __future__ import annotations

import numpy as np
import pytest

import vision
from calibration.board import hole_colours
from calibration.sim_truth import sim_board, sim_camera, sim_colours
from sim.config import DISC_COLOURS, BoardGeometry
from sim.makes import BOARD_COLOURS, Make
from tests.makes_tables import makes_table
from vision.hole_samples import sample_holes
from vision.rim_band import shows_a_ring, with_ring_discs

G = BoardGeometry()
MOVES = (3, 3, 2, 4, 4, 2, 1, 5, 3, 5, 1, 2)  # player 1, 2, 1, ... in these columns
SURE = 0.9


def _ring(board: str, letters: str, hole_share: float) -> Make:
    discs = tuple(DISC_COLOURS[letter][:3] for letter in letters)
    return Make(
        board=board,
        disc_letters=letters,
        finish="ring",
        board_rgb=BOARD_COLOURS[board],
        disc_rgbs=discs,
        ring_hole_m=hole_share * G.disc_diameter_m,
    )


@pytest.mark.parametrize(
    ("make", "view_deg", "least_right"),
    [
        (_ring("black", "RW", 0.35), (0.0, 10.0), 12),
        (_ring("black", "RW", 0.35), (-38.0, 8.0), 12),
        (_ring("blue", "RY", 0.50), (0.0, 10.0), 12),
        (_ring("blue", "RY", 0.50), (25.0, 15.0), 0),
        (_ring("red", "YK", 0.42), (0.0, 10.0), 12),
        (_ring("red", "YK", 0.42), (25.0, 15.0), 10),
        (_ring("red", "YK", 0.42), (-38.0, 8.0), 0),  # the ring's hole reaches the rim on one side: unsure
    ],
    ids=["35% black board", "35% 38 deg", "50% blue board", "50% 25 deg", "42% red board", "42% 25 deg", "42% 38 deg"],
)
def test_ring_discs_are_read_right_or_honestly_unsure(
    make: Make, view_deg: tuple[float, float], least_right: int
) -> None:
    with makes_table(make, view_deg) as world:
        board = sim_board(world, sim_camera(world))
        colours = sim_colours(world, board, robot_player=2)
        for index, column in enumerate(MOVES):
            world.drop_disc(column, 1 + index % 2)
            world.wait_until_settled()
        truth = world.board_state()
        frame = world.render_camera()
    reading = vision.read(frame, (6, 7), np.asarray(board.corners_px), (colours.robot_bgr, colours.person_bgr))
    expected = np.select([truth == 2, truth == 1], [1, 2], 0)
    sure = reading.confidence >= SURE
    wrong_sure = (reading.grid != expected) & sure
    assert not wrong_sure.any(), f"wrong at full confidence in cells {np.argwhere(wrong_sure).tolist()}"
    right = int(((reading.grid == expected) & sure & (expected > 0)).sum())
    assert right >= least_right, f"{right} of {int((expected > 0).sum())} discs read right and sure"


def test_the_colour_step_records_a_ring_disc_not_the_room_through_it() -> None:
    with makes_table(_ring("blue", "RY", 0.45), (10.0, 10.0)) as world:
        board = sim_board(world, sim_camera(world))
        world.drop_disc(0, 1)  # red
        world.drop_disc(6, 2)  # yellow
        world.wait_until_settled()
        frame = world.render_camera()
    corners = np.asarray(board.corners_px, float)
    centre = hole_colours(frame, board)
    recorded = with_ring_discs(frame, corners, (6, 7), centre)
    red, yellow = recorded[0, 0], recorded[0, 6]  # BGR
    assert red[2] > 3 * max(red[0], red[1]), f"the red ring recorded as {red}, round its centre {centre[0, 0]}"
    assert min(yellow[1], yellow[2]) > 3 * yellow[0], f"the yellow ring recorded as {yellow}"
    assert np.abs(recorded[3] - centre[3]).max() < 20, "through an empty hole the step sees the wall as before"
    rings = shows_a_ring(sample_holes(frame, corners, (6, 7))).reshape(6, 7)
    assert rings[0, 0] and rings[0, 6]


def test_a_solid_disc_does_not_show_a_ring() -> None:
    solid = Make(board="blue", disc_letters="RY", finish="matte", board_rgb=BOARD_COLOURS["blue"])
    with makes_table(solid, (25.0, 15.0)) as world:
        board = sim_board(world, sim_camera(world))
        for column in range(7):
            world.drop_disc(column, 1 + column % 2)
        world.wait_until_settled()
        frame = world.render_camera()
    rings = shows_a_ring(sample_holes(frame, np.asarray(board.corners_px, float), (6, 7))).reshape(6, 7)
    assert not rings[0].any(), f"solid discs taken for rings in columns {np.flatnonzero(rings[0]).tolist()}"
