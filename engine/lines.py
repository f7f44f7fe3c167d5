"""The winning lines of a W x H board with connect-N, as index arrays for the playing kernels.

Pomakis' idea: number every group of N cells in a row (horizontal, vertical, both diagonals) that
could become a win, and tell every cell which groups it belongs to. Dropping a disc then only touches
the counts of the lines through its cell, which gives both the win test and the per-line statistics
of the evaluation, for any board size (9x7 and 8x8 included, where bitboards would need > 64 bits).

Cell numbering, column-major from the bottom (cell = col * H + row), e.g. 7x6:

     5 11 17 23 29 35 41
     4 10 16 22 28 34 40
     ...
     0  6 12 18 24 30 36
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

ZOBRIST_SEED = 20_011_992


@dataclass(frozen=True)
class Lines:
    """Every winning group of a board and the groups through every cell."""

    width: int
    height: int
    connect: int
    line_cells: np.ndarray  # (L, N) int32: the cells of each line
    cell_lines: np.ndarray  # (W*H, K) int32: the lines through each cell, padded with -1
    zobrist: np.ndarray  # (3, W*H) uint64: hash keys per player (index 1, 2) and cell

    @property
    def cells(self) -> int:
        return self.width * self.height


@functools.lru_cache(maxsize=8)
def board_lines(width: int, height: int, connect: int) -> Lines:
    """The lines of a width x height board where `connect` in a row wins.

    Raises ValueError when the board cannot hold a line of `connect` cells.
    """
    if width < 1 or height < 1 or connect < 2 or connect > max(width, height):
        raise ValueError(
            f"a {width}x{height} board cannot hold a line of {connect}: use a larger board or a smaller connect"
        )
    lines: list[list[int]] = []
    for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
        for col in range(width):
            for row in range(height):
                end_col, end_row = col + dc * (connect - 1), row + dr * (connect - 1)
                if 0 <= end_col < width and 0 <= end_row < height:
                    lines.append([(col + dc * k) * height + row + dr * k for k in range(connect)])
    line_cells = np.array(lines, dtype=np.int32)
    per_cell: list[list[int]] = [[] for _ in range(width * height)]
    for index, cells in enumerate(lines):
        for cell in cells:
            per_cell[cell].append(index)
    widest = max(len(entry) for entry in per_cell)
    cell_lines = np.full((width * height, widest), -1, dtype=np.int32)
    for cell, entry in enumerate(per_cell):
        cell_lines[cell, : len(entry)] = entry
    rng = np.random.default_rng(ZOBRIST_SEED + 1000 * width + 10 * height + connect)
    zobrist = rng.integers(1, 2**63, size=(3, width * height), dtype=np.int64).astype(np.uint64)
    return Lines(width, height, connect, line_cells, cell_lines, zobrist)
