"""Rooms of `bench vision makes` whose boards the reader read confidently wrong or could not read: ring and speckled
discs behind 9-10 mm faces seen from aside (the crescent a disc in its slot shows there proves no empty hole), discs
whose hole shows its inner wall beside them (still discs, read sure), and the colour step behind a thick red face
(the disc, not the tunnel's wall). Each room as the bench reads it: calibrated from the sim, 20 discs dropped."""

from __future__ import annotations

import dataclasses

import pytest

from calibration.sim_truth import sim_board, sim_camera, sim_colours
from robot.cli.vision_makes_bench import read_make
from sim import World, WorldConfig
from sim.room import furnish, room_for

DISCS = 20


@pytest.mark.parametrize("seed", [13, 16, 17, 20])
def test_discs_behind_a_thick_face_are_never_read_empty_at_full_confidence(seed: int) -> None:
    result = read_make(seed, DISCS)
    assert not result.refused and result.sure_wrong == 0, result


@pytest.mark.parametrize("seed", [4, 11])
def test_discs_whose_hole_shows_its_wall_beside_them_are_read_sure(seed: int) -> None:
    result = read_make(seed, DISCS)
    assert result.sure_wrong == 0 and result.discs_right >= DISCS - 2, result


def test_the_colour_step_records_a_disc_behind_a_thick_face_not_the_tunnel_wall() -> None:
    """Speckled yellow discs behind a red 10 mm face seen 25 degrees aside: the centre of the bottom corner hole
    shows the red wall beside the disc; recorded with it, the yellow turns orange and matches none of its discs."""
    with World(WorldConfig(arm=None)) as world:
        furnish(world, dataclasses.replace(room_for("makes", 17), drift=None))
        board = sim_board(world, sim_camera(world))
        yellow = sim_colours(world, board, robot_player=2).robot_bgr
    blue, green, red = yellow
    assert green >= 0.8 * red and blue < 0.5 * green, f"the yellow discs recorded as {yellow} (BGR)"
