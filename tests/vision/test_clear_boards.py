"""Clear boards: a clear face shows a room of a disc's colour through its empty holes, which passes for discs of that
colour; read with calibrated colours but without the board the game knows, counts no game gives are not sure."""

from __future__ import annotations

import numpy as np
from conftest import RED_BGR, YELLOW_BGR, render_board

import vision
from vision.reliability import SURE

SHAPE = (6, 7)


def test_a_calibrated_reading_whose_counts_no_game_gives_is_not_sure_of_the_colour_in_excess() -> None:
    """A room of a disc's colour seen through a clear face's empty holes passes for discs of that colour (seed 9: a
    yellow cloth table behind translucent yellow discs): read without the board the game knows, the counts give it
    away. Here five red discs stand beside one yellow one."""
    grid = np.zeros(SHAPE, dtype=int)
    grid[0, :5], grid[0, 5] = 1, 2
    image, corners = render_board(grid)
    reading = vision.read(image, corners=corners, colours=[RED_BGR, YELLOW_BGR])
    assert (reading.grid == grid).all()
    assert (reading.confidence[grid == 1] < SURE).all() and (reading.confidence[grid != 1] >= SURE).all()
