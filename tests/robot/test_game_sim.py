"""Whole games in the simulated world: the summary, the board agreement, and what people really do."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from robot.cli import main
from robot.commands.game_commands import play_sim_game
from robot.game import GameLog


def _args(**overrides) -> argparse.Namespace:
    values = dict(seed=3, gui=False, opponent="random", robot_first=False, level=10, time_ms=300, record=None,
                  config=None, resume=False)
    values.update(overrides)
    return argparse.Namespace(**values)


def test_play_sim_prints_a_json_summary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["play", "--sim", "--seed", "3", "--time-ms", "300", "--json", "--log", str(tmp_path / "log.json")])
    summary = json.loads(capsys.readouterr().out)
    assert status == 0
    assert summary["winner"] in ("robot", "opponent", "draw")
    assert summary["board_agreement"] is True
    assert summary["turns"], "the robot made no move"
    for turn in summary["turns"]:
        assert turn["landed"] == turn["column"]
        assert set(turn) == {"column", "landed", "vision_s", "engine_s", "arm_s"}
    moves = summary["moves"]
    robot_columns = [int(c) for c in moves[0 if summary["robot_first"] else 1::2]]
    assert robot_columns == [turn["column"] for turn in summary["turns"]]
    assert GameLog.load(tmp_path / "log.json").move_string == moves


def test_robot_first_against_an_engine_person_wins_or_draws(tmp_path: Path) -> None:
    summary = play_sim_game(_args(robot_first=True, opponent="engine:3", seed=5), lambda m: None, tmp_path / "g.json")
    assert summary["winner"] in ("robot", "draw")
    assert summary["board_agreement"] is True


@pytest.mark.parametrize("trick", ["two_discs", "wrong_colour", "take_back"])
def test_what_people_do_is_told_and_the_game_goes_on(tmp_path: Path, trick: str) -> None:
    told: list[str] = []
    summary = play_sim_game(_args(seed=4), told.append, tmp_path / "g.json", mischief={1: trick})
    assert summary["events"], f"{trick} went unnoticed"
    assert summary["board_agreement"] is True
    assert summary["winner"] in ("robot", "opponent", "draw")
    assert any(event in told for event in summary["events"])


def test_resume_continues_the_logged_game(tmp_path: Path) -> None:
    log_path = tmp_path / "g.json"
    first = play_sim_game(_args(seed=6), lambda m: None, log_path)
    partial = GameLog.load(log_path)
    partial.moves = partial.moves[:3]
    partial.turns = partial.turns[:1]
    partial.winner = None
    partial.save(log_path)
    resumed = play_sim_game(_args(seed=6, resume=True), lambda m: None, log_path)
    assert resumed["moves"].startswith(first["moves"][:3])
    assert resumed["winner"] in ("robot", "opponent", "draw")


def test_play_needs_a_place_to_play(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play"]) == 2
    assert "--sim" in capsys.readouterr().err


def test_resume_without_a_log_is_one_clear_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--sim", "--resume", "--log", str(tmp_path / "none.json")]) == 1
    err = capsys.readouterr().err
    assert "no game log" in err and "Traceback" not in err


def test_damaged_log_is_refused_and_left_alone(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log_path = tmp_path / "g.json"
    log_path.write_text("{not json")
    assert main(["play", "--sim", "--resume", "--log", str(log_path)]) == 2
    assert "damaged" in capsys.readouterr().err
    assert log_path.read_text() == "{not json"
