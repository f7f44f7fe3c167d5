"""Games in rooms where one photo cannot prove every empty hole empty (a wooden table seen through the bottom holes
in warm light): the game trusts the holes it knows are empty while they look as they did on the empty board."""

from __future__ import annotations

import contextlib
from pathlib import Path

import numpy as np
import pytest

import calibration
from robot.game.config import GameSettings, SimTableConfig
from robot.game.play import play_sim_game, sim_settings
from robot.game.real_table import ASK_EMPTY, learn_empty_board
from robot.game.watcher import BoardWatcher
from sim import World
from sim.room import furnish, room_for
from tests.late_games import late_log
from vision.cameras import SimCamera


def test_a_game_in_a_room_whose_empty_holes_the_reader_doubts_finishes_in_agreement(tmp_path: Path) -> None:
    told: list[str] = []
    table = SimTableConfig(seed=6, room="varied")
    settings = sim_settings(GameSettings(time_budget_s=0.3, seed=6), give_up_s=120.0)
    summary = play_sim_game(table, settings, told.append, tmp_path / "g.json", late_log())
    assert summary["winner"] in ("robot", "opponent", "draw"), f"the game did not finish: {told[-3:]}"
    assert summary["board_agreement"] is True
    assert not any(event["kind"] == "board_unseen" for event in summary["events"]), summary["events"]


@contextlib.contextmanager
def _empty_board(kind: str, seed: int):
    """The world of a room, and a maker of watchers over its camera with its exact calibration."""
    with World(seed=seed) as world:
        furnish(world, room_for(kind, seed))
        setup = calibration.sim_setup(world)
        colours = (setup.colours.robot_bgr, setup.colours.person_bgr)
        yield world, lambda: BoardWatcher(SimCamera(world), (6, 7), np.asarray(setup.board.corners_px), colours)


def test_a_real_game_learns_a_board_it_reads_empty_for_sure_without_asking_and_not_one_with_discs() -> None:
    with _empty_board("plain", 0) as (world, new_watcher):
        watcher = new_watcher()
        # A board read sure is learnt as soon as three frames agree: the timeout leaves a loaded machine time for them.
        assert learn_empty_board(watcher, 10.0, lambda question: pytest.fail("asked of a board read empty for sure"))
        assert watcher.empty_reference is not None
        world.drop_disc(3, 1)
        world.wait_until_settled()
        watcher = new_watcher()
        assert not learn_empty_board(watcher, 10.0, lambda question: pytest.fail("asked with a disc on the board"))
        assert watcher.empty_reference is None


def test_a_real_game_asks_once_when_it_cannot_be_sure_the_board_is_empty() -> None:
    # Room 'varied' 32: the reader is unsure of 18 of the empty board's holes (seed 6's wooden table, unsure until
    # the reader looked for disc colours in each hole's own light, is read sure now).
    with _empty_board("varied", 32) as (_, new_watcher):
        asked: list[str] = []
        watcher = new_watcher()
        assert learn_empty_board(watcher, 2.0, lambda question: asked.append(question) or True)
        assert watcher.empty_reference is not None and asked == [ASK_EMPTY]
        refused = new_watcher()
        assert not learn_empty_board(refused, 2.0, lambda question: False)
        assert not learn_empty_board(refused, 2.0, None)
        assert refused.empty_reference is None
