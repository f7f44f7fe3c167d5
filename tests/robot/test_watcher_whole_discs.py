"""The watcher on a clear thick face seen aslant, where each disc shows whole through the face, wider than its hole
(issue 37: rooms seed 19, a clear 10 mm face, matte blue and red discs, the webcam 39 degrees off axis). The robot's
red disc on top of column 2's stack showed its red past its face ring all round and in the gap beside it, so the gap
read as something of a disc's colour in front of the board, and the game waited for a hand that was not there.

The watcher is set up as `play` sets one up: the calibrated corners and colours, the empty board's frames."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from engine import Position
from robot.game.config import SimTableConfig
from robot.game.sim_table import SimGame
from robot.game.watcher import BoardWatcher
from vision.moves import players_grid

FRAMES_A_MOVE = 4
SHAPE = (6, 7)


class _Moment:
    """A few frames of the table taken 0.1 s apart after a move, shown again and again: every look at it sees the
    same moment (the light drifts no further while the watcher looks)."""

    def __init__(self, game: SimGame) -> None:
        self.frames = []
        for _ in range(FRAMES_A_MOVE):
            self.frames.append(game.world.render_camera())
            game.world.step(0.1)
        self._next = itertools.cycle(self.frames)

    def read(self) -> np.ndarray:
        return next(self._next)

    def close(self) -> None:
        pass


@pytest.mark.parametrize(
    ("moves", "step_s"),
    [
        ((3, 3, 3, 3, 3, 1, 1, 6, 1, 4, 3, 6, 1), 5.5),  # the 13th disc tops column 2: its gaps show it
        ((3, 3, 3, 3, 3, 1, 1, 6, 1), 12.0),  # the 9th does, and the hole above it shows its top towards one gap
    ],
)
def test_a_disc_seen_whole_on_top_of_a_stack_is_read_uncovered(moves, step_s):
    with SimGame(SimTableConfig(seed=19, opponent="engine:5", room="makes"), True, tell=lambda _: None) as game:
        world = game.world
        watcher = BoardWatcher(_Moment(game), SHAPE, game.watcher.corners, game.watcher.colours)
        watcher.set_empty_reference(watcher.camera.frames)
        looks = itertools.count()
        watcher.clock = lambda: 0.1 * next(looks)
        position = Position.empty()
        watcher.know(position.to_array())
        for move, column in enumerate(moves):
            mover = 1 + move % 2  # the robot's red first, the person's blue
            world.drop_disc(column, game.table.world_player(mover))
            world.wait_until_settled()
            world.step(max(0.0, step_s * (move + 1) - world.time_s))
            watcher.camera = _Moment(game)
            watcher.expected, watcher.person = ((column, mover), None) if mover == 1 else (None, mover)
            reading = watcher.look(2.0)
            watcher.expected = watcher.person = None
            position = position.play(column)
            watcher.know(position.to_array())
            assert np.array_equal(game.table.true_board(), position.to_array())
            assert not reading.covered_holes.any(), f"move {move + 1}: {reading.problems}"
            assert np.array_equal(players_grid(position.to_array(), reading.grid), position.to_array())
