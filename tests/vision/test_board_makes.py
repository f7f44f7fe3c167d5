"""Boards of every make as the reader sees them: a thick face seen from aside hides part of every hole, and the discs
stand deep behind it (vision.parallax, vision.deep_holes)."""

from __future__ import annotations

import numpy as np
import pytest

import vision
from calibration.sim_truth import sim_board, sim_camera
from sim import World
from sim.config import DISC_COLOURS, BoardGeometry
from sim.makes import BOARD_COLOURS, Make
from tests.makes_tables import drop, makes_table
from vision.deep_holes import filling_bgr, seen_thickness
from vision.geometry import grid_points, grid_to_image_homography, project
from vision.parallax import depth_shifts

G = BoardGeometry()
MOVES = (3, 3, 2, 4, 4, 2, 1, 5, 3)  # player 1, 2, 1, ... in these columns
SURE = 0.9


def _make(board: str, letters: str, thickness_m: float) -> Make:
    looks = {"board_rgb": BOARD_COLOURS[board], "disc_rgbs": tuple(DISC_COLOURS[letter][:3] for letter in letters)}
    return Make(board=board, disc_letters=letters, finish="matte", face_thickness_m=thickness_m, **looks)


@pytest.mark.parametrize("view_deg", [(25.0, 15.0), (-38.0, 8.0), (10.0, 30.0)])
def test_where_a_disc_deep_behind_the_face_shows_follows_from_the_face_alone(view_deg) -> None:
    with makes_table(_make("red", "YK", 0.009), view_deg) as world:
        corners = np.asarray(sim_board(world, sim_camera(world)).corners_px)
        faces, discs = world.hole_centres_px(), world.disc_centres_px()
        depth = (G.slot_gap_m / 2 + 0.009) / G.column_pitch_m
    shifts = depth_shifts(corners, (6, 7), (640, 480), depth)
    grid = grid_points((6, 7))[::-1].reshape(-1, 2)
    seen = project(grid_to_image_homography(corners, (6, 7)), grid + shifts).reshape(6, 7, 2)
    assert np.abs(discs - faces).max() > 5, "the discs must sit visibly deeper for the test to mean anything"
    assert np.abs(seen - discs).max() < 0.5


@pytest.mark.parametrize(
    ("thickness_m", "view_deg"), [(0.006, (30.0, 10.0)), (0.010, (-38.0, 8.0)), (0.008, (32.0, -5.0))]
)
def test_a_thick_face_seen_from_aside_is_measured_from_its_holes(thickness_m: float, view_deg) -> None:
    with makes_table(_make("blue", "RY", thickness_m), view_deg) as world:
        corners = np.asarray(sim_board(world, sim_camera(world)).corners_px)
        frame = world.render_camera()
    measured = seen_thickness(frame, corners, (6, 7))
    true = thickness_m / G.column_pitch_m
    assert true - 0.03 <= measured <= true + 0.09, f"{measured:.2f} pitches for a face {true:.2f} thick"


@pytest.mark.parametrize("view_deg", [(0.0, 10.0), (18.0, 10.0)])
def test_a_thin_face_or_a_straight_view_leaves_the_holes_read_as_before(view_deg) -> None:
    thickness_m = 0.003 if view_deg[0] else 0.009
    with makes_table(_make("red", "YK", thickness_m), view_deg) as world:
        corners = np.asarray(sim_board(world, sim_camera(world)).corners_px)
        frame = world.render_camera()
    assert seen_thickness(frame, corners, (6, 7)) == 0.0


def _lens_colours(world: World, corners: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Player 2's and player 1's colours as a colour step taking them in the holes' lenses sees them: a disc of each in
    the bottom corners, then taken out again."""
    discs = [drop(world, 0, 2), drop(world, 6, 1)]
    filling = filling_bgr(world.render_camera(), corners, (6, 7))
    for disc in discs:
        world.remove_disc(disc)
    return filling[0, 0], filling[0, 6]


@pytest.mark.parametrize(
    ("board", "letters", "thickness_m", "view_deg"),
    [
        ("red", "YK", 0.010, (-38.0, 8.0)),
        ("white", "RK", 0.007, (32.0, 20.0)),
        ("blue", "RY", 0.006, (40.0, 5.0)),
        ("blue", "RY", 0.008, (-25.0, -10.0)),
    ],
)
def test_discs_deep_behind_a_thick_face_are_read_right_or_unsure_and_nothing_looks_covered(
    board: str, letters: str, thickness_m: float, view_deg
) -> None:
    with makes_table(_make(board, letters, thickness_m), view_deg) as world:
        corners = np.asarray(sim_board(world, sim_camera(world)).corners_px)
        colours = _lens_colours(world, corners)
        for index, column in enumerate(MOVES):
            drop(world, column, 1 + index % 2)
        truth = world.board_state()
        frame = world.render_camera()
    reading = vision.read(frame, (6, 7), corners, colours)
    expected = np.select([truth == 2, truth == 1], [1, 2], 0)
    right = (reading.grid == expected) & (reading.confidence >= SURE)
    wrong = (reading.grid != expected) & (reading.confidence >= SURE)
    assert not wrong.any(), f"wrong at full confidence in cells {np.argwhere(wrong).tolist()}"
    assert reading.covered is not None and not reading.covered.any(), reading.problems
    assert right[expected > 0].sum() >= 2, f"only {right[expected > 0].sum()} of 9 discs read"
