"""What a person does at the terminal or in a window during calibration: single keys, Enter, clicks.

Kept apart from the commands so the procedures in `calibration/` take plain callables and run in tests.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # numpy loads where it is used: `c4robot move` does without it
    import numpy as np


def has_display() -> bool:
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")) or sys.platform in ("win32", "darwin")


def click_corners(image: np.ndarray) -> np.ndarray:
    """Four clicks on the corner holes (tl, tr, br, bl) in an OpenCV window."""
    import cv2
    import numpy as np

    if not has_display():
        raise OSError("no display for --click: give --corners, or let the board be found automatically")
    clicks: list[tuple[float, float]] = []
    window = "click the centres of the top-left, top-right, bottom-right, bottom-left holes (Esc cancels)"

    def on_mouse(event: int, x: int, y: int, *_: object) -> None:
        if event == cv2.EVENT_LBUTTONDOWN and len(clicks) < 4:
            clicks.append((float(x), float(y)))

    cv2.namedWindow(window)
    cv2.setMouseCallback(window, on_mouse)
    try:
        while len(clicks) < 4:
            shown = image.copy()
            for x, y in clicks:
                cv2.circle(shown, (int(x), int(y)), 6, (0, 255, 0), 2)
            cv2.imshow(window, shown)
            if cv2.waitKey(30) == 27:
                raise KeyboardInterrupt
    finally:
        cv2.destroyWindow(window)
    return np.array(clicks)


def read_key() -> str:
    """One key press from the terminal, without Enter ('' at the end of the input)."""
    import termios
    import tty

    descriptor = sys.stdin.fileno()
    saved = termios.tcgetattr(descriptor)
    try:
        tty.setraw(descriptor, termios.TCSANOW)  # keys typed ahead stay: TCSAFLUSH would drop them
        return sys.stdin.read(1)
    finally:
        termios.tcsetattr(descriptor, termios.TCSADRAIN, saved)


def enter_pressed() -> bool:
    """True once the person has pressed Enter (the line is read), without waiting for it."""
    import select

    if select.select([sys.stdin], [], [], 0)[0]:
        sys.stdin.readline()
        return True
    return False


class BoardPrinter:
    """A game's observer at the terminal: after each move (and at the start) the board, in the discs' own colours
    where `out` is a terminal that wants colour, else X and O; a legend with the first board."""

    def __init__(self, out) -> None:
        from robot.game.board_text import wants_colour

        self.out = out
        self.colour = wants_colour(out)
        self._legend_shown = False

    def on_state(self, snapshot: dict) -> None:
        from engine import Position
        from robot.game.board_text import board_text, legend
        from robot.game.events import SHOWS_BOARD

        said = snapshot.get("event")
        if said is None or said.kind not in SHOWS_BOARD:
            return
        robot_player = 1 if snapshot["robot_first"] else 2
        moves = "".join(str(column + 1) for column in snapshot["moves"])
        board = Position.from_moves(moves, width=snapshot["cols"], height=snapshot["rows"]).to_array()
        lines = [] if self._legend_shown else [legend(robot_player, self.colour, snapshot.get("person", "you"))]
        self._legend_shown = True
        print("\n".join([*lines, board_text(board, robot_player, self.colour)]), file=self.out, flush=True)

    def on_frame(self, frame, reading) -> None:
        """Frames are for the live view and the recording."""
