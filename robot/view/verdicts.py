"""What each column is worth in words for a person: "win in 3", "draw", "loss in 2", "win", or an evaluation.

Proven scores are on Pons' scale (engine.scores): for the side to move with `stones` on a board of `cells`,
playing a column that scores s > 0 wins with its k-th own disc from now, k = (cells + 3 - stones) // 2 - s;
s < 0 lets the opponent win with their m-th disc, m = (cells + 2 - stones) // 2 + s.

`position_verdicts` judges every column of the position on the board, whoever is to move, without searching:
the robot's own search when it was of this position, else the package's books (the opening book's exact
scores, the early book's win/draw/loss), else what one look ahead proves (a winning drop, a drop that hands
the opponent a win). Each takes microseconds, so the live view works them out on its own thread on every
change; "not searched" is left only for a column none of these knows.
"""

from __future__ import annotations

from collections.abc import Callable

from engine import Position
from engine.package_books import book_score

NOT_SEARCHED = "not searched"
OUTCOME_WORDS = {1: "win", 0: "draw", -1: "loss"}  # the early book knows outcomes, not how many moves


def column_verdict(score: int | None, proven: bool, stones: int, cells: int, is_full: bool) -> str:
    """One column's verdict; "full", or "not searched" for an open column the search gave no score."""
    if score is None:
        return "full" if is_full else NOT_SEARCHED
    if not proven:
        return f"eval {score:+d}"
    if score > 0:
        return f"win in {(cells + 3 - stones) // 2 - score}"
    if score < 0:
        return f"loss in {(cells + 2 - stones) // 2 + score}"
    return "draw"


def position_verdicts(moves: list[int], rows: int, cols: int, search: dict | None = None) -> list[str]:
    """Every column's verdict for the side to move after `moves` (0-based columns); [] once the game is over.

    `search` (a game snapshot's "search") is used only when it was a search of this very position.
    """
    position = Position.from_moves("".join(str(column + 1) for column in moves), width=cols, height=rows)
    if position.is_over():
        return []
    stones, cells = len(moves), rows * cols
    fresh = search if search is not None and search["stones"] == stones else None
    verdicts = []
    for column in range(cols):
        searched = None if fresh is None else fresh["column_scores"][column]
        if not position.can_play(column):
            verdicts.append("full")
        elif searched is not None and fresh["proven"]:
            verdicts.append(column_verdict(searched, True, stones, cells, False))
        else:
            known = _known_verdict(position, column, stones, cells)
            if known is None and searched is not None:
                known = column_verdict(searched, False, stones, cells, False)
            verdicts.append(known or NOT_SEARCHED)
    return verdicts


def _known_verdict(position: Position, column: int, stones: int, cells: int) -> str | None:
    """What the books or one look ahead prove of dropping into `column`; None when they do not know."""
    if position.is_winning_move(column):
        return "win in 1"
    child = position.play(column)
    if child.is_draw():
        return "draw"
    exact = book_score(child)
    if exact is not None:
        return column_verdict(-exact, True, stones, cells, False)
    if any(child.is_winning_move(reply) for reply in child.legal_moves()):
        return "loss in 1"
    known = book_score(child, weak=True)
    return None if known is None else OUTCOME_WORDS[-known]


def verdicts_by_move(moves: list[int], rows: int, cols: int) -> list[list[str]]:
    """For a finished game's `--json`: every position's verdicts (after 0, 1, ... moves) from the books alone."""
    return [position_verdicts(moves[:count], rows, cols) for count in range(len(moves) + 1)]


def hint_line(moves: list[int], rows: int, cols: int) -> str:
    """`--hints`: the person's columns' verdicts as one line, columns 1-based, e.g. "Hints: 1 loss · 2 draw · ..."."""
    verdicts = position_verdicts(moves, rows, cols)
    if not verdicts:
        return "Hints: the game is over."
    return "Hints: " + " \u00b7 ".join(f"{column + 1} {verdict}" for column, verdict in enumerate(verdicts))


class HintTeller:
    """`--hints`, a game observer (Game.watch): once in each of the person's turns, `tell` their columns' verdicts.

    It works in the person's turn only, on the game's thread (about a millisecond of book lookups), so the robot's
    answer never waits for it."""

    def __init__(self, tell: Callable[[str], None]) -> None:
        self.tell = tell
        self._told_at: int | None = None  # the number of moves when the last hint was told

    def on_state(self, snapshot: dict) -> None:
        moves = snapshot["moves"]
        if snapshot["turn"] == "person" and len(moves) != self._told_at:
            self._told_at = len(moves)
            self.tell(hint_line(moves, snapshot["rows"], snapshot["cols"]))

    def on_frame(self, frame: object, reading: object) -> None:
        """Frames are not needed for hints."""
