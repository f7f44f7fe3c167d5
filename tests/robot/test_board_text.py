"""The terminal board in the discs' colours (robot yellow, person red), or X/O where colour is not wanted."""

from __future__ import annotations

import io
import re

import pytest

from engine import Position
from robot.game.board_text import DISC, PERSON_COLOUR, ROBOT_COLOUR, board_text, legend, wants_colour

ANSI = re.compile(r"\033\[[0-9;]*m")


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_plain_text_is_the_engines_board() -> None:
    position = Position.from_moves("4453")
    assert board_text(position.to_array(), robot_player=2, colour=False) == str(position)


def test_colour_puts_the_robots_discs_in_yellow_and_the_persons_in_red() -> None:
    board = Position.from_moves("4453").to_array()  # first player: 4, 5 bottom; second: 4 second row, 3 bottom
    for robot_player in (1, 2):
        text = board_text(board, robot_player=robot_player, colour=True)
        bottom = text.splitlines()[-2]
        discs = re.findall(r"(\033\[[0-9;]*m)" + DISC, bottom)
        first, second = (ROBOT_COLOUR, PERSON_COLOUR) if robot_player == 1 else (PERSON_COLOUR, ROBOT_COLOUR)
        assert discs == [second, first, first]  # columns 3, 4, 5
        assert ANSI.sub("", text).count(DISC) == 4
        assert "X" not in text and "O" not in text


def test_the_legend_ties_colours_to_letters() -> None:
    assert legend(robot_player=2, colour=False) == "robot: yellow, O \u00b7 you: red, X"
    assert legend(robot_player=1, colour=False) == "robot: yellow, X \u00b7 you: red, O"
    coloured = legend(robot_player=2, colour=True)
    assert ANSI.sub("", coloured) == f"{DISC} robot: yellow, O \u00b7 {DISC} you: red, X"
    assert coloured.index(ROBOT_COLOUR) < coloured.index("robot") < coloured.index(PERSON_COLOUR)


@pytest.mark.parametrize(
    ("stream", "environ", "expected"),
    [
        (_Terminal(), {"TERM": "xterm-256color"}, True),
        (_Terminal(), {"TERM": "xterm", "NO_COLOR": "1"}, False),
        (_Terminal(), {"TERM": "dumb"}, False),
        (_Terminal(), {"NO_COLOR": ""}, True),  # an empty NO_COLOR does not count (no-color.org)
        (io.StringIO(), {"TERM": "xterm"}, False),  # a pipe or a file
    ],
)
def test_colour_only_on_a_terminal_that_wants_it(stream, environ: dict, expected: bool) -> None:
    assert wants_colour(stream, environ) is expected


def test_a_board_that_is_not_a_grid_is_refused() -> None:
    with pytest.raises(ValueError, match="not \\(rows, cols\\)"):
        board_text([1, 2, 0], robot_player=1, colour=False)
