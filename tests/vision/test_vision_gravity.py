"""The legal-board dynamic programme against brute force on small boards."""

from __future__ import annotations

import itertools

import numpy as np

from vision.gravity import best_legal_grid, count_problem, gravity_problems


def brute_force(score_1: np.ndarray, score_2: np.ndarray, allowed: tuple[int, ...]) -> float:
    rows, cols = score_1.shape
    fills = [np.array(list(combo) + [0] * (rows - height))
             for height in range(rows + 1) for combo in itertools.product([1, 2], repeat=height)]
    best = -np.inf
    for columns in itertools.product(fills, repeat=cols):
        grid = np.stack(columns, axis=1)
        if int((grid == 1).sum()) - int((grid == 2).sum()) in allowed:
            best = max(best, score_1[grid == 1].sum() + score_2[grid == 2].sum())
    return best


def test_dynamic_programme_matches_brute_force() -> None:
    rng = np.random.default_rng(0)
    for _ in range(12):
        rows, cols = int(rng.integers(1, 4)), int(rng.integers(1, 4))
        score_1, score_2 = rng.normal(size=(2, rows, cols)) * 3
        total, grid = best_legal_grid(score_1, score_2, (-1, 0, 1))
        assert np.isclose(total, brute_force(score_1, score_2, (-1, 0, 1)))
        assert np.isclose(total, score_1[grid == 1].sum() + score_2[grid == 2].sum())
        assert not gravity_problems(grid) and count_problem(grid) is None


def test_problems_name_the_floating_cell_and_the_counts() -> None:
    grid = np.zeros((6, 7), np.int8)
    grid[2, 3] = 1
    grid[0, :4] = 1
    assert gravity_problems(grid) == ["floating disc in column 4, row 3: a cell below it is empty"]
    assert "5 discs of one colour and 0" in count_problem(grid)
