"""The board as the terminal shows it, in the discs' own colours: the robot's yellow, the person's red.

The page and the video speak of yellow and red, so a terminal does too (ANSI colours, a round disc per hole).
Where colour is not wanted (output that is not a terminal, NO_COLOR set, TERM=dumb) the discs are the letters
X (first player) and O (second), and the legend names both, so every form of the board reads alike.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TextIO

import numpy as np

RESET = "\033[0m"
ROBOT_COLOUR = "\033[1;93m"  # bright yellow
PERSON_COLOUR = "\033[1;91m"  # bright red
EMPTY_COLOUR = "\033[2m"  # dim
DISC = "\u25cf"  # a filled circle
MIDDLE_DOT = "\u00b7"


def wants_colour(stream: TextIO, environ: Mapping[str, str] = os.environ) -> bool:
    """True when `stream` is a terminal and neither NO_COLOR (https://no-color.org) nor TERM=dumb says no."""
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty()) and not environ.get("NO_COLOR") and environ.get("TERM") != "dumb"


def mark(player: int) -> str:
    """The letter of player 1 (who starts) or 2, as the game's messages name them."""
    return "X" if player == 1 else "O"


def legend(robot_player: int, colour: bool, person_name: str = "you") -> str:
    """One line that ties the colours to the letters, e.g. "robot: yellow, O · you: red, X"."""
    person_player = 3 - robot_player
    robot = f"robot: yellow, {mark(robot_player)}"
    person = f"{person_name}: red, {mark(person_player)}"
    if colour:
        robot = f"{ROBOT_COLOUR}{DISC}{RESET} {robot}"
        person = f"{PERSON_COLOUR}{DISC}{RESET} {person}"
    return f"{robot} {MIDDLE_DOT} {person}"


def board_text(board: np.ndarray, robot_player: int, colour: bool) -> str:
    """`board` (rows, cols), row 0 at the bottom, 0 empty, 1 the first player, 2 the second, as lines: the top
    row first, 1-based column numbers below."""
    grid = np.asarray(board)
    if grid.ndim != 2:
        raise ValueError(f"a board of shape {grid.shape} is not (rows, cols)")
    if colour:
        shown = {
            0: f"{EMPTY_COLOUR}.{RESET}",
            robot_player: f"{ROBOT_COLOUR}{DISC}{RESET}",
            3 - robot_player: f"{PERSON_COLOUR}{DISC}{RESET}",
        }
    else:
        shown = {0: ".", 1: mark(1), 2: mark(2)}
    lines = [" ".join(shown[int(value)] for value in grid[row]) for row in range(grid.shape[0] - 1, -1, -1)]
    lines.append(" ".join(str(column + 1) for column in range(grid.shape[1])))
    return "\n".join(lines)
