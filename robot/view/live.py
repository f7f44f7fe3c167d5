"""The view's picture of a game: game snapshots (robot.game.loop.Game.watch) turned into what the page shows.

`LiveView` is the game's observer. Each call from the game's thread does a few microseconds of work
(a 42-cell board from the moves, the verdicts in words) and replaces the latest state; the web server
sends it on from its own threads, so the game never waits for a browser.
"""

from __future__ import annotations

import numpy as np

from robot.view.camera_stream import CameraStream
from robot.view.slot import LatestSlot
from robot.view.verdicts import column_verdicts
from vision import BoardReading

EVENTS_KEPT = 30


def board_from_moves(moves: list[int], rows: int, cols: int) -> list[list[int]]:
    """Rows bottom first of 0 empty, 1 the first player, 2 the second, from 0-based columns in play order."""
    grid = [[0] * cols for _ in range(rows)]
    heights = [0] * cols
    for index, column in enumerate(moves):
        grid[heights[column]][column] = 1 + index % 2
        heights[column] += 1
    return grid


class LiveView:
    """Latest page state (`states`) and camera pictures (`camera`) of one game or replay."""

    def __init__(self, title: str = "Connect 4 robot") -> None:
        self.title = title
        self.states: LatestSlot[dict] = LatestSlot()
        self.camera = CameraStream()
        self.events: list[dict] = []  # the last events said, as their JSON (kind, columns, cells, message, time)

    def on_state(self, snapshot: dict) -> None:
        """A game snapshot in; the page's state out (the board, whose turn, the verdicts, the events)."""
        said = snapshot.get("event")
        if said is not None:
            self.events = [*self.events, said.to_json()][-EVENTS_KEPT:]
        rows, cols = snapshot["rows"], snapshot["cols"]
        robot_player = 1 if snapshot["robot_first"] else 2
        search = snapshot.get("search")
        self.states.put(
            {
                **snapshot,
                "event": None if said is None else said.to_json(),
                "title": self.title,
                "board": board_from_moves(snapshot["moves"], rows, cols),
                "robot_player": robot_player,
                "robot_column": None if search is None else search["column"],
                "verdicts": column_verdicts(search, snapshot["moves"], rows),
                "events": self.events,
                "camera": self.camera.frames.get()[0] > 0,
            }
        )

    def on_frame(self, frame: np.ndarray, reading: BoardReading) -> None:
        self.camera.offer(frame, reading)

    def close(self) -> None:
        self.camera.close()
