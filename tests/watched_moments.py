"""A simulated table's watcher set up as `play` sets one up (the calibrated corners and colours, the empty board's
frames), shown a few frames of each moment after a disc is dropped: every look at a moment sees the same frames,
so a look that fails does so on those frames, not on light that drifted further while it looked."""

from __future__ import annotations

import itertools

import numpy as np

from engine import Position
from robot.game.sim_table import SimGame
from robot.game.watcher import BoardWatcher

FRAMES_A_MOMENT = 4
SHAPE = (6, 7)


class Moment:
    """A few frames of the table taken 0.1 s apart, shown again and again."""

    def __init__(self, game: SimGame) -> None:
        self.frames = []
        for _ in range(FRAMES_A_MOMENT):
            self.frames.append(game.world.render_camera())
            game.world.step(0.1)
        self._next = itertools.cycle(self.frames)

    def read(self) -> np.ndarray:
        return next(self._next)

    def close(self) -> None:
        pass


def fresh_watcher(game: SimGame) -> BoardWatcher:
    """A watcher of `game`'s table that knows the empty board, its clock counting its looks."""
    watcher = BoardWatcher(Moment(game), SHAPE, game.watcher.corners, game.watcher.colours)
    watcher.set_empty_reference(watcher.camera.frames)
    looks = itertools.count()
    watcher.clock = lambda: 0.1 * next(looks)
    watcher.know(Position.empty().to_array())
    return watcher


def drop_and_look(game: SimGame, watcher: BoardWatcher, position: Position, column: int, at_s: float):
    """Drop the next disc of `position` into `column` (0-based; the robot's is the first player's), step the world
    to `at_s` seconds, let `watcher` look at that moment as the game does and know the new board; returns the
    reading and the position after it."""
    mover = 1 + position.moves_played % 2
    game.world.drop_disc(column, game.table.world_player(mover))
    game.world.wait_until_settled()
    game.world.step(max(0.0, at_s - game.world.time_s))
    watcher.camera = Moment(game)
    watcher.expected, watcher.person = ((column, mover), None) if mover == 1 else (None, mover)
    reading = watcher.look(2.0)
    watcher.expected = watcher.person = None
    position = position.play(column)
    watcher.know(position.to_array())
    return reading, position
