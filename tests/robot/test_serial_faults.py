"""The driver contract under faults: every protocol's driver against misbehaving fake devices on a pty.

Each fault strikes at two places of a whole pick-and-drop (while connecting, and near the end); the fake device logs every command it ran.
Asserted: nothing ran twice, nothing was skipped, the outcome is success or the one named error the
fault calls for (a reset is an `ArmResetError` within one command), and STOP ran after every error.
Timeouts are short here (the late reply is 1 s late against a 0.3 s reply timeout); `c4robot bench
serial` runs the same harness with the real figures (3 s late, 1 s timeout).
"""

from __future__ import annotations

import pytest

from robot.arm import ArmCommandError
from robot.arm.drivers.gcode import GcodeArm
from robot.cli.serial_faults import FAULT_NAMES, PROTOCOLS, FaultHarness, Timing, _compare, faults_of
from sim.fake_devices import FakeDevice, Fault

TIMING = Timing(reply_timeout_s=0.3, late_s=1.0, back_s=0.5, handshake_timeout_s=1.0)


@pytest.fixture(scope="module")
def harness() -> FaultHarness:
    return FaultHarness(TIMING)


@pytest.mark.parametrize(
    ("protocol", "fault"), [(protocol, fault) for protocol in PROTOCOLS for fault in faults_of(protocol, FAULT_NAMES)]
)
def test_no_command_lost_or_doubled_and_the_named_outcome(harness: FaultHarness, protocol: str, fault: str) -> None:
    points = [1] if fault == "silent" else harness.points(protocol, 3)[::2]  # at connect, and near the end
    for at in points:
        trial = harness.trial(protocol, fault, at)
        assert trial.outcome != "other", trial.error
        assert trial.as_expected, f"{fault} at command {at}: {trial.outcome} {trial.error}"
        assert (trial.lost, trial.doubled) == (0, 0), trial
        assert not trial.stop_missed, f"no STOP ran after {trial.error}"


def test_a_reset_ends_the_motion_at_the_next_command(harness: FaultHarness) -> None:
    """After the board restarted, nothing but STOP runs: the reset is seen within one command."""
    for protocol in PROTOCOLS:
        with harness.table.device(protocol, Fault("reset", 6), TIMING) as device:
            with pytest.raises(ConnectionError, match="restarted"):
                _pick_and_drop(harness, protocol, device)
        after = device.executed[device.executed.index("RESET") + 1 :]
        assert after == ["STOP"], (protocol, after)


def test_a_gripper_restart_is_seen_wherever_it_strikes_once_its_torque_is_on(harness: FaultHarness) -> None:
    """Every point of the pick-and-drop after connect: the gripper servo alone restarts, the driver says so."""
    changes = [c for c in harness.baseline("feetech") if c != "STOP"]
    first = changes.index("WRITE 6 40 01") + 2
    for at in range(first, len(changes) + 1, 3):
        trial = harness.trial("feetech", "servo_restart", at)
        assert trial.outcome == "named" and "servo 6 (gripper)" in trial.error, (at, trial)
        assert trial.gripper_load <= 500, "the gripper pushed on the disc past its protection"
        assert (trial.lost, trial.doubled, trial.stop_missed) == (0, 0, False), trial


def _pick_and_drop(harness: FaultHarness, protocol: str, device: FakeDevice) -> None:
    with harness.table.arm(protocol, device.port, TIMING) as arm:
        for step in harness.table.steps():
            step(arm)


def test_the_harness_sees_a_blind_resend(harness: FaultHarness, monkeypatch: pytest.MonkeyPatch) -> None:
    """A driver that sends a command again without asking the arm (as the old uArm driver did) is caught."""
    monkeypatch.setattr(GcodeArm, "_ran", lambda self, effect: False)
    trial = harness.trial("uarm", "dropped", harness.points("uarm", 1)[0])
    assert trial.doubled == 1


def test_compare_counts_doubled_and_lost_commands() -> None:
    baseline = ["HOME", "MOVE 1", "MOVE 2", "GRIP", "MOVE 3"]
    assert _compare(baseline, baseline, finished=True) == (0, 0)
    assert _compare(["HOME", "MOVE 1", "MOVE 1", "MOVE 2", "GRIP", "MOVE 3"], baseline, True) == (0, 1)
    assert _compare(["HOME", "MOVE 1", "GRIP", "MOVE 3"], baseline, True) == (1, 0)
    assert _compare(["HOME", "MOVE 1", "RESET", "STOP"], baseline, finished=False) == (0, 0)
    assert _compare(["HOME", "MOVE 1"], baseline, finished=True) == (3, 0)


def test_a_grbl_alarm_is_named_in_words_and_again_in_the_lock_out_after_it(harness: FaultHarness) -> None:
    """ALARM:1 is a hard limit; the moves refused after it (GRBL's lock-out) still say which alarm it was."""
    with harness.table.device("grbl", Fault("refused", 3), TIMING) as device:
        with harness.table.arm("grbl", device.port, TIMING) as arm:
            steps = harness.table.steps()
            with pytest.raises(ArmCommandError, match="GRBL alarm 1: hard limit triggered"):
                for step in steps:
                    step(arm)
            with pytest.raises(ArmCommandError, match="locked out .*, after GRBL alarm 1: hard limit"):
                steps[1](arm)
