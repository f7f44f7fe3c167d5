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
    assert stats.turns == 12 and min(stats.upsets.values()) >= 1, stats.upsets
    assert stats.unreported == [], stats.unreported
    assert stats.landed_right + stats.landed_elsewhere + len(stats.named_errors) == 12
    assert stats.picks_missed >= stats.upsets["jam"], "a jammed feed is a missed pick, picked again"
    lost_in_a_row = sum("discs in a row" in error for error in stats.named_errors)
    lost = stats.lost_in_transit + stats.lost_after_release
    assert stats.lost_after_release >= 1 and stats.fetched_again >= 1
    assert lost == stats.lost_fell_in_board + stats.fetched_again + lost_in_a_row


def test_a_flick_as_the_jaws_open_is_not_felt_and_the_disc_is_not_on_the_board() -> None:
    """The gripper's sense cannot catch a disc lost after the release: only looking at the board can."""
    from robot.arm.drivers.sim import SimArm, sim_planner
    from robot.arm.planner import play_column
    from sim import World, WorldConfig
    from sim.config import ArmMount
    from sim.upsets import knock_on_release

    with World(WorldConfig(arm=ArmMount.named("c4arm"))) as world:
        planner = sim_planner(world)
        world.set_arm_joints(planner.home_q)
        knock_on_release(world, (0.0, -8.0, 0.0))  # towards the person, out of the funnel
        play_column(SimArm(world), planner, 3)  # no DiscLostError: the jaws held it all the way
        world.wait_until_settled(1.0)
        assert not world.board_state().any()
        assert not world.actors, "the flick happened"
