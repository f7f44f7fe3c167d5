"""`calibrate camera|board|colours|drops --sim` then `play --sim --config FILE`: a whole game the camera agrees with.

And the other side: a game on a calibration that no longer fits (the board moved) stops with the reason,
saved, and exits non-zero, instead of waiting on and saying "saved" of a game that is not.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from one_sentence import run_in_process
from test_cli_fuzz import VALID_LOG

from robot.game.config import SimTableConfig
from robot.game.log import GameLog
from robot.game.loop import GameSettings
from robot.game.sim_table import SimGame
from tests.late_games import late_log


def _calibrate(config: Path, *extra: str) -> None:
    for step in ("camera", "board", "colours", "drops"):
        status, out, err = run_in_process(["calibrate", step, "--sim", "--config", str(config), *extra])
        assert status == 0, f"calibrate {step}: {err}"
        assert f"saved {config}" in out


def test_the_sim_calibration_plays_the_game_and_keeps_an_unfinished_one(tmp_path: Path) -> None:
    """The four calibration steps, then the end of a game read with that file: every disc where it was meant to be;
    the unfinished game found at the log's place is kept aside, and said, before the new one starts."""
    config, log = tmp_path / "setup.toml", tmp_path / "game.json"
    _calibrate(config)
    log.write_text(json.dumps(VALID_LOG))  # an unfinished game a new one must not overwrite
    told: list[str] = []
    with SimGame(SimTableConfig(seed=3, calibration=config), robot_first=False, tell=told.append) as sim:
        summary = sim.game(GameSettings(time_budget_s=0.3, seed=3), log, late_log()).play().summary()
    assert summary["winner"] == "robot" and summary["board_agreement"] is True
    assert summary["turns"] and all(turn["landed"] == turn["column"] for turn in summary["turns"])
    kept = [path for path in tmp_path.iterdir() if path.name.startswith("game.unfinished-")]
    assert len(kept) == 1 and f"kept as {kept[0]}" in told[0]
    assert GameLog.load(kept[0]).move_string == "443"
    assert GameLog.load(log).move_string == summary["moves"]


@pytest.fixture(scope="module")
def moved_board_config(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A calibration made with the board 60 mm aside; play --sim has it back where it was."""
    config = tmp_path_factory.mktemp("moved") / "setup.toml"
    _calibrate(config, "--board-x-mm", "60")
    return config


def test_a_game_that_cannot_go_on_stops_with_the_reason_and_is_saved(tmp_path: Path, moved_board_config: Path) -> None:
    config, log = moved_board_config, tmp_path / "game.json"
    told: list[str] = []
    with SimGame(SimTableConfig(seed=3, calibration=config), robot_first=False, tell=told.append) as sim:
        settings = GameSettings(give_up_after_s=4, look_timeout_s=2, remind_after_s=2, ponder=False, time_budget_s=0.2)
        result = sim.game(settings, log, None).play()
    assert result.winner is None and result.stopped and "no move of yours seen" in result.stopped
    moved = [event for event in result.events if event.kind == "board_moved"]
    assert moved and "calibrate board" in moved[0].message  # named, not only "I cannot see the board"
    assert f"saved in {log}" in told[-1]
    assert GameLog.load(log).stopped == result.stopped  # --resume finds it


def test_a_stopped_game_without_a_log_is_not_called_saved(moved_board_config: Path) -> None:
    config = moved_board_config
    told: list[str] = []
    with SimGame(SimTableConfig(seed=3, calibration=config), robot_first=False, tell=told.append) as sim:
        settings = GameSettings(give_up_after_s=2, look_timeout_s=1, remind_after_s=1, ponder=False, time_budget_s=0.2)
        sim.game(settings, None, None).play()
    assert "saved" not in told[-1].replace("unsaved", "") and "unsaved" in told[-1]


def test_the_world_the_calibration_was_made_in_plays(tmp_path: Path, moved_board_config: Path) -> None:
    """`play --sim --board-x-mm 60` with the file calibrated there: the end of a game, every board agreeing."""
    table = SimTableConfig(seed=3, calibration=moved_board_config, board_x_mm=60)
    with SimGame(table, robot_first=False, tell=lambda m: None) as sim:
        summary = (
            sim.game(GameSettings(time_budget_s=0.2, ponder=False), tmp_path / "g.json", late_log()).play().summary()
        )
    assert summary["winner"] == "robot" and summary["board_agreement"] is True
    assert not summary["events"]
