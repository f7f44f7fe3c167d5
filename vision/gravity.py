"""The most likely board that a game can produce: gravity and disc counts as a dynamic programme.

Each cell has a score for holding a disc of colour 1 and of colour 2 (log-odds against being empty).
A legal board fills every column from the bottom without gaps, and the two colours' counts differ by
what alternating turns allow. Columns are independent except for the count difference, so the search
runs column by column over that difference: per column the best fill for each height and each count
difference, then a max-plus convolution across columns. Exact, and well under a millisecond.
"""

from __future__ import annotations

import numpy as np

NEG_INF = -1e18


def _column_options(score_1: np.ndarray, score_2: np.ndarray) -> tuple[np.ndarray, list[np.ndarray | None]]:
    """Best score of one column for each count difference (n1 - n2 + rows), and the fill achieving it."""
    rows = score_1.shape[0]
    best = np.full(2 * rows + 1, NEG_INF)
    fills: list[np.ndarray | None] = [None] * (2 * rows + 1)
    for height in range(rows + 1):
        base = float(score_2[:height].sum())
        gain = score_1[:height] - score_2[:height]
        order = np.argsort(-gain, kind="stable")
        cumulative = np.concatenate([[0.0], np.cumsum(gain[order])])
        for ones in range(height + 1):
            value = base + cumulative[ones]
            difference = 2 * ones - height + rows
            if value > best[difference]:
                best[difference] = value
                fill = np.zeros(rows, dtype=np.int8)
                fill[:height] = 2
                fill[order[:ones]] = 1
                fills[difference] = fill
    return best, fills


def best_legal_grid(score_1: np.ndarray, score_2: np.ndarray, allowed_differences: tuple[int, ...]) -> tuple[float, np.ndarray]:
    """The gravity-respecting grid with the highest total score whose n1 - n2 is one of `allowed_differences`.

    Scores are (rows, cols) arrays, row 0 at the bottom; an empty cell scores 0. Returns (total, grid).
    """
    rows, cols = score_1.shape
    span = rows * cols
    totals = np.full(2 * span + 1, NEG_INF)
    totals[span] = 0.0
    history = []
    for column in range(cols):
        options, fills = _column_options(score_1[:, column], score_2[:, column])
        new_totals = np.full_like(totals, NEG_INF)
        choice = np.full(totals.shape, -1, dtype=np.int64)
        for option, value in enumerate(options):
            if value <= NEG_INF / 2:
                continue
            shift = option - rows
            candidate = np.full_like(totals, NEG_INF)
            if shift >= 0:
                candidate[shift:] = totals[: totals.size - shift] + value
            else:
                candidate[:shift] = totals[-shift:] + value
            better = candidate > new_totals
            new_totals[better] = candidate[better]
            choice[better] = option
        history.append((choice, fills))
        totals = new_totals
    allowed = [span + difference for difference in allowed_differences if abs(difference) <= span]
    state = max(allowed, key=lambda index: totals[index])
    total = float(totals[state])
    grid = np.zeros((rows, cols), dtype=np.int8)
    for column in range(cols - 1, -1, -1):
        choice, fills = history[column]
        option = int(choice[state])
        grid[:, column] = fills[option]
        state -= option - rows
    return total, grid


def gravity_problems(grid: np.ndarray) -> list[str]:
    """Plain sentences for discs that float over an empty cell (1-based columns and rows from the bottom)."""
    problems = []
    rows, cols = grid.shape
    for column in range(cols):
        filled = grid[:, column] != 0
        for row in range(1, rows):
            if filled[row] and not filled[:row].all():
                problems.append(f"floating disc in column {column + 1}, row {row + 1}: a cell below it is empty")
    return problems


def count_problem(grid: np.ndarray) -> str | None:
    """A sentence when the two colours' counts differ by more than alternating turns allow."""
    ones, twos = int((grid == 1).sum()), int((grid == 2).sum())
    if abs(ones - twos) > 1:
        return f"{ones} discs of one colour and {twos} of the other: no game gives counts that far apart"
    return None
