"""A glossy board's glare spot is on the empty board already: however unlike the face it looks, it is nothing in front
of the board (vision.unchanged keeps the empty board's face ray by ray), and a finger that hides it still is. The
room as `bench game rooms --room makes` draws it for seed 27: a red 3 mm face, translucent blue and yellow discs, one
glare spot of 6 mm just below column 6's third hole, the webcam 28 degrees aside; its light held still but where a
test turns the exposure."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np
import pytest

import vision
from calibration import sim_setup
from robot.game.sim_table import ROBOT_DISCS
from robot.game.watcher import EMPTY_REFERENCE_FRAMES
from sim import World, WorldConfig
from sim.camera import glare_outlines_px
from sim.config import ArmMount
from sim.room import furnish, room_for
from vision.hole_samples import face_colour, sample_holes
from vision.reliability import SURE
from vision.synthetic_hand import SKIN_TONES_BGR
from vision.unchanged import (
    as_on_empty_board,
    face_rays_as_on_empty_board,
    insides_as_on_empty_board,
    reference_patches,
)

SHAPE = (6, 7)
SEED = 27
# The discs round the glare spot (column, player; 0-based), the robot's (the first colour) player 1.
DROPS = ((5, 1), (5, 2), (4, 2), (6, 1), (5, 1))
GLARE_COLUMN = 5


@dataclasses.dataclass
class GlossyBoard:
    world: World
    corners: np.ndarray
    colours: tuple
    face: np.ndarray
    reference: np.ndarray
    known: np.ndarray

    def frame(self, exposure: float = 1.0) -> np.ndarray:
        """The board as the webcam shows it now, its exposure times `exposure`."""
        camera = self.world.camera
        self.world.set_camera(dataclasses.replace(camera, exposure=camera.exposure * exposure))
        try:
            return self.world.render_camera()
        finally:
            self.world.set_camera(camera)

    def read(self, frame: np.ndarray) -> vision.BoardReading:
        """`frame` read as the game's watcher reads it: the empty board and the board the game knows."""
        return vision.read(
            frame,
            SHAPE,
            self.corners,
            self.colours,
            self.face,
            known=self.known,
            as_on_empty_board=as_on_empty_board(frame, self.corners, SHAPE, self.reference),
            empty_insides=insides_as_on_empty_board(frame, self.corners, SHAPE, self.reference) & (self.known == 0),
            unchanged_rays=face_rays_as_on_empty_board(frame, self.corners, SHAPE, self.reference),
        )


@pytest.fixture(scope="module")
def glossy_red_board():
    """The room's empty board kept as a game keeps it, then the discs round the glare spot dropped."""
    with World(WorldConfig(arm=ArmMount.named("c4arm")), seed=SEED) as world:
        furnish(world, dataclasses.replace(room_for("makes", SEED), drift=None))
        setup = sim_setup(world, ROBOT_DISCS)
        corners = np.asarray(setup.board.corners_px, np.float64)
        empties = [world.render_camera() for _ in range(EMPTY_REFERENCE_FRAMES)]
        known = np.zeros(SHAPE, np.int8)
        for column, player in DROPS:
            world.drop_disc(column, player)
            world.wait_until_settled()
            known[np.count_nonzero(known[:, column]), column] = player
        yield GlossyBoard(
            world,
            corners,
            (setup.colours.robot_bgr, setup.colours.person_bgr),
            face_colour(empties, corners, SHAPE),
            reference_patches([sample_holes(each, corners, SHAPE) for each in empties]),
            known,
        )


@pytest.mark.parametrize("exposure", [1.0, 0.91, 1.09])
def test_a_glare_spot_on_the_empty_board_covers_no_column(glossy_red_board: GlossyBoard, exposure: float) -> None:
    """The glare on the face round column 6's holes, as it was on the empty board, in the light as it was and as a
    webcam's exposure drifts: the game named column 6 covered again and again, no hand near."""
    reading = glossy_red_board.read(glossy_red_board.frame(exposure))
    assert reading.covered_columns == [], reading.problems
    known = glossy_red_board.known
    assert not ((reading.grid != known) & (reading.confidence >= SURE)).any(), (reading.grid, reading.confidence)


@pytest.mark.parametrize("degrees", [90, 45, -45])
@pytest.mark.parametrize("tone", [2, 7])
def test_a_finger_over_the_glare_spot_covers_its_column(glossy_red_board: GlossyBoard, degrees: int, tone: int) -> None:
    """A finger as wide as vision.occlusion looks for (0.3 pitch), its tip on the glare spot, reaching a pitch away
    from it (down, or aslant; the image's y down) across the face round column 6's holes, light skin or dark: it hides
    rays the empty board showed glare on, and its column is named covered."""
    board = glossy_red_board
    frame = board.frame()
    spot = glare_outlines_px(board.world.camera)[0].mean(axis=0)
    pitch = float(np.linalg.norm(board.corners[2] - board.corners[3])) / (SHAPE[1] - 1)
    reach = pitch * np.array([np.cos(np.radians(degrees)), np.sin(np.radians(degrees))])
    tip, base = (tuple(int(v) for v in np.round(point)) for point in (spot, spot + reach))
    cv2.line(frame, tip, base, SKIN_TONES_BGR[tone], round(0.3 * pitch))
    assert GLARE_COLUMN in board.read(frame).covered_columns
