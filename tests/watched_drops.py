"""A disc dropped into a simulated table and confirmed by its game's watcher, as the game loop does it: the
robot's disc as the one expected, the person's as their move."""

from __future__ import annotations

from engine import Position
from robot.game.sim_table import SimGame


def drop_and_confirm(game: SimGame, position: Position, column: int, robot: int, at_s: float | None = None) -> Position:
    """Drop the next disc of `position` into `column` (0-based), step the world to `at_s` seconds if given, let the
    watcher look (`robot`: the robot's player, 1 or 2) and know the new board; returns the position after it."""
    watcher, world = game.watcher, game.world
    mover = 1 + position.moves_played % 2
    world.drop_disc(column, game.table.world_player(mover))
    world.wait_until_settled()
    if at_s is not None:
        world.step(max(0.0, at_s - world.time_s))
    if mover == robot:
        watcher.expected = column, mover
    else:
        watcher.person = mover
    watcher.look(5.0)
    watcher.expected = watcher.person = None
    position = position.play(column)
    watcher.know(position.to_array())
    return position
