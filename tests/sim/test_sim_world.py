"""The simulated world: discs land in the right cells, the board is read from physics, seeds repeat runs."""

from __future__ import annotations

import math
import sys

import numpy as np
import pytest

from sim import BoardPose, World, WorldConfig

NO_ARM = WorldConfig(arm=None)


def expected_grid(columns: list[int], rows: int = 6, cols: int = 7) -> np.ndarray:
    grid = np.zeros((rows, cols), dtype=np.int8)
    for turn, column in enumerate(columns):
        row = int(np.count_nonzero(grid[:, column]))
        grid[row, column] = 1 + turn % 2
    return grid


def play(world: World, columns: list[int]) -> list[int]:
    bodies = []
    for turn, column in enumerate(columns):
        bodies.append(world.drop_disc(column, 1 + turn % 2))
        assert world.wait_until_settled(3.0), f"disc {turn} in column {column} did not come to rest"
    return bodies


def test_discs_land_in_their_cells_and_board_state_reads_them() -> None:
    columns = [3, 3, 2, 4, 3, 0, 6, 6, 6, 6, 6, 6, 1, 5]
    with World(NO_ARM, seed=3) as world:
        bodies = play(world, columns)
        grid = world.board_state()
        assert world.disc_cell(bodies[-1]) == (0, 5)
    np.testing.assert_array_equal(grid, expected_grid(columns))


def test_a_full_column_holds_six_discs_and_the_board_can_be_emptied() -> None:
    with World(NO_ARM, seed=0) as world:
        play(world, [0] * 6)
        assert world.board_state()[:, 0].tolist() == [1, 2, 1, 2, 1, 2]
        world.clear_board()
        assert not world.board_state().any()


def test_offset_and_tilted_drops_still_land_right() -> None:
    with World(NO_ARM, seed=1) as world:
        for column, offset, tilt, yaw in [
            (0, (-0.004, 0.002), 0.09, 0.05),
            (6, (0.004, -0.002), -0.09, -0.05),
            (3, (0.004, 0.002), 0.09, -0.05),
        ]:
            body = world.drop_disc(column, 1, offset, tilt, yaw)
            assert world.wait_until_settled(3.0)
            assert world.disc_cell(body) == (0, column)


def test_moved_and_turned_board_still_guides_discs() -> None:
    pose = BoardPose(0.02, -0.01, math.radians(3.0))
    with World(NO_ARM.with_board_pose(pose.x_m, pose.y_m, pose.yaw_rad), seed=2) as world:
        columns = [0, 6, 6, 3]
        play(world, columns)
        np.testing.assert_array_equal(world.board_state(), expected_grid(columns))
        world.set_board_pose(BoardPose())
        np.testing.assert_array_equal(world.board_state(), expected_grid(columns))


def test_same_seed_same_world_different_seed_different_hand() -> None:
    def run(seed: int) -> tuple[np.ndarray, float]:
        with World(NO_ARM, seed=seed) as world:
            bodies = [world.human_drop(column, 1 + i % 2) for i, column in enumerate([3, 3, 4, 2])]
            poses = np.array([world.disc_pose(body)[0] for body in bodies])
            return poses, world.time_s

    first, again, other = run(7), run(7), run(8)
    np.testing.assert_array_equal(first[0], again[0])
    assert first[1] == again[1]
    assert other[1] != first[1]


def test_bad_input_is_a_value_error_naming_it() -> None:
    with World(NO_ARM) as world:
        with pytest.raises(ValueError, match="column 7"):
            world.drop_disc(7, 1)
        with pytest.raises(ValueError, match="player 3"):
            world.drop_disc(0, 3)
        with pytest.raises(RuntimeError, match="no arm"):
            world.grip()


def test_a_window_without_a_display_is_a_clear_os_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    if not sys.platform.startswith("linux"):
        pytest.skip("the display check is for Linux")
    with pytest.raises(OSError, match="DISPLAY"):
        World(NO_ARM, gui=True)
