"""The simulated arm: its URDF geometry, reach over every column and the dispenser, grip, carry and release."""

from __future__ import annotations

import math

import numpy as np
import pybullet as p
import pytest

from sim import ArmMount, World, WorldConfig
from sim.grip import MIN_CONTACT_M2, pad_contact_m2
from sim.upsets import jam_dispenser, knock_held_disc

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


def glide_to(world: World, xyz: np.ndarray, yaw: float) -> None:
    """Move the tool to (xyz, yaw) smoothly within the joints' speeds, a joint target every 1/120 s as the
    arm drivers do."""
    start, goal = world.arm_joints(), np.array(joints_for(world, xyz, yaw))
    speeds = np.array([limit.velocity_rad_s for limit in world.arm_joint_limits()])
    periods = round(max(0.2, 2.0 * float(np.max(np.abs(goal - start) / speeds))) * 120)
    for k in range(1, periods + 1):
        s = k / periods
        world.set_arm_joints(start + (goal - start) * (3 * s**2 - 2 * s**3))
        world.step(1 / 120)


def test_pick_carry_and_release_lands_the_disc_in_the_column() -> None:
    with World(seed=1) as world:
        world.set_dispenser_player(2)
        for column in (0, 6, 6):
            pick_xyz, pick_yaw = world.dispenser_pick_pose()
            glide_to(world, pick_xyz + np.array([0.0, 0.0, 0.05]), pick_yaw)
            assert not world.grip(), "nothing to grip 5 cm above the dispenser"
            world.release()
            glide_to(world, pick_xyz, pick_yaw)
            assert world.grip() and world.is_gripping()
            disc = world.held_disc
            entry_xyz, entry_yaw = world.slot_entry_pose(column)
            glide_to(world, pick_xyz + np.array([0.0, 0.0, 0.08]), pick_yaw)
            glide_to(world, entry_xyz + np.array([0.0, 0.0, 0.08]), entry_yaw)
            waiting = [b for b in world.disc_ids() if np.allclose(world.disc_pose(b)[0], pick_xyz, atol=1e-6)]
            assert len(waiting) == 1 and world.disc_player(waiting[0]) == 2, (
                "the dispenser is refilled once the disc left"
            )
            assert np.linalg.norm(world.disc_pose(disc)[0] - world.tool_pose()[0]) < 0.002, "carried in the jaws"
            glide_to(world, entry_xyz, entry_yaw)
            world.step(0.2)
            assert np.linalg.norm(world.disc_pose(disc)[0] - entry_xyz) < 0.001, "held still while physics runs"
            world.release()
            assert not world.is_gripping()
            assert world.wait_until_settled(3.0)
            assert world.disc_player(disc) == 2
        assert world.discs_slipped == 0
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


def _at_the_dispenser(world: World) -> np.ndarray:
    pick_xyz, pick_yaw = world.dispenser_pick_pose()
    glide_to(world, pick_xyz + np.array([0.0, 0.0, 0.05]), pick_yaw)
    glide_to(world, pick_xyz, pick_yaw)
    return pick_xyz


def test_the_pads_cover_a_centred_disc_and_miss_a_low_one() -> None:
    assert pad_contact_m2(0.0, 0.0, 0.0159) > 80e-6
    assert pad_contact_m2(0.0, -0.009, 0.0159) < MIN_CONTACT_M2  # 9 mm low: the pads only graze its rim
    assert pad_contact_m2(0.0, -0.02, 0.0159) == 0.0


@pytest.mark.parametrize(
    "shift_m, tilt_rad",
    [((0.0, 0.0, -0.012), 0.0), ((0.0, 0.008, 0.0), 0.0), ((0.0, 0.0, 0.0), math.radians(30))],
    ids=["sunk 12 mm", "8 mm beside the jaws", "leaning 30 degrees"],
)
def test_the_jaws_take_only_a_disc_they_touch(shift_m: tuple[float, float, float], tilt_rad: float) -> None:
    with World(seed=2) as world:
        pick_xyz = _at_the_dispenser(world)
        disc = world.dispenser.waiting
        orientation = p.getQuaternionFromEuler((math.pi / 2 + tilt_rad, 0.0, 0.0))
        p.resetBasePositionAndOrientation(disc, list(pick_xyz + np.array(shift_m)), orientation)
        assert not world.grip() and not world.is_gripping()
        p.resetBasePositionAndOrientation(disc, list(pick_xyz), p.getQuaternionFromEuler((math.pi / 2, 0.0, 0.0)))
        assert world.grip() and world.held_disc == disc


@pytest.mark.parametrize("across_m", [-0.005, 0.004])
def test_a_disc_off_the_jaws_middle_is_lifted_out_where_it_stood(across_m: float) -> None:
    """The dispenser's cheeks keep the disc within a millimetre across: the jaws take it where it stands
    (a real arm's servos give way) instead of dragging it through a cheek, and carry it that far off."""
    with World(seed=5) as world:
        pick_xyz, pick_yaw = world.dispenser_pick_pose()
        glide_to(world, pick_xyz + np.array([0.0, across_m, 0.05]), pick_yaw)
        glide_to(world, pick_xyz + np.array([0.0, across_m, 0.0]), pick_yaw)
        assert world.grip()
        disc = world.held_disc
        glide_to(world, pick_xyz + np.array([0.0, across_m, 0.08]), pick_yaw)
        world.step(0.2)
        assert world.is_gripping() and world.discs_slipped == 0
        off = world.disc_pose(disc)[0] - world.tool_pose()[0]
        np.testing.assert_allclose(off, (0.0, -across_m, 0.0), atol=0.001)


@pytest.mark.parametrize("force_n, slips", [(1.0, False), (60.0, True)])
def test_a_flick_harder_than_the_pinch_tears_the_disc_out(force_n: float, slips: bool) -> None:
    with World(seed=3) as world:
        pick_xyz = _at_the_dispenser(world)
        assert world.grip()
        disc = world.held_disc
        glide_to(world, pick_xyz + np.array([0.0, 0.0, 0.06]), 0.0)
        knock_held_disc(world, 0.01, (force_n, 0.0, 0.0))
        world.step(0.3)
        assert world.is_gripping() is not slips
        assert world.discs_slipped == int(slips)
        fell_m = pick_xyz[2] + 0.06 - world.disc_pose(disc)[0][2]
        assert bool(fell_m > 0.03) is slips


def test_a_jammed_dispenser_gives_a_missed_pick_then_a_disc() -> None:
    with World(seed=4) as world:
        jam_dispenser(world)
        pick_xyz = _at_the_dispenser(world)
        assert world.dispenser.waiting is None
        assert not world.grip(), "the jaws close on the empty post"
        world.release()
        glide_to(world, pick_xyz + np.array([0.0, 0.0, 0.06]), 0.0)
        assert world.dispenser.waiting is not None, "the feed came loose: the next disc is in"
        glide_to(world, pick_xyz, 0.0)
        assert world.grip()
