"""A finished game played back from its log (`c4robot view --log GAMELOG`): the same page, one move per step.

The log keeps the moves, who started, the robot's turns (chosen and landed columns) and the notes told
to the person, not the camera pictures nor the engine's scores: the replay shows the board, the turns, the
words and every column's verdict from the books, and says that it has no camera. It waits on its first move
until a page listens (a browser opened late misses nothing), and the page's buttons play, pause and step it.
"""

from __future__ import annotations

import threading
import time

from engine import Position
from robot.game.events import EventKind, GameEvent, event
from robot.game.log import GameLog
from robot.view.live import EVENTS_KEPT, LiveView

WAKE_S = 0.5  # how often a waiting replay checks whether it should stop


def replay_snapshots(game_log: GameLog) -> list[dict]:
    """One game snapshot per step: the start, every move, the end (the shape robot.game.loop.Game publishes)."""
    position = Position.from_moves("", width=game_log.cols, height=game_log.rows)
    robot_player = 1 if game_log.robot_first else 2
    opening = event(EventKind.SAID, 0.0, detail="Replay of a saved game: the log has no camera pictures.")
    snapshots = [_snapshot(game_log, position, [], opening)]
    for index, column in enumerate(game_log.moves):
        kind = EventKind.ROBOT_MOVED if position.side_to_move == robot_player else EventKind.PERSON_MOVED
        position = position.play(column)
        moved = event(kind, float(index + 1), (column,), column=column + 1, person="The person")
        snapshots.append(_snapshot(game_log, position, game_log.moves[: index + 1], moved))
    ending = event(EventKind.GAME_OVER, float(len(game_log.moves) + 1), outcome=_ending(game_log))
    snapshots.append(_snapshot(game_log, position, game_log.moves, ending))
    return snapshots


def _ending(game_log: GameLog) -> str:
    if game_log.winner == "robot":
        return "I win!"
    if game_log.winner == "opponent":
        return "The person wins!"
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
        "person": "the person",
        "turn": turn,
        "winner": game_log.winner if over else None,
        "winning_cells": [list(cell) for cell in position.winning_cells()] if over else [],
        "search": None,
        "message": said.message,
        "event": said,
    }


class ReplayPlayer:
    """Shows a replay's snapshots on `view`, one every `step_s` seconds while playing; the page's buttons
    (`command`) play, pause and step it. Playing starts when the first page listens."""

    def __init__(self, game_log: GameLog, view: LiveView, step_s: float) -> None:
        self.snapshots = replay_snapshots(game_log)
        self.view = view
        self.step_s = step_s
        self.index = 0
        self.playing = True
        self._next_at = 0.0
        self._changed = threading.Condition()
        view.control = self.command

    @property
    def last(self) -> int:
        return len(self.snapshots) - 1

    def command(self, action: str) -> None:
        """ "play" (from the start again when at the end), "pause", or "step" (one move on, paused)."""
        with self._changed:
            if action == "play":
                self.index = 0 if self.index == self.last else self.index
                self.playing = True
                self._next_at = time.monotonic() + self.step_s
            elif action == "pause":
                self.playing = False
            elif action == "step":
                self.playing = False
                self.index = min(self.index + 1, self.last)
            else:
                raise ValueError(f"a replay has no control {action!r}: use play, pause or step")
            self._show()
            self._changed.notify_all()

    def run(self, stop: threading.Event) -> None:
        """Show the first snapshot, wait for a viewer, then play until `stop` is set (the end stays shown)."""
        with self._changed:
            self._show()
        while not stop.is_set() and not self.view.first_viewer.wait(WAKE_S):
            pass
        self._next_at = time.monotonic() + self.step_s
        while not stop.is_set():
            with self._changed:
                if self.playing and time.monotonic() >= self._next_at:
                    self.index = min(self.index + 1, self.last)
                    self.playing = self.index < self.last
                    self._next_at = time.monotonic() + self.step_s
                    self._show()
                wait_s = self._next_at - time.monotonic() if self.playing else WAKE_S
                self._changed.wait(min(max(wait_s, 0.0), WAKE_S))

    def _show(self) -> None:
        """The snapshot at `index`, the events up to it, and where the replay stands (for the page)."""
        self.view.events = [s["event"].to_json() for s in self.snapshots[: self.index]][-EVENTS_KEPT:]
        replay = {"step": self.index, "steps": self.last, "playing": self.playing}
        self.view.on_state({**self.snapshots[self.index], "replay": replay})
