"""The Feetech STS3215 packets (checksum, little-endian words, sync write) and the driver on a virtual bus."""

from __future__ import annotations

import dataclasses
import time

import numpy as np
import pytest

from robot.arm import ArmCommandError, ArmConfig, SerialConfig
from robot.arm.drivers import feetech_wire as wire
from robot.arm.drivers.feetech import SO101_LAYOUT, FeetechArm
from robot.arm.trajectory import JointTrajectory
from sim.feetech_bus import FakeFeetechBus


def test_packets_follow_the_feetech_layout_and_checksum() -> None:
    assert wire.instruction(1, wire.PING) == bytes.fromhex("ffff010201fb")
    assert wire.read(1, wire.PRESENT_POSITION, 2) == bytes.fromhex("ffff0104023802be")
    goal = wire.write(3, wire.GOAL_POSITION, wire.word(2048))
    assert goal[:7] == bytes.fromhex("ffff0305032a00") and goal[7] == 0x08 and goal[8] == wire.checksum(goal[2:8])
    sync = wire.sync_write(wire.GOAL_POSITION, {1: wire.word(1000), 2: wire.word(3000)})
    assert sync[2:7] == bytes([0xFE, 10, 0x83, 42, 2]) and sync[7:13] == bytes([1, 0xE8, 0x03, 2, 0xB8, 0x0B])
    with pytest.raises(ValueError, match="same length"):
        wire.sync_write(wire.GOAL_POSITION, {1: b"\x01", 2: b"\x01\x02"})


def test_status_packets_are_found_in_noise_and_garbling_is_caught() -> None:
    buffer = bytearray(b"\x00\x13" + wire.status(2, 0, wire.word(1234)) + wire.status(2, 32))
    packet = wire.take_packet(buffer)
    assert packet == wire.Packet(2, 0, wire.word(1234)) and wire.read_word(packet.params) == 1234
    assert wire.take_packet(buffer).error_text == "overload"
    spoiled = bytearray(wire.status(4, 0, b"\x01"))
    spoiled[5] ^= 0x10
    with pytest.raises(wire.FeetechWireError, match="checksum"):
        wire.take_packet(spoiled)
    assert wire.take_packet(bytearray(wire.status(4, 0, b"\x01\x02"))[:-2]) is None  # not complete yet


def test_angles_map_to_ticks_through_middle_and_direction() -> None:
    assert wire.ticks_from_rad(np.pi / 2, 2048, 1) == 3072
    assert wire.ticks_from_rad(np.pi / 2, 2000, -1) == 976
    assert wire.rad_from_ticks(976, 2000, -1) == pytest.approx(np.pi / 2)


def test_the_driver_moves_several_servos_on_one_bus_and_grips() -> None:
    ticks = {**dict.fromkeys(SO101_LAYOUT.ids, 2048), SO101_LAYOUT.gripper_id: SO101_LAYOUT.gripper_open}
    with FakeFeetechBus(ticks, jaw_stops={SO101_LAYOUT.gripper_id: 2250}) as bus:
        config = ArmConfig(serial=SerialConfig(port=bus.port, protocol="feetech", reply_timeout_s=0.3))
        assert config.serial.baud_rate == wire.DEFAULT_BAUD_RATE
        with FeetechArm(config) as arm:
            target = np.array([0.3, -0.2, 0.4, 0.1, -0.5])
            arm.follow(JointTrajectory.through([arm.joint_state(), target], config.limits(5)))
            np.testing.assert_allclose(arm.joint_state(), target, atol=0.01)
            assert arm.grip() and arm.status().gripping
    assert [c for c in bus.executed if c.startswith("WRITE") and " 40 " in c] == [
        f"WRITE {i} 40 01" for i in SO101_LAYOUT.ids
    ]
    closing = f"WRITE 6 42 {wire.word(SO101_LAYOUT.gripper_closed).hex()}"
    assert bus.executed[-2:] == [closing, f"WRITE 6 42 {wire.word(2250).hex()}"]  # then held where it stopped


def test_calibrate_arm_records_middles_directions_and_ranges_and_the_driver_keeps_to_them() -> None:
    """The person holds the middle pose, steps each joint + (servo 2 and 4 count down), closes the gripper
    (towards its high ticks), then sweeps every joint (here: the test moves the loose servos)."""
    from calibration.servo_range import record_servo_ranges

    ids = SO101_LAYOUT.ids
    with FakeFeetechBus(dict.fromkeys(ids, 2048), homing_offsets={3: -250}, limits={5: (100, 4000)}) as bus:
        config = ArmConfig(serial=SerialConfig(port=bus.port, protocol="feetech", reply_timeout_s=0.3))
        steps = iter([dict.fromkeys(ids, 0), {1: 60, 2: -60, 3: 60, 4: -60, 5: 60, 6: 90}])
        sweep = iter([-400, 0, 500, None])

        def done_a_step() -> None:
            assert not bus.servos[1].registers[40], "the torque must be off while the person moves the arm"
            step = next(steps)
            for servo_id in ids:
                bus.servos[servo_id].position = 2000 + servo_id + step[servo_id]
            time.sleep(0.05)

        def moved_enough() -> bool:
            offset = next(sweep)
            for servo_id in ids:
                bus.servos[servo_id].position = 2000 + servo_id + (offset or 0)
            time.sleep(0.05)
            return offset is None

        told: list[str] = []
        with FeetechArm(config) as arm:
            settings = record_servo_ranges(arm, done_a_step, moved_enough, told.append, ["shoulder_pan: left"])
        assert all(servo.registers[40] == 1 for servo in bus.servos.values()), "torque back on afterwards"
    assert "(shoulder_pan: left)" in told[1]
    assert settings["servo_ids"] == list(ids)
    assert settings["servo_middles"] == [2000 + i for i in ids]
    assert settings["servo_directions"] == [1, -1, 1, -1, 1, -1]  # the gripper closed towards its high ticks
    assert settings["servo_ranges"] == [[1600 + i, 2500 + i] for i in ids]
    assert settings["servo_homing_offsets"] == [0, 0, -250, 0, 0, 0]
    assert settings["servo_limits"][4] == [100, 4000] and settings["servo_limits"][0] == [0, 4095]

    calibrated = ArmConfig.from_dict({"protocol": "feetech", **settings})
    with FakeFeetechBus({i: 2000 + i for i in ids}, homing_offsets={3: -250}, limits={5: (100, 4000)}) as bus:
        config = ArmConfig(serial=dataclasses.replace(calibrated.serial, port=bus.port, reply_timeout_s=0.3))
        with FeetechArm(config) as arm:
            np.testing.assert_allclose(arm.joint_state(), 0.0, atol=1e-9)  # the middle pose is joint angle 0
            beyond = np.array([0.0, 0.0, 1.2, 0.0, 0.0])  # about 780 ticks past the middle: out of range
            with pytest.raises(ArmCommandError, match=r"servo 3 \(elbow_flex\).* beyond its calibrated range"):
                arm.follow(JointTrajectory.through([arm.joint_state(), beyond], config.limits(5)))


def test_the_plus_hints_say_where_each_so101_joint_goes() -> None:
    from calibration.servo_range import plus_hints
    from robot.arm.kinematics import KinematicChain
    from sim.config import ASSETS_DIR

    chain = KinematicChain.from_urdf(ASSETS_DIR / "so101.urdf", "tool")
    names = ["shoulder_pan", "shoulder_lift", "elbow_flex", "wrist_flex", "wrist_roll"]
    hints = plus_hints(chain.forward, names)
    assert hints[:4] == [
        "shoulder_pan: the gripper goes to the right",
        "shoulder_lift: the gripper goes down",
        "elbow_flex: the gripper goes down",
        "wrist_flex: the gripper goes down",
    ]
    assert hints[4].startswith("wrist_roll: counter-clockwise seen from ")


def _published_so101_tool(q: np.ndarray) -> np.ndarray:
    """The tool position of the published SO-101 model (TheRobotStudio/SO-ARM100, so101_new_calib.urdf):
    its joint origins (xyz, rpy), every joint about its own z, then its gripper frame."""

    def transform(xyz: tuple[float, ...], rpy: tuple[float, ...], turn: float = 0.0) -> np.ndarray:
        r, p, y = rpy
        rx = np.array([[1, 0, 0], [0, np.cos(r), -np.sin(r)], [0, np.sin(r), np.cos(r)]])
        ry = np.array([[np.cos(p), 0, np.sin(p)], [0, 1, 0], [-np.sin(p), 0, np.cos(p)]])
        rz = np.array([[np.cos(y), -np.sin(y), 0], [np.sin(y), np.cos(y), 0], [0, 0, 1]])
        about_z = np.array([[np.cos(turn), -np.sin(turn), 0], [np.sin(turn), np.cos(turn), 0], [0, 0, 1]])
        matrix = np.eye(4)
        matrix[:3, :3], matrix[:3, 3] = rz @ ry @ rx @ about_z, xyz
        return matrix

    joints = [
        ((0.0207909, -0.0230745, 0.0948817), (-3.14159, 0, 1.5708)),
        ((-0.0303992, -0.0182778, -0.0542), (-1.5708, -1.5708, 0)),
        ((-0.11257, -0.028, 0), (0, 0, 1.5708)),
        ((-0.1349, 0.0052, 0), (0, 0, -1.5708)),
        ((0, -0.0611, 0.0181), (1.5708, 0, 3.14159)),
    ]
    pose = np.eye(4)
    for (xyz, rpy), angle in zip(joints, q, strict=True):
        pose = pose @ transform(xyz, rpy, angle)
    return (pose @ transform((-0.0079, -0.000218121, -0.0981274), (1.5708, 0, 1.5708)))[:3, 3]


def test_the_so101_urdf_moves_as_the_published_model() -> None:
    """Same tool position for the same joint angles, in this project's frame (x forward, origin under the pan
    axis); and the tool frame is the base's when the gripper points down (wrist flex +90 degrees)."""
    from robot.arm.kinematics import KinematicChain
    from sim.config import ASSETS_DIR

    chain = KinematicChain.from_urdf(ASSETS_DIR / "so101.urdf", "tool")
    to_ours = np.array([[0, -1, 0], [1, 0, 0], [0, 0, 1]])
    pan_axis = np.array([0.0207909, -0.0230745, 0.0])
    rng = np.random.default_rng(7)
    for q in [np.zeros(5), *rng.uniform(-1.5, 1.5, size=(20, 5))]:
        expected = to_ours @ (_published_so101_tool(q) - pan_axis)
        np.testing.assert_allclose(chain.forward(q)[:3, 3], expected, atol=2e-4)
    down = chain.forward(np.array([0.0, 0.0, 0.0, np.pi / 2, 0.0]))
    np.testing.assert_allclose(down[:3, :3], np.eye(3), atol=1e-4)
