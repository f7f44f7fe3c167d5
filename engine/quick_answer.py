"""A move in a few milliseconds without the numba kernels, by rule: what a process answers while
loading the heuristic search's kernel would take the whole budget.

Loading numba and the search's kernel takes a fresh process longer than the 500 ms budget. The rule, in
pure Python: win at once if it can; else block the opponent's immediate win; never play right under a
cell where the opponent would win; among what is left, the move that leaves the most cells where one
more stone wins (the solver's own move ordering), centre first among equals. Where it wins at once or
every other move loses at once, its move keeps the game's value (`rule_keeps_value`), and a first
`c4robot move` answers with it at once (engine.resident.answer_move); elsewhere that call waits for the
engine. The books (numpy only) answer before either.
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
    column, wins, _ = _rule(position)
    legal = sum(position.can_play(col) for col in range(position.width))
    unknown = tuple(None for _ in range(position.width))
    score = (position.width * position.height + 1 - position.moves_played) // 2 if wins else 0
    return SearchResult(column, score, wins, 1, legal, ms_since(started), (column,), unknown)


def rule_keeps_value(position: Position) -> bool:
    """True when the rule's move keeps the game's value whatever the position's value is: it wins at once,
    or every other move loses at once (then the game's value rests on it alone, or is lost anyway).

    Raises ValueError for a finished game."""
    return _rule(position)[2]


def _rule(position: Position) -> tuple[int, bool, bool]:
    """(the rule's column, whether it wins at once, whether it keeps the value: see rule_keeps_value)."""
    if position.is_over():
        raise ValueError("the game is over: there is no move to search")
    geometry = position.geometry
    current, mask = position.bitboards
    legal = [col for col in centre_first(position.width) if position.can_play(col)]
    for col in legal:
        if position.is_winning_move(col):
            return col, True, True
    opponent_wins = geometry.winning_cells(current ^ mask, mask)

    def cell(col: int) -> int:
        return (mask + geometry.bottom[col]) & geometry.column_mask[col]

    forced = [col for col in legal if cell(col) & opponent_wins]
    safe = [col for col in legal if not (cell(col) << 1) & opponent_wins]
    candidates = forced or safe or legal
    column = max(
        candidates, key=lambda col: bin(geometry.winning_cells(current | cell(col), mask | cell(col))).count("1")
    )
    return column, False, bool(forced) or len(safe) <= 1
