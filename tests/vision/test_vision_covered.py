"""A covered board (a hand, a sheet, a grey frame) is not read as an empty board, even with known corners; a hand
over part of a rendered sim frame is named per hole; a sleeve over one edge of the board does not move a calibrated
lattice off the board."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision import MoveKind, detect_move, read
from vision.synthetic_hand import add_hand

SURE = 0.9


@pytest.fixture(scope="module")
def sim_frame_and_corners():
    from calibration.board import corners_of
    from sim import World, WorldConfig

    with World(WorldConfig(), seed=1) as world:
        world.drop_disc(3, 1)
        world.wait_until_settled()
        world.drop_disc(4, 2)
        world.wait_until_settled()
        return world.render_camera(), corners_of(np.asarray(world.hole_centres_px(), float))


def test_the_uncovered_board_is_found(sim_frame_and_corners) -> None:
    frame, corners = sim_frame_and_corners
    reading = read(frame, (6, 7), corners)
    assert reading.is_board_found
    assert reading.grid.sum() > 0


@pytest.mark.parametrize("cover_bgr", [(128, 128, 128), (60, 80, 150)])
def test_a_covered_board_is_not_found(sim_frame_and_corners, cover_bgr: tuple[int, int, int]) -> None:
    frame, corners = sim_frame_and_corners
    covered = frame.copy()
    covered[60:420, 60:580] = cover_bgr  # a hand or a sheet over the whole board
    reading = read(covered, (6, 7), corners)
    assert not reading.is_board_found
    assert any("covers" in problem for problem in reading.problems)


def test_a_hand_in_a_rendered_sim_frame_is_named(sim_frame_and_corners) -> None:
    frame, corners = sim_frame_and_corners
    clear = read(frame, (6, 7), corners)
    assert not clear.covered.any()
    for seed in range(3):
        rng = np.random.default_rng(seed)
        hand = add_hand(frame, clear.corners, (6, 7), 0.2, rng)
        reading = read(hand.image, (6, 7), corners, clear.colours_bgr)
        hidden = hand.hidden >= 0.5
        assert reading.covered[hidden].mean() >= 0.8, hand.scene
        assert detect_move(clear.grid, reading, 2).kind is MoveKind.COVERED
        wrong = (reading.grid != clear.grid) & (reading.confidence >= SURE)
        assert not wrong.any(), hand.scene


def test_a_sleeve_over_the_right_edge_leaves_the_calibrated_lattice_where_it_is() -> None:
    """A frame of `bench game --rooms` (seed 26, cropped): a blue sleeve over columns 3-7 and past the board's right
    edge, a purple wall nearly the face's colour left of the board. Moving the lattice a column away from the sleeve
    once left fewer holes covered, so the reader read the board a column off (the wall as column 1)."""
    frame = cv2.imread(str(Path(__file__).parent / "data" / "sim_sleeve_over_right_edge.png"))
    corners = np.array([[93.9, 64.7], [355.2, 64.8], [348.1, 257.0], [99.6, 258.2]])
    reading = read(frame, (6, 7), corners, ((8.0, 9.0, 127.0), (6.0, 122.0, 155.0)), (111, 35, 14))
    assert np.abs(reading.corners - corners).max() < 3.0
    assert reading.covered_columns == [2, 3, 4, 5, 6]
