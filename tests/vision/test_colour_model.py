"""The colour model learnt from every disc the game knows (issue 37 item 1): its colours follow the light of the
last moves, read the board right, and it says when colours cannot be told apart."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import RED_BGR, YELLOW_BGR, Scene, random_game_grid, render_board

import vision
from vision.colour_model import ColourModel
from vision.degrade import WARM_GAINS_BGR, white_balance
from vision.reliability import SURE


def test_colours_learnt_from_the_known_discs_read_the_board() -> None:
    model = ColourModel()
    assert model.colours() is None
    grid = random_game_grid(12, seed=11)
    image, corners = render_board(grid, Scene(light_gradient=0.25, noise_sigma=3.0, seed=11))
    model.learn(image, corners, grid)
    colours = model.colours()
    assert (
        np.abs(np.subtract(colours[0], RED_BGR)).max() < 40 and np.abs(np.subtract(colours[1], YELLOW_BGR)).max() < 40
    )
    reading = vision.read(image, corners=corners, colours=colours)
    assert (reading.grid == grid).all() and (reading.confidence >= SURE).all()
    assert model.separation_problem() is None


def test_the_model_follows_the_light_of_the_last_moves() -> None:
    model = ColourModel(recent=4)
    grid = random_game_grid(16, seed=12)
    image, corners = render_board(grid, Scene(seed=12))
    model.learn(image, corners, grid)
    before = np.array(model.colours())
    warm = white_balance(image, WARM_GAINS_BGR)
    model.learn(warm, corners, grid)
    after = np.array(model.colours())
    expected = white_balance(before[None].astype(np.uint8), WARM_GAINS_BGR)[0].astype(int)
    assert np.abs(after - expected).max() <= 12, "the colours are the last (warm) frame's, not the first's"
    reading = vision.read(warm, corners=corners, colours=tuple(map(tuple, after)))
    assert (reading.grid == grid).all()


def test_colours_too_close_to_each_other_or_to_the_empty_holes_are_named() -> None:
    grid = random_game_grid(10, seed=13)
    alike, _ = render_board(grid, Scene(disc_bgr=(RED_BGR, (42, 42, 196)), seed=13))
    corners = render_board(grid, Scene(seed=13))[1]
    model = ColourModel()
    model.learn(alike, corners, grid)
    assert "look alike" in model.separation_problem()
    pale = (222, 226, 226)
    like_room, _ = render_board(
        grid, Scene(disc_bgr=(RED_BGR, pale), background_bgr=((228, 230, 230), (220, 224, 224)), seed=13)
    )
    model = ColourModel()
    model.learn(like_room, corners, grid)
    assert "player 2's discs look like what shows through the empty holes" in model.separation_problem()
    with pytest.raises(ValueError, match="known board is 5x7"):
        model.learn(like_room, corners, np.zeros((5, 7)))
