"""The robot seed document's own player, re-implemented as an opponent for `c4robot match`.

Faithful to ../shared/seeds/001_...: minimax to depth 4 with alpha-beta, the bot as maximiser; leaves
scored by `score_position` (3 per own disc in the centre column, then every window of four: +100 for
four own, +5 for three own and an empty, +2 for two own and two empty, -4 for three of the opponent
and an empty); terminal positions +-9999999 whatever their depth (so it does not prefer quick wins);
each node starts from a random legal column and keeps the first strictly better one, in column order.
Only the window scan is vectorised with numpy; the choices are the seed's.
"""

from __future__ import annotations

import functools
import random

import numpy as np

SEED_DEPTH = 4
TERMINAL_SCORE = 9_999_999
WINDOW = 4


@functools.lru_cache(maxsize=4)
def _windows(rows: int, cols: int) -> np.ndarray:
    """Flat indices (row * cols + col) of every window of four: the seed's scanning ranges."""
    found = []
    for dr, dc in ((0, 1), (1, 0), (1, 1), (-1, 1)):
        for row in range(rows):
            for col in range(cols):
                cells = [(row + dr * k, col + dc * k) for k in range(WINDOW)]
                if all(0 <= r < rows and 0 <= c < cols for r, c in cells):
                    found.append([r * cols + c for r, c in cells])
    return np.array(found, dtype=np.int64)


def _window_counts(board: np.ndarray, piece: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    windows = board.reshape(-1)[_windows(*board.shape)]
    own = (windows == piece).sum(axis=1)
    empty = (windows == 0).sum(axis=1)
    return own, empty, WINDOW - own - empty


def score_position(board: np.ndarray, piece: int) -> int:
    """The seed's heuristic score of `board` (rows x cols, row 0 at the bottom) for `piece`."""
    own, empty, opponent = _window_counts(board, piece)
    score = 3 * int((board[:, board.shape[1] // 2] == piece).sum())
    score += 100 * int((own == 4).sum())
    score += 5 * int(((own == 3) & (empty == 1)).sum())
    score += 2 * int(((own == 2) & (empty == 2)).sum())
    score -= 4 * int(((opponent == 3) & (empty == 1)).sum())
    return score


def _has_four(board: np.ndarray, piece: int) -> bool:
    own, _, _ = _window_counts(board, piece)
    return bool((own == WINDOW).any())


def _valid_columns(board: np.ndarray) -> list[int]:
    return [col for col in range(board.shape[1]) if board[-1, col] == 0]


def _drop(board: np.ndarray, col: int, piece: int) -> np.ndarray:
    child = board.copy()
    row = int(np.argmax(child[:, col] == 0))
    child[row, col] = piece
    return child


def _minimax(
    board: np.ndarray, depth: int, alpha: float, beta: float, maximising: bool, bot: int, rng: random.Random
) -> tuple[int | None, float]:
    person = 3 - bot
    valid = _valid_columns(board)
    bot_won, person_won = _has_four(board, bot), _has_four(board, person)
    if depth == 0 or bot_won or person_won or not valid:
        if bot_won:
            return None, TERMINAL_SCORE
        if person_won:
            return None, -TERMINAL_SCORE
        if not valid:
            return None, 0
        return None, score_position(board, bot)
    column = rng.choice(valid)
    if maximising:
        value = -float(TERMINAL_SCORE)
        for col in valid:
            score = _minimax(_drop(board, col, bot), depth - 1, alpha, beta, False, bot, rng)[1]
            if score > value:
                value, column = score, col
            alpha = max(alpha, value)
            if alpha >= beta:
                break
        return column, value
    value = float(TERMINAL_SCORE)
    for col in valid:
        score = _minimax(_drop(board, col, person), depth - 1, alpha, beta, True, bot, rng)[1]
        if score < value:
            value, column = score, col
        beta = min(beta, value)
        if alpha >= beta:
            break
    return column, value


def seed_move(board: np.ndarray, side: int, rng: random.Random | None = None) -> int:
    """The column (0-based) the seed bot plays for `side` (1 or 2) on a numpy board.

    Raises ValueError when the board has no legal move.
    """
    board = np.asarray(board, dtype=np.int8)
    if not _valid_columns(board):
        raise ValueError("the board is full: the seed bot has no move to play")
    column, _ = _minimax(board, SEED_DEPTH, -float("inf"), float("inf"), True, side, rng or random.Random())
    return int(column)
