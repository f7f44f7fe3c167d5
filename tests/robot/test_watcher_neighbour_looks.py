"""The watcher on a clear thick face seen aslant, where a new disc changes its neighbours' looks (issue 37: rooms
seed 19, a clear 10 mm face, matte blue and red discs, the webcam 39 degrees off axis). The person's blue disc beside
the robot's red one at the bottom showed past its rim on the red disc's face, and its top in the empty hole above
it: the red disc no longer looked as when confirmed, the hole above no longer as on the empty board, both read
unsure, and the game stopped at its 10th move."""

from __future__ import annotations

import numpy as np

from engine import Position
from robot.game.config import SimTableConfig
from robot.game.sim_table import SimGame
from tests.watched_drops import drop_and_confirm


def test_a_new_disc_beside_known_ones_leaves_them_and_the_hole_above_it_read_as_known():
    with SimGame(SimTableConfig(seed=19, opponent="engine:5", room="makes"), True, tell=lambda _: None) as game:
        watcher = game.watcher
        position = Position.empty()
        watcher.know(position.to_array())
        for move, column in enumerate((3, 3, 3, 3, 3, 1, 1, 6, 1, 4)):  # the robot's red first, the person's blue
            position = drop_and_confirm(game, position, column, robot=1, at_s=5.5 * (move + 1))
            reading = watcher.last_reading
            assert np.array_equal(game.table.true_board(), position.to_array())
            assert not reading.covered_holes.any(), f"move {move + 1}: {reading.problems}"
            assert np.array_equal(reading.grid, position.to_array()), f"move {move + 1}: {reading.problems}"
