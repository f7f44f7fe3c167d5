"""The game's watcher on boards of the makes rooms (sim.makes, issue 37): what the game can tell apart is not named
as colours too close, nor a disc it can see as something in front of the board. Sim frames of the rooms' own
tables, their light held still."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from calibration import sim_setup
from robot.game.events import EventKind
from robot.game.sim_table import ROBOT_DISCS
from robot.game.watcher import EMPTY_REFERENCE_FRAMES, BoardWatcher
from sim import World, WorldConfig
from sim.config import ArmMount
from sim.room import furnish, room_for
from vision.cameras import StillCamera

SHAPE = (6, 7)


@dataclasses.dataclass
class Table:
    world: World
    watcher: BoardWatcher
    said: list

    def show(self, *drops: tuple[int, int]) -> np.ndarray:
        """Drop discs ((column, world player) each) and give the watcher the frame that shows them."""
        for column, player in drops:
            self.world.drop_disc(column, player)
            self.world.wait_until_settled()
        frame = self.world.render_camera()
        self.watcher.camera = StillCamera(frame)
        return frame


def _table(seed: int) -> Table:
    """The makes room of `seed`, its light held still, set up as a sim game sets it up (robot first)."""
    world = World(WorldConfig(arm=ArmMount.named("c4arm")), seed=seed)
    furnish(world, dataclasses.replace(room_for("makes", seed), drift=None))
    setup = sim_setup(world, ROBOT_DISCS)
    colours = (setup.colours.robot_bgr, setup.colours.person_bgr)
    watcher = BoardWatcher(StillCamera(world.render_camera()), SHAPE, np.asarray(setup.board.corners_px), colours)
    watcher.set_empty_reference([world.render_camera() for _ in range(EMPTY_REFERENCE_FRAMES)])
    said: list = []
    watcher.notify = lambda kind, **params: said.append(kind)
    return Table(world, watcher, said)


@pytest.fixture(scope="module")
def speckled_black_before_a_dark_room():
    """Seed 1's room: a blue board, speckled black and yellow discs, seen 38 degrees aside and from above; the arm's
    dark base and a purple wall show through many empty holes."""
    table = _table(1)
    with table.world:
        yield table


def test_black_discs_the_game_tells_from_a_dark_room_are_not_named_too_close(speckled_black_before_a_dark_room):
    table = speckled_black_before_a_dark_room
    board = np.zeros(SHAPE, np.int8)
    table.watcher.know(board)
    board[0, 3] = 1
    table.show((3, ROBOT_DISCS))
    table.watcher.look(5.0)
    table.watcher.know(board)
    assert EventKind.COLOURS_TOO_CLOSE not in table.said
