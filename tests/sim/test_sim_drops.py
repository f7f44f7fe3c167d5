"""Drop trials and the board's generated plate mesh."""

from __future__ import annotations

import numpy as np

from sim import BoardGeometry
from sim.board_mesh import plate_mesh
from sim.drops import run_drop_trials


def test_a_short_drop_trial_lands_every_disc() -> None:
    stats = run_drop_trials(50, seed=5)
    assert (stats.drops, stats.landed_right, stats.wrong_cell, stats.stuck, stats.out) == (50, 50, 0, 0, 0)
    assert stats.sim_s > 50 * 0.1 and stats.success_rate == 1.0


def test_plate_mesh_covers_the_plate_except_the_holes() -> None:
    geometry = BoardGeometry()
    vertices, faces = plate_mesh(geometry, -0.007, -0.004, segments=64)
    front = [face for face in faces if np.allclose(vertices[face][:, 1], -0.007)]
    corners = vertices[np.array(front)][:, :, [0, 2]]
    edge1, edge2 = corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0]
    signed_areas = (edge1[:, 0] * edge2[:, 1] - edge1[:, 1] * edge2[:, 0]) / 2
    assert (signed_areas > 0).all(), "front triangles face the camera (counter-clockwise seen from -y)"
    holes = geometry.rows * geometry.columns * np.pi * (geometry.hole_diameter_m / 2) ** 2
    plate = geometry.plate_width_m * geometry.plate_top_m
    np.testing.assert_allclose(signed_areas.sum(), plate - holes, rtol=2e-3)


def test_carried_drops_with_upsets_land_or_are_told() -> None:
    from robot.game.carry_trials import run_carry_trials

    stats = run_carry_trials(12, seed=3, upset_fraction=0.6)
    assert stats.turns == 12 and sum(stats.upsets.values()) >= 4
    assert stats.unreported == [], stats.unreported
    assert stats.landed_right + stats.landed_elsewhere + len(stats.named_errors) == 12
    assert stats.picks_missed >= stats.upsets["jam"], "a jammed feed is a missed pick, picked again"
    assert stats.lost_in_transit == stats.lost_fell_in_board + stats.fetched_again + len(stats.named_errors)
