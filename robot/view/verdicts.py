"""The engine's score of each column in words for a person: "win in 3", "draw", "loss in 2", or an evaluation.

Proven scores are on Pons' scale (engine.scores): for the side to move with `stones` on a board of `cells`,
playing a column that scores s > 0 wins with its k-th own disc from now, k = (cells + 3 - stones) // 2 - s;
s < 0 lets the opponent win with their m-th disc, m = (cells + 2 - stones) // 2 + s.
"""

from __future__ import annotations


def column_verdict(score: int | None, proven: bool, stones: int, cells: int, is_full: bool) -> str:
    """One column's verdict; "full", or "not searched" for an open column the search gave no score."""
    if score is None:
        return "full" if is_full else "not searched"
    if not proven:
        return f"eval {score:+d}"
    if score > 0:
        return f"win in {(cells + 3 - stones) // 2 - score}"
    if score < 0:
        return f"loss in {(cells + 2 - stones) // 2 + score}"
    return "draw"


def column_verdicts(search: dict | None, moves: list[int], rows: int) -> list[str]:
    """Every column's verdict from a game snapshot's "search" entry and its moves (empty before the first search).

    The search saw the board of the first `search["stones"]` moves: a column is full if it held `rows` discs then.
    """
    if search is None:
        return []
    scores, stones = search["column_scores"], search["stones"]
    before = moves[:stones]
    return [
        column_verdict(score, search["proven"], stones, rows * len(scores), before.count(column) >= rows)
        for column, score in enumerate(scores)
    ]
