"""The world's SO-101 as a Feetech servo bus (`sim.twin_bus`): ticks mapped as the host's setup maps them (a joint
turned the other way included), the servos moving only while the world's time goes on, on the thread that steps
it, and the twin's bus stepping the world by itself."""

from __future__ import annotations

import math
import time

import numpy as np
import pytest

from robot.arm import ArmConfig
from robot.arm.trajectory import JointTrajectory
from robot.game.sim_servo_arm import connected_arm, servo_bus
from sim import World, WorldConfig
from sim.config import ArmMount
from sim.twin_bus import ServoMapping, WorldServoBus

# A setup whose elbow (servo 3) and wrist flex (4) count the other way, middles at LeRobot's 2047.
SETUP = {
    "protocol": "feetech",
    "servo_ids": [1, 2, 3, 4, 5, 6],
    "servo_middles": [2047] * 6,
    "servo_directions": [1, 1, -1, -1, 1, 1],
    "servo_ranges": [[758, 3292], [830, 3234], [863, 3093], [862, 3215], [0, 4095], [2030, 3484]],
}


@pytest.fixture
def world():
    with World(WorldConfig(arm=ArmMount.named("so101")), seed=0) as world:
        yield world


def test_a_mapping_turns_ticks_into_angles_with_each_joints_middle_and_direction() -> None:
    mapping = ServoMapping((1, 2), (2047, 2047), (1, -1), 3, 3339, 2030)
    ticks = mapping.ticks(np.array([math.pi / 2, math.pi / 2]))
    assert ticks == {1: 2047 + 1024, 2: 2047 - 1024}
    assert np.allclose(mapping.angles(ticks), [math.pi / 2, math.pi / 2])
    assert mapping.closing(2100) and not mapping.closing(3000)
    assert mapping.disc_stop == 2030 + 150  # short of closed, on the open side


def test_the_servos_move_with_the_worlds_time_on_the_thread_that_steps_it(world: World) -> None:
    config = ArmConfig.from_dict(SETUP)
    with servo_bus(world, config) as bus:
        arm = connected_arm(world, config, bus)
        try:
            goal = np.array([0.3, -0.2, 0.5, 0.4, 0.1])
            start = world.arm_joints()
            time_before = world.time_s
            time.sleep(0.3)  # the bus's thread answers packets only: it neither steps nor moves the world
            assert world.time_s == time_before and np.allclose(world.arm_joints(), start)
            arm.follow(JointTrajectory.through([arm.joint_state(), goal], config.limits(5)))
            assert np.allclose(world.arm_joints(), goal, atol=0.01)  # the reversed joints land where asked
            assert np.allclose(arm.joint_state(), goal, atol=0.01)
            assert world.time_s > time_before + 0.2  # the driver's waits ran the world's physics
            ticks = {i: round(bus.servos[i].position) for i in (3, 4)}
            assert ticks[3] < 2047 and ticks[4] < 2047  # direction -1: a positive angle counts down
        finally:
            arm.close()


def test_the_twins_bus_steps_the_world_by_itself(world: World) -> None:
    with WorldServoBus(world) as bus:
        time.sleep(0.3)
        assert world.time_s > 0.05
        assert bus.mapping == ServoMapping.plain(5)
