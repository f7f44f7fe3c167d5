"""A room nearly a disc's colour in shade, seen through the holes above discs, is never read as discs at full
confidence; the game, which knows those holes empty and sees them unchanged since the empty board, reads them empty.

Sim frame of room 'varied' seed 11 (bench game --rooms 20): a dull olive curtain behind a board of bright yellow
and red discs, read with the exact sim calibration; a column of red, yellow, yellow showed three more yellow discs,
two at confidence 1.0, above them, and with the curtain above discs in every outer column, two of them at 1.0."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import calibration
import vision
from sim import World
from sim.room import furnish, room_for
from vision.hole_samples import sample_holes
from vision.reliability import SURE
from vision.room_lookalikes import room_like_discs
from vision.unchanged import reference_patches, trust_unchanged_empties

SHAPE = (6, 7)
# Bottom to top per column, 1 the red discs, 2 the yellow (sim players): the board of the game that stopped, where
# the curtain shows above three and four discs in columns 1, 2 and 6, and above nothing in the middle.
COLUMNS = [[1, 1, 1, 2], [1, 1, 1], [2], [2, 2], [2], [1, 2, 2, 1], [2, 1, 2]]
DROPS = [(column, player) for column, players in enumerate(COLUMNS) for player in players]


@pytest.fixture(scope="module")
def curtain():
    """(frame, corners, colours, empty reference, occupied holes) of room 'varied' seed 11 after DROPS."""
    with World(seed=11) as world:
        furnish(world, room_for("varied", 11))
        setup = calibration.sim_setup(world)
        corners = np.asarray(setup.board.corners_px)
        reference = reference_patches([sample_holes(world.render_camera(), corners, SHAPE) for _ in range(4)])
        occupied = np.zeros(SHAPE, bool)
        for column, player in DROPS:
            world.drop_disc(column, player)
            world.wait_until_settled()
            occupied[occupied[:, column].sum(), column] = True
        yield world.render_camera(), corners, (setup.colours.robot_bgr, setup.colours.person_bgr), reference, occupied


def test_the_curtain_above_discs_is_never_a_sure_disc(curtain) -> None:
    frame, corners, colours, _, occupied = curtain
    reading = vision.read(frame, SHAPE, corners, colours)
    sure = reading.confidence >= SURE
    wrong = (reading.grid != 0) != occupied
    assert not (wrong & sure).any(), f"wrong at >= 0.9: {np.argwhere(wrong & sure).tolist()}"
    assert sure[occupied].all(), "the real discs, bright in the same light, stay sure"


def test_a_disc_the_room_explains_as_well_is_room_like() -> None:
    """Olive seen through an empty hole explains another olive hole better than yellow does (which a shade of
    yellow still matches within MATCH_RADIUS); a bright yellow disc it does not; without empty holes, no room is
    known."""
    frame = np.zeros((480, 640, 3), np.uint8)
    samples = sample_holes(frame, np.array([[100.0, 100], [400, 100], [400, 350], [100, 350]]), SHAPE)
    olive, yellow = np.array([30.5, -11.5, 51.5]), np.array([31.0, 1.0, 65.0])
    hole_colours = np.tile(olive, (SHAPE[0] * SHAPE[1], 1))
    hole_colours[0] = yellow  # a real yellow disc at the bottom left; above it the olive room read as a disc
    samples = dataclasses.replace(samples, hole_colours=hole_colours)
    grid = np.zeros(SHAPE, np.int8)
    grid[0, 0] = grid[1, 0] = 1
    like = room_like_discs(samples, grid, (yellow,), grid == 0, (0.92, 1.08))
    assert like[1, 0] and not like[0, 0]
    assert not room_like_discs(samples, grid, (yellow,), np.zeros(SHAPE, bool), (0.92, 1.08)).any()
    wood = dataclasses.replace(samples, hole_colours=np.where(np.arange(42)[:, None] < 2, yellow, yellow + 2.0))
    assert not room_like_discs(wood, grid, (yellow,), grid == 0, (0.92, 1.08)).any(), "discs alike: told by shape"


def test_the_game_reads_the_unchanged_curtain_holes_empty(curtain) -> None:
    frame, corners, colours, reference, occupied = curtain
    reading = vision.read(frame, SHAPE, corners, colours)
    trusted = trust_unchanged_empties(reading, frame, corners, ~occupied, reference)
    assert ((trusted.grid != 0) == occupied).all()
    assert (trusted.confidence >= SURE).all()
    kept = reading.confidence >= SURE
    assert (trusted.grid[kept] == reading.grid[kept]).all() and (
        trusted.confidence[kept] == reading.confidence[kept]
    ).all()
