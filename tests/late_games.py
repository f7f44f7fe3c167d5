"""Games that start late: a logged position a few plies from its end, resumed, so that a test plays the moves it
checks (a person's turn, the robot's answer, the end) instead of a whole game."""

from __future__ import annotations

from robot.game.log import GameLog

# The person to move, no win for them in one; whatever they play, the robot wins with its next disc.
PERSON_TO_MOVE_ROBOT_WINS_NEXT = {False: "74451573", True: "624634363"}
# The robot to move, and a win for it in one (the robot starts).
ROBOT_WINS_NOW = "6741243217"


def late_log(robot_first: bool = False, robot_to_move: bool = False) -> GameLog:
    """An unfinished game's log: the person to move, the robot one disc from winning whatever they play; or with
    `robot_to_move`, the robot (who started) to move and win with one disc."""
    moves = ROBOT_WINS_NOW if robot_to_move else PERSON_TO_MOVE_ROBOT_WINS_NEXT[robot_first]
    return GameLog(robot_first or robot_to_move, 6, 7, moves=[int(c) - 1 for c in moves])
