"""The simulated arm: its URDF geometry, reach over every column and the dispenser, grip, carry and release."""

from __future__ import annotations

import math

import numpy as np
import pybullet as p
import pytest

from sim import ArmMount, World, WorldConfig

# c4arm.urdf, as documented in its header comment (metres).
SHOULDER_HEIGHT_M = 0.072 + 0.0354
SHOULDER_FORWARD_M = 0.0132
UPPER_ARM_M = 0.142
FOREARM_M = 0.1588
TOOL_FORWARD_M = 0.0445
TOOL_BELOW_WRIST_M = 0.020 + 0.060


def joints_for(world: World, tool_xyz: np.ndarray, tool_yaw: float) -> list[float]:
    """Elbow-up inverse kinematics of c4arm with the tool hanging vertically (checks the documented geometry)."""
    base_xyz, base_quat = world.arm_base_pose()
    rotation = np.array(p.getMatrixFromQuaternion(base_quat)).reshape(3, 3)
    x, y, z = rotation.T @ (np.asarray(tool_xyz) - base_xyz)
    base_yaw = math.atan2(y, x)
    reach = math.hypot(x, y) - TOOL_FORWARD_M - SHOULDER_FORWARD_M
    rise = z + TOOL_BELOW_WRIST_M - SHOULDER_HEIGHT_M
    cos_bend = (reach**2 + rise**2 - UPPER_ARM_M**2 - FOREARM_M**2) / (2 * UPPER_ARM_M * FOREARM_M)
    assert abs(cos_bend) <= 1, f"tool target {tool_xyz} out of reach"
    bend = -math.acos(cos_bend)
    upper_from_horizontal = math.atan2(rise, reach) - math.atan2(
        FOREARM_M * math.sin(bend), UPPER_ARM_M + FOREARM_M * math.cos(bend)
    )
    shoulder = math.pi / 2 - upper_from_horizontal
    elbow = -bend - math.pi / 2
    world_base_yaw = p.getEulerFromQuaternion(base_quat)[2]
    wrist_yaw = (tool_yaw - world_base_yaw - base_yaw + math.pi / 2) % math.pi - math.pi / 2
    return [base_yaw, shoulder, elbow, -(shoulder + elbow), wrist_yaw]


def move_to(world: World, xyz: np.ndarray, yaw: float) -> None:
    world.set_arm_joints(joints_for(world, xyz, yaw))
    tool_xyz, tool_quat = world.tool_pose()
    np.testing.assert_allclose(tool_xyz, xyz, atol=1e-6)
    roll, pitch, tool_yaw = p.getEulerFromQuaternion(tool_quat)
    assert abs(roll) < 1e-6 and abs(pitch) < 1e-6, "the tool must hang vertically"
    assert abs(math.sin(tool_yaw - yaw)) < 1e-6, "the held disc's face must be parallel to the front plate"


def test_the_arm_has_five_joints_with_hobby_speeds() -> None:
    with World() as world:
        limits = world.arm_joint_limits()
        assert (
            [limit.name for limit in limits]
            == world.arm_joint_names()
            == ["base_yaw", "shoulder", "elbow", "wrist_pitch", "wrist_yaw"]
        )
        assert all(0.5 <= limit.velocity_rad_s <= 4.0 and limit.lower_rad < limit.upper_rad for limit in limits)
        assert world.arm_urdf_path.name == "c4arm.urdf"


def test_the_arm_reaches_every_column_and_the_dispenser_within_its_limits() -> None:
    with World() as world:
        targets = [world.slot_entry_pose(column) for column in range(7)] + [world.dispenser_pick_pose()]
        for xyz, yaw in targets:
            for lift_m in (0.0, 0.06):
                move_to(world, xyz + np.array([0.0, 0.0, lift_m]), yaw)


def test_pick_carry_and_release_lands_the_disc_in_the_column() -> None:
    with World(seed=1) as world:
        world.set_dispenser_player(2)
        for column in (0, 6, 6):
            pick_xyz, pick_yaw = world.dispenser_pick_pose()
            move_to(world, pick_xyz + np.array([0.0, 0.0, 0.05]), pick_yaw)
            assert not world.grip(), "nothing to grip 5 cm above the dispenser"
            world.release()
            move_to(world, pick_xyz, pick_yaw)
            assert world.grip()
            disc = world.held_disc
            entry_xyz, entry_yaw = world.slot_entry_pose(column)
            move_to(world, entry_xyz + np.array([0.0, 0.0, 0.05]), entry_yaw)
            waiting = [b for b in world.disc_ids() if np.allclose(world.disc_pose(b)[0], pick_xyz, atol=1e-6)]
            assert len(waiting) == 1 and world.disc_player(waiting[0]) == 2, (
                "the dispenser is refilled once the disc left"
            )
            np.testing.assert_allclose(world.disc_pose(disc)[0], world.tool_pose()[0], atol=1e-9)
            move_to(world, entry_xyz, entry_yaw)
            world.step(0.2)
            np.testing.assert_allclose(world.disc_pose(disc)[0], entry_xyz, atol=1e-6)  # held still while physics runs
            world.release()
            assert world.wait_until_settled(3.0)
            assert world.disc_player(disc) == 2
        expected = np.zeros((6, 7), dtype=np.int8)
        expected[0, 0] = expected[0, 6] = expected[1, 6] = 2
        np.testing.assert_array_equal(world.board_state(), expected)


def test_joint_targets_outside_the_limits_are_refused() -> None:
    with World() as world:
        with pytest.raises(ValueError, match="shoulder"):
            world.set_arm_joints([0.0, 3.0, 0.0, 0.0, 0.0])
        with pytest.raises(ValueError, match="5 joints"):
            world.set_arm_joints([0.0, 0.0])


@pytest.mark.parametrize("name, joints", [("panda", 7), ("kuka", 7)])
def test_a_pybullet_data_arm_can_replace_the_desktop_arm(name: str, joints: int) -> None:
    with World(WorldConfig(arm=ArmMount.pybullet_arm(name))) as world:
        assert len(world.arm_joint_names()) == joints
        start_xyz, _ = world.tool_pose()
        world.set_arm_joints(
            [0.3 * (limit.lower_rad + limit.upper_rad) / 2 + 0.2 for limit in world.arm_joint_limits()]
        )
        world.step(0.1)
        assert np.linalg.norm(world.tool_pose()[0] - start_xyz) > 0.01
