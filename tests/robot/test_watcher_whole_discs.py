"""The watcher on a clear thick face seen aslant, where each disc shows whole through the face, wider than its hole
(issue 37: rooms seed 19, a clear 10 mm face, matte blue and red discs, the webcam 39 degrees off axis). The robot's
red disc on top of column 2's stack showed its red past its face ring all round and in the gap beside it, so the gap
read as something of a disc's colour in front of the board, and the game waited for a hand that was not there."""

from __future__ import annotations

import numpy as np
import pytest

from engine import Position
from robot.game.config import SimTableConfig
from robot.game.sim_table import SimGame
from tests.watched_moments import drop_and_look, fresh_watcher
from vision.moves import players_grid


@pytest.mark.parametrize(
    ("moves", "step_s"),
    [
        ((3, 3, 3, 3, 3, 1, 1, 6, 1, 4, 3, 6, 1), 5.5),  # the 13th disc tops column 2: its gaps show it
        ((3, 3, 3, 3, 3, 1, 1, 6, 1), 12.0),  # the 9th does, and the hole above it shows its top towards one gap
    ],
)
def test_a_disc_seen_whole_on_top_of_a_stack_is_read_uncovered(moves, step_s):
    with SimGame(SimTableConfig(seed=19, opponent="engine:5", room="makes"), True, tell=lambda _: None) as game:
        watcher = fresh_watcher(game)
        position = Position.empty()
        for move, column in enumerate(moves):  # the robot's red first, the person's blue
            reading, position = drop_and_look(game, watcher, position, column, step_s * (move + 1))
            assert np.array_equal(game.table.true_board(), position.to_array())
            assert not reading.covered_holes.any(), f"move {move + 1}: {reading.problems}"
            assert np.array_equal(players_grid(position.to_array(), reading.grid), position.to_array())
