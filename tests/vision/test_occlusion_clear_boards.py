"""A clear face seen from aside shows each disc whole behind it, shifted past its hole's rim as far as the gaps
between holes: that disc is no hand or sleeve in front of the board, but a patch of a disc's colour over a hole all
round still is. The room as `bench game rooms --room makes` draws it for seed 19: a clear 10 mm face, red and blue
discs, the webcam 39 degrees aside."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import cv2
import numpy as np
import pytest

import vision
from calibration.sim_truth import sim_board, sim_camera, sim_colours
from sim import World, WorldConfig
from sim.room import furnish, room_for
from vision.hole_samples import RAY_COUNT, face_colour, sample_holes, to_weighted_lab
from vision.occlusion import rays_off_the_face
from vision.reliability import SURE
from vision.unchanged import as_on_empty_board, reference_patches

SHAPE = (6, 7)
ROBOT_COLUMN = 3


@pytest.fixture(scope="module")
def robot_dropped() -> tuple:
    """Seed 19's clear board with the robot's disc in the middle column: the frame, the world's board in the
    reader's values (1 the robot's), the corners, the colours (the robot's first), the empty board's face and
    look."""
    with World(WorldConfig(arm=None)) as world:
        furnish(world, dataclasses.replace(room_for("makes", 19), drift=None))
        board = sim_board(world, sim_camera(world))
        colours = sim_colours(world, board, robot_player=2)
        corners = np.asarray(board.corners_px)
        empties = [world.render_camera() for _ in range(2)]
        world.drop_disc(ROBOT_COLUMN, 2)
        world.wait_until_settled()
        frame, truth = world.render_camera(), np.select([world.board_state() == 2], [1], 0)
    reference = reference_patches([sample_holes(each, corners, SHAPE) for each in empties])
    face = face_colour(empties, corners, SHAPE)
    return frame, truth, corners, (colours.robot_bgr, colours.person_bgr), face, reference


def _read(frame: np.ndarray, corners: np.ndarray, colours: tuple, face, reference: np.ndarray) -> vision.BoardReading:
    """As the game reads it: the empty board known, its face and its look."""
    clear = as_on_empty_board(frame, corners, SHAPE, reference)
    return vision.read(frame, SHAPE, corners, colours, face, known=np.zeros(SHAPE, int), as_on_empty_board=clear)


def test_a_disc_seen_through_a_clear_face_past_its_rim_is_no_sleeve(robot_dropped) -> None:
    frame, truth, corners, colours, face, reference = robot_dropped
    reading = _read(frame, corners, colours, face, reference)
    assert not reading.covered_holes.any(), reading.problems
    assert not ((reading.grid != truth) & (reading.confidence >= SURE)).any(), (reading.grid, reading.confidence)


def test_a_patch_of_a_disc_s_colour_over_a_hole_all_round_is_still_in_front(robot_dropped) -> None:
    frame, _, corners, colours, face, reference = robot_dropped
    sleeve = frame.copy()
    # A sleeve of the robot's disc colour over the holes of columns 6-7, rows 3-4, and the face round them.
    across = (np.asarray(corners[1]) - corners[0]) / (SHAPE[1] - 1)
    centre = np.mean([corners[1], corners[2]], axis=0) - across / 2
    pitch = np.linalg.norm(across)
    cv2.circle(sleeve, tuple(int(v) for v in centre), int(1.3 * pitch), tuple(int(v) for v in colours[0]), -1)
    reading = _read(sleeve, corners, colours, face, reference)
    assert reading.covered_holes.any(), (reading.grid, reading.problems)


def test_two_discs_side_by_side_behind_a_clear_face_are_not_in_front_of_each_other() -> None:
    """Rooms seed 10 (a clear 8 mm face, blue and yellow ring discs, the robot's dark body behind the board), the
    robot's yellow disc in column 1 beside the person's blue one: between them the face ring shows the shaded edges
    of both rings, neither a disc's colour nor the face, and the yellow disc was named covered until the game
    stopped. The frame as the game saw it, cut to the board, with the watcher's face and colours."""
    frame = cv2.imread(str(Path(__file__).parent / "data" / "sim_clear_board_discs_side_by_side.png"))
    corners = np.array([[45.7, 37.4], [307.3, 47.7], [306.1, 242.4], [47.0, 258.4]])
    samples = sample_holes(frame, corners, SHAPE)
    face = to_weighted_lab(np.array([[[76, 65, 61]]], np.uint8))[0, 0]
    colours = to_weighted_lab(np.array([[[115, 23, 6], [19, 157, 195]]], np.uint8))[0]
    off = rays_off_the_face(dataclasses.replace(samples, face=face), colours)
    towards_blue = [RAY_COUNT - 1, 0, 1]  # from column 1's bottom hole to column 2's, rectified x right
    assert not off[0, towards_blue].any(), off[0].astype(int)


def test_a_ring_disc_seen_far_aside_through_a_clear_face_is_no_sleeve() -> None:
    """Rooms seed 12 (a clear 3 mm face, yellow and red ring discs, the webcam 38 degrees aside): the person's yellow
    disc in column 5 row 3 reaches the gap at its upper right, as every disc of the board does, and its edge shows
    on the face ring on the far side too; a sleeve over the hole would show its colour out to the ring's outer edge
    there, the disc does not. It was named covered until the game stopped. The frame as the game saw it, cut to the
    board, with the watcher's face and colours."""
    frame = cv2.imread(str(Path(__file__).parent / "data" / "sim_clear_board_ring_discs_far_aside.png"))
    corners = np.array([[33.6, 33.7], [274.6, 77.3], [256.1, 265.5], [49.3, 196.3]])
    samples = sample_holes(frame, corners, SHAPE)
    face = to_weighted_lab(np.array([[[49, 52, 62]]], np.uint8))[0, 0]
    colours = to_weighted_lab(np.array([[[4, 73, 90], [0, 4, 69]]], np.uint8))[0]
    off = rays_off_the_face(dataclasses.replace(samples, face=face), colours)
    assert not off[2 * SHAPE[1] + 4].any(), off[2 * SHAPE[1] + 4].astype(int)
