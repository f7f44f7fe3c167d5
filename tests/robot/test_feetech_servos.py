"""The Feetech driver against the virtual bus's servos: EEPROM checked and set at connect, goals kept within the
servos' limits, a grip sensed and never held at full torque, every restart and a hot servo named, and the
bus round trips per streamed goal."""

from __future__ import annotations

import dataclasses
import logging
import time

import numpy as np
import pytest

from calibration.lerobot import arm_settings
from robot.arm import ArmConfig, ArmResetError
from robot.arm.drivers import feetech_wire as wire
from robot.arm.drivers.feetech import FeetechArm, FeetechLayout
from robot.arm.drivers.feetech_link import ServoHotError
from robot.arm.drivers.feetech_servos import GRIPPER_TORQUE_LIMIT, GripSense, ServoSetupError
from robot.arm.trajectory import JointTrajectory
from sim.feetech_bus import FakeFeetechBus
from tests.calibration.test_lerobot_import import SO101

SETTINGS = arm_settings(SO101)
IDS = tuple(SETTINGS["servo_ids"])
OFFSETS = dict(zip(IDS, SETTINGS["servo_homing_offsets"], strict=True))
LIMITS = {i: tuple(r) for i, r in zip(IDS, SETTINGS["servo_ranges"], strict=True)}


def _config(port: str, **changes: object) -> ArmConfig:
    config = ArmConfig.from_dict({**SETTINGS, "port": port, "reply_timeout_s": 0.3, **changes})
    return dataclasses.replace(config, velocity_rad_s=3.0, acceleration_rad_s2=20.0)


def _bus(disc: bool = True, **changes: object) -> FakeFeetechBus:
    """The arm at its middle pose, the gripper open, LeRobot's offsets and limits in the EEPROM."""
    layout = FeetechLayout.from_settings(_config("").serial)
    ticks = {**dict.fromkeys(IDS, 2047), 6: layout.gripper_open}
    stops = {6: (layout.gripper_open + layout.gripper_closed) // 2} if disc else {}
    options = {"homing_offsets": OFFSETS, "limits": LIMITS, "jaw_stops": stops, **changes}
    return FakeFeetechBus(ticks, **options)


def _move(arm: FeetechArm, target: list[float]) -> None:
    arm.follow(JointTrajectory.through([arm.joint_state(), np.array(target)], arm.config.limits(5)))


def test_an_imported_lerobot_setup_connects_and_a_servo_calibrated_again_is_named() -> None:
    with _bus() as bus, FeetechArm(_config(bus.port)) as arm:
        np.testing.assert_allclose(arm.joint_state(), 0.0, atol=1e-3)  # LeRobot's middle pose is angle 0
        assert arm.allowed[2] == LIMITS[2]
    with _bus(homing_offsets={**OFFSETS, 2: OFFSETS[2] + 300}) as bus:
        with pytest.raises(ServoSetupError, match=r"servo 2 \(shoulder_lift\).*homing offset 453.*calibrate arm"):
            FeetechArm(_config(bus.port)).connect()
    with _bus(limits={**LIMITS, 4: (900, 3215)}) as bus:
        with pytest.raises(ServoSetupError, match=r"servo 4 \(wrist_flex\).*limits 900..3215, the setup 862..3215"):
            FeetechArm(_config(bus.port)).connect()
        assert not any(" 40 01" in c for c in bus.executed), "no torque on an arm whose calibration is stale"


def test_the_grippers_protection_is_written_once_with_lock_opened_around_it() -> None:
    with _bus() as bus:
        with FeetechArm(_config(bus.port)):
            pass
        gripper = [c for c in bus.executed if c.startswith("WRITE 6 ") and c.split()[2] in ("55", "16", "28", "36")]
        assert gripper == ["WRITE 6 55 00", "WRITE 6 16 f401", "WRITE 6 28 fa00", "WRITE 6 36 19", "WRITE 6 55 01"]
        assert [c for c in bus.executed if c.startswith("WRITE 1 7 ")] == ["WRITE 1 7 00"]  # return delay 0
        bus.restart_servo(6)
        assert bus.servos[6].word(48) == GRIPPER_TORQUE_LIMIT  # saved in EEPROM: it outlives a restart
        before = len(bus.executed)
        with FeetechArm(_config(bus.port)):
            pass
        assert not [
            c for c in bus.executed[before:] if c.split()[2] in ("55", "7", "16", "28", "36")
        ]  # nothing differs


def test_a_grip_is_sensed_and_never_held_against_the_disc() -> None:
    with _bus() as bus, FeetechArm(_config(bus.port)) as arm:
        assert arm.grip() and arm.grip_sense is GripSense.HOLDING and arm.status().gripping
        assert 0 < bus.stall_loads[6] <= GRIPPER_TORQUE_LIMIT  # it pushed, within the protection's limit
        gripper = bus.servos[6]
        assert gripper.word(wire.GOAL_POSITION) == gripper.word(wire.PRESENT_POSITION) and gripper.load < 100
        arm.release()
        assert not arm.status().gripping
    with _bus(disc=False) as bus, FeetechArm(_config(bus.port)) as arm:
        assert not arm.grip() and arm.grip_sense is GripSense.EMPTY and not arm.status().gripping


def test_a_gripper_restart_mid_carry_is_seen_at_the_next_goal() -> None:
    with _bus() as bus, FeetechArm(_config(bus.port)) as arm:
        assert arm.grip()
        bus.restart_servo(6)
        with pytest.raises(ArmResetError, match=r"servo 6 \(gripper\).*restarted"):
            _move(arm, [0.3, 0.0, 0.0, 0.0, 0.0])
        goals = [c for c in bus.executed[bus.executed.index("RESET 6") :] if c.startswith("SYNC")]
        assert len(goals) == 1, "one streamed goal at most reaches the arm after the restart"


def test_a_goal_at_the_edge_of_a_range_is_clamped_and_said(caplog: pytest.LogCaptureFixture) -> None:
    with _bus() as bus, FeetechArm(_config(bus.port)) as arm:
        edge = (LIMITS[3][1] + 20 - 2047) * 2 * np.pi / 4096  # 20 ticks past the elbow's limit
        with caplog.at_level(logging.WARNING):
            _move(arm, [0.0, 0.0, edge, 0.0, 0.0])
        assert arm.clamps and {servo for servo, _, _ in arm.clamps} == {3}
        assert max(sent for _, _, sent in arm.clamps) == LIMITS[3][1]
        assert "servo 3 (elbow_flex)" in caplog.text and "clamped" in caplog.text


def test_limits_changed_behind_the_drivers_back_are_named_when_a_joint_stops_short() -> None:
    with _bus() as bus, FeetechArm(_config(bus.port)) as arm:
        bus.set_eeprom(2, wire.MIN_POSITION_LIMIT, wire.word(1900) + wire.word(2200))
        bus.servos[2].registers[wire.TORQUE_ENABLE] = 1  # set_eeprom powers the servo anew; it stays on here
        with pytest.raises(ServoSetupError, match=r"servo 2 \(shoulder_lift\) .* limits are now 1900..2200"):
            _move(arm, [0.0, 0.6, 0.0, 0.0, 0.0])


def test_a_hot_servo_is_named_and_status_reports_temperatures_and_voltages() -> None:
    with _bus() as bus, FeetechArm(_config(bus.port)) as arm:
        status = arm.status()
        assert len(status.temperatures_c) == 6 and all(20 <= t <= 40 for t in status.temperatures_c)
        assert status.voltages_v == (12.0,) * 6
        bus.servos[3].temperature_c = 75.0
        time.sleep(0.05)  # the bus's next tick sets the overheat bit
        with pytest.raises(ServoHotError, match=r"servo 3 \(elbow_flex\).* overheating"):
            arm.status()


def test_one_bus_round_trip_checks_every_streamed_goal() -> None:
    with _bus() as bus, FeetechArm(_config(bus.port)) as arm:
        bus.requests.clear()
        arm.bus.round_trips = 0
        _move(arm, [0.4, -0.3, 0.3, 0.2, 0.0])
        goals = bus.requests["sync_write"]
        assert goals > 5
        # each goal is read back by one SYNC READ; what is left is waiting for the arm to arrive
        assert bus.requests["sync_read"] >= goals and bus.requests["read"] == 0
        assert arm.bus.round_trips - goals < 40


def test_a_disc_that_comes_and_goes_between_the_jaws() -> None:
    """A bus whose disc is there only when the world says so (the digital twin's) sets and clears the jaw stop."""
    with _bus(disc=False) as bus, FeetechArm(_config(bus.port)) as arm:
        bus.set_jaw_stop(6, 2600)
        assert arm.grip() and 0 < bus.stall_loads[6] <= GRIPPER_TORQUE_LIMIT
        arm.release()
        bus.set_jaw_stop(6, None)
        assert not arm.grip()
