"""A move in a few milliseconds without the numba kernels: what a fresh process answers (`c4robot move`
with no resident engine yet) when loading the heuristic search's kernel would take the whole budget.

Loading numba and the search's kernel takes a fresh process longer than the 500 ms budget, so such a
process answers by rule, in pure Python: win at once if it can; else block the opponent's immediate
win; never play right under a cell where the opponent would win; among what is left, the move that
leaves the most cells where one more stone wins (the solver's own move ordering), centre first among
equals. The books (numpy only) answer before this; the resident engine started by that first call
answers the later ones.
"""

from __future__ import annotations

import sys

from engine.position import Position, centre_first
from engine.search_types import SearchResult, ms_since

KERNEL_LOAD_S = 1.0  # numba and the heuristic search's kernel in a fresh process, with margin


def kernels_loaded() -> bool:
    """True once this process has loaded (or compiled) the heuristic search's kernel."""
    module = sys.modules.get("engine.alphabeta")
    return module is not None and bool(module._search.signatures)


def quick_answer(position: Position, started: float) -> SearchResult:
    """The rule-based move of the module's docstring; proven (with its exact score) only when it wins at once.

    Raises ValueError for a finished game."""
    if position.is_over():
        raise ValueError("the game is over: there is no move to search")
    geometry = position.geometry
    current, mask = position.bitboards
    legal = [col for col in centre_first(position.width) if position.can_play(col)]
    unknown = tuple(None for _ in range(position.width))
    for col in legal:
        if position.is_winning_move(col):
            score = (position.width * position.height + 1 - position.moves_played) // 2
            return SearchResult(col, score, True, 1, len(legal), ms_since(started), (col,), unknown)
    opponent_wins = geometry.winning_cells(current ^ mask, mask)

    def cell(col: int) -> int:
        return (mask + geometry.bottom[col]) & geometry.column_mask[col]

    forced = [col for col in legal if cell(col) & opponent_wins]
    candidates = forced or [col for col in legal if not (cell(col) << 1) & opponent_wins] or legal
    column = max(
        candidates, key=lambda col: bin(geometry.winning_cells(current | cell(col), mask | cell(col))).count("1")
    )
    return SearchResult(column, 0, False, 1, len(legal), ms_since(started), (column,), unknown)
