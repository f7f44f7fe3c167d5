"""Which holes changed only on the side that faces one disc next to them (vision.neighbour_looks): a thick clear
face shows a disc past its rim; a disc dropped in, a hand in front, change more."""

from __future__ import annotations

import numpy as np

from vision.neighbour_looks import _patch_directions, changed_toward_one_disc
from vision.unchanged import PATCH_COUNT, UNCHANGED_DISTANCE

SHAPE = (6, 7)
CHANGED = 3 * UNCHANGED_DISTANCE


def _moved(row: int, column: int, degrees: tuple[float, float]) -> np.ndarray:
    """(holes, PATCH_COUNT): one hole's patches changed where their direction lies from `degrees[0]` round to
    `degrees[1]` (image axes: x right, y down), every other patch as it was."""
    moved = np.full((SHAPE[0] * SHAPE[1], PATCH_COUNT), 1.0)
    past_start = (_patch_directions() - degrees[0]) % 360.0
    changed = past_start <= (degrees[1] - degrees[0]) % 360.0
    assert changed.any()
    moved[row * SHAPE[1] + column, changed] = CHANGED
    return moved


def _discs(*holes: tuple[int, int]) -> np.ndarray:
    discs = np.zeros(SHAPE, dtype=bool)
    for row, column in holes:
        discs[row, column] = True
    return discs


def test_a_hole_changed_on_the_side_of_a_disc_next_to_it_is_explained_by_it():
    right = _moved(0, 3, (-40.0, 10.0))  # the disc at its right shows past its rim, a little up (seen from above)
    assert changed_toward_one_disc(right, _discs((0, 4)))[0, 3]
    below = _moved(1, 4, (90.0, 170.0))  # the disc below shows its top, a little to the left (seen from the right)
    assert changed_toward_one_disc(below, _discs((0, 4)))[1, 4]


def test_a_change_no_disc_next_to_it_faces_is_not_explained():
    right = _moved(0, 3, (-40.0, 10.0))
    assert not changed_toward_one_disc(right, _discs((0, 2)))[0, 3]  # the only disc is on its other side
    assert not changed_toward_one_disc(right, _discs((0, 5)))[0, 3]  # two holes away


def test_a_hole_changed_all_round_is_never_explained_by_discs_on_every_side():
    dropped_in = _moved(1, 3, (-180.0, 179.9))  # a disc dropped into the hole changes its whole ring
    around = _discs((0, 2), (0, 3), (0, 4), (1, 2), (1, 4), (2, 2), (2, 4))
    assert not changed_toward_one_disc(dropped_in, around)[1, 3]
    two_sides = np.maximum(
        _moved(1, 3, (-30.0, 30.0)), _moved(1, 3, (150.0, 210.0))
    )  # a hand across it, left and right
    assert not changed_toward_one_disc(two_sides, around)[1, 3]


def test_a_hole_with_no_look_kept_is_never_explained():
    moved = _moved(0, 3, (-40.0, 10.0))
    moved[3] = np.nan
    assert not changed_toward_one_disc(moved, _discs((0, 4)))[0, 3]
