"""A ring-shaped disc shows the room through its middle: the room the background claims there is left out of how
fully a disc colour covers the hole's ring (vision.ring_coverage), while the room a loose disc's crescent leaves next
to the rim still counts against it. Rooms as `bench vision makes` reads them: calibrated from the sim, 20 discs."""

from __future__ import annotations

import numpy as np

from robot.cli.vision_makes_bench import read_make
from vision.hole_samples import RING_PLANE, RING_SECTOR
from vision.ring_coverage import RING_HOLE_PITCH, coverage

DISCS = 20


def _one_colour_hole(claimed: np.ndarray) -> float:
    """Coverage of one hole whose ring pixels are all the disc's colour but the `claimed` ones (the room's)."""
    distances = np.where(claimed, 50.0, 1.0)[None, None, :]
    return float(coverage(distances, RING_SECTOR, claimed[None, :])[0, 0])


def test_the_room_in_a_ring_disc_s_middle_leaves_it_covered_and_a_crescent_s_open_side_does_not() -> None:
    radius = np.hypot(RING_PLANE[:, 1], RING_PLANE[:, 2])
    assert _one_colour_hole(radius < RING_HOLE_PITCH) > 0.9
    upper_half = RING_PLANE[:, 2] < 0  # rectified: y down
    assert _one_colour_hole(upper_half) < 0.1


def test_ring_discs_before_the_room_read_as_discs() -> None:
    """Black and red rings, 16 mm holes, a 3 mm white face 34 degrees aside: the room shows through every middle."""
    result = read_make(18, DISCS)
    assert result.sure_wrong == 0 and result.discs_right >= 6, result
