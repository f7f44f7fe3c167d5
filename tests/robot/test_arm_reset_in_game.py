"""A game whose arm restarts mid-move tells the person what to do, keeps the log, and stops with ArmResetError."""

from __future__ import annotations

from pathlib import Path

import pytest

from robot.arm import ArmResetError
from robot.game import sim_table
from robot.game.config import GameSettings, SimTableConfig
from robot.game.log import GameLog
from robot.game.play import play_sim_game, sim_settings


def test_an_arm_reset_mid_move_is_told_and_the_game_can_resume(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    turns = {"robot": 0}
    real_drop = sim_table.SimTable.robot_drop

    def drop_then_reset(self, column: int) -> float:
        turns["robot"] += 1
        if turns["robot"] == 2:
            raise ArmResetError("arm on /dev/ttyFAKE restarted (boot 1 -> 2) and lost its motion")
        return real_drop(self, column)

    monkeypatch.setattr(sim_table.SimTable, "robot_drop", drop_then_reset)
    told: list[str] = []
    settings = sim_settings(GameSettings(robot_first=True, level=5, time_budget_s=0.2, seed=3))
    log_path = tmp_path / "game.json"
    with pytest.raises(ArmResetError):
        play_sim_game(SimTableConfig(seed=3), settings, told.append, log_path)
    assert any("restarted in the middle of my move" in message and f"--log {log_path}" in message for message in told)
    saved = GameLog.load(log_path)
    assert len(saved.move_string) == 2  # the robot's first disc and the person's reply, nothing of the failed move
    assert [event.kind for event in saved.events] == ["arm_restarted"]
