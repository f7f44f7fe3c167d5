"""The legal-board dynamic programme against brute force on small boards."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from vision.gravity import best_legal_grid, count_problem, gravity_problems


def brute_force(score_1: np.ndarray, score_2: np.ndarray, imbalance_cost: float) -> float:
    rows, cols = score_1.shape
    fills = [
        np.array(list(combo) + [0] * (rows - height))
        for height in range(rows + 1)
        for combo in itertools.product([1, 2], repeat=height)
    ]
    best = -np.inf
    for columns in itertools.product(fills, repeat=cols):
        grid = np.stack(columns, axis=1)
        excess = max(abs(int((grid == 1).sum()) - int((grid == 2).sum())) - 1, 0) ** 2
        best = max(best, score_1[grid == 1].sum() + score_2[grid == 2].sum() - imbalance_cost * excess)
    return best


@pytest.mark.parametrize("imbalance_cost", [0.0, 2.0, 1e6])
def test_dynamic_programme_matches_brute_force(imbalance_cost: float) -> None:
    rng = np.random.default_rng(0)
    for _ in range(12):
        rows, cols = int(rng.integers(1, 4)), int(rng.integers(1, 4))
        score_1, score_2 = rng.normal(size=(2, rows, cols)) * 3 + 1
        total, grid = best_legal_grid(score_1, score_2, imbalance_cost)
        assert np.isclose(total, brute_force(score_1, score_2, imbalance_cost))
        excess = max(abs(int((grid == 1).sum()) - int((grid == 2).sum())) - 1, 0) ** 2
        assert np.isclose(total, score_1[grid == 1].sum() + score_2[grid == 2].sum() - imbalance_cost * excess)
        assert not gravity_problems(grid)
        if imbalance_cost > 1e5:
            assert count_problem(grid) is None


def test_clear_discs_beat_the_count_prior_doubtful_ones_do_not() -> None:
    """Four clear discs of one colour and none of the other (set up by hand) are read; doubtful ones are cut."""
    score_1 = np.full((2, 4), -20.0)
    score_2 = np.full((2, 4), -20.0)
    score_1[0, :] = 6.0
    total, grid = best_legal_grid(score_1, score_2, imbalance_cost=1.0)
    assert (grid[0] == 1).all() and np.isclose(total, 24.0 - 3**2)
    score_1[0, :] = 1.5
    _, grid = best_legal_grid(score_1, score_2, imbalance_cost=1.0)
    assert (grid == 1).sum() == 2


def test_problems_name_the_floating_cell_and_the_counts() -> None:
    grid = np.zeros((6, 7), np.int8)
    grid[2, 3] = 1
    grid[0, :4] = 1
    assert gravity_problems(grid) == ["floating disc in column 4, row 3: a cell below it is empty"]
    assert "5 discs of one colour and 0" in count_problem(grid)
