"""The planner and the sim driver in the PyBullet world: every column lands, limits hold, the board is never touched."""

from __future__ import annotations

import numpy as np
import pybullet
import pytest

from robot.arm.drivers.sim import SimArm, sim_planner
from robot.arm.kinematics import UnreachableError
from robot.arm.planner import PICK_ATTEMPTS, DiscLostError, PickMissedError, ToolPose, play_column
from sim import World
from sim.upsets import jam_dispenser, knock_in_carry, run_out_dispenser

SAMPLE_S = 0.004


@pytest.fixture()
def world():
    with World(seed=1) as w:
        yield w


def test_every_column_gets_its_disc(world: World) -> None:
    planner = sim_planner(world)
    arm = SimArm(world)
    world.set_arm_joints(planner.home_q)
    player = world.dispenser_player
    for column in range(7):
        result = play_column(arm, planner, column)
        assert result.gripped and result.arm_s > 0
        assert world.wait_until_settled(5.0)
        assert world.board_state()[0, column] == player, f"column {column + 1}:\n{world.board_state()[::-1]}"
    assert int(np.count_nonzero(world.board_state())) == 7
    np.testing.assert_allclose(arm.joint_state(), planner.home_q, atol=1e-3)


def _touches_board(world: World, body: int, margin_m: float) -> bool:
    return any(
        pybullet.getClosestPoints(body, part, margin_m, physicsClientId=world.client) for part in world.board.body_ids
    )


def test_turns_respect_limits_and_keep_clear_of_the_board(world: World) -> None:
    planner = sim_planner(world)
    velocity = np.array(planner.limits.velocity_rad_s)
    acceleration = np.array(planner.limits.acceleration_rad_s2)
    for column in (0, 3, 6):
        plan = planner.plan(column)
        world.set_arm_joints(planner.home_q)
        for step in plan.turn_steps + plan.home_steps:
            if step.kind == "grip":
                assert world.grip()
            elif step.kind == "release":
                world.release()
            if step.trajectory is None:
                continue
            times = np.arange(0.0, step.trajectory.duration_s + SAMPLE_S, SAMPLE_S)
            q = np.array([step.trajectory.position(t) for t in times])
            assert np.all(q >= planner.chain.lower - 1e-9) and np.all(q <= planner.chain.upper + 1e-9)
            qd = np.diff(q, axis=0) / SAMPLE_S
            assert np.all(np.abs(qd) <= velocity * 1.01)
            assert np.all(np.abs(np.diff(qd, axis=0) / SAMPLE_S) <= acceleration * 1.1)
            for position in q[::5]:
                world.set_arm_joints(position)
                assert not _touches_board(world, world.arm.body, 0.002), f"arm touches the board during {step.label}"
                if world.held_disc is not None:
                    assert not _touches_board(world, world.held_disc, 0.001), (
                        f"held disc touches the board during {step.label}"
                    )


def test_inverse_kinematics_under_half_a_millimetre_over_the_board(world: World) -> None:
    planner = sim_planner(world)
    drops = planner.workcell.drops
    seed = planner.home_q
    worst = 0.0
    for drop in drops:
        for height in (0.0, 0.02, 0.05, 0.08):
            for across in (-0.01, 0.0, 0.01):
                x, y, z = drop.position_m
                pose = ToolPose((x + across, y, z + height), drop.yaw_rad)
                q, _ = planner.solve(pose, seed)
                reached = planner.chain.forward(q)
                worst = max(worst, float(np.linalg.norm(reached[:3, 3] - np.array(pose.position_m))))
                assert planner.chain.is_within_limits(q)
    assert worst < 0.5e-3


def test_bad_column_and_unreachable_pose_are_clear_errors(world: World) -> None:
    planner = sim_planner(world)
    with pytest.raises(ValueError, match="column 8 is not on the board"):
        planner.plan(7)
    with pytest.raises(UnreachableError, match="out of reach"):
        planner.solve(ToolPose((1.0, 0.0, 0.0), 0.0), planner.home_q)


def _at_home(world: World):
    planner = sim_planner(world)
    arm = SimArm(world)
    world.set_arm_joints(planner.home_q)
    return planner, arm


def test_a_jammed_feed_is_picked_again_and_the_disc_lands() -> None:
    with World(seed=4) as world:
        planner, arm = _at_home(world)
        jam_dispenser(world)
        result = play_column(arm, planner, 2)
        assert result.picks_missed == 1
        assert world.wait_until_settled(5.0) and world.board_state()[0, 2] == world.dispenser_player


@pytest.mark.parametrize("base_error_deg", [2.8, -2.8])
def test_a_disc_a_miscalibrated_arm_misses_is_found_beside_the_pick(base_error_deg: float) -> None:
    """The base servo's zero off by 2.8 degrees puts the jaws ~8.5 mm beside the dispenser's disc, beyond the
    open jaws' 6 mm slack: the first grip closes on nothing, a grip beside it takes the disc."""
    with World(seed=4) as world:
        planner, arm = _at_home(world)
        arm.miscalibrate(np.radians([base_error_deg, 0.0, 0.0, 0.0, 0.0]))
        np.testing.assert_allclose(arm.joint_state(), planner.home_q, atol=1e-9)
        result = play_column(arm, planner, 3)
        assert result.picks_missed in (1, 2)
        assert world.wait_until_settled(5.0) and world.board_state()[0, 3] == world.dispenser_player


def test_an_empty_dispenser_is_a_named_error_after_the_last_pick() -> None:
    with World(seed=4) as world:
        planner, arm = _at_home(world)
        run_out_dispenser(world)
        with pytest.raises(PickMissedError, match=f"closed on nothing at the dispenser {PICK_ATTEMPTS} times"):
            play_column(arm, planner, 2)
        assert not world.is_gripping() and not world.board_state().any()


def test_a_disc_torn_out_on_the_way_is_sensed_before_the_release() -> None:
    with World(seed=5) as world:
        planner, arm = _at_home(world)
        knock_in_carry(world, 1.4, (0.0, 0.0, 80.0))  # over the board, hard enough to tear it out
        with pytest.raises(DiscLostError, match="slipped out of the gripper on the way to column 6"):
            play_column(arm, planner, 5)
        assert world.discs_slipped == 1 and not arm.status().gripping
        np.testing.assert_allclose(arm.joint_state(), planner.home_q, atol=1e-3)
