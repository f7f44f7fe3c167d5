"""The watcher learns the disc colours where the game's board was judged: at the calibrated corners, not at corners
the reader refined onto a thick face's lit tunnel walls (issue 37: rooms seed 4, robot second, learnt its yellow as
the white face's grey and then never saw its own disc); and a lattice found elsewhere that explains the frame no
better than the calibrated corners is no moved board (seed 8 was told its board had moved at the game's start)."""

from __future__ import annotations

import numpy as np

from engine import Position
from robot.game.config import SimTableConfig
from robot.game.sim_table import SimGame
from tests.watched_drops import drop_and_confirm
from vision.hole_samples import to_weighted_lab


def _lab(bgr) -> np.ndarray:
    return to_weighted_lab(np.uint8(bgr).reshape(1, 1, 3))[0, 0]


def test_colours_learnt_on_a_thick_face_in_drifting_light_stay_the_discs():
    # Seed 4's white board has an 8 mm face seen 32 degrees aside, and its light drifts: the reader refines the
    # calibrated corners a quarter pitch onto the tunnels' walls, where a disc's lens shows the face.
    with SimGame(SimTableConfig(seed=4, opponent="engine:5", room="makes"), False, tell=lambda _: None) as game:
        watcher = game.watcher
        calibrated = watcher.colours
        position = Position.empty()
        watcher.know(position.to_array())
        for column, at_s in ((6, 9.0), (3, 11.0), (6, 18.0), (3, 19.3)):  # the person's red, the robot's yellow
            position = drop_and_confirm(game, position, column, robot=2, at_s=at_s)
        face = _lab(watcher.face)
        for learnt, before in zip(watcher.colours, calibrated, strict=True):
            assert np.linalg.norm(_lab(learnt) - _lab(before)) < np.linalg.norm(_lab(learnt) - face) / 2


def test_a_lattice_of_the_board_s_own_holes_found_aside_is_no_moved_board():
    # Seed 8's black board seen 34 degrees aside: its holes' dark tunnels make a lattice a column narrower, 44 px off
    # the calibrated corners, that reads clean but unsure where the calibrated corners read the empty board surely.
    with SimGame(SimTableConfig(seed=8, opponent="engine:5", room="makes"), False, tell=lambda _: None) as game:
        watcher = game.watcher
        watcher.know(np.zeros((6, 7), np.int8))
        assert watcher.board_moved_px(watcher.camera.read()) is None
