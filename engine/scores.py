"""The score scale of the heuristic search, and its translation to Pons' scale.

Inside the search a forced win scores WIN minus the plies to the winning disc (so quicker wins score
higher and slower losses lose less), evaluations stay far below PROVEN, and INFINITY bounds all.
Pons' scale, used everywhere outside: (cells + 1 - stones before the winning disc) // 2, negative for
a loss, 0 for a draw.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engine.position import Position

WIN = 100_000
PROVEN = WIN - 1_000  # |score| above this: a forced win or loss
INFINITY = WIN + 1


def outcome(score: int) -> int:
    """Win 1, draw 0, loss -1: what the weak solver says of a position whose exact score is `score`."""
    return (score > 0) - (score < 0)


def is_proven(value: int) -> bool:
    """True for a search score that is a forced win or loss."""
    return abs(value) > PROVEN


def is_exact_at(value: int, depth: int) -> bool:
    """True when a win/loss found by a `depth`-ply search is also the quickest one: its plies fit the
    depth (forced-move extensions find longer wins that a quicker, unforced one may beat)."""
    return is_proven(value) and WIN - abs(value) <= depth


def pons_score(value: int, cells: int, played: int) -> int:
    """A search win/loss score, found with `played` stones on a board of `cells`, on Pons' scale."""
    plies = WIN - abs(value)
    magnitude = (cells + 2 - played - plies) // 2
    return magnitude if value > 0 else -magnitude


def column_scores(
    position: Position, child_score: Callable[[Position], int | None], weak: bool = False
) -> list[int | None] | None:
    """Pons' score of every column for the side to move, from `child_score` of the positions after it.

    A full column is None, a winning drop scores the quickest win (1 when `weak`), a full board after
    the drop 0, any other column minus its child's score. None when `child_score` knows a child not.
    """
    cells = position.width * position.height
    scores: list[int | None] = []
    for col in range(position.width):
        if not position.can_play(col):
            scores.append(None)
        elif position.is_winning_move(col):
            scores.append(1 if weak else (cells + 1 - position.moves_played) // 2)
        else:
            child = position.play(col)
            score = 0 if child.is_draw() else child_score(child)
            if score is None:
                return None
            scores.append(-score)
    return scores
