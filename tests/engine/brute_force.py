"""An independent judge for the engine's tests: plain memoised minimax on small boards."""

from __future__ import annotations

import functools


def brute_force_scorer(width: int, height: int, connect: int):
    """Pons-convention score of a move string by plain memoised minimax on a grid (shares no engine code)."""
    cells = width * height

    def wins(grid: tuple[tuple[int, ...], ...], col: int, player: int) -> bool:
        row = len(grid[col]) - 1
        for d_col, d_row in ((1, 0), (0, 1), (1, 1), (1, -1)):
            run = 1
            for sign in (1, -1):
                c, r = col + sign * d_col, row + sign * d_row
                while 0 <= c < width and 0 <= r < len(grid[c]) and grid[c][r] == player:
                    run += 1
                    c, r = c + sign * d_col, r + sign * d_row
            if run >= connect:
                return True
        return False

    @functools.cache
    def score(grid: tuple[tuple[int, ...], ...], played: int) -> int:
        player = 1 + played % 2
        best = None
        for col in range(width):
            if len(grid[col]) == height:
                continue
            child = grid[:col] + (grid[col] + (player,),) + grid[col + 1 :]
            if wins(child, col, player):
                return (cells + 1 - played) // 2
            value = -score(child, played + 1)
            best = value if best is None else max(best, value)
        return 0 if best is None else best

    def score_of_moves(moves: str) -> int:
        grid: tuple[tuple[int, ...], ...] = tuple(() for _ in range(width))
        for played, char in enumerate(moves):
            col = int(char) - 1
            grid = grid[:col] + (grid[col] + (1 + played % 2,),) + grid[col + 1 :]
        return score(grid, len(moves))

    return score_of_moves
