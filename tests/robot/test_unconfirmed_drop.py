"""A camera that fails after the arm let the robot's disc go, before it saw the disc land: the log keeps that drop as
unconfirmed, and `--resume` counts it when the board shows it (and a person's disc played meanwhile) or plays the
turn again when it does not."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from engine import Position
from robot.game.config import SimTableConfig
from robot.game.log import GameLog
from robot.game.loop import GameSettings
from robot.game.sim_table import SimGame


class _CameraGone:
    """A camera unplugged: every read fails as a real one does."""

    def read(self) -> np.ndarray:
        raise ConnectionError("camera 0 gave no frame: check the cable or the stream URL")

    def close(self) -> None:
        pass


def test_a_camera_lost_after_the_drop_leaves_the_drop_unconfirmed_in_the_saved_log(tmp_path: Path) -> None:
    log_path = tmp_path / "game.json"
    with SimGame(SimTableConfig(seed=4), robot_first=True, tell=lambda _: None) as setup:
        settings = GameSettings(robot_first=True, time_budget_s=0.1, level=3, ponder=False, look_timeout_s=2.0)
        game = setup.game(settings, log_path, None)
        drop = setup.table.robot_drop

        def drop_then_lose_the_camera(column: int) -> float:
            arm_s = drop(column)
            game.watcher.camera = _CameraGone()
            return arm_s

        setup.table.robot_drop = drop_then_lose_the_camera
        with pytest.raises(ConnectionError, match="gave no frame"):
            game._robot_turn()
        landed = int(np.flatnonzero(setup.table.true_board()[0])[0])
    saved = GameLog.load(log_path)
    assert saved.moves == [] and saved.unconfirmed == landed
    assert json.loads(log_path.read_text())["unconfirmed"] == landed + 1  # 1-based, as everything a person reads


def _grid(moves: str) -> np.ndarray:
    return Position.from_moves(moves).to_array()


def _log(moves: str, unconfirmed: int | None) -> GameLog:
    return GameLog(robot_first=True, rows=6, cols=7, moves=[int(c) - 1 for c in moves], unconfirmed=unconfirmed)


@pytest.mark.parametrize(
    ("moves", "unconfirmed", "board", "after"),
    [
        ("44", 2, "443", "443"),  # the disc is where it was meant to go
        ("44", 2, "44", "44"),  # it never arrived: the robot plays that turn again
        ("44", 2, "445", "445"),  # it went elsewhere: the board is the truth
        ("44", 2, "4435", "4435"),  # and the person played their turn while the game stood still
        ("44", None, "44", "44"),
        ("443", None, "4436", "4436"),  # a person's move made while the game stood still at their turn
    ],
)
def test_a_resumed_board_settles_the_unconfirmed_drop(
    moves: str, unconfirmed: int | None, board: str, after: str
) -> None:
    log = _log(moves, unconfirmed)
    log.take_board(_grid(board))
    assert log.move_string == after and log.unconfirmed is None


@pytest.mark.parametrize(
    ("moves", "unconfirmed", "board"),
    [("44", 2, "44355"), ("44", None, "443"), ("44", 2, "45"), ("443", None, "44366"), ("443", None, "44")],
)
def test_a_board_other_than_the_log_and_what_stood_still_is_refused(
    moves: str, unconfirmed: int | None, board: str
) -> None:
    with pytest.raises(RuntimeError, match="not the one in the game log"):
        _log(moves, unconfirmed).take_board(_grid(board))


def test_the_swapped_colours_of_a_reading_are_matched_to_the_players() -> None:
    log = _log("44", 2)
    log.take_board(np.where(_grid("443") == 0, 0, 3 - _grid("443")))
    assert log.move_string == "443"


@pytest.mark.parametrize("value", [0, 8, "3", True, 1.5])
def test_an_unconfirmed_column_that_is_not_one_is_refused(value: object) -> None:
    document = {"version": 2, **_log("44", None).summary(), "unconfirmed": value}
    with pytest.raises(ValueError, match="unconfirmed"):
        GameLog.from_document(document)


def test_an_unconfirmed_drop_in_the_person_s_turn_is_refused() -> None:
    document = {"version": 2, **_log("444", None).summary(), "unconfirmed": 3}
    with pytest.raises(ValueError, match="robot's turn"):
        GameLog.from_document(document)
