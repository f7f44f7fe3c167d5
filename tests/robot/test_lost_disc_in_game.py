"""A disc the robot loses (on the way, or knocked aside as the jaws open) is seen by the game: fetched again when
it is not on the board, the person told."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from robot.game.config import SimTableConfig
from robot.game.loop import GameSettings
from robot.game.sim_table import SimGame
from sim.upsets import knock_in_carry, knock_on_release


def test_a_disc_torn_out_on_the_way_is_fetched_again_and_the_person_told(tmp_path: Path) -> None:
    told: list[str] = []
    with SimGame(SimTableConfig(seed=4), robot_first=True, tell=told.append) as setup:
        settings = GameSettings(robot_first=True, time_budget_s=0.1, level=3, ponder=False, look_timeout_s=2.0)
        game = setup.game(settings, tmp_path / "game.json", None)
        knock_in_carry(setup.world, 1.4, (0.0, 0.0, 80.0))  # over the board: torn out of the jaws, off the table
        game._robot_turn()
        assert setup.world.discs_slipped == 1
        played = game.log.moves
        board = setup.table.true_board()
    assert any("slipped out of the gripper" in message and "fetch another" in message for message in told), told
    assert len(played) == 1 and game.log.board_agreement
    expected = np.zeros_like(board)
    expected[0, played[0]] = 1
    np.testing.assert_array_equal(board, expected)
    assert game.log.turns[0].column == played[0], "the second disc went where the robot meant"


def test_a_disc_knocked_aside_as_the_jaws_open_is_fetched_again(tmp_path: Path) -> None:
    told: list[str] = []
    with SimGame(SimTableConfig(seed=5), robot_first=True, tell=told.append) as setup:
        settings = GameSettings(robot_first=True, time_budget_s=0.1, level=3, ponder=False, look_timeout_s=2.0)
        game = setup.game(settings, tmp_path / "game.json", None)
        knock_on_release(setup.world, (0.0, -9.0, 0.0))  # towards the camera: out of the funnel, onto the table
        game._robot_turn()
        played = game.log.moves
        board = setup.table.true_board()
    assert any("did not land in the board" in message and "fetch another" in message for message in told), told
    assert len(played) == 1 and game.log.board_agreement
    expected = np.zeros_like(board)
    expected[0, played[0]] = 1
    np.testing.assert_array_equal(board, expected)
