"""A reading judged against the board the game already knows.

Between two looks a game adds one disc, so a frame that shows many new discs is more likely something behind
or in front of the board passing for them (a background of a disc's colour seen through the empty holes) than a
move: those new discs are unsure and a problem says so. A person's second disc or a disc taken out still shows
(the move detector names them); a known disc read in the other colour cannot have changed colour, so it is
unsure too.

With the empty board's look (vision.unchanged), a hole the game knows empty that looks just as it did then, face
ring and all, holds no disc, whatever the room seen through it resembles (a yellow table seen through a clear
board's holes passes for yellow discs): it is read empty, and counts as no new disc.
"""

from __future__ import annotations

import numpy as np

from vision.gravity import count_problem

# More new discs than this since the board the game knows is not a move.
MAX_NEW_DISCS = 2
# The most a cell is trusted where the reading contradicts what the game knows.
CONTRADICTED_CONFIDENCE = 0.5
TOO_MANY_NEW = "{count} new discs since the last move: something looks like discs, looking again"
CHANGED_COLOUR = "{count} discs the game knows show the other colour: looking again"
UNPROVEN_REMOVAL = "{where} read empty, yet unlike the empty board: looking again"


def judged_against_known(
    grid: np.ndarray, confidence: np.ndarray, known: np.ndarray, is_named: bool
) -> tuple[np.ndarray, list[str]]:
    """The confidence of `grid` (row 0 at the bottom) lowered where it contradicts `known` (the board the game
    knows, same shape), and a sentence for each contradiction. `is_named`: the grid's values are the game's (read
    with calibrated colours); otherwise they are numbered by count and only the new discs are judged."""
    known = np.asarray(known)
    if known.shape != grid.shape:
        raise ValueError(
            f"the known board is {known.shape[0]}x{known.shape[1]}, the reading {grid.shape[0]}x{grid.shape[1]}"
        )
    problems = []
    new = (grid != 0) & (known == 0)
    if new.sum() > MAX_NEW_DISCS:
        problems.append(TOO_MANY_NEW.format(count=int(new.sum())))
        confidence = np.where(new, np.minimum(confidence, CONTRADICTED_CONFIDENCE), confidence)
    changed = (grid != 0) & (known != 0) & (grid != known) & is_named
    if changed.any():
        problems.append(CHANGED_COLOUR.format(count=int(changed.sum())))
        confidence = np.where(changed, np.minimum(confidence, CONTRADICTED_CONFIDENCE), confidence)
    return confidence, problems


def with_empty_look(
    grid: np.ndarray,
    problems: list[str],
    known: np.ndarray,
    as_on_empty_board: np.ndarray,
    empty_insides: np.ndarray | None = None,
) -> tuple[np.ndarray, list[str]]:
    """`grid` (row 0 at the bottom) with the holes `known` empty that look as on the empty board (`as_on_empty_board`,
    (rows, cols) bool) read empty, and the reading's `problems` with its count of discs (vision.gravity) for that
    grid. Holes whose insides alone look so (`empty_insides`: a clear face shows the disc below through its rim) are
    read empty too where other new discs remain: a single new disc is the person's move, however little it changed
    its hole (a dark ring disc before a dark room)."""
    known_empty = np.asarray(known) == 0
    unchanged = np.asarray(as_on_empty_board, dtype=bool) & known_empty & (grid != 0)
    emptied = np.where(unchanged, 0, grid).astype(np.int8)
    if empty_insides is not None:
        new = (emptied != 0) & known_empty
        inside_only = new & np.asarray(empty_insides, dtype=bool)
        if inside_only.any() and (new & ~inside_only).any():
            emptied = np.where(inside_only, 0, emptied).astype(np.int8)
    if (emptied == grid).all():
        return grid, problems
    counts = count_problem(emptied)
    kept = [problem for problem in problems if problem != count_problem(grid)]
    return emptied, kept + ([counts] if counts else [])


def doubted_removals(
    grid: np.ndarray, confidence: np.ndarray, covered: np.ndarray, known: np.ndarray, as_on_empty_board: np.ndarray
) -> tuple[np.ndarray, list[str]]:
    """The confidence of `grid` (row 0 at the bottom) lowered where a disc the game knows (`known`) reads gone, its
    hole not `covered`, yet does not look as on the empty board (`as_on_empty_board`, (rows, cols) bool): a disc
    taken out leaves its hole as it was then, a forearm across a clear board that the reader does not see in front
    does not; and a sentence when any is."""
    unproven = (np.asarray(known) != 0) & (grid == 0) & ~covered & ~np.asarray(as_on_empty_board, dtype=bool)
    if not unproven.any():
        return confidence, []
    where = ", ".join(f"column {column + 1} row {row + 1}" for row, column in np.argwhere(unproven))
    doubted = np.where(unproven, np.minimum(confidence, CONTRADICTED_CONFIDENCE), confidence)
    return doubted, [UNPROVEN_REMOVAL.format(where=where)]
