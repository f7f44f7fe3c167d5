"""Serial wire formats as pure functions: round trips, checksums that catch garbling, clear parse errors."""

from __future__ import annotations

import math

import numpy as np
import pytest

from robot.arm.drivers import gcode_wire, joint_wire
from robot.arm.drivers.joint_wire import Command, Reply, WireError


def test_joint_command_round_trip_and_checksum() -> None:
    command = Command(42, "MOVE", joint_wire.move_args(0.05, np.radians([10.0, -20.5, 0.01, 179.99, -3.1])))
    raw = joint_wire.encode_command(command)
    assert (
        raw
        == b"42 MOVE 50 1000 -2050 1 17999 -310*"
        + joint_wire.checksum("42 MOVE 50 1000 -2050 1 17999 -310").encode()
        + b"\n"
    )
    assert joint_wire.decode_command(raw) == command


def test_joint_reply_round_trip() -> None:
    for reply in (Reply(7, True, ("IDLE", "0", "0", "100", "-200")), Reply(8, False, ("queue", "full"), 3)):
        assert joint_wire.decode_reply(joint_wire.encode_reply(reply)) == reply
    status = joint_wire.parse_status(Reply(9, True, ("MOVING", "1", "3", "4500", "-9000")))
    assert status.state == "MOVING" and status.gripping and status.queued == 3
    np.testing.assert_allclose(status.q_rad, [math.radians(45), math.radians(-90)])


@pytest.mark.parametrize(
    "raw", [b"7 OK 16*00\n", b"7 OK 16\n", b"7 \xffK 16*2A\n", b"OK*" + joint_wire.checksum("OK").encode()]
)
def test_joint_decoder_rejects_garbled_lines(raw: bytes) -> None:
    with pytest.raises(WireError):
        joint_wire.decode_reply(raw)


def test_every_single_bit_flip_is_caught() -> None:
    raw = joint_wire.encode_reply(Reply(12, True, ("3",)))
    for index in range(len(raw) - 1):
        for bit in range(7):
            flipped = raw[:index] + bytes([raw[index] ^ (1 << bit)]) + raw[index + 1 :]
            try:
                decoded = joint_wire.decode_reply(flipped)
            except WireError:
                continue
            assert decoded == Reply(12, True, ("3",)) and flipped.strip() != raw.strip(), flipped


def test_angles_round_trip_to_a_hundredth_of_a_degree() -> None:
    q = np.array([0.1234, -1.5, 3.0])
    assert np.max(np.abs(joint_wire.angles_from_wire(joint_wire.angles_to_wire(q)) - q)) < math.radians(0.005)
    with pytest.raises(WireError, match="centidegrees"):
        joint_wire.angles_from_wire(["1.5"])


def test_hello_parsing() -> None:
    hello = joint_wire.parse_hello(Reply(0, True, ("C4ARM", "2", "5", "16", "abc")))
    assert (hello.version, hello.dof, hello.queue_size, hello.boot) == (2, 5, 16, "abc")
    with pytest.raises(WireError, match="HELLO"):
        joint_wire.parse_hello(Reply(0, True, ("GRBL", "1")))


def test_uarm_lines() -> None:
    assert (
        gcode_wire.with_seq(5, gcode_wire.format_move(200, -10.5, 80, 6000, "uarm"))
        == "#5 G0 X200.00 Y-10.50 Z80.00 F6000"
    )
    assert gcode_wire.format_suction(True, "uarm") == "M2231 V1"
    assert gcode_wire.parse_uarm_reply("$5 ok X1.00 Y2.00 Z3.00") == gcode_wire.UarmReply(
        5, True, ("X1.00", "Y2.00", "Z3.00")
    )
    assert gcode_wire.parse_uarm_reply("$6 E22") == gcode_wire.UarmReply(6, False, (), "E22")
    assert gcode_wire.parse_uarm_reply("@1") is None
    assert gcode_wire.parse_position(("X1.00", "Y2.00", "Z3.00")) == (1.0, 2.0, 3.0)
    assert gcode_wire.parse_angle(("V92.50",)) == 92.5
    with pytest.raises(gcode_wire.GcodeReplyError):
        gcode_wire.parse_uarm_reply("$x ok")
    with pytest.raises(gcode_wire.GcodeReplyError, match="X, Y and Z"):
        gcode_wire.parse_position(("X1",))


def test_grbl_lines() -> None:
    assert gcode_wire.format_move(1, 2, 3, 600, "grbl") == "G1 X1.00 Y2.00 Z3.00 F600"
    assert gcode_wire.format_suction(False, "grbl") == "M9"
    assert gcode_wire.parse_grbl_line("ok").kind == "ok"
    assert gcode_wire.parse_grbl_line("error:20").kind == "error"
    status = gcode_wire.parse_grbl_line("<Run|MPos:1.000,-2.500,3.000|FS:500,0>")
    assert status.kind == "status" and status.state == "Run" and status.position_mm == (1.0, -2.5, 3.0)
    assert gcode_wire.parse_grbl_line("[MSG:Reset to continue]").kind == "data"
    alarm = gcode_wire.parse_grbl_line("ALARM:1")
    assert alarm.kind == "alarm" and "hard limit" in alarm.meaning
    assert "feed rate undefined" in gcode_wire.parse_grbl_line("error:22").meaning
    assert gcode_wire.parse_grbl_line("Grbl 1.1h ['$' for help]").kind == "banner"
    assert gcode_wire.parse_grbl_line("<Hold:0|MPos:0.000,0.000,0.000|FS:0,0>").state == "Hold:0"
    assert gcode_wire.coolant_on("[GC:G0 G54 G17 G21 G90 G94 M5 M8 T0 F0 S0]")
    assert not gcode_wire.coolant_on("[GC:G0 G54 G17 G21 G90 G94 M5 M9 T0 F0 S0]")
