"""The most likely board that a game can produce: gravity and disc counts as a dynamic programme.

Each cell has a score for holding a disc of colour 1 and of colour 2 (log-odds against being empty).
A legal board fills every column from the bottom without gaps. The two colours' counts differ by at
most one in a game of alternating turns; a board that breaks this (a misplay, a position set up by hand)
is unlikely but possible, so the imbalance beyond one costs a log-prior growing with its square instead
of being forbidden: clear evidence for a few extra discs outweighs it, a doubtful extra disc does not, and
a background seen through every hole can never pass for a board full of one colour. Columns are independent except for the count difference, so the search
runs column by column over that difference: per column the best fill for each height and each count
difference, then a max-plus convolution across columns. Exact, and well under a millisecond.
"""

from __future__ import annotations

import numpy as np

NEG_INF = -1e18


def _column_options(score_1: np.ndarray, score_2: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For every column, the best score per count difference (n1 - n2 + rows) and the fill achieving it.

    Returns best (cols, 2 rows + 1) and fills (cols, 2 rows + 1, rows) of 0/1/2, row 0 at the bottom.
    """
    rows, cols = score_1.shape
    best = np.full((cols, 2 * rows + 1), NEG_INF)
    fills = np.zeros((cols, 2 * rows + 1, rows), dtype=np.int8)
    column_index = np.arange(cols)
    for height in range(rows + 1):
        base = score_2[:height].sum(axis=0)
        gain = (score_1[:height] - score_2[:height]).T
        order = np.argsort(-gain, axis=1, kind="stable")
        cumulative = np.concatenate(
            [np.zeros((cols, 1)), np.cumsum(np.take_along_axis(gain, order, axis=1), axis=1)], axis=1
        )
        for ones in range(height + 1):
            value = base + cumulative[:, ones]
            difference = 2 * ones - height + rows
            better = value > best[:, difference]
            best[better, difference] = value[better]
            fill = np.zeros((cols, rows), dtype=np.int8)
            fill[:, :height] = 2
            fill[column_index[:, None], order[:, :ones]] = 1
            fills[better, difference] = fill[better]
    return best, fills


def imbalance_penalty(difference: np.ndarray | int, imbalance_cost: float) -> np.ndarray:
    """Log-prior cost of a count difference n1 - n2: `imbalance_cost` times the square of the excess over one."""
    return imbalance_cost * np.maximum(np.abs(difference) - 1, 0) ** 2


def best_legal_grid(score_1: np.ndarray, score_2: np.ndarray, imbalance_cost: float) -> tuple[float, np.ndarray]:
    """The gravity-respecting grid with the highest total score less its count-imbalance penalty.

    Scores are (rows, cols) arrays, row 0 at the bottom; an empty cell scores 0. `imbalance_cost` scales the
    squared excess of |n1 - n2| over 1 (0: counts free). Returns (total after the penalty, grid).
    """
    rows, cols = score_1.shape
    span = rows * cols
    options, fills = _column_options(score_1, score_2)
    shifts = np.arange(2 * rows + 1) - rows
    states = np.arange(2 * span + 1)
    source = states[None, :] - shifts[:, None]
    valid = (source >= 0) & (source <= 2 * span)
    source = np.clip(source, 0, 2 * span)
    totals = np.full(2 * span + 1, NEG_INF)
    totals[span] = 0.0
    choices = []
    for column in range(cols):
        candidate = np.where(valid, totals[source] + options[column][:, None], NEG_INF)
        choice = candidate.argmax(axis=0)
        choices.append(choice)
        totals = candidate[choice, states]
    totals = totals - imbalance_penalty(states - span, imbalance_cost)
    state = int(totals.argmax())
    total = float(totals[state])
    grid = np.zeros((rows, cols), dtype=np.int8)
    for column in range(cols - 1, -1, -1):
        option = int(choices[column][state])
        grid[:, column] = fills[column, option]
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
