"""A finished game played back from its log (`c4robot view --log GAMELOG`): the same page, one move per step.

The log keeps the moves, who started, the robot's turns (chosen and landed columns) and the notes told
to the person, not the camera pictures nor the engine's scores: the replay shows the board, the turns and
the words, and says that it has no camera.
"""

from __future__ import annotations

import threading

from engine import Position
from robot.game.events import EventKind, GameEvent, event
from robot.game.log import GameLog
from robot.view.live import LiveView


def replay_snapshots(game_log: GameLog) -> list[dict]:
    """One game snapshot per step: the start, every move, the end (the shape robot.game.loop.Game publishes)."""
    position = Position.from_moves("", width=game_log.cols, height=game_log.rows)
    robot_player = 1 if game_log.robot_first else 2
    opening = event(EventKind.SAID, 0.0, detail="Replay of a saved game: the log has no camera pictures.")
    snapshots = [_snapshot(game_log, position, [], opening)]
    for index, column in enumerate(game_log.moves):
        kind = EventKind.ROBOT_MOVED if position.side_to_move == robot_player else EventKind.PERSON_MOVED
        position = position.play(column)
        moved = event(kind, float(index + 1), (column,), column=column + 1, person="You")
        snapshots.append(_snapshot(game_log, position, game_log.moves[: index + 1], moved))
    ending = event(EventKind.GAME_OVER, float(len(game_log.moves) + 1), outcome=_ending(game_log))
    snapshots.append(_snapshot(game_log, position, game_log.moves, ending))
    return snapshots


def _ending(game_log: GameLog) -> str:
    if game_log.winner == "robot":
        return "I win!"
    if game_log.winner == "opponent":
        return "You win!"
    if game_log.winner == "draw":
        return "The board is full: a draw."
    return f"The game stopped before its end: {game_log.stopped or 'no reason logged'}."


def _snapshot(game_log: GameLog, position: Position, moves: list[int], said: GameEvent) -> dict:
    over = position.is_over()
    robot_player = 1 if game_log.robot_first else 2
    turn = "over" if over else "robot" if position.side_to_move == robot_player else "person"
    return {
        "rows": game_log.rows,
        "cols": game_log.cols,
        "moves": list(moves),
        "robot_first": game_log.robot_first,
        "turn": turn,
        "winner": game_log.winner if over else None,
        "winning_cells": [list(cell) for cell in position.winning_cells()] if over else [],
        "search": None,
        "message": said.message,
        "event": said,
    }


def play_back(game_log: GameLog, view: LiveView, step_s: float, stop: threading.Event) -> None:
    """Feed the snapshots to `view`, one every `step_s` seconds, until the end or `stop` is set."""
    for snapshot in replay_snapshots(game_log):
        view.on_state(snapshot)
        if stop.wait(step_s):
            return
