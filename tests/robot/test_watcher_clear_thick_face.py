"""The watcher on a clear thick face seen from above and aside (issue 37: rooms seed 19, a clear 10 mm face, matte
blue and red discs, the webcam 39 degrees off axis): a disc shows past its rim under the face's tint, and the hole
just above a disc shows its top. The game stopped at 7 moves: the person's disc on the robot's was never confirmed,
the hole above a stack was doubted as "changed since the empty board", a disc seen past its rim was named covered."""

from __future__ import annotations

import numpy as np

from engine import Position
from robot.game.config import SimTableConfig
from robot.game.sim_table import SimGame
from tests.watched_drops import drop_and_confirm


def test_stacked_discs_behind_a_clear_thick_face_are_confirmed_as_the_world_has_them():
    with SimGame(SimTableConfig(seed=19, opponent="engine:5", room="makes"), True, tell=lambda _: None) as game:
        watcher = game.watcher
        position = Position.empty()
        watcher.know(position.to_array())
        for move, column in enumerate((3, 3, 3, 3, 3, 1, 1)):  # the robot's red first, then the person's blue
            position = drop_and_confirm(game, position, column, robot=1, at_s=12.0 * (move + 1))
            reading = watcher.last_reading
            assert np.array_equal(game.table.true_board(), position.to_array())
            assert not reading.covered_holes.any(), f"move {move + 1}: {reading.problems}"
            assert np.array_equal(reading.grid, position.to_array()), f"move {move + 1}: {reading.problems}"
