"""The empty board's look is taken again from every confirmed frame for the holes the game knows empty
(vision.unchanged.refreshed_reference): light that drifted since is learnt, a forearm in front of a few holes is not.
Before a clear board in dim light even an opaque dark forearm changes its holes by less than a disc does (its skin
is nearly the room's hue, seen darker); it changes them otherwise than the rest of the board, which drift never does.
The room as `bench game rooms --room makes` draws it for seed 12: a clear 3 mm face before a red wall, light 31%."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np
import pytest

from calibration.sim_truth import sim_board, sim_camera
from sim import World, WorldConfig
from sim.room import furnish, room_for
from vision.hole_samples import sample_holes
from vision.unchanged import reference_patches, refreshed_reference

SHAPE = (6, 7)
DARK_SKIN_BGR = (40, 60, 110)
DRIFT = 1.08  # the webcam's exposure up by 8% since the empty board's frames


@pytest.fixture(scope="module")
def clear_board() -> tuple[list[np.ndarray], np.ndarray]:
    """Three frames of seed 12's empty clear board, and its corners."""
    with World(WorldConfig(arm=None)) as world:
        furnish(world, dataclasses.replace(room_for("makes", 12), drift=None))
        corners = np.asarray(sim_board(world, sim_camera(world)).corners_px)
        return [world.render_camera() for _ in range(3)], corners


def _with_forearm(frame: np.ndarray, corners: np.ndarray) -> np.ndarray:
    """`frame` with a forearm from the camera's right across the bottom right holes, in light drifted by DRIFT."""
    start = np.asarray(corners[3]) * 0.3 + np.asarray(corners[2]) * 0.7
    pitch = np.linalg.norm(np.asarray(corners[1]) - corners[0]) / (SHAPE[1] - 1)
    forearm = cv2.line(
        frame.copy(),
        tuple(int(v) for v in start),
        (frame.shape[1], int(start[1]) - int(2 * pitch)),
        DARK_SKIN_BGR,
        int(1.5 * pitch),
    )
    return np.clip(forearm * DRIFT, 0, 255).astype(np.uint8)


def test_a_forearm_before_a_clear_board_is_not_learnt_into_the_empty_look(clear_board) -> None:
    empties, corners = clear_board
    reference = reference_patches([sample_holes(each, corners, SHAPE) for each in empties[:2]])
    frame = _with_forearm(empties[2], corners)
    refreshed = refreshed_reference(reference, frame, corners, SHAPE, np.ones(SHAPE, dtype=bool))
    renewed = (refreshed != reference).any(axis=(1, 2)).reshape(SHAPE)
    assert not renewed[:2, 4:].any(), renewed[::-1].astype(int)  # under the forearm
    assert renewed[2:, :4].all(), renewed[::-1].astype(int)  # the drifted light, where nothing is in front
