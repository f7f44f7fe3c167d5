"""The SO-101 in the simulated world: its mount reaches the dispenser and every column, and a whole game
played with it lands every disc where the robot meant it (`c4robot play --sim --arm so101`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from robot.cli import main


def test_a_whole_game_with_the_so101_lands_every_disc(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["play", "--sim", "--arm", "so101", "--seed", "2", "--robot-first", "--json", "--log", str(tmp_path / "g")]
    status = main([*argv, "--time-ms", "300"])
    summary = json.loads(capsys.readouterr().out)
    assert status == 0
    assert summary["winner"] in ("robot", "draw")
    assert summary["board_agreement"] is True
    assert summary["turns"], "the robot made no move"
    assert [turn["landed"] for turn in summary["turns"]] == [turn["column"] for turn in summary["turns"]]


def test_an_unknown_simulated_arm_is_one_sentence(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["play", "--sim", "--arm", "ur5"])
    err = capsys.readouterr().err
    assert status != 0
    assert "'ur5'" in err and "so101" in err
    assert "Traceback" not in err
