"""Serial drivers end to end: real pyserial on a pty against the virtual firmware, with faults injected."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from robot.arm import ArmConfig, SerialConfig
from robot.arm.drivers.gcode import GcodeArm
from robot.arm.drivers.joint_serial import ArmResetError, JointSerialArm
from robot.arm.drivers.serial_link import PortLostError
from robot.arm.drivers.sim import sim_planner
from robot.arm.planner import play_column
from robot.arm.trajectory import JointTrajectory
from sim import World
from sim.virtual_firmware import Faults, VirtualFirmware

TIME_SCALE = 8.0


@pytest.fixture()
def world():
    with World(seed=2) as w:
        yield w


@pytest.fixture()
def planner(world: World):
    planner = sim_planner(world)
    world.set_arm_joints(planner.home_q)
    return planner


def _config(port: str, **serial) -> ArmConfig:
    settings = {
        "port": port,
        "reply_timeout_s": 0.25,
        "handshake_timeout_s": 1.0,
        "retries": 3,
        "reconnect_attempts": 4,
    }
    settings.update(serial)
    return ArmConfig(serial=SerialConfig(**settings))


def _assert_each_command_ran_once(firmware: VirtualFirmware) -> None:
    counts = Counter(seq for seq, _ in firmware.executed if seq != 0)
    assert max(counts.values()) == 1, "a command ran twice"
    seqs = sorted(counts)
    assert seqs == list(range(seqs[0], seqs[-1] + 1)), "a command was lost"


def _landed(world: World, column: int) -> bool:
    world.wait_until_settled(5.0)
    return world.board_state()[0, column] != 0


def test_joint_arm_plays_a_column_through_dropped_garbled_and_slow_answers(world: World, planner) -> None:
    faults = Faults(drop_replies=frozenset({4, 9, 30}), garble_replies=frozenset({6, 12, 40}), reply_delay_s=0.02)
    with VirtualFirmware(world, "joint", faults=faults, time_scale=TIME_SCALE) as firmware:
        with JointSerialArm(_config(firmware.port)) as arm:
            assert arm.dof == 5
            result = play_column(arm, planner, 2)
            np.testing.assert_allclose(arm.joint_state(), planner.home_q, atol=1e-3)
    assert result.gripped
    assert _landed(world, 2)
    _assert_each_command_ran_once(firmware)
    assert sum(name == "MOVE" for _, name in firmware.executed) > 20


def test_answers_later_than_the_timeout_are_repeated_not_rerun(world: World, planner) -> None:
    with VirtualFirmware(world, "joint", faults=Faults(reply_delay_s=0.3), time_scale=TIME_SCALE) as firmware:
        with JointSerialArm(_config(firmware.port, reply_timeout_s=0.2, handshake_timeout_s=2.0)) as arm:
            target = planner.home_q + np.array([0.2, 0.05, 0.05, -0.1, 0.3])
            arm.follow(JointTrajectory.through([planner.home_q, target], planner.limits))
            np.testing.assert_allclose(arm.joint_state(), target, atol=1e-3)
    _assert_each_command_ran_once(firmware)


def test_port_that_vanishes_mid_move_and_comes_back_finishes_the_move(world: World, planner) -> None:
    faults = Faults(vanish_after=12, back_after_s=0.3)
    with VirtualFirmware(world, "joint", faults=faults, time_scale=TIME_SCALE) as firmware:
        with JointSerialArm(_config(firmware.port)) as arm:
            target = planner.home_q + np.array([0.4, 0.1, 0.1, -0.2, 0.2])
            arm.follow(JointTrajectory.through([planner.home_q, target], planner.limits))
            np.testing.assert_allclose(arm.joint_state(), target, atol=1e-3)
    _assert_each_command_ran_once(firmware)


def test_port_that_comes_back_as_a_rebooted_arm_is_an_error(world: World, planner) -> None:
    faults = Faults(vanish_after=8, back_after_s=0.3, reboot_on_return=True)
    with VirtualFirmware(world, "joint", faults=faults, time_scale=TIME_SCALE) as firmware:
        with JointSerialArm(_config(firmware.port)) as arm:
            target = planner.home_q + np.array([0.4, 0.1, 0.1, -0.2, 0.2])
            with pytest.raises(ArmResetError, match="restarted"):
                arm.follow(JointTrajectory.through([planner.home_q, target], planner.limits))


def test_port_that_vanishes_for_good_names_the_port(world: World, planner) -> None:
    with VirtualFirmware(world, "joint", faults=Faults(vanish_after=5), time_scale=TIME_SCALE) as firmware:
        arm = JointSerialArm(_config(firmware.port, reconnect_attempts=2))
        with arm:
            target = planner.home_q + np.array([0.4, 0.1, 0.1, -0.2, 0.2])
            with pytest.raises(PortLostError, match=f"serial port {firmware.port} went away"):
                arm.follow(JointTrajectory.through([planner.home_q, target], planner.limits))


def test_ctrl_c_during_a_move_stops_the_arm(world: World, planner, monkeypatch: pytest.MonkeyPatch) -> None:
    with VirtualFirmware(world, "joint", time_scale=1.0) as firmware:
        with JointSerialArm(_config(firmware.port)) as arm:

            def interrupted(timeout_s: float) -> None:
                raise KeyboardInterrupt

            monkeypatch.setattr(arm, "_wait_idle", interrupted)
            target = planner.home_q + np.array([-0.8, 0.1, 0.1, -0.2, 0.2])
            with pytest.raises(KeyboardInterrupt):
                arm.follow(JointTrajectory.through([planner.home_q, target], planner.limits))
            status = arm.status()
            assert status.error is not None and "stopped" in status.error
            assert not status.moving
            assert np.abs(np.array(status.joints_rad) - target).max() > 0.1


def test_missing_busy_silent_and_garbage_ports_are_clear_errors(world: World, tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="not found"):
        JointSerialArm(_config(str(tmp_path / "ttyNONE"))).connect()
    with VirtualFirmware(world, "joint") as firmware:
        with JointSerialArm(_config(firmware.port)):
            with pytest.raises(ConnectionError, match="busy"):
                JointSerialArm(_config(firmware.port)).connect()
    with VirtualFirmware(world, "joint", faults=Faults(silent=True)) as firmware:
        with pytest.raises(TimeoutError, match="silent"):
            JointSerialArm(_config(firmware.port, handshake_timeout_s=0.6)).connect()
    with VirtualFirmware(world, "joint", faults=Faults(noise_only=True)) as firmware:
        with pytest.raises(ConnectionError, match="garbage"):
            JointSerialArm(_config(firmware.port, handshake_timeout_s=0.6)).connect()
    with VirtualFirmware(world, "gcode", faults=Faults(silent=True)) as firmware:
        with pytest.raises(TimeoutError, match="silent"):
            GcodeArm(
                _config(firmware.port, protocol="gcode", handshake_timeout_s=0.6), sim_planner(world).chain
            ).connect()


@pytest.mark.parametrize("dialect", ["uarm", "grbl"])
def test_gcode_arm_plays_a_column(world: World, planner, dialect: str) -> None:
    faults = Faults(drop_replies=frozenset({5, 17})) if dialect == "uarm" else Faults()
    with VirtualFirmware(world, "gcode", dialect, faults=faults, time_scale=TIME_SCALE) as firmware:
        # a reply a busy machine delays past 0.25 s would look lost too often for the 4 tries: 1 s
        config = _config(firmware.port, protocol="gcode", gcode_dialect=dialect, reply_timeout_s=1.0)
        with GcodeArm(config, planner.chain) as arm:
            known = planner.chain.dof if dialect == "uarm" else planner.chain.dof - 1  # GRBL has no wrist servo
            np.testing.assert_allclose(arm.joint_state()[:known], planner.home_q[:known], atol=2e-3)
            result = play_column(arm, planner, 4)
    assert result.gripped
    assert _landed(world, 4)


@pytest.mark.parametrize("column", [0, 6])
def test_a_grbl_machine_keeps_its_tool_square_so_the_end_columns_take_the_disc(
    world: World, planner, column: int
) -> None:
    """GRBL drives Cartesian machines: the tool does not turn with the base's yaw, and the disc still goes into the
    slot at either end of the board (where the base turns most)."""
    with VirtualFirmware(world, "gcode", "grbl", time_scale=TIME_SCALE) as firmware:
        home_yaw = firmware._tool_yaw()
        config = _config(firmware.port, protocol="gcode", gcode_dialect="grbl", reply_timeout_s=1.0)
        with GcodeArm(config, planner.chain) as arm:
            play_column(arm, planner, column, go_home=False)
            assert abs(firmware._tool_yaw() - home_yaw) < 0.01
    assert _landed(world, column)


def test_grbl_arm_asks_the_controller_after_a_lost_answer(world: World, planner) -> None:
    """A lost `ok` is settled by the controller's own position, not by a timeout or a resend."""
    faults = Faults(drop_replies=frozenset({3, 6}))
    with VirtualFirmware(world, "gcode", "grbl", faults=faults, time_scale=TIME_SCALE) as firmware:
        with GcodeArm(_config(firmware.port, protocol="gcode", gcode_dialect="grbl"), planner.chain) as arm:
            target = planner.home_q + np.array([0.1, 0.1, 0.1, -0.2, 0.0])
            arm.follow(JointTrajectory.through([planner.home_q, target], planner.limits))
            reached = planner.chain.forward(arm.joint_state())[:3, 3]
    np.testing.assert_allclose(reached, planner.chain.forward(target)[:3, 3], atol=1e-3)


def test_two_host_sessions_in_a_row_each_run_their_stop(world: World, planner) -> None:
    """The second session's first seq equals the first session's; its STOP still runs (not a stored reply)."""
    with VirtualFirmware(world, "joint", time_scale=TIME_SCALE) as firmware:
        with JointSerialArm(_config(firmware.port)) as arm:
            arm.stop()
        with JointSerialArm(_config(firmware.port)) as arm:
            arm.stop()
            arm.home()
    assert [name for _, name in firmware.executed if name not in ("HELLO", "STATUS")] == ["STOP", "STOP", "HOME"]
