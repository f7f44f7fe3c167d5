"""The game's watcher on boards of the makes rooms (sim.makes, issue 37): what the game can tell apart is not named
as colours too close, nor a disc it can see as something in front of the board. Sim frames of the rooms' own
tables, their light held still."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from calibration import sim_setup
from robot.game.events import EventKind
from robot.game.sim_table import PERSON_DISCS, ROBOT_DISCS
from robot.game.watcher import EMPTY_REFERENCE_FRAMES, BoardWatcher
from sim import World, WorldConfig
from sim.config import ArmMount
from sim.room import furnish, room_for
from vision.cameras import StillCamera
from vision.moves import players_grid

SHAPE = (6, 7)


@dataclasses.dataclass
class Table:
    world: World
    watcher: BoardWatcher
    said: list

    def frames(self, *drops: tuple[int, int]) -> list[np.ndarray]:
        """The frames after each disc dropped ((column, world player) each), which are then taken out again; the
        watcher knows the empty board and has named nothing yet."""
        bodies, frames = [], []
        try:
            for column, player in drops:
                bodies.append(self.world.drop_disc(column, player))
                self.world.wait_until_settled()
                frames.append(self.world.render_camera())
        finally:
            for body in bodies:
                self.world.remove_disc(body)
        self.said.clear()
        self.watcher.know(np.zeros(SHAPE, np.int8))
        return frames


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


def _look_for_robots_disc(watcher: BoardWatcher, frame: np.ndarray, column: int) -> None:
    """A look at `frame` as the game's after the robot (the first player) dropped its disc into `column`."""
    watcher.camera, watcher.expected = StillCamera(frame), (column, 1)
    try:
        watcher.look(5.0)
    finally:
        watcher.expected = None


def test_black_discs_the_game_tells_from_a_dark_room_are_not_named_too_close(speckled_black_before_a_dark_room):
    table = speckled_black_before_a_dark_room
    (frame,) = table.frames((3, ROBOT_DISCS))
    _look_for_robots_disc(table.watcher, frame, 3)
    board = np.zeros(SHAPE, np.int8)
    board[0, 3] = 1
    table.watcher.know(board)
    assert EventKind.COLOURS_TOO_CLOSE not in table.said


def test_a_dark_disc_read_as_covered_with_nothing_before_the_board_is_the_persons(speckled_black_before_a_dark_room):
    """The person's speckled black disc on the robot's: a reader that takes it for a shadow in front of the hole is
    overruled, as the face round the hole is as on the empty board (read at INFERRED_CONFIDENCE), and one that reads
    it surely reads it right."""
    table = speckled_black_before_a_dark_room
    robots, both = table.frames((3, ROBOT_DISCS), (3, PERSON_DISCS))
    _look_for_robots_disc(table.watcher, robots, 3)
    board = np.zeros(SHAPE, np.int8)
    board[0, 3] = 1
    table.watcher.know(board)
    table.watcher.camera, table.watcher.person = StillCamera(both), 2
    reading = table.watcher.look(5.0)
    assert not reading.covered_holes.any()
    assert reading.grid[1, 3] == 2
    expected = board.copy()
    expected[1, 3] = 2
    assert (players_grid(board, reading.grid) == expected).all()
